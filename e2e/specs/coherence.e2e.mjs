import { expect } from '@wdio/globals';
import path from 'node:path';
import { fixtures, samples } from '../wdio.conf.mjs';
import { chooseFile } from './desktop.mjs';
import { colourStats, differing, largestLabel, mapRect, mapSettled, relaunch, screenshot } from './helpers.mjs';

describe('a dataset in named graphs: coherence and queries', () => {
  it('shows the root cause first with its derived classes folded, the source of each step, and lights up their communities', async () => {
    await relaunch(path.join(fixtures, 'vocabularies.rete'));
    await mapSettled();
    const { rect, dpr } = await mapRect();
    const before = colourStats(await screenshot('vocabularies-map'), rect, dpr);
    // Its largest group is named on the first screen, not left blank under its neighbours' labels.
    expect(await largestLabel()).toMatch(/\p{L}/u);
    await $('[data-testid="toggle-coherence"]').click();
    await $('[data-testid="coherence-run"]').click();
    const tiers = await $('[data-testid="coherence-tiers"]');
    await browser.waitUntil(async () => (await tiers.getAttribute('data-done')) === '3', { timeout: 90_000, timeoutMsg: 'the three tiers did not finish' });
    await expect($('[data-testid="coherence-groups"]')).toHaveText('1 root cause · 27 derived · 4 instance findings');
    // The root comes first, its 27 derived classes folded under it.
    const rows = await $$('[data-testid="findings"] > li');
    await expect(rows[0]).toHaveAttribute('data-testid', 'root-cause');
    await expect($('[data-testid="derived-count"]')).toHaveText('27 derived');
    await expect($('[data-testid="derived"]')).not.toBeExisting();
    expect((await $$('[data-testid="derived-class"]')).length).toBe(0);
    // Unfolded, the derived classes are there.
    await $('[data-testid="root-fold"]').click();
    await expect($('[data-testid="root-fold"]')).toHaveAttribute('aria-expanded', 'true');
    expect((await $$('[data-testid="derived-class"]')).length).toBe(27);
    await expect($('[data-testid="derived"]')).toHaveText(expect.stringContaining('dbo:SoccerPlayer'));
    // The root's explanation names the graph each step comes from.
    await $('[data-testid="finding"][data-root="true"]').click();
    const steps = await $('[data-testid="steps"]');
    await expect(steps).toHaveText(expect.stringContaining('schema:Person rdfs:subClassOf gr:BusinessEntity'));
    await expect(steps).toHaveText(expect.stringContaining('<http://example.org/alignments/schema-goodrelations>'));
    await expect(steps).toHaveText(expect.stringContaining('<http://xmlns.com/foaf/0.1/>'));
    await expect($('[data-testid="cause-derived"]')).toHaveText(expect.stringContaining('27 classes are unsatisfiable because of it'));
    // The communities holding the root's and derived classes stand out; the rest is dimmed.
    await browser.pause(400);
    const after = colourStats(await screenshot('coherence-root'), rect, dpr);
    expect(after.distinct).toBeGreaterThan(4);
    expect(after.drawnShare).toBeGreaterThan(0.01);
    await expect($('[data-testid="highlight"]')).toHaveText(expect.stringContaining('dbo:Person'));
    expect(before.distinct).toBeGreaterThan(4);
  });

  it('shows where a long shapes validation is, its bar filling, and stops it on cancel', async () => {
    // Same document. The report panel's Shapes part, with generated shapes whose SPARQL
    // constraint is costly: a debug build takes a minute over them.
    await $('[data-testid="finding"][data-root="true"]').click(); // unselect: the map back to plain
    await expect($('[data-testid="highlight"]')).not.toBeExisting();
    await $('[data-testid="part-shapes"]').click();
    await $('[data-testid="shapes-pick"]').click();
    await chooseFile('^Validate with SHACL shapes$', path.join(fixtures, 'vocabularies-slow-shapes.ttl'));
    // The line and the bar, read in the page at once (each report redraws them).
    const line = /^Validating shape (\d+) of 24 · (\d+) of (\d+) focus nodes · ([\d,]+) results? so far$/;
    const read = async () => {
      const p = await browser.execute(() => {
        const text = document.querySelector('[data-testid="shapes-progress-text"]')?.textContent ?? '';
        const bar = document.querySelector('[data-testid="shapes-progress"]');
        return { text: text.trim(), value: bar ? bar.value : -1 };
      });
      const m = line.exec(p.text);
      return m ? { ...p, shape: Number(m[1]), nodes: Number(m[2]), results: Number(m[4].replace(/,/g, '')) } : null;
    };
    let first = null;
    await browser.waitUntil(async () => (first = await read()) !== null && first.results > 0,
      { timeout: 60_000, interval: 50, timeoutMsg: 'no progress line with focus nodes and results' });
    const barRect = await browser.getElementRect(await $('[data-testid="shapes-progress"]').elementId);
    const dpr = await browser.execute(() => window.devicePixelRatio);
    const early = await screenshot('shapes-progress-early');
    // Read after the screenshot: the bar drawn in it was no further than this.
    const drawn = await browser.execute(() => document.querySelector('[data-testid="shapes-progress"]')?.value ?? 1);
    // Later: further on, more results, and the bar a twentieth fuller.
    let later = null;
    await browser.waitUntil(async () => (later = await read()) !== null && later.value >= drawn + 0.05,
      { timeout: 60_000, interval: 50, timeoutMsg: `the progress stayed at "${first.text}"` });
    const filled = await screenshot('shapes-progress');
    expect(later.shape * 1e6 + later.nodes).toBeGreaterThan(first.shape * 1e6 + first.nodes);
    expect(later.results).toBeGreaterThan(first.results);
    expect(later.text).not.toBe(first.text);
    // The bar is drawn (its fill against its track) and its fill grew.
    expect(colourStats(filled, barRect, dpr).distinct).toBeGreaterThan(2);
    expect(differing(early, filled, barRect, dpr)).toBeGreaterThan(0.01);
    // Cancel: the run ends as cancelled, with no results claimed, and the buttons are back.
    await $('[data-testid="shapes-cancel"]').click();
    await expect($('[data-testid="shapes-summary"]')).toHaveText(expect.stringMatching(/^Cancelled\./), { wait: 30_000 });
    await expect($('[data-testid="shapes-progress"]')).not.toBeExisting();
    await expect($('[data-testid="shapes-error"]')).not.toBeExisting();
    expect((await $$('[data-testid="shapes-group"]')).length).toBe(0);
    await expect($('[data-testid="shapes-pick"]')).toBeClickable();
  });

  it('validates the data with a shapes file picked in the dialog: results grouped by shape and constraint, a group lights up its communities', async () => {
    // Same document, right after a cancelled validation: this one runs to its end.
    await expect($('[data-testid="highlight"]')).not.toBeExisting();
    await $('[data-testid="part-shapes"]').click();
    const { rect, dpr } = await mapRect();
    await browser.pause(300);
    const plain = await screenshot('shapes-before');
    await $('[data-testid="shapes-pick"]').click();
    await chooseFile('^Validate with SHACL shapes$', path.join(samples, 'vocabularies-shapes.ttl'));
    await expect($('[data-testid="shapes-summary"]')).toHaveText(expect.stringMatching(/[1-9][\d,]* results? in [1-9]\d* groups?/i), { wait: 60_000 });
    const groups = await $$('[data-testid="shapes-group"]');
    expect(groups.length).toBeGreaterThan(0);
    await groups[0].click();
    await expect($('[data-testid="highlight"]')).toBeDisplayed();
    await expect($('[data-testid="shapes-explanation"]')).toHaveText(expect.stringContaining('highlighted on the map'));
    await browser.pause(600);
    const lit = await screenshot('shapes');
    // The group's communities stand out, the rest is dimmed: the map's pixels changed.
    expect(differing(plain, lit, rect, dpr)).toBeGreaterThan(0.01);
    expect(colourStats(lit, rect, dpr).distinct).toBeGreaterThan(4);
    await $('[data-testid="part-coherence"]').click();
    await $('[data-testid="toggle-coherence"]').click();
  });

  it("answers the pane's first example over all graphs, and says why the default graph alone is empty", async () => {
    // Same document: its data is in named graphs, nothing in the default graph.
    if (!(await $('[data-testid="query-pane"]').isExisting())) await $('[data-testid="toggle-query"]').click();
    const graphs = await $('[data-testid="query-graphs"]');
    await graphs.waitForDisplayed();
    await expect(graphs).toHaveValue('all');
    await $('[data-testid="query-run"]').click();
    // The summary line is redrawn with each answer: read it afresh each time.
    const summary = async () => {
      const e = await $('[data-testid="query-summary"]');
      return (await e.isExisting()) ? e.getText() : '';
    };
    await browser.waitUntil(async () => /^[1-9][\d,]* rows/.test(await summary()),
      { timeout: 30_000, timeoutMsg: 'the first example gave no rows over all graphs' });
    expect((await $$('[data-testid="result-row"]')).length).toBeGreaterThan(0);
    // Only the default graph: nothing, and the pane says why and offers the way back.
    await graphs.selectByAttribute('value', 'default');
    await $('[data-testid="query-run"]').click();
    await browser.waitUntil(async () => (await summary()).startsWith('0 rows'), { timeout: 30_000, timeoutMsg: 'no empty answer over the default graph' });
    const hint = await $('[data-testid="query-hint"]');
    await expect(hint).toHaveText(expect.stringContaining('The default graph is empty'));
    await $('[data-testid="query-hint-switch"]').click();
    await browser.waitUntil(async () => /^[1-9][\d,]* rows/.test(await summary()), { timeout: 30_000, timeoutMsg: 'switching back gave no rows' });
    await expect(graphs).toHaveValue('all');
    await expect($('[data-testid="query-hint"]')).not.toBeExisting();
  });
});
