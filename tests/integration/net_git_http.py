#!/usr/bin/env python3
"""A git smart-HTTP server over TLS, for net_secrets.sh: `git http-backend`
(CGI) behind Basic auth that only the real token passes.

usage: REAL_TOKEN=... net_git_http.py ROOT LOG READY ADDR PORT CERT KEY

ROOT holds the bare repositories (GIT_PROJECT_ROOT). A request whose
Authorization is not Basic base64("x-access-token:" + REAL_TOKEN) gets a 401
with WWW-Authenticate: Basic; the others run git http-backend. A chunked
request body is read whole first (http-backend is given its length). Every
request is appended to LOG as one JSON line {method, path, auth} (auth: the
Authorization it carried, or ""). READY is written once it listens.
"""
import base64
import json
import os
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT, LOG, READY, ADDR, PORT, CERT, KEY = sys.argv[1:8]
WANT = "Basic " + base64.b64encode(
	("x-access-token:" + os.environ["REAL_TOKEN"]).encode()).decode()
BACKEND = os.path.join(subprocess.check_output(["git", "--exec-path"], text=True).strip(),
	"git-http-backend")
lock = threading.Lock()


class H(BaseHTTPRequestHandler):
	protocol_version = "HTTP/1.1"

	def body(self):
		if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
			out = b""
			while True:
				size = int(self.rfile.readline().split(b";")[0].strip(), 16)
				if size == 0:
					while self.rfile.readline() not in (b"\r\n", b"\n", b""):
						pass
					return out
				out += self.rfile.read(size)
				self.rfile.readline()
		return self.rfile.read(int(self.headers.get("Content-Length") or 0))

	def reply(self, status, headers, body):
		self.send_response(status)
		for k, v in headers:
			self.send_header(k, v)
		self.send_header("Content-Length", str(len(body)))
		self.end_headers()
		if self.command != "HEAD":
			self.wfile.write(body)

	def handle_one(self):
		auth = self.headers.get("Authorization", "")
		with lock, open(LOG, "a") as f:
			f.write(json.dumps({"method": self.command, "path": self.path, "auth": auth}) + "\n")
		data = self.body()
		if auth != WANT:
			self.reply(401, [("WWW-Authenticate", 'Basic realm="git"')], b"who are you?\n")
			return
		path, _, query = self.path.partition("?")
		env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL="1",
			PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
			CONTENT_TYPE=self.headers.get("Content-Type", ""),
			CONTENT_LENGTH=str(len(data)), REMOTE_USER="x-access-token",
			REMOTE_ADDR=self.client_address[0], GATEWAY_INTERFACE="CGI/1.1",
			SERVER_PROTOCOL="HTTP/1.1")
		env.pop("REAL_TOKEN", None)
		if self.headers.get("Content-Encoding"):
			env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
		if self.headers.get("Git-Protocol"):
			env["HTTP_GIT_PROTOCOL"] = self.headers["Git-Protocol"]
		out = subprocess.run([BACKEND], input=data, env=env, stdout=subprocess.PIPE).stdout
		head, _, body = out.partition(b"\r\n\r\n")
		if not _:
			head, _, body = out.partition(b"\n\n")
		status, headers = 200, []
		for line in head.decode("latin-1").splitlines():
			k, _, v = line.partition(":")
			if k.lower() == "status":
				status = int(v.split()[0])
			elif k:
				headers.append((k, v.strip()))
		self.reply(status, headers, body)

	do_GET = do_POST = do_HEAD = handle_one

	def log_message(self, *a):
		pass


srv = ThreadingHTTPServer((ADDR, int(PORT)), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
open(READY, "w").close()
srv.serve_forever()
