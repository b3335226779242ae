import { expect } from '@wdio/globals';
import { createReadStream, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { app, fixtures } from '../wdio.conf.mjs';
import { chooseFile, clipboardText, focusWindow, saveAs, secondLaunch, xdo } from './desktop.mjs';
import { axeViolations, clickLargest, colourStats, differing, mapRect, mapSettled, relaunch, relaunchKeepingViews, screenshot, typeQuery } from './helpers.mjs';


const fx = (name) => path.join(fixtures, name);

async function runQuery() {
  await $('[data-testid="query-editor"] .cm-content').click();
  await browser.keys(['Control', 'Enter']);
}

/** Types `text` as the query and runs it. */
async function typeAndRun(text) {
  await typeQuery(text);
  await runQuery();
}

/** Distinct colours inside an element's box. */
async function pixels(name, selector) {
  const el = await $(selector);
  const rect = await browser.getElementRect(await el.elementId);
  const dpr = await browser.execute(() => window.devicePixelRatio);
  return colourStats(await screenshot(name), rect, dpr);
}

/** The share of the rectangle `r`'s pixels whose luminance (0–255) passes `test`. */
function share(png, r, scale, test) {
  let n = 0, total = 0;
  for (let y = Math.round(r.y * scale); y < Math.min(png.height, Math.round((r.y + r.height) * scale)); y++) {
    for (let x = Math.round(r.x * scale); x < Math.min(png.width, Math.round((r.x + r.width) * scale)); x++) {
      const i = (y * png.width + x) * 4;
      if (test(0.2126 * png.data[i] + 0.7152 * png.data[i + 1] + 0.0722 * png.data[i + 2])) n++;
      total++;
    }
  }
  return total ? n / total : 0;
}

describe('pyramid map, queries, coherence, remote files', () => {
  it('opens a file with a pyramid on its top level and zooms into a community', async () => {
    await relaunch(fx('social-20k.rete'));
    await expect($('[data-testid="doc-name"]')).toHaveText('social-20k.rete');
    const first = await mapSettled(2);
    await expect($('[data-testid="map-note"]')).toHaveAttribute('title', expect.stringContaining('Community pyramid'));
    // The legend is the schema block's.
    await expect($('[data-testid="legend"]')).toHaveText(expect.stringContaining("schema block"));
    const { rect, dpr } = await mapRect();
    let s = colourStats(await screenshot('pyramid'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
    expect(s.drawnShare).toBeGreaterThan(0.02);
    await clickLargest();
    await expect($('[data-testid="details-title"]')).toBeDisplayed();
    await expect($('[data-testid="details"]')).toHaveText(expect.stringContaining('community on level'));
    await expect($('[data-testid="children"]')).toBeDisplayed();
    await $('[data-testid="zoom-in"]').click();
    const map = await $('[data-testid="map"]');
    await browser.waitUntil(async () => /c\d+:\d+/.test(await map.getAttribute('data-open')), { timeoutMsg: 'the community did not open' });
    const count = await mapSettled(first + 1);
    expect(count).toBeGreaterThan(first);
    expect((await $$('[data-testid="crumb"]')).length).toBeGreaterThanOrEqual(2);
    s = colourStats(await screenshot('pyramid-zoomed'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(20);
  });

  it('finds a person by typing a few letters, and Enter takes the map down the pyramid to them', async () => {
    // Ctrl+F focuses the box; the words' starts in any order, in lower case.
    await browser.keys(['Control', 'f']);
    await browser.keys('tur ada');
    const hits = await $('[data-testid="search-hits"]');
    await hits.waitForDisplayed({ timeout: 30_000 });
    await browser.waitUntil(async () => Number(await hits.getAttribute('data-count')) > 0, { timeout: 30_000, timeoutMsg: 'no hits' });
    await expect($('[data-testid="search-hit"]')).toHaveText(expect.stringContaining('Ada Turing'));
    await expect($('[data-testid="search-scanned"]')).not.toBeExisting();
    // Shift+Enter: every community holding a match lit on the map with its count, the others
    // dimmed; cleared, the map as it was.
    await browser.keys(['Shift', 'Enter']);
    const banner = await $('[data-testid="highlight"]');
    await expect(banner).toHaveText(expect.stringMatching(/Search “tur ada”: \d+ match(es)? in \d+ communit/), { wait: 30_000 });
    await browser.pause(800);
    const { rect: mapBox, dpr: scale } = await mapRect();
    const lit = await screenshot('search-all');
    await $('[aria-label="Clear highlight"]').click();
    await expect(banner).not.toBeExisting();
    await browser.pause(800);
    expect(differing(lit, await screenshot('search-all-cleared'), mapBox, scale)).toBeGreaterThan(0.01);
    // Back in the box, the list open again: Enter goes to the first hit.
    await $('[data-testid="search-input"]').click();
    await $('[data-testid="search-hits"]').waitForDisplayed({ timeout: 30_000 });
    await browser.keys('Enter');
    // Each level's community opened in turn, down to level 0, and the person selected.
    const map = await $('[data-testid="map"]');
    await browser.waitUntil(async () => /(^| )c0:\d+/.test(await map.getAttribute('data-open')), { timeout: 60_000, timeoutMsg: 'the map did not open the level-0 community' });
    await expect($('[data-testid="details"]')).toHaveText(expect.stringContaining('Ada Turing'), { wait: 30_000 });
    await browser.pause(800);
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('search-found'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
    expect(s.drawnShare).toBeGreaterThan(0.02);
  });

  it('connects the person found to a friend of a friend: the paths listed, drawn on the map, each step opening its details', async () => {
    await $('[data-testid="connect-from"]').click();
    // Another person: a friend's friend, through the details panel's links.
    await $('[data-testid="details"] td button.link').click();
    await expect($('[data-testid="details-title"]')).not.toHaveText('Ada Turing');
    await $('[data-testid="details"] td button.link').click();
    const connect = await $('[data-testid="connect-here"]');
    await connect.waitForDisplayed();
    const target = await $('[data-testid="details-title"]').getText();
    await connect.click();
    const summary = await $('[data-testid="paths-summary"]');
    await summary.waitForDisplayed({ timeout: 60_000 });
    expect(Number(await summary.getAttribute('data-count'))).toBeGreaterThan(0);
    const first = await $('[data-testid="path"]');
    expect(Number(await first.getAttribute('data-hops'))).toBeGreaterThanOrEqual(1);
    await expect(first).toHaveText(expect.stringContaining('Ada Turing'));
    await expect(first).toHaveText(expect.stringContaining(target));
    await expect($('[data-testid="highlight"]')).toHaveText(expect.stringContaining('Ada Turing'));
    await browser.pause(500);
    const { rect, dpr } = await mapRect();
    const shot = await screenshot('paths');
    const s = colourStats(shot, rect, dpr);
    expect(s.distinct).toBeGreaterThan(4);
    // The paths' steps are drawn as lines in the paths' colour (#c2410c in the light theme).
    let orange = 0;
    for (let y = Math.round(rect.y * dpr); y < Math.round((rect.y + rect.height) * dpr); y++) {
      for (let x = Math.round(rect.x * dpr); x < Math.round((rect.x + rect.width) * dpr); x++) {
        const i = (y * shot.width + x) * 4;
        if (Math.abs(shot.data[i] - 0xc2) < 24 && Math.abs(shot.data[i + 1] - 0x41) < 24 && Math.abs(shot.data[i + 2] - 0x0c) < 24) orange++;
      }
    }
    expect(orange).toBeGreaterThan(100);
    // A step's entity opens its details.
    const nodes = await first.$$('[data-testid="path-node"]');
    const middle = nodes[Math.floor(nodes.length / 2)];
    const label = await middle.getText();
    await middle.click();
    await expect($('[data-testid="details-title"]')).toHaveText(label);
    // Never through foaf:knows (the social graph's only link between people): no path, and why.
    await $('[data-testid="paths-without"]').selectByAttribute('value', '<http://xmlns.com/foaf/0.1/knows>');
    await expect($('[data-testid="paths-filters"]')).toHaveText(expect.stringContaining('not knows'));
    await $('[data-testid="paths-again"]').click();
    await browser.waitUntil(async () => (await $('[data-testid="paths-summary"]').getAttribute('data-count')) === '0', { timeout: 60_000, timeoutMsg: 'a path through knows was still found' });
    await expect($('[data-testid="paths-summary"]')).toHaveText(expect.stringContaining('0 paths'));
  });

  it('keeps the map the same size while the status bar shows its spinner and a loading note', async () => {
    // The status bar shows them after 0.4 s of work. A bar that grew by half a pixel resized the
    // map, and sigma redrew every layer. The same elements, with the status bar's own class:
    const sizes = await browser.execute(() => {
      const rect = () => {
        const b = document.querySelector('[data-testid="map"]').getBoundingClientRect();
        return [b.width, b.height];
      };
      const status = document.querySelector('[data-testid="status"]');
      const reads = document.querySelector('[data-testid="reads"]');
      const scoped = [...reads.classList].find((c) => c.startsWith('svelte-'));
      const before = rect();
      const spinner = document.createElement('span');
      spinner.className = `spinner ${scoped}`;
      reads.prepend(spinner);
      const note = document.createElement('span');
      note.className = `muted ${scoped}`;
      note.textContent = 'loading…';
      status.appendChild(note);
      const during = rect();
      spinner.remove();
      note.remove();
      return { before, during, scoped };
    });
    expect(sizes.scoped).toBeTruthy();
    expect(sizes.during).toEqual(sizes.before);
  });

  it('keeps the class overview and the card legend for a file without pyramid and schema', async () => {
    await relaunch(fx('social-1k-plain.rete'));
    await mapSettled();
    await expect($('[data-testid="map-note"]')).toHaveAttribute('title', expect.stringContaining("Classes from the file's card"));
    await expect($('[data-testid="legend"]')).toHaveText(expect.stringContaining("file's card"));
    const { rect, dpr } = await mapRect();
    expect(colourStats(await screenshot('plain'), rect, dpr).distinct).toBeGreaterThan(4);
    // No search index in this file: the box still answers, by scanning its labels, and says so.
    await browser.keys(['Control', 'f']);
    await browser.keys('hop ada');
    await $('[data-testid="search-scanned"]').waitForDisplayed({ timeout: 60_000 });
    await expect($('[data-testid="search-hit"]')).toHaveText(expect.stringContaining('Ada Hopper'));
    await browser.keys('Enter');
    await expect($('[data-testid="details"]')).toHaveText(expect.stringContaining('Ada Hopper'), { wait: 30_000 });
    // The list offers to add an index: saved where the user says (a native dialog), opened in
    // place of the file, and the same text searched again, now from the index.
    const indexed = path.join(os.tmpdir(), `rete-e2e-indexed-${process.pid}.rete`);
    rmSync(indexed, { force: true });
    await browser.keys(['Control', 'f']);
    // Down opens the list again (it closed on Enter).
    await browser.keys('ArrowDown');
    await $('[data-testid="search-add-index"]').waitForDisplayed({ timeout: 30_000 });
    await $('[data-testid="search-add-index"]').click();
    await saveAs('^Save with a search index$', indexed);
    try {
      await expect($('[data-testid="search-index-message"]')).toHaveText(expect.stringContaining('Search index added'), { wait: 60_000 });
      await expect($('[data-testid="doc-name"]')).toHaveText(path.basename(indexed));
      await expect($('[data-testid="search-hit"]')).toHaveText(expect.stringContaining('Ada Hopper'), { wait: 30_000 });
      await expect($('[data-testid="search-scanned"]')).not.toBeExisting();
    } finally {
      rmSync(indexed, { force: true });
    }
  });

  it('is driven from the keyboard alone: the Open dialog, a recent file, map, groups, entities, the shortcut list, bookmarks, a query; and turns dark', async () => {
    // The start page: Ctrl+O (the shell's accelerator, pressed on the X keyboard: WebDriver's keys
    // stay inside the page) opens the file chooser, where the path is typed.
    await relaunch();
    await expect($('[data-testid="welcome"]')).toBeDisplayed();
    await focusWindow('Rete$');
    await xdo('key', '--clearmodifiers', 'ctrl+o');
    await chooseFile('^Open a \\.rete or RDF file$', fx('social-1k.rete'));
    await expect($('[data-testid="doc-name"]')).toHaveText('social-1k.rete');
    await mapSettled();
    // Back on the start page, Tab reaches the file, now a recent one, and Enter opens it.
    await relaunch();
    await expect($('[data-testid="welcome"]')).toBeDisplayed();
    const active = () => browser.execute(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
    const focusedText = () => browser.execute(() => document.activeElement?.textContent ?? '');
    for (let i = 0; i < 20 && !((await active()) === 'recent' && /social-1k\.rete$/.test(await focusedText())); i++) await browser.keys('Tab');
    expect(await focusedText()).toMatch(/social-1k\.rete$/);
    await browser.keys('Enter');
    await expect($('[data-testid="doc-name"]')).toHaveText('social-1k.rete');
    await mapSettled();
    const map = await $('[data-testid="map"]');
    // M puts the focus on the map, which shows it.
    await browser.keys('m');
    await browser.waitUntil(async () => (await active()) === 'map', { timeoutMsg: 'M did not focus the map' });
    // An arrow selects the node nearest the middle; Enter opens that community.
    await browser.keys('ArrowRight');
    await expect($('[data-testid="details"]')).toHaveText(expect.stringContaining('community on level'), { wait: 20_000 });
    await browser.keys('Enter');
    await browser.waitUntil(async () => /c\d+:\d+/.test(await map.getAttribute('data-open')), { timeoutMsg: 'Enter did not open the community' });
    await mapSettled();
    // Arrows walk to one of its members: an entity's details (it can be expanded).
    await browser.pause(800);
    for (const key of ['ArrowLeft', 'ArrowDown', 'ArrowRight', 'ArrowUp', 'ArrowLeft', 'ArrowDown']) {
      if (await $('[data-testid="expand-neighbourhood"]').isExisting()) break;
      await browser.keys(key);
      await browser.pause(600);
    }
    await expect($('[data-testid="expand-neighbourhood"]')).toBeDisplayed({ wait: 20_000 });
    // B bookmarks the view (named after the entity selected); Escape closes the sheet.
    const entity = await $('[data-testid="details-title"]').getText();
    await browser.keys('b');
    await expect($('[data-testid="bookmark-name"]')).toHaveValue(entity);
    await browser.keys('Enter');
    await expect($('[data-testid="bookmark"]')).toHaveAttribute('title', entity);
    await screenshot('bookmarks');
    await browser.keys('Escape');
    await expect($('[data-testid="bookmarks"]')).not.toBeExisting();
    const bookmarked = await map.getAttribute('data-open');
    // Backspace goes up to the overview.
    await browser.keys('m');
    await browser.keys('Backspace');
    await browser.waitUntil(async () => (await map.getAttribute('data-open')) === '', { timeoutMsg: 'Backspace did not go up a level' });
    // B, Tab to the bookmark, Enter: back in the community, the entity selected.
    await browser.keys('b');
    await $('[data-testid="bookmark-name"]').waitForDisplayed();
    for (let i = 0; i < 6 && (await active()) !== 'bookmark'; i++) await browser.keys('Tab');
    await browser.keys('Enter');
    await browser.waitUntil(async () => (await map.getAttribute('data-open')) === bookmarked, { timeout: 20_000, timeoutMsg: 'the bookmark did not reopen the community' });
    await expect($('[data-testid="details-title"]')).toHaveText(entity, { wait: 20_000 });
    await browser.keys('m');
    await browser.keys('Backspace');
    await browser.waitUntil(async () => (await map.getAttribute('data-open')) === '', { timeoutMsg: 'Backspace did not go up a level' });
    // ? lists the shortcuts; Escape closes the list and gives the keys back.
    await browser.keys('?');
    await expect($('[data-testid="shortcuts"]')).toHaveText(expect.stringContaining('Select the nearest node in that direction'));
    await screenshot('shortcuts');
    await browser.keys('Escape');
    await expect($('[data-testid="shortcuts"]')).not.toBeExisting();
    // T cycles the theme: system (light here) → light → dark. The map's background and the
    // toolbar turn dark, by their pixels.
    const { rect, dpr } = await mapRect();
    const bar = await browser.getElementRect(await $('[data-testid="status"]').elementId);
    await browser.pause(800); // the camera's way back to the overview
    const before = await screenshot('theme-light');
    await browser.keys('t');
    await browser.keys('t');
    await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === 'dark', { timeoutMsg: 'T did not turn the theme dark' });
    await browser.pause(600);
    const after = await screenshot('theme-dark');
    // The map's background (what no node covers) and the status bar: light, then dark.
    expect(share(before, rect, dpr, (l) => l > 200)).toBeGreaterThan(0.2);
    expect(share(after, rect, dpr, (l) => l < 50)).toBeGreaterThan(0.2);
    expect(colourStats(after, rect, dpr).distinct).toBeGreaterThan(8); // the map is drawn, not blank
    expect(share(before, bar, dpr, (l) => l > 200)).toBeGreaterThan(0.5);
    expect(share(after, bar, dpr, (l) => l < 60)).toBeGreaterThan(0.5);
    // Q opens the query pane with the editor focused: a query typed and run with Ctrl+Enter.
    await browser.keys('q');
    await $('[data-testid="query-editor"] .cm-content').waitForDisplayed();
    await browser.waitUntil(async () => browser.execute(() => !!document.activeElement?.closest('.cm-editor')), { timeoutMsg: 'Q did not focus the editor' });
    await browser.keys(['Control', 'a']);
    await browser.keys('Backspace');
    await browser.keys('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }');
    await browser.keys('Escape');
    await browser.keys(['Control', 'Enter']);
    await expect($('[data-testid="query-summary"]')).toHaveText(expect.stringContaining('1 row'), { wait: 30_000 });
    await screenshot('dark');
    // Back to the system's theme for the cases that follow (the choice is remembered).
    await $('[data-testid="map"]').then((m) => browser.execute((el) => el.focus(), m));
    await browser.keys('t');
    await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === 'light', { timeoutMsg: 'T did not go back to the system theme' });
    await browser.keys('q');
    await expect($('[data-testid="query-pane"]')).not.toBeExisting();
  });

  it('passes the accessibility audit (axe-core) on the map, details, bookmarks, query and coherence screens, light and dark', async () => {
    const audit = {};
    const theme = async (want) => {
      while ((await browser.execute(() => document.documentElement.dataset.theme)) !== want || (await $('[data-testid="theme"]').getAttribute('data-choice')) === 'system') {
        await $('[data-testid="theme"]').click();
      }
    };
    for (const t of ['light', 'dark']) {
      await theme(t);
      audit[`${t} map and details`] = await axeViolations();
      await $('[data-testid="toggle-bookmarks"]').click();
      await $('[data-testid="bookmark-name"]').waitForDisplayed();
      audit[`${t} bookmarks`] = await axeViolations();
      await browser.keys('Escape');
      await $('[data-testid="bookmarks"]').waitForExist({ reverse: true });
      await $('[data-testid="toggle-query"]').click();
      await $('[data-testid="query-pane"]').waitForDisplayed({ timeout: 30_000 });
      audit[`${t} query`] = await axeViolations();
      await $('[data-testid="toggle-coherence"]').click();
      await $('[data-testid="coherence-run"]').waitForDisplayed();
      audit[`${t} coherence`] = await axeViolations();
      await $('[data-testid="toggle-coherence"]').click();
    }
    // Back to the system's choice for the cases that follow.
    while ((await $('[data-testid="theme"]').getAttribute('data-choice')) !== 'system') await $('[data-testid="theme"]').click();
    expect(audit).toEqual(Object.fromEntries(Object.keys(audit).map((k) => [k, []])));
  });

  it('copies a rete:// link to the view, which a fresh app opens at the same view; reopening the file restores it; a malformed link is refused', async () => {
    await relaunch(fx('social-1k.rete'));
    await mapSettled();
    // A community opened, an entity in it selected.
    await clickLargest();
    await $('[data-testid="zoom-in"]').click();
    const map = await $('[data-testid="map"]');
    await browser.waitUntil(async () => /c\d+:\d+/.test(await map.getAttribute('data-open')), { timeoutMsg: 'the community did not open' });
    await mapSettled();
    await browser.keys('m');
    for (const key of ['ArrowRight', 'ArrowLeft', 'ArrowDown', 'ArrowUp', 'ArrowRight']) {
      if (await $('[data-testid="expand-neighbourhood"]').isExisting()) break;
      await browser.keys(key);
      await browser.pause(600);
    }
    await expect($('[data-testid="expand-neighbourhood"]')).toBeDisplayed({ wait: 20_000 });
    const title = await $('[data-testid="details-title"]').getText();
    const open = await map.getAttribute('data-open');
    await browser.pause(1200); // the camera settled, the view remembered
    // V copies the link to the desktop's clipboard (and shows it in the status bar).
    await browser.keys('v');
    const message = await $('[data-testid="message"]');
    await expect(message).toHaveAttribute('title', expect.stringContaining('Link copied: rete://open?v=1&source='));
    const link = await clipboardText();
    expect((await message.getAttribute('title')).endsWith(link)).toBe(true);
    const { rect, dpr } = await mapRect();
    const before = await screenshot('view-before');

    // A fresh app given the link (as the desktop passes it: rete-desktop %u). The file is on the
    // recent list, so no question is asked.
    await relaunch(link);
    await expect($('[data-testid="doc-name"]')).toHaveText('social-1k.rete');
    await browser.waitUntil(async () => (await $('[data-testid="map"]').getAttribute('data-open')) === open, { timeout: 30_000, timeoutMsg: `the link did not open ${open}` });
    await expect($('[data-testid="details-title"]')).toHaveText(title, { wait: 20_000 });
    await mapSettled();
    await browser.pause(800);
    const after = await screenshot('view-after');
    expect(differing(before, after, rect, dpr)).toBeLessThan(0.05);

    // Reopening the file alone comes back to the same view.
    await relaunchKeepingViews(fx('social-1k.rete'));
    await browser.waitUntil(async () => (await $('[data-testid="map"]').getAttribute('data-open')) === open, { timeout: 30_000, timeoutMsg: 'reopening did not restore the view' });
    await expect($('[data-testid="details-title"]')).toHaveText(title, { wait: 20_000 });

    // The link handed to the running window by a second launch (as a browser does): the window,
    // on another file, goes to the view.
    await relaunch(fx('medical-1k.rete'));
    await expect($('[data-testid="doc-name"]')).toHaveText('medical-1k.rete');
    expect(await secondLaunch(app, [link], fixtures)).toBe(0);
    await expect($('[data-testid="doc-name"]')).toHaveText('social-1k.rete');
    await browser.waitUntil(async () => (await $('[data-testid="map"]').getAttribute('data-open')) === open, { timeout: 30_000, timeoutMsg: 'the running window did not go to the view' });

    // A malformed link: a clear message, nothing opened.
    await relaunch('rete://open?v=1&source=' + encodeURIComponent(fx('social-1k.rete')) + '&ratio=-2');
    await expect($('[data-testid="error"]')).toHaveText(expect.stringContaining("This link cannot be opened: the view's camera is not valid: its ratio must be a positive number"));
    await expect($('[data-testid="welcome"]')).toBeDisplayed();
  });

  it('types a query, runs it with Ctrl+Enter and shows rows whose IRIs open details; a SERVICE call to another endpoint asks first', async () => {
    await relaunch(fx('social-1k.rete'));
    await mapSettled();
    await typeAndRun('SELECT ?person ?name WHERE { ?person foaf:name ?name } ORDER BY ?name');
    const summary = await $('[data-testid="query-summary"]');
    await summary.waitForDisplayed({ timeout: 30_000 });
    await expect(summary).toHaveText(expect.stringContaining('1,000 rows'));
    const rows = await $$('[data-testid="result-row"]');
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(200); // virtualized: only what is in view
    // Where do the results live: the communities holding them light up.
    await expect($('[data-testid="query-located"]')).toHaveText(expect.stringContaining('1,000 on the map'));
    await expect($('[data-testid="highlight"]')).toBeDisplayed();
    const link = await $('[data-testid="result-link"]');
    const nt = await (await link.parentElement()).getAttribute('title');
    await link.click();
    await expect($('[data-testid="details"]')).toHaveText(expect.stringContaining(nt));
    await browser.pause(300);
    const s = await pixels('query', '[data-testid="map"]');
    expect(s.distinct).toBeGreaterThan(8);

    // A query joining another SPARQL endpoint (SERVICE): the app asks before the first call to
    // its host; allowed, the endpoint's rows arrive.
    const endpoint = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
        res.end(JSON.stringify({ head: { vars: ['name'] }, results: { bindings: ['Ada', 'Alan', 'Grace'].map((n) => ({ name: { type: 'literal', value: n } })) } }));
      });
    });
    await new Promise((r) => endpoint.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${endpoint.address().port}/sparql`;
      await typeQuery(`SELECT ?name WHERE { SERVICE <${url}> { ?s foaf:name ?name } }`, { perKey: true });
      await runQuery();
      await focusWindow('^Query another endpoint$');
      await xdo('key', 'Return');
      await expect(summary).toHaveText(expect.stringContaining('3 rows'), { wait: 30_000 });
    } finally {
      endpoint.close();
    }
  });

  it("replaces one query's highlight by the next one's on the map", async () => {
    // The first and the last person by IRI live in different communities of the top level: the
    // second query's results light another circle up, and the first one's is dimmed again (the
    // nodes that change are rewritten in sigma's buffers, not the whole map).
    const DIMMED = [0xd5, 0xd9, 0xe0];
    const dimmed = (png, r, dpr) => {
      const out = new Set();
      for (let y = Math.round(r.y * dpr); y < Math.round((r.y + r.height) * dpr); y++) {
        for (let x = Math.round(r.x * dpr); x < Math.round((r.x + r.width) * dpr); x++) {
          const i = (y * png.width + x) * 4;
          if (png.data[i] === DIMMED[0] && png.data[i + 1] === DIMMED[1] && png.data[i + 2] === DIMMED[2]) out.add(y * png.width + x);
        }
      }
      return out;
    };
    const located = $('[data-testid="query-located"]');
    const shown = async () => {
      const rows = await $$('[data-testid="result-link"]');
      return rows.length === 1 ? (await rows[0].parentElement()).getAttribute('title') : null;
    };
    await typeAndRun('SELECT ?p WHERE { ?p a foaf:Person } ORDER BY ?p LIMIT 1');
    await browser.waitUntil(async () => (await shown()) !== null, { timeoutMsg: 'no first result' });
    const person = await shown();
    await expect(located).toHaveText(expect.stringContaining('1 on the map'));
    await browser.pause(500);
    const { rect, dpr } = await mapRect();
    const first = dimmed(await screenshot('query-first'), rect, dpr);
    await typeAndRun('SELECT ?p WHERE { ?p a foaf:Person } ORDER BY DESC(?p) LIMIT 1');
    await browser.waitUntil(async () => ![null, person].includes(await shown()), { timeoutMsg: 'no second result' });
    await expect(located).toHaveText(expect.stringContaining('1 on the map'));
    await browser.pause(500);
    const second = dimmed(await screenshot('query-second'), rect, dpr);
    const litNow = [...first].filter((i) => !second.has(i)).length;
    const dimmedNow = [...second].filter((i) => !first.has(i)).length;
    expect(first.size).toBeGreaterThan(1000);
    expect(litNow).toBeGreaterThan(200);
    expect(dimmedNow).toBeGreaterThan(200);
  });

  it('marks a syntax error at its line and column', async () => {
    // Balanced brackets: the editor closes them as they are typed.
    await typeAndRun('SELECT ?s ?age WHERE { ?s foaf:age ?age FILTER(?age > ) }');
    const err = await $('[data-testid="query-error"]');
    await err.waitForDisplayed();
    await expect(err).toHaveText(expect.stringMatching(/Line 1, column (4[0-9]|5[0-9])/));
    await expect($('.cm-query-error')).toBeExisting();
    await screenshot('query-error');
  });

  it('draws a CONSTRUCT result as a graph', async () => {
    await typeAndRun('CONSTRUCT { ?a foaf:knows ?b } WHERE { ?a foaf:knows ?b } LIMIT 150');
    const g = await $('[data-testid="result-graph"]');
    await g.waitForDisplayed({ timeout: 30_000 });
    expect(Number(await g.getAttribute('data-edges'))).toBeGreaterThan(10);
    await browser.pause(800);
    const s = await pixels('construct', '[data-testid="result-graph"]');
    expect(s.distinct).toBeGreaterThan(8);
    expect(s.drawnShare).toBeGreaterThan(0.01);
  });

  it('scrolls through more than 100,000 rows', async () => {
    await relaunch(fx('social-20k.rete'));
    await mapSettled();
    await typeAndRun('SELECT ?s ?p ?o WHERE { ?s ?p ?o }');
    const table = await $('[data-testid="results-table"]');
    await browser.waitUntil(async () => Number(await table.getAttribute('data-total')) > 100_000, { timeout: 90_000, timeoutMsg: 'no 100k rows' });
    const total = Number(await table.getAttribute('data-total'));
    expect((await $$('[data-testid="result-row"]')).length).toBeLessThan(200);
    for (const share of [0.37, 0.81, 1]) {
      await browser.execute((f) => { const sc = document.querySelector('[data-testid="results-table"] .scroller'); sc.scrollTop = (sc.scrollHeight - sc.clientHeight) * f; }, share);
      await browser.pause(150);
    }
    const lastRow = await $(`[data-testid="result-row"][data-row="${total - 1}"]`);
    await lastRow.waitForExist({ timeout: 10_000 });
    await browser.waitUntil(async () => !(await lastRow.getText()).includes('…'), { timeoutMsg: 'the last page did not arrive' });
    await expect(lastRow).toHaveText(expect.stringContaining(total.toLocaleString('en')));
    await screenshot('query-100k');
  });

  it('cancels a long query', async () => {
    await typeAndRun('SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }');
    const cancel = await $('[data-testid="query-cancel"]');
    await cancel.waitForDisplayed();
    // The elapsed time ticks while the query runs off the main thread.
    await browser.waitUntil(async () => /^([3-9]\d\d ms|\d+\.\d s)$/.test(await $('[data-testid="query-elapsed"]').getText()), { timeoutMsg: 'the elapsed time did not tick' });
    await screenshot('query-running');
    await cancel.click();
    await expect($('[data-testid="query-cancelled"]')).toBeDisplayed();
    await expect($('[data-testid="query-run"]')).toBeDisplayed();
  });

  it('runs the coherence check on the planted sample and highlights a finding', async () => {
    await relaunch(fx('medical-1k.rete'));
    await mapSettled();
    // The legend is the schema's class tree; a class lights up with its subclasses.
    const sick = await $('[data-testid="legend-class"][data-class="<http://example.org/medical#Sick>"]');
    await sick.click();
    await expect(sick).toHaveElementClass('active');
    await browser.pause(300);
    const { rect, dpr } = await mapRect();
    expect(colourStats(await screenshot('legend-tree'), rect, dpr).distinct).toBeGreaterThan(6);
    await sick.click();
    await $('[data-testid="toggle-coherence"]').click();
    await $('[data-testid="coherence-run"]').click();
    const tiers = await $('[data-testid="coherence-tiers"]');
    await browser.waitUntil(async () => (await tiers.getAttribute('data-done')) === '3', { timeout: 90_000, timeoutMsg: 'the three tiers did not finish' });
    const kinds = await browser.execute(() => [...document.querySelectorAll('[data-testid="finding"]')].map((f) => f.getAttribute('data-kind')));
    for (const k of ['unsatisfiable-class', 'disjoint-class-clash', 'functional-violation']) expect(kinds).toContain(k);
    // The unsatisfiable class: its classes are marked in the legend.
    await $('[data-testid="finding"][data-kind="unsatisfiable-class"]').click();
    await expect($('[data-testid="finding-explanation"]')).toHaveText(expect.stringContaining('Relapsed'));
    await expect($('[data-testid="legend-class"][data-class="<http://example.org/medical#Relapsed>"]')).toHaveElementClass('active');
    // An instance clash: its individuals' communities light up on the map.
    await $('[data-testid="finding"][data-kind="disjoint-class-clash"]').click();
    await expect($('[data-testid="highlight"]')).toHaveText(expect.stringContaining('disjoint-class-clash'));
    await browser.pause(400);
    const s = await pixels('coherence', '[data-testid="map"]');
    expect(s.distinct).toBeGreaterThan(6);
  });

  it('opens a URL served on 127.0.0.1 and counts the bytes it fetches', async () => {
    const file = fx('social-1k.rete');
    const size = statSync(file).size;
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      const [a, b] = m ? [Number(m[1]), Math.min(Number(m[2]), size - 1)] : [0, size - 1];
      // The reader requires the file's validator (ETag or Last-Modified) on every response.
      res.writeHead(m ? 206 : 200, { 'Content-Length': b - a + 1, 'Accept-Ranges': 'bytes', ETag: '"social-1k"', ...(m ? { 'Content-Range': `bytes ${a}-${b}/${size}` } : {}) });
      createReadStream(file, { start: a, end: b }).pipe(res);
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${server.address().port}/social-1k.rete`;
    try {
      await relaunch(url);
      await expect($('[data-testid="doc-name"]')).toHaveText('social-1k.rete');
      await mapSettled();
      const reads = await $('[data-testid="reads"]');
      await browser.waitUntil(async () => Number(await reads.getAttribute('data-bytes')) > 0);
      await expect(reads).toHaveText(expect.stringContaining('HTTP request'));
      expect(Number(await reads.getAttribute('data-requests'))).toBeGreaterThanOrEqual(1);
      expect(requests).toBeGreaterThanOrEqual(1);
      // Before a query runs on a remote file, the pane shows what it will fetch.
      await typeQuery('SELECT ?s ?o WHERE { ?s foaf:knows ?o }');
      const cost = await $('[data-testid="query-cost"]');
      await cost.waitForDisplayed({ timeout: 10_000 });
      await expect(cost).toHaveText(expect.stringContaining('will fetch at most'));
      const before = Number(await reads.getAttribute('data-bytes'));
      await runQuery();
      await $('[data-testid="query-summary"]').waitForDisplayed({ timeout: 30_000 });
      await browser.waitUntil(async () => Number(await reads.getAttribute('data-bytes')) > before, { timeoutMsg: 'the counter did not move' });
      const { rect, dpr } = await mapRect();
      const s = colourStats(await screenshot('remote'), rect, dpr);
      expect(s.distinct).toBeGreaterThan(8);
    } finally {
      server.close();
    }
  });
});
