// What the map and the legend emphasise, whoever asked: a legend class (with its subclasses), the
// entities of query results (with the communities they live in), or the classes and entities of a
// coherence finding, or every match of a search (with how many each community holds). The map's
// reducers ask `matches` and `count`; nothing else touches node attributes.

export type HighlightSource = 'legend' | 'results' | 'finding' | 'paths' | 'search';

export interface HighlightSpec {
  source: HighlightSource;
  label: string;
  /** Classes named by the highlight (N-Triples): marked in the legend. */
  classes?: string[];
  /** Classes whose nodes light up on the map (default: `classes`; a legend class adds its
   * subclasses, an instance-level finding passes none so only its individuals stand out). */
  expanded?: string[];
  /** Map keys that light up (communities, class groups, entities). */
  keys?: string[];
  /** How many matches some of those keys hold (shown beside their labels). */
  counts?: ReadonlyMap<string, number>;
}

export class HighlightState {
  source = $state<HighlightSource | null>(null);
  label = $state('');
  classes = $state<ReadonlySet<string>>(new Set());
  expanded = $state<ReadonlySet<string>>(new Set());
  keys = $state<ReadonlySet<string>>(new Set());
  counts = $state.raw<ReadonlyMap<string, number>>(new Map());
  /** Bumped on every change so views can redraw. */
  version = $state(0);

  get active(): boolean {
    return this.source !== null;
  }

  set(spec: HighlightSpec): void {
    this.source = spec.source;
    this.label = spec.label;
    this.classes = new Set(spec.classes ?? []);
    this.expanded = new Set(spec.expanded ?? spec.classes ?? []);
    this.keys = new Set(spec.keys ?? []);
    this.counts = spec.counts ?? new Map();
    this.version++;
  }

  /** Clears the highlight (only if it still comes from `source`, when given). */
  clear(source?: HighlightSource): void {
    if (source && this.source !== source) return;
    this.source = null;
    this.label = '';
    this.classes = new Set();
    this.expanded = new Set();
    this.keys = new Set();
    this.counts = new Map();
    this.version++;
  }

  /** How many matches map node `key` holds, when the highlight counts them. */
  count(key: string): number | undefined {
    return this.counts.get(key);
  }

  /** Whether map node `key` with classes `classes` is emphasised; `null` when nothing is. */
  matches(key: string, classes: readonly string[]): boolean | null {
    if (!this.source) return null;
    if (this.keys.has(key)) return true;
    for (const c of classes) if (this.expanded.has(c)) return true;
    return false;
  }
}
