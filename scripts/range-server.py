#!/usr/bin/env python3
"""A static file server with HTTP Range support (one range, or several as multipart/byteranges)
on 127.0.0.1 that counts what it serves, for the benchmarks' remote measurements
(scripts/bench-scale.sh, scripts/bench-search.sh).

usage: range-server.py DIR LOG [PORT]   (PORT 0: any free port; the chosen port is printed)
env: DELAY_MS — each answer waits that long first (a server far away: the app's measurements on
a remote file then show what the network's round trips cost, as on a real link).

Every request is one JSON line in LOG: {"method", "path", "range", "status", "bytes"} (bytes =
body bytes sent). The benchmark truncates LOG between measurements and sums it."""
import http.server
import json
import os
import re
import sys
import threading
import time

ROOT, LOG = sys.argv[1], sys.argv[2]
PORT = int(sys.argv[3]) if len(sys.argv) > 3 else 0
DELAY = float(os.environ.get("DELAY_MS", "0")) / 1000
lock = threading.Lock()
BOUNDARY = "3d6b6a416f9b5f1c"


def parse_ranges(header, size):
    """The satisfiable (first, last) byte ranges of a Range header, in its order; [] if none."""
    m = re.fullmatch(r"\s*bytes\s*=(.*)", header)
    if not m:
        return []
    spans = []
    for spec in m.group(1).split(","):
        r = re.fullmatch(r"\s*(\d*)-(\d*)\s*", spec)
        if not r or (r.group(1) == "" and r.group(2) == ""):
            return []
        if r.group(1) == "":  # suffix range: the last N bytes
            start, end = max(0, size - int(r.group(2))), size - 1
        else:
            start = int(r.group(1))
            end = min(size - 1, int(r.group(2))) if r.group(2) else size - 1
        if start < size and start <= end:
            spans.append((start, end))
    return spans


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as separate writes: with Nagle's algorithm on, each answer on a
    # kept-alive connection would wait ~40 ms for the client's delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, *args):  # the JSON log is the record; stay quiet on stderr
        pass

    def record(self, status, sent, rng):
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "range": rng,
                                "status": status, "bytes": sent}) + "\n")

    def serve(self, body):
        if DELAY:
            time.sleep(DELAY)
        path = os.path.join(ROOT, os.path.basename(self.path.split("?")[0]))
        if not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            self.record(404, 0, None)
            return
        size = os.path.getsize(path)
        rng = self.headers.get("Range")
        spans = [(0, size - 1)]
        status = 200
        if rng:
            spans = parse_ranges(rng, size)
            if not spans:
                self.unsatisfiable(size, rng)
                return
            status = 206
        st = os.stat(path)
        self.send_response(status)
        self.send_header("Accept-Ranges", "bytes")
        # Validators: the client checks that the file did not change between two reads.
        self.send_header("ETag", f'"{st.st_size:x}-{st.st_mtime_ns:x}"')
        self.send_header("Last-Modified", self.date_time_string(int(st.st_mtime)))
        # Several ranges: one multipart/byteranges answer (RFC 9110 §14.6), as nginx gives.
        parts = []
        if len(spans) > 1:
            self.send_header("Content-Type", f"multipart/byteranges; boundary={BOUNDARY}")
            for start, end in spans:
                head = (f"\r\n--{BOUNDARY}\r\nContent-Type: application/octet-stream\r\n"
                        f"Content-Range: bytes {start}-{end}/{size}\r\n\r\n").encode()
                parts.append((head, start, end))
            tail = f"\r\n--{BOUNDARY}--\r\n".encode()
            length = sum(len(h) + e - s + 1 for h, s, e in parts) + len(tail)
        else:
            start, end = spans[0]
            parts.append((b"", start, end))
            tail = b""
            length = end - start + 1
            self.send_header("Content-Type", "application/octet-stream")
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(length))
        self.end_headers()
        sent = 0
        if body:
            with open(path, "rb") as f:
                for head, start, end in parts:
                    self.wfile.write(head)
                    sent += len(head)
                    f.seek(start)
                    left = end - start + 1
                    while left > 0:
                        chunk = f.read(min(left, 1 << 20))
                        if not chunk:
                            break
                        self.wfile.write(chunk)
                        sent += len(chunk)
                        left -= len(chunk)
                self.wfile.write(tail)
                sent += len(tail)
        self.record(status, sent, rng)

    def unsatisfiable(self, size, rng):
        self.send_response(416)
        self.send_header("Content-Range", f"bytes */{size}")
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.record(416, 0, rng)

    def do_GET(self):
        self.serve(True)

    def do_HEAD(self):
        self.serve(False)


server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
