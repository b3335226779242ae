// The machine's processes as /proc shows them, for the specs and benchmarks that look at the app's
// process tree (its WebKit web and network processes are its children).
import { readFileSync, readdirSync } from 'node:fs';

/** Every process: pid → its parent, name (`comm`, 15 characters), resident and anonymous KiB. */
export function processes() {
  const procs = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const status = readFileSync(`/proc/${d}/status`, 'utf8');
      const rss = Number((status.match(/VmRSS:\s+(\d+)/) ?? [0, 0])[1]);
      // Anonymous memory (heaps, GL buffers) apart from mapped files (libraries such as LLVM's).
      const anon = Number((status.match(/RssAnon:\s+(\d+)/) ?? [0, 0])[1]);
      const name = (status.match(/Name:\s+(.*)/) ?? [0, '?'])[1];
      procs.set(Number(d), { ppid, rss, anon, name });
    } catch { /* gone */ }
  }
  return procs;
}

/** `pid` and its descendants, parents first: `[pid, process]` pairs from `procs`. */
export function tree(procs, pid) {
  const rows = [];
  const walk = (p) => {
    const q = procs.get(p);
    if (!q) return;
    rows.push([p, q]);
    for (const [c, r] of procs) if (r.ppid === p) walk(c);
  };
  walk(pid);
  return rows;
}
