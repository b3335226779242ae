// The scale benchmark's scripted exploration (issue 13), driven by e2e/bench/scale.conf.mjs on a
// big file: zoom into a community → its children drawn, a node's details, a selective query (one
// subject's links), coherence Tier 0, then EXPLORE_S seconds of zooming in and out across levels,
// details and queries, and the resident memory of the app and its WebKit processes after each
// round and at the end, with what the app's caches hold then (their fill against their bounds).
// Times are taken in the page (performance.now() from the click to the state that answers it, plus
// two animation frames so that sigma has drawn): WebDriver's own round trips are not counted.
// Pixels are checked after each measured step. Writes RETE_SCALE_OUT (JSON).
import { expect } from '@wdio/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { processes, tree } from '../procs.mjs';
import { colourStats, mapRect, mapSettled, screenshot, typeQuery } from '../specs/helpers.mjs';
import { pageFloor } from './frames.mjs';

const exploreS = Number(process.env.EXPLORE_S ?? 300);
const people = Number(process.env.RETE_SCALE_PEOPLE ?? 1000);
const outFile = process.env.RETE_SCALE_OUT ?? '.e2e-out/scale.json';
// How long a settled member click waits after the zoom (its camera flight takes 500 ms).
const settleMs = Number(process.env.RETE_SCALE_SETTLE_MS ?? 800);
const person = (i) => `<http://example.org/social/person/${i}>`;
const linksQuery = (s) => `SELECT ?p ?o WHERE { ${s} ?p ?o }`;

/**
 * Clicks `selector` in the page and resolves with the ms until the state `kind` (with `arg`)
 * holds, checked every animation frame, plus two frames. The conditions live in the page function
 * itself: the app's content security policy forbids building functions from strings.
 */
async function timed(selector, kind, arg = null, timeoutMs = 60_000, label = kind) {
  // Not before a click in the zoom's camera flight: that click must land while the camera flies.
  if (FLOORED.has(label)) await frameFloor(label);
  const ms = await browser.executeAsync((sel, kind, arg, timeout, done) => {
    const q = (s) => document.querySelector(s);
    let sawRunning = false;
    const map = () => q('[data-testid="map"]');
    const conds = {
      // Children drawn: another community is open, nothing is loading, the map changed.
      zoom: () => map().getAttribute('data-open') !== arg[0] && map().getAttribute('data-busy') === 'false'
        && map().getAttribute('data-node-count') !== arg[1] && Number(map().getAttribute('data-node-count')) > 0,
      top: () => map().getAttribute('data-open') === '' && map().getAttribute('data-busy') === 'false',
      details: () => (q('[data-testid="details"]')?.textContent ?? '').includes('Links out'),
      // Finished: the Run button is back and the summary is new (or the run was seen going on).
      query: () => {
        if (!q('[data-testid="query-run"]')) { sawRunning = true; return false; }
        const sum = q('[data-testid="query-summary"]');
        return !!sum && (sawRunning || sum.textContent !== arg);
      },
      tier0: () => Number(q('[data-testid="coherence-tiers"]')?.getAttribute('data-done') ?? 0) >= 1,
    };
    const el = q(sel);
    if (!el) return done(-2);
    // A query may start and finish between two frames with the same summary as the last one:
    // the Run button leaving the page is seen by an observer, not by polling.
    const pane = q('[data-testid="query-pane"]');
    const watcher = new MutationObserver((ms) => {
      for (const m of ms) for (const n of m.removedNodes) if (n === el || (n.contains && n.contains(el))) sawRunning = true;
    });
    if (kind === 'query' && pane) watcher.observe(pane, { childList: true, subtree: true });
    // The app's spans (core/perf: commands, sigma frames) and the frames seen, for the trace.
    window.__retePerf = [];
    const frames = [];
    let shown = null;
    const t0 = performance.now();
    const finish = () => {
      const r = (x) => Math.round((x - t0) * 10) / 10;
      const spans = window.__retePerf.map(([n, a, b]) => [n, r(a), r(b)]);
      delete window.__retePerf;
      watcher.disconnect();
      done({ ms: performance.now() - t0, shown: r(shown), frames: frames.map(r), spans });
    };
    el.click();
    const tick = () => {
      frames.push(performance.now());
      let ok = false;
      try { ok = conds[kind](); } catch { ok = false; }
      if (ok) {
        shown = performance.now();
        requestAnimationFrame(() => { frames.push(performance.now()); requestAnimationFrame(finish); });
      }
      else if (performance.now() - t0 > timeout) {
        // What the page showed instead, for the error message.
        const m = map();
        done(`open="${m?.getAttribute('data-open')}" busy=${m?.getAttribute('data-busy')} nodes=${m?.getAttribute('data-node-count')} summary="${q('[data-testid="query-summary"]')?.textContent ?? ''}"`);
      }
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, selector, kind, arg, timeoutMs);
  if (ms === -2) throw new Error(`nothing to click: ${selector}`);
  if (typeof ms === 'string') throw new Error(`no answer within ${timeoutMs} ms after clicking ${selector} (${kind}): ${ms}`);
  // Where the time went (ms from the click): the state shown, the frames, the app's spans.
  traces.push({ kind: label, ms: Math.round(ms.ms), shown: ms.shown, frames: ms.frames, spans: ms.spans });
  return ms.ms;
}

/** The breakdown of every timed step, kept in the JSON (`traces`). */
const traces = [];

/** The steps timed against the page's frame floor just before them. */
const FLOORED = new Set(['zoom', 'details', 'tier0']);

/**
 * The page's own frame floor just before a timed step (e2e/bench/frames.mjs), kept in `traces` as
 * `floor`, with the step it preceded.
 */
async function frameFloor(before) {
  traces.push({ kind: 'floor', before, ...(await pageFloor()) });
}

/** Zooms into the selected community; resolves with the ms until its children are drawn. */
async function zoomIn() {
  const before = await browser.execute(() => {
    const m = document.querySelector('[data-testid="map"]');
    return [m.getAttribute('data-open'), m.getAttribute('data-node-count')];
  });
  return timed('[data-testid="zoom-in"]', 'zoom', before);
}

/** Back to the top level through the first breadcrumb. */
async function zoomOut() {
  const crumbs = await $$('[data-testid="crumb"]');
  if (crumbs.length < 2) return null;
  return timed('[data-testid="crumb"]', 'top');
}

/**
 * Selects a community: on the top level the largest node (its centre kept inside the map), once
 * zoomed in the node at the map's centre (the opened community's children sit around it, while
 * the largest node may be a neighbour off screen); `vary` then follows one of its linked
 * communities. False when nothing that can be zoomed into is selected.
 */
async function selectCommunity(vary, depth) {
  // The group opens while the camera still flies in (500 ms) and the semantic zoom runs once it
  // stops: click what the settled camera shows.
  await browser.pause(800);
  await browser.waitUntil(async () => (await $('[data-testid="map"]').getAttribute('data-busy')) === 'false', { timeoutMsg: 'the map stayed busy' });
  const { map, rect } = await mapRect();
  let [x, y] = [rect.width / 2, rect.height / 2];
  if (depth === 0) [x, y] = ((await map.getAttribute('data-largest')) || `${x},${y}`).split(',').map(Number);
  // Once zoomed in, the centre may fall between the children (small files have few): then points
  // around it, until a community is selected.
  const m = Math.min(rect.width, rect.height);
  const around = depth === 0 ? [[0, 0]] : [[0, 0], [0.1, 0], [-0.1, 0], [0, 0.1], [0, -0.1], [0.2, 0], [-0.2, 0], [0, 0.2], [0, -0.2], [0.15, 0.15], [-0.15, -0.15], [0.15, -0.15], [-0.15, 0.15], [0.3, 0], [-0.3, 0], [0, 0.3], [0, -0.3]];
  let found = false;
  for (const [dx, dy] of around) {
    const cx = Math.min(Math.max(x + dx * m, 8), rect.width - 8), cy = Math.min(Math.max(y + dy * m, 8), rect.height - 8);
    await map.click({ x: Math.round(cx - rect.width / 2), y: Math.round(cy - rect.height / 2) });
    try {
      await $('[data-testid="details-title"]').waitForDisplayed({ timeout: depth === 0 ? 15_000 : 3_000 });
    } catch {
      continue;
    }
    // A member hit on the way down is not a community to zoom into: try the next point.
    await browser.waitUntil(async () => { const t = (await $('[data-testid="details"]').getText()).toLowerCase(); return t.includes('zoom in') || t.includes('links out'); }, { timeoutMsg: 'no details' });
    if (depth === 0 || (await $('[data-testid="zoom-in"]').isExisting())) { found = true; break; }
  }
  if (!found) return false;
  if (vary && depth === 0) {
    const links = await $$('[data-testid="details"] .bar button.link');
    if (links.length) await links[Math.floor(Math.random() * links.length)].click();
    await browser.pause(50);
  }
  await browser.waitUntil(async () => { const t = (await $('[data-testid="details"]').getText()).toLowerCase(); return t.includes('zoom in') || t.includes('links out'); }, { timeoutMsg: 'no details' });
  return $('[data-testid="zoom-in"]').isExisting();
}

/**
 * Opens a member's details; resolves with the ms until its links are shown. `inFlight`: clicked
 * right after the zoom that listed the members, while its camera flight (500 ms) still draws a
 * sigma frame each frame; otherwise once the camera has settled, as the map clicks do.
 */
async function memberDetails(inFlight) {
  if (!(await $('[data-testid="members"] button').isExisting())) return null;
  if (!inFlight) {
    await browser.pause(settleMs);
    await browser.waitUntil(async () => (await $('[data-testid="map"]').getAttribute('data-busy')) === 'false', { timeoutMsg: 'the map stayed busy' });
  }
  return timed('[data-testid="members"] button', 'details', null, 60_000, inFlight ? 'details-in-flight' : 'details');
}

/** Runs `text`; resolves with the round trip (click → summary shown) and the engine's own time. */
async function query(text) {
  // IRIs and numbers repeat characters: one key per call (see typeQuery).
  await typeQuery(text, { perKey: true });
  // What the editor holds, kept in the JSON: the query must run as typed.
  const typed = await browser.execute(() => {
    const lines = [...document.querySelectorAll('[data-testid="query-editor"] .cm-line')];
    return lines.map((l) => l.textContent).join('\n');
  });
  const prev = await browser.execute(() => document.querySelector('[data-testid="query-summary"]')?.textContent ?? '');
  const ms = await timed('[data-testid="query-run"]', 'query', prev);
  const summary = await $('[data-testid="query-summary"]').getText();
  const m = summary.match(/· ([\d.,]+) (ms|s) ·/);
  const engine = m ? Number(m[1].replace(/,/g, '')) * (m[2] === 's' ? 1000 : 1) : null;
  const rows = Number((summary.match(/([\d,]+) rows?/i) ?? [0, '0'])[1].replace(/,/g, ''));
  return { round_trip_ms: ms, engine_ms: engine, rows, summary, ...(typed.trim() === text ? {} : { typed }) };
}

/** Coherence Tier 0: ms from "Check coherence" to Tier 0 done; the later tiers are cancelled. */
async function tier0() {
  if (!(await $('[data-testid="coherence-panel"]').isExisting())) await $('[data-testid="toggle-coherence"]').click();
  await $('[data-testid="coherence-run"]').waitForDisplayed();
  const ms = await timed('[data-testid="coherence-run"]', 'tier0');
  const cancel = await $('[data-testid="coherence-cancel"]');
  if (await cancel.isExisting()) await cancel.click();
  await $('[data-testid="coherence-run"]').waitForDisplayed({ timeout: 120_000 });
  return ms;
}

/** Resident memory (KiB) of the app process and of its descendants (WebKit's web and network processes). */
function memory(app) {
  const root = Number(execFileSync('pgrep', ['-n', '-f', `^${app.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`], { encoding: 'utf8' }).trim());
  const rows = tree(processes(), root).map(([pid, p]) => ({ pid, name: p.name, rss_kib: p.rss, anon_kib: p.anon }));
  return { app_kib: rows[0]?.rss_kib ?? null, total_kib: rows.reduce((a, r) => a + r.rss_kib, 0), processes: rows };
}

/**
 * The app process's anonymous memory (KiB) by where glibc's malloc keeps it: `heap` is the main
 * arena (the main thread: GTK, the webview's UI side, the IPC it serves), `arenas` the arenas
 * of other threads (64 MiB-aligned mappings: the engine's commands), `other` the rest (large
 * blocks malloc maps on their own, thread stacks). Tells which side grows when the process does.
 */
function heaps(pid) {
  const out = { heap_kib: 0, arenas_kib: 0, arenas: 0, other_kib: 0 };
  let cur = null;
  try {
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
      if (m) {
        const start = BigInt(`0x${m[1]}`);
        const end = BigInt(`0x${m[2]}`);
        const arena = 64n << 20n;
        cur = { name: m[4].trim(), arena: m[4].trim() === '' && start % arena === 0n && end - start <= arena && m[3].startsWith('rw') };
        continue;
      }
      if (cur && line.startsWith('Anonymous:')) {
        const kib = Number(line.split(/\s+/)[1]);
        if (cur.name === '[heap]') out.heap_kib += kib;
        else if (cur.arena) { out.arenas_kib += kib; out.arenas++; }
        else if (cur.name === '' || cur.name.startsWith('[stack')) out.other_kib += kib;
      }
    }
  } catch { /* gone */ }
  return out;
}

/**
 * What the app's caches hold (the `memory_use` command), summed over the open documents, in KiB:
 * the growth of the process is read against their fill (each has a bound).
 */
async function caches() {
  const m = await browser.execute(async () => {
    try { return await window.__TAURI_INTERNALS__.invoke('memory_use', {}); } catch (e) { return { error: String(e) }; }
  });
  if (!m || m.error) return { error: m?.error ?? 'no answer' };
  const sum = (k) => m.docs.reduce((a, d) => a + (d[k] ?? 0), 0);
  const kib = (b) => Math.round(b / 1024);
  return {
    blocks: sum('blocks'), block_kib: kib(sum('block_bytes')), max_block_kib: kib(sum('max_block_bytes')),
    directory_kib: kib(sum('directory_bytes')), range_kib: kib(sum('range_bytes')), max_range_kib: kib(sum('max_range_bytes')),
    pyramid_blocks: sum('pyramid_blocks'), pyramid_kib: kib(sum('pyramid_bytes')), max_pyramid_blocks: sum('max_pyramid_blocks'),
    seen_items: sum('seen_items'), seen_kib: kib(sum('seen_bytes')), max_seen_items: sum('max_seen_items'),
    kept_results: m.kept_results, kept_result_kib: kib(m.kept_result_bytes ?? 0),
  };
}

const median = (xs) => { const s = xs.filter((x) => x != null).sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null; };
const max = (xs) => { const s = xs.filter((x) => x != null); return s.length ? Math.max(...s) : null; };

describe('scale: the app on a big file', () => {
  it('measures zoom, details, a selective query, Tier 0 and memory after a scripted exploration', async () => {
    const app = browser.requestedCapabilities['tauri:options'].application;
    await browser.setTimeout({ script: 300_000 });
    const res = { explore_s: exploreS, zoom_ms: [], zoom_out_ms: [], details_ms: [], details_in_flight_ms: [], query: [], tier0_ms: [], levels: [] };
    const top = await mapSettled(2);
    const { rect, dpr } = await mapRect();
    const s0 = colourStats(await screenshot('scale-top'), rect, dpr);
    expect(s0.distinct).toBeGreaterThan(8);
    res.top_nodes = top;
    res.memory_at_start = memory(app);
    res.memory_at_start.app_heaps = heaps(res.memory_at_start.processes[0]?.pid);
    res.memory_at_start.caches = await caches();

    // The measured steps, once, each checked on the screen.
    let depth = 0;
    while (await selectCommunity(false, depth)) {
      res.zoom_ms.push(await zoomIn());
      depth++;
      const s = colourStats(await screenshot(`scale-zoom-${depth}`), rect, dpr);
      expect(s.distinct).toBeGreaterThan(8);
      // A finest-level community: its members are listed, the bottom is reached.
      if ((await $('[data-testid="members"] button').isExisting()) || depth > 8) break;
    }
    res.levels.push(depth);
    const d = await memberDetails(false);
    if (d != null) res.details_ms.push(d);
    // getText() applies the CSS (the heading is upper-case on screen).
    expect((await $('[data-testid="details"]').getText()).toLowerCase()).toContain('links out');
    const q = await query(linksQuery(person(Math.floor(people / 2))));
    // Recorded, not asserted: the summary's text is kept in the JSON for reading.
    res.query.push(q);
    res.tier0_ms.push(await tier0());
    await screenshot('scale-measured');
    res.first = { zoom_ms: [...res.zoom_ms], details_ms: d, query: q, tier0_ms: res.tier0_ms[0] };

    // The exploration: zoom out, down again through varied communities, details, queries.
    writeFileSync(outFile, JSON.stringify(res, null, 2));
    const start = Date.now();
    const end = start + exploreS * 1000;
    res.memory_series = [];
    let rounds = 0;
    // A step of the exploration that hangs ends the exploration (recorded), not the measurement.
    try {
    while (Date.now() < end) {
      rounds++;
      const out = await zoomOut();
      if (out != null) res.zoom_out_ms.push(out);
      let k = 0;
      while (Date.now() < end && (await selectCommunity(true, k))) {
        res.zoom_ms.push(await zoomIn());
        if ((await $('[data-testid="members"] button').isExisting()) || ++k > 8) break;
      }
      res.levels.push(k);
      // Rounds alternate: a member clicked during the zoom's camera flight, or once it settled.
      const inFlight = rounds % 2 === 1;
      const dd = await memberDetails(inFlight);
      if (dd != null) (inFlight ? res.details_in_flight_ms : res.details_ms).push(dd);
      if (Date.now() < end) res.query.push(await query(linksQuery(person(Math.floor(Math.random() * people)))));
      if (rounds % 5 === 0 && Date.now() < end) res.tier0_ms.push(await tier0());
      // The series tells a leak (growth every round) from caches and a garbage collector that
      // settle (growth that levels off).
      const m = memory(app);
      res.memory_series.push({ round: rounds, s: Math.round((Date.now() - start) / 1000), app_kib: m.app_kib, total_kib: m.total_kib,
        app_anon_kib: m.processes[0]?.anon_kib ?? null, ...(m.processes[0] ? heaps(m.processes[0].pid) : {}),
        web_anon_kib: m.processes.find((p) => p.name.startsWith('WebKitWebProc'))?.anon_kib ?? null,
        caches: await caches() });
    }
    } catch (e) {
      res.exploration_error = String(e).slice(0, 300);
    }
    res.rounds = rounds;
    try { await zoomOut(); } catch { /* recorded above */ }
    await mapSettled(1);
    const s1 = colourStats(await screenshot('scale-end'), rect, dpr);
    expect(s1.distinct).toBeGreaterThan(8);
    res.memory_at_end = memory(app);
    res.memory_at_end.app_heaps = heaps(res.memory_at_end.processes[0]?.pid);
    res.memory_at_end.caches = await caches();
    res.traces = traces;
    res.summary = {
      zoom_median_ms: median(res.zoom_ms), zoom_max_ms: max(res.zoom_ms),
      zoom_out_median_ms: median(res.zoom_out_ms),
      details_median_ms: median(res.details_ms), details_max_ms: max(res.details_ms),
      details_in_flight_median_ms: median(res.details_in_flight_ms), details_in_flight_max_ms: max(res.details_in_flight_ms),
      query_engine_median_ms: median(res.query.map((x) => x.engine_ms)), query_engine_max_ms: max(res.query.map((x) => x.engine_ms)),
      query_round_trip_median_ms: median(res.query.map((x) => x.round_trip_ms)),
      tier0_median_ms: median(res.tier0_ms), tier0_max_ms: max(res.tier0_ms),
    };
    writeFileSync(outFile, JSON.stringify(res, null, 2));
  });
});
