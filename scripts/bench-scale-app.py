#!/usr/bin/env python3
"""The app part of the scale benchmark, summarised: the raw runs and the goals' table
(`results`, rendered by scripts/render-bench.py).

Usage: bench-scale-app.py TMPDIR OUT.json APP   the files of a run of scripts/bench-scale-app.sh
                                                (big.jsonl, small.jsonl, webkit.jsonl, explore.json,
                                                floor.json)
       bench-scale-app.py --again RUN.json      the table again from a stored run (its other keys
                                                are kept), after the goals' rules changed
"""
import json, statistics, sys, pathlib

if sys.argv[1] == "--again":
    out = sys.argv[2]
    stored = json.loads(pathlib.Path(out).read_text())
    app = "rete-desktop"
    b = [{"launch_to_shown_ms": x} for x in stored["launch_big_ms"]]
    s = [{"launch_to_shown_ms": x} for x in stored["launch_small_ms"]]
    webkit = stored.get("webkit_floor", [])
    e, fl = stored["explore"], stored["floor"]
else:
    tmp, out, app = sys.argv[1:4]
    stored = {}
    t = pathlib.Path(tmp)
    rows = lambda f: [json.loads(l) for l in (t / f).read_text().splitlines() if l.strip()]
    b, s, webkit = rows("big.jsonl"), rows("small.jsonl"), rows("webkit.jsonl")
    e = json.loads((t / "explore.json").read_text())
    fl = json.loads((t / "floor.json").read_text())
mb = statistics.median(r["launch_to_shown_ms"] for r in b)
ms = statistics.median(r["launch_to_shown_ms"] for r in s)
su, sf = e["summary"], fl["summary"]
mem, memf = e["memory_at_end"], fl["memory_at_end"]
# The memory floor: per probe, the medians of the process alone and with its WebKit processes.
wk = {}
for r in webkit:
    wk.setdefault(r["what"], []).append(r)
wk = {w: {k: statistics.median(x[k] for x in v) for k in ("app_kib", "total_kib")} for w, v in wk.items()}
f = lambda x: "–" if x is None else f"{x:,.0f} ms"
two = lambda x, key: f"{f(x[key + '_median_ms'])} / {f(x[key + '_max_ms'])}"
def ratio(key):
    a, c = su.get(key), sf.get(key)
    return None if a is None or not c else round(a / c, 2)
mib = lambda m: f"{m['app_kib'] / 1024:,.0f} MiB / {m['total_kib'] / 1024:,.0f} MiB"
# The engine's share of a step: the app's command span (IPC included) inside each trace.
def engine(x, kinds, name):
    v = [b - a for t in x.get("traces", []) if t["kind"] in kinds for n, a, b in t["spans"] if n == name]
    return (statistics.median(v), max(v)) if v else (None, None)
def eng(kinds, name, goal_ms):
    (m, mx), (fm, fmx) = engine(e, kinds, name), engine(fl, kinds, name)
    return {"value": f"{f(m)} / {f(mx)}", "floor": f"{f(fm)} / {f(fmx)}",
            "ratio": None if m is None or not fm else round(m / fm, 2), "goal": f"≤ {goal_ms} ms",
            "met": None if mx is None else mx <= goal_ms}
# What the app's caches hold (the `memory_use` command, after each round; runs before it have
# none), in KiB: what they take in bytes, the bounded part of a growth.
def held(c):
    if not c or "error" in c:
        return None
    return c["block_kib"] + c["pyramid_kib"] + c.get("range_kib", 0) + c.get("kept_result_kib", 0) + c.get("seen_kib", 0)
# Bounded or growing: the memory series over the exploration's second half, read against what
# the caches took on over it.
def drift(x):
    ser = x.get("memory_series") or []
    late = ser[len(ser) // 2:]
    if len(late) < 2:
        return None
    tot = [r["total_kib"] / 1024 for r in late]
    d = {"from_s": late[0]["s"], "to_s": late[-1]["s"], "min_mib": round(min(tot)), "max_mib": round(max(tot)),
         "app_first_mib": round(late[0]["app_kib"] / 1024), "app_last_mib": round(late[-1]["app_kib"] / 1024),
         "growth_kib": late[-1]["app_kib"] - late[0]["app_kib"], "allowed_kib": 0.05 * late[0]["app_kib"]}
    h0, h1 = held(late[0].get("caches")), held(late[-1].get("caches"))
    if h0 is not None and h1 is not None:
        d.update(caches_first_mib=round(h0 / 1024), caches_last_mib=round(h1 / 1024))
        d["allowed_kib"] += max(h1 - h0, 0)
    return d
dr, drf = drift(e), drift(fl)
span = lambda d: "–" if d is None else (f"{d['min_mib']:,}–{d['max_mib']:,} MiB in all, app process {d['app_first_mib']:,} → "
                                          f"{d['app_last_mib']:,} MiB ({d['from_s']}–{d['to_s']} s)"
                                          + (f", its caches {d['caches_first_mib']:,} → {d['caches_last_mib']:,} MiB"
                                             if "caches_first_mib" in d else ""))
# The caches at the end, each with its bound.
def fill(x):
    c = x["memory_at_end"].get("caches")
    if not c or "error" in c:
        return None, None
    text = (f"blocks {c['block_kib'] / 1024:,.0f} / {c['max_block_kib'] / 1024:,.0f} MiB, directories "
            f"{c['directory_kib'] / 1024:,.1f} MiB, pyramid {c['pyramid_blocks']} / {c['max_pyramid_blocks']} blocks "
            f"({c['pyramid_kib'] / 1024:,.1f} MiB), {c['seen_items']:,} / {c['max_seen_items']:,} communities and "
            f"super-edges kept" + (f" ({c['seen_kib'] / 1024:,.1f} MiB)" if "seen_kib" in c else "")
            + f", {c['kept_results']} query results"
            + (f" ({c['kept_result_kib'] / 1024:,.1f} MiB)" if "kept_result_kib" in c else "")
            + (f", ranges {c['range_kib'] / 1024:,.0f} / {c['max_range_kib'] / 1024:,.0f} MiB" if c.get("max_range_kib") else ""))
    ok = (c["block_kib"] <= c["max_block_kib"] and c["pyramid_blocks"] <= c["max_pyramid_blocks"]
          and c["seen_items"] <= c["max_seen_items"] and c.get("range_kib", 0) <= c.get("max_range_kib", 0) + (0 if c.get("max_range_kib") else 1))
    return text, ok
# The page's frame floor just before each timed step (`floor` traces, e2e/bench/scale.e2e.mjs): a
# line of text shown, timed as a step is. A step's time over the floor before it is the app's part.
def floors(x, kinds):
    tr = x.get("traces", [])
    pairs = [(tr[i - 1]["ms"], t["ms"]) for i, t in enumerate(tr) if t["kind"] in kinds and i > 0
             and tr[i - 1]["kind"] == "floor" and tr[i - 1].get("before") == t["kind"]]
    return [p for p, _ in pairs], [m - p for p, m in pairs]
def mm(v):
    return f"{f(statistics.median(v))} / {f(max(v))}" if v else "– / –"
def floor_rows():
    steps = [("zoom",), ("details",), ("tier0",)]
    if not floors(e, sum(steps, ()))[0]:
        return []
    rows = [{"what": "the page's frame floor just before a step: a line of text shown, + two frames (median / max)",
             "value": mm(floors(e, sum(steps, ()))[0]), "floor": mm(floors(fl, sum(steps, ()))[0]), "ratio": None,
             "goal": "(for scale)", "met": None, "verdict": "reported"}]
    for kinds, name in zip(steps, ("zoom", "a node's details, the camera settled,", "coherence Tier 0")):
        a, c = floors(e, kinds)[1], floors(fl, kinds)[1]
        rows.append({"what": f"{name} over the frame floor just before it (median / max)", "value": mm(a), "floor": mm(c),
                     "ratio": None if not a or not c or statistics.median(c) <= 0 or statistics.median(a) < 0 else round(statistics.median(a) / statistics.median(c), 2),
                     "goal": "(for scale)", "met": None, "verdict": "reported"})
    return rows
fill_e, fill_ok = fill(e)
fill_f, _ = fill(fl)
goals = [
    {"what": "launch → top level on screen", "value": f"{mb:,.0f} ms", "floor": f"{ms:,.0f} ms", "ratio": round(mb / ms, 2), "goal": "≤ 1.2× the 20k sample", "met": mb / ms <= 1.2},
    {"what": "zoom into a community → children drawn (median / max)", "value": two(su, "zoom"), "floor": two(sf, "zoom"), "ratio": ratio("zoom_median_ms"), "goal": "≤ 200 ms", "met": su["zoom_max_ms"] is not None and su["zoom_max_ms"] <= 200},
    {"what": "a node's details, the camera settled (median / max)", "value": two(su, "details"), "floor": two(sf, "details"), "ratio": ratio("details_median_ms"), "goal": "≤ 100 ms", "met": None if su["details_max_ms"] is None else su["details_max_ms"] <= 100},
    {"what": "a node's details, clicked during the zoom's camera flight (median / max)", "value": two(su, "details_in_flight"), "floor": two(sf, "details_in_flight"), "ratio": ratio("details_in_flight_median_ms"), "goal": "(for scale)", "met": None, "verdict": "reported"},
    {"what": "selective query, one subject's links: engine time (median / max)", "value": two(su, "query_engine"), "floor": two(sf, "query_engine"), "ratio": ratio("query_engine_median_ms"), "goal": "≤ 50 ms", "met": su["query_engine_max_ms"] is not None and su["query_engine_max_ms"] <= 50},
    {"what": "selective query: click → rows shown (median)", "value": f(su["query_round_trip_median_ms"]), "floor": f(sf["query_round_trip_median_ms"]), "ratio": ratio("query_round_trip_median_ms"), "goal": "(for scale)", "met": None, "verdict": "reported"},
    # A selected community's children are fetched in the background (ui/src/lib/core/map prefetch):
    # when every zoom found them there, no expand span lies inside a zoom's time.
    {"what": "zoom: the engine's answer (the expand command, IPC included; median / max)", **eng(("zoom",), "expand", 200), **({} if engine(e, ("zoom",), "expand")[0] is not None else
       {"value": "fetched ahead, when the community was selected", "met": None, "verdict": "reported"})},
    {"what": "details: the engine's answer (the entity command, IPC included; median / max)", **eng(("details", "details-in-flight"), "entity", 100)},
    {"what": "coherence Tier 0 (median / max)", "value": two(su, "tier0"), "floor": two(sf, "tier0"), "ratio": ratio("tier0_median_ms"), "goal": "≤ 50 ms", "met": su["tier0_max_ms"] is not None and su["tier0_max_ms"] <= 50},
    {"what": "coherence Tier 0: the engine's run (the coherence command, IPC included; median / max)", **eng(("tier0",), "coherence_run", 50)},
    *floor_rows(),
    {"what": "memory over the exploration's second half: bounded, or growing?", "value": span(dr), "floor": span(drf), "ratio": None,
     "goal": "the app process bounded: it grows by at most what its caches took on, + 5 %",
     "met": None if dr is None else dr["growth_kib"] <= dr["allowed_kib"]},
    *([] if fill_e is None else [{"what": "memory: the app's caches at the end (fill / bound)", "value": fill_e, "floor": fill_f or "–",
       "ratio": None, "goal": "each within its bound", "met": fill_ok}]),
    *({"what": f"memory, the floor of a WebKit page here: {w} (process / with its WebKit processes)", "value": mib(m),
       "floor": "–", "ratio": None, "goal": "(for scale)", "met": None, "verdict": "reported"} for w, m in wk.items()),
    {"what": f"memory after {e['explore_s']} s of exploration ({e['rounds']} rounds; sample: {fl['rounds']}): the app process", "value": f"{mem['app_kib'] / 1024:,.0f} MiB", "floor": f"{memf['app_kib'] / 1024:,.0f} MiB", "ratio": round(mem["app_kib"] / memf["app_kib"], 2), "goal": "≤ 500 MB", "met": mem["app_kib"] * 1024 <= 500e6},
    {"what": f"memory after {e['explore_s']} s of exploration: the app process with WebKit's processes", "value": f"{mem['total_kib'] / 1024:,.0f} MiB", "floor": f"{memf['total_kib'] / 1024:,.0f} MiB", "ratio": round(mem["total_kib"] / memf["total_kib"], 2), "goal": "≤ 500 MB", "met": mem["total_kib"] * 1024 <= 500e6},
]
method = (f"The release app (`{pathlib.Path(app).name}`) under Xvfb with software WebGL. Launch: `e2e/bench/launch.mjs`, "
          f"{len(b)} launches on each file, interleaved, spawn → top level on screen by the screen's pixels. The rest: "
          "`e2e/bench/scale.e2e.mjs` through WebdriverIO; each time is taken in the page from the click to the answering "
          "state plus two animation frames (WebDriver's round trips excluded), with a pixel check of the map after each "
          "measured step; just before each, the page's frame floor: a line of text added to the page, timed the same "
          "way (shown at the first animation frame, plus two frames). Zoom = `Zoom in` on a community until its children are on the map; details = a member's links "
          "shown, the member clicked once the zoom's camera flight (500 ms) has settled, as the map clicks are, and "
          "every other round during that flight (reported apart: each of its frames draws sigma's layers); query = `SELECT ?p ?o WHERE { <person> ?p ?o }` (the app's reported engine time; a random person each "
          "round); memory = VmRSS of the app and its descendant processes at the end, and after each round (the series). "
          "The engine rows read the app's own spans in the same traces: a command's round trip from the page, IPC "
          "included. The memory floor: `e2e/bench/floor.mjs`, the app with no file and WebKitGTK's MiniBrowser on a "
          "static page, VmRSS once settled (medians). The floor: the same launch and the "
          "same scripted exploration on the 20k-people sample (samples/social-20k.rete), in the same run; ratio = big file "
          "/ sample (medians). The absolute goals are the project's; there is no GPU here, so each step's frames are "
          "composited in software GL on both files.")
res = {**stored, "launch_big_ms": [r["launch_to_shown_ms"] for r in b], "launch_small_ms": [r["launch_to_shown_ms"] for r in s],
       "webkit_floor": webkit, "explore": e, "floor": fl, "results": {"method": method, "goals": goals}}
pathlib.Path(out).write_text(json.dumps(res, indent=2) + "\n")
