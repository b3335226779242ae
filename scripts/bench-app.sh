#!/usr/bin/env bash
# App launch benchmark: starts the release app on the 200k-people social sample N times (default
# 7) under Xvfb, with a D-Bus session bus as a desktop has, and times spawn → the first frame that
# shows the top level (the app prints it with RETE_LAUNCH_TRACE=1; a screenshot checks the map is
# drawn). No WebDriver in between: this is what a double-click costs. Needs the e2e tooling
# (`bash scripts/setup.sh`) and ImageMagick's `import`. Writes docs/benchmark-app.json and the app
# section of docs/BENCHMARK.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
people=${PEOPLE:-200000}
work=${BENCH_DIR:-bench-data}
command -v import >/dev/null || { echo "bench-app: needs ImageMagick's import (apt install imagemagick)" >&2; exit 2; }
mkdir -p "$work"
file="$work/social-$people-app.rete"
if [ ! -f "$file" ]; then
  cargo build --release -q -p rete-cli
  [ -f "$work/social-$people.nt" ] || target/release/rete generate social --people "$people" -o "$work/social-$people.nt"
  target/release/rete build -q "$work/social-$people.nt" -o "$file"
fi
# The release app, as `npm run build` ships it (incremental: quick when nothing changed).
app=${RETE_APP:-}
if [ -z "$app" ]; then
  npm run -s tauri -- build --no-bundle >/dev/null
  app=target/release/rete-desktop
fi
out=$(mktemp)
node e2e/bench/launch.mjs "$app" "$file" "$runs" >"$out"
python3 - "$out" "$file" "$app" <<'PY'
import json, statistics, sys, pathlib, re, datetime, os
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
med = statistics.median
def stats(key):
    xs = [r[key] for r in rows]
    return {"median": med(xs), "min": min(xs), "max": max(xs)}
shown, drawn, proc = stats("launch_to_shown_ms"), stats("launch_to_drawn_ms"), stats("process_to_drawn_ms")
marks = ["script", "mounted", "listening", "opened", "map-mounting", "map-created", "top-level", "drawn"]
page = {m: med([r["page_ms"][m] for r in rows if m in r["page_ms"]]) for m in marks if any(m in r["page_ms"] for r in rows)}
env = {"schema": "rete-bench/app-launch/v2", "date": datetime.date.today().isoformat(),
       "app": sys.argv[3], "file": os.path.basename(sys.argv[2]), "bytes": os.path.getsize(sys.argv[2]),
       "runs": rows, "launch_to_shown_ms": shown, "launch_to_drawn_ms": drawn, "process_to_drawn_ms": proc,
       "page_marks_median_ms": page}
root = pathlib.Path(".")
(root / "docs/benchmark-app.json").write_text(json.dumps(env, indent=2) + "\n")
f = lambda x: f"{x:,.0f} ms"
row = lambda name, st: f"| {name} | {f(st['median'])} | {f(st['min'])} | {f(st['max'])} |"
labels = {"script": "UI script runs", "mounted": "UI mounted", "listening": "listening to the shell",
          "opened": "file opened", "map-mounting": "map view mounting", "map-created": "sigma created",
          "top-level": "top level received", "drawn": "first frame rendered"}
section = f"""<!-- app:start -->
## App: launch → top level on screen

The desktop app (`{env['app']}`) started directly, as a double-click does, on `{env['file']}`
({env['bytes']/1048576:.1f} MiB, 200,000 people, 1.58 M triples), {len(rows)} launches under Xvfb
with a D-Bus session bus, software WebGL (Mesa llvmpipe), on the 2-core machine. "On screen" is
when a watcher polling the screen's pixels (`e2e/tools/watch-pixels.py`) first sees the map drawn;
the app's own trace (`RETE_LAUNCH_TRACE=1`) gives the breakdown. Goal: ≤ 500 ms. Reproduce with
`scripts/bench-app.sh` (JSON in `docs/benchmark-app.json`).

| measure | median | min | max |
|---|---:|---:|---:|
{row("spawn → top level on screen (pixels)", shown)}
{row("spawn → first frame reported to the shell", drawn)}
{row("process start → first frame reported to the shell", proc)}

Inside the page (medians, ms since the webview began loading it):

| {' | '.join(labels[m] for m in page)} |
|{'---:|' * len(page)}
| {' | '.join(f"{v:,.0f}" for v in page.values())} |

{"The goal is met." if shown["median"] <= 500 else "The goal is **not met**."} Where the time
goes: about 300 ms pass between the process starting and the page starting to load (GTK, the
window, WebKit's web process); in the page, the UI bundle (270 kB; the SPARQL editor loads on
first use) runs in about 50 ms, the shell round trips take about 60 ms, and the first layout of
the document view with sigma's canvases (measured at about 120 ms inside sigma's first `resize`)
and the first frame take most of the rest. The engine's part (open + top level, one read after
the header) is under a millisecond. Reports to the shell lag the screen (they queue behind the
UI thread), so the pixel watcher is the number that counts. (The first version of this benchmark
drove a debug build through WebDriver and measured 1,221 ms; that included the WebDriver session
and is not comparable.) This machine has no GPU: WebGL runs in software, and the app was not measured on a GPU.
<!-- app:end -->"""
doc = (root / "docs/BENCHMARK.md").read_text()
doc = re.sub(r"<!-- app:start -->.*?<!-- app:end -->", lambda _: section, doc, flags=re.S)
(root / "docs/BENCHMARK.md").write_text(doc)
print(json.dumps({"shown": shown, "drawn": drawn, "page": page}))
PY
rm -f "$out"
