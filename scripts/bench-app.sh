#!/usr/bin/env bash
# App launch benchmark: starts the release app on the 200k-people social sample N times (default
# 7) under Xvfb, with a D-Bus session bus as a desktop has, and times spawn → the top level on
# screen (a watcher polls the screen's pixels; the app's trace, RETE_LAUNCH_TRACE=1, gives the
# breakdown). No WebDriver in between: this is what a double-click costs. Needs the e2e tooling
# (`bash scripts/setup.sh`: Xvfb, dbus-daemon, python3-gi). Writes docs/benchmark-app.json and the
# app section of docs/BENCHMARK.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
people=${PEOPLE:-200000}
work=${BENCH_DIR:-bench-data}
/usr/bin/python3 -c 'import gi' 2>/dev/null || { echo "bench-app: needs python3-gi (bash scripts/setup.sh)" >&2; exit 2; }
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
floor=$(mktemp)
# Interleaved, one launch of each at a time: this machine's speed drifts over minutes, and the
# scale rows (the simplest pages it can show: the app's start page, WebKit alone) must be taken
# under the same conditions as the launch they are compared with.
for _ in $(seq "$runs"); do
  node e2e/bench/launch.mjs "$app" "$file" 1 >>"$out"
  node e2e/bench/floor.mjs "$app" 1 >>"$floor"
done
python3 - "$out" "$file" "$app" "$floor" <<'PY'
import json, statistics, sys, pathlib, re, datetime, os
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
floor_rows = [json.loads(l) for l in open(sys.argv[4]) if l.strip()]
med = statistics.median
def stats(key):
    xs = [r[key] for r in rows]
    return {"median": med(xs), "min": min(xs), "max": max(xs)}
shown, drawn, proc = stats("launch_to_shown_ms"), stats("launch_to_drawn_ms"), stats("process_to_drawn_ms")
# One clock for the whole launch: ms since the spawn. Shell marks count from the process's start,
# page marks from the page's own start (placed on the process clock by the app).
steps = [("process", "process starts (exec, dynamic loading)"), ("built", "shell built (GTK, plugins)"),
         ("setup", "window and webview created"), ("page-started", "page starts loading"),
         ("script", "UI script runs"), ("listening", "listening to the shell"),
         ("map-mounting", "map view mounting"), ("map-created", "sigma created"),
         ("opened", "file opened"), ("top-level", "top level received"),
         ("graph-built", "map graph built"), ("render-start", "sigma starts its frame"),
         ("drawn", "first frame rendered (in the page)"), ("shown", "**on screen** (pixels)")]
def at(r, step):
    if step == "process":
        return r["spawn_to_process_ms"]
    if step == "shown":
        return r["launch_to_shown_ms"]
    if step in r.get("shell_ms", {}):
        return r["spawn_to_process_ms"] + r["shell_ms"][step]
    if step in r.get("page_ms", {}):
        return r["spawn_to_process_ms"] + r["page_origin_ms"] + r["page_ms"][step]
    return None
timeline = {}
for step, _ in steps:
    xs = [v for v in (at(r, step) for r in rows) if v is not None]
    if xs:
        timeline[step] = med(xs)
floor = {}
for r in floor_rows:
    floor.setdefault(r["what"], []).append(r["shown_ms"])
floor = {k: {"median": med(v), "min": min(v), "max": max(v)} for k, v in floor.items()}
webkit = floor.get("WebKitGTK MiniBrowser, static page", {}).get("median")
floor_verdict = ("" if webkit is None else
                 ": the goal lies below what WebKit alone takes on this machine, so it can only be judged on a faster machine with a GPU"
                 if webkit > 500 else
                 f": WebKit alone uses {webkit:,.0f} ms of the 500 ms here, which leaves {500 - webkit:,.0f} ms for the shell, the UI, the file and the first WebGL frame")
env = {"schema": "rete-bench/app-launch/v3", "date": datetime.date.today().isoformat(),
       "app": sys.argv[3], "file": os.path.basename(sys.argv[2]), "bytes": os.path.getsize(sys.argv[2]),
       "runs": rows, "launch_to_shown_ms": shown, "launch_to_drawn_ms": drawn, "process_to_drawn_ms": proc,
       "timeline_median_ms": timeline, "floor_ms": floor, "floor_runs": floor_rows}
root = pathlib.Path(".")
(root / "docs/benchmark-app.json").write_text(json.dumps(env, indent=2) + "\n")
f = lambda x: f"{x:,.0f} ms"
row = lambda name, st: f"| {name} | {f(st['median'])} | {f(st['min'])} | {f(st['max'])} |"
lines = "\n".join(f"| {label} | {timeline[k]:,.0f} |" for k, label in steps if k in timeline)
section = f"""<!-- app:start -->
## App: launch → top level on screen

The desktop app (`{env['app']}`) started directly, as a double-click does, on `{env['file']}`
({env['bytes']/1048576:.1f} MiB, 200,000 people, 1.58 M triples), {len(rows)} launches under Xvfb
with a D-Bus session bus, software WebGL and compositing (Mesa llvmpipe), on the 2-core machine, {env['date']}.
"On screen" comes from a watcher polling the screen's pixels over the map
(`e2e/tools/watch-pixels.py`): once the app reports its first frame and the screen has settled,
the last picture is the reference, and the time is that of the first picture from which on the
screen matches it (so the welcome page or an empty stage never count). The app's own trace
(`RETE_LAUNCH_TRACE=1`) gives the breakdown. Goal: ≤ 500 ms. Reproduce with
`scripts/bench-app.sh` (JSON in `docs/benchmark-app.json`).

| measure | median | min | max |
|---|---:|---:|---:|
{row("spawn → top level on screen (pixels)", shown)}
{row("spawn → first frame reported to the shell", drawn)}
{chr(10).join(row(f"for scale: {k}, spawn → on screen", v) for k, v in floor.items())}

Where the time goes (medians, ms since the spawn):

| step | at |
|---|---:|
{lines}

### What limits it

{"The goal is met." if shown["median"] <= 500 else "The goal is **not met**."} For scale (the
"for scale" rows, `e2e/bench/floor.mjs`): on this machine WebKitGTK's own MiniBrowser needs
{floor.get("WebKitGTK MiniBrowser, static page", {}).get("median", float("nan")):,.0f} ms to show a static local page, and the app's start page (no file, no
map) shows after {floor.get("app start page (no file)", {}).get("median", float("nan")):,.0f} ms{floor_verdict}. About a third of
the time passes before the page starts loading (the process, GTK, the window, WebKit's web and
network processes); the page then needs its script, the document layout with sigma's canvases
(created while the shell opens the file, not after) and the first frame; the last stretch, from
the frame rendered in the page to the screen, is WebKit compositing the window in software. The
engine's part (open + top level, one read after the header) is under a millisecond. This machine
has no GPU: WebGL and compositing run on the CPU, and the app was not measured on a GPU.

<!-- app:end -->"""
doc = (root / "docs/BENCHMARK.md").read_text()
doc = re.sub(r"<!-- app:start -->.*?<!-- app:end -->", lambda _: section, doc, flags=re.S)
(root / "docs/BENCHMARK.md").write_text(doc)
print(json.dumps({"shown": shown, "drawn": drawn, "timeline": timeline}))
PY
rm -f "$out" "$floor"
