"""How well can anyone forecast a self-play game? (The forecast floors, measured against the game.)

    python bench/forecast_ceiling.py RECORDS --out playouts.jsonl [--thirds 30 15 15] [--playouts 6]
                                     [--bot SPEC] [--workers 2] [--model value-model.json]
                                     [--resample-hidden] [--search 2000]

Positions are taken from finished self-play records never used for training (RECORDS: a folder of game-*.json,
e.g. the 4-player test set ``barcelona-ai selfplay --games 150 --players 4 --bot MIX_BOT --seed 600000``): the
first `thirds[0]` records give a position in the first third of their game, the next `thirds[1]` one in the second,
and so on, at a seeded random fraction of the third. Each position is played out `--playouts` times to the end by
the same bots the records were played by (``--bot`` for every seat), with new bot and chance seeds.

From the playouts of a position, train.best_possible estimates the Brier score of its true win probabilities
(without bias) and brackets the error of the best expected final score. Summed over positions, that is the most
any forecast can reach on these games: an upper bound even for a forecaster that sees the hidden citizens (the
playouts keep the record's hands and bag). Printed per third of the game beside the same figures for the value
network (``--model``; by default the one whose forecasts the default engine shows at the records' player count; the
network alone, no search), the naive score forecast and, with ``--search N``, the engine's own numbers (the default
engine's ``analyse`` at N iterations, seed 0, from the player to move's view: what a person is shown), all on the
same playouts. With ``--resample-hidden`` every playout first draws the hands the player to move cannot see
anew (State.determinize): the bound then holds for a forecast made from what that player sees. Playouts are
appended to ``--out`` as they end (named by the record's file name); a rerun with the same file plays only the
missing ones, then prints the table.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from barcelona_ai.workflows.arena import run_jobs
from barcelona_ai.search.bots import make_bot
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.search.settings import PRESETS
from barcelona_ai.learned.evaluation import ValueModel, features
from barcelona_ai.workflows.playout import play_out
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.training.train import best_possible, naive_forecast

SEED = 900_000          # playout k of position j: bots seeded (SEED + 100 j + k) * 31 + seat, chance
                        # outcomes drawn from (SEED + 100 j + k) * 1_000_003 + 7


MIX_BOT = "ismcts:2000,leaf=mix,rollout_depth=0,forecast_at=value,turn_policy=rollout"

def pick_positions(records: list[str], thirds: list[int], seed: int) -> list[tuple[str, float, int]]:
    """(record, fraction of its decisions, third) for the first sum(thirds) records, in record order."""
    rng, out = random.Random(seed), []
    bounds = np.cumsum(thirds)
    for j, path in enumerate(records[:bounds[-1]]):
        third = int(np.searchsorted(bounds, j, side="right"))
        out.append((path, (third + rng.random()) / 3.0, third))
    return out


def state_at(path: str, fraction: float):
    """(state, decision, decisions) at the decision int(fraction * decisions) of a finished record."""
    states = [s.clone() for _d, s in GameRecord.load(path).decisions()]
    want = int(fraction * len(states))
    if want >= len(states):
        raise ValueError(f"{path}: no decision {want}")
    return states[want], want, len(states)


def playout(job: tuple) -> dict:
    path, fraction, k, seed, spec, resample = job
    s, decision, decisions = state_at(path, fraction)
    if resample:                               # what the player to move cannot see, drawn anew (A6)
        s = s.determinize(s.current_player(), seed)
    name = Path(path).name
    bots = [make_bot(spec, seed * 31 + i) for i in range(s.num_players)]
    t0 = time.perf_counter()
    play_out(s, bots, random.Random(seed * 1_000_003 + 7))
    return {"record": name, "fraction": fraction, "playout": k, "decision": decision, "decisions": decisions,
            "wins": s.returns(), "finals": s.scores(), "seconds": round(time.perf_counter() - t0, 2)}


def summary(positions: list[tuple[str, float, int]], done: dict, model: ValueModel, search: int = 0) -> list[dict]:
    """Per third of the game, and for the whole game (the thirds weighted equally, as the positions of whole
    games are): the best skill, the network's, the engine's (`search` iterations of the default engine's analyse;
    0: not measured), and the score errors, on the same playouts."""
    engine = Engine(seed=0) if search else None
    naive = model.meta.get("naive_to_come", {})
    playouts: dict[tuple[str, float], list[dict]] = {}
    for (name, fraction, _k), r in sorted(done.items()):
        playouts.setdefault((name, fraction), []).append(r)
    by_third: dict[int, dict[str, list[float]]] = {}
    for path, fraction, third in positions:
        runs = playouts.get((Path(path).name, fraction), [])
        if len(runs) < 2:
            continue
        wins = np.array([r["wins"] for r in runs], dtype=float)
        finals = np.array([r["finals"] for r in runs], dtype=float)
        s, _d, _n = state_at(path, fraction)
        p, expected = (np.array(v) for v in model.predict(s))
        n = s.num_players
        x = np.array(features(s), dtype=np.float32)
        naive_score = naive_forecast({"features": x, "players": np.full(n, n),
                                      "score": np.array(s.scores(), dtype=float)}, naive)
        row = dict(best_possible(wins, finals), **forecast_errors("model", p, expected, wins, finals),
                   naive_mae=float(np.abs(finals - naive_score).mean()))
        if engine is not None:
            shown = engine.analyse(s, Limit(iterations=search), top=1).players
            row.update(forecast_errors("engine", np.array([pl.win_prob for pl in shown]),
                                       np.array([pl.expected_score for pl in shown]), wins, finals))
        for name, v in row.items():
            by_third.setdefault(third, {}).setdefault(name, []).append(v)
    table = [dict(third=t + 1, **figures([by_third[t]])) for t in sorted(by_third)]
    table.append(dict(third="game", **figures([by_third[t] for t in sorted(by_third)])))
    return table


def forecast_errors(who: str, p: np.ndarray, expected: np.ndarray, wins: np.ndarray, finals: np.ndarray) -> dict:
    """A forecast's Brier score and expected-score error, averaged over the playouts of one position."""
    return {f"{who}_brier": float(((p - wins) ** 2).sum(axis=1).mean()),
            f"{who}_mae": float(np.abs(finals - expected).mean())}


def figures(groups: list[dict[str, list[float]]]) -> dict:
    """The skills (with 95% bootstrap intervals: the positions of each group resampled) and mean errors of groups
    of positions weighted equally."""
    rng = np.random.default_rng(0)
    everyone = [np.arange(len(x["best_brier"])) for x in groups]
    resamples = [[rng.integers(0, len(x), len(x)) for x in everyone] for _ in range(2000)]
    out = {"positions": sum(len(x) for x in everyone)}
    for who in [w for w in ("best", "model", "engine") if f"{w}_brier" in groups[0]]:
        out[f"{who}_skill"] = round(skill(groups, f"{who}_brier", everyone), 3)
        boot = [skill(groups, f"{who}_brier", picks) for picks in resamples]
        out[f"{who}_skill_95"] = [round(float(v), 3) for v in np.percentile(boot, [2.5, 97.5])]
    out["best_mae"] = [round(float(np.mean([np.mean(x[k]) for x in groups])), 1)
                       for k in ("best_mae_low", "best_mae_high")]
    for k in [k for k in ("model_mae", "engine_mae", "naive_mae") if k in groups[0]]:
        out[k] = round(float(np.mean([np.mean(x[k]) for x in groups])), 1)
    return out


def skill(groups: list[dict[str, list[float]]], brier: str, picks: list[np.ndarray]) -> float:
    """1 - the `brier` column's mean over the picked positions of each group, summed over the groups, over the
    same of the 1/n forecast's."""
    def total(name: str) -> float:
        return sum(float(np.asarray(x[name])[pick].mean()) for x, pick in zip(groups, picks))
    return 1 - total(brier) / total("uniform_brier")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", help="a folder of finished self-play records (game-*.json) not used in training")
    ap.add_argument("--out", required=True, help="the playouts, one JSON line each (appended; a rerun resumes)")
    ap.add_argument("--thirds", type=int, nargs=3, default=[30, 15, 15], help="positions from each third")
    ap.add_argument("--playouts", type=int, default=6)
    ap.add_argument("--bot", default=MIX_BOT, help="the bot of every seat in the playouts (default: the one that "
                    "played the test sets: the 3-player default's search, rollouts deciding, in every player count)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026, help="chooses the fractions")
    ap.add_argument("--model", default=None, help="a value model file (default: the one whose forecasts the default "
                    "engine shows at the records' player count)")
    ap.add_argument("--search", type=int, default=0, metavar="N",
                    help="also the default engine's analyse at N iterations on each position (0: not measured)")
    ap.add_argument("--resample-hidden", action="store_true",
                    help="each playout starts from a determinization for the player to move (State.determinize): "
                         "the bound of a forecast from what that player sees, not from the record's hidden hands")
    args = ap.parse_args(argv)
    records = sorted(str(p) for p in Path(args.records).glob("game-*.json"))
    if not records:
        ap.error(f"{args.records}: no game-*.json records")
    if args.search < 0:
        ap.error(f"--search: {args.search} iterations (0: not measured)")
    positions = pick_positions(records, args.thirds, args.seed)
    out = Path(args.out)
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done[(r["record"], r["fraction"], r["playout"])] = r
    jobs = [(path, fraction, k, SEED + 100 * j + k, args.bot, args.resample_hidden)
            for j, (path, fraction, _t) in enumerate(positions)
            for k in range(args.playouts) if (Path(path).name, fraction, k) not in done]
    print(f"{len(positions)} positions, {len(jobs)} playouts to play ({len(done)} in {out})", file=sys.stderr)
    with out.open("a") as f:
        for _i, r in run_jobs(playout, jobs, args.workers):
            done[(r["record"], r["fraction"], r["playout"])] = r
            f.write(json.dumps(r) + "\n")
            f.flush()
    model = ValueModel.load(args.model or PRESETS['default'][GameRecord.load(records[0]).players].forecast_model)
    for row in summary(positions, done, model, args.search):
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
