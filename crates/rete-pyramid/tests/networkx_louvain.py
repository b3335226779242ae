"""Reference Louvain for rete-pyramid's tests: networkx's louvain_communities, seeded.

Usage: networkx_louvain.py EDGES PARTITION RESOLUTION SEED
  EDGES      lines "a<TAB>b<TAB>weight" (entity term ids; undirected)
  PARTITION  lines "entity<TAB>community" (our finest level)
Prints JSON: the reference partition's modularity and size, and networkx's modularity of ours.
Exits with status 3 if networkx is not installed.
"""

import json
import sys
from pathlib import Path

# The guard shared with the other reference scripts; no bytecode left in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
from require_package import require  # noqa: E402

nx = require("networkx")

edges_path, partition_path, resolution, seed = sys.argv[1:5]
resolution = float(resolution)

g = nx.Graph()
with open(edges_path) as f:
    for line in f:
        a, b, w = line.split("\t")
        g.add_edge(int(a), int(b), weight=int(w))

reference = nx.community.louvain_communities(
    g, weight="weight", resolution=resolution, seed=int(seed)
)
q_reference = nx.community.modularity(g, reference, weight="weight", resolution=resolution)

ours = {}
with open(partition_path) as f:
    for line in f:
        e, c = line.split("\t")
        e = int(e)
        # Entities without links are not in the edge list, hence not in g.
        if e in g:
            ours.setdefault(int(c), set()).add(e)
q_ours = nx.community.modularity(g, list(ours.values()), weight="weight", resolution=resolution)

print(
    json.dumps(
        {
            "networkx_version": nx.__version__,
            "reference": q_reference,
            "reference_communities": len(reference),
            "ours": q_ours,
            "ours_communities": len(ours),
        }
    )
)
