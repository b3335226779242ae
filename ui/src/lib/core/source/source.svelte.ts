// Which file is open, opening files (paths, URLs, the dialog, the queue of files handed over by
// the OS), recent files, and the error of the last failed open.
import type { Backend } from '../backend';
import { errorText, isCancelled } from '../backend';
import type { DocInfo } from '../types';

export class SourceState {
  doc = $state<DocInfo | null>(null);
  error = $state('');
  opening = $state('');
  /** The queue of handed-over files has been looked at once: until then a launch with a file
   * would flash the welcome page. */
  checked = $state(false);
  /** A known file is being opened (not the dialog, whose choice is not known yet): the window can
   * lay out the document view, and create the map, while the shell opens it. */
  expecting = $state(false);
  recent = $state<string[]>([]);
  /** Opens a rete:// view link handed over with the files (set by the session). */
  linkOpener: ((link: string) => Promise<boolean>) | null = null;

  constructor(private backend: Backend, private onOpened: (doc: DocInfo) => void | Promise<void>) {}

  async refreshRecent(): Promise<void> {
    try {
      this.recent = await this.backend.recentFiles();
    } catch {
      this.recent = [];
    }
  }

  /** Opens what `open` opens, shown as `label` meanwhile; its error is this state's. */
  async run(label: string, open: () => Promise<DocInfo | null>, known = true): Promise<boolean> {
    this.opening = label;
    this.expecting = known;
    this.error = '';
    try {
      const doc = await open();
      if (!doc) return false;
      const previous = this.doc;
      this.doc = doc;
      // Open: from here on the map and the legend show their own progress.
      this.opening = '';
      this.expecting = false;
      if (previous) void this.backend.closeDoc(previous.doc);
      await this.onOpened(doc);
      return true;
    } catch (e) {
      // The previous document (if any) stays open: a bad file never takes the window down.
      // A build the user cancelled is not an error.
      this.error = isCancelled(e) ? '' : errorText(e);
      return false;
    } finally {
      this.opening = '';
      this.expecting = false;
      void this.refreshRecent();
    }
  }

  openPath(path: string): Promise<boolean> {
    if (/^https?:\/\//i.test(path)) return this.openUrl(path);
    return this.run(path, () => this.backend.openPath(path));
  }

  openUrl(url: string): Promise<boolean> {
    return this.run(url, () => this.backend.openUrl(url.trim()));
  }

  openDialog(): Promise<boolean> {
    return this.run('…', () => this.backend.openDialog(), false);
  }

  /** Opens the files the OS or the command line handed over (the last one wins the window). */
  async drainPending(): Promise<void> {
    let paths: string[] = [];
    try {
      paths = await this.backend.takePending();
    } finally {
      // In the same task as the first openPath below, which sets `opening`.
      this.checked = true;
    }
    for (const p of paths) {
      if (/^rete:/i.test(p)) await this.linkOpener?.(p);
      else await this.openPath(p);
    }
  }

  dismissError(): void {
    this.error = '';
  }
}
