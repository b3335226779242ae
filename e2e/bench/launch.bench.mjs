// One launch: from starting the app to its map's top level being drawn (node count published, no
// request pending, and the canvas showing it in a screenshot). Appends one JSON line to
// $RETE_BENCH_OUT.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { colourStats, mapRect, screenshot } from '../specs/helpers.mjs';

describe('launch', () => {
  it('draws the top level', async () => {
    const start = globalThis.__launchStart;
    const map = await $('[data-testid="map"]');
    await browser.waitUntil(
      async () => Number(await map.getAttribute('data-node-count')) > 0 && (await map.getAttribute('data-busy')) === 'false',
      { timeout: 60_000, interval: 10, timeoutMsg: 'the map was not drawn' },
    );
    const drawn = Date.now();
    // Time inside the webview since it started loading the page (excludes process start-up).
    const inPage = await browser.execute(() => performance.now());
    const nodes = Number(await map.getAttribute('data-node-count'));
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('bench-launch'), rect, dpr);
    if (s.distinct < 8 || s.drawnShare < 0.02) throw new Error(`the canvas is blank: ${JSON.stringify(s)}`);
    const row = { file: path.basename(process.env.RETE_BENCH_FILE), launch_to_drawn_ms: drawn - start, page_to_drawn_ms: Math.round(inPage), nodes };
    appendFileSync(process.env.RETE_BENCH_OUT ?? '.e2e-out/bench-launch.jsonl', JSON.stringify(row) + '\n');
  });
});
