// End-to-end tests in the real webview: tauri-driver + WebKitWebDriver drive the built app
// (target/debug/rete-desktop, from `npm run build:debug`) under Xvfb.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// A copy made right after the Tauri build: a later plain `cargo build` overwrites target/debug/
// with a dev-mode binary that loads the dev server instead of the bundled UI.
export const app = process.env.RETE_APP ?? path.join(root, 'target', 'app', 'rete-desktop');
export const samples = process.env.RETE_SAMPLES ?? path.join(root, 'samples');
// Files with a pyramid and a schema block (`cargo run -p rete-desktop --example fixtures -- DIR`).
export const fixtures = process.env.RETE_FIXTURES ?? path.join(root, 'target', 'app', 'fixtures');
const driverBin = process.env.TAURI_DRIVER ?? (existsSync(path.join(os.homedir(), '.cargo', 'bin', 'tauri-driver')) ? path.join(os.homedir(), '.cargo', 'bin', 'tauri-driver') : 'tauri-driver');
const out = path.join(root, '.e2e-out');

let xvfb;
let driver;

function waitForPort(port, ms) {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(); });
      s.on('error', () => (Date.now() > end ? reject(new Error(`nothing listens on ${port}`)) : setTimeout(attempt, 200)));
    };
    attempt();
  });
}

/** Starts Xvfb on a free display and resolves with its number. */
function startXvfb() {
  return new Promise((resolve, reject) => {
    xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1400x900x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
    let out = '';
    xvfb.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    xvfb.on('error', reject);
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
}

export const config = {
  runner: 'local',
  hostname: '127.0.0.1',
  port: 4444,
  specs: [path.join(root, 'e2e', 'specs', '*.e2e.mjs')],
  // tauri-driver listens on fixed ports: one app at a time.
  maxInstances: 1,
  capabilities: [{
    maxInstances: 1,
    'tauri:options': { application: app, args: [path.join(samples, 'social-1k.rete')] },
  }],
  logLevel: 'warn',
  framework: 'mocha',
  reporters: ['spec'],
  mochaOpts: { ui: 'bdd', timeout: 120_000 },
  waitforTimeout: 30_000,
  connectionRetryCount: 2,

  async onPrepare() {
    if (!existsSync(app)) throw new Error(`${app} is missing: run \`npm run build:debug\` first`);
    if (!existsSync(path.join(fixtures, 'medical-1k.rete'))) throw new Error(`${fixtures} has no fixtures: run \`cargo run -p rete-desktop --example fixtures -- ${fixtures}\``);
    mkdirSync(out, { recursive: true });
    if (!process.env.DISPLAY) {
      // Our own X server on a display number it picks itself (-displayfd), so suites of other
      // users of this machine cannot collide with it. WebGL renders in software through Mesa.
      // No WEBKIT_DISABLE_* variables: they leave sigma's canvas blank.
      process.env.DISPLAY = `:${await startXvfb()}`;
    }
    driver = spawn(driverBin, [], { stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
    return waitForPort(4444, 20_000);
  },

  onComplete() {
    driver?.kill();
    xvfb?.kill();
  },
};
