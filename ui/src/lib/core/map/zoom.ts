// Semantic zoom decisions, kept free of sigma so they can be tested: which group nodes to open
// (their circle fills a good part of the screen) and which open groups to close again.

export interface Circle { key: string; x: number; y: number; r: number }
export interface Projection {
  /** Graph coordinates to viewport pixels. */
  toScreen(x: number, y: number): { x: number; y: number };
  width: number;
  height: number;
}

/** A group opens when its on-screen radius exceeds this share of the smaller viewport side… */
export const EXPAND_AT = 0.3;
/** …and closes below this share (the gap avoids flicker at the threshold). */
export const COLLAPSE_AT = 0.12;
/** Never more nodes on screen than this. */
export const MAX_NODES = 10_000;

export function screenCircle(p: Projection, c: Circle): { x: number; y: number; r: number } {
  const a = p.toScreen(c.x, c.y);
  const b = p.toScreen(c.x + c.r, c.y);
  return { x: a.x, y: a.y, r: Math.hypot(b.x - a.x, b.y - a.y) };
}

function visible(p: Projection, s: { x: number; y: number; r: number }): boolean {
  return s.x + s.r >= 0 && s.x - s.r <= p.width && s.y + s.r >= 0 && s.y - s.r <= p.height;
}

/**
 * `closed`: expandable nodes on the map; `open`: groups currently expanded, deepest last.
 * Returns the groups to collapse (deepest first) and the ones to expand (largest on screen first).
 */
export function decide(p: Projection, closed: Circle[], open: Circle[]): { expand: string[]; collapse: string[] } {
  const min = Math.min(p.width, p.height);
  const collapse: string[] = [];
  for (const c of [...open].reverse()) {
    const s = screenCircle(p, c);
    if (s.r < COLLAPSE_AT * min || !visible(p, s)) collapse.push(c.key);
  }
  const expand = closed
    .map((c) => ({ key: c.key, s: screenCircle(p, c) }))
    .filter(({ s }) => s.r > EXPAND_AT * min && visible(p, s))
    .sort((a, b) => b.s.r - a.s.r)
    .map(({ key }) => key);
  return { expand, collapse };
}

/** The open group whose circle holds the viewport centre, deepest first: the breadcrumb focus. */
export function focusPath(p: Projection, open: Circle[]): string[] {
  const cx = p.width / 2;
  const cy = p.height / 2;
  return open.filter((c) => {
    const s = screenCircle(p, c);
    return Math.hypot(s.x - cx, s.y - cy) <= s.r;
  }).map((c) => c.key);
}
