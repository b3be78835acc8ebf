"""How well a time limit holds: the wall time of best_move, hints and analyse at a few limits, past the limit, in
2, 3 and 4 players (the 4-player numbers' playouts included).

    python bench/time_limits.py [--limits 0.05 0.2 1.0] [--positions 3] [--seed 40]

Each call runs on a fresh Engine(seed=1) from seeded mid-game decisions (tests/test_twin_states.decision_positions);
printed: the median and the worst overshoot in milliseconds per player count, call and limit.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from barcelona_ai import Engine, Limit  # noqa: E402
from test_twin_states import decision_positions  # noqa: E402


def overshoots(players: int, call: str, limit: float, positions: int, seed: int) -> list[float]:
    out = []
    for s in decision_positions(players, seed=seed, count=positions):
        engine = Engine(seed=1)
        t = time.perf_counter()
        getattr(engine, call)(s, Limit(time=limit))
        out.append((time.perf_counter() - t - limit) * 1000)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limits", type=float, nargs="+", default=[0.05, 0.2, 1.0])
    ap.add_argument("--positions", type=int, default=3)
    ap.add_argument("--seed", type=int, default=40)
    args = ap.parse_args(argv)
    print("| players | call | limit (s) | median overshoot (ms) | worst (ms) |\n|---|---|---:|---:|---:|")
    for players in (2, 3, 4):
        for call in ("best_move", "hints", "analyse"):
            for limit in args.limits:
                ms = overshoots(players, call, limit, args.positions, args.seed)
                print(f"| {players} | {call} | {limit:g} | {statistics.median(ms):+.0f} | {max(ms):+.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
