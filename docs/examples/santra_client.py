#!/usr/bin/env python3
"""A minimal Santra client in standard-library Python: one prompt, streamed, with approvals.

    python3 santra_client.py "prompt" [server command...]    (default: santra-server)

docs/implementing-a-client.md walks through it; each § is a section of protocol-spec/README.md.
"""
import getpass
import json
import os
import subprocess
import sys
import threading

CHOICES = "[y] allow  [a] allow all  [r] reject  [f] reject with feedback: "
# Declining a question: RequestFailed. The agent is told and goes on without an answer (§7.4).
NO_ANSWER = {"error": {"code": -32803, "message": "the user gave no answer"}}
# How each phase type is drawn (§7.2), under its agent; types not here are not shown (§4.4).
ROWS = {
    "status": "{indent}... {text}",
    "tool_call": "{indent}* {summary}",
    "tool_result": "{indent}  {status}: {summary}",
    "section": "{outdent}> {title}",
    "error": "{indent}! {message}",
}


class Failure(Exception):  # the server refused a request, or went away
    pass


def start_server(command):
    # A session of its own: Ctrl+C in the terminal reaches this client only, which cancels the run.
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )


def read_frame(stdout):
    length = None
    while (line := stdout.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    if length is None:
        raise Failure("santra-server closed its output")
    return json.loads(stdout.read(length))


class Client:
    def __init__(self, server):
        self.server, self.lock, self.last_id, self.running = server, threading.Lock(), 0, None
        self.depth, self.mid_line, self.answered, self.exit_code = {}, False, False, 1

    def send(self, message):
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        with self.lock:  # two threads send: the conversation, and Ctrl+C's cancel
            self.server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.server.stdin.flush()

    def request(self, method, params=None):
        self.last_id += 1
        self.running = request_id = self.last_id
        message = {"id": request_id, "method": method}
        self.send(message if params is None else {**message, "params": params})
        while True:
            message = read_frame(self.server.stdout)
            # A response has no method. Id null answers a message the server could not read
            # (§2.2): this request will get no other answer.
            if "method" not in message and message.get("id") in (request_id, None):
                if "error" in message:
                    raise Failure(f"{message['error']['message']} ({message['error']['code']})")
                return message["result"]
            self.handle(message)

    def cancel(self):
        if self.running is not None:
            self.send({"method": "$/cancelRequest", "params": {"id": self.running}})

    def handle(self, message):
        method, params = message.get("method"), message.get("params", {})
        if method == "phase":
            self.render(params)
        elif method == "approve":
            self.send({"id": message["id"], "result": self.approve(params)})
        elif method == "ask":
            answer = self.ask(params)
            reply = NO_ANSWER if answer is None else {"result": {"answer": answer}}
            self.send({"id": message["id"], **reply})
        # Test for an id, never its truth: 0 is an id like any other (§2.3).
        elif method is not None and "id" in message:  # a request of a later version, say
            self.send({"id": message["id"], "error": {"code": -32601, "message": method}})

    def render(self, phase):
        agent, parent, kind = phase["agentId"], phase.get("parentAgentId"), phase["type"]
        if agent not in self.depth:
            self.depth[agent] = self.depth[parent] + 1 if parent in self.depth else 0
        indent = "  " * self.depth[agent]
        if kind == "text" and parent is None:
            print(phase["text"], end="", flush=True)
            self.mid_line, self.answered = not phase["text"].endswith("\n"), True
        elif kind in ROWS:
            # A tool_call's summary is optional: the tool's name stands in for it.
            fields = {"summary": phase.get("toolName"), **phase, "outdent": indent[2:]}
            self.row(ROWS[kind].format(indent=indent, **fields))
            self.answered = self.answered and not (kind == "tool_call" and parent is None)
        elif kind == "complete" and parent is not None:
            self.row(f"{indent}[{agent} {phase['status']}]")
        elif kind == "complete" and not self.answered and phase.get("output"):
            self.row(phase["output"])  # an answer given through task_completed, not streamed

    def row(self, text):
        print(("\n" if self.mid_line else "") + text, flush=True)
        self.mid_line = False

    def approve(self, params):
        if params["kind"] == "file_change":
            moved = " -> " + params["destination"] if "destination" in params else ""
            self.row(f"Santra wants to {params['operation']} {params['path']}{moved}:")
            self.row(params["diff"]["unifiedDiff"].rstrip())
        else:
            self.row(f"Santra wants to run, in {params['cwd']}:\n  {params['command']}")
        if params.get("protected"):
            self.row(f"Protected location: {params.get('protectedReason', '')}")
        key = (self.read(CHOICES) or "r")[:1].lower()
        if key == "f" and (feedback := (self.read("Feedback for the agent: ") or "").strip()):
            return {"decision": "feedback", "feedback": feedback}
        return {"decision": {"y": "allow", "a": "allow_all"}.get(key, "reject")}

    def ask(self, params):
        options = params.get("options", [])
        self.row(params["prompt"])
        for number, option in enumerate(options, 1):
            self.row(f"  {number}) {option['label']}")
        answer = self.read("Answer: ", secret=params.get("secret", False))
        if answer is not None and answer.strip().isdigit() and 0 < int(answer) <= len(options):
            return options[int(answer) - 1]["value"]
        return answer

    def read(self, prompt, secret=False):
        try:
            answer = getpass.getpass(prompt) if secret and sys.stdin.isatty() else input(prompt)
        except EOFError:
            answer = None
        if not sys.stdin.isatty():  # echo what was read, as a terminal would have
            print("[secret]" if secret and answer else answer or "")
        return answer

    def converse(self, text):
        try:
            self.request("initialize", {
                "protocolVersion": "0.2.0",
                "clientInfo": {"name": "santra_client.py", "version": "1.0.0"},
                "workspaceRoot": os.getcwd(),
                "capabilities": {"approve": True, "ask": True},
            })
            self.send({"method": "initialized", "params": {}})
            run = self.request("prompt", {"text": text})
            self.row(f"[{run['status']}] ${run['costUsd']:.4f}")
            self.request("shutdown")
            self.send({"method": "exit"})
            self.exit_code = 0 if run["status"] == "completed" else 1
        except Failure as failure:
            print(f"santra-server: {failure}", file=sys.stderr)
        finally:
            self.server.stdin.close()  # end of input: the server exits, shutdown or not (§3.5)


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: santra_client.py "prompt" [server command...]')
    client = Client(start_server(sys.argv[2:] or ["santra-server"]))
    conversation = threading.Thread(target=client.converse, args=(sys.argv[1],))
    conversation.start()
    while conversation.is_alive():  # this thread only waits: Ctrl+C interrupts nothing else
        try:
            conversation.join(0.1)
        except KeyboardInterrupt:
            client.cancel()
    client.server.wait()
    return client.exit_code


if __name__ == "__main__":
    sys.exit(main())
