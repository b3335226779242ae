// The selected map node or entity and what the details panel shows about it.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { EntityDetails, GroupDetails } from '../types';

export type Details =
  | { kind: 'entity'; key: string; data: EntityDetails }
  | { kind: 'group'; key: string; data: GroupDetails };

/**
 * How long a click's selection waits for its details before it is shown on its own. Shown
 * together, the map's ring and the details panel cost the page one frame instead of two; with
 * no GPU each frame is composited in software GL (50–120 ms here), and a details answer that came
 * a few ms after the click's first frame cost a whole frame more (docs/BENCHMARK.md, scale).
 */
export const SHOW_ALONE_MS = 80;

/** Entities whose details are kept fetched ahead. */
const AHEAD = 4;

export class SelectionState {
  /** The node shown as selected (the map's ring): with its details, or alone after SHOW_ALONE_MS. */
  selected = $state<string | null>(null);
  /** The node last asked for, at once (what is fetched ahead follows it). */
  requested = $state<string | null>(null);
  hovered = $state<string | null>(null);
  details = $state<Details | null>(null);
  loading = $state(false);
  error = $state('');
  private doc = 0;
  private ticket = 0;
  /** Entities' details fetched ahead (`prefetch`), the oldest dropped beyond `AHEAD`. */
  private ahead = new Map<string, Promise<EntityDetails>>();

  constructor(private backend: Backend) {}

  reset(doc: number): void {
    this.doc = doc;
    this.selected = null;
    this.requested = null;
    this.hovered = null;
    this.details = null;
    this.error = '';
    this.ticket++;
    this.ahead.clear();
  }

  /**
   * Fetches entity `key`'s details in the background for a `select` to come (the search hit
   * Enter would choose): chosen, it shows them at once instead of waiting for the engine, whose
   * answer for an entity not read before waits for its blocks (20–50 ms at 100 M, docs/BENCHMARK.md).
   */
  prefetch(key: string): void {
    if (!key.startsWith('e:') || this.ahead.has(key)) return;
    const data = this.backend.entity(this.doc, Number(key.slice(2)));
    data.catch(() => {});
    this.ahead.set(key, data);
    for (const old of this.ahead.keys()) {
      if (this.ahead.size <= AHEAD) break;
      this.ahead.delete(old);
    }
  }

  /** Selects a map node (`e:<id>` entity, `k:…`/`c…` group) and loads its details. */
  async select(key: string | null): Promise<void> {
    const t = ++this.ticket;
    this.requested = key;
    if (!key) {
      this.selected = null;
      this.error = '';
      this.details = null;
      return;
    }
    // The selection, the loading state and the answer change the page once when the answer is quick.
    const alone = setTimeout(() => {
      if (t !== this.ticket) return;
      this.selected = key;
      this.error = '';
      this.loading = true;
    }, SHOW_ALONE_MS);
    try {
      if (key.startsWith('e:')) {
        const early = this.ahead.get(key);
        this.ahead.delete(key);
        const fetch = () => this.backend.entity(this.doc, Number(key.slice(2)));
        const data = await (early ? early.catch(fetch) : fetch());
        if (t === this.ticket) [this.details, this.error] = [{ kind: 'entity', key, data }, ''];
      } else {
        const data = await this.backend.group(this.doc, key);
        if (t === this.ticket) [this.details, this.error] = [{ kind: 'group', key, data }, ''];
      }
    } catch (e) {
      if (t === this.ticket) {
        this.error = errorText(e);
        this.details = null;
      }
    } finally {
      clearTimeout(alone);
      if (t === this.ticket) {
        this.selected = key;
        this.loading = false;
      }
    }
  }

  /** Follows a link of the details panel to another entity. */
  selectEntity(id: number): Promise<void> {
    return this.select(`e:${id}`);
  }
}
