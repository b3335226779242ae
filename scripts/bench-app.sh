#!/usr/bin/env bash
# App launch benchmark: launch the desktop app on the 200k-people social sample N times (default 5)
# and time launch → top level drawn (checked on screenshot pixels). Needs the app built
# (`npm run build:debug`, copied to target/app/rete-desktop as .ci/app.sh does) and the e2e
# tooling. Writes docs/benchmark-app.json and the app section of docs/BENCHMARK.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
people=${PEOPLE:-200000}
work=${BENCH_DIR:-bench-data}
mkdir -p "$work"
file="$work/social-$people-app.rete"
if [ ! -f "$file" ]; then
  cargo build --release -q -p rete-cli
  [ -f "$work/social-$people.nt" ] || target/release/rete generate social --people "$people" -o "$work/social-$people.nt"
  target/release/rete build -q "$work/social-$people.nt" -o "$file"
fi
out=$(mktemp)
for _ in $(seq "$runs"); do
  RETE_BENCH_FILE="$(realpath "$file")" RETE_BENCH_OUT="$out" npx wdio run e2e/bench.conf.mjs >/dev/null
done
python3 - "$out" "$file" <<'PY'
import json, statistics, sys, pathlib, re, datetime, os
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
launch = [r["launch_to_drawn_ms"] for r in rows]
page = [r["page_to_drawn_ms"] for r in rows]
env = {"schema": "rete-bench/app-launch/v1", "date": datetime.date.today().isoformat(),
       "file": os.path.basename(sys.argv[2]), "bytes": os.path.getsize(sys.argv[2]), "nodes": rows[0]["nodes"],
       "runs": rows, "launch_to_drawn_ms": {"median": statistics.median(launch), "min": min(launch), "max": max(launch)},
       "page_to_drawn_ms": {"median": statistics.median(page), "min": min(page), "max": max(page)}}
root = pathlib.Path(".")
(root / "docs/benchmark-app.json").write_text(json.dumps(env, indent=2) + "\n")
l, p = env["launch_to_drawn_ms"], env["page_to_drawn_ms"]
section = f"""<!-- app:start -->
## App: launch → top level drawn

The desktop app (debug profile, dependencies optimized) launched by WebDriver under Xvfb (software
WebGL) on `{env['file']}` ({env['bytes']/1048576:.1f} MiB, 200,000 people, 1.58 M triples),
{len(rows)} launches on the 2-core machine; "drawn" means the map published its node count with no
request pending and a screenshot shows the graph. Goal: ≤ 500 ms. Reproduce with
`scripts/bench-app.sh` (JSON in `docs/benchmark-app.json`).

| measure | median | min | max |
|---|---:|---:|---:|
| process launch → top level drawn | {l['median']:,.0f} ms | {l['min']:,} ms | {l['max']:,} ms |
| page load → top level drawn | {p['median']:,.0f} ms | {p['min']:,} ms | {p['max']:,} ms |

The top level ({env['nodes']} communities) comes from the pyramid's first section, one read after
the header; the rest of launch is process and webview start-up (WebKitGTK, software rendering).
{"The goal is met." if l['median'] <= 500 else "The goal is **not met**: the engine's part (open + top level, under 1 ms in release, see [semantic-zoom.md](semantic-zoom.md)) is negligible; the time goes to starting WebKitGTK and the WebDriver session, loading the UI bundle and sigma's first software-rendered frames. A release build, GPU rendering and a lighter first paint are the levers; not done yet."}
<!-- app:end -->"""
doc = (root / "docs/BENCHMARK.md").read_text()
if "<!-- app:start -->" in doc:
    doc = re.sub(r"<!-- app:start -->.*?<!-- app:end -->", lambda _: section, doc, flags=re.S)
else:
    doc = doc.rstrip() + "\n\n" + section + "\n"
(root / "docs/BENCHMARK.md").write_text(doc)
print(json.dumps(env["launch_to_drawn_ms"]), json.dumps(env["page_to_drawn_ms"]))
PY
rm -f "$out"
