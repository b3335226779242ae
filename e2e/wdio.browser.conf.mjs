// Browser tests: pages our users open against `rete serve` (YASGUI), in a real browser — WebKitGTK's
// MiniBrowser driven by WebKitWebDriver (both come with the WebKit packages the app's e2e suite
// installs) under Xvfb. The `rete` binary is the workspace's debug build.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startXvfb, waitForPort } from './display.mjs';
import { sessionDefaults } from './session.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const rete = process.env.RETE_BIN ?? path.join(root, 'target', 'debug', 'rete');
export const samples = path.join(root, 'samples');
export const yasguiBuild = path.join(root, 'node_modules', '@zazuko', 'yasgui', 'build');
const browser = process.env.RETE_BROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const port = 4445;

let xvfb;
let driver;

export const config = {
  ...sessionDefaults,
  port,
  specs: [path.join(root, 'e2e', 'browser', '*.e2e.mjs')],
  capabilities: [{
    'webkitgtk:browserOptions': { binary: browser, args: ['--automation'] },
  }],

  async onPrepare() {
    for (const [f, what] of [[rete, 'the rete binary: run `cargo build -p rete-cli` first'], [browser, "WebKitGTK's MiniBrowser (apt install libwebkit2gtk-4.1-0)"], [yasguiBuild, 'YASGUI: run `npm ci`']]) {
      if (!existsSync(f)) throw new Error(`the browser suite needs ${what} (${f} is missing)`);
    }
    if (!process.env.DISPLAY) ({ proc: xvfb, display: process.env.DISPLAY } = await startXvfb());
    driver = spawn('WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'], { stdio: ['ignore', 'inherit', 'inherit'] });
    return waitForPort(port, 20_000);
  },

  onComplete() {
    driver?.kill();
    xvfb?.kill();
  },
};
