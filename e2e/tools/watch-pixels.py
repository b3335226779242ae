#!/usr/bin/python3
"""Watches a rectangle of the X screen until something is drawn in it (launch benchmark).

Polls the root window's pixels every few milliseconds (XGetImage through GDK) and prints the
wall-clock time in ms since the epoch at which the rectangle first shows at least MIN_COLOURS
distinct colours and covers at least MIN_SHARE of it with something other than its most common
colour; exits 1 after TIMEOUT seconds without that.

usage: watch-pixels.py X Y WIDTH HEIGHT [TIMEOUT] [MIN_COLOURS] [MIN_SHARE]
"""
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

root = Gdk.get_default_root_window()
print("ready", flush=True)
end = time.monotonic() + timeout
pb = None
while time.monotonic() < end:
    pb = Gdk.pixbuf_get_from_window(root, x, y, w, h)
    if pb is not None:
        data, stride, n = pb.get_pixels(), pb.get_rowstride(), pb.get_n_channels()
        # Every 8th pixel of every 8th row: enough to tell a drawn map from a blank one.
        seen = Counter(
            data[r * stride + c * n : r * stride + c * n + 3] for r in range(0, h, 8) for c in range(0, w, 8)
        )
        total = sum(seen.values())
        if len(seen) >= min_colours and 1 - seen.most_common(1)[0][1] / total >= min_share:
            print(int(time.time() * 1000), flush=True)
            sys.exit(0)
    time.sleep(0.008)
print(f"watch-pixels: nothing drawn; last look: {len(seen) if pb else 'no image'} colours", file=sys.stderr)
sys.exit(1)
