import { describe, expect, it } from 'vitest';
import { nearestInDirection, nearestTo } from './nav';

const at = (key: string, x: number, y: number) => ({ key, x, y });

describe('arrow keys on the map', () => {
  const nodes = [at('o', 0, 0), at('r', 100, 5), at('rFar', 300, 0), at('rSide', 40, 60), at('u', 0, -80), at('d', 10, 90), at('l', -50, 0)];
  it('goes to the nearest node ahead', () => {
    expect(nearestInDirection({ x: 0, y: 0 }, 'right', nodes, 'o')).toBe('r');
    expect(nearestInDirection({ x: 0, y: 0 }, 'left', nodes, 'o')).toBe('l');
    expect(nearestInDirection({ x: 0, y: 0 }, 'up', nodes, 'o')).toBe('u');
    expect(nearestInDirection({ x: 0, y: 0 }, 'down', nodes, 'o')).toBe('d');
  });
  it('prefers a node straight ahead to a nearer one off to the side', () => {
    // rSide is nearer (72) than r (100) but 56° off: r scores 110, rSide 160.
    expect(nearestInDirection({ x: 0, y: 0 }, 'right', nodes, 'o')).toBe('r');
  });
  it('stays put at the edge', () => {
    expect(nearestInDirection({ x: 300, y: 0 }, 'right', nodes, 'rFar')).toBeNull();
    expect(nearestInDirection({ x: 0, y: 0 }, 'right', [], 'o')).toBeNull();
  });
  it('starts from the middle of the view', () => {
    expect(nearestTo({ x: 95, y: 0 }, nodes)).toBe('r');
    expect(nearestTo({ x: 0, y: 0 }, [])).toBeNull();
  });
});
