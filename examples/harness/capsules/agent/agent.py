#!/usr/bin/env python3
"""A `transport: process` member for mur, with nothing but Python's standard library.

Each model turn, mur starts this program and writes ONE JSON object on its stdin:
  {"session": {"id": "hs_...", "mode": "new" | "resume"}, "member": "...", "callees": [...],
   "task": "...", "message": "...", "turn": n, "tools": {"url": "http://127.0.0.1:<port>/mcp",
   "token": "..."}}
What it prints on stdout is the turn's text; exit 0 ends the turn.

On a new task with callees, it asks the first callee through the runtime's `call-member` tool
(MCP over Streamable HTTP on the loopback tool server) and ends its turn; mur waits for the
answer and starts it again with mode "resume", the answers fenced in `message` and, as data,
in `answers` ([{"member", "status", "text"}]). Without callees, or on resume, it prints its
answer.
"""
import json
import sys
import urllib.error
import urllib.request

PROTOCOL_VERSION = "2025-11-25"


class ToolServer:
    """The loopback MCP tool server of one turn: one POST endpoint, a bearer token."""

    def __init__(self, url, token):
        self.url = url
        self.token = token
        self.session_id = None
        self.next_id = 1

    def _post(self, payload):
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer " + self.token,
            "MCP-Protocol-Version": PROTOCOL_VERSION,
        }
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        request = urllib.request.Request(
            self.url, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                session = response.headers.get("Mcp-Session-Id")
                if session:
                    self.session_id = session
                body = response.read().decode("utf-8")
                return response.status, response.headers.get("Content-Type", ""), body
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")[:300]
            raise SystemExit("the tool server answered HTTP %d: %s" % (e.code, detail))

    def request(self, method, params):
        call_id = self.next_id
        self.next_id += 1
        _, content_type, body = self._post(
            {"jsonrpc": "2.0", "id": call_id, "method": method, "params": params})
        for message in self._messages(content_type, body):
            if message.get("id") == call_id:
                if "error" in message:
                    raise SystemExit("%s failed: %s" % (method, message["error"].get("message")))
                return message.get("result", {})
        raise SystemExit("%s: the tool server sent no answer" % method)

    def notify(self, method):
        status, _, _ = self._post({"jsonrpc": "2.0", "method": method})
        if status not in (200, 202):
            raise SystemExit("%s: the tool server answered HTTP %d" % (method, status))

    @staticmethod
    def _messages(content_type, body):
        """A JSON body, or an SSE body whose `data:` lines each hold one JSON-RPC message."""
        if content_type.startswith("text/event-stream"):
            for line in body.splitlines():
                if line.startswith("data:"):
                    data = line[len("data:"):].strip()
                    if data:
                        yield json.loads(data)
            return
        parsed = json.loads(body) if body.strip() else []
        for message in parsed if isinstance(parsed, list) else [parsed]:
            yield message

    def open(self):
        self.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mur-example-agent", "version": "1.0.0"},
        })
        self.notify("notifications/initialized")

    def call_tool(self, name, arguments):
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")
        return text, bool(result.get("isError"))


def answer_from(turn):
    """What the members called said, from the resumed turn's `answers`; the fenced `message`
    says the same in words, and is what a model would be shown."""
    answered = [a for a in turn.get("answers", []) if a["status"] == "completed"]
    if not answered:
        return "No member answered. What the runtime said:\n" + turn["message"].strip()
    return "\n".join("%s said: %s" % (a["member"], a["text"].strip()) for a in answered)


def main():
    turn = json.loads(sys.stdin.readline() or sys.stdin.read())
    mode = turn["session"]["mode"]
    if mode == "resume":
        print("Here is what I found out.\n" + answer_from(turn))
        return 0
    callees = turn.get("callees") or []
    if not callees:
        print("I work alone, so here is my own answer to: " + turn["task"])
        return 0
    member = callees[0]
    server = ToolServer(turn["tools"]["url"], turn["tools"]["token"])
    server.open()
    text, failed = server.call_tool("call-member", {"member": member, "task": turn["task"]})
    if failed:
        print("call-member refused: " + text, file=sys.stderr)
        return 1
    print("I asked %s; I will answer when it does." % member)
    return 0


if __name__ == "__main__":
    sys.exit(main())
