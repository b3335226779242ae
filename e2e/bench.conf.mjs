// Launch benchmark (not a test): launch the app on one file and time until the map's top level is
// drawn. `scripts/bench-app.sh` runs it several times; see docs/BENCHMARK.md.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, config as base } from './wdio.conf.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = process.env.RETE_BENCH_FILE;
if (!file) throw new Error('set RETE_BENCH_FILE to the .rete file to open');

export const config = {
  ...base,
  specs: [path.join(root, 'e2e', 'bench', 'launch.bench.mjs')],
  capabilities: [{ maxInstances: 1, 'tauri:options': { application: app, args: [file] } }],
  // The clock starts before the session launches the app.
  beforeSession() {
    globalThis.__launchStart = Date.now();
  },
};
