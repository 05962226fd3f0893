#!/usr/bin/env python3
"""agent_loop.py - a plain agent loop on top of `agenttask run --json`.

The model proposes shell commands; each runs in the task's sandbox, in the
task's worktree, and the model sees the result: exit code, why the run ended,
and the output (its head and tail when long). When the model says it is done,
the loop stops and prints `agenttask diff` for a person to review.

    agent_loop.py [-C REPO] [--task NAME] [--model scripted:FILE] GOAL

No model API is wired in here: `--model scripted:FILE` plays a JSON list of
replies ({"command": "..."} or {"done": "summary"}), which is how `make check`
runs this file; put your model's client in `Model.next` to use a real one.
"""
import argparse
import json
import subprocess
import sys


def execute_sandboxed_command(command, task, repo=".", timeout=600, allow_hosts=()):
    """Run a shell command line in the task's sandbox; the parsed JSON result.

    `agenttask run --json` always prints one JSON object, even when agenttask
    itself fails ({"error": {"code", "message"}}, with its exit status):
    json.loads never fails on the command's bytes (NUL and invalid UTF-8 are
    escaped, with stdout_base64 beside the text when it is not UTF-8).
    """
    argv = ["agenttask", "-C", repo, "run", task, "--json", "--timeout", str(timeout)]
    for host in allow_hosts:
        argv += ["--allow-host", host]
    argv += ["--", "/bin/sh", "-c", command]
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    result = json.loads(proc.stdout)
    result.setdefault("exit_code", proc.returncode)
    return result


def observation(result):
    """What the model is shown of a run."""
    if "error" in result and "reason" not in result:
        return f"agenttask refused: {result['error']['message']}"
    text = f"exit {result['exit_code']} ({result['reason']})\n{result['output']}"
    if result.get("output_truncated"):
        text += f"\n(output cut: {result['output_dropped']} bytes dropped in the middle)"
    return text


class Model:
    """A stand-in model: replies played from a script."""

    def __init__(self, spec):
        kind, _, arg = spec.partition(":")
        if kind != "scripted":
            sys.exit(f"agent_loop: unknown model '{spec}' (only scripted:FILE here)")
        with open(arg, encoding="utf-8") as f:
            self.replies = json.load(f)
        self.seen = []

    def next(self, goal, history):
        self.seen.append(history[-1] if history else goal)
        if not self.replies:
            return {"done": "out of script"}
        return self.replies.pop(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-C", dest="repo", default=".")
    ap.add_argument("--task", default="agent")
    ap.add_argument("--model", required=True)
    ap.add_argument("--max-steps", type=int, default=20)
    ap.add_argument("goal")
    a = ap.parse_args()

    new = subprocess.run(["agenttask", "-C", a.repo, "new", a.task], capture_output=True, text=True)
    if new.returncode != 0 and "exists" not in new.stderr:
        sys.exit(new.stderr.strip())
    model, history = Model(a.model), []
    for _ in range(a.max_steps):
        reply = model.next(a.goal, history)
        if "done" in reply:
            print(f"done: {reply['done']}")
            break
        result = execute_sandboxed_command(reply["command"], a.task, a.repo)
        history.append(observation(result))
        print(f"$ {reply['command']}\n{history[-1]}")
    diff = subprocess.run(["agenttask", "-C", a.repo, "diff", a.task, "--stat"],
                          capture_output=True, text=True)
    print(diff.stdout, end="")
    print(f"review with: agenttask diff {a.task}; then agenttask accept {a.task} or discard {a.task}")


if __name__ == "__main__":
    main()
