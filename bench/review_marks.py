"""Review marks: does the review mark the moves of a player who finished far behind, and does it leave alone the
moves the engine itself plays at the review's budget?

    python bench/review_marks.py [--iterations 500] [--games 12] [--every 2] [--seed 1000] [--json out.json]

Games: seeded games between bots of different strengths (LINEUPS: ISMCTS at 30-500 iterations a decision, the
greedy and random bots), `--games` for each of 2, 3 and 4 players, game g from setup and bot seed `--seed`+g with
the lineup g mod len(LINEUPS[players]), its seats rotated by g. Two checks, both at the review's budget
(`--iterations` a decision, review seed 0, as ``review_record`` runs):

- last place: the review of the last-placed player's decisions (review_record(players=[last])); counted are the
  games where that player finished at least BEHIND VP behind the winner, and among them those where the review
  marks at least one of that player's decisions an inaccuracy or worse (target: 80%).
- the engine's own moves: at every `--every`-th decision of the game (any seat), the move ``Engine(seed=k)
  .best_move`` chooses there at the review's budget, k an engine seed the review does not use, is reviewed as if
  it had been played (review_decision); counted are those marked good or best (target: 95%), also among the
  moves that differ from the review's engine move.
- the engine's hints: at every (2 x `--every`)-th decision, the move the engine chooses with `--hint-scale` times
  the review's budget (another seed; ``play``'s hints may run a larger budget than a review): counted as above.

Printed: each game's line, then the two rates with Wilson 95% intervals, per player count and in all.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

from barcelona_ai.rules.record import GameRecord
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.search.running import mix_seed
from barcelona_ai.workflows import review as R
from barcelona_ai.workflows.selfplay import play_game

LINEUPS = {
    2: [["ismcts:500", "greedy"], ["ismcts:500", "ismcts:30"], ["ismcts:500", "random"],
        ["ismcts:500", "ismcts:100"], ["ismcts:500", "ismcts:200"]],
    3: [["ismcts:500", "ismcts:100", "greedy"], ["ismcts:500", "ismcts:200", "random"],
        ["ismcts:300", "ismcts:30", "ismcts:100"], ["ismcts:500", "ismcts:200", "ismcts:100"]],
    4: [["ismcts:300", "ismcts:100", "greedy", "ismcts:30"], ["ismcts:500", "ismcts:200", "random", "ismcts:100"],
        ["ismcts:500", "ismcts:200", "ismcts:100", "ismcts:300"]],
}
BEHIND = 40                    # VP behind the winner from which the last-placed player's review must mark a move
REVIEW_SEED = 0


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


def lineup(players: int, g: int) -> list[str]:
    specs = LINEUPS[players][g % len(LINEUPS[players])]
    r = g % players
    return specs[r:] + specs[:r]


def _good(d) -> bool:
    return R.MARKS.index(d.mark) <= R.MARKS.index("good")


def check_game(players: int, g: int, seed: int, limit: Limit, every: int, hint: Limit) -> dict:
    specs = lineup(players, g)
    game = play_game(specs, seed + g, seed + g)
    rec = GameRecord.from_json(game.record)
    scores = game.scores
    last = min(range(players), key=lambda p: (scores[p], p))
    behind = max(scores) - scores[last]
    review = R.review_record(rec, limit, seed=REVIEW_SEED, players=[last])
    marked = sum(1 for d in review.decisions if R.MARKS.index(d.mark) >= R.MARKS.index("inaccuracy"))
    engine = Engine(seed=REVIEW_SEED)
    own, own_good, differ, differ_good, hints, hints_good, k = 0, 0, 0, 0, 0, 0, 0
    for i, s, entry in rec.steps(REVIEW_SEED):
        if entry is None or not R.decides(s) or len(s.legal_actions()) < 2:
            continue
        k += 1
        if k % every:
            continue
        move = Engine(seed=mix_seed(seed + g, 1000 + i)).best_move(s, limit)
        d = R.review_decision(engine, s, i, move, limit, REVIEW_SEED)
        own += 1
        own_good += _good(d)
        if d.evaluated_by != "engine":
            differ += 1
            differ_good += _good(d)
        if k % (2 * every) == 0:
            move = Engine(seed=mix_seed(seed + g, 2000 + i)).best_move(s, hint)
            hints += 1
            hints_good += _good(R.review_decision(engine, s, i, move, limit, REVIEW_SEED))
    return {"players": players, "game": g, "seed": seed + g, "seats": specs, "scores": scores, "last": last,
            "behind": behind, "last_decisions": len(review.decisions), "last_marked": marked,
            "last_accuracy": review.summary[0].accuracy if review.summary else None,
            "own": own, "own_good": own_good, "differ": differ, "differ_good": differ_good,
            "hints": hints, "hints_good": hints_good}


def rates(rows: list[dict]) -> dict:
    far = [r for r in rows if r["behind"] >= BEHIND]
    hit = sum(1 for r in far if r["last_marked"] > 0)
    own, good = sum(r["own"] for r in rows), sum(r["own_good"] for r in rows)
    differ, differ_good = sum(r["differ"] for r in rows), sum(r["differ_good"] for r in rows)
    hints, hints_good = sum(r["hints"] for r in rows), sum(r["hints_good"] for r in rows)
    return {"far_games": len(far), "far_marked": hit, "far_interval": wilson(hit, len(far)),
            "own": own, "own_good": good, "own_interval": wilson(good, own),
            "differ": differ, "differ_good": differ_good, "differ_interval": wilson(differ_good, differ),
            "hints": hints, "hints_good": hints_good, "hints_interval": wilson(hints_good, hints)}


def line(name: str, r: dict) -> str:
    def pct(k, n, iv):
        return f"{k}/{n} = {100 * k / max(n, 1):.1f}% ({100 * iv[0]:.1f}-{100 * iv[1]:.1f})"
    return (f"{name}: last place {BEHIND}+ VP behind marked {pct(r['far_marked'], r['far_games'], r['far_interval'])}; "
            f"engine's own moves good or best {pct(r['own_good'], r['own'], r['own_interval'])}, those that differ "
            f"from the review's {pct(r['differ_good'], r['differ'], r['differ_interval'])}; at the larger budget "
            f"{pct(r['hints_good'], r['hints'], r['hints_interval'])}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=500, help="the review's budget a decision")
    ap.add_argument("--games", type=int, default=12, help="games for each player count")
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--every", type=int, default=2, help="check the engine's own move at every N-th decision")
    ap.add_argument("--seed", type=int, default=1000, help="game g's setup and bot seed is SEED+g")
    ap.add_argument("--hint-scale", type=int, default=4, help="the hints' budget in review budgets")
    ap.add_argument("--json", default=None, help="write the rows and rates here")
    args = ap.parse_args(argv)
    limit = Limit(iterations=args.iterations)
    rows, t0 = [], time.time()
    counts = [int(x) for x in args.players.split(",")]
    for players in counts:
        for g in range(args.games):
            row = check_game(players, g, args.seed + 100 * players, limit, args.every,
                             Limit(iterations=args.hint_scale * args.iterations))
            rows.append(row)
            print(f"{players}p game {g} seed {row['seed']} {'/'.join(row['seats'])}: scores {row['scores']}, last "
                  f"P{row['last']} {row['behind']} VP behind, {row['last_marked']} of {row['last_decisions']} "
                  f"marked (accuracy {row['last_accuracy']:.0f}); engine's moves {row['own_good']}/{row['own']} "
                  f"good+ ({time.time() - t0:.0f} s)", flush=True)
    summary = {p: rates([r for r in rows if r["players"] == p]) for p in counts}
    summary["all"] = rates(rows)
    for p in counts:
        print(line(f"{p} players", summary[p]))
    print(line("all", summary["all"]))
    print(f"review budget {args.iterations} iterations a decision, the larger budget {args.hint_scale} times it; "
          f"{time.time() - t0:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"iterations": args.iterations, "hint_scale": args.hint_scale, "rows": rows, "rates": summary},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
