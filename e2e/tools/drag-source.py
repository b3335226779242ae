#!/usr/bin/python3
"""A drag source for the drag-and-drop e2e test, standing in for a file manager.

Shows a small GTK 3 window at (x, y) that offers the given files as `text/uri-list` over XDND,
prints `ready` once it is on screen and exits when the drag ends. The test moves the pointer
with xdotool (XTEST), so the drop reaches the app through the real X11 drag-and-drop protocol.

usage: drag-source.py X Y FILE...
"""
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

x, y, *files = sys.argv[1:]
uris = [GLib.filename_to_uri(os.path.abspath(f), None) for f in files]

win = Gtk.Window(title="rete-e2e-drag-source")
win.set_default_size(100, 100)
win.move(int(x), int(y))
box = Gtk.EventBox()
box.add(Gtk.Label(label="drag me"))
box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
box.drag_source_add_uri_targets()
box.connect("drag-data-get", lambda _w, _c, data, _i, _t: data.set_uris(uris))
box.connect("drag-end", lambda *_: GLib.timeout_add(200, Gtk.main_quit))
win.add(box)
win.connect("map-event", lambda *_: print("ready", flush=True))
win.connect("destroy", Gtk.main_quit)
# Never outlive a failed test.
GLib.timeout_add_seconds(60, Gtk.main_quit)
win.show_all()
Gtk.main()
