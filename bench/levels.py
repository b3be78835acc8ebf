"""What each of the engine's levels does: 2-player arena games against the level below and the greedy bot.

    python bench/levels.py [--seed 60000] [--scale 1.0] [--out levels.jsonl] [--table levels.jsonl]

The levels are barcelona_ai.search.levels.LEVELS (ISMCTS iterations a decision, the engine a player meets in
`play` and the web board: tree reuse on). Each level plays the level below it and the greedy bot, the lowest also
the random bot: seat-rotated games on the seeded setups of --seed, in this one process, the cheap matches first.
A match is the games of

    barcelona-ai arena CANDIDATE OPPONENT --players 2 --games G --seed S --workers 1

(the same jobs, bots, chance and play-out as workflows.arena), played here with each bot's decisions timed: the
wall and CPU seconds of each, and the turns each side had. A level's seconds a decision and a turn are pooled
over all its matches. The CPU seconds are what one free core would take; the wall seconds count the other jobs of
the machine too (the load average is printed).

--out appends one JSON line per match as it ends and skips the matches the file holds already (an interrupted run
goes on); --table prints the table of such a file without playing; --scale multiplies every game count (a quick
look: --scale 0.05).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from barcelona_ai.core import State
from barcelona_ai.search.levels import LEVELS
from barcelona_ai.workflows.arena import chance_rng, game_bots, match_jobs, wilson
from barcelona_ai.workflows.playout import play_out

PLAYERS = 2
# Games of each match, by the candidate's iterations, for a run of about 40 minutes of one core: a game of
# 20,000 iterations against 5,000 costs some 10 s (0.15 s a decision), so the top matches play fewer games.
GAMES_BELOW = {200: 400, 1000: 200, 5000: 200, 20000: 120}
GAMES_GREEDY = {20: 400, 200: 200, 1000: 200, 5000: 100, 20000: 40}
GAMES_RANDOM = 400


def spec(iterations: int) -> str:
    return f"ismcts:{iterations}"


def matches(scale: float = 1.0) -> list[tuple[str, str, int]]:
    """(candidate, opponent, games) of the run, cheapest first: the lowest level against random, then each
    level against greedy and against the level below."""
    def games(n: int) -> int:
        return max(PLAYERS, round(n * scale / PLAYERS) * PLAYERS)
    its = [lv.iterations for lv in LEVELS]
    out = [(spec(its[0]), "random", games(GAMES_RANDOM)), (spec(its[0]), "greedy", games(GAMES_GREEDY[its[0]]))]
    for below, it in zip(its, its[1:]):
        out.append((spec(it), "greedy", games(GAMES_GREEDY.get(it, 20))))
        out.append((spec(it), spec(below), games(GAMES_BELOW.get(it, 40))))
    return out


def _timed(bot, clock: dict):
    """`bot` with its choose timed into `clock` (wall and CPU seconds, decisions)."""
    choose = bot.choose

    def timed_choose(state):
        w, c = time.perf_counter(), time.process_time()
        a = choose(state)
        clock["wall"] += time.perf_counter() - w
        clock["cpu"] += time.process_time() - c
        clock["decisions"] += 1
        return a
    bot.choose = timed_choose
    return bot


def play(job: tuple) -> dict:
    """One game of a match (arena.match_jobs' job), as arena.play_game plays it, with each seat's clock."""
    specs, setup_seed, bot_seed, cand_seat, _record = job
    s = State.new(len(specs), setup_seed)
    clocks = [{"wall": 0.0, "cpu": 0.0, "decisions": 0} for _ in specs]
    bots = [_timed(b, c) for b, c in zip(game_bots(specs, bot_seed), clocks)]
    play_out(s, bots, chance_rng(setup_seed, bot_seed))
    for p, c in enumerate(clocks):
        c["turns"] = s.view().players[p].turns
    return {"scores": s.scores(), "returns": s.returns(), "cand_seat": cand_seat, "clocks": clocks}


def run_match(candidate: str, opponent: str, games: int, seed: int) -> dict:
    """The match's results: win share with its 95% Wilson interval, mean VP of each side, each side's clock."""
    t0 = time.perf_counter()
    shares, own, other = [], [], []
    side = {"candidate_clock": {"wall": 0.0, "cpu": 0.0, "decisions": 0, "turns": 0}}
    side["opponent_clock"] = dict(side["candidate_clock"])
    for g, job in enumerate(match_jobs(candidate, opponent, PLAYERS, games, seed, False)):
        r = play(job)
        me = r["cand_seat"]
        shares.append(r["returns"][me])
        own.append(r["scores"][me])
        other.append(r["scores"][1 - me])
        for p, c in enumerate(r["clocks"]):
            for k, v in c.items():
                side["candidate_clock" if p == me else "opponent_clock"][k] += v
        print(f"\r{candidate} vs {opponent}: {g + 1}/{games} games, share {sum(shares) / len(shares):.3f}",
              end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    low, high = wilson(sum(shares), games)
    return {"candidate": candidate, "opponent": opponent, "players": PLAYERS, "games": games, "seed": seed,
            "share": sum(shares) / games, "low": low, "high": high, "vp": sum(own) / games,
            "opponent_vp": sum(other) / games, "seconds": time.perf_counter() - t0, **side,
            "load": os.getloadavg()[0]}


def saved(path: Path | None) -> list[dict]:
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def table(rows: list[dict]) -> str:
    """The matches' table and each bot's seconds a decision and a turn, pooled over its matches."""
    out = ["| match | games | win share [95%] | VP, each side | seconds | replay |", "|---|---:|---|---|---:|---|"]
    clock: dict[str, dict] = {}
    for r in rows:
        out.append(f"| {r['candidate']} vs {r['opponent']} | {r['games']} | {r['share']:.3f} [{r['low']:.3f}, "
                   f"{r['high']:.3f}] | {r['vp']:.1f} vs {r['opponent_vp']:.1f} | {r['seconds']:.0f} | "
                   f"`barcelona-ai arena {r['candidate']} {r['opponent']} --players {r['players']} --games "
                   f"{r['games']} --seed {r['seed']} --workers 1` |")
        for name, who in ((r["candidate"], "candidate_clock"), (r["opponent"], "opponent_clock")):
            c = clock.setdefault(name, {"wall": 0.0, "cpu": 0.0, "decisions": 0, "turns": 0})
            for k in c:
                c[k] += r[who][k]
    out += ["", "| bot | decisions | wall s a decision | CPU s a decision | wall s a turn | CPU s a turn |",
            "|---|---:|---:|---:|---:|---:|"]
    for name, c in sorted(clock.items(), key=lambda kv: kv[1]["cpu"] / max(1, kv[1]["decisions"])):
        d, t = max(1, c["decisions"]), max(1, c["turns"])
        out.append(f"| {name} | {c['decisions']:,} | {c['wall'] / d:.4f} | {c['cpu'] / d:.4f} | "
                   f"{c['wall'] / t:.3f} | {c['cpu'] / t:.3f} |")
    loads = [r["load"] for r in rows]
    if loads:
        out.append(f"\nload average (1 min) as each match ended: {min(loads):.2f} to {max(loads):.2f} on "
                   f"{os.cpu_count()} CPUs; {sum(r['seconds'] for r in rows):.0f} s of play in all")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=60000, help="first setup seed of every match")
    ap.add_argument("--scale", type=float, default=1.0, help="every match's game count times this")
    ap.add_argument("--out", type=Path, default=None, help="append each match as a JSON line; skip those there")
    ap.add_argument("--table", type=Path, default=None, help="print the table of such a file and stop")
    args = ap.parse_args(argv)
    if args.table is not None:
        print(table(saved(args.table)))
        return 0
    rows = saved(args.out)
    done = {(r["candidate"], r["opponent"], r["games"], r["seed"]) for r in rows}
    for candidate, opponent, games in matches(args.scale):
        if (candidate, opponent, games, args.seed) in done:
            continue
        row = run_match(candidate, opponent, games, args.seed)
        rows.append(row)
        if args.out is not None:
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
