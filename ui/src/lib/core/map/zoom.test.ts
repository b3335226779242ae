import { describe, expect, it } from 'vitest';
import { decide, focusPath, screenCircle, type Projection } from './zoom';

// Identity camera: graph units are pixels, 1000 × 800 viewport.
const p = (k = 1, ox = 0, oy = 0): Projection => ({ toScreen: (x, y) => ({ x: (x - ox) * k, y: (y - oy) * k }), width: 1000, height: 800 });

describe('semantic zoom decisions', () => {
  it('measures circles on screen', () => {
    expect(screenCircle(p(2), { key: 'a', x: 10, y: 10, r: 5 })).toEqual({ x: 20, y: 20, r: 10 });
  });

  it('expands visible groups that fill the screen, largest first', () => {
    const closed = [
      { key: 'small', x: 100, y: 100, r: 50 },
      { key: 'big', x: 500, y: 400, r: 350 },
      { key: 'bigger', x: 500, y: 400, r: 390 },
      { key: 'offscreen', x: 5000, y: 400, r: 390 },
    ];
    expect(decide(p(), closed, []).expand).toEqual(['bigger', 'big']);
  });

  it('collapses open groups that became small or left the screen, deepest first', () => {
    const open = [
      { key: 'outer', x: 500, y: 400, r: 300 },
      { key: 'tiny', x: 500, y: 400, r: 20 },
      { key: 'gone', x: -900, y: 400, r: 300 },
    ];
    expect(decide(p(), [], open).collapse).toEqual(['gone', 'tiny']);
  });

  it('has a gap between the expand and collapse thresholds', () => {
    const c = { key: 'g', x: 500, y: 400, r: 160 }; // 20% of 800 px
    expect(decide(p(), [c], []).expand).toEqual([]);
    expect(decide(p(), [], [c]).collapse).toEqual([]);
  });

  it('finds the open groups under the viewport centre for the breadcrumbs', () => {
    const open = [
      { key: 'a', x: 500, y: 400, r: 400 },
      { key: 'b', x: 520, y: 400, r: 100 },
      { key: 'c', x: 100, y: 100, r: 50 },
    ];
    expect(focusPath(p(), open)).toEqual(['a', 'b']);
  });
});
