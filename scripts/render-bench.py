#!/usr/bin/env python3
"""Renders docs/benchmark-build.json into the build section of docs/BENCHMARK.md (between
<!-- build:start --> and <!-- build:end -->), leaving the other sections as they are."""
import json, pathlib, re

root = pathlib.Path(__file__).resolve().parent.parent
data = json.loads((root / "docs/benchmark-build.json").read_text())
doc_path = root / "docs/BENCHMARK.md"
doc = doc_path.read_text() if doc_path.exists() else "# Benchmarks\n"

def put_section(doc, name, section):
    """`doc` with the text between `<!-- name:start -->` and `<!-- name:end -->` replaced by
    `section` (which holds both markers), or `section` appended when the markers are missing."""
    if f"<!-- {name}:start -->" in doc:
        return re.sub(rf"<!-- {name}:start -->.*?<!-- {name}:end -->", lambda _: section, doc, flags=re.S)
    return doc.rstrip() + "\n\n" + section + "\n"


def kib(b):
    return f"{b / 1024:,.0f} KiB" if b < 10 * 1024 * 1024 else f"{b / 1024 / 1024:,.1f} MiB"

m = data["machine"]
lines = [
    "<!-- build:start -->",
    "## Build: size, time, memory",
    "",
    f"Synthetic social graph (`rete generate social`), release build, {m['cpus']} cores, "
    f"{m['memory_gib']} GiB, {m['os']}, rete {data['rete_version']}, {data['date']}. "
    "Best of 3 builds; peak RSS is the process maximum (`/usr/bin/time`). Reproduce with "
    "`scripts/bench-build.sh` (JSON in `docs/benchmark-build.json`).",
    "",
    "| people | triples | mode | raw N-Triples | gzip -9 | zstd -19 | .rete | .rete / gzip | build | peak RSS |",
    "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
]
for r in data["rows"]:
    lines.append(
        f"| {r['people']:,} | {r['triples']:,} | {r['mode']} | {kib(r['raw_bytes'])} | {kib(r['gzip9_bytes'])} | "
        f"{kib(r['zstd19_bytes'])} | {kib(r['rete_bytes'])} | {r['rete_bytes'] / r['gzip9_bytes']:.2f}× | "
        f"{r['build_ms']:,} ms | {r['peak_rss_kib'] / 1024:,.0f} MiB |"
    )
notes = (root / "docs/benchmark-build-notes.md")
if notes.exists():
    lines += ["", notes.read_text().strip()]
lines.append("<!-- build:end -->")
doc_path.write_text(put_section(doc, "build", "\n".join(lines)))


# The Scale section (issue 13), from docs/benchmark-scale.json (scripts/bench-scale.sh).
import math
import statistics

scale_path = root / "docs/benchmark-scale.json"


def render_scale(s):
    def mib(b):
        return "–" if b is None else f"{b / 1048576:,.1f} MiB"

    def ms(x):
        return "–" if x is None else (f"{x / 1000:,.1f} s" if x >= 10000 else f"{x:,.0f} ms")

    def verdict(ok):
        return "not measured" if ok is None else ("**met**" if ok else "**not met**")

    m = s["machine"]
    sizes = s["sizes"]

    def build_time(b):
        """The build's wall time: the median run's, with the range when it was built several times."""
        runs = b.get("runs_wall_ms", [])
        if len(runs) < 2:
            return ms(b["wall_ms"])
        return f"{ms(b['wall_ms'])} (median of {len(runs)}: {ms(min(runs))}–{ms(max(runs))})"

    out = [
        "<!-- scale:start -->",
        "## Scale: 10 M+ triples",
        "",
        f"Release CLI, default settings (pyramid and schema on, `--memory-budget` 2G), {m['cpus']} cores, "
        f"{m['memory_gib']} GiB, {m['os']}, rete {s['rete_version']}, {s['date']}. {m.get('shared', '')}. "
        "Peak RSS and wall time from `/usr/bin/time -v`; phases and spilled bytes from the build report "
        "(`rete build --report`); temp disk is the peak size of the build's `--temp-dir` (spill runs and the parts written before the final file), polled every 0.5 s. "
        "Reproduce with `scripts/bench-scale.sh [10M 30M 100M lubm:N]` (JSON in `docs/benchmark-scale.json`)."
        + ("" if not (multi := [r for r in sizes if len(r["build"].get("runs_wall_ms", [])) > 1]) else
           " Sizes built several times (`BUILD_RUNS`) show the run of median wall time (its peak RSS, phases and steps) "
           "with the range of all runs"
           + ("" if not (rounds := [r for r in multi if r["build"].get("runs_round")]) else
              f"; {', '.join(r['name'] for r in rounds)} were built in rounds (one build of each size in turn, so a round's builds were minutes apart)"
              + (f" from copies of their inputs in `{rounds[0]['build']['input_dir']}`, not from this host's disk, whose speed varies threefold from hour to hour"
                 if all(r["build"].get("input_dir") for r in rounds) else ""))
           + "; their runs gave "
           + ("byte-identical files." if all(r["build"].get("runs_same_bytes") for r in multi) else "**different files**.")),
        "",
        "### Build and size",
        "",
        "| dataset | triples | N-Triples | gzip -9 | .rete | .rete / gzip | build | peak RSS | ≤ 2 GiB | peak temp disk | status |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|",
    ]
    for r in sizes:
        b = r["build"]
        rss = b.get("peak_rss_kib")
        status = "ok" if b["exit_code"] == 0 else f"**failed** (exit {b['exit_code']})"
        ratio = f"{r['rete_over_gzip9']:.2f}×" if r.get("rete_over_gzip9") else "–"
        out.append(
            f"| {r['name']} | {r['triples']:,} | {mib(r['raw_bytes'])} | {mib(r['gzip9_bytes'])} | {mib(b.get('rete_bytes'))} | "
            f"{ratio} | {build_time(b)} | {mib(rss * 1024) if rss else '–'} | {'yes' if r['rss_within_2gib'] else '**no**'} | "
            f"{mib(b.get('peak_spill_bytes'))} | {status} |"
        )
    phase_names = []
    for r in sizes:
        for p in r["build"].get("phases", []):
            if p["phase"] not in phase_names:
                phase_names.append(p["phase"])
    if phase_names:
        out += ["", "Time per phase (from the build report):", "",
                "| dataset | " + " | ".join(phase_names) + " |", "|---|" + "---:|" * len(phase_names)]
        for r in sizes:
            ph = {p["phase"]: p["ms"] for p in r["build"].get("phases", [])}
            out.append(f"| {r['name']} | " + " | ".join(ms(ph.get(n)) for n in phase_names) + " |")
    # The pyramid's own steps (builds measured since the report lists them).
    stepped = [r for r in sizes if any(st["phase"] == "pyramid" for st in r["build"].get("steps", []))]
    step_names = []
    for r in stepped:
        for st in r["build"]["steps"]:
            if st["phase"] == "pyramid" and st["step"] not in step_names:
                step_names.append(st["step"])
    if stepped:
        out += ["", "Steps of the pyramid phase:", "",
                "| dataset | " + " | ".join(step_names) + " |", "|---|" + "---:|" * len(step_names)]
        for r in stepped:
            st = {x["step"]: x["ms"] for x in r["build"]["steps"] if x["phase"] == "pyramid"}
            out.append(f"| {r['name']} | " + " | ".join(ms(st.get(n)) for n in step_names) + " |")
    for r in sizes:
        if r["build"].get("error"):
            out += ["", f"{r['name']}: the build failed; its last lines:", "", "```", *r["build"]["error"][-8:], "```"]
    # n log n: build time ratio between sizes against the ratio of n log n.
    social = [r for r in sizes if r.get("people") and r["build"]["exit_code"] == 0]
    growth_ok = None
    if len(social) >= 2:
        a, z = social[0], social[-1]
        t_ratio = z["build"]["wall_ms"] / a["build"]["wall_ms"]
        nlogn = (z["triples"] * math.log(z["triples"])) / (a["triples"] * math.log(a["triples"]))
        growth_ok = t_ratio <= nlogn
        line = f"Growth {a['name']} → {z['name']}: build time ×{t_ratio:.2f}, n log n ×{nlogn:.2f}."
        ra = a["build"].get("runs_wall_ms") or [a["build"]["wall_ms"]]
        rz = z["build"].get("runs_wall_ms") or [z["build"]["wall_ms"]]
        if len(ra) > 1 or len(rz) > 1:
            line = (f"Growth {a['name']} → {z['name']}: build time ×{t_ratio:.2f} (medians; from ×{min(rz) / max(ra):.2f} "
                    f"to ×{max(rz) / min(ra):.2f} over any pair of runs), n log n ×{nlogn:.2f}.")
        # Builds in rounds (one of each size in turn): the growth per round compares builds made
        # minutes apart, so the host's drift over the whole run cancels out; its median decides.
        rounds_a, rounds_z = a["build"].get("runs_round"), z["build"].get("runs_round")
        if rounds_a and rounds_z and len(ra) > 1:
            by_round = dict(zip(rounds_a, ra))
            pairs = [t / by_round[i] for i, t in zip(rounds_z, rz) if i in by_round]
            if pairs:
                per_round = statistics.median(pairs)
                growth_ok = per_round <= nlogn
                line += (f" Per round (the two sizes built one after the other): "
                         f"{', '.join(f'×{x:.2f}' for x in pairs)}; median ×{per_round:.2f}, which the verdict uses.")
            ca, cz = a["build"].get("runs_cpu_s"), z["build"].get("runs_cpu_s")
            if ca and cz:
                cpu_a = dict(zip(rounds_a, ca))
                cpu_pairs = [c / cpu_a[i] for i, c in zip(rounds_z, cz) if cpu_a.get(i)]
                if cpu_pairs:
                    line += (f" In CPU time (user + system; waiting for the disk is not in it): "
                             f"{', '.join(f'×{x:.2f}' for x in cpu_pairs)}; median ×{statistics.median(cpu_pairs):.2f}.")
        out += ["", line]
    # Remote.
    remote = [r for r in sizes if r.get("remote")]
    if remote:
        out += ["", "### Remote: the file served by a real HTTP server on 127.0.0.1", "",
                "`scripts/range-server.py` (Range requests; it counts every request and byte it sends) serves the "
                "file; the release CLI reads it over HTTP as the app does. Open + top level = `rete summary URL` "
                "(header, section directory, the pyramid's top level); the selective query is one subject's links "
                "in both directions (`SELECT ?dir ?p ?x WHERE { { S ?p ?x } UNION { ?x ?p S } }`). Counts are "
                "per fresh process, so each includes opening the file. Answers are compared with the local file.",
                "",
                "| dataset | file | open + top level | selective query | share of file | rows | same answers |",
                "|---|---:|---:|---:|---:|---:|---|"]
        for r in remote:
            x = r["remote"]
            top, q = x["open_top_level"], x["selective_query"]
            same = top["same_answer"] and q["same_answer"] and x["open_info"]["same_answer"]
            out.append(
                f"| {r['name']} | {mib(x['file_bytes'])} | {top['requests']} requests, {top['bytes'] / 1024:,.1f} KiB | "
                f"{q['requests']} requests, {q['bytes'] / 1024:,.1f} KiB | {q['share_of_file'] * 100:.4f} % | {q['rows']} | "
                f"{'yes' if same else '**no**'} |"
            )
    # Queries vs Oxigraph.
    qrows = [r for r in sizes if r.get("queries") and r["queries"].get("queries")]
    for r in qrows:
        qq = r["queries"]
        same = sum(1 for q in qq["queries"] if q["identical"])
        ds = (qq.get("datasets") or [{}])[0]
        load = f"load {ms(ds['oxigraph_load_ms'])}, " if ds else ""
        out += ["", f"### Queries vs Oxigraph on {r['name']} ({r['triples']:,} triples)", "",
                f"The bench crate's social shapes (`rete-bench --people {r['people']} --lubm 0 --runs {qq['runs']}`): "
                f"same process, Oxigraph 0.5 in memory ({load}median of {qq['runs']} warm runs). "
                f"{same} of {len(qq['queries'])} answers identical; geometric mean speedup "
                f"{qq['geomean'].get('all', float('nan')):.2f}× over these queries."
                + (f" **Partial run:** {qq['note']}" if qq.get("partial") else "")
                + (" Not re-run with this build (`QUERIES` left this size out): the last measurement."
                   if qq.get("carried_over") else ""), "",
                "| query | rows | rete | Oxigraph | speedup | same answer |", "|---|---:|---:|---:|---:|---|"]
        for q in qq["queries"]:
            sp = f"{q['speedup']:.2f}×" if q["speedup"] else "–"
            rm = "–" if q["rete_ms"] is None else f"{q['rete_ms']:,.2f} ms"
            om = "–" if q["oxigraph_ms"] is None else f"{q['oxigraph_ms']:,.2f} ms"
            rows = "–" if q["rows"] is None else f"{q['rows']:,}"
            out.append(f"| {q['name']} | {rows} | {rm} | {om} | {sp} | {'yes' if q['identical'] else '**no**'} ({q['gate']}) |")
    # App.
    app = s.get("app")
    if app and app.get("results"):
        a = app["results"]
        # The method one sentence a line: a paragraph of it was too long to read.
        method = [f"- {m.strip()}" for m in re.split(r"(?<=\.) (?=[A-Z`])", a.get("method", "")) if m.strip()]
        out += ["", f"### The app on {app['file']}", "", "Method:", "", *method, "",
                "| measure | value | 20k sample, same run | ratio | goal | verdict |", "|---|---:|---:|---:|---:|---|"]
        for g in a.get("goals", []):
            r = g.get("ratio")
            out.append(f"| {g['what']} | {g['value']} | {g.get('floor', '–')} | {'–' if r is None else f'{r:.2f}×'} | {g['goal']} | {g.get('verdict') or verdict(g.get('met'))} |")
    # Goals.
    up = s.get("upstream")
    up_ok = None
    up_txt = "not measured"
    if up and up.get("rete", {}).get("exit_code") == 0 and up.get("upstream", {}).get("exit_code") == 0:
        ratio = up["rete"]["wall_ms"] / up["upstream"]["wall_ms"]
        up_ok = ratio <= 0.25
        up_txt = f"{ratio:.2f}× ({ms(up['rete']['wall_ms'])} vs {ms(up['upstream']['wall_ms'])})"
        if up["rete"].get("cpu_s") and up["upstream"].get("cpu_s"):
            up_txt += (f"; CPU {up['rete']['cpu_s'] / up['upstream']['cpu_s']:.2f}× "
                       f"({up['rete']['cpu_s']:.1f} vs {up['upstream']['cpu_s']:.1f} s)")
    names = {r["spec"] for r in sizes}
    rss_all = [r["rss_within_2gib"] and r["build"]["exit_code"] == 0 for r in sizes]
    out += ["", "### Goals", "", "| goal | measured | verdict |", "|---|---|---|"]
    out.append(f"| peak RSS ≤ 2 GiB at 10 M, 30 M, 100 M and one LUBM size | {', '.join(sorted(names))} | "
               f"{verdict(all(rss_all)) if rss_all else 'not measured'}"
               f"{'' if {'10M', '30M', '100M'} <= names else ' at the sizes measured; the others not measured'} |")
    out.append(f"| build time no worse than n log n | {len(social)} social size(s) | {verdict(growth_ok)} |")
    out.append(f"| ≤ 0.25× upstream's build time at 7.9 M triples | {up_txt} | {verdict(up_ok)} |")
    gz = ", ".join(f"{r['name']} {r['rete_over_gzip9']:.2f}×" for r in sizes if r.get("rete_over_gzip9"))
    out.append(f"| file size / gzip -9 reported at every size | {gz} | reported |")
    if remote:
        x = remote[-1]["remote"]
        top, q = x["open_top_level"], x["selective_query"]
        out.append(f"| remote open + top level ≤ 3 requests and ≤ 1 MB ({remote[-1]['name']}) | {top['requests']} requests, {top['bytes'] / 1024:,.1f} KiB | {verdict(top['requests'] <= 3 and top['bytes'] <= 1 << 20)} |")
        out.append(f"| remote selective query reads ≤ 0.1 % of the file ({remote[-1]['name']}) | {q['share_of_file'] * 100:.4f} % | {verdict(q['share_of_file'] <= 0.001)} |")
        out.append(f"| remote answers same as local ({remote[-1]['name']}) | | {verdict(q['same_answer'] and top['same_answer'])} |")
    for r in qrows:
        qq = r["queries"]["queries"]
        part = " (partial run: the shapes it reached)" if r["queries"].get("partial") else ""
        out.append(f"| queries vs Oxigraph on {r['name']}: same answers, ratio reported | {sum(q['identical'] for q in qq)}/{len(qq)} identical{part} | {verdict(all(q['identical'] for q in qq))} |")
    if "100M" not in names:
        out.append("| the app and remote goals on the 100 M file | 100 M not built here | not measured |")
    for n in s.get("notes", []):
        out += ["", n]
    out.append("<!-- scale:end -->")
    return "\n".join(out)


if scale_path.exists():
    section = render_scale(json.loads(scale_path.read_text()))
    doc_path.write_text(put_section(doc_path.read_text(), "scale", section))


# The BSBM Explore section (issue 48), from docs/benchmark-bsbm.json (scripts/bench-bsbm.sh).
bsbm_path = root / "docs/benchmark-bsbm.json"

# The seed's published figures (Virtuoso 7 Single, BSBM Explore at 100 Mt, 2 × 4-core Xeon 5520).
VIRTUOSO = {"qmph_1": 11742, "qmph_16": 72278, "cores": 8, "load_quads_s": 261366}


def cache_name(z):
    """The block cache of a row: `rete serve`'s own default (sized from the file) or `--cache`."""
    c = z.get("rete_cache", "256M")
    return "default cache (twice the file)" if c == "default" else f"`--cache {c}`"


def mix_name(z):
    """The timed mix of a row: rows from before the driver knew the tools' mix ran Q6."""
    return "tools" if z.get("query_mix", "with-q6") == "tools" else "with Q6"


def render_bsbm(s):
    m = s["machine"]
    cores = m["cpus"]
    out = [
        "<!-- bsbm:start -->",
        "## BSBM Explore: `rete serve` vs Oxigraph's server",
        "",
        f"The Berlin SPARQL Benchmark's Explore use case (12 query templates in a 25-query mix) over "
        f"HTTP with the SPARQL protocol. The timed mix is the BSBM tools' (`queries/explore/querymix.txt` of "
        f"the test driver: Q6, a regex over every product label, left out and Q5 run twice, since "
        f"BSBM V3 of 2011, the time of the seed's Virtuoso figures; the seed does not print its mix); rows marked *with Q6* ran the specification's earlier "
        f"mix, Q6 in place of the second Q5.",
        "",
        f"On `rete generate bsbm` data: `rete serve` (release, "
        f"workers and block cache per row) against `oxigraph serve-read-only` (Oxigraph {s['oxigraph_version']}, "
        f"RocksDB store loaded with `oxigraph load`), {cores} cores, {m['memory_gib']} GiB, {m['os']}, "
        f"rete {s['rete_version']}. Per size and client count: warm-up mixes, then timed mixes (other "
        "parameters than the warm-up's, the same for both servers; their numbers in the table); "
        "QMpH = timed mixes × 3600 / wall seconds; with 16 clients, 16 threads share the mixes. "
        "The machine was shared with other engineers' builds (the load average over each size's run is "
        "in the build table): both servers were measured in the same run, taking turns at each size and "
        "client count, so both saw the same background load; the absolute figures move with it. At 100 M "
        "triples an Oxigraph mix takes about a minute, so the shared run is short there (its mixes in the "
        "table); `rete serve` then runs alone the seed's length — 500 warm-up mixes, then 500 timed — "
        "in the table after the gate. Reproduce with `scripts/bench-bsbm.sh [PRODUCTS...]` "
        "(100 M: `ZST=1 BUILD_FLAGS=--no-search LONG_MIXES=500 MIXES=16 WARMUP=4 scripts/bench-bsbm.sh 284826`, with `THREADS=16 CACHE=4G` for the tuned rows; JSON in "
        "`docs/benchmark-bsbm.json`).",
        "",
        "Before any timing, every query of the gate mixes is sent to both servers and the answers compared "
        "(see *How answers are compared* below); a difference stops the run.",
        "",
        "| mix | products | triples | clients | mixes (warm-up + timed) | `rete serve` | rete QMpH | Oxigraph QMpH | rete / Oxigraph | goal ≥ 2× | date |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|",
    ]
    # A size may also carry runs of other `rete serve` settings (`alt_runs`: the defaults where
    # the row's own run tuned them), listed after it.
    settings = [z for z0 in s["sizes"] for z in [z0] + [dict(z0, **{"run_long": None, **a}) for a in z0.get("alt_runs", [])]]
    for z in settings:
        runs = z["run"]["runs"]
        for c in sorted({r["clients"] for r in runs}):
            by = {r["endpoint"]: r for r in runs if r["clients"] == c}
            if "rete" not in by or "oxigraph" not in by:
                continue
            ratio = by["rete"]["qmph"] / by["oxigraph"]["qmph"]
            out.append(
                f"| {mix_name(z)} | {z['products']:,} | {z['triples']:,} | {c} | {z['warmup']} + {z['mixes']} | "
                f"{z.get('rete_threads', s['rete_threads'])} workers, {cache_name(z)} | {by['rete']['qmph']:,.0f} | "
                f"{by['oxigraph']['qmph']:,.0f} | {ratio:.2f}× | {'met' if ratio >= 2 else '**not met**'} | {z['date']} |"
            )
    out += ["", "Gate (answers compared before timing):", ""]
    for z in s["sizes"]:
        g = z["run"].get("gate")
        if g:
            per = ", ".join(f"{q} {e}/{n}" for q, n, e in g["per_query"])
            out.append(f"- {z['products']:,} products ({mix_name(z)} run): {g['queries']} queries of {g['mixes']} mixes answered alike; non-empty answers per query: {per}.")
    longs = [z for z in settings if z.get("run_long")]
    if longs:
        out += ["", "`rete serve` alone at the seed's run length (Virtuoso's method: the mixes run twice, the second "
                "timed; here the warm-up has other parameters than the timed mixes):", "",
                "| mix | products | triples | clients | mixes (warm-up + timed) | `rete serve` | rete QMpH | wall s | Q5 mean ms | Q6 mean ms | slowest query, mean ms |",
                "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"]
        for z in longs:
            L = z["run_long"]
            for r in L["runs"]:
                q = {x["query"]: x for x in r["queries"]}
                worst = max(r["queries"], key=lambda x: x["mean_ms"])
                q6 = f"{q['Q6']['mean_ms']:,.2f}" if "Q6" in q else "–"
                out.append(f"| {mix_name(z)} | {z['products']:,} | {z['triples']:,} | {r['clients']} | {L['warmup_mixes']} + {r['mixes']} | "
                           f"{z.get('rete_threads', s['rete_threads'])} workers, {cache_name(z)} | "
                           f"{r['qmph']:,.0f} | {r['wall_s']:,.1f} | {q['Q5']['mean_ms']:,.2f} | {q6} | "
                           f"{worst['query']} {worst['mean_ms']:,.2f} |")
    for z in s["sizes"]:
        runs = z["run"]["runs"]
        clients = sorted({r["clients"] for r in runs})
        head = "| query | " + " | ".join(f"rete {c}c | Oxigraph {c}c | ratio {c}c" for c in clients) + " |"
        out += ["", f"Mean time per query at {z['products']:,} products ({z['triples']:,} triples), {mix_name(z)} mix, ms (ratio: Oxigraph / rete, above 1 is rete faster):", "", head,
                "|---|" + "---:|" * (3 * len(clients))]
        names = [q["query"] for q in runs[0]["queries"]]
        for qn in names:
            cells = []
            label = qn
            for c in clients:
                by = {r["endpoint"]: {q["query"]: q for q in r["queries"]} for r in runs if r["clients"] == c}
                a, b = by.get("rete", {}).get(qn), by.get("oxigraph", {}).get(qn)
                label = f"{qn} {a['name']}" if a else label
                if a and b:
                    cells += [f"{a['mean_ms']:,.2f}", f"{b['mean_ms']:,.2f}", f"{b['mean_ms'] / a['mean_ms']:.2f}×"]
                else:
                    cells += ["–", "–", "–"]
            out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", "Build and load (one-time), and the servers' peak memory:", "",
            "| products | triples | N-Triples | .rete | `rete build` | triples/s | Oxigraph store | `oxigraph load` | triples/s | `oxigraph optimize` | rete serve peak RSS | Oxigraph peak RSS | load average (1, 5, 15 min) before → after the runs |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    mib = lambda b: "–" if b is None else f"{b / 1048576:,.0f} MiB"
    kib = lambda b: "–" if b is None else f"{b / 1024:,.0f} MiB"
    secs = lambda ms: "–" if ms is None else f"{ms / 1000:,.1f} s"
    rate = lambda z, ms: "–" if ms is None else f"{z['triples'] / (ms / 1000):,.0f}"
    for z in {z["products"]: z for z in reversed(s["sizes"])}.values():
        out.append(
            f"| {z['products']:,} | {z['triples']:,} | {mib(z['nt_bytes'])} | {mib(z['rete_bytes'])} | {secs(z['rete_build_ms'])}{' (`' + z['build_flags'] + '`)' if z.get('build_flags') else ''} | "
            f"{rate(z, z['rete_build_ms'])} | {mib(z['oxigraph_store_bytes'])} | {secs(z['oxigraph_load_ms'])} | "
            f"{rate(z, z['oxigraph_load_ms'])} | {secs(z['oxigraph_optimize_ms']) if 'oxigraph_optimize_ms' in z else 'not run'} | {kib(z['rete_serve_peak_rss_kib'])} | {kib(z['oxigraph_serve_peak_rss_kib'])} | {z.get('loadavg', 'not recorded')} |"
        )
    big = max(s["sizes"], key=lambda z: (z["triples"], mix_name(z) == "tools"))
    v = VIRTUOSO
    at_100m = big["triples"] >= 90e6
    size_note = ("at BSBM's 100 M scale" if at_100m else "another size (ours: the largest size run here; 100 M was not run)")
    out += ["", f"Against the seed's published figures — **other hardware** (Virtuoso 7 Single at 100 M triples on "
            f"2 × 4-core Xeon 5520, {v['cores']} cores) and {size_note}, {big['products']:,} products, "
            f"{big['triples'] / 1e6:,.1f} M triples, {mix_name(big)} mix; per core = QMpH / cores:", "",
            "| | clients | QMpH | cores | QMpH per core |", "|---|---:|---:|---:|---:|",
            f"| Virtuoso 7 Single, 100 Mt (published) | 1 | {v['qmph_1']:,} | {v['cores']} | {v['qmph_1'] / v['cores']:,.0f} |",
            f"| Virtuoso 7 Single, 100 Mt (published) | 16 | {v['qmph_16']:,} | {v['cores']} | {v['qmph_16'] / v['cores']:,.0f} |"]
    mine = big.get("run_long") or big["run"]
    for r in mine["runs"]:
        if r["endpoint"] == "rete":
            out.append(f"| rete serve, {big['triples'] / 1e6:,.1f} Mt (here, {mine['warmup_mixes']} + {r['mixes']} mixes, {big.get('rete_threads', s['rete_threads'])} workers, {cache_name(big)}) | {r['clients']} | {r['qmph']:,.0f} | {cores} | {r['qmph'] / cores:,.0f} |")
    built = [z for z in s["sizes"] if z["rete_build_ms"]]
    big = max(built, key=lambda z: z["triples"]) if built else big
    rate = big["triples"] / (big["rete_build_ms"] / 1000) if built else 0
    out += ["", f"Load: Virtuoso 7 loaded {v['load_quads_s']:,} quads/s at 100 Mt with 8 streams on {v['cores']} cores "
            f"({v['load_quads_s'] / v['cores']:,.0f} per core); `rete build` made the {big['triples'] / 1e6:,.1f} M-triple file "
            f"at {rate:,.0f} triples/s on {cores} cores ({rate / cores:,.0f} per core)."]
    notes = root / "docs/benchmark-bsbm-notes.md"
    if notes.exists():
        out += ["", notes.read_text().strip()]
    out.append("<!-- bsbm:end -->")
    return "\n".join(out)


if bsbm_path.exists():
    section = render_bsbm(json.loads(bsbm_path.read_text()))
    doc_path.write_text(put_section(doc_path.read_text(), "bsbm", section))
