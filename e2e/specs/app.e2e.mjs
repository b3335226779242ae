import { expect } from '@wdio/globals';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixtures, samples } from '../wdio.conf.mjs';
import { axeViolations, clickLargest, colourStats, discOccupancy, largestLabel, mapRect, mapSettled, relaunch, screenshot } from './helpers.mjs';

describe('rete desktop', () => {
  let firstCount = 0;

  it('opens the sample given on the command line and draws the map', async () => {
    await expect($('[data-testid="doc-name"]')).toHaveText('social-1k.rete');
    firstCount = await mapSettled();
    expect(firstCount).toBeGreaterThan(0);
    const stats = await $('[data-testid="doc-stats"]').getText();
    expect(stats).toMatch(/triples/);
    const counts = await $('[data-testid="counts"]').getText();
    expect(counts).toContain(`${firstCount.toLocaleString('en')} nodes`);
    const { rect, dpr } = await mapRect();
    const png = await screenshot('overview');
    const s = colourStats(png, rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
    expect(s.drawnShare).toBeGreaterThan(0.02);
    // The largest group carries its name (its community label, maybe shortened).
    expect(await largestLabel()).toMatch(/\p{L}/u);
  });

  it("draws the selected node's ring, and keeps the focus and hover layers out of the picture while empty", async () => {
    // Empty layers sit at opacity 0 (WebKit's compositor then skips them): they must come back
    // when they hold something.
    const opacities = () => browser.execute(() => Object.fromEntries(['sigma-edgeLabels', 'sigma-hovers', 'sigma-hoverNodes', 'sigma-mouse']
      .map((c) => [c, getComputedStyle(document.querySelector(`canvas.${c}`)).opacity])));
    expect(await opacities()).toEqual({ 'sigma-edgeLabels': '0', 'sigma-hovers': '0', 'sigma-hoverNodes': '0', 'sigma-mouse': '0' });
    const { map, rect, dpr } = await mapRect();
    // The ring's colour (#1f2430), counted over the map before and after the selection.
    const dark = (png) => {
      let n = 0;
      for (let y = Math.round(rect.y * dpr); y < Math.round((rect.y + rect.height) * dpr); y++) {
        for (let x = Math.round(rect.x * dpr); x < Math.round((rect.x + rect.width) * dpr); x++) {
          const i = (y * png.width + x) * 4;
          if (Math.abs(png.data[i] - 31) + Math.abs(png.data[i + 1] - 36) + Math.abs(png.data[i + 2] - 48) < 24) n++;
        }
      }
      return n;
    };
    const before = dark(await screenshot('unselected'));
    await clickLargest();
    await expect($('[data-testid="details-title"]')).toBeDisplayed();
    await browser.pause(300);
    expect((await opacities())['sigma-edgeLabels']).toBe('1');
    const after = dark(await screenshot('selected'));
    expect(after).toBeGreaterThan(before + 50);
    // A click on the empty stage (the map's corner) clears the selection: the layer goes again.
    await map.click({ x: Math.round(-rect.width / 2 + 4), y: Math.round(-rect.height / 2 + 4) });
    await browser.waitUntil(async () => (await opacities())['sigma-edgeLabels'] === '0', { timeoutMsg: 'the focus layer stayed shown with nothing selected' });
  });

  it('selects a group and zooms into it: the group opens into its members', async () => {
    await clickLargest();
    await expect($('[data-testid="details-title"]')).toBeDisplayed();
    await $('[data-testid="zoom-in"]').click();
    const map = await $('[data-testid="map"]');
    await browser.waitUntil(async () => (await map.getAttribute('data-open')) !== '', { timeoutMsg: 'zooming in did not open the group' });
    const count = await mapSettled(firstCount + 1);
    expect(count).toBeGreaterThan(firstCount);
    const crumbs = await $$('[data-testid="crumb"]');
    expect(crumbs.length).toBeGreaterThanOrEqual(2);
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('zoomed'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(20);
    expect(s.drawnShare).toBeGreaterThan(0.05);
  });

  it('shows an entity with its links and expands its neighbourhood', async () => {
    await clickLargest();
    // Whatever was clicked (an entity, or the group still selected), follow a member link too.
    const members = await $('[data-testid="members"] button');
    if (await members.isExisting()) await members.click();
    await browser.waitUntil(async () => (await $('[data-testid="details"]').getText()).toLowerCase().includes('links out'), { timeoutMsg: 'no entity details' });
    await $('[data-testid="expand-neighbourhood"]').click();
    await mapSettled();
    await expect($('[data-testid="map-error"]')).not.toBeExisting();
    await screenshot('entity');
  });

  it('highlights a class from the legend', async () => {
    const cls = await $('[data-testid="legend-class"]');
    await cls.click();
    await expect(cls).toHaveElementClass('active');
    await browser.pause(300);
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('legend'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
    await cls.click();
    await expect(cls).not.toHaveElementClass('active');
  });

  it('opens every group of a hub-and-spoke vocabulary whole: no view truncated, none over 1,000 nodes', async () => {
    // 5,000 properties around one class: Louvain cannot split the star, the build splits it by
    // structure into groups of at most 1,000 (docs/semantic-zoom.md).
    await relaunch(path.join(fixtures, 'hub-star.rete'));
    let before = await mapSettled(1);
    const map = await $('[data-testid="map"]');
    // The largest group by the mouse, then each next level from the keyboard (the node nearest
    // the middle of the view, which the opened group fills).
    await clickLargest();
    for (let depth = 0; depth < 6; depth++) {
      const zoom = await $('[data-testid="zoom-in"]');
      if (!(await zoom.isExisting())) break; // an entity: the bottom
      const open = await map.getAttribute('data-open');
      await zoom.click();
      await browser.waitUntil(async () => (await map.getAttribute('data-open')) !== open, { timeoutMsg: 'the group did not open' });
      const now = await mapSettled(1);
      expect(now - before).toBeLessThan(1000);
      before = now;
      const note = await $('[data-testid="map-note"]');
      if (await note.isExisting()) expect(await note.getAttribute('title')).not.toContain('showing the first');
      await browser.pause(800);
      if (depth === 0) {
        // The largest group opened: its children placed by their links, pixels spread over the
        // view with gaps between them, not a disc filled evenly (docs/semantic-zoom.md, Layout).
        const { rect, dpr } = await mapRect();
        const png = await screenshot('hub-star-opened');
        const spread = discOccupancy(png, rect, dpr, colourStats(png, rect, dpr).background);
        console.log(`hub-star opened: ${JSON.stringify(spread)}`);
        expect(spread.drawn).toBeGreaterThan(2000);
        expect(spread.occupancy).toBeLessThan(0.85);
      }
      await browser.keys('m');
      await browser.keys('ArrowRight');
      await $('[data-testid="details-title"]').waitForDisplayed();
      await browser.pause(500);
    }
    expect(await $('[data-testid="expand-neighbourhood"]').isExisting()).toBe(true);
  });

  it('shows the engine error for a damaged file and keeps running', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rete-e2e-'));
    const good = readFileSync(path.join(samples, 'social-1k.rete'));
    const broken = path.join(dir, 'broken.rete');
    writeFileSync(broken, good.subarray(0, Math.floor(good.length / 2)));
    await relaunch(broken);
    const err = await $('[data-testid="error"]');
    await expect(err).toBeDisplayed();
    await expect(err).toHaveText(expect.stringContaining('truncated'));
    await screenshot('error');
    // The window still works: the welcome screen and its buttons are there.
    await expect($('[data-testid="welcome"]')).toBeDisplayed();
    // The start screen, with its error, passes the accessibility audit (axe-core).
    expect(await axeViolations()).toEqual([]);
  });

  it('refuses a file that is not a .rete', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rete-e2e-'));
    const text = path.join(dir, 'data.rete');
    writeFileSync(text, '<http://example.org/a> <http://example.org/b> <http://example.org/c> .\n'.repeat(3));
    const good = path.join(dir, 'good.rete');
    copyFileSync(path.join(samples, 'social-1k.rete'), good);
    // Two files: the bad one's error stays visible while the good one opens after it.
    await relaunch(text, good);
    await expect($('[data-testid="doc-name"]')).toHaveText('good.rete');
    await mapSettled();
    await relaunch(text);
    await expect($('[data-testid="error"]')).toHaveText(expect.stringContaining('not a .rete file'));
  });
});
