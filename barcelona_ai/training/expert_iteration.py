"""Expert iteration: the engine plays itself with the latest model, a new model is fitted to those
games, and the arena measures the engine with the new model against the engine with the old one and against a
fixed baseline (v0), generation after generation: KataGo's self-play -> training -> gating loop.

A run is a folder:

    run.json             the plan; a folder holding another plan is refused
    gen-01/games/        generation 1's self-play records: the engine with the starting model
    gen-01/data/         their dataset (datagen.py)
    gen-01/model.json    the model fitted to the base datasets and the datasets of generations 1..k
    gen-01/vs-previous/  arena records: the engine with this model against the engine with the model it played with
    gen-01/vs-baseline/  arena records: the engine with this model against the baseline
    generations.jsonl    one line per finished generation: its figures and whether its model was accepted

Gating: a model is accepted when the engine with it scores a win share of at least `gate` against the engine with
the previous accepted model; the next generation's self-play uses the last accepted model. The engine is a bot
spec without a model (e.g. ``ismcts:2000``); each generation adds ``,model=<file>``. With leaf "mix" (the
3-player default) or "rollout" the model does not change the moves, so the generations would all play the same
games: the engine must value its leaves with the model at the plan's player count (leaf "model", the 2- and
4-player default).

Every step is seeded and resumes where an interrupted run stopped: the self-play and the arena keep the records
already written, the dataset its shards, a written model is not fitted again, and a generation in
generations.jsonl is not run again. Generation k's self-play starts from setup seeds ``seed + (k-1) * games``,
its arenas from ``seed + 1_000_000 + (k-1) * arena_games``.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from ..workflows.arena import MatchResult, match
from ..search.bots import check_bot_spec, make_bot
from .datagen import DataPlan, dataset_edition, generate, load_dataset, record_files
from ..learned.models import UNNAMED_EDITION, as_written_now, edition_entry, fits, fitted_edition, same_board
from ..rules.tables import Edition, edition_label, load_edition
from ..errors import BarcelonaError
from ..learned.evaluation import ValueModel
from ..rules.jsonio import load_json_file, write_atomically
from ..workflows.selfplay import run_selfplay
from ..search.settings import PRESETS
from .train import TrainSettings, train

ARENA_SEED_OFFSET = 1_000_000


@dataclass(frozen=True)
class IterationPlan:
    engine: str                       # bot spec without a model; each generation adds ",model=FILE"
    players: int = 2
    games: int = 500                  # self-play games a generation
    arena_games: int = 100            # games of each arena (a multiple of `players`: seat rotation)
    seed: int = 0
    baseline: str | None = None       # the fixed opponent (None: the engine's budget with preset=v0)
    model: str | None = None          # the starting model (None: the shipped one)
    base: tuple[str, ...] = ()        # dataset folders every generation's model is fitted on too
    window: int | None = None         # fit on the datasets of the last `window` generations (None: all)
    gate: float = 0.5                 # accept a model whose engine scores at least this against the previous
    train: TrainSettings = field(default_factory=TrainSettings)
    per_shard: int = 25
    edition: str = "default"          # the board every game is played on: a shipped edition's name or a data file

    def board(self) -> Edition:
        return load_edition(self.edition)

    def baseline_spec(self) -> str:
        return self.baseline or f"{self.engine.split(',')[0]},preset=v0"

    def selfplay_seed(self, k: int) -> int:
        return self.seed + (k - 1) * self.games

    def arena_seed(self, k: int) -> int:
        return self.seed + ARENA_SEED_OFFSET + (k - 1) * self.arena_games

    def document(self) -> dict:
        """run.json: everything that decides the run's games and models (not how many generations)."""
        doc = asdict(self)
        doc["base"] = [str(Path(b).resolve()) for b in self.base]
        doc["model"] = str(Path(self.model).resolve()) if self.model else None
        doc["train"] = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.train).items()}
        doc["edition"] = edition_entry(self.board())
        return doc


@dataclass
class Generation:
    """One finished generation (a line of generations.jsonl)."""
    generation: int
    played_with: str                  # the model file of its self-play
    model: str                        # the model fitted after it
    selfplay_games: int
    train: dict                       # rows, games, alpha, validation figures
    vs_previous: dict                 # arena results (MatchResult fields)
    vs_baseline: dict
    accepted: bool

    def line(self) -> str:
        p, b = self.vs_previous, self.vs_baseline
        return (f"generation {self.generation}: model {'accepted' if self.accepted else 'rejected'}; against the "
                f"previous engine {p['share']:.3f} [{p['low']:.3f}, {p['high']:.3f}], against the baseline "
                f"{b['share']:.3f} [{b['low']:.3f}, {b['high']:.3f}] ({p['games']} games each); validation "
                f"Brier skill {self.train['brier_skill']:.3f}, VP error {self.train['score_mae']:.1f}")


def check_plan(plan: IterationPlan) -> None:
    """A BarcelonaError naming the field for a plan that cannot run (before anything is played)."""
    if not isinstance(plan.players, int) or not 2 <= plan.players <= 4:
        raise BarcelonaError(f"players must be 2, 3 or 4, not {plan.players!r}")
    for name in ("games", "arena_games", "per_shard"):
        if not isinstance(getattr(plan, name), int) or getattr(plan, name) < 1:
            raise BarcelonaError(f"{name} must be a positive integer, not {getattr(plan, name)!r}")
    if plan.arena_games % plan.players:
        raise BarcelonaError(f"arena_games must be a multiple of the player count ({plan.players}) so that every "
                             f"seat hosts each engine equally often, not {plan.arena_games}")
    if plan.window is not None and (not isinstance(plan.window, int) or plan.window < 1):
        raise BarcelonaError(f"window must be a positive number of generations or None, not {plan.window!r}")
    if isinstance(plan.gate, bool) or not isinstance(plan.gate, (int, float)) or not 0.0 <= plan.gate <= 1.0:
        raise BarcelonaError(f"gate must be a win share from 0 to 1, not {plan.gate!r}")
    if not plan.engine.startswith("ismcts:"):
        raise BarcelonaError(f"engine must be an ismcts bot spec (it evaluates with the model), not {plan.engine!r}")
    if any(part.strip().startswith("model=") for part in plan.engine.split(",")):
        raise BarcelonaError("engine must not name a model: each generation adds its own (give the starting "
                             "one as model)")
    check_bot_spec(plan.engine, "engine")
    settings = make_bot(plan.engine).engine.settings[plan.players]
    if settings.leaf != "model":
        raise BarcelonaError(f"engine {plan.engine!r} does not use the model to choose its moves in "
                             f"{plan.players}-player games (leaf {settings.leaf!r}), so every generation would play "
                             f"the same games: use an engine with leaf=model")
    check_bot_spec(plan.baseline_spec(), "baseline")
    ValueModel.load(plan.model or _shipped_model(plan.players)).require_players(plan.players, "model")
    board = edition_entry(plan.board())
    if settings.policy is not None and (settings.turn_policy == "learned" or settings.playouts) and \
            not fits(fitted_edition(settings.policy), plan.board()):
        raise BarcelonaError(f"engine {plan.engine!r} reads a turn policy fitted on another edition than "
                             f"{edition_label(board['name'], board['sha256'])} (so it would play without its models "
                             "there): add turn_policy=rollout,playouts=0 to it, or policy=FILE of a turn policy "
                             "fitted on this edition's games (train-policy --edition)")
    for folder in plan.base:
        load_dataset(folder)
        ed = dataset_edition(folder)
        if not same_board(ed, board):
            raise BarcelonaError(f"base {folder}: its games were played on {edition_label(ed['name'], ed['sha256'])},"
                                 f" not on {edition_label(board['name'], board['sha256'])}")


def _shipped_model(players: int) -> str:
    """The value network file the default engine maximises in `players`-player games."""
    return PRESETS["default"][players].model


def engine_spec(plan: IterationPlan, model: str | Path) -> str:
    spec = f"{plan.engine},model={Path(model).resolve()}"
    check_bot_spec(spec, "engine with its model")
    return spec


def run(plan: IterationPlan, out: str | Path, generations: int, workers: int = 1, progress: bool = False,
        log: Callable[[str], None] = lambda text: None) -> list[Generation]:
    """Run generations 1..`generations` of `plan` in folder `out` (those finished before are read back, not run
    again). Returns every generation, finished before or now."""
    check_plan(plan)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _check_or_write_run(plan, out)
    done = read_generations(out)
    model = str(Path(plan.model or _shipped_model(plan.players)).resolve())
    for g in done:
        if g.accepted:
            model = g.model
    for k in range(len(done) + 1, generations + 1):
        g = run_generation(plan, out, k, model, workers, progress, log)
        with open(out / "generations.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(asdict(g)) + "\n")
        log(g.line())
        done.append(g)
        if g.accepted:
            model = g.model
    return done


def run_generation(plan: IterationPlan, out: Path, k: int, model: str, workers: int, progress: bool,
                   log: Callable[[str], None]) -> Generation:
    """Generation k: self-play with `model`, its dataset, a model fitted to it (and to the base and earlier
    generations' datasets), and the two arenas."""
    folder = out / f"gen-{k:02d}"
    (folder / "games").mkdir(parents=True, exist_ok=True)
    played_with = engine_spec(plan, model)
    log(f"generation {k}: {plan.games} self-play games by {played_with}")
    run_selfplay([played_with] * plan.players, plan.games, plan.selfplay_seed(k), folder / "games",
                 workers=workers, progress=progress, resume=True, edition=plan.board())
    records = record_files(folder / "games")
    generate(DataPlan(games=len(records), per_shard=plan.per_shard, records=records, edition=plan.board()),
             folder / "data", workers=workers)
    new_model = folder / "model.json"
    report = fit_generation(plan, out, k, new_model, log)
    candidate = engine_spec(plan, new_model)
    results = {}
    for name, opponent in (("vs-previous", played_with), ("vs-baseline", plan.baseline_spec())):
        log(f"generation {k}: arena {name}, {plan.arena_games} games")
        (folder / name).mkdir(exist_ok=True)
        results[name] = _result(match(candidate, opponent, plan.players, plan.arena_games, plan.arena_seed(k),
                                      workers, progress=progress, save=str(folder / name), resume=True,
                                      edition=plan.board()))
    return Generation(k, str(Path(model).resolve()), str(new_model.resolve()), plan.games, report,
                      results["vs-previous"], results["vs-baseline"],
                      results["vs-previous"]["share"] >= plan.gate)


def training_folders(plan: IterationPlan, out: Path, k: int) -> list[Path]:
    """The datasets generation k's model is fitted on: the base ones, then the last `window` generations'."""
    first = 1 if plan.window is None else max(1, k - plan.window + 1)
    return [Path(b) for b in plan.base] + [out / f"gen-{j:02d}" / "data" for j in range(first, k + 1)]


def fit_generation(plan: IterationPlan, out: Path, k: int, path: Path, log: Callable[[str], None]) -> dict:
    """Fit generation k's model and write it to `path` (whole or not at all); a model already there is kept.
    Returns what the fit reports (its validation figures)."""
    if path.exists():
        doc = load_json_file(path, f"model {path}")
    else:
        folders = training_folders(plan, out, k)
        data = load_dataset(*folders)
        log(f"generation {k}: fitting a model on {len(set(data['game'].tolist()))} games")
        doc, _report = train(data, plan.train, edition=dataset_edition(*folders))
        write_atomically(str(path), json.dumps(doc, separators=(",", ":")) + "\n")
    t, valid = doc["trained"], doc["trained"].get("valid") or {}
    return {"rows": t["rows"], "games": t["games"], "alpha": t.get("alpha"),
            "brier_skill": valid.get("brier_skill", float("nan")), "score_mae": valid.get("score_mae", float("nan")),
            "naive_score_mae": valid.get("naive_score_mae", float("nan"))}


def _result(m: MatchResult) -> dict:
    """A match's figures, without its duration (a resumed arena gives the same line)."""
    return {k: v for k, v in asdict(m).items() if k != "seconds"}


def _check_or_write_run(plan: IterationPlan, out: Path) -> None:
    path, want = out / "run.json", plan.document()
    if path.exists():
        have = load_json_file(path, f"{path}")
        if isinstance(have, dict) and "edition" not in have:        # written before runs named their edition
            have = {**have, "edition": dict(UNNAMED_EDITION)}
        have = as_written_now(have, want) if isinstance(have, dict) else have
        if have != json.loads(json.dumps(want)):
            raise BarcelonaError(f"{path}: this folder holds another run (other engine, games, seeds, data or "
                                 f"training settings); choose a new folder")
        return
    path.write_text(json.dumps(want, indent=1) + "\n", encoding="utf-8")


def read_generations(out: str | Path) -> list[Generation]:
    """The finished generations of the run in folder `out`, in order."""
    path = Path(out) / "generations.jsonl"
    if not path.exists():
        return []
    return [Generation(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line]


__all__ = ["IterationPlan", "Generation", "check_plan", "run", "read_generations", "training_folders"]
