// The search benchmark's app run (issue 47), driven by e2e/bench/scale.conf.mjs with
// RETE_SCALE_SPEC=search.e2e.mjs: typing in the search box, each keystroke of RETE_SEARCH_QUERIES
// (one a line, as `search_bench` writes them) timed in the page from its input event to its hits
// drawn, plus two frames, next to the page's frame floor measured just before it (both started
// just after a frame, unless RETE_SEARCH_START=any); then, for
// RETE_SEARCH_CHOOSE whole labels, choosing the first hit (the map descends the pyramid to the
// entity and its details are shown) next to a details click on one of its links. Times are taken
// in the page (performance.now()), as the scale benchmark does; WebDriver's round trips are not
// counted. Writes RETE_SCALE_OUT (JSON).
import { expect } from '@wdio/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { colourStats, mapRect, mapSettled, screenshot } from '../specs/helpers.mjs';
import { pageFloor } from './frames.mjs';

const outFile = process.env.RETE_SCALE_OUT ?? '.e2e-out/search.json';
const keys = Number(process.env.RETE_SEARCH_KEYS ?? 400);
const chooseN = Number(process.env.RETE_SEARCH_CHOOSE ?? 10);
const queries = readFileSync(process.env.RETE_SEARCH_QUERIES, 'utf8').split('\n').filter((l) => l.trim());
// Where each keystroke and the floor beside it start: `frame` (the default) just after the page
// has drawn a frame, both at the same point of it; `any`, whenever WebDriver's call arrives.
const afterFrame = (process.env.RETE_SEARCH_START ?? 'frame') === 'frame';

/**
 * Types `text` into the search box (one input event); resolves when its hits are drawn.
 * `afterFrame`: typed just after the page has drawn a frame, as the floor beside it is started
 * (`pageFloor`).
 */
async function keystroke(text, afterFrame = false) {
  const r = await browser.executeAsync((text, afterFrame, done) => {
    const start = (go) => (afterFrame ? requestAnimationFrame(() => setTimeout(go, 0)) : go());
    start(() => {
      const box = document.querySelector('[data-testid="search"]');
      const input = document.querySelector('[data-testid="search-input"]');
      window.__retePerf = [];
      const t0 = performance.now();
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      const tick = () => {
        const list = document.querySelector('[data-testid="search-hits"]');
        // This text's answer: the box no longer searching, showing the list for it.
        if (box.getAttribute('data-searching') === 'false' && box.getAttribute('data-text') === text && list) {
          const shown = performance.now() - t0;
          const hits = Number(list.getAttribute('data-count'));
          requestAnimationFrame(() => requestAnimationFrame(() => {
            const spans = window.__retePerf.map(([n, a, b]) => [n, Math.round((a - t0) * 10) / 10, Math.round((b - t0) * 10) / 10]);
            delete window.__retePerf;
            done({ ms: performance.now() - t0, shown, hits, spans });
          }));
        } else if (performance.now() - t0 > 60_000) done(`no answer: searching=${box.getAttribute('data-searching')} text=${box.getAttribute('data-text')}`);
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
  }, text, afterFrame);
  if (typeof r === 'string') throw new Error(`${text}: ${r}`);
  return r;
}

/**
 * Chooses the first entity hit (its mousedown, as a click does) and resolves when the map has
 * opened its way down to it, nothing is loading and its details are shown; or clicks the
 * first link of the details shown (`link`) and resolves when the linked entity's are.
 */
async function timedChoice(link) {
  const r = await browser.executeAsync((link, done) => {
    const q = (s) => document.querySelector(s);
    const map = q('[data-testid="map"]');
    const title = () => q('[data-testid="details-title"]')?.textContent ?? '';
    const before = title();
    let want = null;
    let go;
    if (link) {
      const a = q('[data-testid="details"] td button.link');
      if (!a) return done('no link in the details');
      want = (t) => t !== before;
      go = () => a.click();
    } else {
      const hit = q('[data-testid="search-hit"][data-kind="entity"] .label');
      if (!hit) return done(`no entity hit: ${(q('[data-testid="search"]')?.outerHTML ?? '').slice(0, 600)}`);
      const label = hit.firstChild?.textContent ?? '';
      want = (t) => t.includes(label);
      want.label = label;
      go = () => hit.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, cancelable: true }));
    }
    window.__retePerf = [];
    const t0 = performance.now();
    go();
    let shown = null;
    // A chosen hit's map work (opening the levels down to it) starts once its details are
    // painted: settled is when the map has been busy and is no longer. A click opens nothing.
    let worked = link;
    // Watched, not sampled at frames: the map can be busy and done between two frames.
    const watch = new MutationObserver(() => { worked ||= map.getAttribute('data-busy') === 'true'; });
    watch.observe(map, { attributes: true, attributeFilter: ['data-busy'] });
    const tick = () => {
      if (shown === null && want(title()) && (q('[data-testid="details"]')?.textContent ?? '').includes('Links out')) {
        shown = performance.now() - t0;
      }
      const busy = map.getAttribute('data-busy') === 'true';
      worked ||= busy;
      if (shown !== null && !busy && (worked || performance.now() - t0 - shown > 3000)) {
        const settled = performance.now() - t0;
        watch.disconnect();
        requestAnimationFrame(() => requestAnimationFrame(() => {
          const spans = window.__retePerf.map(([n, a, b]) => [n, Math.round((a - t0) * 10) / 10, Math.round((b - t0) * 10) / 10]);
          delete window.__retePerf;
          done({ ms: shown, settled: worked ? settled : null, spans, title: title() });
        }));
      } else if (performance.now() - t0 > 120_000) {
        watch.disconnect();
        const details = (q('[data-testid="details"]')?.textContent ?? '').slice(0, 200);
        done(`${link ? 'a link' : `the hit ${want.label}`} not shown: title="${title()}" before="${before}" open="${map.getAttribute('data-open')}" busy=${map.getAttribute('data-busy')} details="${details}"`);
      } else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, link);
  return typeof r === 'string' ? { error: r } : r;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] * 10) / 10 : null;
};

describe('search: the app on a big file', () => {
  it('times keystrokes against the frame floor, and choosing a hit against a details click', async () => {
    await browser.setTimeout({ script: 300_000 });
    await mapSettled(2);
    const { rect, dpr } = await mapRect();
    const res = { keystrokes: [], choices: [] };
    // Each keystroke's text, in order (a label's keystrokes one after the other, as typed).
    for (const text of queries.slice(0, keys)) {
      const floor = await pageFloor(false, afterFrame);
      const overMap = await pageFloor(true, afterFrame);
      const k = await keystroke(text, afterFrame);
      res.keystrokes.push({ text, ms: Math.round(k.ms * 10) / 10, shown: Math.round(k.shown * 10) / 10, floor_ms: floor.ms, map_floor_ms: overMap.ms, hits: k.hits, spans: k.spans });
    }
    // Whole labels: the last keystroke of each label typed (the line before a shorter one).
    const whole = queries.filter((q, i) => !(queries[i + 1] ?? '').startsWith(q)).filter((q) => q.includes(' '));
    for (const text of whole.slice(0, chooseN)) {
      await keystroke(text);
      const floor = await pageFloor();
      const chose = await timedChoice(false);
      if (chose.error) { res.choices.push({ text, error: chose.error }); continue; }
      // The camera's flight to the entity ends before the details click, as a user's would.
      await browser.pause(800);
      const floor2 = await pageFloor();
      const click = await timedChoice(true);
      if (click.error) { res.choices.push({ text, error: click.error }); continue; }
      res.choices.push({ text, choose_ms: Math.round(chose.ms), choose_settled_ms: chose.settled === null ? null : Math.round(chose.settled), choose_floor_ms: floor.ms,
        details_ms: Math.round(click.ms), details_settled_ms: Math.round(click.settled), details_floor_ms: floor2.ms,
        chosen: chose.title, clicked: click.title, choose_spans: chose.spans, details_spans: click.spans });
    }
    const s = colourStats(await screenshot('search-bench-end'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
    const over = res.keystrokes.map((k) => k.ms - k.floor_ms);
    const done = res.choices.filter((c) => !c.error);
    const ratio = done.map((c) => c.choose_ms / c.details_ms);
    res.summary = {
      keystrokes: res.keystrokes.length,
      keystroke_p50_ms: pct(res.keystrokes.map((k) => k.ms), 0.5), keystroke_p99_ms: pct(res.keystrokes.map((k) => k.ms), 0.99),
      floor_p50_ms: pct(res.keystrokes.map((k) => k.floor_ms), 0.5), floor_p99_ms: pct(res.keystrokes.map((k) => k.floor_ms), 0.99),
      map_floor_p50_ms: pct(res.keystrokes.map((k) => k.map_floor_ms), 0.5), map_floor_p99_ms: pct(res.keystrokes.map((k) => k.map_floor_ms), 0.99),
      over_map_floor_p50_ms: pct(res.keystrokes.map((k) => k.ms - k.map_floor_ms), 0.5), over_map_floor_p99_ms: pct(res.keystrokes.map((k) => k.ms - k.map_floor_ms), 0.99),
      start: afterFrame ? 'after a frame' : 'any time',
      over_floor_p50_ms: pct(over, 0.5), over_floor_p99_ms: pct(over, 0.99), over_floor_max_ms: pct(over, 1),
      over_floor_more_than_a_frame: over.filter((x) => x > 1000 / 60).length,
      choices: done.length, choice_errors: res.choices.length - done.length,
      choose_p50_ms: pct(done.map((c) => c.choose_ms), 0.5), choose_settled_p50_ms: pct(done.map((c) => c.choose_settled_ms).filter((x) => x !== null), 0.5),
      details_p50_ms: pct(done.map((c) => c.details_ms), 0.5), details_settled_p50_ms: pct(done.map((c) => c.details_settled_ms), 0.5),
      choose_over_details_p50: pct(ratio, 0.5), choose_over_details_max: pct(ratio, 1),
    };
    writeFileSync(outFile, JSON.stringify(res, null, 2));
  });
});
