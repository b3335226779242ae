// The desktop around the app under the suite's Xvfb: xdotool drives the pointer, a GTK drag source
// (tools/drag-source.py) plays the file manager. Shared by the import and shell specs.
import { expect } from '@wdio/globals';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const dragSource = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'drag-source.py');

/** Runs xdotool on the suite's display. */
export async function xdo(...args) {
  const { stdout } = await promisify(execFile)('xdotool', args, { timeout: 30_000 });
  return stdout.trim();
}

/**
 * Focuses the window whose title matches the regular expression `title` (a GTK dialog), once it
 * takes keys (GTK maps a chooser before it does), and returns its id.
 */
export async function focusWindow(title) {
  const id = (await xdo('search', '--sync', '--onlyvisible', '--name', title)).split('\n')[0];
  await browser.pause(500);
  await xdo('windowfocus', '--sync', id);
  await browser.pause(300);
  return id;
}

/** Picks `file` in the open-file chooser titled `title` (a regular expression) by typing its path. */
export async function chooseFile(title, file) {
  await focusWindow(title);
  // The location field takes a typed path (Ctrl+L opens it in GTK's chooser).
  await xdo('key', '--clearmodifiers', 'ctrl+l');
  await browser.pause(200);
  await xdo('type', '--delay', '15', file);
  // The chooser checks a typed path in the background and only then takes Return: retry until
  // it closes.
  await browser.waitUntil(async () => {
    await xdo('key', 'Return');
    await browser.pause(300);
    return !(await xdo('search', '--onlyvisible', '--name', title).catch(() => ''));
  }, { timeout: 10_000, interval: 100, timeoutMsg: `the dialog ${title} did not take the typed path` });
}

/** Saves to `file` in the save chooser titled `title`: a full path typed into the name field. */
export async function saveAs(title, file) {
  await focusWindow(title);
  await xdo('key', '--clearmodifiers', 'ctrl+a');
  await xdo('type', '--delay', '15', file);
  await xdo('key', 'Return');
}

/** Screen geometry of the app's window, found by its title. */
export async function appWindow(title) {
  const id = (await xdo('search', '--sync', '--onlyvisible', '--name', `^${title.replace(/\./g, '\\.')}$`)).split('\n')[0];
  const g = Object.fromEntries((await xdo('getwindowgeometry', '--shell', id)).split('\n').map((l) => l.split('=')));
  return { x: Number(g.X), y: Number(g.Y), width: Number(g.WIDTH), height: Number(g.HEIGHT) };
}

/** Waits for a child process to exit and resolves with its exit code, or with the signal's name
 * when a signal ended it (so a crash reads as SIGSEGV, not as a bare null). */
export function exited(child, ms) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { child.kill(); reject(new Error(`${child.spawnfile} still runs after ${ms} ms`)); }, ms);
    child.on('exit', (code, signal) => { clearTimeout(t); resolve(code ?? signal); });
    child.on('error', (e) => { clearTimeout(t); reject(e); });
  });
}

/** Runs the app once more as a second launch would (from `cwd`, with `args`) and resolves with
 * its exit status; its stderr is printed when it did not exit with 0, to say why. */
export async function secondLaunch(app, args, cwd, ms = 20_000) {
  const child = spawn(app, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: process.env });
  let err = '';
  child.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  const status = await exited(child, ms);
  if (status !== 0) console.error(`second launch ${args.join(' ')} ended with ${status}; its stderr:\n${err}`);
  return status;
}

/** Drags `file` from a GTK drag source (as from a file manager) onto the window's centre. The
 * source sits over the window's top-left corner, so the drop lands on the map. */
export async function drop(win, file) {
  const source = spawn('/usr/bin/python3', [dragSource, String(win.x + 10), String(win.y + 10), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const done = exited(source, 60_000);
  await new Promise((resolve, reject) => {
    source.stdout.on('data', (d) => String(d).includes('ready') && resolve());
    source.on('exit', (code) => reject(new Error(`the drag source exited with ${code} before it was ready`)));
  });
  const from = { x: win.x + 50, y: win.y + 50 };
  const to = { x: win.x + Math.round(win.width / 2), y: win.y + Math.round(win.height / 2) };
  await xdo('mousemove', String(from.x), String(from.y));
  await xdo('mousedown', '1');
  // In steps: GTK starts a drag once the pointer passes its threshold, then tracks the motion.
  for (let i = 1; i <= 12; i++) {
    await xdo('mousemove', String(Math.round(from.x + ((to.x - from.x) * i) / 12)), String(Math.round(from.y + ((to.y - from.y) * i) / 12)));
    await browser.pause(40);
  }
  await browser.pause(300);
  await xdo('mouseup', '1');
  expect(await done).toBe(0);
}

/** The text on the desktop's clipboard, as another application would paste it. */
export async function clipboardText() {
  const { stdout } = await promisify(execFile)('/usr/bin/python3', [path.join(path.dirname(dragSource), 'read-clipboard.py')], { timeout: 30_000 });
  return stdout;
}
