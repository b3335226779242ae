// End-to-end tests in the real webview: tauri-driver + WebKitWebDriver drive the built app
// (target/app/rete-desktop, copied from the debug Tauri build by .ci/app.sh) under Xvfb, with a
// private D-Bus session bus as a desktop session has.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBus, startXvfb, waitForPort } from './display.mjs';
import { sessionDefaults } from './session.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// A copy made right after the Tauri build: a later plain `cargo build` overwrites target/debug/
// with a dev-mode binary that loads the dev server instead of the bundled UI.
export const app = process.env.RETE_APP ?? path.join(root, 'target', 'app', 'rete-desktop');
export const samples = process.env.RETE_SAMPLES ?? path.join(root, 'samples');
// Files with a pyramid and a schema block (`cargo run -p rete-explore --example fixtures -- DIR`).
export const fixtures = process.env.RETE_FIXTURES ?? path.join(root, 'target', 'app', 'fixtures');
/** The app's build cache in this run (its data folder under the run's XDG_DATA_HOME). */
export const cacheDir = () => path.join(process.env.XDG_DATA_HOME ?? '', 'org.rete.desktop', 'cache');
const driverBin = process.env.TAURI_DRIVER ?? (existsSync(path.join(os.homedir(), '.cargo', 'bin', 'tauri-driver')) ? path.join(os.homedir(), '.cargo', 'bin', 'tauri-driver') : 'tauri-driver');
const out = path.join(root, '.e2e-out');

let xvfb;
let driver;
let bus;

/** Fails the run (never skips a test) when a tool the desktop-integration tests drive is missing. */
function requireTools() {
  const tools = [
    ['xdotool', ['--version'], 'xdotool (apt install xdotool)'],
    ['/usr/bin/python3', ['-c', "import gi; gi.require_version('Gtk', '3.0')"], "Debian's python3-gi with GTK 3 (apt install python3-gi gir1.2-gtk-3.0)"],
    ['dbus-daemon', ['--version'], 'dbus-daemon (apt install dbus-daemon)'],
  ];
  for (const [bin, args, what] of tools) {
    try {
      execFileSync(bin, args, { stdio: 'ignore' });
    } catch {
      throw new Error(`the e2e suite needs ${what}`);
    }
  }
}

/** Whether the app's single-instance D-Bus name (tauri-plugin-single-instance) has an owner. */
function singleInstanceOwned() {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return false;
  try {
    const out = execFileSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner', 'string:org.rete.desktop.SingleInstance'], { encoding: 'utf8' });
    return /boolean true/.test(out);
  } catch {
    return false;
  }
}

/** Resolves once no process of the app under test runs (a closed session's app takes a moment). */
export async function appGone(ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    let running = '';
    try {
      running = execFileSync('pgrep', ['-f', '-x', `${app.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( .*)?`], { encoding: 'utf8' }).trim();
    } catch {
      // pgrep exits 1 when nothing matches. The bus may not have noticed the exit yet: a launch
      // that still sees the single-instance name taken hands its files over and gets no reply.
      if (!singleInstanceOwned()) return;
      running = 'gone, its single-instance name still held on the session bus';
    }
    if (Date.now() > end) throw new Error(`the app is still running (pid ${running}) ${ms} ms after its session closed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const config = {
  // One session at a time (sessionDefaults): tauri-driver listens on fixed ports.
  ...sessionDefaults,
  port: 4444,
  specs: [path.join(root, 'e2e', 'specs', '*.e2e.mjs')],
  capabilities: [{
    maxInstances: 1,
    'tauri:options': { application: app, args: [path.join(samples, 'social-1k.rete')] },
  }],

  async onPrepare() {
    if (!existsSync(app)) throw new Error(`${app} is missing: run \`npm run build:debug\` first`);
    // The benchmarks' runs (e2e/bench/scale.conf.mjs) open their own files: RETE_FIXTURES=none.
    if (fixtures !== 'none' && !['medical-1k.rete', 'vocabularies-slow-shapes.ttl'].every((f) => existsSync(path.join(fixtures, f)))) throw new Error(`${fixtures} lacks fixtures (or has older ones): run \`cargo run -p rete-explore --example fixtures -- ${fixtures}\``);
    requireTools();
    mkdirSync(out, { recursive: true });
    // The app keeps its recent-files list under the config directory: a fresh one per run.
    process.env.XDG_CONFIG_HOME = mkdtempSync(path.join(os.tmpdir(), 'rete-e2e-config-'));
    // …and its build cache of imported RDF files under the data directory (see cacheDir).
    process.env.XDG_DATA_HOME = mkdtempSync(path.join(os.tmpdir(), 'rete-e2e-data-'));
    if (!process.env.DISPLAY) {
      // Our own X server. No WEBKIT_DISABLE_* variables: they leave sigma's canvas blank.
      ({ proc: xvfb, display: process.env.DISPLAY } = await startXvfb());
    }
    ({ proc: bus, address: process.env.DBUS_SESSION_BUS_ADDRESS } = await startBus());
    driver = spawn(driverBin, [], { stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
    return waitForPort(4444, 20_000);
  },

  // Each spec file is a new session: the previous one's app must be gone (see helpers.relaunch).
  async beforeSession() {
    await appGone();
  },

  onComplete() {
    driver?.kill();
    xvfb?.kill();
    bus?.kill();
  },
};
