#!/usr/bin/env python3
"""Rotate whole commands one run at a time and print their medians.

    bench/rotate.py ROUNDS CMD...

Each round runs every command once (the order reversed every other round),
through /bin/sh -c 'exec CMD' with stdout and stderr to /dev/null, and
reads its wall time and its CPU time (user + system of the command and
its children, from wait4's rusage). The first three rounds warm up. A
rotation, unlike hyperfine's runs of one command after another, keeps a
minute's drift of this shared machine out of the comparison.
"""
import os
import statistics
import sys
import time

rounds, cmds = int(sys.argv[1]), sys.argv[2:]
wall = {c: [] for c in cmds}
cpu = {c: [] for c in cmds}
null = os.open(os.devnull, os.O_RDWR)
for r in range(rounds + 3):
    for c in cmds if r % 2 == 0 else cmds[::-1]:
        t = time.perf_counter()
        pid = os.posix_spawn("/bin/sh", ["/bin/sh", "-c", "exec " + c], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
        _, status, ru = os.wait4(pid, 0)
        w = time.perf_counter() - t
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("%s failed: %s" % (c, status))
        if r >= 3:
            wall[c].append(w * 1e3)
            cpu[c].append((ru.ru_utime + ru.ru_stime) * 1e3)
for c in cmds:
    q = statistics.quantiles(wall[c], n=4)
    print("wall median %7.2f ms (quartiles %.2f, %.2f)  cpu median %7.2f ms  %s" % (
        statistics.median(wall[c]), q[0], q[2], statistics.median(cpu[c]), c))
