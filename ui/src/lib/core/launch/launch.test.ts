import { describe, expect, it } from 'vitest';
import { LaunchTrace } from './launch';

describe('LaunchTrace', () => {
  it('keeps the first time of each mark and reports once when drawn', async () => {
    const sent: [Record<string, number>, number][] = [];
    let t = 10;
    const trace = new LaunchTrace({ launchDrawn: async (m, o) => { sent.push([m, o]); } }, () => t, 1_700_000_000_000);
    trace.mark('script');
    t = 25;
    trace.mark('script');
    trace.mark('opened');
    t = 40.04;
    trace.drawn();
    t = 90;
    trace.drawn();
    trace.mark('late');
    expect(sent).toEqual([[{ script: 10, opened: 25, drawn: 40 }, 1_700_000_000_000]]);
    expect(trace.done).toBe(true);
  });

  it('swallows a failed report', async () => {
    const trace = new LaunchTrace({ launchDrawn: () => Promise.reject(new Error('no shell')) }, () => 1);
    expect(() => trace.drawn()).not.toThrow();
  });
});
