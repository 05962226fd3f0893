#!/usr/bin/env python3
"""Drive `agenttask run` under a real pty, as a user at a terminal would.

usage: sandbox_pty.py CHECK AGENTTASK REPO TASK

Each CHECK starts agenttask with a pty of ours as its controlling terminal
and its stdin, stdout and stderr (python's pty.fork), types at it, and
checks what comes back. It prints "ok CHECK" and exits 0, or says what went
wrong and exits 1. The checks:

  tty       `tty` inside names a pty of the sandbox (/dev/pts/N), and the
            window size inside is ours, at the start and after SIGWINCH.
  jobs      bash inside has job control: ^Z stops the inner `sleep`, not
            agenttask; `jobs` lists it; `fg` brings it back; ^C ends it.
  termios   after runs that set raw mode, -echo and TIOCEXCL (on the pty, on
            the terminal itself with -T, and then timed out or killed), our
            terminal's termios is what it was, and TIOCEXCL is clear.
  ldisc     a command given our terminal itself (-T) cannot change its line
            discipline (TIOCSETD): refused, and the discipline is n_tty after.
"""
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time

TIOCGEXCL = 0x80045440


def spawn(at, repo, argv, rows=24, cols=80):
    """agenttask ARGV on a new pty as its controlling terminal: (pid, master, slave)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    pid = os.fork()
    if pid == 0:
        try:
            os.close(master)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for i in range(3):
                os.dup2(slave, i)
            os.chdir(repo)
            os.execv(at, [at] + argv)
        finally:
            os._exit(127)
    return pid, master, slave


def read_for(fd, seconds, want=None):
    """What fd gives within SECONDS, or until `want` (bytes) is seen."""
    out = b""
    end = time.time() + seconds
    while (want is None or want not in out) and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


def read_until(fd, want, timeout=10.0):
    """Read from fd until `want` (bytes) is seen; all that was read."""
    out = read_for(fd, timeout, want)
    if want not in out:
        fail("did not see %r; got %r" % (want, out))
    return out


def finish(pid, fd, timeout=20.0):
    """Drain fd until agenttask exits; its exit status."""
    end = time.time() + timeout
    while time.time() < end:
        p, status = os.waitpid(pid, os.WNOHANG)
        if p == pid:
            return os.waitstatus_to_exitcode(status)
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                os.read(fd, 4096)
            except OSError:
                pass
    os.kill(pid, signal.SIGKILL)
    fail("agenttask did not exit")


def exit_shell(pid, fd, status):
    """`exit STATUS` to the shell inside: agenttask must exit with it."""
    os.write(fd, b"exit %d\r" % status)
    code = finish(pid, fd)
    if code != status:
        fail("exit status %r, expected %r" % (code, status))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_tty(at, repo, task):
    # What: a program inside asks which terminal it is on, and its size.
    # Must: a pty of the sandbox's own devpts, of our terminal's size, and
    # the new size once ours changes.
    pid, fd, _ = spawn(at, repo, ["run", task, "--", "bash", "--norc", "--noprofile", "-i"],
                       33, 101)
    # Typed ahead: the pty keeps it until the shell reads.
    os.write(fd, b"echo T=$(tty)=; stty size\r")
    out = read_until(fd, b"33 101", timeout=60.0)
    if b"T=/dev/pts/" not in out:
        fail("tty inside is not a pts: %r" % out)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    # The relay passes the new size on when it handles the signal: asked
    # again until it shows, for as long as a loaded machine may take.
    # (printf's \075 is '=': the line typed, echoed, never matches.)
    end, out = time.time() + 60, b""
    while b"S=40 120=" not in out:
        if time.time() > end:
            fail("the new size never reached the sandbox: %r" % out)
        os.write(fd, b"printf 'S\\075%s\\075\\n' \"$(stty size)\"\r")
        out += read_for(fd, 1.0)
    exit_shell(pid, fd, 7)


def check_jobs(at, repo, task):
    # What: ^Z at a shell inside, then fg.
    # Must: the job inside stops (agenttask keeps running), fg resumes it,
    # ^C interrupts it, and the shell is still there afterwards.
    # Each step waits for what the shell prints, never for a fixed time: a
    # key typed before the job has the terminal reaches the shell instead
    # (seen under ASan on a busy machine: the shell ignored ^Z, and the
    # terminal flushed the typed-ahead command). The job says READY once it
    # runs and GOON once fg has continued it, which bash does after it gives
    # the job the terminal; the quotes keep the typed line's echo from
    # matching. The job never forks: a ^Z that lands between a shell's
    # vfork and its child's exec stops the child while the parent waits
    # for it unstoppably, so the job never stops as a whole (seen with
    # dash's `while sleep`, 4 times in 15 on a loaded machine).
    # Unbuffered writes: a handler that prints through python's buffered
    # stdout, run while the stop had caught print() midway, raised
    # "reentrant call".
    job = (b"python3 -c 'import os, signal, time; signal.signal(signal.SIGCONT, lambda *a: "
           b"os.write(1, b\"GO\" b\"ON\\n\")); os.write(1, b\"RE\" b\"ADY\\n\"); time.sleep(120)'")
    pid, fd, _ = spawn(at, repo, ["run", task, "--", "bash", "--norc", "--noprofile", "-i"])
    read_until(fd, b"bash-", 30.0)
    os.write(fd, job + b"\r")
    read_until(fd, b"READY")
    os.write(fd, b"\x1a")
    read_until(fd, b"Stopped")
    p, status = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
    if p == pid:
        fail("agenttask itself stopped or ended on ^Z (status %r)" % status)
    os.write(fd, b"jobs; echo JOBS-$?\r")
    out = read_until(fd, b"JOBS-0")
    if b"time.sleep" not in out:
        fail("jobs does not list the stopped job: %r" % out)
    os.write(fd, b"fg\r")
    read_until(fd, b"GOON")
    os.write(fd, b"\x03")
    os.write(fd, b"echo AFTER-$?\r")
    read_until(fd, b"AFTER-130")
    exit_shell(pid, fd, 0)


# Raw mode, no echo, and the exclusive lock, set by the command on its stdin.
SPOIL = ("stty raw -echo -icanon; python3 -c 'import fcntl,termios;"
         "fcntl.ioctl(0, termios.TIOCEXCL)'; ")


def check_termios(at, repo, task):
    # What: the command leaves the terminal raw, without echo, and locked
    # (TIOCEXCL), on the pty, on the terminal itself (-T), and then is
    # timed out, kills itself, or stops the terminal's output.
    # Must: our terminal's termios is exactly as before, unlocked, and
    # agenttask does not hang putting it back.
    runs = [
        (["run", task, "--", "sh", "-c", SPOIL + "echo SPOILED"], 0),
        (["run", task, "-T", "--", "sh", "-c", SPOIL + "echo SPOILED"], 0),
        # A timeout long enough for the spoiling to be done first on a loaded
        # machine under ASan (1 s was not, once), short beside the sleep.
        (["run", task, "-T", "--timeout", "5", "--", "sh", "-c", SPOIL +
          "echo SPOILED; sleep 30"], 124),
        (["run", task, "-T", "--", "sh", "-c", SPOIL + "echo SPOILED; kill -9 $$"], 137),
        # Output stopped (tcflow): it must flow again afterwards.
        (["run", task, "-T", "--", "sh", "-c", SPOIL + "echo SPOILED; python3 -c 'import "
          "termios; termios.tcflow(0, termios.TCOOFF)'"], 0),
        (["run", task, "--timeout", "5", "--", "sh", "-c", SPOIL +
          "echo SPOILED; sleep 30"], 124),
    ]
    for argv, want in runs:
        # Taken before agenttask starts: it sets the terminal raw itself.
        master, slave = os.openpty()
        before = termios.tcgetattr(slave)
        os.close(master)
        os.close(slave)
        pid, fd, slave = spawn(at, repo, argv)
        if termios.tcgetattr(slave) != before:
            fail("a new pty's termios differ from another's")
        read_until(fd, b"SPOILED")
        code = finish(pid, fd)
        if code != want:
            fail("%s: exit status %r, expected %r" % (" ".join(argv), code, want))
        after = termios.tcgetattr(slave)
        if after != before:
            fail("%s: termios changed: %r -> %r" % (" ".join(argv), before, after))
        excl = struct.unpack("i", fcntl.ioctl(slave, TIOCGEXCL, b"\0\0\0\0"))[0]
        if excl:
            fail("%s: TIOCEXCL is still set" % " ".join(argv))
        flows(fd, slave, " ".join(argv))
        os.close(fd)
        os.close(slave)


N_TTY = 0
N_NULL = 27  # built into the kernel since 4.15 (drivers/tty/n_null.c)


def ldisc(fd):
    return struct.unpack("i", fcntl.ioctl(fd, termios.TIOCGETD, b"\0\0\0\0"))[0]


def check_ldisc(at, repo, task):
    # What: the command, given our terminal itself (-T), sets its line
    # discipline to n_null with TIOCSETD: the terminal is dead to the person
    # after the run (nothing typed reaches the shell).
    # Must: TIOCSETD is refused (EPERM), and the terminal's discipline is
    # still n_tty after the run.
    try:
        with open("/proc/tty/ldiscs") as f:
            have = f.read().split()
    except OSError:
        have = []
    if "n_null" not in have:
        print("skip: the kernel has no n_null line discipline to switch to")
        sys.exit(77)
    setd = ("import fcntl, struct, termios\n"
            "try:\n"
            "    fcntl.ioctl(0, termios.TIOCSETD, struct.pack('i', %d)); r = 'SET'\n"
            "except OSError as e:\n"
            "    r = 'ERRNO%%d' %% e.errno\n"
            "print('LDISC-' + r, flush=True)\n" % N_NULL)
    pid, fd, slave = spawn(at, repo, ["run", task, "-T", "--", "python3", "-c", setd])
    out, code = b"", None
    end = time.time() + 30
    while code is None and time.time() < end:
        p, status = os.waitpid(pid, os.WNOHANG)
        if p == pid:
            code = os.waitstatus_to_exitcode(status)
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                pass
    if code is None:
        fail("agenttask did not end")
    after = ldisc(slave)
    if after != N_TTY:
        # put it back, or the pty stays unusable until closed
        fcntl.ioctl(slave, termios.TIOCSETD, struct.pack("i", N_TTY))
        fail("the terminal's line discipline is %d after the run, not n_tty" % after)
    if b"LDISC-ERRNO1" not in out or code != 0:
        fail("TIOCSETD was not refused with EPERM (status %r): %r" % (code, out))
    os.close(fd)
    os.close(slave)


def flows(master, slave, what):
    """Output written to the terminal reaches its reader (it was not left stopped)."""
    fcntl.fcntl(slave, fcntl.F_SETFL, fcntl.fcntl(slave, fcntl.F_GETFL) | os.O_NONBLOCK)
    try:
        os.write(slave, b"PING\n")
    except BlockingIOError:
        fail("%s: the terminal's output is stopped" % what)
    r, _, _ = select.select([master], [], [], 3)
    if not r or b"PING" not in os.read(master, 4096):
        fail("%s: the terminal's output is stopped" % what)


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    check, at, repo, task = sys.argv[1:]
    {"tty": check_tty, "jobs": check_jobs, "termios": check_termios,
     "ldisc": check_ldisc}[check](at, repo, task)
    print("ok " + check)


if __name__ == "__main__":
    main()
