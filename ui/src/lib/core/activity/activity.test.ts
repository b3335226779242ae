import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Activity } from './activity.svelte';

describe('Activity', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('never shows for work shorter than the delay', () => {
    const a = new Activity(400);
    a.set(true);
    vi.advanceTimersByTime(399);
    a.set(false);
    vi.advanceTimersByTime(1000);
    expect(a.shown).toBe(false);
  });

  it('shows once work lasts, from its start, and hides when it ends', () => {
    const a = new Activity(400);
    a.set(true);
    vi.advanceTimersByTime(200);
    a.set(true); // still the same stretch of work: the delay does not restart
    vi.advanceTimersByTime(200);
    expect(a.shown).toBe(true);
    a.set(false);
    expect(a.shown).toBe(false);
  });
});
