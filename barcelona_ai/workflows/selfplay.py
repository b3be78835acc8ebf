"""Self-play: bots play each other from seeded setups and every game is written as a game record.

Game g (1-based) of a run from seed K starts from ``new_game(players, seed=K+g-1)``; its bots get seeds from
K+g-1 too (``mix_seed(bot_seed, seat)``) and its chance outcomes come from ``mix_seed(setup_seed, bot_seed)``
(arena.game_bots and arena.chance_rng), so a game depends only on its seed and the bot specs, in one process, in
parallel workers or on a Ray cluster (distributed.py). Each record is written as its game ends; the run is noted
in the folder's runs.jsonl, so that an interrupted run is finished by the same call with ``resume``.
"""
from __future__ import annotations

import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .arena import chance_rng, checked_records, game_bots, run_files, run_jobs, write_record
from ..core import new_game
from .playout import play_out
from ..rules.record import GameRecord


@dataclass
class SelfplayGame:
    """One finished game: its record (JSON), the final scores and returns (R127), the bots' decisions."""
    record: dict
    scores: list[int]
    returns: list[float]
    decisions: int
    seconds: float
    setup_seed: int = 0

    @property
    def winners(self) -> list[int]:
        return [p for p in range(len(self.returns)) if self.returns[p] > 0]


@dataclass
class SelfplayRun:
    """The games played by a run, in game order, and their record files (out/game-0001.json, ...); `kept`: the
    records of the run already in the folder (a resumed run), replayed and not played again; `damaged`: records
    of the run that were not whole, set aside as NAME.damaged and played again."""
    games: list[SelfplayGame] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    seconds: float = 0.0
    kept: list[Path] = field(default_factory=list)
    damaged: list[Path] = field(default_factory=list)


def play_game(specs: list[str], setup_seed: int, bot_seed: int, setup: str = "random",
              edition="default") -> SelfplayGame:
    """One game between bots (specs[i] plays seat i) from new_game(len(specs), setup_seed, edition), recorded."""
    players = len(specs)
    s = new_game(players, seed=setup_seed, setup=setup, edition=edition)
    rec = GameRecord.for_new_game(players, setup_seed, setup=setup, seats=list(specs),
                                  edition=s.game_data.edition)
    t0 = time.perf_counter()
    decisions = play_out(s, game_bots(specs, bot_seed), chance_rng(setup_seed, bot_seed), on_step=rec.add)
    rec.finish(s)
    return SelfplayGame(rec.to_json(), s.scores(), s.returns(), decisions, time.perf_counter() - t0, setup_seed)


def _job(job: tuple) -> SelfplayGame:
    return play_game(*job)


def record_path(out: Path, g: int) -> Path:
    """The file of game g (1-based) in the folder `out` when it holds no records yet."""
    return out / f"game-{g:04d}.json"


def write_game(game: SelfplayGame, path: Path, overwrite: bool = False, edition=None) -> None:
    """Check that the game's record replays (GameRecord.from_json, under `edition`), then write it to `path`,
    whole or not at all (an existing file only with `overwrite`). An OSError names `path` as its filename and
    says why in its strerror."""
    rec = GameRecord.from_json(game.record, edition)
    try:
        write_record(rec, path, overwrite=overwrite)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def run_selfplay(specs: list[str], games: int, seed: int, out: str | Path, setup: str = "random",
                 workers: int = 1, on_game: Callable[[int, SelfplayGame, Path], None] | None = None,
                 force: bool = False, progress: bool = False, ray: str | None = None,
                 resume: bool = False, on_start: Callable[[list[Path], SelfplayRun, bool], None] | None = None,
                 edition="default") -> SelfplayRun:
    """Play `games` games between the bots `specs` (one a seat) from setup seeds seed..seed+games-1 and write
    each record into the existing folder `out` as soon as it is done; `on_game(g, game, path)` reports game g
    (1-based) after its file is written, in the order the games end. No record is overwritten: the file numbers
    go on after the records already in `out` (record.numbered_paths), unless `force` (then game-0001.json, ...
    are rewritten). `resume`: if `out` holds this run (the same bots, seeds, games and setup) from before, play
    only its games whose records are missing or damaged (arena.checked_records). With workers > 1 the games
    run in parallel processes (Ctrl-C ends them at once), with `ray` as Ray tasks (distributed.py); the games
    are the same every way. `progress`: a progress bar on stderr (only on a terminal). `on_start(paths, run,
    resumed)` is told the record files of the run (and in run.kept those already there, in run.damaged those
    set aside) before the first game starts. The games are played on
    `edition`'s board (a name, a data-file path or a tables.Edition)."""
    from .progress import bar
    from ..rules.tables import load_edition
    out = Path(out)
    ed = load_edition(edition)
    plan = {"command": "selfplay", "bots": list(specs), "seed": seed, "games": games, "setup": setup,
            "edition": {"name": ed.name, "sha256": ed.sha256}}
    games_of_run = [(list(specs), seed + g, setup) for g in range(games)]
    paths, resumed = run_files(out, plan, games, force=force, resume=resume, games_of_run=games_of_run)
    jobs = [(list(specs), seed + g, seed + g, setup, ed) for g in range(games)]
    run = SelfplayRun()
    if resumed:
        kept, run.damaged = checked_records(paths, games_of_run, ed)
        run.kept = [paths[g] for g in sorted(kept)]
    todo = [g for g in range(games) if paths[g] not in run.kept]
    if on_start is not None:
        on_start(paths, run, resumed)
    t0 = time.perf_counter()
    played: dict[int, tuple[SelfplayGame, Path]] = {}
    with bar(games, "selfplay", unit="game", enabled=progress) as tick:
        tick(len(run.kept))
        with closing(run_jobs(_job, [jobs[g] for g in todo], workers, ray, "barcelona-selfplay")) as results:
            for k, game in results:
                g = todo[k]
                write_game(game, paths[g], overwrite=force, edition=ed)
                played[g] = (game, paths[g])
                tick(1)
                if on_game is not None:
                    on_game(g + 1, game, paths[g])
    for g in sorted(played):
        run.games.append(played[g][0])
        run.paths.append(played[g][1])
    run.seconds = time.perf_counter() - t0
    return run


__all__ = ["SelfplayGame", "SelfplayRun", "play_game", "record_path", "write_game",
           "run_selfplay"]
