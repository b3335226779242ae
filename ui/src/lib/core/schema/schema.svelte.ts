// The schema legend: classes (a tree when the file has a schema block) with their map colours,
// relations, and the class highlighted on the map.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { Legend, LegendClass } from '../types';
import type { ClassColors } from '../map/colors';
import { HighlightState } from '../highlight/highlight.svelte';

export interface LegendRow { cls: LegendClass; color: string; depth: number }

export class SchemaState {
  legend = $state<Legend | null>(null);
  error = $state('');
  loading = $state(false);

  constructor(private backend: Backend, private colors: ClassColors, readonly highlight: HighlightState = new HighlightState()) {}

  /** The class the legend highlights on the map, if the highlight is the legend's. */
  get highlighted(): string | null {
    if (this.highlight.source !== 'legend') return null;
    return [...this.highlight.classes][0] ?? null;
  }

  /** Whether a legend row is marked (by the legend or by a coherence finding). */
  isMarked(nt: string): boolean {
    return this.highlight.classes.has(nt);
  }

  async load(doc: number): Promise<void> {
    this.loading = true;
    this.legend = null;
    this.highlight.clear('legend');
    this.error = '';
    try {
      this.legend = await this.backend.legend(doc);
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.loading = false;
    }
  }

  /** Rows in tree order: each class after its first parent, indented by depth. */
  rows(): LegendRow[] {
    const l = this.legend;
    if (!l) return [];
    const kids = new Map<number, number[]>();
    const roots: number[] = [];
    l.classes.forEach((c, i) => {
      const p = c.parents.find((x) => x >= 0 && x < l.classes.length && x !== i);
      if (p === undefined) roots.push(i);
      else kids.set(p, [...(kids.get(p) ?? []), i]);
    });
    const out: LegendRow[] = [];
    const seen = new Set<number>();
    const walk = (i: number, depth: number) => {
      if (seen.has(i)) return;
      seen.add(i);
      const cls = l.classes[i];
      out.push({ cls, color: this.colors.color(cls.nt), depth });
      for (const k of kids.get(i) ?? []) walk(k, depth + 1);
    };
    roots.forEach((r) => walk(r, 0));
    l.classes.forEach((_, i) => walk(i, 0));
    return out;
  }

  /** How many instances class `nt` has, its subclasses' included (0 when the legend does not
   *  list it or is not read yet). */
  instances(nt: string): number {
    return this.legend?.classes.find((c) => c.nt === nt)?.total ?? 0;
  }

  /** Highlights class `nt` and its subclasses on the map, or clears it when it already is. */
  toggle(nt: string): void {
    if (this.highlighted === nt) {
      this.highlight.clear('legend');
      return;
    }
    this.highlight.set({ source: 'legend', label: this.labelOf(nt), classes: [nt], expanded: this.descendants(nt) });
  }

  /** Class `nt` and every class below it in the tree. */
  descendants(nt: string): string[] {
    const l = this.legend;
    if (!l) return [nt];
    const start = l.classes.findIndex((c) => c.nt === nt);
    if (start < 0) return [nt];
    const kids = new Map<number, number[]>();
    l.classes.forEach((c, i) => c.parents.forEach((p) => kids.set(p, [...(kids.get(p) ?? []), i])));
    const out = new Set<number>([start]);
    const todo = [start];
    while (todo.length) {
      for (const k of kids.get(todo.pop()!) ?? []) {
        if (!out.has(k)) { out.add(k); todo.push(k); }
      }
    }
    return [...out].map((i) => l.classes[i].nt);
  }

  labelOf(nt: string): string {
    return this.legend?.classes.find((c) => c.nt === nt)?.label ?? nt;
  }
}
