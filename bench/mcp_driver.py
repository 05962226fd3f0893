#!/usr/bin/env python3
"""mcp_driver.py AGENTTASK REPO MODE N - N runs of /bin/true in task t of REPO.

MODE mcp: one `agenttask -C REPO mcp` session (initialize, then N tools/call
of the run tool, one after the other, each answer read before the next call).
MODE cli: N processes of `agenttask -C REPO run t -- /bin/true`.
MODE both: the two interleaved call by call, each call timed here; prints the
median of each and their ratio (mcp over cli).

The same Python start-up is in both modes, so a whole-process timer (hyperfine,
/usr/bin/time) comparing `mcp N` with `cli N` compares N tool calls (plus one
server start and handshake) with N command lines.
"""
import json
import statistics
import subprocess
import sys
import time


class Session:
    def __init__(self, agenttask, repo):
        # The person made task t: the server reaches it when named (--task).
        self.p = subprocess.Popen([agenttask, "-C", repo, "mcp", "--task", "t"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())

    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        reply = json.loads(self.p.stdout.readline())
        if "error" in reply:
            sys.exit(f"mcp_driver: {reply['error']}")
        return reply["result"]

    def run_true(self):
        r = self.request("tools/call", {"name": "run",
                                        "arguments": {"task": "t", "argv": ["/bin/true"]}})
        if r.get("isError") or r["structuredContent"]["exit_code"] != 0:
            sys.exit(f"mcp_driver: the run failed: {r['content'][0]['text']}")

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def cli_true(agenttask, repo):
    subprocess.run([agenttask, "-C", repo, "run", "t", "--", "/bin/true"], check=True)


def main():
    agenttask, repo, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if mode == "cli":
        for _ in range(n):
            cli_true(agenttask, repo)
        return
    s = Session(agenttask, repo)
    if mode == "mcp":
        for _ in range(n):
            s.run_true()
    else:
        mcp, cli = [], []
        for _ in range(n):
            t0 = time.perf_counter()
            s.run_true()
            t1 = time.perf_counter()
            cli_true(agenttask, repo)
            t2 = time.perf_counter()
            mcp.append(t1 - t0)
            cli.append(t2 - t1)
        a, b = statistics.median(mcp), statistics.median(cli)
        print(f"run tool call {a * 1000:.2f} ms, command line {b * 1000:.2f} ms (medians of {n}), "
              f"ratio {a / b:.2f}; per pair: min {min(x / y for x, y in zip(mcp, cli)):.2f}, "
              f"median {statistics.median(x / y for x, y in zip(mcp, cli)):.2f}")
    s.close()


if __name__ == "__main__":
    main()
