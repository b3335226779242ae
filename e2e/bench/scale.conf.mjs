// The app benchmarks' runs (scripts/bench-scale-app.sh, scripts/bench-search-app.sh): the e2e
// setup (Xvfb, session bus, tauri-driver) with one spec, e2e/bench/scale.e2e.mjs (or
// RETE_SCALE_SPEC, another spec of this folder), on a big file. Run it under
// `flock /work/wt/e2e.lock` like every app run: tauri-driver's ports are fixed.
// env: RETE_SCALE_FILE (the .rete, a path or an http(s) URL), RETE_SCALE_OUT (JSON written), EXPLORE_S, RETE_SCALE_PEOPLE.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// The e2e suite's fixtures do not concern these runs: they open their own files. Set before the
// configuration is loaded, which reads it once.
process.env.RETE_FIXTURES = 'none';
const { config: base } = await import('../wdio.conf.mjs');
const file = process.env.RETE_SCALE_FILE;
if (!file) throw new Error('RETE_SCALE_FILE: the .rete file to explore');

export const config = {
  ...base,
  specs: [path.join(here, process.env.RETE_SCALE_SPEC ?? 'scale.e2e.mjs')],
  capabilities: [{ maxInstances: 1, 'tauri:options': { application: base.capabilities[0]['tauri:options'].application, args: [/^https?:\/\//.test(file) ? file : path.resolve(file)] } }],
  // The exploration lasts EXPLORE_S seconds; a cold 100 M file may take minutes to draw.
  mochaOpts: { ui: 'bdd', timeout: (Number(process.env.EXPLORE_S ?? 300) + 900) * 1000 },
  waitforTimeout: 120_000,
};
