#!/usr/bin/env python3
"""Whole-process timings of commands run in turn, one run of each per round, so that the machine's
load falls on all of them alike. Prints the median, the first quartile and the minimum wall time.

Each round runs the commands in a new order (shuffled, seeded: the same orders on every run).
In a fixed order, where a command stands moves its time: one `skelnorm normalize` of
fixtures/mixamo.glb given twice in a row, after a normalize of the 3 MB bench file, took 5.84 ms
the first time and 5.53 ms the second (medians of 100 rounds, on the project's 2-core virtual
machine).

    python3 scripts/interleave.py ROUNDS 'label::command args' ['label::command args' ...]

Each run goes through Python's `subprocess.run`, which adds about 1 ms; run it under
`chrt -f 10` (as root) to keep other work from preempting the runs.
"""
import random
import shlex
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    commands = []
    for arg in sys.argv[2:]:
        label, sep, command = arg.partition("::")
        if not sep or not command.strip():
            sys.exit(f"`{arg}` is not `label::command`")
        commands.append((label, shlex.split(command)))
    times = {label: [] for label, _ in commands}
    order = random.Random(19)
    for _ in range(rounds):
        for label, args in order.sample(commands, len(commands)):
            start = time.perf_counter()
            done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if done.returncode != 0:
                sys.exit(f"{label}: `{shlex.join(args)}` exited with {done.returncode}")
            times[label].append((time.perf_counter() - start) * 1e3)
    for label, _ in commands:
        v = sorted(times[label])
        print(f"{label:28s} median {statistics.median(v):7.2f}  p25 {v[len(v) // 4]:7.2f}  min {v[0]:7.2f} ms")


if __name__ == "__main__":
    main()
