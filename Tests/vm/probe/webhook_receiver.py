#!/usr/bin/env python3
"""A webhook receiver for the VM's monitoring stage (Tests/vm/probe/monitor.sh):
answers every POST with 200 and appends one JSON line per request to LOG:
{"at": receive time (s since the epoch), "eventHeader": X-Fprint-Event, "body": the posted JSON}.
Usage: webhook_receiver.py PORT LOG   (listens on 127.0.0.1 only)."""
import http.server
import json
import sys
import time

port, log = int(sys.argv[1]), sys.argv[2]


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            posted = json.loads(body)
        except ValueError:
            posted = {"unparsed": body.decode("utf-8", "replace")}
        with open(log, "a") as f:
            f.write(json.dumps({"at": time.time(), "eventHeader": self.headers.get("X-Fprint-Event"), "body": posted}) + "\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):  # one line a request in LOG is enough
        pass


http.server.HTTPServer(("127.0.0.1", port), Receiver).serve_forever()
