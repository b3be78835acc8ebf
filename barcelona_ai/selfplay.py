"""Self-play: bots play each other from seeded setups and every game is written as a game record.

Game g (1-based) of a run from seed K starts from ``new_game(players, seed=K+g-1)``; its bots get seeds from
K+g-1 too (``bot_seed * 31 + seat``) and its chance outcomes come from ``setup_seed * 1_000_003 + bot_seed``
(playout.play_out), so a game depends only on its seed and the bot specs, in one process or in parallel workers.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .arena import worker_pool
from .bots import make_bot
from .core import new_game
from .playout import play_out
from .record import GameRecord, numbered_paths


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
    """Every game of a run, in order, and the record files written (out/game-0001.json, ...)."""
    games: list[SelfplayGame] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    seconds: float = 0.0


def play_game(specs: list[str], setup_seed: int, bot_seed: int, setup: str = "random") -> SelfplayGame:
    """One game between bots (specs[i] plays seat i) from new_game(len(specs), setup_seed), recorded."""
    players = len(specs)
    s = new_game(players, seed=setup_seed, setup=setup)
    rec = GameRecord.for_new_game(players, setup_seed, setup=setup, seats=list(specs))
    bots = [make_bot(spec, bot_seed * 31 + i) for i, spec in enumerate(specs)]
    t0 = time.perf_counter()
    decisions = play_out(s, bots, random.Random(setup_seed * 1_000_003 + bot_seed), on_step=rec.add)
    rec.finish(s)
    return SelfplayGame(rec.to_json(), s.scores(), s.returns(), decisions, time.perf_counter() - t0, setup_seed)


def _job(job: tuple) -> SelfplayGame:
    return play_game(*job)


def record_path(out: Path, g: int) -> Path:
    """The file of game g (1-based) in the folder `out` when it holds no records yet."""
    return out / f"game-{g:04d}.json"


def write_game(game: SelfplayGame, path: Path, overwrite: bool = False) -> None:
    """Check that the game's record replays (GameRecord.from_json), then write it to `path` (an existing file
    only with `overwrite`). An OSError names `path` as its filename and says why in its strerror."""
    rec = GameRecord.from_json(game.record)
    try:
        rec.save(path, overwrite=overwrite)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def run_selfplay(specs: list[str], games: int, seed: int, out: str | Path, setup: str = "random",
                 workers: int = 1, on_game: Callable[[int, SelfplayGame, Path], None] | None = None,
                 force: bool = False, progress: bool = False) -> SelfplayRun:
    """Play `games` games between the bots `specs` (one a seat) from setup seeds seed..seed+games-1 and write
    each record into the existing folder `out` as soon as it is done; `on_game(g, game, path)` reports game g
    (1-based) after its file is written. No record is overwritten: the file numbers go on after the records
    already in `out` (record.numbered_paths), unless `force` (then game-0001.json, ... are rewritten). With
    workers > 1 the games run in parallel processes (Ctrl-C ends them at once); the games are the same either
    way. `progress`: a progress bar on stderr (only on a terminal)."""
    from .progress import bar
    out = Path(out)
    paths = numbered_paths(out, games, force)
    jobs = [(list(specs), seed + g, seed + g, setup) for g in range(games)]
    run = SelfplayRun()
    t0 = time.perf_counter()
    with bar(games, "selfplay", unit="game", enabled=progress) as tick:
        if workers > 1 and games > 1:
            with worker_pool(min(workers, games)) as pool:
                _write_all(pool.map(_job, jobs), paths, run, on_game, force, tick)
        else:
            _write_all(map(_job, jobs), paths, run, on_game, force, tick)
    run.seconds = time.perf_counter() - t0
    return run


def _write_all(results, paths: list[Path], run: SelfplayRun, on_game, force: bool, tick) -> None:
    for g, game in enumerate(results, 1):
        path = paths[g - 1]
        write_game(game, path, overwrite=force)
        run.games.append(game)
        run.paths.append(path)
        tick(1)
        if on_game is not None:
            on_game(g, game, path)


__all__ = ["SelfplayGame", "SelfplayRun", "play_game", "record_path", "write_game",
           "run_selfplay"]
