// YASGUI (the query page many SPARQL users work in) against `rete serve`, in a real browser: a
// query typed into its editor, run, and its results table drawn with the CLI's answer.
import { expect } from '@wdio/globals';
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rete, samples, yasguiBuild } from '../wdio.browser.conf.mjs';
import { colourStats, screenshot } from '../specs/helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const QUERY = 'PREFIX foaf: <http://xmlns.com/foaf/0.1/>\nSELECT ?name ?age WHERE { ?p foaf:name ?name ; foaf:age ?age } ORDER BY ?name LIMIT 12';

/** Serves the page and YASGUI's bundle on 127.0.0.1; resolves with the server and its origin. */
function pageServer() {
  const files = { '/': [path.join(here, 'yasgui.html'), 'text/html'], '/yasgui/yasgui.min.js': [path.join(yasguiBuild, 'yasgui.min.js'), 'text/javascript'], '/yasgui/yasgui.min.css': [path.join(yasguiBuild, 'yasgui.min.css'), 'text/css'] };
  const server = http.createServer((req, res) => {
    const f = files[new URL(req.url, 'http://x').pathname];
    if (!f || !existsSync(f[0])) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f[1] });
    createReadStream(f[0]).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

/** Starts `rete serve FILE` on a free port, allowing `origin`; resolves with it and its endpoint. */
function serve(file, origin) {
  const proc = spawn(rete, ['serve', file, '--bind', '127.0.0.1:0', '--cors', origin], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/[^/\s]+\/sparql)/.exec(out);
      if (m) resolve({ proc, endpoint: m[1] });
    });
    proc.on('exit', (code) => reject(new Error(`rete serve exited with ${code}: ${out}`)));
  });
}

describe('YASGUI against rete serve', () => {
  let page;
  let server;

  before(async () => {
    page = await pageServer();
    server = await serve(path.join(samples, 'social-1k.rete'), page.origin);
  });
  after(() => {
    server?.proc.kill('SIGTERM');
    page?.server.close();
  });

  it('runs a query typed into YASGUI and draws the results table with the CLI\'s answer', async () => {
    const cli = execFileSync(rete, ['sparql', path.join(samples, 'social-1k.rete'), QUERY, '--format', 'json'], { encoding: 'utf8' });
    const want = JSON.parse(cli).results.bindings.map((b) => [b.name.value, b.age.value]);
    expect(want.length).toBe(12);

    await browser.url(`${page.origin}/?endpoint=${encodeURIComponent(server.endpoint)}`);
    const editor = await $('.yasqe .CodeMirror');
    await editor.waitForDisplayed();
    // Typed as a user types: into the editor, replacing what YASGUI shows first.
    await editor.click();
    await browser.keys(['Control', 'a']);
    await browser.keys('Backspace');
    // A key at a time: WebKitWebDriver drops the second of two equal keys sent in one sequence
    // ("http://" arrived as "htp:/").
    for (const ch of QUERY) await browser.keys(ch === '\n' ? 'Enter' : ch);
    // The editor closes brackets itself: what it holds is what the user meant.
    const typed = await browser.execute(() => window.yasgui.getTab().getYasqe().getValue());
    expect(typed.replace(/\s+/g, ' ').trim()).toBe(QUERY.replace(/\s+/g, ' '));
    await browser.keys(['Control', 'Enter']);

    await browser.waitUntil(async () => (await $$('.yasr table.dataTable tbody tr')).length === want.length, { timeoutMsg: 'YASGUI did not draw the results table' });
    const cells = await browser.execute(() => [...document.querySelectorAll('.yasr table.dataTable tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
    // YASR's first column numbers the rows; literals are shown with their datatype.
    expect(cells.map((r) => [r[1], r[2].replace(/\^\^.*$/, '').replace(/^"|"$/g, '')])).toEqual(want);

    // Drawn, by its pixels: the table holds text (many colours, a share of ink), not an empty box.
    const table = await $('.yasr table.dataTable');
    const rect = await browser.getElementRect(await table.elementId);
    const dpr = await browser.execute(() => window.devicePixelRatio);
    const png = await screenshot('yasgui');
    const s = colourStats(png, rect, dpr);
    expect(rect.height).toBeGreaterThan(12 * 15);
    expect(s.distinct).toBeGreaterThan(16);
    expect(s.drawnShare).toBeGreaterThan(0.03);
  });
});
