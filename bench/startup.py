"""bench/startup.py ROUNDS NAME CMDFILE [NAME CMDFILE ...]

Like bench/interleave.py (ROUNDS rounds of one run of each command, the
order reversed every other round), but each run's CPU time and page faults
are counted too, for its whole tree of processes. wait4()'s figures alone
would miss some: bwrap returns as soon as its sandbox's pid 1 reports the
command's status, without waiting for that process, which did the mounts;
it is re-parented and reaped by someone else, and its CPU time is then in
nobody's wait4(). So this process is a child subreaper
(PR_SET_CHILD_SUBREAPER): the wall time ends when the command itself exits,
as its caller sees it, and the CPU time and page faults are those of every
process of the run, the orphans it left included, once all are reaped
(getrusage(RUSAGE_CHILDREN) before and after). Prints
{"results": [{"command": NAME, "wall": [s], "cpu": [s], "minflt": [n],
"majflt": [n]}, ...]} as JSON.
"""
import ctypes, errno, json, os, resource, sys, time

PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("bench/startup.py: cannot be a child subreaper")

rounds, pairs = int(sys.argv[1]), sys.argv[2:]
names = pairs[0::2]
cmds = [open(f, "rb").read().split(b"\0")[:-1] for f in pairs[1::2]]
null = os.open(os.devnull, os.O_WRONLY)
res = [{"command": n, "wall": [], "cpu": [], "minflt": [], "majflt": []} for n in names]


def reap_all():
    while True:
        try:
            os.wait4(-1, 0)
        except ChildProcessError:
            return


for r in range(rounds):
    for k in (range(len(cmds)) if r % 2 == 0 else reversed(range(len(cmds)))):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        pid = os.posix_spawnp(cmds[k][0], cmds[k], os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, null, 1),
                                            (os.POSIX_SPAWN_DUP2, null, 2)])
        _, status = os.waitpid(pid, 0)
        res[k]["wall"].append(time.perf_counter() - t0)
        reap_all()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[k]["cpu"].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        res[k]["minflt"].append(after.ru_minflt - before.ru_minflt)
        res[k]["majflt"].append(after.ru_majflt - before.ru_majflt)
        if status:
            sys.exit("bench/startup.py: '%s' failed" % names[k])
json.dump({"results": res}, sys.stdout)
