// The schema legend: classes (a tree when the file has a schema block) with their map colours,
// relations, and the class highlighted on the map.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { Legend, LegendClass } from '../types';
import type { ClassColors } from '../map/colors';

export interface LegendRow { cls: LegendClass; color: string; depth: number }

export class SchemaState {
  legend = $state<Legend | null>(null);
  error = $state('');
  highlighted = $state<string | null>(null);
  loading = $state(false);

  constructor(private backend: Backend, private colors: ClassColors) {}

  async load(doc: number): Promise<void> {
    this.loading = true;
    this.legend = null;
    this.highlighted = null;
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

  toggle(nt: string): void {
    this.highlighted = this.highlighted === nt ? null : nt;
  }

  labelOf(nt: string): string {
    return this.legend?.classes.find((c) => c.nt === nt)?.label ?? nt;
  }
}
