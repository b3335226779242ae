#!/usr/bin/python3
"""Watches a rectangle of the X screen and says when its final picture first showed (launch benchmark).

Polls the root window's pixels every few milliseconds (XGetImage through GDK), keeping a sample of
each frame, until standard input closes (the launcher closes it once the app reports its view
drawn and has let it settle). The last frame is the reference: it must be drawn (at least
MIN_COLOURS distinct colours, at least MIN_SHARE of it other than its most common colour). Prints
the wall-clock time in ms since the epoch of the first frame from which on every frame matches the
reference, so a welcome page, an empty stage or a half-drawn map before it do not count; exits 1
if the reference is not drawn or after TIMEOUT seconds.

usage: watch-pixels.py X Y WIDTH HEIGHT [TIMEOUT] [MIN_COLOURS] [MIN_SHARE]
"""
import os
import select
import sys
import time
from collections import Counter

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk  # noqa: E402

x, y, w, h = (int(a) for a in sys.argv[1:5])
timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 60.0
min_colours = int(sys.argv[6]) if len(sys.argv) > 6 else 8
min_share = float(sys.argv[7]) if len(sys.argv) > 7 else 0.02
STEP = 6  # every 6th pixel of every 6th row: enough to tell one picture from another


def grab():
    """The rectangle's raw pixels (cheap: the watcher must not slow down the app it watches)."""
    pb = Gdk.pixbuf_get_from_window(root, x, y, w, h)
    return None if pb is None else (pb.get_pixels(), pb.get_rowstride(), pb.get_n_channels())


def pixels(raw):
    data, stride, n = raw
    return [bytes(data[r * stride + c * n : r * stride + c * n + 3]) for r in range(0, h, STEP) for c in range(0, w, STEP)]


root = Gdk.get_default_root_window()
print("ready", flush=True)
end = time.monotonic() + timeout
frames = []
last = None
while time.monotonic() < end:
    raw = grab()
    # Only changes are kept (a C-speed comparison); the pixel analysis runs once the watch is over.
    if raw is not None and (last is None or raw[0] != last[0]):
        frames.append((int(time.time() * 1000), raw))
        last = raw
    if select.select([sys.stdin], [], [], 0.008)[0] and not os.read(sys.stdin.fileno(), 1024):
        break
else:
    print("watch-pixels: timed out", file=sys.stderr)
    sys.exit(1)

if not frames:
    print("watch-pixels: no image of the screen", file=sys.stderr)
    sys.exit(1)
frames = [(t, pixels(raw)) for t, raw in frames]
final = frames[-1][1]
counts = Counter(final)
background, most = counts.most_common(1)[0]
drawn_share = 1 - most / len(final)
if len(counts) < min_colours or drawn_share < min_share:
    print(f"watch-pixels: the final picture is not drawn ({len(counts)} colours, {drawn_share:.1%} drawn)", file=sys.stderr)
    sys.exit(1)
# A frame "matches" when it differs from the final one in at most a quarter of the final's drawn
# pixels (and never more than 1 % of the rectangle): antialiasing may settle, the map may not move.
allowed = min(0.01 * len(final), 0.25 * drawn_share * len(final))
first = len(frames) - 1
for i in range(len(frames) - 1, -1, -1):
    diff = sum(a != b for a, b in zip(frames[i][1], final))
    if diff > allowed:
        break
    first = i
print(frames[first][0], flush=True)
