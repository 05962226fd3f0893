#!/usr/bin/env python3
"""watch_pty.py STEP...: drive `agenttask list --watch` on a pseudo-terminal.

The command is $WATCH_CMD (a shell line). Each STEP, in order:
  expect=REGEX   wait (at most 30 s, times AT_TEST_TIME_SCALE) until the
                 screen drawn since the last expect matches REGEX (Python,
                 over the bytes as text, escapes and all)
  sh=LINE        run a shell line, to its end
  bg=LINE        run a shell line in the background, on a terminal of its own
                 (a pty whose other side this script holds, sending nothing)
  winch=RxC      resize the watch's terminal (SIGWINCH)
  key=K          type K (a character; "^C" for ETX)
  exit=N         wait for the watch to end, with status N (128+S for signal S)
  restored       the terminal's modes are what they were before the watch
  never=REGEX    REGEX never matched anything the watch drew
Exit 0 when every step held, 1 with the reason and the last screen otherwise.
"""
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import fcntl
import time

SCALE = int(os.environ.get("AT_TEST_TIME_SCALE", "1"))
all_out = bytearray()
since = bytearray()
bg = []


def fail(why):
    sys.stderr.write("watch_pty: %s\nlast output: %r\n" % (why, bytes(since[-3000:])))
    sys.exit(1)


def pump(fd, timeout):
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:
        return False
    if not data:
        return False
    all_out.extend(data)
    since.extend(data)
    return True


def main():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    before = termios.tcgetattr(slave)
    proc = subprocess.Popen(["sh", "-c", os.environ["WATCH_CMD"]], stdin=slave, stdout=slave,
                            stderr=slave, start_new_session=True,
                            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    status = None
    for step in sys.argv[1:]:
        kind, _, arg = step.partition("=")
        if kind == "expect":
            deadline = time.time() + 30 * SCALE
            while not re.search(arg, since.decode("utf-8", "replace")):
                if time.time() > deadline:
                    fail("no %r within %d s" % (arg, 30 * SCALE))
                if not pump(master, 0.2):
                    fail("the watch ended before %r" % arg)
            del since[:]
        elif kind == "sh":
            subprocess.run(["sh", "-c", arg], check=True)
        elif kind == "bg":
            m, s = pty.openpty()
            p = subprocess.Popen(["sh", "-c", arg], stdin=s, stdout=s, stderr=s,
                                 start_new_session=True,
                                 preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
            os.close(s)
            bg.append((p, m))
        elif kind == "winch":
            rows, cols = (int(x) for x in arg.split("x"))
            fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.killpg(os.getpgid(proc.pid), signal.SIGWINCH)
        elif kind == "key":
            os.write(master, b"\x03" if arg == "^C" else arg.encode())
        elif kind == "exit":
            deadline = time.time() + 30 * SCALE
            while proc.poll() is None:
                if time.time() > deadline:
                    fail("the watch did not end")
                pump(master, 0.2)
            # What it wrote last (the terminal put back) may still be buffered.
            while select.select([master], [], [], 0.2)[0] and pump(master, 0):
                pass
            status = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
            if status != int(arg):
                fail("the watch ended with %d, not %s" % (status, arg))
        elif kind == "restored":
            if termios.tcgetattr(slave) != before:
                fail("the terminal's modes were not put back")
            if not all_out.rstrip(b"\r\n").endswith(b"\x1b[?25h\x1b[?1049l"):
                fail("the main screen and the cursor were not put back")
        elif kind == "never":
            if re.search(arg, all_out.decode("utf-8", "replace")):
                fail("%r was drawn" % arg)
        else:
            fail("unknown step %r" % step)
    if proc.poll() is None:
        proc.kill()
    for p, m in bg:
        if p.poll() is None:
            p.kill()
        os.close(m)


main()
