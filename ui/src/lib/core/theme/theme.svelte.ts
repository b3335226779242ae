// The colour theme: the system's (prefers-color-scheme) unless the user chose one, remembered
// across launches. The page's colours follow `data-theme` on <html> (app.css); the map's canvases
// cannot read CSS, so they take theirs from `palette`.

export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

/** What the map draws with, per theme: sigma and the focus layer paint on canvases. */
export interface MapPalette {
  background: string;
  label: string;
  /** Labels drawn inside large group circles. */
  inner: string;
  edge: string;
  /** Links between closed groups while a group is open. */
  faded: string;
  dimmed: string;
  focus: string;
  focusText: string;
  ring: string;
  /** Behind the selected node's label. */
  plate: string;
  /** The paths between two entities (core/paths). */
  path: string;
}

export const PALETTES: Record<Theme, MapPalette> = {
  light: {
    background: '#f7f8fb', label: '#1f2430', inner: '#ffffff', edge: '#b8c0cc', faded: '#e3e7ee',
    dimmed: '#d5d9e0', focus: '#5b6b8c', focusText: '#3b4660', ring: '#1f2430', plate: 'rgba(255, 255, 255, 0.9)', path: '#c2410c',
  },
  dark: {
    background: '#14171e', label: '#e4e8f0', inner: '#ffffff', edge: '#4a5366', faded: '#2a303c',
    dimmed: '#343a46', focus: '#9fb0d4', focusText: '#c9d3e6', ring: '#f2f4f8', plate: 'rgba(20, 23, 30, 0.9)', path: '#fb923c',
  },
};

const KEY = 'rete.theme';
const CHOICES: ThemeChoice[] = ['system', 'light', 'dark'];

interface Store { getItem(k: string): string | null; setItem(k: string, v: string): void }
interface Media { matches: boolean; addEventListener(t: 'change', f: (e: { matches: boolean }) => void): void }

export class ThemeState {
  choice = $state<ThemeChoice>('system');
  /** What the system asks for. */
  systemDark = $state(false);
  readonly theme: Theme = $derived(this.choice === 'system' ? (this.systemDark ? 'dark' : 'light') : this.choice);
  readonly palette: MapPalette = $derived(PALETTES[this.theme]);

  constructor(private store: Store | null, media: Media | null, private root: HTMLElement | null) {
    const saved = store?.getItem(KEY);
    if (saved && (CHOICES as string[]).includes(saved)) this.choice = saved as ThemeChoice;
    if (media) {
      this.systemDark = media.matches;
      media.addEventListener('change', (e) => { this.systemDark = e.matches; this.apply(); });
    }
    this.apply();
  }

  /** System → light → dark → system. */
  cycle(): void {
    this.set(CHOICES[(CHOICES.indexOf(this.choice) + 1) % CHOICES.length]);
  }

  set(c: ThemeChoice): void {
    this.choice = c;
    try {
      this.store?.setItem(KEY, c);
    } catch {
      // Storage full or refused: the choice holds for this session.
    }
    this.apply();
  }

  private apply(): void {
    if (!this.root) return;
    this.root.dataset.theme = this.theme;
    this.root.style.colorScheme = this.theme;
  }
}

/** The theme state for the page this runs in (none of it exists under the unit tests' Node). */
export function pageTheme(): ThemeState {
  const store = typeof localStorage === 'undefined' ? null : localStorage;
  const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
  const root = typeof document === 'undefined' ? null : document.documentElement;
  return new ThemeState(store, media, root);
}
