"""The shipped learned models fitted anew for one edition, from seeds, in one resumable run (``barcelona-ai refit``).

The models the engine ships (learned/models.py: the general value network, the 2-player one, the 4-player
forecasts and the turn policy) were each fitted on one edition's games. A board with other citizen tracks or
benefits needs its own, made the way the shipped ones were (docs/learned-evaluation.md), in stages:

1. the model-free engine (``preset=v0``) plays 2-, 3- and 4-player games;
2. the general network is fitted on all of them, and the turn policy on the 2-player ones' decisions;
3. the 2-player default, reading those two, plays its own games: the 2-player network is fitted on them (and the
   v0 2-player games), the last games of the run kept out as a test set;
4. the 4-player default, reading the general network and the turn policy, plays its own games: the 4-player
   forecasts are fitted on them and the 2-player default's games (the last ones kept out);
5. the 3-player default plays a test set.

Every stage's games come from fixed setup seeds (RefitPlan.seed plus a stage offset) and every fit from seed 0, so
the same plan makes the same files. A stage whose output is there already is not run again, and an interrupted
self-play goes on where it stopped (selfplay's resume): the run resumes by running the same command. The models
land in ``OUT/models`` with the manifest's roles (``installed_roles``); ``install`` copies them into the package's
data folder and writes its manifest anew (for the commit that ships them).
"""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from ..errors import BarcelonaError
from ..learned.models import DATA, SHIPPED_ROLES, as_written_now, edition_entry, write_manifest
from ..rules.jsonio import load_json_file
from ..rules.tables import Edition, load_edition
from .datagen import DataPlan, dataset_edition, generate, load_dataset, record_files

# Games of each stage at scale 1 (the shipped models' own counts, docs/learned-evaluation.md), and its seed offset.
STAGE_GAMES = {"v0-2p": 850, "v0-3p": 245, "v0-4p": 322, "default-2p": 2400, "default-4p": 700, "test-3p": 100}
STAGE_SEEDS = {"v0-2p": 0, "v0-3p": 100_000, "v0-4p": 200_000, "default-2p": 300_000, "default-4p": 400_000,
               "test-3p": 500_000}
HELD_OUT = {"default-2p": 200, "default-4p": 100}      # the last games of these runs: test sets, never fitted on
FILES = ("value-model.json", "turn-policy.json", "value-model-2p.json", "value-model-4p.json")


@dataclass(frozen=True)
class RefitPlan:
    edition: str                      # the board: a shipped edition's name or a data-file path
    scale: float = 1.0                # every stage's games times this (0.02: a quick look at the pipeline)
    iterations: int = 2000            # the engines' ISMCTS iterations a decision
    seed: int = 2_000_000             # stage s plays setup seeds seed + STAGE_SEEDS[s] + 0, 1, ...

    def board(self) -> Edition:
        return load_edition(self.edition)

    def games(self, stage: str) -> int:
        """A stage's games: its count at scale 1 times the scale, at least enough for its held-out part."""
        return max(self.held_out(stage) + 2, round(STAGE_GAMES[stage] * self.scale))

    def held_out(self, stage: str) -> int:
        return max(1, round(HELD_OUT[stage] * self.scale)) if stage in HELD_OUT else 0

    def document(self) -> dict:
        return {**asdict(self), "edition": edition_entry(self.board())}


def check_plan(plan: RefitPlan) -> None:
    if isinstance(plan.scale, bool) or not isinstance(plan.scale, (int, float)) or not 0.001 <= plan.scale <= 10:
        raise BarcelonaError(f"scale must be a number from 0.001 to 10, not {plan.scale!r}")
    if isinstance(plan.iterations, bool) or not isinstance(plan.iterations, int) or not 1 <= plan.iterations <= 10**6:
        raise BarcelonaError(f"iterations must be an integer from 1 to 1000000, not {plan.iterations!r}")
    plan.board()


def run(plan: RefitPlan, out: str | Path, workers: int = 1, log: Callable[[str], None] = lambda text: None,
        progress: bool = False) -> dict[str, Path]:
    """Run every stage of `plan` in folder `out` not run before; returns the model files by name."""
    from ..workflows.selfplay import run_selfplay
    check_plan(plan)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _check_or_write(plan, out)
    models = out / "models"
    models.mkdir(exist_ok=True)
    ed = plan.board()

    def play(stage: str, players: int, spec: str) -> Path:
        folder = out / stage
        folder.mkdir(exist_ok=True)
        games = plan.games(stage)
        t0 = time.perf_counter()
        log(f"{stage}: {games} games of {players} players by {spec}")
        run_selfplay([spec] * players, games, plan.seed + STAGE_SEEDS[stage], folder, workers=workers,
                     resume=True, progress=progress, edition=ed)
        log(f"{stage}: done ({time.perf_counter() - t0:.0f} s)")
        return folder

    def dataset(stage: str, part: str = "all") -> Path:
        """The dataset of a stage's records: all of them, its training games ("train") or its test set."""
        records = list(record_files(out / stage))
        cut = len(records) - plan.held_out(stage)
        chosen = {"all": records, "train": records[:cut], "test": records[cut:]}[part]
        folder = out / "data" / (stage if part == "all" else f"{stage}-{part}")
        generate(DataPlan(games=len(chosen), per_shard=25, records=tuple(chosen), edition=ed), folder,
                 workers=workers)
        return folder

    def fit(name: str, folders: list[Path], alphas: tuple[float, ...]) -> Path:
        path = models / name
        if not path.exists():
            from .train import TrainSettings, train
            t0 = time.perf_counter()
            doc, report = train(load_dataset(*folders), TrainSettings(seed=0, alphas=alphas),
                                edition=dataset_edition(*folders))
            _write(path, doc)
            log(f"{name}: fitted on {report.games + report.valid_games} games ({time.perf_counter() - t0:.0f} s); "
                f"validation Brier skill {report.valid.get('brier_skill', float('nan')):.3f}")
        return path

    n = plan.iterations
    v0 = f"ismcts:{n},preset=v0"
    for stage, players in (("v0-2p", 2), ("v0-3p", 3), ("v0-4p", 4)):
        play(stage, players, v0)
    general = fit("value-model.json", [dataset(s) for s in ("v0-2p", "v0-3p", "v0-4p")], (3.0, 10.0))
    policy = models / "turn-policy.json"
    if not policy.exists():
        from .policy_train import train_policy
        log("turn-policy.json: fitting on the v0 2-player games' decisions")
        _write(policy, train_policy(list(record_files(out / "v0-2p")), edition=ed, workers=workers))
    engine = f"ismcts:{n},model={general.resolve()},policy={policy.resolve()}"
    play("default-2p", 2, engine)
    two = fit("value-model-2p.json", [dataset("default-2p", "train"), dataset("v0-2p")], (1.0, 3.0, 10.0))
    dataset("default-2p", "test")
    play("default-4p", 4, engine)
    fit("value-model-4p.json", [dataset("default-4p", "train"), dataset("default-2p", "train")], (1.0, 3.0, 10.0))
    dataset("default-4p", "test")
    play("test-3p", 3, engine)
    log(f"models in {models}: {', '.join(FILES)}; the 2-player network {two.name} read by the 2-player default")
    return {name: models / name for name in FILES}


def install(out: str | Path) -> None:
    """Copy a finished run's models into the package's data folder under the shipped names and write the
    manifest anew (the roles of SHIPPED_ROLES)."""
    models = Path(out) / "models"
    missing = [name for name in FILES if not (models / name).exists()]
    if missing:
        raise BarcelonaError(f"{models}: the run has not finished ({', '.join(missing)} missing)")
    for name in FILES:
        shutil.copyfile(models / name, DATA / name)
    write_manifest(SHIPPED_ROLES)


def _write(path: Path, doc: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    tmp.replace(path)                                  # a model file is there whole or not at all (resume)


def _check_or_write(plan: RefitPlan, out: Path) -> None:
    path, want = out / "refit.json", plan.document()
    if path.exists():
        have = load_json_file(path, f"{path}")
        if not isinstance(have, dict) or as_written_now(have, want) != json.loads(json.dumps(want)):
            raise BarcelonaError(f"{path}: this folder holds another refit (another board, scale, budget or "
                                 f"seed); choose a new folder")
        return
    path.write_text(json.dumps(want, indent=1) + "\n", encoding="utf-8")


__all__ = ["RefitPlan", "run", "install", "check_plan", "STAGE_GAMES", "FILES"]
