#!/usr/bin/env python3
"""Renders docs/benchmark-build.json into the build section of docs/BENCHMARK.md (between
<!-- build:start --> and <!-- build:end -->), leaving the other sections as they are."""
import json, pathlib, re

root = pathlib.Path(__file__).resolve().parent.parent
data = json.loads((root / "docs/benchmark-build.json").read_text())
doc_path = root / "docs/BENCHMARK.md"
doc = doc_path.read_text() if doc_path.exists() else "# Benchmarks\n"

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
section = "\n".join(lines)
if "<!-- build:start -->" in doc:
    doc = re.sub(r"<!-- build:start -->.*?<!-- build:end -->", lambda _: section, doc, flags=re.S)
else:
    doc = doc.rstrip() + "\n\n" + section + "\n"
doc_path.write_text(doc)
