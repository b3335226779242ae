// "Working" indicator: shown only once work has lasted a moment, so quick work never flashes a
// spinner. It matters for speed too: a spinning element is a compositor animation, and with
// software rendering every one of its frames recomposites the whole window.
export const SHOW_AFTER_MS = 400;

export class Activity {
  shown = $state(false);
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private delay = SHOW_AFTER_MS) {}

  /** Work started (`true`) or ended (`false`). */
  set(working: boolean): void {
    if (!working) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.shown = false;
    } else if (!this.shown && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.shown = true;
      }, this.delay);
    }
  }
}
