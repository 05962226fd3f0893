"""bench/interleave.py ROUNDS NAME CMDFILE [NAME CMDFILE ...]

Time commands interleaved: ROUNDS rounds of one run of each, the order
reversed every other round, so that the load of a shared machine falls on
every command alike (hyperfine times each command in one block). A
CMDFILE holds one command line, its arguments NUL-terminated. With
INTERLEAVE_GAP=SECONDS, each run comes that long after the one before, as
an agent's commands do (the kernel's state of a run just before, such as
an RCU grace period in progress, is then not there). Prints
{"results": [{"command": NAME, "times": [seconds, ...]}, ...]} as JSON.
"""
import json, os, sys, time

rounds, pairs = int(sys.argv[1]), sys.argv[2:]
names = pairs[0::2]
cmds = [open(f, "rb").read().split(b"\0")[:-1] for f in pairs[1::2]]
null = os.open(os.devnull, os.O_WRONLY)
times = [[] for _ in cmds]
gap = float(os.environ.get("INTERLEAVE_GAP", "0"))
for r in range(rounds):
    for k in (range(len(cmds)) if r % 2 == 0 else reversed(range(len(cmds)))):
        if gap:
            time.sleep(gap)
        t0 = time.perf_counter()
        pid = os.posix_spawnp(cmds[k][0], cmds[k], os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
        _, status = os.waitpid(pid, 0)
        times[k].append(time.perf_counter() - t0)
        if status:
            sys.exit("bench/interleave.py: '%s' failed" % names[k])
json.dump({"results": [{"command": n, "times": t} for n, t in zip(names, times)]}, sys.stdout)
