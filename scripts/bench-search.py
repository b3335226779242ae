"""SQLite FTS5 on the labels search_bench wrote: the embedded full-text anchor of the search
benchmark (scripts/bench-search.sh). Prefix queries (`w1* w2*`), ranked by bm25, 10 hits;
times each query warm with Python's sqlite3 (the statement cost, not Python's loop: each query
is timed around execute + fetchall). Then, with pyoxigraph (pip install pyoxigraph==0.5.13),
what a user writes today in SPARQL on the same labels in Oxigraph's in-memory store:
`FILTER(CONTAINS(LCASE(?l), "w"))` per word, 10 hits, no ranking (every label is read)."""

import json
import os
import sqlite3
import sys
import tempfile
import time
import unicodedata


def fts_query(q):
    words = ["".join(c for c in w if c.isalnum()) for w in q.split()]
    words = [w for w in words if w]
    return " ".join('"%s"*' % w for w in words)


def main():
    labels_tsv, queries_txt, out_json = sys.argv[1:4]
    d = tempfile.mkdtemp()
    db = os.path.join(d, "fts.db")
    c = sqlite3.connect(db)
    c.execute("CREATE VIRTUAL TABLE t USING fts5(term UNINDEXED, label, tokenize='unicode61 remove_diacritics 2')")
    with open(labels_tsv, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line]
    t0 = time.perf_counter()
    c.executemany("INSERT INTO t(term, label) VALUES (?, ?)", rows)
    c.commit()
    c.execute("INSERT INTO t(t) VALUES ('optimize')")
    c.commit()
    build_s = time.perf_counter() - t0
    size = os.path.getsize(db)
    with open(queries_txt, encoding="utf-8") as f:
        queries = [q for q in f.read().split("\n") if q]
    sql = "SELECT term, label FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10"
    for q in queries:
        fq = fts_query(q)
        if fq:
            c.execute(sql, (fq,)).fetchall()
    times = []
    top = []
    for q in queries:
        fq = fts_query(q)
        if not fq:
            continue
        t = time.perf_counter()
        r = c.execute(sql, (fq,)).fetchall()
        times.append((time.perf_counter() - t) * 1e3)
        top.append({"query": q, "labels": [x[1] for x in r]})
    times.sort()
    pct = lambda p: times[round((len(times) - 1) * p)]
    out = {
        "engine": "SQLite FTS5 " + sqlite3.sqlite_version,
        "rows": len(rows),
        "index_bytes": size,
        "build_s": build_s,
        "queries": len(times),
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "max_ms": pct(1.0),
        "top10": top[:40],
    }
    out["oxigraph"] = oxigraph(rows, queries)
    with open(out_json, "w") as f:
        json.dump(out, f, indent=2, ensure_ascii=False)
    print(json.dumps({k: out[k] for k in ("index_bytes", "p50_ms", "p99_ms")}))


def oxigraph(rows, queries):
    try:
        import pyoxigraph as ox
    except ImportError:
        return {"skipped": "pyoxigraph is not installed (pip install pyoxigraph==0.5.13)"}
    store = ox.Store()
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    store.bulk_extend(
        ox.Quad(ox.NamedNode(t.strip("<>")) if t.startswith("<") else ox.BlankNode(t[2:]), label, ox.Literal(l))
        for t, l in rows
    )

    def sparql(q):
        words = [w.lower() for w in q.split() if w]
        filters = " && ".join('CONTAINS(LCASE(?l), "%s")' % w.replace("\\", "").replace('"', "") for w in words)
        return "SELECT ?s ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l FILTER(%s) } LIMIT 10" % filters

    queries = [q for q in queries if fts_query(q)]
    for q in queries:
        list(store.query(sparql(q)))
    times = []
    top = []
    for q in queries:
        t = time.perf_counter()
        r = [sol["l"].value for sol in store.query(sparql(q))]
        times.append((time.perf_counter() - t) * 1e3)
        top.append({"query": q, "labels": r})
    times.sort()
    pct = lambda p: times[round((len(times) - 1) * p)]
    return {
        "engine": "Oxigraph " + ox.__version__ + " (pyoxigraph, in memory), FILTER(CONTAINS(LCASE(...)))",
        "queries": len(times),
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "max_ms": pct(1.0),
        "top10": top[:40],
    }


main()
