// Spans for the scale benchmark: where the time of a step goes between the click and the screen
// (engine commands, sigma frames). Off unless the page holds an array in `__retePerf` (set by
// e2e/bench/scale.e2e.mjs); then each span is pushed as [name, start, end] (performance.now()).

type Sink = [string, number, number][];

function sink(): Sink | null {
  const w = globalThis as { __retePerf?: Sink };
  return Array.isArray(w.__retePerf) ? w.__retePerf : null;
}

/** Records a span that started at `t0` and ends now. */
export function span(name: string, t0: number): void {
  const s = sink();
  if (s && s.length < 10_000) s.push([name, t0, performance.now()]);
}

/** Records that `name` happened now (a span of no length). */
export function mark(name: string): void {
  span(name, performance.now());
}

/** Runs `p` and records its span when tracing is on. */
export async function traced<T>(name: string, p: () => Promise<T>): Promise<T> {
  if (!sink()) return p();
  const t0 = performance.now();
  try {
    return await p();
  } finally {
    span(name, t0);
  }
}
