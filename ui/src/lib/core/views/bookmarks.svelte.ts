// Bookmarks: views of a file the user named and keeps, listed for that file, restored by a click.
// The last view (views.svelte.ts) follows the user; a bookmark stays where it was put.
import type { SavedView } from '../types';

const KEY = 'rete.bookmarks:';
/** Bookmarks kept per file (the oldest is dropped past this). */
export const MAX_BOOKMARKS = 100;
/** A bookmark's name is cut to this length. */
const MAX_NAME = 120;

export interface Bookmark {
  name: string;
  /** When it was made or last replaced (ms since the epoch). */
  at: number;
  view: SavedView;
}

interface Store { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void }

export class BookmarksState {
  /** The file whose bookmarks `list` holds. */
  source = $state('');
  /** Newest first. */
  list = $state<Bookmark[]>([]);
  /** The bookmarks sheet is shown. */
  shown = $state(false);
  /** Why the last change was not kept (storage full or refused). */
  error = $state('');

  constructor(private store: Store | null) {}

  /** Reads `source`'s bookmarks (a damaged entry is left out, not the whole list). */
  load(source: string): void {
    this.source = source;
    this.error = '';
    let raw: unknown = [];
    try {
      raw = JSON.parse(this.store?.getItem(KEY + source) ?? '[]');
    } catch {
      raw = [];
    }
    this.list = (Array.isArray(raw) ? raw : []).filter((b): b is Bookmark =>
      !!b && typeof b.name === 'string' && typeof b.at === 'number' && !!b.view && b.view.format === 'rete-view' && b.view.version === 1 && b.view.source === source && !!b.view.camera && Array.isArray(b.view.open));
  }

  /** Keeps `view` under `name` (a bookmark of the same name is replaced); returns the name used. */
  add(view: SavedView, name: string, now = Date.now()): string {
    if (view.source !== this.source) this.load(view.source);
    const taken = new Set(this.list.map((b) => b.name));
    let n = name.trim().replace(/\s+/g, ' ').slice(0, MAX_NAME);
    if (!n) for (let i = this.list.length + 1; !n || taken.has(n); i++) n = `View ${i}`;
    this.save([{ name: n, at: now, view }, ...this.list.filter((b) => b.name !== n)].slice(0, MAX_BOOKMARKS));
    return n;
  }

  remove(name: string): void {
    this.save(this.list.filter((b) => b.name !== name));
  }

  rename(name: string, to: string): void {
    const t = to.trim().replace(/\s+/g, ' ').slice(0, MAX_NAME);
    if (!t || t === name) return;
    this.save(this.list.filter((b) => b.name !== t).map((b) => (b.name === name ? { ...b, name: t } : b)));
  }

  private save(list: Bookmark[]): void {
    this.list = list;
    try {
      if (list.length) this.store?.setItem(KEY + this.source, JSON.stringify(list));
      else this.store?.removeItem(KEY + this.source);
      this.error = '';
    } catch {
      this.error = 'The bookmarks could not be stored (the browser storage is full or refused); they last until the window closes.';
    }
  }
}
