"""How an edition's citizen tracks pace the game: when the first Cerdà Scoring comes, who has built what by then,
and whether games end by the third scoring or by the supply of citizens, in seeded self-play.

    python bench/citizen_tracks.py [--edition NAME|FILE] [--players 3] [--games 40] [--bot ismcts:1000]
                                   [--seed 0] [--workers 2] [--json] [--sections 7,7,7/5,5,5 --mark last]

``--sections WM/U`` plays a variant of the edition's tracks instead: the Working and Middle rows of sections of
those lengths, the Upper row of its own, each section's Cerdà Scoring mark on its last space (``--mark last``) or
the one before (``--mark before-last``), the printed "3" on each section's first space and "2" on its second, and
VP rising evenly along each row from 1 (Upper: 2) to 10 (the variants compared in docs/measurements/
citizen-tracks.md).

The rulebook's worked example of the first Cerdà Scoring (R112, 3 players) has the first scoring fire with one
player holding 3 Corner Buildings: a player builds at most once a turn, so such a scoring comes in round 3 or
later. Every game starts from new_game(players, seed K+g) and is played by the bot spec in every seat (the
default engine at the Club level's 1,000 iterations unless --bot says otherwise). Prints, with 95% (Wilson)
intervals over the games:

- the share of games whose first Cerdà Scoring comes in round 3 or later, the rounds' distribution, and which
  rows had reached their first mark then (the worked example's is the Upper row);
- the share where some player has 3 or more buildings when it comes;
- the share that end by the third scoring (the others ended because no citizen was left to play);
- the mean number of rounds and of citizens left in the bag at the end.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from contextlib import closing

from barcelona_ai.rules.tables import build_edition, load_edition
from barcelona_ai.workflows.arena import run_jobs, wilson
from barcelona_ai.workflows.pacing import game_pace

CLASS_LETTERS = "WMU"                       # the rows: Working, Middle, Upper class


def game_pace_job(job: tuple) -> dict:
    """game_pace of one (edition, players, bot, seed) job, its rows written as letters (W, M, U)."""
    g = game_pace(*job)
    return {**g, "first_rows": None if g["first_rows"] is None else "".join(CLASS_LETTERS[k] for k in g["first_rows"])}


def variant(doc: dict, sections: str, mark: str) -> dict:
    """The board data `doc` with the citizen tracks of --sections and --mark (see the module docstring)."""
    wm, up = ([int(x) for x in part.split(",")] for part in sections.split("/"))
    back = {"last": 0, "before-last": 1}[mark]

    def row(lengths: list[int], low: int) -> dict:
        spans, marks, threes, twos, start = [], [], [], [], 0
        for n in lengths:
            spans.append([start, start + n - 1])
            marks.append(start + n - 1 - back)
            threes.append(start)
            twos += [start, start + 1]
            start += n
        vp = [round(low + (10 - low) * i / (start - 1) + 1e-9) for i in range(start)]
        return {"sections": spans, "marks": marks, "prefill_3p": threes, "prefill_2p": twos, "vp": vp}
    out = json.loads(json.dumps(doc))
    out["edition"] = f"tracks-{sections.replace(',', '').replace('/', '-')}-{mark}"
    out["citizen_tracks"] = {"WORKING": row(wm, 1), "MIDDLE": row(wm, 1), "UPPER": row(up, 2)}
    return out


def summary(games: list[dict]) -> dict:
    n = len(games)
    late = sum(1 for g in games if g["first_round"] is not None and g["first_round"] >= 3)
    built3 = sum(1 for g in games if (g["buildings_at_first"] or 0) >= 3)
    ended = sum(1 for g in games if g["by_scoring"])

    def share(k: int) -> dict:
        lo, hi = wilson(k, n)
        return {"share": k / n, "low": lo, "high": hi, "games": k}
    return {"games": n, "first_scoring_round_3_or_later": share(late), "three_buildings_at_first": share(built3),
            "ended_by_third_scoring": share(ended),
            "first_round_counts": dict(sorted(Counter(str(g["first_round"]) for g in games).items())),
            "first_rows_counts": dict(sorted(Counter(str(g["first_rows"]) for g in games).items())),
            "mean_rounds": sum(g["rounds"] for g in games) / n,
            "mean_bag_left": sum(g["bag_left"] for g in games) / n}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edition", default="default")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--bot", default="ismcts:1000")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--sections", default=None, help="a variant's section lengths: Working and Middle / Upper")
    ap.add_argument("--mark", choices=("last", "before-last"), default="last")
    args = ap.parse_args(argv)
    ed = load_edition(args.edition)
    if args.sections:
        ed = build_edition(variant(ed.raw, args.sections, args.mark), source="variant")
    jobs = [(ed, args.players, args.bot, args.seed + g) for g in range(args.games)]
    with closing(run_jobs(game_pace_job, jobs, args.workers)) as done:
        games = sorted((g for _i, g in done), key=lambda g: g["seed"])
    out = summary(games)
    if args.json:
        print(json.dumps({"edition": ed.label, "bot": args.bot, "players": args.players, **out}, indent=1))
        return 0
    print(f"{ed.label}: {args.games} games of {args.players} players by {args.bot}, setup seeds "
          f"{args.seed}..{args.seed + args.games - 1}")
    for key, what in (("first_scoring_round_3_or_later", "first Cerdà Scoring in round 3 or later"),
                      ("three_buildings_at_first", "a player has 3+ buildings at the first scoring"),
                      ("ended_by_third_scoring", "ended by the third scoring (not the supply)")):
        m = out[key]
        print(f"  {what:<50} {m['share']:.2f} [{m['low']:.2f}, {m['high']:.2f}] ({m['games']} games)")
    print(f"  first scoring's round: {out['first_round_counts']}; the rows at their first mark then (Working, "
          f"Middle, Upper): {out['first_rows_counts']}")
    print(f"  mean rounds {out['mean_rounds']:.1f}, citizens left in the bag {out['mean_bag_left']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
