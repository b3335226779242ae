#!/usr/bin/python3
"""Prints the text on the desktop's clipboard (CLIPBOARD selection), as another application
pasting would read it. For the e2e test of "Copy link to this view".

usage: read-clipboard.py
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

text = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).wait_for_text()
if text is None:
    sys.exit("the clipboard holds no text")
sys.stdout.write(text)
