#!/usr/bin/env python3
"""pty_keys.py KEYS CMD [ARG...]: run CMD on a new pseudo-terminal, as a
person would, and answer each of its prompts (output ending in "? ") with the
next of KEYS (comma-separated: "y,n,s,y"), as git's tests of `add -p` feed
their keys. Prints everything the terminal showed and exits with CMD's status;
a prompt with no key left is answered with the end of input. Waits for each
prompt as long as 120 s, never for a fixed time."""
import os
import pty
import select
import sys


def main():
    keys = [k for k in sys.argv[1].split(",") if k != ""] if sys.argv[1] else []
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.argv[2], sys.argv[2:])
    out = bytearray()
    since = 0   # where the output after the last answer begins
    eof_sent = False
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            sys.stdout.write("pty_keys: no output for 120 s\n")
            os.kill(pid, 9)
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if out[since:].rstrip(b" ").endswith(b"?") and out.endswith(b"? "):
            since = len(out)
            if keys:
                os.write(fd, keys.pop(0).encode() + b"\n")
            elif not eof_sent:
                os.write(fd, b"\x04")
                eof_sent = True
    _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(bytes(out).replace(b"\r\n", b"\n"))
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


main()
