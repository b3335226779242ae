"""networkx's side of rete-path-bench: the graph in memory, bidirectional shortest path per pair.

Usage: networkx_paths.py EDGES PAIRS MAX_HOPS
  EDGES  lines "a<TAB>b" (dictionary ids; one undirected edge per allowed triple)
  PAIRS  lines "a<TAB>b"
Prints JSON: load time, and per pair the length (null: none within MAX_HOPS) and the time of one
warm nx.bidirectional_shortest_path (median of 3).
"""

import json
import sys
import time

import networkx as nx

edges_path, pairs_path, max_hops = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = time.perf_counter()
g = nx.Graph()
with open(edges_path) as f:
    g.add_edges_from(tuple(map(int, line.split("\t"))) for line in f)
load_ms = (time.perf_counter() - t) * 1e3
out = []
with open(pairs_path) as f:
    for line in f:
        a, b = map(int, line.split("\t"))
        times, length = [], None
        for _ in range(3):
            t = time.perf_counter()
            try:
                length = len(nx.bidirectional_shortest_path(g, a, b)) - 1
            except (nx.NetworkXNoPath, nx.NodeNotFound):
                length = None
            times.append((time.perf_counter() - t) * 1e3)
        if length is not None and length > max_hops:
            length = None
        out.append({"length": length, "ms": sorted(times)[1]})
print(json.dumps({"networkx_version": nx.__version__, "nodes": g.number_of_nodes(),
                  "edges": g.number_of_edges(), "load_ms": load_ms, "pairs": out}))
