#!/usr/bin/python3
"""Prints how many distinct colours a rectangle of the X screen shows (every 4th pixel of every
4th row), for tests that judge a window they do not drive through WebDriver; given a colour, how
many of those pixels have it instead.

usage: count-colours.py X Y WIDTH HEIGHT [RRGGBB]
"""
import sys

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk  # noqa: E402

x, y, w, h = (int(a) for a in sys.argv[1:5])
wanted = bytes.fromhex(sys.argv[5]) if len(sys.argv) > 5 else None
pb = Gdk.pixbuf_get_from_window(Gdk.get_default_root_window(), x, y, w, h)
if pb is None:
    sys.exit("nothing to read on the screen")
data, stride, n = pb.get_pixels(), pb.get_rowstride(), pb.get_n_channels()
pixels = [bytes(data[r * stride + c * n : r * stride + c * n + 3]) for r in range(0, h, 4) for c in range(0, w, 4)]
print(len(set(pixels)) if wanted is None else pixels.count(wanted))
