// Starts the pixel watcher (e2e/tools/watch-pixels.py) over the map's rectangle, for the launch
// benchmark and its scale probes.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const watcher = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'watch-pixels.py');
// The map's middle: the window sits at the screen's origin (no window manager).
const MAP = ['420', '180', '440', '440'];

/** Resolves once the watcher polls, with `stop()` (ends the watch: the last picture becomes the
 * reference) and `seen`, wrapped (a promise resolved with a promise would wait for it): the
 * promise of the Unix ms at which that picture first showed. `extra`: the watcher's optional
 * MIN_COLOURS and MIN_SHARE. */
export function watch(...extra) {
  return new Promise((resolve, reject) => {
    const w = spawn('/usr/bin/python3', [watcher, ...MAP, '60', ...extra], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let ready = false;
    const seen = new Promise((res, rej) => {
      w.on('exit', (code) => (code === 0 ? res(Number(out.trim().split('\n').pop())) : rej(new Error(`nothing settled on screen (watcher exit ${code})`))));
    });
    w.stdout.on('data', (d) => {
      out += d;
      if (!ready && out.includes('ready')) { ready = true; resolve({ seen, stop: () => w.stdin.end() }); }
    });
    w.on('error', reject);
  });
}
