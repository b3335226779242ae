// Community labels in the user's language: the app opens a Turtle file whose members are labelled
// in English, French, German and Japanese; the largest community must be named in the first of the
// webview's languages (`navigator.languages`) that has a label, else English.
import { expect } from '@wdio/globals';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clickLargest, colourStats, mapRect, mapSettled, relaunch, screenshot } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ttl = path.resolve(here, '..', '..', 'crates', 'rete-pyramid', 'tests', 'data', 'multilingual.ttl');
/** The fixture's largest community (the countries) by language. */
const names = { de: 'Deutschland', en: 'Germany', fr: 'Allemagne', ja: 'ドイツ' };

/** The name the shell should pick: each language in order, shortened subtag by subtag. */
function expectedName(languages) {
  for (const tag of languages) {
    let range = tag.toLowerCase();
    while (range) {
      if (names[range]) return names[range];
      const cut = range.lastIndexOf('-');
      range = cut > 0 ? range.slice(0, cut) : '';
    }
  }
  return names.en;
}

describe('labels in the user\'s language', () => {
  it('names the largest community in the webview\'s language', async () => {
    await relaunch(ttl);
    await browser.waitUntil(
      async () => (await browser.execute(() => document.querySelector('[data-testid="doc-name"]')?.textContent?.trim())) === 'multilingual.ttl',
      { timeout: 120_000, interval: 250, timeoutMsg: 'the Turtle file did not open' },
    );
    expect(await mapSettled(4)).toBe(4);
    const languages = await browser.execute(() => [...navigator.languages]);
    console.log(`webview languages: ${languages.join(', ')} → ${expectedName(languages)}`);
    await clickLargest();
    const title = $('[data-testid="details-title"]');
    await expect(title).toBeDisplayed();
    await expect(title).toHaveText(expect.stringContaining(expectedName(languages)));
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('languages'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(3);
    expect(s.drawnShare).toBeGreaterThan(0.01);
  });
});
