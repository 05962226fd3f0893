#!/usr/bin/env python3
"""ptyrun.py CMD [ARG...]: run CMD with its stdin, stdout and stderr on a new
pseudo-terminal, as when a person runs it, and copy every byte it wrote there
to our stdout, unchanged. Exits with CMD's status (128+N for signal N)."""
import os
import pty
import sys

out = bytearray()


def read(fd):
    data = os.read(fd, 65536)
    out.extend(data)
    return data


def main():
    # Output post-processing off: a "\n" stays one byte, so the caller sees
    # what the program wrote, not what the line discipline made of it.
    pid, fd = pty.fork()
    if pid == 0:
        import termios
        attrs = termios.tcgetattr(0)
        attrs[1] &= ~termios.OPOST
        termios.tcsetattr(0, termios.TCSANOW, attrs)
        os.execvp(sys.argv[1], sys.argv[1:])
    while True:
        try:
            if not read(fd):
                break
        except OSError:   # EIO: the child closed its side
            break
    _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
