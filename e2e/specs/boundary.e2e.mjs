// The webview asks; the shell decides (src-tauri/src/grant.rs): a script in the page that calls
// the open commands itself, with a file the user never chose, is refused by the shell, while the
// files the user handed over (here on the command line) open as before.
import { expect } from '@wdio/globals';
import { copyFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { app, fixtures } from '../wdio.conf.mjs';
import { secondLaunch } from './desktop.mjs';
import { colourStats, mapRect, mapSettled, relaunch, screenshot } from './helpers.mjs';

/** What the page's own script gets from `invoke(cmd, args)`: `{ ok }` or `{ err }`. */
async function scriptInvoke(cmd, args) {
  return browser.execute(async (c, a) => {
    try {
      return { ok: await window.__TAURI_INTERNALS__.invoke(c, a) };
    } catch (e) {
      // The shell's errors are `{kind, message}`.
      return { err: e && typeof e === 'object' && 'message' in e ? e.message : String(e) };
    }
  }, cmd, args);
}

describe('the webview boundary', () => {
  // Copies under names no test ever opened: neither chosen this session nor on the recent list.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rete-boundary-'));
  const chosen = path.join(dir, 'chosen.rete');
  const unchosen = path.join(dir, 'unchosen.rete');
  copyFileSync(path.join(fixtures, 'social-1k.rete'), chosen);
  copyFileSync(path.join(fixtures, 'medical-1k.rete'), unchosen);

  it("refuses a script's open_path of a file the user did not choose; the chosen file opens", async () => {
    await relaunch(chosen);
    const name = $('[data-testid="doc-name"]');
    await expect(name).toHaveText('chosen.rete');
    await mapSettled(1);

    // A readable .rete the user never chose: refused before the shell reads a byte of it.
    const r = await scriptInvoke('open_path', { path: unchosen });
    expect(r.ok).toBeUndefined();
    expect(r.err).toContain(`${unchosen}: not opened`);
    // Any other string fares the same: system files, folders, tricks with `..`.
    for (const p of ['/etc/passwd', dir, `${chosen}/../unchosen.rete`]) {
      const e = await scriptInvoke('open_path', { path: p });
      expect(e.err).toContain('not opened');
    }
    // open_url with something that is not an http(s) URL: refused without asking anyone.
    const u = await scriptInvoke('open_url', { url: `file://${unchosen}` });
    expect(u.err).toContain('not opened');

    // The window still shows the chosen file, drawn.
    await expect(name).toHaveText('chosen.rete');
    // The file the user chose (command line) may be reopened by the page.
    const again = await scriptInvoke('open_path', { path: chosen });
    expect(again.err).toBeUndefined();
    expect(again.ok.name).toBe('chosen.rete');
    // The caches' report (the scale bench reads it) reaches the page, each within its bound.
    const mem = await scriptInvoke('memory_use', {});
    expect(mem.err).toBeUndefined();
    const doc = mem.ok.docs.find((d) => d.doc === again.ok.doc);
    expect(doc.max_pyramid_blocks).toBeGreaterThan(0);
    expect(doc.pyramid_blocks).toBeLessThanOrEqual(doc.max_pyramid_blocks);
    expect(doc.max_block_bytes).toBeGreaterThan(0);
    expect(doc.block_bytes).toBeLessThanOrEqual(doc.max_block_bytes);
    expect(mem.ok.max_kept_results).toBe(3);
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('boundary'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
  });

  it('opens a file once the user hands it over (a second launch), and not before', async () => {
    await expect($('[data-testid="doc-name"]')).toHaveText('chosen.rete');
    expect((await scriptInvoke('open_path', { path: unchosen })).err).toContain('not opened');
    // As a file manager does on double-click: the same binary with the file; it hands the file to
    // this window and exits.
    expect(await secondLaunch(app, [unchosen], dir)).toBe(0);
    await expect($('[data-testid="doc-name"]')).toHaveText('unchosen.rete');
    expect(await mapSettled(1)).toBeGreaterThan(0);
    // Handed over by the user, the file is now the page's to reopen.
    const r = await scriptInvoke('open_path', { path: unchosen });
    expect(r.err).toBeUndefined();
    expect(r.ok.name).toBe('unchosen.rete');
    await mapSettled(1);
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('boundary-handed-over'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(6);
  });
});
