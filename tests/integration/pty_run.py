#!/usr/bin/env python3
"""pty_run.py CMD [ARG...]: run CMD with a terminal for its stdin, stdout and
stderr (a pseudo-terminal of 80 columns), print everything it wrote there,
and exit with its status. What the terminal shows is what agenttask chose
to do on a terminal: page, colour, show progress.
"""
import fcntl
import os
import pty
import struct
import sys
import termios


def main():
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.argv[1], sys.argv[1:])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    out = bytearray()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(bytes(out).replace(b"\r\n", b"\n"))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
