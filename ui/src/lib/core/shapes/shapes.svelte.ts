// SHACL validation, the Shapes part of the coherence panel: shapes from a file the user picks or
// from the dataset, results grouped by shape and constraint; selecting a group highlights the
// communities and entities holding its focus nodes, as a coherence finding does.
import type { Backend } from '../backend';
import { errorText, isCancelled } from '../backend';
import type { HighlightState } from '../highlight/highlight.svelte';
import type { ShapesGroup, ShapesOutcome } from '../types';

/** `http://www.w3.org/ns/shacl#MinCountConstraintComponent` → `MinCount`. */
export function componentName(iri: string): string {
  const local = iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1);
  return local.replace(/ConstraintComponent$/, '');
}

/** `<http://example.org/shapes/Person>` → `Person`; a blank node stays as it is. */
export function shapeName(nt: string): string {
  if (!nt.startsWith('<')) return nt;
  const iri = nt.slice(1, -1);
  return iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1) || iri;
}

/** `…#Violation` → `violation`. */
export function severityName(iri: string): string {
  return componentName(iri).toLowerCase();
}

export class ShapesState {
  running = $state(false);
  outcome = $state.raw<ShapesOutcome | null>(null);
  error = $state('');
  selected = $state(-1);
  private doc = 0;
  private seq = 0;
  private current = 0;

  constructor(private backend: Backend, private highlight: HighlightState) {}

  reset(doc: number): void {
    this.doc = doc;
    this.running = false;
    this.outcome = null;
    this.error = '';
    this.selected = -1;
    this.current = ++this.seq;
  }

  /** Asks for a shapes file, then validates with it. */
  async pickAndRun(): Promise<void> {
    if (this.running || !this.doc) return;
    try {
      const file = await this.backend.shapesPick();
      if (file) await this.run(file);
    } catch (e) {
      this.error = errorText(e);
    }
  }

  /** Validates with the shapes file `shapes`, or with the shapes the dataset holds (null). */
  async run(shapes: string | null): Promise<void> {
    if (this.running || !this.doc) return;
    const run = ++this.seq;
    this.current = run;
    this.running = true;
    this.error = '';
    this.select(-1);
    try {
      const out = await this.backend.shapesRun(this.doc, run, shapes);
      if (run === this.current) this.outcome = out;
    } catch (e) {
      if (run === this.current) this.error = isCancelled(e) ? '' : errorText(e);
    } finally {
      if (run === this.current) this.running = false;
    }
  }

  async cancel(): Promise<void> {
    if (this.running) await this.backend.shapesCancel(this.current);
  }

  get groups(): ShapesGroup[] {
    return this.outcome?.groups ?? [];
  }

  /** Selects group `i` (or none with -1): its focus nodes light up on the map. */
  async select(i: number): Promise<void> {
    this.selected = i;
    const g = this.groups[i];
    if (!g) {
      this.highlight.clear('finding');
      return;
    }
    const label = `${shapeName(g.shape)} · ${componentName(g.component)}`;
    this.highlight.set({ source: 'finding', label, classes: [] });
    try {
      const located = await this.backend.locate(this.doc, g.focus_nodes);
      if (this.selected !== i) return;
      this.highlight.set({ source: 'finding', label, classes: [], keys: located.flatMap((l) => l.keys) });
    } catch (e) {
      this.error = errorText(e);
    }
  }
}
