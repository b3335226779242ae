// Moving the selection on the map with the arrow keys: the nearest node in that direction, on
// screen, as a sighted user would expect (a node straight ahead beats a nearer one off to the side).

export type Direction = 'left' | 'right' | 'up' | 'down';

export interface Placed { key: string; x: number; y: number }

/**
 * The node to go to from `from` in direction `dir` (screen coordinates, y down), or null. Only
 * nodes within 60° of the direction count; among them the distance ahead plus twice the distance
 * aside is the smallest.
 */
export function nearestInDirection(from: { x: number; y: number }, dir: Direction, nodes: Iterable<Placed>, self?: string): string | null {
  let best: string | null = null;
  let score = Infinity;
  for (const n of nodes) {
    if (n.key === self) continue;
    const dx = n.x - from.x;
    const dy = n.y - from.y;
    const ahead = dir === 'right' ? dx : dir === 'left' ? -dx : dir === 'down' ? dy : -dy;
    const aside = Math.abs(dir === 'left' || dir === 'right' ? dy : dx);
    if (ahead <= 0 || aside > ahead * Math.sqrt(3)) continue;
    const s = ahead + 2 * aside;
    if (s < score || (s === score && best !== null && n.key < best)) {
      score = s;
      best = n.key;
    }
  }
  return best;
}

/** Where the arrows start when nothing is selected: the node nearest the middle of the view. */
export function nearestTo(p: { x: number; y: number }, nodes: Iterable<Placed>): string | null {
  let best: string | null = null;
  let d = Infinity;
  for (const n of nodes) {
    const e = Math.hypot(n.x - p.x, n.y - p.y);
    if (e < d) {
      d = e;
      best = n.key;
    }
  }
  return best;
}
