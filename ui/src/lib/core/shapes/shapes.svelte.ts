// SHACL validation, the Shapes part of the coherence panel: shapes from a file the user picks or
// from the dataset, results grouped by shape and constraint; selecting a group highlights the
// communities and entities holding its focus nodes, as a coherence finding does.
import type { Backend } from '../backend';
import { errorText, isCancelled } from '../backend';
import type { HighlightState } from '../highlight/highlight.svelte';
import type { ShapesGroup, ShapesOutcome, ShapesProgress } from '../types';
import { Runs } from '../activity/runs';

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

/** A result path (SPARQL syntax) with each IRI by its local name, as shapes are named:
 *  `^<http://ex.org/knows>/<http://ex.org/name>` → `^knows/name`. */
export function pathName(path: string): string {
  return path.replace(/<([^>]*)>/g, (_, iri: string) => iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1) || `<${iri}>`);
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
  /** Where the running validation is (null before its first report). */
  progress = $state.raw<ShapesProgress | null>(null);
  private runs = new Runs();

  constructor(private backend: Backend, private highlight: HighlightState) {}

  reset(doc: number): void {
    this.runs.reset(doc);
    this.running = false;
    this.outcome = null;
    this.error = '';
    this.selected = -1;
    this.progress = null;
  }

  /** A progress report of the shell: kept when it is the running validation's. */
  onProgress(p: ShapesProgress): void {
    if (this.running && p.run === this.runs.current) this.progress = p;
  }

  /** The shapes' rules, said: rules infer triples, which the validator does not run. */
  get rulesText(): string {
    const n = this.outcome?.rules_not_run ?? 0;
    return `The shapes hold ${n.toLocaleString('en')} SHACL-AF rule${n === 1 ? '' : 's'} (sh:rule), which infer triples and were not run: the data was validated as given.`;
  }

  /** The running validation in words: "shape 3 of 23 · 12,000 of 127,000 focus nodes · 40 results". */
  get progressText(): string {
    const p = this.progress;
    if (!p) return 'Validating…';
    const fmt = (n: number) => n.toLocaleString('en');
    const shape = Math.min(p.shapes_done + 1, p.shapes_total);
    const nodes = p.shape_focus_nodes_done < p.shape_focus_nodes
      ? ` · ${fmt(p.shape_focus_nodes_done)} of ${fmt(p.shape_focus_nodes)} focus nodes`
      : '';
    return `Validating shape ${fmt(shape)} of ${fmt(p.shapes_total)}${nodes} · ${fmt(p.results)} result${p.results === 1 ? '' : 's'} so far`;
  }

  /** The share of the work done, 0 to 1: whole shapes, and the running shape's focus nodes. */
  get fraction(): number {
    const p = this.progress;
    if (!p || !p.shapes_total) return 0;
    // After a shape the report still carries its counts: only a shape under way adds a part.
    const underWay = p.shape_focus_nodes_done < p.shape_focus_nodes;
    const done = p.shapes_done + (underWay ? p.shape_focus_nodes_done / p.shape_focus_nodes : 0);
    return Math.min(1, done / p.shapes_total);
  }

  /** Asks for a shapes file, then validates with it. */
  async pickAndRun(): Promise<void> {
    if (this.running || !this.runs.doc) return;
    try {
      const file = await this.backend.shapesPick();
      if (file) await this.run(file);
    } catch (e) {
      this.error = errorText(e);
    }
  }

  /** Validates with the shapes file `shapes`, or with the shapes the dataset holds (null). */
  async run(shapes: string | null): Promise<void> {
    if (this.running || !this.runs.doc) return;
    const run = this.runs.start();
    this.running = true;
    this.progress = null;
    this.error = '';
    this.select(-1);
    try {
      const out = await this.backend.shapesRun(this.runs.doc, run, shapes);
      if (run === this.runs.current) this.outcome = out;
    } catch (e) {
      if (run === this.runs.current) this.error = isCancelled(e) ? '' : errorText(e);
    } finally {
      if (run === this.runs.current) {
        this.running = false;
        this.progress = null;
      }
    }
  }

  async cancel(): Promise<void> {
    if (this.running) await this.backend.shapesCancel(this.runs.current);
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
      const located = await this.backend.locate(this.runs.doc, g.focus_nodes);
      if (this.selected !== i) return;
      this.highlight.set({ source: 'finding', label, classes: [], keys: located.flatMap((l) => l.keys) });
    } catch (e) {
      this.error = errorText(e);
    }
  }
}
