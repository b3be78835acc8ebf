"""Stable hints: does the first hint name the same move whatever the engine's seed, and does it
never show a lower value than a later hint?

    python bench/stable_hints.py [--seeds 5] [--scale 1.0] [--json out.json] [--preset v0 --measure]

20 fixed positions (2, 3 and 4 players, opening to endgame) are taken from seeded games of POSITION_BOT
bots (the 3-player default's search, rollouts deciding, in every player count; positions(): setup seed, fraction of
the game's decisions). At each, ``Engine(seed=k).hints(top=3)`` runs for k = 1..seeds with the iterations the
default engine's hints run there in one second of one idle thread of ours (DEFAULT_BUDGETS; --scale multiplies
them), so the figures do not depend on the machine's load. Other settings are given the budgets measured at the
start of the run (--measure: measure_budget()), written with the rows. Printed: the share of positions where every
seed's first hint names the same move, and the share of calls where a later hint shows a higher win probability (or
expected score) for the player to move than the first one.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from barcelona_ai.core import State, new_game
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.workflows.selfplay import play_game

# (players, setup seed, fraction of the game's decisions played before the position)
POSITION_BOT = "ismcts:200,leaf=mix,rollout_depth=0,forecast_at=value,turn_policy=rollout"
POSITIONS = [(2, 1, 0.0), (2, 2, 0.15), (2, 3, 0.3), (2, 4, 0.45), (2, 5, 0.6), (2, 6, 0.75), (2, 7, 0.9),
             (3, 1, 0.0), (3, 2, 0.2), (3, 3, 0.4), (3, 4, 0.6), (3, 5, 0.8), (3, 6, 0.92),
             (4, 1, 0.0), (4, 2, 0.15), (4, 3, 0.3), (4, 4, 0.5), (4, 5, 0.7), (4, 6, 0.85), (4, 7, 0.95)]


def position(players: int, seed: int, fraction: float) -> State:
    """The first decision with more than one legal move at or after `fraction` of a seeded bot game."""
    game = play_game([POSITION_BOT] * players, setup_seed=seed, bot_seed=seed)
    actions = [e["id"] for e in game.record["actions"]]
    s = new_game(players, seed=seed)
    start = int(fraction * len(actions))
    for i, a in enumerate(actions):
        if i >= start and not s.is_chance_node() and len(s.legal_actions()) > 1:
            return s
        s.apply(a)
    raise RuntimeError(f"no decision after {fraction} of game {seed} ({players} players)")


# The iterations the default engine's hints run in one second of one idle thread at each of POSITIONS (in their
# order): the most of 3 calls with a 1 s time limit, measured with --measure on 2026-11-29 (`barcelona-ai bench`:
# 2-player v0 42,400 iterations a second from the setups, the default 82,000). The budgets before, the rates of
# the setups on 2026-11-23 and 2026-11-27 times factors for the short rollout and the learned turn policy (40,900
# / 23,000 / 22,440 for 2 / 3 / 4 players), had fallen to a third or a half of one second since the speed work.
DEFAULT_BUDGETS = [
    82_000, 94_000, 80_000, 49_000, 58_000, 114_000, 117_000,
    29_000, 39_000, 48_000, 76_000, 120_000, 554_000,
    67_000, 66_000, 62_000, 71_000, 54_000, 133_000, 295_000,
]


def measure_budget(s: State, settings: dict, calls: int = 3) -> int:
    """The iterations the engine with these settings runs in one second of hints() at `s`: the most of `calls`
    calls with a 1 s time limit (engine seeds 1..calls), rounded to a thousand. Run it on an idle machine."""
    done = 0
    for k in range(1, calls + 1):
        engine = Engine(seed=k, **settings)
        engine.hints(s, Limit(time=1.0), top=3)
        done = max(done, engine.iterations_searched)
    return max(1000, round(done, -3))


def measure(s: State, seeds: int, iterations: int, settings: dict) -> dict:
    budget = Limit(iterations=iterations)
    p = s.current_player()
    firsts, win_inversions, score_inversions = [], 0, 0
    for k in range(1, seeds + 1):
        hints = Engine(seed=k, **settings).hints(s, budget, top=3)
        firsts.append(hints[0].actions[0])
        win_inversions += any(h.win_prob[p] > hints[0].win_prob[p] + 1e-9 for h in hints[1:])
        score_inversions += any(h.expected_score[p] > hints[0].expected_score[p] + 1e-9 for h in hints[1:])
    return {"players": s.num_players, "moves": len(s.legal_actions()), "iterations": iterations,
            "stable": len(set(firsts)) == 1, "distinct_first_moves": len(set(firsts)),
            "win_inversions": win_inversions, "score_inversions": score_inversions}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="budget in seconds of one idle thread")
    ap.add_argument("--measure", action="store_true",
                    help="measure each position's one-second budget here first (needed for settings other than the "
                         "default engine's; run it on an idle machine)")
    ap.add_argument("--preset", default=None, help="the engine's preset (default: the default one)")
    ap.add_argument("--settings", default="{}", help="more search settings, as JSON")
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args(argv)
    settings = {"preset": args.preset} if args.preset else {}
    settings.update(json.loads(args.settings))
    if settings and not args.measure:
        ap.error("the stored budgets are the default engine's: with other settings, add --measure")
    rows, t0 = [], time.time()
    for (players, seed, fraction), stored in zip(POSITIONS, DEFAULT_BUDGETS):
        s = position(players, seed, fraction)
        one = measure_budget(s, settings) if args.measure else stored
        row = measure(s, args.seeds, int(one * args.scale), settings)
        row.update(seed=seed, fraction=fraction)
        rows.append(row)
        print(json.dumps(row), flush=True)
    calls = len(rows) * args.seeds
    print(f"stable first hint: {sum(r['stable'] for r in rows)}/{len(rows)} positions; "
          f"a later hint with a higher win probability: {sum(r['win_inversions'] for r in rows)}/{calls} calls, "
          f"higher expected score: {sum(r['score_inversions'] for r in rows)}/{calls}; {time.time() - t0:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seeds": args.seeds, "scale": args.scale, "settings": settings, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
