// One colour per class, by the class's rank on the card (most instances first), shared by the map
// and the legend. Tableau 20, reordered so the first ten are the strong hues.
export const PALETTE = [
  '#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac',
  '#a0cbe8', '#ffbe7d', '#ff9d9a', '#86bcb6', '#8cd17d', '#f1ce63', '#d4a6c8', '#fabfd2', '#d7b5a6', '#79706e',
];
export const NO_CLASS = '#8a94a6';
export const DIMMED = '#d5d9e0';

export class ClassColors {
  private rank = new Map<string, number>();

  /** Ranks classes in the given order (the card's). */
  setClasses(classes: string[]): void {
    this.rank.clear();
    classes.forEach((c, i) => this.rank.set(c, i));
  }

  color(cls: string | null | undefined): string {
    if (!cls) return NO_CLASS;
    const r = this.rank.get(cls);
    if (r === undefined) return NO_CLASS;
    return r < PALETTE.length ? PALETTE[r] : mixed(cls);
  }
}

/** A stable colour for classes beyond the palette, derived from the name. */
function mixed(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return hslToHex((h >>> 0) % 360, 0.45, 0.55);
}

/** Sigma's WebGL colour parser reads hex, not hsl(). */
export function hslToHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255).toString(16).padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}
