// The coherence report: one run goes through Tier 0 → 1 → 2 in the shell, each tier's report
// arriving as it finishes; selecting a finding highlights its classes (legend and map) and the
// communities and entities of its individuals.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { HighlightState } from '../highlight/highlight.svelte';
import type { CoherenceProgress, CoherenceReport, Finding } from '../types';

export const TIER_NAMES = ['Schema', 'Selective', 'Full'] as const;
export const TIER_READS = [
  'the schema block only',
  'rdf:type, owl:sameAs and owl:differentFrom',
  'the triples of every property with an axiom',
] as const;

export class CoherenceState {
  running = $state(false);
  /** Tiers finished in the current or last run (0–3). */
  tiersDone = $state(0);
  report = $state.raw<CoherenceReport | null>(null);
  status = $state<'' | 'ok' | 'cancelled'>('');
  selected = $state(-1);
  error = $state('');
  message = $state('');
  private doc = 0;
  private seq = 0;
  private current = 0;

  constructor(private backend: Backend, private highlight: HighlightState) {}

  reset(doc: number): void {
    this.doc = doc;
    this.running = false;
    this.tiersDone = 0;
    this.report = null;
    this.status = '';
    this.selected = -1;
    this.error = '';
    this.message = '';
    this.current = ++this.seq;
    this.highlight.clear('finding');
  }

  /** A tier finished (event from the shell). */
  onProgress(p: CoherenceProgress): void {
    if (p.run !== this.current || !this.running) return;
    this.report = p.report;
    this.tiersDone = Math.max(this.tiersDone, p.tier + 1);
  }

  async run(): Promise<void> {
    if (this.running || !this.doc) return;
    const doc = this.doc;
    const run = ++this.seq;
    this.current = run;
    this.running = true;
    this.tiersDone = 0;
    this.report = null;
    this.status = '';
    this.error = '';
    this.select(-1);
    try {
      const out = await this.backend.coherenceRun(doc, run);
      if (run !== this.current) return;
      if (out.report) this.report = out.report;
      this.tiersDone = out.report ? out.report.tier + 1 : this.tiersDone;
      this.status = out.status;
    } catch (e) {
      if (run === this.current) this.error = errorText(e);
    } finally {
      if (run === this.current) this.running = false;
    }
  }

  async cancel(): Promise<void> {
    if (this.running) await this.backend.coherenceCancel(this.current);
  }

  get findings(): Finding[] {
    return this.report?.findings ?? [];
  }

  /** Counts by severity. */
  counts(): Record<string, number> {
    const c: Record<string, number> = { error: 0, warning: 0, info: 0 };
    for (const f of this.findings) c[f.severity] = (c[f.severity] ?? 0) + 1;
    return c;
  }

  /** Selects finding `i` (or none with -1) and highlights what it involves. */
  async select(i: number): Promise<void> {
    this.selected = i;
    const f = this.findings[i];
    if (!f) {
      this.highlight.clear('finding');
      return;
    }
    const classes = f.classes.map((c) => `<${c}>`);
    this.highlight.set({ source: 'finding', label: f.kind, classes });
    if (!f.entities.length) return;
    try {
      const located = await this.backend.locate(this.doc, f.entities);
      if (this.selected !== i || this.findings[i] !== f) return;
      // The individuals (and the communities holding them) stand out; the legend marks the classes.
      this.highlight.set({ source: 'finding', label: f.kind, classes, expanded: [], keys: located.flatMap((l) => l.keys) });
    } catch (e) {
      this.message = errorText(e);
    }
  }

  async export(format: 'json' | 'md'): Promise<void> {
    try {
      const path = await this.backend.coherenceExport(this.doc, format);
      if (path) this.message = `Saved ${path}`;
    } catch (e) {
      this.message = errorText(e);
    }
  }
}
