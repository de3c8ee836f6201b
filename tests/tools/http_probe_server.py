#!/usr/bin/env python3
"""A streamable HTTP MCP tool server (MCP 2025-11-25 only) written for the tests, standard library only.

It prints its endpoint on the first line of stdout, then serves until stopped. Every request it
gets is one JSON line in the log file named by argv[1]: its verb, its JSON-RPC method, and the
Authorization, Mcp-Session-Id and MCP-Protocol-Version headers it carried. A POST whose
Authorization is not "Bearer $PROBE_KEY" is answered 401. Its one tool at first, `grow`, adds the
tool `late`, says notifications/tools/list_changed on the GET stream, and answers only once the
list has been read again (so the member has the new list before the call's answer).

With PROBE_STREAMS=1 it answers initialize as an event on a stream it then keeps open until the
client closes it, as a server may. Its tool `hang` never answers: it holds its stream open and
notes when the client closes it ("verb": "CLOSED"); the tool `after` answers whether `hang`'s
stream was closed (it waits up to 10 s for that), so a test learns that a call given up on was
closed at the transport before the member went on, not at its end.
"""
import json
import os
import queue
import select
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = open(sys.argv[1], "a", buffering=1)
KEY = os.environ.get("PROBE_KEY", "")
STREAMS = os.environ.get("PROBE_STREAMS") == "1"
SESSION = "probe-session-1"
tools = ["grow"]
pushed = queue.Queue()
relisted = threading.Event()
hang_closed = threading.Event()
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def note(self, method):
        with lock:
            LOG.write(json.dumps({"verb": self.command, "method": method,
                                  "auth": self.headers.get("Authorization"),
                                  "session": self.headers.get("Mcp-Session-Id"),
                                  "version": self.headers.get("MCP-Protocol-Version")}) + "\n")

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def result(self, id_, result, headers=()):
        body = json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}).encode()
        self.answer(200, body, [("Content-Type", "application/json")] + list(headers))

    def stream_head(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()

    def held_until_closed(self, what):
        """Keeps the stream open until the client closes its end; notes that it did."""
        while True:
            ready, _, _ = select.select([self.connection], [], [], 0.5)
            if ready and not self.connection.recv(1, socket.MSG_PEEK):
                break
        with lock:
            LOG.write(json.dumps({"verb": "CLOSED", "method": what}) + "\n")

    def do_DELETE(self):
        self.note(None)
        self.answer(200)

    def do_GET(self):
        self.note(None)
        self.stream_head()
        while True:
            item = pushed.get()
            try:
                self.wfile.write(b"data: " + item.encode() + b"\n\n")
                self.wfile.flush()
            except OSError:
                return

    def do_POST(self):
        m = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        self.note(m.get("method"))
        if self.headers.get("Authorization") != "Bearer " + KEY:
            return self.answer(401, b"unauthorized: wrong key", [("Content-Type", "text/plain")])
        if "id" not in m:
            return self.answer(202)
        method = m["method"]
        if method == "initialize" and STREAMS:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Mcp-Session-Id", SESSION)
            self.send_header("Connection", "close")
            self.end_headers()
            answer = {"jsonrpc": "2.0", "id": m["id"],
                      "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": True}},
                                 "serverInfo": {"name": "probe", "version": "1"}}}
            self.wfile.write(b"data: " + json.dumps(answer).encode() + b"\n\n")
            self.wfile.flush()
            return self.held_until_closed("initialize")
        if method == "initialize":
            return self.result(m["id"], {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": True}},
                                         "serverInfo": {"name": "probe", "version": "1"}},
                               [("Mcp-Session-Id", SESSION)])
        if method == "tools/list":
            names = tools + (["hang", "after"] if STREAMS else [])
            listed = [{"name": t, "description": "the " + t + " tool", "inputSchema": {"type": "object"}} for t in names]
            self.result(m["id"], {"tools": listed})
            if "late" in tools:
                relisted.set()
            return
        if method != "tools/call":  # a legacy-only server: server/discover is unknown to it
            body = json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "Method not found"}})
            return self.answer(200, body.encode(), [("Content-Type", "application/json")])
        name = m["params"]["name"]
        if name == "hang":
            self.stream_head()
            self.held_until_closed("tools/call hang")
            hang_closed.set()
            return
        if name == "after":
            said = "hang closed" if hang_closed.wait(10) else "hang still open"
            return self.result(m["id"], {"content": [{"type": "text", "text": said}]})
        if name == "grow":
            tools.append("late")
            pushed.put(json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
            relisted.wait(30)
            return self.result(m["id"], {"content": [{"type": "text", "text": "grown"}]})
        return self.result(m["id"], {"content": [{"type": "text", "text": name + " answered"}]})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
server.serve_forever()
