// The X server and the D-Bus session bus the e2e suite and the launch benchmark run the app in.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Starts Xvfb on a display number it picks itself (-displayfd), so suites of other users of this
 * machine cannot collide with it. WebGL renders in software through Mesa. Resolves with the
 * process and its display (`:N`).
 */
export function startXvfb(size = '1400x900x24') {
  return new Promise((resolve, reject) => {
    const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', size, '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
    let out = '';
    proc.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ proc, display: `:${out.trim()}` });
    });
    proc.on('error', reject);
    proc.on('exit', (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
}

/**
 * Starts a private D-Bus session bus (a desktop session has one: tauri-plugin-single-instance
 * hands a second launch over on it). Start it after DISPLAY is set: services it starts on demand
 * (portals, accessibility) inherit it. Resolves with the process and its address.
 */
export function startBus() {
  return new Promise((resolve, reject) => {
    const proc = spawn('dbus-daemon', ['--session', '--nofork', '--nopidfile', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ proc, address: out.trim() });
    });
    proc.on('error', reject);
    proc.on('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
  });
}

/**
 * The session of a benchmark probe: Xvfb and a session bus, this process pointed at both, and a
 * fresh config directory (the user's recent-files list stays untouched). Resolves with the Xvfb
 * and bus processes.
 */
export async function startSession() {
  const { proc: xvfb, display } = await startXvfb();
  process.env.DISPLAY = display;
  const { proc: bus, address } = await startBus();
  process.env.DBUS_SESSION_BUS_ADDRESS = address;
  process.env.XDG_CONFIG_HOME = mkdtempSync(path.join(os.tmpdir(), 'rete-bench-config-'));
  return { xvfb, bus };
}

/** Resolves once something listens on 127.0.0.1:`port` (a WebDriver server starting). */
export function waitForPort(port, ms) {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(); });
      s.on('error', () => (Date.now() > end ? reject(new Error(`nothing listens on ${port}`)) : setTimeout(attempt, 200)));
    };
    attempt();
  });
}
