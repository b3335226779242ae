// The desktop around the window: a second launch handing its file to the running window (single
// instance over D-Bus), a file dragged in from another X client (XDND), the recent-files list
// across restarts, the Open… dialog, and the PNG export through the native save dialog. Real processes and the real
// X protocols under the suite's Xvfb: xdotool moves the pointer and types into the GTK dialog.
import { expect } from '@wdio/globals';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { app, fixtures } from '../wdio.conf.mjs';
import { appWindow, chooseFile, drop, exited, focusWindow, saveAs, secondLaunch, xdo } from './desktop.mjs';
import { clickLargest, colourStats, mapRect, mapSettled, relaunch, screenshot } from './helpers.mjs';

const fx = (name) => path.join(fixtures, name);
const docName = () => $('[data-testid="doc-name"]');

describe('desktop integration', () => {
  it('lists recently opened files after a restart and reopens one', async () => {
    await relaunch(fx('medical-1k.rete'));
    await expect(docName()).toHaveText('medical-1k.rete');
    await relaunch(fx('social-1k.rete'));
    await expect(docName()).toHaveText('social-1k.rete');
    // A new process with no file: the welcome page lists what the previous ones opened.
    await relaunch();
    await expect($('[data-testid="welcome"]')).toBeDisplayed();
    const recent = await $$('[data-testid="recent"]');
    const names = [];
    for (const e of recent) names.push(path.basename(await e.getText()));
    expect(names.slice(0, 2)).toEqual(['social-1k.rete', 'medical-1k.rete']);
    await recent[1].click();
    await expect(docName()).toHaveText('medical-1k.rete');
    expect(await mapSettled(1)).toBeGreaterThan(0);
  });

  it("hands a second launch's file to the running window, which keeps its one window", async () => {
    await relaunch(fx('social-1k.rete'));
    await expect(docName()).toHaveText('social-1k.rete');
    const windows = (await browser.getWindowHandles()).length;
    // As a file manager does on double-click: the same binary, the file relative to its cwd.
    expect(await secondLaunch(app, ['medical-1k.rete'], fixtures)).toBe(0);
    await expect(docName()).toHaveText('medical-1k.rete');
    await expect(docName()).toHaveAttribute('title', fx('medical-1k.rete'));
    expect(await mapSettled(1)).toBeGreaterThan(0);
    expect(await browser.getWindowHandles()).toHaveLength(windows);
  });

  it('opens a file dragged onto the window from another application', async () => {
    await relaunch(fx('social-1k.rete'));
    await expect(docName()).toHaveText('social-1k.rete');
    await mapSettled(1);
    const win = await appWindow('social-1k.rete — Rete');
    await drop(win, fx('medical-1k.rete'));
    await expect(docName()).toHaveText('medical-1k.rete');
    expect(await mapSettled(1)).toBeGreaterThan(0);
  });

  it('opens a file through the Open… dialog; cancelling it keeps the open document', async () => {
    await relaunch(fx('social-1k.rete'));
    await expect(docName()).toHaveText('social-1k.rete');
    await mapSettled(1);
    const title = '^Open a \\.rete or RDF file$';
    // Cancel: nothing changes, no error.
    await $('button=Open…').click();
    await focusWindow(title);
    await xdo('key', 'Escape');
    await browser.waitUntil(async () => !(await $('[data-testid="opening"]').isExisting()), { timeoutMsg: 'the window still waits for the dialog' });
    await expect(docName()).toHaveText('social-1k.rete');
    expect(await $('[data-testid="error"]').isExisting()).toBe(false);
    // A broken file picked in the dialog: its error shows, the open document stays.
    const dir = path.resolve('.e2e-out', 'dialog');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const broken = path.join(dir, 'half.rete');
    const good = readFileSync(fx('medical-1k.rete'));
    writeFileSync(broken, good.subarray(0, Math.floor(good.length / 2)));
    const pick = async (file) => {
      await $('button=Open…').click();
      await chooseFile(title, file);
    };
    await pick(broken);
    await expect($('[data-testid="error"]')).toBeDisplayed();
    await expect($('[data-testid="error"]')).toHaveText(expect.stringContaining('half.rete'));
    await expect($('[data-testid="error"]')).toHaveText(expect.stringContaining('truncated'));
    await expect(docName()).toHaveText('social-1k.rete');
    // A good one: it replaces the open document, and its map is drawn.
    await pick(fx('medical-1k.rete'));
    await expect(docName()).toHaveText('medical-1k.rete');
    expect(await mapSettled(1)).toBeGreaterThan(0);
    const { rect, dpr } = await mapRect();
    const s = colourStats(await screenshot('opened-from-dialog'), rect, dpr);
    expect(s.distinct).toBeGreaterThan(8);
  });

  it('exports the view as a PNG file through the save dialog', async () => {
    await relaunch(fx('social-20k.rete'));
    await expect(docName()).toHaveText('social-20k.rete');
    await mapSettled(2);
    const { rect, dpr } = await mapRect();
    const shown = colourStats(await screenshot('before-export'), rect, dpr);
    const dir = path.resolve('.e2e-out', 'export');
    const file = path.join(dir, 'view.png');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await $('button=Export PNG').click();
    // GTK's save dialog: a full path typed into the name field saves there.
    await saveAs('^Export view$', file);
    await expect($('[data-testid="message"]')).toHaveAttribute('title', `Saved ${file}`);
    await expect($('[data-testid="message"]')).toBeDisplayed();
    expect(existsSync(file)).toBe(true);
    const png = PNG.sync.read(readFileSync(file));
    // The map's size in device pixels, and drawn: the WebGL layers made it into the file.
    expect(png.width).toBe(Math.round(rect.width * dpr));
    expect(png.height).toBe(Math.round(rect.height * dpr));
    const s = colourStats(png, { x: 0, y: 0, width: png.width, height: png.height });
    expect(s.distinct).toBeGreaterThan(8);
    expect(s.drawnShare).toBeGreaterThan(0.02);
    // The same picture as on screen: the same background, a comparable share drawn.
    expect(s.background).toBe(shown.background);
    expect(Math.abs(s.drawnShare - shown.drawnShare)).toBeLessThan(0.15);
  });

  it('saves the view to a file and opens it again; asks before opening a file a view names; refuses a damaged view', async () => {
    const dir = path.resolve('.e2e-out', 'views');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const mine = path.join(dir, 'mine.rete');
    const theirs = path.join(dir, 'theirs.rete');
    copyFileSync(fx('social-1k.rete'), mine);
    copyFileSync(fx('social-1k.rete'), theirs);
    await relaunch(mine);
    await mapSettled(1);
    await clickLargest();
    await $('[data-testid="zoom-in"]').click();
    const map = () => $('[data-testid="map"]');
    await browser.waitUntil(async () => /c\d+:\d+/.test(await map().getAttribute('data-open')), { timeoutMsg: 'the community did not open' });
    await mapSettled();
    const open = await map().getAttribute('data-open');
    // Save view… (Ctrl+Shift+S) and GTK's save dialog.
    await browser.keys(['Control', 'Shift', 's']);
    const file = path.join(dir, 'saved.rete-view.json');
    await saveAs('^Save view$', file);
    await expect($('[data-testid="message"]')).toHaveAttribute('title', `Saved the view to ${file}`);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ format: 'rete-view', version: 1, source: mine });
    // What is open when the view is saved (the semantic zoom may have opened more since).
    expect(saved.open).toEqual(expect.arrayContaining(open.split(' ')));

    // The same view of another file (someone sent it): opening it asks first.
    const sent = path.join(dir, 'sent.rete-view.json');
    writeFileSync(sent, JSON.stringify({ ...saved, source: theirs }));
    const openView = async (f) => {
      await browser.keys(['Control', 'Shift', 'o']);
      await chooseFile('^Open a saved view$', f);
    };
    const ask = async (key) => {
      await focusWindow('^Open a shared view$');
      await xdo('key', key);
    };
    await openView(sent);
    await ask('Escape');
    await expect($('[data-testid="error"]')).toHaveText(expect.stringContaining(`${theirs}: not opened`));
    await expect(docName()).toHaveText('mine.rete');
    await openView(sent);
    await ask('Return');
    await expect(docName()).toHaveText('theirs.rete');
    await browser.waitUntil(async () => (await map().getAttribute('data-open')) === saved.open.join(' '), { timeout: 30_000, timeoutMsg: `the view did not open ${saved.open}` });

    // A damaged view file: where it is wrong, nothing else changes.
    const damaged = path.join(dir, 'damaged.rete-view.json');
    writeFileSync(damaged, '{"format": "rete-view", "version": 1,\n "source": ');
    await openView(damaged);
    await expect($('[data-testid="error"]')).toHaveText(expect.stringContaining(`${damaged}: not a rete view: EOF while parsing a value at line 2, column 11`));
    await expect(docName()).toHaveText('theirs.rete');
  });

  it('prints its launch trace when asked (the launch benchmark\'s probe) and quits', async () => {
    // Its own bus-less instance: with the suite's bus it would hand the file to the window above.
    const env = { ...process.env, RETE_LAUNCH_TRACE: 'exit', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/rete-e2e-bus' };
    const probe = spawn(app, [fx('social-1k.rete')], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    probe.stdout.on('data', (d) => { out += d; });
    expect(await exited(probe, 60_000)).toBe(0);
    const trace = JSON.parse(out.split('\n').find((l) => l.startsWith('{')));
    expect(trace.since_start_ms).toBeGreaterThan(0);
    const m = trace.page_ms;
    for (const k of ['script', 'listening', 'opened', 'map-created', 'top-level', 'drawn']) expect(typeof m[k]).toBe('number');
    expect(m.script).toBeLessThanOrEqual(m.opened);
    expect(m['top-level']).toBeLessThanOrEqual(m.drawn);
  });
});
