"""Training data for the learned evaluation: positions of self-play games, each with what became of
every seat.

A dataset is a folder: ``dataset.json`` (the manifest: columns, feature names, how and on which edition the games
were played) and shards ``shard-00001.npz``, ``shard-00002.npz``, ... (numpy's columnar archive; ``numpy.load``
opens one, and ``load_dataset`` joins them). One row is one seat at one decision of one game:

=====================  ======================================================================================
column                 meaning
=====================  ======================================================================================
``features``           float32 [rows, NF_INPUT]: the seat's network input (evaluation.FEATURE_NAMES); public
                       information only, so every seat's row is what any player at the table may know
``game``               the game's number in the dataset (0-based), ``setup_seed`` its new_game seed (-1 if
                       its record starts from a position)
``players``, ``seat``  player count, the seat the row is about
``decision``           the decision's index in the game (0-based), ``decisions`` how many the game had
``to_move``            the seat deciding
``score``              the seat's VP at that moment
``final_score``        the seat's final VP, ``final_by_source`` [rows, NSRC] the same by source (core.SOURCES)
``win``                the seat's win share at the end (R127: ties share), the value to forecast
=====================  ======================================================================================

Games are played by bots (selfplay.play_game: seeded, so game g of a run from seed K is the same game in any
process), or read from saved game records (``records=``). Shard k holds games [k*per_shard, (k+1)*per_shard);
an interrupted run resumes where it stopped (finished shards are kept, written atomically), and shards are built
in parallel processes or as Ray tasks (distributed.py; the same shards): a worker builds a shard's rows, the
calling process writes its file.
"""
from __future__ import annotations

import json
import os
import zipfile
import zlib
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..workflows.arena import run_jobs
from ..core import SOURCES
from ..errors import BarcelonaError
from ..learned.evaluation import FEATURE_NAMES, features
from ..learned.models import UNNAMED_EDITION, as_written_now, edition_entry, edition_of_model
from ..rules.jsonio import load_json_file
from ..rules.record import GameRecord
from ..rules.tables import Edition, edition_label, load_edition

DATASET_FORMAT = "barcelona-dataset"
MANIFEST = "dataset.json"
COLUMNS = ("features", "game", "setup_seed", "players", "seat", "decision", "decisions", "to_move", "score",
           "final_score", "final_by_source", "win")


def record_rows(record: GameRecord, game: int, setup_seed: int | None = None) -> dict[str, np.ndarray]:
    """The rows of one finished game (every seat at every decision), from its record; `setup_seed` is by default
    the record's own (its start's seed, -1 for a record that starts from a position)."""
    if setup_seed is None:
        seed = record.start.get("seed")
        setup_seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else -1
    rows: dict[str, list] = {c: [] for c in COLUMNS}
    decisions = 0
    for _i, s, entry in record.steps():       # one replay: the decisions, then the final state
        if entry is None:
            final = s
        elif (cp := s.current_player()) >= 0:
            scores = s.scores()
            for seat, x in enumerate(features(s)):
                _append(rows, features=x, seat=seat, decision=decisions, to_move=cp, score=scores[seat])
            decisions += 1
    if not final.is_terminal():
        raise BarcelonaError(f"game {game}: the record does not end the game")
    return _finish_rows(rows, final, game, setup_seed, decisions)


def _append(rows: dict, **values) -> None:
    for k, v in values.items():
        rows[k].append(v)


def _finish_rows(rows: dict, final, game: int, setup_seed: int, decisions: int) -> dict[str, np.ndarray]:
    n = len(rows["seat"])
    seats = np.asarray(rows["seat"], dtype=np.int8)
    view = final.view()
    final_scores = np.asarray(final.scores(), dtype=np.int32)
    by_source = np.asarray([p.vp_sources for p in view.players], dtype=np.int32)
    returns = np.asarray(final.returns(), dtype=np.float32)
    return {"features": np.asarray(rows["features"], dtype=np.float32).reshape(n, len(FEATURE_NAMES)),
            "game": np.full(n, game, dtype=np.int32), "setup_seed": np.full(n, setup_seed, dtype=np.int64),
            "players": np.full(n, final.num_players, dtype=np.int8), "seat": seats,
            "decision": np.asarray(rows["decision"], dtype=np.int32),
            "decisions": np.full(n, decisions, dtype=np.int32),
            "to_move": np.asarray(rows["to_move"], dtype=np.int8),
            "score": np.asarray(rows["score"], dtype=np.int32), "final_score": final_scores[seats],
            "final_by_source": by_source[seats], "win": returns[seats]}


def concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    if not parts:
        return {c: np.zeros((0, len(FEATURE_NAMES)) if c == "features" else 0, dtype=np.float32) for c in COLUMNS}
    return {c: np.concatenate([p[c] for p in parts]) for c in COLUMNS}


# ------------------------------------------------------------------------------------------------------------
# a dataset on disk
# ------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DataPlan:
    """What a dataset holds: `games` games, `per_shard` a shard; played by `bots` from setup seeds seed.. in
    `players`-player games, or read from the record files `records` (sorted paths); on `edition`'s board (a
    tables.Edition; None: the default's), every record read under it (one of another edition is refused)."""
    games: int
    per_shard: int
    players: int = 0
    bots: tuple[str, ...] = ()
    seed: int = 0
    records: tuple[str, ...] = ()
    edition: Edition | None = None

    def board(self) -> Edition:
        return self.edition if self.edition is not None else load_edition("default")

    @property
    def shards(self) -> int:
        return (self.games + self.per_shard - 1) // self.per_shard

    def shard_games(self, k: int) -> range:
        """The games (by number) of shard k."""
        return range(k * self.per_shard, min(self.games, (k + 1) * self.per_shard))

    def manifest(self) -> dict:
        return {"format": DATASET_FORMAT, "version": 1, "columns": list(COLUMNS), "features": FEATURE_NAMES,
                "sources": list(SOURCES), "games": self.games, "per_shard": self.per_shard,
                "players": self.players, "bots": list(self.bots), "seed": self.seed,
                "records": list(self.records), "edition": edition_entry(self.board())}


def shard_path(out: Path, k: int) -> Path:
    return out / f"shard-{k + 1:05d}.npz"


def _shard_job(job: tuple) -> tuple[int, int, dict[str, np.ndarray]]:
    """Shard k of a plan: (k, its games, its rows)."""
    plan, k = job
    games = plan.shard_games(k)
    return k, len(games), concat([_game_rows(plan, g) for g in games])


def _write_shard(out: Path, k: int, rows: dict[str, np.ndarray]) -> None:
    path = shard_path(out, k)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **rows)
    os.replace(tmp, path)                      # a shard is there whole or not at all (resume)


def _whole_shard(out: Path, k: int, games: int) -> bool:
    """Whether shard k is in `out` whole (every column, its games' rows): a damaged one (a crash mid-copy, an
    edited file) is renamed NAME.damaged and built again."""
    path = shard_path(out, k)
    if not path.exists():
        return False
    try:
        part = read_shard(path)
        whole = len({len(part[c]) for c in COLUMNS}) == 1 and len(np.unique(part["game"])) == games
    except BarcelonaError:
        whole = False
    if not whole:
        os.replace(path, path.with_name(path.name + ".damaged"))
    return whole


def read_shard(path: Path) -> dict[str, np.ndarray]:
    """The columns of one shard; a file that is no whole shard raises BarcelonaError naming it."""
    try:
        with np.load(path) as z:
            return {c: z[c] for c in COLUMNS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise BarcelonaError(f"{path}: not a whole dataset shard ({type(exc).__name__}: {str(exc)[:80]}); "
                             "generate the dataset again (finished shards are kept)") from None


def _game_rows(plan: DataPlan, g: int) -> dict[str, np.ndarray]:
    if plan.records:
        return record_rows(GameRecord.load(plan.records[g], plan.board()), g)
    from ..workflows.selfplay import play_game
    game = play_game(list(plan.bots), plan.seed + g, plan.seed + g, edition=plan.board())
    return record_rows(GameRecord.from_json(game.record, plan.board()), g, plan.seed + g)


def games_written(plan: DataPlan, out: str | Path) -> int:
    """The games of `plan` whose shards are already in folder `out` (what a resumed run does not play again)."""
    return sum(len(plan.shard_games(k)) for k in range(plan.shards) if shard_path(Path(out), k).exists())


def generate(plan: DataPlan, out: str | Path, workers: int = 1,
             on_shard: Callable[[int, int], None] | None = None, ray: str | None = None) -> list[Path]:
    """Write the dataset `plan` into folder `out` (created if missing). Shards already there from the same plan
    are kept (an interrupted run resumes); a folder holding another plan is refused. Shards are built in
    `workers` processes, or as Ray tasks with `ray` (distributed.py: ``local``, ``auto`` or an address), and
    written here as each is done; on_shard(k, games) reports each shard written. Returns the shard paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _check_or_write_manifest(plan, out)
    todo = [k for k in range(plan.shards) if not _whole_shard(out, k, len(plan.shard_games(k)))]
    with closing(run_jobs(_shard_job, [(plan, k) for k in todo], workers, ray, "barcelona-generate")) as shards:
        for _i, (k, n, rows) in shards:
            _write_shard(out, k, rows)
            if on_shard:
                on_shard(k, n)
    return [shard_path(out, k) for k in range(plan.shards)]


def _check_or_write_manifest(plan: DataPlan, out: Path) -> None:
    path = out / MANIFEST
    want = plan.manifest()
    if path.exists():
        have = load_json_file(path, "dataset manifest")
        if isinstance(have, dict) and "edition" not in have:       # written before datasets named their edition
            have = {**have, "edition": dict(UNNAMED_EDITION)}
        have = as_written_now(have, want) if isinstance(have, dict) else have
        if have != want:
            raise BarcelonaError(f"{path}: this folder holds another dataset (other games, bots, seeds or "
                                 f"features); choose a new folder")
        return
    path.write_text(json.dumps(want, indent=1) + "\n", encoding="utf-8")


def load_dataset(*folders: str | Path) -> dict[str, np.ndarray]:
    """Every shard of the given dataset folders joined into columns; `game` is renumbered so that games of
    different folders stay apart."""
    parts, offset = [], 0
    for folder in folders:
        folder = Path(folder)
        man = _read_manifest(folder)
        if man.get("features") != FEATURE_NAMES:
            raise BarcelonaError(f"{folder}: its features are not this engine's; generate it again")
        for k in range(man["games"] // man["per_shard"] + (man["games"] % man["per_shard"] > 0)):
            path = shard_path(folder, k)
            if not path.exists():
                raise BarcelonaError(f"{path}: missing (the generation did not finish: run it again to resume)")
            part = read_shard(path)
            part["game"] = part["game"] + offset
            parts.append(part)
        offset += man["games"]
    return concat(parts)


def _read_manifest(folder: Path) -> dict:
    """A dataset folder's manifest (BarcelonaError for a folder that holds none)."""
    if not (folder / MANIFEST).is_file():
        raise BarcelonaError(f"{folder}: not a dataset folder (no {MANIFEST}: see barcelona-ai generate)")
    man = load_json_file(folder / MANIFEST, f"{folder / MANIFEST}")
    if not isinstance(man, dict) or man.get("format") != DATASET_FORMAT:
        raise BarcelonaError(f"{folder}: not a dataset folder (no {MANIFEST})")
    return man


def dataset_edition(*folders: str | Path) -> dict:
    """The edition (models.edition_entry) whose games the dataset folders hold (UNNAMED_EDITION for one written
    before datasets named it); folders of different boards are refused: a model is fitted on one board."""
    seen: dict[str, tuple[dict, Path]] = {}
    for folder in folders:
        ed = edition_of_model(_read_manifest(Path(folder)), f"{Path(folder) / MANIFEST}")
        seen.setdefault(ed.get("board_sha256") or ed["sha256"], (ed, Path(folder)))
    if len(seen) > 1:
        (a, fa), (b, fb) = list(seen.values())[:2]
        raise BarcelonaError(f"{fa} holds games of {edition_label(a['name'], a['sha256'])}, {fb} of "
                             f"{edition_label(b['name'], b['sha256'])}: a model is fitted on one edition's games")
    if not seen:
        raise BarcelonaError("no dataset folder given")
    return next(iter(seen.values()))[0]


def record_files(folder: str | Path) -> tuple[str, ...]:
    """The game records (*.json) of a folder, sorted by name."""
    files = sorted(str(p) for p in Path(folder).glob("*.json") if p.name != MANIFEST)
    if not files:
        raise BarcelonaError(f"{folder}: no game records (*.json)")
    return tuple(files)


__all__ = ["COLUMNS", "DataPlan", "dataset_edition", "generate", "load_dataset", "record_files", "record_rows",
           "shard_path"]
