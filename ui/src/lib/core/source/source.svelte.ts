// Which file is open, opening files (paths, URLs, the dialog, the queue of files handed over by
// the OS), recent files, and the error of the last failed open.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { DocInfo } from '../types';

export class SourceState {
  doc = $state<DocInfo | null>(null);
  error = $state('');
  opening = $state('');
  recent = $state<string[]>([]);

  constructor(private backend: Backend, private onOpened: (doc: DocInfo) => void | Promise<void>) {}

  async refreshRecent(): Promise<void> {
    try {
      this.recent = await this.backend.recentFiles();
    } catch {
      this.recent = [];
    }
  }

  private async run(label: string, open: () => Promise<DocInfo | null>): Promise<boolean> {
    this.opening = label;
    this.error = '';
    try {
      const doc = await open();
      if (!doc) return false;
      const previous = this.doc;
      this.doc = doc;
      if (previous) void this.backend.closeDoc(previous.doc);
      await this.onOpened(doc);
      return true;
    } catch (e) {
      // The previous document (if any) stays open: a bad file never takes the window down.
      this.error = errorText(e);
      return false;
    } finally {
      this.opening = '';
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
    return this.run('…', () => this.backend.openDialog());
  }

  /** Opens the files the OS or the command line handed over (the last one wins the window). */
  async drainPending(): Promise<void> {
    const paths = await this.backend.takePending();
    for (const p of paths) await this.openPath(p);
  }

  dismissError(): void {
    this.error = '';
  }
}
