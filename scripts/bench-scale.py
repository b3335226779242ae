#!/usr/bin/env python3
"""The scale benchmark (issue 13), driven by scripts/bench-scale.sh: for each size, generate the
data, build it with the release CLI (peak RSS, wall time, time per phase, peak disk used by
spills), compare the file with `gzip -9` of the N-Triples, serve it from a real HTTP server on
127.0.0.1 (scripts/range-server.py, which counts requests and bytes) for the remote figures,
compare the bench crate's query shapes with Oxigraph, and, when asked, run the app benchmark.
Writes docs/benchmark-scale.json; scripts/render-bench.py renders the Scale section of
docs/BENCHMARK.md from it.

Sizes: 10M, 30M, 100M (social graph triples), lubm:N (N universities). Environment:
  BENCH_DIR     where the data goes (default bench-data; reused when present)
  REBUILD=1     rebuild even when a build record exists
  BENCH_INPUT_DIR  build from copies of the inputs in this directory (e.g. /dev/shm, so the
                host's disk is not what is measured; recorded as the build's input_dir); the
                copies this run made are removed after the builds
  BUILD_RUNS=N  build each size N times (default 1) and report the run of median wall time,
                with every run's time beside it. The builds go in rounds, one of each size in
                turn, so the growth is also read per round from builds minutes apart: the
                host's speed drifts by 10-40 % over the half hour the sizes take one after the
                other. Every run must give the same bytes.
  QUERIES=NAME  the sizes (comma-separated, e.g. 10M) whose file also runs the Oxigraph
                comparison (default 10M)
  APP=1         run the app benchmark (e2e/bench/scale.mjs) on the largest social size
  EXPLORE_S     seconds of scripted exploration in the app benchmark (default 300)
  UPSTREAM=1    time upstream rete-graph on the 7.9 M-triple graph (1 M people)
"""
import datetime
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
os.chdir(ROOT)
WORK = pathlib.Path(os.environ.get("BENCH_DIR", "bench-data")).resolve()
WORK.mkdir(parents=True, exist_ok=True)
# Where `cargo build --release` put the binaries (CARGO_TARGET_DIR is honoured, as cargo does).
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")).resolve()
RETE = TARGET / "release/rete"
BENCH = TARGET / "release/rete-bench"
OUT = pathlib.Path(os.environ.get("SCALE_OUT", ROOT / "docs/benchmark-scale.json"))
# Triples per person of `rete generate social` (1,575,135 triples at 200,000 people).
TRIPLES_PER_PERSON = 1575135 / 200000
GIB = 1 << 30
# The sizes (and "upstream", "app") this run measured; the rest of the JSON is kept as found.
MEASURED = set()


def log(*a):
    print("bench-scale:", *a, file=sys.stderr, flush=True)


def load_json(p):
    try:
        return json.loads(pathlib.Path(p).read_text())
    except (OSError, ValueError):
        return None


def dir_bytes(d):
    total = 0
    for dirpath, _, files in os.walk(d):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_blocks * 512
            except OSError:
                pass
    return total


def parse_size(spec):
    """'10M' → ('social-10M', people, None); 'lubm:N' → ('lubm-N', None, N)."""
    if spec.startswith("lubm:"):
        n = int(spec.split(":", 1)[1])
        return f"lubm-{n}", None, n
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([MK]?)", spec)
    if not m:
        sys.exit(f"bench-scale: unknown size {spec!r} (use 10M, 30M, 100M or lubm:N)")
    triples = float(m.group(1)) * {"M": 1e6, "K": 1e3, "": 1}[m.group(2)]
    return f"social-{spec}", round(triples / TRIPLES_PER_PERSON), None


def generate(name, people, lubm):
    """The N-Triples file and its facts (triples, bytes, gzip -9 bytes), cached next to it."""
    nt = WORK / f"{name}.nt"
    meta_path = WORK / f"{name}.nt.json"
    meta = load_json(meta_path)
    if nt.exists() and meta and meta.get("raw_bytes") == nt.stat().st_size:
        return nt, meta
    t = time.time()
    if people is not None:
        log(f"generating {name}: {people:,} people")
        subprocess.run([RETE, "generate", "social", "--people", str(people), "-o", nt], check=True)
    else:
        log(f"generating {name}: {lubm} universities (rete_datagen::lubm, with its ontology)")
        with open(nt, "wb") as f:
            subprocess.run(["cargo", "run", "--release", "-q", "-p", "rete-bench", "--example", "lubm-nt",
                            "--", str(lubm)], check=True, stdout=f)
    gen_s = time.time() - t
    log(f"counting and gzip -9 of {nt.name}")
    triples = int(subprocess.run(["wc", "-l", nt], check=True, capture_output=True, text=True).stdout.split()[0])
    gz = subprocess.Popen(["gzip", "-9", "-c", nt], stdout=subprocess.PIPE)
    gz_bytes = 0
    while chunk := gz.stdout.read(1 << 20):
        gz_bytes += len(chunk)
    gz.wait()
    meta = {"people": people, "lubm_universities": lubm, "triples": triples, "raw_bytes": nt.stat().st_size,
            "gzip9_bytes": gz_bytes, "generate_s": round(gen_s, 1)}
    meta_path.write_text(json.dumps(meta))
    return nt, meta


def build_all(jobs):
    """`rete build` of every (name, nt) in `jobs`, BUILD_RUNS rounds of one build per size in
    turn (see `build_once`), so each round's sizes are built minutes apart and the growth can be
    read per round, under the same conditions. Returns {name: (out, record)}: the record of the
    run of median wall time, with every run's wall time and whether all runs gave the same bytes.
    Cached in NAME.build.json unless REBUILD=1."""
    done, todo = {}, []
    for name, nt in jobs:
        out = WORK / f"{name}.rete"
        rec = load_json(WORK / f"{name}.build.json")
        if rec and out.exists() and not os.environ.get("REBUILD"):
            done[name] = (out, rec)
        else:
            todo.append((name, nt, out))
    # The inputs may be read from elsewhere, e.g. BENCH_INPUT_DIR=/dev/shm: this host's disk
    # speed varies threefold from hour to hour, and its DAMON pageout drops any file page left
    # unread for 60 s, so a build's parse may read its input from the disk or from the cache.
    if (in_dir := os.environ.get("BENCH_INPUT_DIR")):
        in_dir = pathlib.Path(in_dir)
        moved, copied = [], []
        for name, nt, out in todo:
            there = in_dir / nt.name
            if not there.exists() or there.stat().st_size != nt.stat().st_size:
                log(f"copying {nt.name} to {in_dir}")
                shutil.copyfile(nt, there)
                copied.append(there)
            moved.append((name, there, out))
        todo = moved
    else:
        copied = []
    runs = max(1, int(os.environ.get("BUILD_RUNS", "1")))
    recs = {name: [] for name, _, _ in todo}
    digests = {name: set() for name, _, _ in todo}
    for i in range(runs):
        if runs > 1 and todo:
            log(f"round {i + 1} of {runs}")
        for name, nt, out in todo:
            if recs[name] and recs[name][-1]["exit_code"] != 0:
                continue
            rec = build_once(name, nt, out)
            rec["round"] = i
            recs[name].append(rec)
            if rec["exit_code"] == 0:
                h = hashlib.blake2b()
                with open(out, "rb") as f:
                    while chunk := f.read(1 << 22):
                        h.update(chunk)
                digests[name].add(h.hexdigest())
    # The copies this run made go once built from: in /dev/shm they hold RAM (12 GB at 100 M).
    for c in copied:
        c.unlink(missing_ok=True)
    for name, _, out in todo:
        ok = [r for r in recs[name] if r["exit_code"] == 0]
        if len(ok) < len(recs[name]):
            rec = recs[name][-1]
        else:
            rec = dict(sorted(ok, key=lambda r: r["wall_ms"])[(len(ok) - 1) // 2])
        rec["runs_wall_ms"] = [r["wall_ms"] for r in recs[name]]
        rec["runs_peak_rss_kib"] = [r["peak_rss_kib"] for r in recs[name]]
        rec["runs_cpu_s"] = [r["cpu_s"] for r in recs[name]]
        rec["runs_round"] = [r["round"] for r in recs[name]]
        rec["runs_same_bytes"] = len(digests[name]) <= 1
        rec["input_dir"] = os.environ.get("BENCH_INPUT_DIR") or None
        if not rec["runs_same_bytes"]:
            log(f"the builds of {name} gave different files")
        (WORK / f"{name}.build.json").write_text(json.dumps(rec))
        done[name] = (out, rec)
    return done


def build_once(name, nt, out):
    """`rete build` (defaults: pyramid and schema on) under /usr/bin/time -v, with its spill
    directory polled for the peak disk use."""
    tmp = WORK / f"{name}.spill"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    log(f"building {name}.rete (release CLI, defaults)")
    peak_spill = [0]
    done = threading.Event()

    def poll():
        while not done.wait(0.5):
            peak_spill[0] = max(peak_spill[0], dir_bytes(tmp))

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    t = time.time()
    p = subprocess.run(["/usr/bin/time", "-v", RETE, "build", "--report", nt, "-o", out, "--temp-dir", tmp],
                       capture_output=True, text=True)
    wall = time.time() - t
    done.set()
    th.join()
    err = p.stderr
    rss_kib = int(m.group(1)) if (m := re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)) else None
    # CPU seconds (user + system): waiting for the disk or for a core shows in the wall time only.
    cpu_s = round(sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", err)), 2)
    # `rete build --report`: a table (phase, ms, spilled bytes or "-", peak RSS MiB) then the
    # peak spill line.
    phases = [{"phase": m.group(1).strip(), "ms": float(m.group(2)),
               "spill_bytes": int(m.group(3)) if m.group(3) != "-" else 0,
               "peak_rss_mib": int(m.group(4)) if m.group(4) not in (None, "-") else None}
              for m in re.finditer(r"^(?!phase\s+ms)(\S.*?)\s+(\d+)\s+(\d+|-)(?:\s+(\d+|-))?$", err, re.M)]
    # The extensions' own steps, indented under their phase row.
    steps, owner = [], None
    for line in err.splitlines():
        if (m := re.match(r"^(\S.*?)\s+\d+\s+(?:\d+|-)(?:\s+(?:\d+|-))?$", line)):
            owner = m.group(1).strip()
        elif owner and (m := re.match(r"^  (\S.*?)\s+(\d+)$", line)):
            steps.append({"phase": owner, "step": m.group(1).strip(), "ms": float(m.group(2))})
    reported = re.search(r"^peak spill on disk (\d+) bytes", err, re.M)
    wrote = re.search(r"wrote .*?: (\d+) quads, (\d+) terms, (\d+) bytes(?: \((\d+) spill runs\))?", err)
    rec = {
        "exit_code": p.returncode,
        "wall_ms": round(wall * 1000),
        "peak_rss_kib": rss_kib,
        "cpu_s": cpu_s,
        "phases": phases,
        "steps": steps,
        "peak_spill_bytes": peak_spill[0],
        "reported_peak_spill_bytes": int(reported.group(1)) if reported else None,
        "spill_runs": int(wrote.group(4) or 0) if wrote else None,
        "quads": int(wrote.group(1)) if wrote else None,
        "terms": int(wrote.group(2)) if wrote else None,
        "rete_bytes": out.stat().st_size if p.returncode == 0 and out.exists() else None,
        # Whatever else the CLI printed (new report lines included), minus progress noise.
        "stderr_tail": [l for l in err.splitlines() if l.strip() and not l.startswith("\t")][-24:],
    }
    if p.returncode != 0:
        rec["error"] = err.strip().splitlines()[-20:]
        log(f"build of {name} FAILED (exit {p.returncode})")
    shutil.rmtree(tmp, ignore_errors=True)
    return rec


class Server:
    """scripts/range-server.py on 127.0.0.1, serving WORK; counts requests and bytes."""

    def __init__(self):
        self.log = WORK / "range-server.log"
        self.log.write_text("")
        self.proc = subprocess.Popen([sys.executable, ROOT / "scripts/range-server.py", WORK, self.log],
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline())

    def url(self, f):
        return f"http://127.0.0.1:{self.port}/{f.name}"

    def reset(self):
        self.log.write_text("")

    def counts(self):
        rows = [json.loads(l) for l in self.log.read_text().splitlines() if l.strip()]
        return {"requests": len(rows), "bytes": sum(r["bytes"] for r in rows)}

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def run_cli(args, timeout=600):
    t = time.time()
    p = subprocess.run([RETE, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    ms = (time.time() - t) * 1000
    fetched = re.search(r"fetched (\d+) bytes in (\d+) requests", p.stderr)
    return p, ms, ({"bytes": int(fetched.group(1)), "requests": int(fetched.group(2))} if fetched else None)


def first_subject(nt):
    """A person of the social graph (or the first subject of the file): the selective query's subject."""
    with open(nt) as f:
        for line in f:
            if "foaf/0.1/knows" in line or "takesCourse" in line:
                return line.split(" ", 1)[0]
    with open(nt) as f:
        return f.readline().split(" ", 1)[0]


def same_json(a, b):
    """The same JSON document, apart from the `file` field (the URL or the path)."""
    try:
        x, y = json.loads(a), json.loads(b)
    except ValueError:
        return False
    for d in (x, y):
        if isinstance(d, dict):
            d.pop("file", None)
    return x == y


def by_section(out, rows):
    """Each logged request with the sections its range touches (from `rete info --json`): where a
    remote read's bytes go."""
    info = json.loads(subprocess.run([RETE, "info", "--json", out], capture_output=True, text=True).stdout or "{}")
    secs = info.get("sections") or []
    res = []
    for r in rows:
        m = re.fullmatch(r"bytes=(\d+)-(\d+)", r.get("range") or "")
        if not m:
            res.append({"range": r.get("range"), "bytes": r["bytes"], "sections": []})
            continue
        a, b = int(m.group(1)), int(m.group(2))
        res.append({"range": r["range"], "bytes": r["bytes"],
                    "sections": [s["name"] for s in secs if s["offset"] <= b and a < s["offset"] + s["bytes"]]})
    return res


def remote(out, nt):
    """Open + top level and a selective query over HTTP: requests and bytes counted by the server,
    answers compared with the local file."""
    subject = first_subject(nt)
    query = f"SELECT ?dir ?p ?x WHERE {{ {{ {subject} ?p ?x BIND(\"out\" AS ?dir) }} UNION {{ ?x ?p {subject} BIND(\"in\" AS ?dir) }} }}"
    size = out.stat().st_size
    srv = Server()
    try:
        res = {"file_bytes": size, "subject": subject, "query": query}
        # What the app reads to show the top level: the header and the pyramid's top level.
        for what, args in [("open_info", ["info", "--json"]), ("open_top_level", ["summary", "--json"])]:
            srv.reset()
            p_url, ms_url, client = run_cli(["--stats", args[0], srv.url(out), *args[1:]])
            p_loc, ms_loc, _ = run_cli([args[0], out, *args[1:]])
            res[what] = {**srv.counts(), "client": client, "ms": round(ms_url), "local_ms": round(ms_loc),
                         "same_answer": p_url.returncode == 0 and same_json(p_url.stdout, p_loc.stdout),
                         "exit_code": p_url.returncode}
        srv.reset()
        p_url, ms_url, client = run_cli(["--stats", "sparql", srv.url(out), query, "--format", "tsv"])
        counts = srv.counts()
        requests = [json.loads(l) for l in srv.log.read_text().splitlines() if l.strip()]
        p_loc, ms_loc, _ = run_cli(["sparql", out, query, "--format", "tsv"])
        rows_url = sorted(p_url.stdout.splitlines()[1:])
        rows_loc = sorted(p_loc.stdout.splitlines()[1:])
        res["selective_query"] = {**counts, "client": client, "share_of_file": counts["bytes"] / size,
                                  "rows": len(rows_loc), "same_answer": p_url.returncode == 0 and rows_url == rows_loc,
                                  "ms": round(ms_url), "local_cli_ms": round(ms_loc), "exit_code": p_url.returncode,
                                  "by_section": by_section(out, requests)}
        if p_url.returncode != 0:
            res["selective_query"]["error"] = p_url.stderr.strip()[-400:]
        return res
    finally:
        srv.close()


def queries(people):
    """The bench crate's social shapes against Oxigraph at this size (same answers, ratio)."""
    path = WORK / f"sparql-{people}.json"
    if not (path.exists() and not os.environ.get("REBUILD")):
        log(f"rete-bench: social shapes at {people:,} people vs Oxigraph (3 timed runs each)")
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "rete-bench"], check=True)
        p = subprocess.run(["/usr/bin/time", "-v", BENCH, "--people", str(people), "--lubm", "0", "--runs", "3",
                            "--json", path], capture_output=True, text=True)
        sys.stderr.write("\n".join(p.stderr.splitlines()[-40:]) + "\n")
        if not path.exists():
            return {"error": p.stderr.strip().splitlines()[-10:]}
    env = load_json(path)
    return {
        "datasets": env["datasets"],
        "runs": env["runs"],
        "geomean": dict(env["geomean"]),
        "queries": [{"name": q["name"], "rows": q["rows"], "gate": q["gate"], "identical": q["identical"],
                     "rete_ms": (q["rete"] or {}).get("median_ms"), "oxigraph_ms": (q["oxigraph"] or {}).get("median_ms"),
                     "speedup": q["speedup"], "mismatch": q.get("mismatch")} for q in env["queries"]],
    }


def upstream():
    """Upstream rete-graph's build time on 1 M people (7.9 M triples), for the ≤ 0.25× goal."""
    name, people, _ = "social-1M-people", 1_000_000, None
    nt = WORK / f"{name}.nt"
    if not nt.exists():
        subprocess.run([RETE, "generate", "social", "--people", str(people), "-o", nt], check=True)
    rec = {}
    for tool, cmd in [("rete", [RETE, "build", nt, "-o", WORK / f"{name}.rete"]),
                      ("upstream", [sys.executable, "-c", "import rete_graph, sys; open(sys.argv[2], 'wb').write(rete_graph.build(open(sys.argv[1]).read(), 'nt'))",
                                   nt, WORK / f"{name}-upstream.rete"])]:
        t = time.time()
        p = subprocess.run(["/usr/bin/time", "-v", *map(str, cmd)], capture_output=True, text=True)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        # CPU seconds (user + system) next to the wall time: on a shared machine the wall time
        # depends on the load, the CPU time much less.
        cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", p.stderr))
        rec[tool] = {"wall_ms": round((time.time() - t) * 1000), "cpu_s": round(cpu, 1), "exit_code": p.returncode,
                     "peak_rss_kib": int(rss.group(1)) if rss else None}
    return rec


def main():
    # No size with UPSTREAM=1 or APP=1 runs only those; no arguments at all means 10M.
    sizes = sys.argv[1:] or ([] if os.environ.get("UPSTREAM") or os.environ.get("APP") else ["10M"])
    prev = load_json(OUT) or {}
    by_name = {r["name"]: r for r in prev.get("sizes", [])}
    want_queries = set(os.environ.get("QUERIES", "10M").split(","))
    plan = []
    for spec in sizes:
        name, people, lubm = parse_size(spec)
        nt, meta = generate(name, people, lubm)
        plan.append((spec, name, people, nt, meta))
    built = build_all([(name, nt) for _, name, _, nt, _ in plan])
    for spec, name, people, nt, meta in plan:
        out, rec = built[name]
        row = {"name": name, "spec": spec, **meta, "build": rec}
        row["rss_within_2gib"] = rec["peak_rss_kib"] is not None and rec["peak_rss_kib"] * 1024 <= 2 * GIB
        if rec["exit_code"] == 0:
            row["rete_over_gzip9"] = rec["rete_bytes"] / meta["gzip9_bytes"]
            log(f"remote measurements on {name}")
            row["remote"] = remote(out, nt)
            if spec in want_queries and people is not None:
                row["queries"] = queries(people)
            elif "queries" in by_name.get(name, {}):
                # Not re-run (QUERIES leaves this size out): the last measurement, marked so.
                row["queries"] = {**by_name[name]["queries"], "carried_over": True}
        by_name[name] = row
        MEASURED.add(name)
        # Written after every size: a later size that runs out of time keeps the earlier ones.
        write(prev, by_name)
    if os.environ.get("UPSTREAM"):
        prev["upstream"] = upstream()
        MEASURED.add("upstream")
        write(prev, by_name)
    if os.environ.get("APP"):
        social = [r for r in by_name.values() if r.get("people") and r["build"]["exit_code"] == 0]
        big = max(social, key=lambda r: r["triples"])
        log(f"app benchmark on {big['name']}")
        res = WORK / "app-scale.json"
        subprocess.run(["bash", "scripts/bench-scale-app.sh", WORK / f"{big['name']}.rete", res], check=True)
        prev["app"] = {"file": big["name"], **(load_json(res) or {})}
        MEASURED.add("app")
        write(prev, by_name)


def write(prev, by_name):
    # Another run may have written sizes meanwhile (e.g. 30M while 10M's queries ran): keep its
    # rows and keys, replacing only what this run measured.
    disk = load_json(OUT) or {}
    merged = {r["name"]: r for r in disk.get("sizes", [])}
    merged.update({k: v for k, v in by_name.items() if k in MEASURED or k not in merged})
    by_name = merged
    prev = {**{k: v for k, v in disk.items() if k in ("upstream", "app", "notes")}, **{k: v for k, v in prev.items() if k in MEASURED}}
    rete_version = subprocess.run([RETE, "--version"], capture_output=True, text=True).stdout.split()[-1]
    env = {
        "schema": "rete-bench/scale/v1",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpus": os.cpu_count(), "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GIB),
                    "os": subprocess.run(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"], capture_output=True, text=True).stdout.strip(),
                    "shared": os.environ.get("BENCH_SHARED", "Anything else running shares the cores: see the notes for the load")},
        "rete_version": rete_version,
        "sizes": sorted(by_name.values(), key=lambda r: r["triples"]),
    }
    for k in ("upstream", "app", "notes"):
        if k in prev:
            env[k] = prev[k]
    OUT.write_text(json.dumps(env, indent=2) + "\n")
    subprocess.run([sys.executable, "scripts/render-bench.py"], check=True)
    log(f"wrote {OUT}")


if __name__ == "__main__":
    main()
