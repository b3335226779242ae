// Opening RDF files in the real webview: a Turtle file dropped on the window is built in the
// background (progress bar, then the map, checked in pixels), reopened from the build cache
// without a build, a long build is cancelled leaving nothing in the cache, and a syntax error
// names the file, line and column while the open document stays; crafted hostile inputs (a
// decode bomb, billion laughs, deep JSON-LD) end in their message with the window alive.
import { expect } from '@wdio/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, fixtures } from '../wdio.conf.mjs';
import { appWindow, drop } from './desktop.mjs';
import { colourStats, mapRect, mapSettled, relaunch, screenshot } from './helpers.mjs';

const fx = (name) => path.join(fixtures, name);
/** Waits until the open document is `name`, querying the page each time: the name's element is
 * replaced when a document opens, so a held element reference goes stale during a long build. */
const docNamed = (name, timeout = 10_000) => browser.waitUntil(
  async () => (await browser.execute(() => document.querySelector('[data-testid="doc-name"]')?.textContent?.trim())) === name,
  { timeout, interval: 250, timeoutMsg: `the open document never became ${name}` },
);
const work = path.resolve('.e2e-out', 'import');
const cacheFiles = () => (existsSync(cacheDir()) ? readdirSync(cacheDir()).filter((f) => f !== 'downloads').sort() : []);
const lastBuild = async () => {
  const e = await $('[data-testid="import-last"]');
  return { status: await e.getAttribute('data-status'), phases: JSON.parse((await e.getAttribute('data-phases')) || '[]'), triples: Number(await e.getAttribute('data-triples')) };
};

/** A social graph in Turtle: people in groups who know each other (communities for the map). */
function writeTurtle(file, people) {
  const out = ['@prefix foaf: <http://xmlns.com/foaf/0.1/> .', '@prefix ex: <http://example.org/people/> .', ''];
  const groups = Math.max(4, Math.round(people / 150));
  for (let g = 0; g < groups; g++) out.push(`ex:g${g} a foaf:Group ; foaf:name "Group ${g}" .`);
  for (let i = 0; i < people; i++) {
    const g = i % groups;
    // Mostly within the group, sometimes across: communities with links between them.
    const a = (i + groups * (1 + (i % 7))) % people;
    const b = (i * 31 + 17) % people;
    out.push(`ex:p${i} a foaf:Person ; foaf:name "Person ${i}" ; foaf:age ${20 + (i % 50)} ; ex:memberOf ex:g${g} ;\n  foaf:knows ex:p${a}${i % 5 === 0 ? `, ex:p${b}` : ''} .`);
  }
  writeFileSync(file, `${out.join('\n')}\n`);
  return file;
}

/** N-Triples big enough that a build takes a while (the cancel test). */
function writeNTriples(file, people) {
  const lines = [];
  for (let i = 0; i < people; i++) {
    const s = `<http://example.org/big/p${i}>`;
    lines.push(`${s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .`);
    lines.push(`${s} <http://xmlns.com/foaf/0.1/name> "Person number ${i}" .`);
    lines.push(`${s} <http://xmlns.com/foaf/0.1/knows> <http://example.org/big/p${(i * 7 + 3) % people}> .`);
    lines.push(`${s} <http://xmlns.com/foaf/0.1/knows> <http://example.org/big/p${(i * 13 + 5) % people}> .`);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('opening RDF files', function () {
  // Builds run in the debug app (the engine crates unoptimised) on a shared machine.
  this.timeout(300_000);
  let ttl;
  before(() => {
    mkdirSync(work, { recursive: true });
    ttl = writeTurtle(path.join(work, 'people.ttl'), 3_000);
  });

  it('builds a dropped Turtle file with a progress bar, then draws its map', async () => {
    await relaunch(fx('social-1k.rete'));
    await docNamed('social-1k.rete');
    await mapSettled(1);
    const win = await appWindow('social-1k.rete — Rete');
    expect(cacheFiles()).toEqual([]);
    // The bar may show only briefly for a small file: a page-side observer notes whether it did.
    await browser.execute(() => {
      window.__barSeen = false;
      new MutationObserver(() => { if (document.querySelector('[data-testid="import-progress"] [role="progressbar"]')) window.__barSeen = true; })
        .observe(document.body, { subtree: true, childList: true });
    });
    await drop(win, ttl);
    await docNamed('people.ttl', 240_000);
    expect(await browser.execute(() => window.__barSeen)).toBe(true);
    // Asked of the page, not through a held element: the bar's element is gone by now, and
    // WebKitWebDriver may answer a stale reference with an error instead of "not existing".
    expect(await browser.execute(() => !!document.querySelector('[data-testid="import-progress"]'))).toBe(false);
    const last = await lastBuild();
    expect(last.status).toBe('built');
    expect(last.triples).toBeGreaterThan(15_000);
    expect(last.phases.map(([p]) => p)).toEqual(expect.arrayContaining(['parse', 'sort', 'pyramid', 'schema', 'write']));
    expect(await mapSettled(2)).toBeGreaterThan(1);
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('import-map'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
    expect(s.drawnShare).toBeGreaterThan(0.02);
    expect(cacheFiles().filter((f) => f.endsWith('.rete'))).toHaveLength(1);
  });

  it('reopens the unchanged Turtle file from the cache without a build', async () => {
    const before = cacheFiles();
    await relaunch(ttl);
    await docNamed('people.ttl');
    expect((await lastBuild()).status).toBe('cached');
    expect(await mapSettled(2)).toBeGreaterThan(1);
    const { rect, dpr } = await mapRect();
    expect(colourStats(await screenshot('import-cached'), rect, dpr).distinct).toBeGreaterThan(8);
    expect(cacheFiles()).toEqual(before);
  });

  it('cancels a long build: nothing is left in the cache and the open document stays', async () => {
    const big = writeNTriples(path.join(work, 'big.nt'), 150_000);
    const before = cacheFiles();
    // The second file is opened after the first, as two files from a file manager are.
    await relaunch(fx('social-1k.rete'), big);
    const bar = await $('[data-testid="import-progress"]');
    await bar.waitForDisplayed({ timeout: 60_000, interval: 20 });
    await expect($('[data-testid="doc-name"]')).toHaveText('social-1k.rete');
    // Some work first, so the cancel reaches a build under way (and its temporary files).
    await browser.waitUntil(async () => (await $('[data-testid="import-triples"]').getText()).replace(/\D/g, '') > 1000, { interval: 20, timeoutMsg: 'the build did not start' });
    expect(cacheFiles().some((f) => f.startsWith('.rete-build-'))).toBe(true);
    // The window answers during the build: the legend panel hides and comes back.
    await $('button=Legend').click();
    await $('aside.left').waitForExist({ reverse: true, timeout: 5_000 });
    await $('button=Legend').click();
    await $('aside.left').waitForExist({ timeout: 5_000 });
    expect(await bar.isDisplayed()).toBe(true);
    // The bar is drawn (its fill against its track), with the phase and the count beside it.
    const barRect = await browser.getElementRect(await $('[role="progressbar"]').elementId);
    const dpr = await browser.execute(() => window.devicePixelRatio);
    const shot = await screenshot('import-progress');
    expect(colourStats(shot, barRect, dpr).distinct).toBeGreaterThan(1);
    await expect($('[data-testid="import-phase"]')).toHaveText(expect.stringMatching(/parse|dictionary|sort|permutations|pyramid|schema|write/));
    await $('[data-testid="import-cancel"]').click();
    await bar.waitForExist({ reverse: true, timeout: 30_000 });
    expect((await lastBuild()).status).toBe('cancelled');
    expect(await $('[data-testid="error"]').isExisting()).toBe(false);
    await docNamed('social-1k.rete');
    expect(cacheFiles()).toEqual(before);
    expect(await mapSettled(1)).toBeGreaterThan(0);
  });

  it('shows the line and column of a syntax error and keeps the open document', async () => {
    const broken = path.join(work, 'broken.ttl');
    writeFileSync(broken, '@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:d ex:e ex:f ex:g .\n');
    const before = cacheFiles();
    await relaunch(fx('social-1k.rete'), broken);
    const err = await $('[data-testid="error"]');
    await err.waitForDisplayed({ timeout: 30_000 });
    await expect(err).toHaveText(expect.stringMatching(/broken\.ttl:3:\d+: .+/));
    await screenshot('import-syntax-error');
    await docNamed('social-1k.rete');
    expect((await lastBuild()).status).toBe('failed');
    expect(cacheFiles()).toEqual(before);
  });

  it('refuses crafted inputs with their message and stays alive: a decode bomb, billion laughs, deep JSON-LD', async () => {
    // Written by the fixtures example (rete-explore tests/fixtures `CRAFTED`); the app runs the
    // decoders and parsers in its own process, so an abort here would take the window down.
    const before = cacheFiles();
    for (const [name, message] of [
      ['crafted-schema-bomb.rete', /crafted-schema-bomb\.rete: corrupt schema classes: front-coded strings expand beyond \d+ shared bytes/],
      ['crafted-laughs.rdf', /crafted-laughs\.rdf: XML entity "lol\d" expands to \d+ bytes, over the 1048576-byte limit/],
      ['crafted-deep.jsonld', /crafted-deep\.jsonld: line 1: JSON nested deeper than 128 levels/],
    ]) {
      await relaunch(fx('social-1k.rete'), fx(name));
      const err = await $('[data-testid="error"]');
      await err.waitForDisplayed({ timeout: 30_000 });
      await expect(err).toHaveText(expect.stringMatching(message));
      await docNamed('social-1k.rete');
      // Alive: the page answers and the map of the open document still draws.
      expect(await mapSettled(1)).toBeGreaterThan(0);
    }
    const { rect, dpr } = await mapRect();
    expect(colourStats(await screenshot('import-crafted-refused'), rect, dpr).distinct).toBeGreaterThan(8);
    expect(cacheFiles()).toEqual(before);
  });

  it('opens a .rete file written by upstream rete (rete-graph 0.3.6) and draws its map', async () => {
    const nt = writeNTriples(path.join(work, 'upstream.nt'), 3000);
    const file = path.join(work, 'upstream.rete');
    // The real upstream builder (PyPI rete-graph, installed by scripts/setup.sh as a test oracle).
    execFileSync('python3', ['-c', 'import rete_graph, sys; open(sys.argv[2], "wb").write(rete_graph.build(open(sys.argv[1]).read(), "nt"))', nt, file]);
    expect(execFileSync('head', ['-c', '4', file], { encoding: 'latin1' })).toBe('RETE');
    await relaunch(file);
    await docNamed('upstream.rete', 120_000);
    expect(await $('[data-testid="error"]').isExisting()).toBe(false);
    expect(await mapSettled(2)).toBeGreaterThan(1);
    const stats = await $('[data-testid="doc-stats"]').getText();
    expect(stats).toContain('12,000 triples');
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('import-upstream'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
    expect(s.drawnShare).toBeGreaterThan(0.02);
  });
});
