// Pixel checks on WebDriver screenshots: the DOM can claim a drawn graph while the WebGL canvas
// stays blank, so the tests look at the pixels.
import { PNG } from 'pngjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { appGone } from '../wdio.conf.mjs';

/**
 * Restarts the app on `args` (files or URLs; none: the welcome page). The old process must be gone
 * before the new one starts: while it still holds the single-instance name on the session bus, a
 * new launch would hand its files to it and exit instead of opening a window.
 */
export async function relaunch(...args) {
  await forgetViews();
  await relaunchKeepingViews(...args);
}

/**
 * [`relaunch`] without forgetting where the last session was in each file: the app restores a
 * file's last view when it opens it again (core/views).
 */
export async function relaunchKeepingViews(...args) {
  const application = browser.requestedCapabilities['tauri:options'].application;
  await browser.deleteSession();
  await appGone();
  // Its own attempt to close the (already closed) session fails quietly.
  await browser.reloadSession({ 'tauri:options': { application, args } });
}

/**
 * Each case starts from the files' first view: the views the app remembered are forgotten, and
 * the page about to close remembers no more (a save can still be scheduled).
 */
async function forgetViews() {
  await browser.execute(() => {
    const set = Storage.prototype.setItem;
    Storage.prototype.setItem = function (k, v) { if (!String(k).startsWith('rete.view')) set.call(this, k, v); };
    for (const k of Object.keys(localStorage)) if (k.startsWith('rete.view')) localStorage.removeItem(k);
  }).catch(() => {});
}

/** Screenshot of the whole window as a decoded PNG. */
export async function screenshot(name) {
  const b64 = await browser.takeScreenshot();
  const buf = Buffer.from(b64, 'base64');
  mkdirSync('.e2e-out', { recursive: true });
  writeFileSync(path.join('.e2e-out', `${name}.png`), buf);
  if (process.env.RETE_SCREENSHOTS) {
    mkdirSync(process.env.RETE_SCREENSHOTS, { recursive: true });
    writeFileSync(path.join(process.env.RETE_SCREENSHOTS, `${name}.png`), buf);
  }
  return PNG.sync.read(buf);
}

/** Colour statistics of the rectangle `r` (CSS pixels) of `png`. */
export function colourStats(png, r, scale = 1) {
  const colours = new Map();
  const x0 = Math.max(0, Math.round(r.x * scale)), y0 = Math.max(0, Math.round(r.y * scale));
  const x1 = Math.min(png.width, Math.round((r.x + r.width) * scale)), y1 = Math.min(png.height, Math.round((r.y + r.height) * scale));
  let total = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * png.width + x) * 4;
      const key = (png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2];
      colours.set(key, (colours.get(key) ?? 0) + 1);
      total++;
    }
  }
  const [bg, bgCount] = [...colours.entries()].sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
  return { distinct: colours.size, background: bg, drawnShare: total ? 1 - bgCount / total : 0, total };
}

/**
 * How the drawing in the rectangle `r` (CSS pixels) fills the disc around it: the disc is centred
 * on the drawn pixels (those off the background by more than 24 in a channel) and reaches 95 % of
 * them; of a 24 × 24 grid over it, the share of the cells inside the disc that hold drawn pixels.
 * Nodes spread evenly over a disc (a sunflower) fill nearly all of them; a layout by links leaves
 * empty cells between its clusters and branches.
 */
export function discOccupancy(png, r, scale, background) {
  const bg = [(background >> 16) & 255, (background >> 8) & 255, background & 255];
  const pts = [];
  const x0 = Math.max(0, Math.round(r.x * scale)), y0 = Math.max(0, Math.round(r.y * scale));
  const x1 = Math.min(png.width, Math.round((r.x + r.width) * scale)), y1 = Math.min(png.height, Math.round((r.y + r.height) * scale));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * png.width + x) * 4;
      if (Math.abs(png.data[i] - bg[0]) > 24 || Math.abs(png.data[i + 1] - bg[1]) > 24 || Math.abs(png.data[i + 2] - bg[2]) > 24) pts.push([x, y]);
    }
  }
  if (pts.length === 0) return { occupancy: 0, drawn: 0, radius: 0 };
  const cx = pts.reduce((s, p) => s + p[0], 0) / pts.length, cy = pts.reduce((s, p) => s + p[1], 0) / pts.length;
  const dist = pts.map((p) => Math.hypot(p[0] - cx, p[1] - cy)).sort((a, b) => a - b);
  const R = Math.max(1, dist[Math.floor(dist.length * 0.95)]);
  const cells = 24, side = (2 * R) / cells;
  const full = new Set();
  for (const [x, y] of pts) {
    const gx = Math.floor((x - cx + R) / side), gy = Math.floor((y - cy + R) / side);
    if (gx >= 0 && gy >= 0 && gx < cells && gy < cells) full.add(gy * cells + gx);
  }
  let inside = 0, held = 0;
  for (let gy = 0; gy < cells; gy++) {
    for (let gx = 0; gx < cells; gx++) {
      const mx = -R + (gx + 0.5) * side, my = -R + (gy + 0.5) * side;
      if (Math.hypot(mx, my) > R) continue;
      inside++;
      if (full.has(gy * cells + gx)) held++;
    }
  }
  return { occupancy: held / inside, drawn: pts.length, radius: R / scale };
}

/** The share of the rectangle `r`'s pixels that differ (by more than 48 in a channel) between two screenshots. */
export function differing(a, b, r, scale) {
  let n = 0, total = 0;
  for (let y = Math.round(r.y * scale); y < Math.min(a.height, b.height, Math.round((r.y + r.height) * scale)); y++) {
    for (let x = Math.round(r.x * scale); x < Math.min(a.width, b.width, Math.round((r.x + r.width) * scale)); x++) {
      const i = (y * a.width + x) * 4;
      if (Math.abs(a.data[i] - b.data[i]) > 48 || Math.abs(a.data[i + 1] - b.data[i + 1]) > 48 || Math.abs(a.data[i + 2] - b.data[i + 2]) > 48) n++;
      total++;
    }
  }
  return total ? n / total : 1;
}

/** The map's rectangle and the device pixel ratio of the screenshot. */
export async function mapRect() {
  const map = await $('[data-testid="map"]');
  const rect = await browser.getElementRect(await map.elementId);
  const dpr = await browser.execute(() => window.devicePixelRatio);
  return { map, rect, dpr };
}

/** Waits until the map has nodes and no request is running. */
export async function mapSettled(min = 1) {
  const map = await $('[data-testid="map"]');
  await browser.waitUntil(async () => Number(await map.getAttribute('data-node-count')) >= min && (await map.getAttribute('data-busy')) === 'false', { timeoutMsg: 'the map did not settle' });
  // Let sigma draw the frame that follows the last change.
  await browser.pause(400);
  return Number(await map.getAttribute('data-node-count'));
}

/**
 * The label drawn for the largest node on the map in the last frame (`data-largest-label`),
 * waiting until one is: the largest groups are labelled before any other (core/map/labels).
 */
export async function largestLabel() {
  const map = await $('[data-testid="map"]');
  let text = '';
  await browser.waitUntil(async () => (text = await map.getAttribute('data-largest-label') ?? '') !== '', { timeoutMsg: 'the largest group on the map has no label' });
  return text;
}

/** Clicks the map at the viewport point stored in `data-largest` (the biggest node). */
export async function clickLargest() {
  const { map, rect } = await mapRect();
  // The camera may still be flying into a group just opened (opening no longer waits for it):
  // wait until the point stops moving.
  let last = null;
  await browser.waitUntil(async () => {
    const now = await map.getAttribute('data-largest');
    const still = now === last;
    last = now;
    return still;
  }, { interval: 300, timeoutMsg: 'the largest node kept moving' });
  const [x, y] = last.split(',').map(Number);
  await map.click({ x: Math.round(x - rect.width / 2), y: Math.round(y - rect.height / 2) });
}

/**
 * Opens the query pane and types `text` into the editor, replacing what is there. `perKey` sends
 * one key per WebDriver call: WebKitWebDriver drops a key repeated within one keys() call
 * ("http" arrived as "htp"), which matters for texts with doubled letters or digits.
 */
export async function typeQuery(text, { perKey = false } = {}) {
  if (!(await $('[data-testid="query-pane"]').isExisting())) await $('[data-testid="toggle-query"]').click();
  const content = await $('[data-testid="query-editor"] .cm-content');
  await content.waitForDisplayed();
  await content.click();
  await browser.keys(['Control', 'a']);
  await browser.keys('Backspace');
  if (perKey) for (const ch of text) await browser.keys(ch);
  else await browser.keys(text);
  await browser.keys('Escape'); // close the completion list, if open
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The accessibility audit (axe-core, WCAG 2 A/AA rules) of the page as it is: the serious and
 * critical violations, each as "rule: target (summary)". Run in the real webview.
 */
export async function axeViolations() {
  // Sent as the script itself: WebDriver's scripts run outside the page's content security policy,
  // which (rightly) refuses eval.
  const run = `
    const done = arguments[arguments.length - 1];
    if (!window.axe) { ${axeSource}\n; window.axe = window.axe || axe; }
    window.axe
      .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
      .then((r) => done(r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .flatMap((v) => v.nodes.slice(0, 3).map((n) => v.id + ': ' + n.target.join(' ') + ' (' + (n.failureSummary || '').split('\\n').slice(1, 2).join('').trim() + ')'))))
      .catch((e) => done(['axe failed: ' + e]));`;
  return browser.executeAsync(run);
}
