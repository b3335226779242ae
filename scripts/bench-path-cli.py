"""`rete path` from the command line on a social graph, next to networkx (issue 49).

Usage: python3 scripts/bench-path-cli.py RETE FILE.nt FILE.rete PAIRS > docs/benchmark-path-cli.json
  RETE       the release `rete` binary
  FILE.nt    the N-Triples the .rete was built from (`rete generate social --people 125000`)
PAIRS random pairs of subjects (seed 49). Per pair, one `rete path -k 1 --json` and one `-k 5`
process (a fresh open each: block cache cold, OS page cache warm; `stats.millis` is the search
inside the process, `first_wall_ms` the whole process), then networkx's
bidirectional_shortest_path on the same links in memory (median of 3): entity-to-entity triples
without rdf:type, rdfs:* and owl:* predicates. Prints JSON: p50 and p95 of each, whether the
lengths agree, and every pair. The in-process benchmark is `rete-path-bench` (crates/rete-bench).
"""
import json, random, subprocess, sys, time, statistics
import networkx as nx
rete, nt, rfile, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
SCHEMA = ("<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>",)
g = nx.Graph(); subjects = []
t = time.perf_counter()
with open(nt) as f:
    for line in f:
        s, p, o = line.rstrip(" .\n").split(" ", 2)
        if not subjects or subjects[-1] != s: subjects.append(s)
        if o.startswith('"') or p in SCHEMA or "2002/07/owl#" in p or "rdf-schema#" in p or s == o: continue
        g.add_edge(s, o)
load = time.perf_counter() - t
subjects = sorted(set(subjects)); rnd = random.Random(49)
pairs = []
while len(pairs) < n:
    a, b = rnd.choice(subjects), rnd.choice(subjects)
    if a != b: pairs.append((a, b))
res = []
for a, b in pairs:
    r = {}
    for k in (1, 5):
        t = time.perf_counter()
        out = subprocess.run([rete, "path", rfile, a, b, "-k", str(k), "--json"], capture_output=True, text=True, check=True)
        wall = (time.perf_counter() - t) * 1e3
        j = json.loads(out.stdout)
        r[k] = (j["stats"]["millis"], wall, j["paths"][0]["hops"] if j["paths"] else None, j["stop"])
    ts = []
    for _ in range(3):
        t = time.perf_counter()
        try: L = len(nx.bidirectional_shortest_path(g, a, b)) - 1
        except nx.NetworkXNoPath: L = None
        ts.append((time.perf_counter() - t) * 1e3)
    if L is not None and L > 6: L = None
    res.append({"first_ms": r[1][0], "first_wall_ms": r[1][1], "k5_ms": r[5][0], "len": r[1][2], "nx_len": L, "nx_ms": sorted(ts)[1], "stop": r[1][3]})
def pct(v, q): v = sorted(v); return v[round((len(v) - 1) * q)]
summary = {k: (pct([x[k] for x in res], .5), pct([x[k] for x in res], .95)) for k in ("first_ms", "first_wall_ms", "k5_ms", "nx_ms")}
summary["lengths_equal"] = all(x["len"] == x["nx_len"] for x in res)
summary["connected"] = sum(x["len"] is not None for x in res)
summary["nx_load_s"] = load; summary["nx_nodes"] = g.number_of_nodes(); summary["nx_edges"] = g.number_of_edges()
print(json.dumps({"summary": summary, "pairs": res}, indent=1))
