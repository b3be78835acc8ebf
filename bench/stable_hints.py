"""Stable hints (issue #10): does the first hint name the same move whatever the engine's seed, and does it
never show a lower value than a later hint?

    python bench/stable_hints.py [--seeds 5] [--scale 1.0] [--json out.json] [--leaf mix]

20 fixed positions (2, 3 and 4 players, opening to endgame) are taken from seeded games of ``ismcts:200,leaf=mix``
bots (positions(): setup seed, fraction of the game's decisions). At each, ``Engine(seed=k).hints(top=3)`` runs
for k = 1..seeds with the iteration budget that one second of one thread gives the engine measured on an idle
machine of ours (one_second(); --scale multiplies it), so the figures do not depend on the machine's load.
Printed: the share of positions where every seed's first hint names the same move, and the share of calls where a
later hint shows a higher win probability (or expected score) for the player to move than the first one.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from barcelona_ai.core import State, new_game
from barcelona_ai.engine import SHORT_ROLLOUT, Engine, Limit, SearchSettings
from barcelona_ai.selfplay import play_game

# Iterations per second of one search thread from the setups (barcelona-ai bench, idle machine, 2026-11-23), of
# the engines whose leaves are rolled out to the end (v0, leaf="mix").
ONE_SECOND = {2: 31_000, 3: 23_000, 4: 17_000}
# The 2-player default's (SHORT_ROLLOUT) iterations a second over v0's, from the 2-player setups (CPU time,
# interleaved, idle machine, 2026-11-27).
SHORT_ROLLOUT_RATE = 2.2
# ... with the learned turn policy playing the leaf's turn (turn_policy="learned", the 2- and 4-player default
# since 2026-11-27): 0.52 times the short rollout's iterations (2-player setups and positions, interleaved) with
# the first version of its file, 0.60 with the second (the decider's block alone: 0.72 against 0.62 in one run).
# In 4 players the product, 1.32 times v0's rate, agrees with the 1.30-1.40 measured in the median 4-player
# position.
TURN_POLICY_RATE = 0.60
# (players, setup seed, fraction of the game's decisions played before the position)
POSITIONS = [(2, 1, 0.0), (2, 2, 0.15), (2, 3, 0.3), (2, 4, 0.45), (2, 5, 0.6), (2, 6, 0.75), (2, 7, 0.9),
             (3, 1, 0.0), (3, 2, 0.2), (3, 3, 0.4), (3, 4, 0.6), (3, 5, 0.8), (3, 6, 0.92),
             (4, 1, 0.0), (4, 2, 0.15), (4, 3, 0.3), (4, 4, 0.5), (4, 5, 0.7), (4, 6, 0.85), (4, 7, 0.95)]


def position(players: int, seed: int, fraction: float) -> State:
    """The first decision with more than one legal move at or after `fraction` of a seeded bot game."""
    game = play_game(["ismcts:200,leaf=mix"] * players, setup_seed=seed, bot_seed=seed)
    actions = [e["id"] for e in game.record["actions"]]
    s = new_game(players, seed=seed)
    start = int(fraction * len(actions))
    for i, a in enumerate(actions):
        if i >= start and not s.is_chance_node() and len(s.legal_actions()) > 1:
            return s
        s.apply(a)
    raise RuntimeError(f"no decision after {fraction} of game {seed} ({players} players)")


def one_second(players: int, settings: dict) -> int:
    """The iterations one idle thread runs in one second of the engine with these settings: the short rollout's
    rate (with the learned turn policy, or without), or a rollout engine's (other settings are given the rollout
    engines' budget)."""
    resolved = SearchSettings(**settings).for_players(players)
    short = all(getattr(resolved, k) == SHORT_ROLLOUT[k] for k in ("leaf", "rollout_depth", "forecast_at"))
    learned = short and resolved.turn_policy == "learned"
    return int(ONE_SECOND[players] * (SHORT_ROLLOUT_RATE if short else 1.0) * (TURN_POLICY_RATE if learned else 1.0))


def measure(s: State, seeds: int, scale: float, settings: dict) -> dict:
    budget = Limit(iterations=int(one_second(s.num_players, settings) * scale))
    p = s.current_player()
    firsts, win_inversions, score_inversions = [], 0, 0
    for k in range(1, seeds + 1):
        hints = Engine(seed=k, **settings).hints(s, budget, top=3)
        firsts.append(hints[0].actions[0])
        win_inversions += any(h.win_prob[p] > hints[0].win_prob[p] + 1e-9 for h in hints[1:])
        score_inversions += any(h.expected_score[p] > hints[0].expected_score[p] + 1e-9 for h in hints[1:])
    return {"players": s.num_players, "moves": len(s.legal_actions()), "stable": len(set(firsts)) == 1,
            "distinct_first_moves": len(set(firsts)), "win_inversions": win_inversions,
            "score_inversions": score_inversions}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="budget in seconds of one idle thread")
    ap.add_argument("--leaf", default=None, help="SearchSettings.leaf (default: the engine's)")
    ap.add_argument("--settings", default="{}", help="more search settings, as JSON")
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args(argv)
    settings = {"leaf": args.leaf} if args.leaf else {}
    settings.update(json.loads(args.settings))
    rows, t0 = [], time.time()
    for players, seed, fraction in POSITIONS:
        row = measure(position(players, seed, fraction), args.seeds, args.scale, settings)
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
