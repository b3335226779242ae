"""Reference path lengths for rete-path's tests, from networkx.

Usage: networkx_paths.py NTRIPLES PAIRS K MAX_HOPS [VIA]
  NTRIPLES  the file's triples, one N-Triples line each
  PAIRS     lines "a<TAB>b" (terms in N-Triples syntax)
  VIA       comma-separated predicate IRIs (<...>): only those links
The graph: one undirected edge per triple between two non-literal terms, schema predicates
(rdf:type, rdfs:subClassOf, rdfs:subPropertyOf, rdfs:domain, rdfs:range, owl:* but owl:sameAs)
left out unless named in VIA. Prints JSON, one object per pair: the shortest path length (null
when none) and the lengths of the first K simple paths of at most MAX_HOPS edges, in order.
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

nt_path, pairs_path, k, max_hops = sys.argv[1:5]
k, max_hops = int(k), int(max_hops)
via = set(sys.argv[5].split(",")) if len(sys.argv) > 5 and sys.argv[5] else None

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
SCHEMA = {
    f"<{RDF}type>",
    f"<{RDFS}subClassOf>",
    f"<{RDFS}subPropertyOf>",
    f"<{RDFS}domain>",
    f"<{RDFS}range>",
}


def schema(p):
    return p in SCHEMA or (p.startswith(f"<{OWL}") and p != f"<{OWL}sameAs>")


def term(line, i):
    """The IRI or blank node starting at line[i], and the index after it."""
    end = line.index(">", i) + 1 if line[i] == "<" else line.index(" ", i)
    return line[i:end], end


g = nx.Graph()
with open(nt_path, encoding="utf-8") as f:
    for line in f:
        line = line.strip()
        if not line:
            continue
        s, i = term(line, 0)
        p, i = term(line, i + 1)
        o = line[i + 1 :].strip()
        if o.endswith(" ."):
            o = o[:-2].strip()
        if o.startswith('"') or s == o:
            continue
        if via is not None:
            if p not in via:
                continue
        elif schema(p):
            continue
        g.add_edge(s, o)

out = []
with open(pairs_path, encoding="utf-8") as f:
    for line in f:
        a, b = line.rstrip("\n").split("\t")
        if a not in g or b not in g or not nx.has_path(g, a, b):
            out.append({"shortest": None, "lengths": []})
            continue
        lengths = []
        for path in nx.shortest_simple_paths(g, a, b):
            if len(path) - 1 > max_hops or len(lengths) == k:
                break
            lengths.append(len(path) - 1)
        out.append({"shortest": nx.shortest_path_length(g, a, b), "lengths": lengths})
print(json.dumps({"networkx_version": nx.__version__, "pairs": out}))
