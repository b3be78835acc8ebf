"""Where root-parallel threads lose speed: two threads in one process against two processes.

    python bench/scaling.py [--rounds 3] [--seconds 3]

Runs the same time-limited 4-player search (Engine.analyse from the setup, leaves valued by rollouts) three ways,
interleaved round by round: one process with one thread, two processes with one thread each (at the same time),
and one process with two threads. Two processes share nothing but the machine, so

- two threads ~ two processes < 2x one thread: the machine is the limit (other jobs, two vCPUs that are one
  core's hyperthreads, a lower clock with both cores busy, memory), not the search;
- two threads < two processes: something inside the process is shared (the GIL, false sharing, the merge).

Also printed: the CPU time per iteration (it rises when threads slow each other down: shared cache lines, memory
bandwidth, hyperthreads) and the CPUs the searches got (1 per search thread on a machine of their own; less means
other jobs took the CPUs, and then no scaling can be read from the run).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = """
import json, sys, time
from barcelona_ai.core import State
import inspect
from barcelona_ai import Engine, Limit, SearchSettings
threads, secs, seed = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
if "preset" in inspect.signature(Engine).parameters:
    rollout_leaf = {"preset": "v0"}
else:
    rollout_leaf = {"leaf": "rollout"} if "leaf" in SearchSettings.__dataclass_fields__ else {}
w, c = time.perf_counter(), time.process_time()
a = Engine(seed=seed, threads=threads, **rollout_leaf).analyse(State.new(4, 1), Limit(time=secs))
print(json.dumps({"iterations": a.iterations, "wall": time.perf_counter() - w, "cpu": time.process_time() - c}))
"""


def run(threads: int, seconds: float, seeds: list[int]) -> dict:
    """Start one process per seed at once; their iterations per second, summed, and CPU seconds per iteration."""
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(threads), str(seconds), str(s)],
                              stdout=subprocess.PIPE, text=True) for s in seeds]
    out = [json.loads(p.communicate()[0]) for p in procs]
    its = sum(o["iterations"] for o in out)
    return {"rate": sum(o["iterations"] / seconds for o in out), "cpu_per_it": sum(o["cpu"] for o in out) / its,
            "cpus": sum(o["cpu"] for o in out) / statistics.mean(o["wall"] for o in out)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args(argv)
    ways = {"1 process x 1 thread": (1, [1]), "2 processes x 1 thread": (1, [1, 2]),
            "1 process x 2 threads": (2, [1])}
    got: dict[str, list[dict]] = {k: [] for k in ways}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for name, (threads, seeds) in ways.items():
            got[name].append(run(threads, args.seconds, seeds))
            loads.append(os.getloadavg()[0])
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
    one = statistics.median(x["rate"] for x in got["1 process x 1 thread"])
    print(f"{'way':<24} {'iterations/s':>13} {'x one thread':>13} {'CPU us/iteration':>17} {'CPUs used':>9}")
    for name in ways:
        rate = statistics.median(x["rate"] for x in got[name])
        cpu = statistics.median(x["cpu_per_it"] for x in got[name]) * 1e6
        busy = statistics.median(x["cpus"] for x in got[name])
        print(f"{name:<24} {rate:>13,.0f} {rate / one:>12.2f}x {cpu:>17.1f} {busy:>9.2f}")
    print(f"load average (1 min): mean {statistics.mean(loads):.2f}, max {max(loads):.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
