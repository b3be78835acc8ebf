"""Games per minute of a selfplay run on 1 process, 2 processes and Ray with 2 CPUs, measured in one run.

    python bench/selfplay_scaling.py [--games 16] [--bot ismcts:300] [--players 2] [--seed 0]

Plays the same games (same bot specs and seeds) three ways, one after the other: ``run_selfplay`` in this
process (workers 1), in two local processes (workers 2), and as Ray tasks on a local Ray instance of 2 CPUs
(``--ray local --workers 2``; needs the [ray] extra). Ray's start is timed apart from the games (a cluster is
started once, not per run). Prints a table, checks that the three runs wrote byte-identical records, and
the load average before and after (other work on the machine lowers the parallel figures).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from barcelona_ai.workflows.selfplay import run_selfplay


def records(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("game-*.json"))}


def timed(specs: list[str], games: int, seed: int, out: Path, **how) -> float:
    out.mkdir()
    t0 = time.perf_counter()
    run_selfplay(specs, games, seed, out, **how)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=16)
    ap.add_argument("--bot", default="ismcts:300")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    specs = [args.bot] * args.players
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rows.append(("1 process", timed(specs, args.games, args.seed, tmp / "one", workers=1)))
        rows.append(("2 processes", timed(specs, args.games, args.seed, tmp / "two", workers=2)))
        from barcelona_ai.workflows.distributed import session
        t0 = time.perf_counter()
        with session("local", 2):
            start = time.perf_counter() - t0
            rows.append(("Ray, 2 CPUs", timed(specs, args.games, args.seed, tmp / "ray", workers=2, ray="local")))
        same = records(tmp / "one") == records(tmp / "two") == records(tmp / "ray")
    print(f"selfplay: {args.games} games of {args.players} players, seats {args.bot}, seeds "
          f"{args.seed}..{args.seed + args.games - 1}; {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    print("| run | seconds | games per minute | vs 1 process |\n|---|---:|---:|---:|")
    for name, secs in rows:
        print(f"| {name} | {secs:.1f} | {args.games * 60 / secs:.1f} | {rows[0][1] / secs:.2f}x |")
    print(f"Ray's start (once per cluster, not counted above): {start:.1f} s")
    print(f"records of the three runs byte-identical: {'yes' if same else 'NO'}")
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f} (1 min)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
