// Where the map's labels go: each frame, the largest groups in view are labelled first
// (`firstLabels`, `LabelPlacer.reserve`), then labels are placed in the order sigma draws them (its
// label grid, cell by cell) and a label that would overlap one already placed is left out; a label
// is kept inside the view (moved to the left of its node, or slid along, when it would run off an
// edge) and shortened with an ellipsis when it is wider than the space it has.

export interface Rect { x: number; y: number; w: number; h: number }

export interface Placed { text: string; x: number; y: number; rect: Rect }

/** How wide `text` is (the canvas's `measureText` in the app). */
export type Measure = (text: string) => number;

const GAP = 2;

/** On-screen radius from which a node's label goes inside its circle, centred. */
export const CENTRED_FROM = 40;
/** How many of the largest groups in view are always labelled. */
export const ALWAYS_LABELLED = 6;

/** A node as the label rule sees it: on-screen centre and radius. */
export interface LabelNode { key: string; label: string; x: number; y: number; r: number; group: boolean }

/**
 * The groups whose labels are placed before any other, largest first: the `n` largest groups whose
 * centre is in the `width` × `height` view and whose circle holds a centred label. sigma draws
 * labels cell by cell, so without this a small neighbour drawn first could take the place of the
 * largest group's label.
 */
export function firstLabels(nodes: LabelNode[], width: number, height: number, n = ALWAYS_LABELLED): LabelNode[] {
  return nodes
    .filter((d) => d.group && d.label && d.r > CENTRED_FROM && d.x >= 0 && d.y >= 0 && d.x <= width && d.y <= height)
    .sort((a, b) => b.r - a.r || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, n);
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP;
}

/** `text` cut to at most `max` pixels wide, with an ellipsis when cut. */
export function fit(text: string, max: number, measure: Measure): string {
  if (measure(text) <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(text.slice(0, mid).trimEnd() + '…') <= max) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? text.slice(0, lo).trimEnd() + '…' : '';
}

export class LabelPlacer {
  private placed: Rect[] = [];
  private width = 0;
  private height = 0;
  private first = new Map<string, Placed | null>();

  /** Starts a frame over a view of `width` × `height` pixels. */
  reset(width: number, height: number): void {
    this.placed = [];
    this.first.clear();
    this.width = width;
    this.height = height;
  }

  /** Places the centred labels of `nodes` (`firstLabels`) before any other of the frame. */
  reserve(nodes: LabelNode[], h: number, measure: Measure): void {
    for (const d of nodes) this.first.set(d.key, this.centred(d.label, d.x, d.y, d.r, h, measure));
  }

  /** The label reserved for `key` (`null`: reserved, but it did not fit), `undefined` if none. */
  reserved(key: string): Placed | null | undefined {
    return this.first.get(key);
  }

  private take(r: Rect): boolean {
    if (r.x < 0 || r.y < 0 || r.x + r.w > this.width || r.y + r.h > this.height) return false;
    if (this.placed.some((p) => overlaps(p, r))) return false;
    this.placed.push(r);
    return true;
  }

  /** A label centred in a circle at (`cx`, `cy`) of radius `r`, `h` pixels high: at most the
   * circle's width, slid inside the view but never off its circle (drawn in the circle's inner
   * colour, it would be lost on the background: a group mostly off screen showed its white name
   * on the empty map beside it). `null` when it does not fit. */
  centred(text: string, cx: number, cy: number, r: number, h: number, measure: Measure): Placed | null {
    const y = Math.min(Math.max(cy - h / 2, 4), this.height - 4 - h);
    // The circle's width over the label's rows (the row farther from the centre), in the view.
    const d = Math.max(Math.abs(y - cy), Math.abs(y + h - cy));
    const half = d < r ? Math.sqrt(r * r - d * d) : 0;
    const lo = Math.max(cx - half, 4);
    const hi = Math.min(cx + half, this.width - 4);
    const room = Math.min(r * 1.8, hi - lo);
    if (room <= 0) return null;
    const t = fit(text, room, measure);
    if (!t) return null;
    const w = measure(t);
    const x = Math.min(Math.max(cx - w / 2, lo), hi - w);
    const rect = { x, y, w, h };
    return this.take(rect) ? { text: t, x, y, rect } : null;
  }

  /** A label beside a node at (`cx`, `cy`) of radius `r`: on its right, else on its left, shortened
   * to the room left in the view. `null` when it does not fit. */
  beside(text: string, cx: number, cy: number, r: number, h: number, measure: Measure): Placed | null {
    const y = cy - h / 2;
    const right = cx + r + 3;
    const roomRight = this.width - 4 - right;
    const full = measure(text);
    const left = (w: number) => cx - r - 3 - w;
    const tries: [number, number][] = [];
    if (full <= roomRight) tries.push([right, full]);
    if (left(full) >= 4) tries.push([left(full), full]);
    for (const [x, w] of tries) {
      const rect = { x, y, w, h };
      if (this.take(rect)) return { text, x, y, rect };
    }
    // Shortened on the side with more room.
    const room = Math.max(roomRight, cx - r - 3 - 4);
    const t = fit(text, room, measure);
    if (!t) return null;
    const w = measure(t);
    const x = roomRight >= room ? right : left(w);
    const rect = { x, y, w, h };
    return this.take(rect) ? { text: t, x, y, rect } : null;
  }
}
