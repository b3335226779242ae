// The coherence report: one run goes through Tier 0 → 1 → 2 in the shell, each tier's report
// arriving as it finishes; selecting a finding highlights its classes (legend and map) and the
// communities and entities of its individuals. Findings are listed by root cause: a root
// unsatisfiable class with its derived classes folded under it, then instance findings sharing one
// clash, then the rest.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { HighlightState } from '../highlight/highlight.svelte';
import { Activity } from '../activity/activity.svelte';
import type { ClashGroup, CoherenceProgress, CoherenceReport, Finding, RootCause, Step } from '../types';
import { Runs } from '../activity/runs';

/** One row of the findings list. */
export type Row =
  | { type: 'cause'; key: string; cause: number; root: RootCause }
  | { type: 'clash'; key: string; group: ClashGroup }
  | { type: 'finding'; key: string; index: number };

/** `iri` with the report's longest matching prefix, else `<iri>`. */
export function compact(prefixes: readonly [string, string][], iri: string): string {
  let best: [string, string] | null = null;
  for (const p of prefixes) if (iri.length > p[1].length && iri.startsWith(p[1]) && (!best || p[1].length > best[1].length)) best = p;
  return best ? `${best[0]}:${iri.slice(best[1].length)}` : `<${iri}>`;
}

/** Where a step comes from, for people: its named graph(s), or the default graph. */
export function stepSource(s: Step): string {
  if (s.graphs?.length) return s.graphs.join(', ');
  return s.default_graph ? 'default graph' : '';
}

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
  /** The selected root cause (index into `report.groups.causes`), or -1. */
  cause = $state(-1);
  /** Rows unfolded by the user (by key). */
  unfolded = $state<ReadonlySet<string>>(new Set());
  error = $state('');
  message = $state('');
  /** The running tier's spinner, once the run lasts: Tier 0 answers in a moment, and every frame
   * of a spinning element recomposites the window in software rendering (core/activity). */
  readonly working = new Activity();
  private runs = new Runs();

  constructor(private backend: Backend, private highlight: HighlightState) {}

  reset(doc: number): void {
    this.runs.reset(doc);
    this.running = false;
    this.tiersDone = 0;
    this.report = null;
    this.status = '';
    this.selected = -1;
    this.cause = -1;
    this.unfolded = new Set();
    this.error = '';
    this.message = '';
    this.working.set(false);
    this.highlight.clear('finding');
  }

  /** A tier finished (event from the shell). */
  onProgress(p: CoherenceProgress): void {
    if (p.run !== this.runs.current || !this.running) return;
    this.report = p.report;
    this.tiersDone = Math.max(this.tiersDone, p.tier + 1);
  }

  async run(): Promise<void> {
    if (this.running || !this.runs.doc) return;
    const doc = this.runs.doc;
    const run = this.runs.start();
    this.running = true;
    this.tiersDone = 0;
    this.report = null;
    this.status = '';
    this.error = '';
    this.select(-1);
    this.working.set(true);
    try {
      const out = await this.backend.coherenceRun(doc, run);
      if (run !== this.runs.current) return;
      if (out.report) this.report = out.report;
      this.tiersDone = out.report ? out.report.tier + 1 : this.tiersDone;
      this.status = out.status;
    } catch (e) {
      if (run === this.runs.current) this.error = errorText(e);
    } finally {
      if (run === this.runs.current) {
        this.running = false;
        this.working.set(false);
      }
    }
  }

  async cancel(): Promise<void> {
    if (this.running) await this.backend.coherenceCancel(this.runs.current);
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

  /** Roots first (derived classes folded under them), then clash groups, then the other findings. */
  get rows(): Row[] {
    const r = this.report;
    if (!r) return [];
    const rows: Row[] = [];
    const grouped = new Set<number>();
    const causes = r.groups?.causes ?? [];
    causes.forEach((root, cause) => {
      rows.push({ type: 'cause', key: `cause:${cause}`, cause, root });
      for (const i of [...root.roots, ...root.derived, ...root.instances]) grouped.add(i);
    });
    (r.groups?.clashes ?? []).forEach((group, k) => {
      rows.push({ type: 'clash', key: `clash:${k}`, group });
      for (const i of group.findings) grouped.add(i);
    });
    r.findings.forEach((_, index) => {
      if (!grouped.has(index)) rows.push({ type: 'finding', key: `finding:${index}`, index });
    });
    return rows;
  }

  /** "1 root cause · 28 derived · 4 instance findings". */
  get groupSummary(): string {
    const g = this.report?.groups;
    if (!g) return '';
    const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
    return `${n(g.roots, 'root cause', 'root causes')} · ${g.derived} derived · ${n(g.instance_findings, 'instance finding', 'instance findings')}`;
  }

  compact(iri: string): string {
    return compact(this.report?.prefixes ?? [], iri);
  }

  isOpen(key: string): boolean {
    return this.unfolded.has(key);
  }

  toggle(key: string): void {
    const next = new Set(this.unfolded);
    if (!next.delete(key)) next.add(key);
    this.unfolded = next;
  }

  /** Selects root cause `k`: its explanation, and on the map the communities holding its root and
   * derived classes and the individuals of its instance findings. */
  async selectCause(k: number): Promise<void> {
    const root = this.report?.groups?.causes[k];
    if (!root) return this.select(-1);
    this.selected = root.roots[0] ?? -1;
    this.cause = k;
    const classes = [...root.classes, ...root.derived_classes].map((c) => `<${c}>`);
    const label = this.compact(root.classes[0] ?? '');
    this.highlight.set({ source: 'finding', label, classes });
    // Its individuals, and the class terms themselves where they are entities of the map (a
    // dataset that holds the vocabularies).
    const entities = [...root.instances.flatMap((i) => this.findings[i]?.entities ?? []), ...classes];
    try {
      const located = await this.backend.locate(this.runs.doc, entities);
      if (this.cause !== k) return;
      this.highlight.set({ source: 'finding', label, classes, keys: located.flatMap((l) => l.keys) });
    } catch (e) {
      this.message = errorText(e);
    }
  }

  /** Selects finding `i` (or none with -1) and highlights what it involves. */
  async select(i: number): Promise<void> {
    this.selected = i;
    this.cause = -1;
    const f = this.findings[i];
    if (!f) {
      this.highlight.clear('finding');
      return;
    }
    const classes = f.classes.map((c) => `<${c}>`);
    this.highlight.set({ source: 'finding', label: f.kind, classes });
    if (!f.entities.length) return;
    try {
      const located = await this.backend.locate(this.runs.doc, f.entities);
      if (this.selected !== i || this.findings[i] !== f) return;
      // The individuals (and the communities holding them) stand out; the legend marks the classes.
      this.highlight.set({ source: 'finding', label: f.kind, classes, expanded: [], keys: located.flatMap((l) => l.keys) });
    } catch (e) {
      this.message = errorText(e);
    }
  }

  async export(format: 'json' | 'md'): Promise<void> {
    try {
      const path = await this.backend.coherenceExport(this.runs.doc, format);
      if (path) this.message = `Saved ${path}`;
    } catch (e) {
      this.message = errorText(e);
    }
  }
}
