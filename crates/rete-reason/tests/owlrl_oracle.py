"""Reference closure for rete-reason's tests, computed by the owlrl package (RDFLib).

usage: owlrl_oracle.py {rdfs|owlrl} INPUT.nt CLOSURE.nt BACKGROUND.nt

Writes the full deductive closure of INPUT (input triples included) and the closure of an empty
graph (the axiomatic triples owlrl adds whatever the input) as N-Triples. Filtering to the rules
rete-reason implements happens in the Rust test, where it is spelled out.
"""

import sys

try:
    import owlrl
    from rdflib import Graph, Literal
except ImportError as e:  # pragma: no cover - reported by the Rust test
    sys.stderr.write(f"missing Python package: {e}. Install with: pip install owlrl\n")
    sys.exit(3)


def closure(mode, graph):
    semantics = {"rdfs": owlrl.RDFS_Semantics, "owlrl": owlrl.OWLRL_Semantics}[mode]
    owlrl.DeductiveClosure(
        semantics, axiomatic_triples=False, datatype_axioms=False
    ).expand(graph)
    return graph


def write(graph, path):
    # N-Triples cannot express generalized triples (literal subjects, from rdfs3/prp-rng on
    # literal values, eq-ref on literals, dt-type2): they are left out here. rete-reason never
    # derives them either (it reasons over RDF, not generalized RDF).
    out = Graph()
    for t in graph:
        if not isinstance(t[0], Literal) and not isinstance(t[1], Literal):
            out.add(t)
    out.serialize(destination=path, format="nt", encoding="utf-8")


def main():
    mode, src, out, background = sys.argv[1:5]
    g = Graph()
    g.parse(src, format="nt")
    write(closure(mode, g), out)
    write(closure(mode, Graph()), background)


if __name__ == "__main__":
    main()
