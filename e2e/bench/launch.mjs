// Launch benchmark probe: starts the app on a file N times, the way a double-click does (no
// WebDriver in between), and times process spawn → the first frame showing the top level. The app
// prints the moment of that frame with its own marks (RETE_LAUNCH_TRACE=1, see src-tauri
// launch_drawn); a watcher polling the X screen's pixels notes when the map actually shows, which
// is the number that counts. One JSON line per launch on stdout.
//
// usage: node e2e/bench/launch.mjs APP FILE RUNS
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startSession } from '../display.mjs';
import { watch } from './watch.mjs';

const [app, file, runs = '5'] = process.argv.slice(2);
if (!app || !file) throw new Error('usage: node e2e/bench/launch.mjs APP FILE [RUNS]');

const { xvfb, bus } = await startSession();

// After the app reports its first frame, the screen is left this long to settle; the watcher then
// takes the last picture as the reference and reports when it first showed.
const SETTLE_MS = 1500;

/** One launch: resolves with the app's trace line, the spawn time and when the map showed. */
async function launch() {
  const { seen: shown, stop } = await watch();
  shown.catch(() => {}); // handled below, once the app has drawn
  return new Promise((resolve, reject) => {
    const spawned = Date.now();
    const child = spawn(app, [path.resolve(file)], { env: { ...process.env, RETE_LAUNCH_TRACE: '1' }, stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => { child.kill('SIGKILL'); stop(); reject(new Error('no frame after 60 s')); }, 60_000);
    let out = '';
    let traced = false;
    const onExit = (code) => { clearTimeout(timer); stop(); reject(new Error(`the app exited with ${code} before drawing`)); };
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && !traced) {
        traced = true;
        clearTimeout(timer);
        child.off('exit', onExit);
        setTimeout(stop, SETTLE_MS);
        shown.then((at) => resolve({ child, spawned, shown: at, trace: JSON.parse(line) }), reject);
      }
    });
    child.on('exit', onExit);
    child.on('error', reject);
  });
}

try {
  // A warm-up launch, not counted: it starts what a desktop session already runs (the
  // accessibility bus, the desktop portal: D-Bus activates them on first use) and fills the
  // page cache, so every counted launch is a launch into a running session.
  for (let i = -1; i < Number(runs); i++) {
    const { child, spawned, shown, trace } = await launch();
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exited;
    if (i < 0) continue;
    const row = {
      launch_to_shown_ms: shown - spawned,
      launch_to_drawn_ms: trace.drawn_unix_ms - spawned,
      process_to_drawn_ms: trace.since_start_ms,
      // exec → the process's clock starting (dynamic loading, before main).
      spawn_to_process_ms: Math.round(trace.drawn_unix_ms - spawned - trace.since_start_ms),
      shell_ms: trace.shell_ms,
      page_origin_ms: trace.page_origin_ms,
      page_ms: trace.page_ms,
    };
    process.stdout.write(JSON.stringify(row) + '\n');
  }
} finally {
  bus.kill();
  xvfb.kill();
}
