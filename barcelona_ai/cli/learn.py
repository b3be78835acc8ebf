"""Command line of the learned evaluation: ``generate``, ``train``, ``train-policy``, ``evaluate``, ``iterate`` and
``refit``.

    barcelona-ai generate --out DIR (--games N --players P [--bot SPEC] [--seed K] | --records DIR) [--workers W]
                          [--ray local|auto|ADDRESS]
    barcelona-ai train DATA_DIR... --out MODEL.json [--hidden 64,32] [--seed K] [--epochs N] [--alpha A]...
    barcelona-ai train-policy RECORD_DIR... --out POLICY.json [--l2 A] [--test-fraction F] [--seed K] [--workers W]
    barcelona-ai evaluate DATA_DIR... [--model MODEL.json] [--json]
    barcelona-ai evaluate RECORD_DIR... --search N [--every K] [--preset default|v0] [--seed S]
    barcelona-ai iterate --out DIR --engine SPEC [--generations N] [--games N] [--arena-games N] [--base DATA_DIR]...
    barcelona-ai refit --out DIR [--edition NAME|FILE] [--scale F] [--workers W] [--install]

The work is done by datagen.py (datasets), train.py (fitting, calibration metrics), expert_iteration.py (the
self-play -> training -> arena loop) and evaluation.pyx (the network in C); this module parses arguments, calls
them and prints.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import args as A
from .analysis import CommandError, add_ray_option, ray_session
from ..rules.jsonio import show_path
from ..rules.words import edition_words
from ..workflows.progress import bar


# ---------------------------------------------------------------------------------------------------------------
# generate

def cmd_generate(args: argparse.Namespace) -> int:
    from ..training.datagen import DataPlan, games_written, generate, record_files
    if args.records:
        from ..rules.record import GameRecord
        recs = record_files(args.records)
        edition = args.edition or GameRecord.load(recs[0]).edition_data()      # by default the one they name
        plan = DataPlan(games=len(recs), per_shard=args.per_shard, records=recs, edition=edition)
        what = f"{len(recs)} game records from {show_path(args.records)}"
    else:
        if args.games is None:
            raise CommandError("generate needs --games N (bot games) or --records DIR (saved games)")
        specs = _specs(args)
        plan = DataPlan(games=args.games, per_shard=args.per_shard, players=args.players, bots=tuple(specs),
                        seed=args.seed, edition=args.edition)
        what = (f"{args.games} games of {args.players} players, seats {', '.join(specs)}, setup seeds "
                f"{args.seed}..{args.seed + args.games - 1}")
    print(f"generate: {what}, on {edition_words(plan.board())}; {plan.shards} shards of {plan.per_shard} games "
          f"in {show_path(args.out)}")
    done = games_written(plan, args.out) if Path(args.out).is_dir() else 0
    if done:
        print(f"generate: {done} games are in the shards written already; playing the other {plan.games - done}")
    with ray_session(args), bar(plan.games - done, "generate", unit="game") as tick:
        try:
            generate(plan, args.out, workers=args.workers, on_shard=lambda k, n: tick(n), ray=args.ray)
        except OSError as exc:
            raise CommandError(f"--out: cannot write {show_path(exc.filename or args.out)} "
                               f"({exc.strerror or exc})") from None
        except KeyboardInterrupt:
            print(f"generate: the shards written so far stay in {show_path(args.out)}; the same command "
                  "resumes", file=sys.stderr)
            raise
    print(f"dataset written to {show_path(args.out)} (manifest {show_path(Path(args.out) / 'dataset.json')})")
    return 0


def _specs(args: argparse.Namespace) -> list[str]:
    from ..search.bots import check_bot_spec
    specs = args.bot or ["ismcts:2000"]
    if len(specs) == 1:
        specs = specs * args.players
    if len(specs) != args.players:
        raise CommandError(f"--bot: give one spec, or one per seat ({args.players}), not {len(specs)}")
    for spec in specs:
        check_bot_spec(spec)
    return specs


# ---------------------------------------------------------------------------------------------------------------
# train and evaluate

def _data_edition(args: argparse.Namespace) -> dict:
    """The edition of the dataset folders' games; with --edition, folders of another one are refused."""
    from ..training.datagen import dataset_edition
    from ..rules.tables import edition_label
    from ..learned.models import fits
    ed = dataset_edition(*args.data)
    if args.edition is not None and not fits(ed, args.edition):
        raise CommandError(f"--edition: the datasets hold games of {edition_label(ed['name'], ed['sha256'])}, "
                           f"not of {args.edition.label}")
    return ed


def cmd_train(args: argparse.Namespace) -> int:
    from ..training.datagen import load_dataset
    from ..training.train import train
    from ..rules.tables import edition_label
    edition = _data_edition(args)
    data = load_dataset(*args.data)
    settings = _train_settings(args, args.seed)
    print(f"train: {len(data['game'])} rows of {len(set(data['game'].tolist()))} games of "
          f"{edition_label(edition['name'], edition['sha256'])}; network "
          f"{len(data['features'][0]) if len(data['game']) else 0}-{'-'.join(map(str, settings.hidden))}-2, "
          f"seed {settings.seed}, L2 penalties {', '.join(f'{a:g}' for a in settings.alphas)}")
    doc, report = train(data, settings, edition=edition)
    out = _write_out(args.out, json.dumps(doc, separators=(",", ":")) + "\n")
    powers = ", ".join(f"{n}p {v:.2f}" for n, v in report.win_power.items())
    print(f"{report.epochs} epochs on {report.rows} rows ({report.games} games); win_power {powers} "
          f"fitted on {report.valid_games} validation games")
    if report.valid:
        print_metrics(report.valid, "validation games")
    print(f"model written to {show_path(out)}")
    return 0


def _write_out(path: str, text: str) -> Path:
    """Write --out's file (CommandError if it cannot be written)."""
    out = Path(path)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"--out {show_path(path)}: cannot write ({exc.strerror or exc})") from None
    return out


def _records(folders: list[str], missing: str | None = None) -> list[str]:
    """The game record files of these folders (CommandError `missing` if there are none and it is given)."""
    from ..training.datagen import record_files
    records = [f for folder in folders for f in record_files(folder)]
    if not records and missing:
        raise CommandError(missing)
    return records


def cmd_train_policy(args: argparse.Namespace) -> int:
    from ..training.policy_train import train_policy
    records = _records(args.records, "train-policy needs game records (barcelona-ai selfplay or arena --save)")
    print(f"train-policy: the decisions of {len(records)} game records; L2 penalty {args.l2:g}, "
          f"{args.test_fraction:.0%} of the games held out (seed {args.seed})")
    with bar(len(records), "read", unit="game") as tick:
        doc = train_policy(records, l2=args.l2, test_fraction=args.test_fraction, seed=args.seed,
                           workers=args.workers, on_game=tick, edition=args.edition)
    out = _write_out(args.out, json.dumps(doc, separators=(",", ":")) + "\n")
    for name, m in (("held-out games", doc["training"].get("held_out")), ("all games (the fit)",
                                                                         doc["training"]["fit"])):
        if m:
            print(f"{name}: {m['decisions']} decisions; log-likelihood of the search's action "
                  f"{m['log_likelihood']:.3f} (heuristic prior {m['heuristic_log_likelihood']:.3f}, uniform "
                  f"{m['uniform_log_likelihood']:.3f}); top-1 {m['top1']:.3f} (heuristic {m['heuristic_top1']:.3f})")
    print(f"turn policy written to {show_path(out)} (search settings turn_policy=learned,policy=FILE)")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..training.datagen import load_dataset
    from ..learned.evaluation import ValueModel
    from ..search.settings import PRESETS
    from ..training.train import calibration_metrics, metrics_by_player_count
    if args.search:
        return _evaluate_search(args)
    edition = _data_edition(args)
    data = load_dataset(*args.data)
    if len(data["game"]) == 0:
        raise CommandError("evaluate needs a dataset with at least one game")
    counts = sorted({int(n) for n in set(data["players"])})
    if args.model:
        model = ValueModel.load(args.model)
        for n in counts:
            model.require_players(n, f"--model {show_path(args.model)}")
        m = calibration_metrics(model, data)
    else:                                   # each player count's rows by the network its default engine shows
        files = {n: PRESETS["default"][n].forecast_model for n in counts}
        _require_fitted(files.values(), edition)
        m = metrics_by_player_count({n: ValueModel.load(f) for n, f in files.items()}, data)
    _print_or_dump(m, args, ", ".join(show_path(d) for d in args.data))
    return 0


def _require_fitted(files, edition: dict) -> None:
    """CommandError where a shipped model is not of the dataset's edition (the engine would not show it)."""
    from ..learned.models import fitted_edition, same_board
    from ..rules.tables import edition_label
    for f in files:
        if not same_board(fitted_edition(f), edition):
            raise CommandError(f"no shipped model was fitted on {edition_label(edition['name'], edition['sha256'])}"
                               f" (the engine plays its model-free search there): measure a model with --model, or "
                               f"the engine's own numbers with --search on game records")


def _evaluate_search(args: argparse.Namespace) -> int:
    """The engine's own numbers (Engine.analyse at --search iterations) at every --every-th decision of the
    game records in the DATA folders."""
    from ..search.engine import Engine, Limit
    from ..learned.evaluation import ValueModel
    from ..search.settings import PRESETS
    from ..training.train import forecast_metrics, naive_tables, search_forecasts
    records = _records(args.data)
    model = {"model": args.model, "forecast_model": args.model} if args.model else {}
    engine = Engine(seed=args.seed, preset=args.preset, **model)
    limit = Limit(iterations=args.search)
    with bar(len(records), "evaluate", unit="game") as tick:
        p, score, data = search_forecasts(records, args.every, lambda s: engine.analyse(s, limit), on_game=tick,
                                          edition=args.edition)
    counts = sorted({int(n) for n in set(data["players"])})
    # the naive forecast of each player count from the training games of the network whose numbers are shown
    models = {n: ValueModel.load(engine.settings[n].forecast_model or PRESETS["default"][n].forecast_model)
              for n in counts}
    m = forecast_metrics(p, score, data, naive_tables(models, data))      # each model's own training games
    _print_or_dump(m, args, f"Engine preset {args.preset}, {args.search} iterations, every {args.every}th decision")
    return 0


def cmd_iterate(args: argparse.Namespace) -> int:
    from ..training.expert_iteration import IterationPlan, run
    plan = IterationPlan(engine=args.engine, players=args.players, games=args.games, arena_games=args.arena_games,
                         seed=args.seed, baseline=args.baseline, model=args.model, base=tuple(args.base or ()),
                         window=args.window, gate=args.gate, train=_train_settings(args, args.train_seed),
                         edition=args.edition.source if args.edition is not None else "default")
    print(f"iterate: {args.generations} generations of {args.games} {args.players}-player self-play games by "
          f"{args.engine} with the latest model on {edition_words(plan.board())}, arenas of {args.arena_games} games "
          f"against the previous engine and {plan.baseline_spec()}, in {show_path(args.out)}")
    try:
        done = run(plan, args.out, args.generations, workers=args.workers, progress=True, log=print)
    except KeyboardInterrupt:
        print(f"iterate: what was written stays in {show_path(args.out)}; the same command resumes", file=sys.stderr)
        raise
    print(f"{'gen':>3} {'model':>8} {'vs previous':>22} {'vs baseline':>22} {'skill':>6} {'VP err':>7}")
    for g in done:
        p, b = g.vs_previous, g.vs_baseline
        print(f"{g.generation:>3} {'accepted' if g.accepted else 'rejected':>8} "
              f"{p['share']:>6.3f} [{p['low']:.3f}, {p['high']:.3f}] {b['share']:>6.3f} [{b['low']:.3f}, "
              f"{b['high']:.3f}] {g.train['brier_skill']:>6.3f} {g.train['score_mae']:>7.1f}")
    return 0


def cmd_refit(args: argparse.Namespace) -> int:
    from ..rules.words import edition_words
    from ..training import refit as R
    if args.install:
        R.install(args.out)
        print(f"the models of {show_path(args.out)} are installed in the package, and its manifest written anew")
        return 0
    plan = R.RefitPlan(edition=args.edition.source if args.edition is not None else "default", scale=args.scale,
                       iterations=args.iterations, seed=args.seed)
    R.check_plan(plan)
    stages = ", ".join(f"{s} {plan.games(s)}" for s in R.STAGE_GAMES)
    print(f"refit: the shipped models fitted anew on {edition_words(plan.board())} in {show_path(args.out)}; "
          f"games by stage: {stages}; {plan.iterations} iterations a decision")
    try:
        files = R.run(plan, args.out, workers=args.workers, log=print, progress=True)
    except KeyboardInterrupt:
        print(f"refit: what was written stays in {show_path(args.out)}; the same command resumes", file=sys.stderr)
        raise
    print(f"models written: {', '.join(show_path(f) for f in files.values())}")
    return 0


def _train_settings(args: argparse.Namespace, seed: int):
    """The fit's settings from the options _add_fit_options added (train and iterate)."""
    from ..training.train import TrainSettings
    return TrainSettings(hidden=args.hidden, seed=seed, max_iter=args.epochs,
                         alphas=tuple(args.alpha) if args.alpha else TrainSettings.alphas)


def _print_or_dump(m: dict, args: argparse.Namespace, label: str) -> None:
    if args.json:
        print(json.dumps(m, indent=1))
    else:
        print_metrics(m, label)


def print_metrics(m: dict, label: str) -> None:
    """forecast_metrics as a table, with its 95% intervals over the games where it has them."""
    from ..training.train import RELIABILITY_MIN_ROWS
    ci = m.get("intervals")

    def within(key: str, part: dict | None = None, pct: bool = False) -> str:
        if ci is None or (part or ci)[key] is None:
            return ""
        lo, hi = (part or ci)[key]
        return f" ({lo:.0%} to {hi:.0%})" if pct else f" ({lo:.3f} to {hi:.3f})"
    brackets = "; in brackets 95% intervals over the games" if ci else ""
    print(f"Calibration on {m['positions']} positions of {m['games']} games ({label}){brackets}:")
    print(f"  Brier {m['brier']:.4f} against {m['brier_uniform']:.4f} for 1/n: skill {m['brier_skill']:.3f}"
          f"{within('brier_skill')}")
    print(f"  expected final VP: mean absolute error {m['score_mae']:.1f} (naive forecast "
          f"{m['naive_score_mae']:.1f}): {m['score_mae_ratio']:.0%} of the naive one's"
          f"{within('score_mae_ratio', pct=True)}")
    print(f"  {'third':>5} {'rows':>7} {'skill':>6} {'':>16} {'VP error':>9} {'naive':>6} {'share':>6}")
    for t, part in zip(m["by_third"], ci["by_third"] if ci else [None] * 3):
        print(f"  {t['third']:>5} {t['rows']:>7} {t['brier_skill']:>6.3f} {within('brier_skill', part):>16} "
              f"{t['score_mae']:>9.1f} {t['naive_score_mae']:>6.1f} {t['score_mae_ratio']:>6.0%}"
              f"{within('score_mae_ratio', part, True)}")
    print(f"  reliability: largest gap {m['reliability_gap']:.3f} over the bins with at least {RELIABILITY_MIN_ROWS} "
          f"rows")
    print(f"  {'predicted':>9} {'rows':>7} {'mean':>6} {'won':>6}")
    for b, won in zip(m["reliability"], ci["reliability_observed"] if ci else [None] * len(m["reliability"])):
        if b["rows"]:
            span = f" ({won[0]:.3f} to {won[1]:.3f})" if won else ""
            print(f"  {b['bin']:>9} {b['rows']:>7} {b['predicted']:>6.3f} {b['observed']:>6.3f}{span}")


def _hidden(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected layer widths like 64,32, not {text[:40]!r}") from None
    if not 1 <= len(sizes) <= 3 or not all(1 <= s <= 256 for s in sizes):
        raise argparse.ArgumentTypeError("expected 1 to 3 layer widths, each 1..256")
    return sizes


def register(sub) -> None:
    """Add generate, train and evaluate to the barcelona-ai parser."""
    g = sub.add_parser("generate", help="training data for the learned evaluation (self-play positions)",
                       description="Plays seeded bot games (or reads saved game records) and writes every "
                                   "decision's public features with the game's outcome, in shards of a dataset "
                                   "folder (datagen.py). An interrupted run resumes.")
    g.add_argument("--out", required=True, metavar="DIR", help="dataset folder (created if missing)")
    g.add_argument("--games", type=A.games, metavar="N", help=f"bot games to play, 1..{A.MAX_GAMES}")
    g.add_argument("--players", type=A.players, default=2, metavar="P", help="player count (default 2)")
    g.add_argument("--bot", action="append", metavar="SPEC",
                   help="bot spec (default ismcts:2000); repeat it to give each seat its own")
    g.add_argument("--seed", type=A.seed, default=0, metavar="K", help="game g uses setup seed K+g (default 0)")
    g.add_argument("--records", metavar="DIR", help="read the games from these saved game records instead")
    g.add_argument("--per-shard", type=A.int_range(1, 10_000, "a number of games"), default=10, metavar="G",
                   help="games per shard file (default 10)")
    g.add_argument("--workers", type=A.workers, default=1, metavar="W", help="parallel processes (default 1)")
    add_ray_option(g, "the shards")
    A.add_edition_option(g, reads=True)
    g.set_defaults(func=cmd_generate, command="generate")

    t = sub.add_parser("train", help="fit the value network to datasets (needs the [train] extra)",
                       description="Fits the learned evaluation (scikit-learn MLP) to dataset folders and writes "
                                   "the model file the engine loads; reports calibration on held-out games.")
    t.add_argument("data", nargs="+", metavar="DATA_DIR", help="dataset folders (barcelona-ai generate)")
    t.add_argument("--out", required=True, metavar="MODEL", help="model file to write (.json)")
    t.add_argument("--seed", type=A.seed, default=0, help="seed of the split and the fit (default 0)")
    _add_fit_options(t)
    A.add_edition_option(t, games=True)
    t.set_defaults(func=cmd_train, command="train")

    tp = sub.add_parser("train-policy", help="fit the learned turn policy to game records (needs the [train] extra)",
                        description="Fits the turn policy the search plays a leaf's turn with (a conditional logit "
                                    "over each decision's actions, policy_train.py) to the actions chosen in game "
                                    "records, and reports it on held-out games.")
    tp.add_argument("records", nargs="+", metavar="RECORD_DIR", help="folders of game records")
    tp.add_argument("--out", required=True, metavar="FILE", help="turn policy file to write (.json)")
    tp.add_argument("--l2", type=A.number_range(0.0, 1e3, "an L2 penalty"), default=1e-4, metavar="A",
                    help="L2 penalty on the standardised weights (default 1e-4)")
    tp.add_argument("--test-fraction", type=A.number_range(0.0, 0.9, "a fraction"), default=0.1, metavar="F",
                    help="share of the games held out to measure the fit (default 0.1; 0: none)")
    tp.add_argument("--seed", type=A.seed, default=0, help="seed of the held-out games (default 0)")
    tp.add_argument("--workers", type=A.workers, default=1, metavar="W", help="parallel processes (default 1)")
    A.add_edition_option(tp, reads=True)
    tp.set_defaults(func=cmd_train_policy, command="train-policy")

    e = sub.add_parser("evaluate", help="how well a value model (or the engine) forecasts held-out games",
                       description="Brier skill score (overall and by third of the game), a reliability table, and "
                                   "the expected-score error against the naive forecast, on dataset folders, with "
                                   "95% intervals over the games (a seeded bootstrap of whole games).")
    e.add_argument("data", nargs="+", metavar="DATA_DIR", help="dataset folders never used for training")
    e.add_argument("--model", metavar="MODEL",
                   help="model file (default: the one whose forecasts the default engine shows in the data's player "
                        "count)")
    e.add_argument("--json", action="store_true", help="the metrics as JSON")
    e.add_argument("--search", type=A.iterations, metavar="N",
                   help="measure the engine's analyse numbers at N iterations instead of the bare model: the "
                        "DATA folders then hold game records (barcelona-ai selfplay)")
    e.add_argument("--every", type=A.int_range(1, 1000, "a number of decisions"), default=10, metavar="K",
                   help="with --search: analyse every K-th decision of each game (default 10)")
    e.add_argument("--preset", choices=("default", "v0"), default="default",
                   help="with --search: the engine's preset (default: the engine players use; v0: rollouts to the "
                        "end)")
    e.add_argument("--seed", type=A.seed, default=0, help="with --search: the engine's seed (default 0)")
    A.add_edition_option(e, games=True)
    e.set_defaults(func=cmd_evaluate, command="evaluate")

    _register_iterate(sub)
    _register_refit(sub)


def _register_refit(sub) -> None:
    r = sub.add_parser("refit", help="the shipped models fitted anew for an edition, from seeds (resumable)",
                       description="Stage by stage (training/refit.py): the model-free engine's games, the general "
                                   "network and the turn policy fitted on them, then the 2- and 4-player "
                                   "defaults' own games and their networks, and a 3-player test set. Seeded; an "
                                   "interrupted run resumes. At scale 1 about 5 to 6 hours of a 2-core machine "
                                   "(docs/learned-evaluation.md).")
    r.add_argument("--out", required=True, metavar="DIR", help="the run's folder (created if missing)")
    r.add_argument("--scale", type=A.number_range(0.001, 10.0, "a scale"), default=1.0, metavar="F",
                   help="every stage's games times F (default 1: the shipped models' own counts)")
    r.add_argument("--iterations", type=A.int_range(1, 10**6, "a number of iterations"), default=2000, metavar="N",
                   help="the engines' iterations a decision (default 2000)")
    r.add_argument("--seed", type=A.seed, default=2_000_000, metavar="K", help="the stages' setup seeds start here")
    r.add_argument("--workers", type=A.workers, default=1, metavar="W", help="parallel processes")
    r.add_argument("--install", action="store_true",
                   help="copy a finished run's models into the package and write its manifest anew")
    A.add_edition_option(r)
    r.set_defaults(func=cmd_refit, command="refit")


def _add_fit_options(parser) -> None:
    """The network's shape and fit (train and iterate)."""
    parser.add_argument("--hidden", type=_hidden, default=(64, 32), metavar="W,W",
                        help="hidden layer widths (default 64,32)")
    parser.add_argument("--epochs", type=A.int_range(1, 10_000, "a number of epochs"), default=60, metavar="N",
                        help="training epochs (default 60)")
    parser.add_argument("--alpha", type=A.number_range(1e-6, 1e6, "an L2 penalty"), action="append", metavar="A",
                        help="an L2 penalty to try (repeat it for several; the best on the validation games is "
                             "kept; default 1, 3, 10 and 30: one fit each)")


def _register_iterate(sub) -> None:
    i = sub.add_parser("iterate", help="expert iteration: self-play with the latest model, fit, arena, repeat",
                       description="Generation after generation: the engine plays itself with the latest "
                                   "accepted model, a model is fitted to those games (and the --base datasets), "
                                   "and the arena measures the engine with it against the engine with the "
                                   "previous model and against the baseline. Seeded; an interrupted run resumes "
                                   "(expert_iteration.py).")
    i.add_argument("--out", required=True, metavar="DIR", help="the run's folder (created if missing)")
    i.add_argument("--engine", default="ismcts:2000", metavar="SPEC",
                   help="the engine, a bot spec that uses the model to choose its moves (each generation adds "
                        ",model=FILE)")
    i.add_argument("--generations", type=A.int_range(1, 100, "a number of generations"), default=2, metavar="N",
                   help="generations to have finished")
    i.add_argument("--players", type=A.players, default=2, metavar="P", help="player count")
    i.add_argument("--games", type=A.games, default=500, metavar="N", help="self-play games a generation")
    i.add_argument("--arena-games", type=A.games, default=100, metavar="N",
                   help="games of each arena (a multiple of the player count)")
    i.add_argument("--seed", type=A.seed, default=0, metavar="K",
                   help="generation k's self-play from setup seeds K+(k-1)*games, its arenas from "
                        "K+1000000+(k-1)*arena-games")
    i.add_argument("--baseline", metavar="SPEC", help="the fixed opponent (default: the engine's budget with "
                                                      "preset=v0, the v0 engine)")
    i.add_argument("--model", metavar="MODEL", help="the starting model (default: the shipped one of --players)")
    i.add_argument("--base", action="append", metavar="DATA_DIR",
                   help="a dataset every generation's model is fitted on too (repeat it for several)")
    i.add_argument("--window", type=A.int_range(1, 100, "a number of generations"), metavar="N",
                   help="fit on the last N generations' games only (default: all of them)")
    i.add_argument("--gate", type=A.number_range(0.0, 1.0, "a win share"), default=0.5, metavar="SHARE",
                   help="a model is accepted when its engine scores at least this against the previous one")
    _add_fit_options(i)
    i.add_argument("--train-seed", type=A.seed, default=0, metavar="S", help="seed of the split and the fit")
    i.add_argument("--workers", type=A.workers, default=1, metavar="W", help="parallel processes")
    A.add_edition_option(i)
    i.set_defaults(func=cmd_iterate, command="iterate")


__all__ = ["register", "cmd_generate", "cmd_train", "cmd_evaluate", "cmd_iterate", "cmd_refit"]
