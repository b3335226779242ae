// Launch floor: how long this machine takes to put the simplest pages on screen, for scale next
// to the launch benchmark (launch.mjs). Two probes, N launches each, under the same Xvfb + D-Bus
// setup: the app with no file (its start page: the shell, the webview and the UI bundle, no map)
// and WebKitGTK's own MiniBrowser on a static local page (WebKit alone, no Tauri, no app code).
// The pixel watcher takes the settled picture as reference, as in launch.mjs. One JSON line per
// launch on stdout, with the resident memory of the process and of its descendants (WebKit's web
// and network processes) once the page has settled: the memory floor of a WebKit page here.
//
// usage: node e2e/bench/floor.mjs APP RUNS
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBus, startXvfb } from '../display.mjs';
import { processes, tree } from '../procs.mjs';
import { watch } from './watch.mjs';

const [app, runs = '5'] = process.argv.slice(2);
if (!app) throw new Error('usage: node e2e/bench/floor.mjs APP [RUNS]');
const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
// Long enough for either page to settle on this machine (it takes well under a second).
const SETTLE_MS = 3000;

const { proc: xvfb, display } = await startXvfb();
process.env.DISPLAY = display;
const { proc: bus, address } = await startBus();
process.env.DBUS_SESSION_BUS_ADDRESS = address;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'rete-floor-'));
process.env.XDG_CONFIG_HOME = path.join(tmp, 'config');
// A page with text and blocks of colour where the watcher looks (the same rectangle as the map's).
const page = path.join(tmp, 'static.html');
writeFileSync(page, `<!doctype html><html><body style="margin:0;background:#f7f8fb;font:16px sans-serif">
<div style="position:absolute;left:380px;top:150px;width:520px;height:480px">
<h1 style="color:#2f5fb3">A static page</h1><p>Text and blocks of colour for the pixel watcher.</p>
<div style="width:220px;height:140px;background:#e07b39"></div>
<div style="width:160px;height:110px;background:#3b9c5a;margin-top:12px"></div></div></body></html>`);

/**
 * One launch of `cmd args`: ms from spawn to its settled picture first showing, and the resident
 * KiB of the process alone and with its descendants once settled.
 */
async function once(cmd, args) {
  const { seen, stop } = await watch('3', '0.005');
  const spawned = Date.now();
  const child = spawn(cmd, args, { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  stop();
  const shown = await seen.catch((e) => { throw new Error(`${path.basename(cmd)}: ${e.message}`); });
  const rows = tree(processes(), child.pid);
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return {
    shown_ms: shown - spawned,
    app_kib: rows[0]?.[1].rss ?? null,
    total_kib: rows.reduce((a, [, p]) => a + p.rss, 0),
  };
}

try {
  const probes = [['app start page (no file)', app, []]];
  if (existsSync(MINIBROWSER)) probes.push(['WebKitGTK MiniBrowser, static page', MINIBROWSER, [`file://${page}`]]);
  for (const [what, cmd, args] of probes) {
    await once(cmd, args); // warm-up: libraries in the page cache, D-Bus services started
    for (let i = 0; i < Number(runs); i++) process.stdout.write(JSON.stringify({ what, ...(await once(cmd, args)) }) + '\n');
  }
} finally {
  bus.kill();
  xvfb.kill();
}
