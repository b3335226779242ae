"""Upstream rete (PyPI rete-graph 0.3.6) next to our search, on the query set search_bench
typed (scripts/bench-search.sh): its two searches, `Graph.prefix_search(q, 10)` (labels starting
with the text) and `Graph.text_search(q, limit=10)` (the opt-in word index, whole words), timed
warm per query around the call, the first of a fresh open apart; the size its text index adds;
and, for every query, whether the term it was typed from is among the 10 answers of each engine
(ours from search_bench's hits file), or a term with the same label (names repeat: 70 words make
the social graph's 20 000 names, LUBM's local names repeat in every department). Upstream reads named graphs as a dataset and its searches
see only the default graph, so it is given the dataset's triples in one graph (what a user of it
would do), and the script also says how many queries find anything in the dataset as it is.

Usage: bench-search-upstream.py RETE_BIN OURS.rete LABELS.tsv HITS.tsv OUT.json
(pip install rete-graph==0.3.6 pyoxigraph==0.5.13; the first is installed by scripts/setup.sh)
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import pyoxigraph
import rete_graph


def strip(term):
    return term[1:-1] if term.startswith("<") and term.endswith(">") else term


def pct(xs, p):
    xs = sorted(xs)
    return xs[round((len(xs) - 1) * p)]


def build(path, text_index):
    t = time.perf_counter()
    b = rete_graph.Builder().add_file(path)
    if text_index:
        b = b.text_index()
    out = path + (".text.rete" if text_index else ".rete")
    b.export(out)
    return out, time.perf_counter() - t


def main():
    rete_bin, ours, labels_tsv, hits_tsv, out_json = sys.argv[1:6]
    work = tempfile.mkdtemp()
    nq = os.path.join(work, "data.nq")
    subprocess.run([rete_bin, "export", ours, "--format", "nq", "-o", nq], check=True)
    # The same triples in the default graph.
    nt = os.path.join(work, "data.nt")
    seen = set()
    with open(nt, "w", encoding="utf-8") as f:
        for q in pyoxigraph.parse(path=nq, format=pyoxigraph.RdfFormat.N_QUADS):
            line = f"{q.subject} {q.predicate} {q.object} .\n"
            if line not in seen:
                seen.add(line)
                f.write(line)
    plain, plain_s = build(nt, False)
    text, text_s = build(nt, True)

    # The terms of each label (as search_bench wrote them).
    same = {}
    with open(labels_tsv, encoding="utf-8") as f:
        for line in f:
            term, _, label = line.rstrip("\n").partition("\t")
            same.setdefault(label, set()).add(strip(term))
    rows, labelled = [], []
    with open(hits_tsv, encoding="utf-8") as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            rows.append((cells[0], strip(cells[1]), [strip(c) for c in cells[3:] if c]))
            labelled.append(same.get(cells[2], set()) | {strip(cells[1])})

    # The first query of a fresh open (the OS cache warm: engine time).
    t = time.perf_counter()
    g = rete_graph.open(text)
    g.prefix_search(rows[0][0], 10)
    first_ms = (time.perf_counter() - t) * 1e3

    def run(search):
        for q, _, _ in rows:
            search(q)
        times, answers = [], []
        for q, _, _ in rows:
            t = time.perf_counter()
            a = search(q)
            times.append((time.perf_counter() - t) * 1e3)
            answers.append(a)
        return times, answers

    pt, pa = run(lambda q: [iri for _, iri in g.prefix_search(q, 10)])
    tt, ta = run(lambda q: list(g.text_search(q, limit=10)))

    def found(answers):
        return sum(1 for (_, src, _), a in zip(rows, answers) if src in a)

    def found_label(answers):
        return sum(1 for terms, a in zip(labelled, answers) if terms & set(a))

    # The last keystroke typed from each label: its words (up to three) complete.
    last = [i for i in range(len(rows)) if i + 1 == len(rows) or rows[i + 1][1] != rows[i][1]]

    def found_complete(answers):
        return sum(1 for i in last if rows[i][1] in answers[i])

    def found_label_complete(answers):
        return sum(1 for i in last if labelled[i] & set(answers[i]))

    ours = [hits for _, _, hits in rows]

    # The dataset as it is, graphs kept: how many queries find anything, and their term.
    nq_up, _ = build(nq, True)
    gq = rete_graph.open(nq_up)
    answered_nq = found_nq = 0
    for q, src, _ in rows:
        a = [iri for _, iri in gq.prefix_search(q, 10)] + list(gq.text_search(q, limit=10))
        answered_nq += bool(a)
        found_nq += src in a

    n = len(rows)
    result = {
        "queries": n,
        "build_seconds": plain_s,
        "build_with_text_index_seconds": text_s,
        "file_bytes": os.path.getsize(plain),
        "text_index_bytes": os.path.getsize(text) - os.path.getsize(plain),
        "first_query_ms": first_ms,
        "prefix_search": {
            "p50_ms": pct(pt, 0.5),
            "p99_ms": pct(pt, 0.99),
            "answered": sum(1 for a in pa if a),
            "found_source": found(pa),
            "found_source_complete": found_complete(pa),
            "found_label": found_label(pa),
            "found_label_complete": found_label_complete(pa),
        },
        "text_search": {
            "p50_ms": pct(tt, 0.5),
            "p99_ms": pct(tt, 0.99),
            "answered": sum(1 for a in ta if a),
            "found_source": found(ta),
            "found_source_complete": found_complete(ta),
            "found_label": found_label(ta),
            "found_label_complete": found_label_complete(ta),
        },
        "complete_queries": len(last),
        "ours_found_source": found(ours),
        "ours_found_source_complete": found_complete(ours),
        "ours_found_label": found_label(ours),
        "ours_found_label_complete": found_label_complete(ours),
        "ours_answered": sum(1 for a in ours if a),
        "named_graphs_answered": answered_nq,
        "named_graphs_found_source": found_nq,
        "top10": [
            {"query": q, "source": src, "ours": hits, "prefix_search": a, "text_search": b}
            for (q, src, hits), a, b in list(zip(rows, pa, ta))[:20]
        ],
    }
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, ensure_ascii=False)
    print(
        f"upstream: prefix_search p50 {result['prefix_search']['p50_ms']:.3f} ms, found {result['prefix_search']['found_source']}/{n}; "
        f"text_search p50 {result['text_search']['p50_ms']:.3f} ms, found {result['text_search']['found_source']}/{n}; "
        f"ours found {result['ours_found_source']}/{n}; complete labels: upstream prefix {result['prefix_search']['found_source_complete']}, text {result['text_search']['found_source_complete']}, ours {result['ours_found_source_complete']} of {len(last)}; text index {result['text_index_bytes']} B; "
        f"as named graphs {answered_nq}/{n} answered, {found_nq} found"
    )


if __name__ == "__main__":
    main()
