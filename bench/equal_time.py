"""The iteration budgets that give two engines the same time (the equal-time arenas: a time per decision of
one thread, played as fixed iterations so that the games replay on any machine).

    python bench/equal_time.py RECORDS_DIR [--a ismcts:8000] [--b ismcts:8000,preset=v0] [--every 25]
                               [--games N] [--b-budget 7750]

Times both engines' `best_move` (CPU time, one thread, a fresh tree at every position) at the iterations of their
specs on every --every-th decision of the game records in RECORDS_DIR: the positions an arena between them
reaches (its `--save` folder), or games of either. Prints each one's rate over the total time (the budgets that
give both the same time over these positions: a game's time is the sum of its decisions') and the median of the
per-position ratios, and the budget of A that matches B's --b-budget by each. Rates vary with the position (a
rollout to the end is long early and short late; the network's cost is the same everywhere), so a sample of a
dozen games moves the ratio by several hundredths: take a hundred or more. Run it on a quiet machine.

What it measured, and the arena budgets of docs/measurements/strength.md set from it, are in
docs/measurements/speed.md, "Equal-time budgets".
"""
from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def positions(folder: str, every: int, games: int | None) -> list:
    """Every `every`-th decision of the first `games` records of `folder` (all by default)."""
    from barcelona_ai.rules.record import GameRecord
    paths = sorted(glob.glob(os.path.join(folder, "*.json")))[:games]
    if not paths:
        raise SystemExit(f"error: {folder}: no game records (*.json)")
    out = []
    for path in paths:
        out += [s.clone() for d, s in GameRecord.load(path).decisions() if d % every == 0]
    return out


def engine_of(spec: str):
    """The engine and the iteration budget of an ismcts bot spec, without tree reuse (the positions are of many
    games)."""
    from barcelona_ai.search.bots import make_bot
    bot = make_bot(spec + ",reuse_tree=false") if spec.startswith("ismcts:") else None
    if bot is None or bot.limit.iterations is None:
        raise SystemExit(f"error: {spec}: an ismcts:N spec (N iterations), e.g. ismcts:8000,preset=v0")
    return bot.engine, bot.limit


def cpu_seconds(engine, limit, state) -> float:
    t = time.process_time()
    engine.best_move(state, limit)
    return time.process_time() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", help="folder of game records (arena --save, selfplay --out)")
    ap.add_argument("--a", default="ismcts:8000", help="the candidate's spec (default: the default engine)")
    ap.add_argument("--b", default="ismcts:8000,preset=v0", help="the opponent's spec (default: v0)")
    ap.add_argument("--every", type=int, default=25, help="every K-th decision of each game (default 25)")
    ap.add_argument("--games", type=int, default=None, help="the first N records only")
    ap.add_argument("--b-budget", type=int, default=7750, help="B's iterations in the arena (default 7750: v0 at "
                                                                  "0.25 s of 31,000 a second)")
    args = ap.parse_args(argv)
    states = positions(args.records, args.every, args.games)
    (ea, la), (eb, lb) = engine_of(args.a), engine_of(args.b)
    ta = tb = 0.0
    ratios = []
    for s in states:
        a, b = cpu_seconds(ea, la, s), cpu_seconds(eb, lb, s)
        ta, tb = ta + a, tb + b
        ratios.append((la.iterations / a) / (lb.iterations / b))
    rate_a, rate_b = la.iterations * len(states) / ta, lb.iterations * len(states) / tb
    total, median = rate_a / rate_b, statistics.median(ratios)
    print(f"{len(states)} positions of {args.records}: {args.a} {rate_a:,.0f} iterations/s, {args.b} "
          f"{rate_b:,.0f} (CPU time over all positions)")
    print(f"A / B: {total:.3f} over the total time, {median:.3f} in the median position")
    print(f"B at {args.b_budget}: A at {round(args.b_budget * total)} (total time) or "
          f"{round(args.b_budget * median)} (median position)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
