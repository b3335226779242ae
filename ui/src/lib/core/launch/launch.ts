// Launch marks: when the page's script ran, the file opened, its top level arrived and was first
// drawn. Reported to the shell once; it prints them for the launch benchmark when asked to
// (RETE_LAUNCH_TRACE) and ignores them otherwise.
import type { Backend } from '../backend';

export class LaunchTrace {
  private marks: Record<string, number> = {};
  private reported = false;

  constructor(
    private backend: Pick<Backend, 'launchDrawn'>,
    private now: () => number = () => performance.now(),
    // When the page began loading (Unix ms): places the page's marks on the shell's clock.
    private origin: number = performance.timeOrigin,
  ) {}

  /** Records the first time `name` happened (ms since the page began loading). */
  mark(name: string): void {
    if (!this.reported && !(name in this.marks)) this.marks[name] = Math.round(this.now() * 10) / 10;
  }

  /** The first view is on screen: reports the marks, once. */
  drawn(): void {
    if (this.reported) return;
    this.mark('drawn');
    this.reported = true;
    this.backend.launchDrawn({ ...this.marks }, this.origin).catch(() => {});
  }

  get done(): boolean {
    return this.reported;
  }
}
