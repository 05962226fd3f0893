#!/usr/bin/env python3
"""A stand-in for the Anthropic Messages API, for tests/claude/run.sh.

It listens on the host's 127.0.0.1 (the port is written to PORT_FILE once it
listens) and plays one scripted conversation with Claude Code, which reaches
it from inside `agenttask run` through `--forward`:

  turn 1  tool_use Read   the worktree's greet.sh
  turn 2  tool_use Edit   greet.sh: the bug fixed
  turn 3  tool_use Bash   `sh test.sh` (the task's own test)
  turn 4  text            the end

The turn is the number of tool_result blocks in the request's messages, so
a client that retries a request gets the same answer again. A request with
no tools (a title or a summary, asked of a small model), count_tokens, and
anything else are answered harmlessly and take no turn. Streaming requests
("stream": true) get Server-Sent Events, the others one JSON message.

Every request is appended to LOG as one JSON line {method, path, body, key}
(key: the x-api-key or Authorization it carried), for the test to assert on.

usage: fake_api.py WORKTREE LOG PORT_FILE [ADDR PORT CERT KEY]
With ADDR..., it listens there over TLS (tests/integration/net_secrets.sh: the
real key held by agenttask's proxy, the certificate its test CA).
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORKTREE, LOG, PORT_FILE = sys.argv[1:4]
GREET = WORKTREE + "/greet.sh"


def script(turn):
	"""The assistant's content blocks and stop reason for the turn."""
	if turn == 0:
		return [tool("toolu_read", "Read", {"file_path": GREET})], "tool_use"
	if turn == 1:
		return [tool("toolu_edit", "Edit", {"file_path": GREET,
			"old_string": "echo helo", "new_string": "echo hello"})], "tool_use"
	if turn == 2:
		return [{"type": "text", "text": "Now the test."},
			tool("toolu_bash", "Bash", {"command": "sh test.sh",
				"description": "Run the test"})], "tool_use"
	return [{"type": "text", "text": "Fixed the greeting; the test passes."}], "end_turn"


def tool(ident, name, args):
	return {"type": "tool_use", "id": ident, "name": name, "input": args}


def tool_results(body):
	return sum(1 for m in body.get("messages", [])
		if isinstance(m.get("content"), list)
		for b in m["content"] if b.get("type") == "tool_result")


def message(body, content, stop):
	return {"id": "msg_fake_%d" % tool_results(body), "type": "message",
		"role": "assistant", "model": body.get("model", "claude-fake"),
		"content": content, "stop_reason": stop, "stop_sequence": None,
		"usage": {"input_tokens": 10, "output_tokens": 10}}


def events(msg):
	"""The stream of one message: a block's input goes as input_json_delta
	pieces and its text as text_delta, as the real API sends them."""
	start = dict(msg, content=[], stop_reason=None)
	yield "message_start", {"type": "message_start", "message": start}
	for i, block in enumerate(msg["content"]):
		if block["type"] == "tool_use":
			empty = dict(block, input={})
			yield "content_block_start", {"type": "content_block_start",
				"index": i, "content_block": empty}
			text = json.dumps(block["input"])
			for piece in (text[:len(text) // 2], text[len(text) // 2:]):
				yield "content_block_delta", {"type": "content_block_delta", "index": i,
					"delta": {"type": "input_json_delta", "partial_json": piece}}
		else:
			yield "content_block_start", {"type": "content_block_start",
				"index": i, "content_block": {"type": "text", "text": ""}}
			yield "content_block_delta", {"type": "content_block_delta", "index": i,
				"delta": {"type": "text_delta", "text": block["text"]}}
		yield "content_block_stop", {"type": "content_block_stop", "index": i}
	yield "message_delta", {"type": "message_delta",
		"delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
		"usage": {"output_tokens": 10}}
	yield "message_stop", {"type": "message_stop"}


class Handler(BaseHTTPRequestHandler):
	protocol_version = "HTTP/1.1"

	def log_message(self, *args):
		pass

	def record(self, body):
		with open(LOG, "a") as f:
			f.write(json.dumps({"method": self.command, "path": self.path,
				"body": body, "key": self.headers.get("x-api-key") or
				self.headers.get("authorization")}) + "\n")

	def send_json(self, code, obj):
		data = json.dumps(obj).encode()
		self.send_response(code)
		self.send_header("content-type", "application/json")
		self.send_header("content-length", str(len(data)))
		self.end_headers()
		self.wfile.write(data)

	def do_GET(self):
		self.record(None)
		self.send_json(404, {"type": "error", "error": {"type": "not_found_error",
			"message": "not here"}})

	do_HEAD = do_GET

	def do_POST(self):
		raw = self.rfile.read(int(self.headers.get("content-length") or 0))
		try:
			body = json.loads(raw)
		except ValueError:
			body = {"unparsed": raw.decode("utf-8", "replace")}
		self.record(body)
		path = self.path.split("?")[0]
		if path.endswith("/count_tokens"):
			return self.send_json(200, {"input_tokens": 10})
		if not path.endswith("/v1/messages"):
			return self.do_GET()
		if body.get("tools"):
			msg = message(body, *script(tool_results(body)))
		else:
			msg = message(body, [{"type": "text", "text": "Greeting fix"}], "end_turn")
		if not body.get("stream"):
			return self.send_json(200, msg)
		self.send_response(200)
		self.send_header("content-type", "text/event-stream")
		self.send_header("cache-control", "no-cache")
		self.send_header("connection", "close")
		self.end_headers()
		for name, data in events(msg):
			self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())
			self.wfile.flush()
		self.close_connection = True


def main():
	if len(sys.argv) > 4:
		import ssl
		addr, port, cert, key = sys.argv[4:8]
		server = ThreadingHTTPServer((addr, int(port)), Handler)
		ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
		ctx.load_cert_chain(cert, key)
		server.socket = ctx.wrap_socket(server.socket, server_side=True)
	else:
		server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
	with open(PORT_FILE + ".tmp", "w") as f:
		f.write("%d\n" % server.server_address[1])
	import os
	os.rename(PORT_FILE + ".tmp", PORT_FILE)
	server.serve_forever()


if __name__ == "__main__":
	main()
