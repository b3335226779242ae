// The paths drawn on the map: each step a line between the nodes that show its two entities at the
// current zoom (the entity itself when it is on the map, else the innermost group on the map that
// holds it), labelled with its predicate. Steps inside one closed group are not drawn.
import type { PathsView } from '../types';

export interface Segment { from: string; to: string; label: string; forward: boolean }

/**
 * The segments of `paths` on the map. `located`: each path entity's map keys (from `locate`,
 * outermost first); `onMap`: whether a key is a node of the map now.
 */
export function pathSegments(paths: PathsView | null, located: ReadonlyMap<string, readonly string[]>, onMap: (key: string) => boolean): Segment[] {
  if (!paths) return [];
  const shown = (nt: string): string | null => {
    const keys = located.get(nt) ?? [];
    for (let i = keys.length - 1; i >= 0; i--) if (onMap(keys[i])) return keys[i];
    return null;
  };
  const out: Segment[] = [];
  const seen = new Set<string>();
  for (const p of paths.paths) {
    for (let i = 0; i < p.steps.length; i++) {
      const a = shown(p.nodes[i].nt);
      const b = shown(p.nodes[i + 1].nt);
      if (!a || !b || a === b) continue;
      const link = p.steps[i].links[0];
      const id = a < b ? `${a} ${b}` : `${b} ${a}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ from: a, to: b, label: link?.predicate.label ?? '', forward: link?.forward ?? true });
    }
  }
  return out;
}
