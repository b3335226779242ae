// Import benchmark probe: starts the app on an RDF file N times, the way a double-click does (no
// WebDriver in between), each time with an empty build cache, and times process spawn → the map
// on screen (a watcher polling the X screen's pixels). The app's trace (RETE_LAUNCH_TRACE=1) gives
// the build's phases (one `{"import": …}` line) and the first frame after it (the launch line).
// One JSON line per launch on stdout.
//
// usage: node e2e/bench/import.mjs APP FILE RUNS
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSession } from '../display.mjs';
import { watch } from './watch.mjs';

const [app, file, runs = '3'] = process.argv.slice(2);
if (!app || !file) throw new Error('usage: node e2e/bench/import.mjs APP FILE [RUNS]');

const { xvfb, bus } = await startSession();

const SETTLE_MS = 1500;
const LIMIT_MS = 600_000;

/** One launch into an empty cache: the trace lines, the spawn time and when the map showed. */
async function launch() {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'rete-bench-cache-'));
  const { seen: shown, stop } = await watch();
  shown.catch(() => {});
  return new Promise((resolve, reject) => {
    const spawned = Date.now();
    const child = spawn(app, [path.resolve(file)], { env: { ...process.env, RETE_LAUNCH_TRACE: '1', RETE_CACHE_DIR: cache }, stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => { child.kill('SIGKILL'); stop(); reject(new Error(`no frame after ${LIMIT_MS / 1000} s`)); }, LIMIT_MS);
    let out = '';
    let done = false;
    const onExit = (code) => { clearTimeout(timer); stop(); reject(new Error(`the app exited with ${code} before drawing`)); };
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      const imported = lines.find((l) => l.import);
      const trace = lines.find((l) => l.drawn_unix_ms);
      if (imported && trace && !done) {
        done = true;
        clearTimeout(timer);
        child.off('exit', onExit);
        setTimeout(stop, SETTLE_MS);
        const cleanup = () => rmSync(cache, { recursive: true, force: true });
        shown.then((at) => resolve({ child, spawned, shown: at, trace, imported: imported.import, cleanup }), reject);
      }
    });
    child.on('exit', onExit);
    child.on('error', reject);
  });
}

try {
  for (let i = 0; i < Number(runs); i++) {
    const { child, spawned, shown, trace, imported, cleanup } = await launch();
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exited;
    cleanup();
    const shell = trace.shell_ms;
    const row = {
      file: path.basename(file),
      source_bytes: imported.source_bytes,
      triples: imported.triples,
      launch_to_shown_ms: shown - spawned,
      launch_to_drawn_ms: trace.drawn_unix_ms - spawned,
      build_ms: Math.round(imported.elapsed_ms),
      phases_ms: Object.fromEntries(imported.phases.map(([p, ms]) => [p, Math.round(ms)])),
      // Process start → the build began (shell and page up, file handed over).
      before_build_ms: shell['import-start'],
      // The build done → the map's first frame (open the built file, top level, sigma).
      first_frame_ms: Math.round(trace.since_start_ms - shell['import-built']),
    };
    process.stdout.write(JSON.stringify(row) + '\n');
  }
} finally {
  bus.kill();
  xvfb.kill();
}
