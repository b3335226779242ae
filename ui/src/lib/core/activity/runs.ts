/** Which run of a document's long job (the coherence report, a shapes validation) is current:
 * each start and each reset takes a new number, so the answers and progress of an older run are
 * dropped when they arrive. */
export class Runs {
  /** The document the job runs on (0: none). */
  doc = 0;
  /** The current run's number. */
  current = 0;
  private seq = 0;

  /** Another document (or none): a run going on is no longer current. */
  reset(doc: number): void {
    this.doc = doc;
    this.current = ++this.seq;
  }

  /** Starts a run and returns its number. */
  start(): number {
    this.current = ++this.seq;
    return this.current;
  }
}
