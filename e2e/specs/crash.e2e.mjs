// The webview's process ending must not leave the window blank: on machines without a GPU WebKit
// composites in Mesa's software GL, which has crashed that process during long explorations. The
// app loads the page again and reopens the document. WebDriver's session ends with its page, so
// this spec runs an app of its own (no WebDriver) on its own X server and session bus, and judges
// it by the app's launch trace (one line per page that drew its first view) and the screen's pixels.
import { expect } from '@wdio/globals';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSession } from '../display.mjs';
import { processes, tree } from '../procs.mjs';
import { app, fixtures, samples } from '../wdio.conf.mjs';

const counter = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'count-colours.py');
// The map's middle: the window sits at the screen's origin (no window manager).
const MAP = ['420', '180', '440', '440'];
const colours = () => Number(execFileSync('/usr/bin/python3', [counter, ...MAP]).toString().trim());
// The band under the toolbar where the page's notice shows, and the notice's background there.
const NOTICE = ['0', '66', '1000', '32', 'fff6dc'];
const noticePixels = () => Number(execFileSync('/usr/bin/python3', [counter, ...NOTICE]).toString().trim());

/** The app's web process (WebKit names it `WebKitWebProcess`; the name keeps 15 characters). */
function webProcess(pid) {
  return tree(processes(), pid).find(([, p]) => p.name.startsWith('WebKitWebProces'))?.[0];
}

/** Resolves when `pred()` holds, checked now and on each chunk of `stream`; rejects after `ms`. */
function until(stream, pred, ms, what, shown) {
  return new Promise((resolve, reject) => {
    if (pred()) return resolve();
    const timer = setTimeout(() => { stream.off('data', on); reject(new Error(`${what} not seen within ${ms} ms:\n${shown()}`)); }, ms);
    const on = () => {
      // The app's own listener (added first) has appended this chunk already.
      if (pred()) { clearTimeout(timer); stream.off('data', on); resolve(); }
    };
    stream.on('data', on);
  });
}

// The trace's lines of a first view drawn (an import prints its own JSON line too).
const drawnLines = (text) => text.split('\n').filter((l) => l.startsWith('{') && l.includes('"drawn_unix_ms"')).length;

/**
 * Starts the app on `file`, kills its web process once the first view is drawn, and checks the
 * page comes back with the same document (named by the file the user opened: for an RDF file,
 * never its build in the cache, which the page was never granted) and says what happened.
 */
async function crashAndReload(file, env = {}) {
  const { xvfb, bus } = await startSession();
  const child = spawn(app, [file], {
    env: { ...process.env, RETE_LAUNCH_TRACE: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  try {
    await until(child.stdout, () => drawnLines(out) >= 1, 120_000, 'the first view drawn', () => out + err);
    await browser.pause(1000);
    expect(colours()).toBeGreaterThan(30);
    expect(noticePixels()).toBe(0);
    const web = webProcess(child.pid);
    expect(web).toBeGreaterThan(0);
    process.kill(web, 'SIGKILL');
    // The page loads again, opens the file again and draws its first view: a second trace line.
    await until(child.stdout, () => drawnLines(out) >= 2, 120_000, 'the view drawn again', () => out + err);
    expect(err).toContain("the webview's process ended");
    expect(err).toContain(`loading the page again with ${file}`);
    const again = webProcess(child.pid);
    expect(again).toBeGreaterThan(0);
    expect(again).not.toBe(web);
    await browser.pause(1000);
    expect(colours()).toBeGreaterThan(30);
    // The page says what happened (a banner under the toolbar) and the map is drawn under it.
    expect(noticePixels()).toBeGreaterThan(100);
    expect(child.exitCode).toBe(null);
  } finally {
    child.kill('SIGKILL');
    bus.kill();
    xvfb.kill();
  }
}

describe('a crashed webview', function () {
  // The Turtle case builds its file in the debug app first.
  this.timeout(300_000);

  it('is loaded again with the document it showed', async () => {
    await crashAndReload(path.join(fixtures, 'social-1k.rete'));
  });

  it('is loaded again with an imported Turtle document, opened from its source', async () => {
    const cache = mkdtempSync(path.join(tmpdir(), 'rete-crash-cache-'));
    try {
      await crashAndReload(path.join(samples, 'medical-1k.ttl'), { RETE_CACHE_DIR: cache });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
