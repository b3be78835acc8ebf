"""Arena: bots play each other with seat rotation; win shares with 95% confidence intervals.

A match is a candidate against an opponent, 1 seat against players-1 seats. Every seeded setup is played once
with the candidate in each seat (seat rotation), so the first-player advantage cancels. Games run in parallel
processes (or as Ray tasks: distributed.py). Win share counts a shared win (R127) as a fraction; with equal
strength the candidate's expected share is 1/players. Two runs saved on the same setups are compared game by game
(``paired_difference``: ``barcelona-ai paired``).

Also the machinery selfplay and generate share with the arena: ``run_jobs`` (the games of a run in this process,
in local processes or on Ray, results as they finish) and the record files of a run (``run_files``: numbered on
after those in the folder, noted in ``runs.jsonl`` so that an interrupted run can be resumed; ``write_record``
writes each whole or not at all).
"""
from __future__ import annotations

import json
import math
import os
import random
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, stdev
from typing import Any, Callable, Iterator, Sequence

from ..search.bots import check_bot_spec, make_bot
from ..core import State
from ..errors import BarcelonaError, PlayerCountError
from .playout import play_out
from .progress import bar
from ..rules.record import GameRecord, numbered_paths
from ..rules.tables import load_edition
from ..search.running import mix_seed

MAX_GAMES = 100_000
MAX_WORKERS = 64
RUNS_FILE = "runs.jsonl"        # in a records folder: one line per run, what it plays and its first file number


def _worker_start() -> None:
    """A worker ignores Ctrl-C (its driver handles it) and ends when its driver is gone (killed: nobody would
    read its results)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    driver = os.getppid()

    def watch() -> None:
        while os.getppid() == driver:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, name="driver-watch", daemon=True).start()


@contextmanager
def worker_pool(workers: int):
    """A process pool whose workers ignore Ctrl-C (the parent handles it): on any exception in the `with`
    body, KeyboardInterrupt included, the workers are ended at once instead of finishing their games."""
    ex = ProcessPoolExecutor(max_workers=workers, initializer=_worker_start)
    try:
        yield ex
    except BaseException:
        for proc in list((getattr(ex, "_processes", None) or {}).values()):
            proc.terminate()
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def run_jobs(fn: Callable, jobs: Sequence, workers: int = 1, ray: str | None = None,
             name: str = "barcelona") -> Iterator[tuple[int, Any]]:
    """fn(job) for every job, yielding (index of the job, its result) as each finishes: in this process
    (workers 1), in `workers` local processes, or as Ray tasks when `ray` names a cluster (distributed.session:
    ``local`` starts one of `workers` CPUs). `fn` is a module-level function, so every way runs the same
    code. Stopping early (an exception, Ctrl-C) ends the work still running."""
    if ray is not None:
        from .distributed import run_tasks
        with closing(run_tasks(fn, jobs, ray, workers, name)) as results:
            yield from results
    elif workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            yield i, fn(job)
    else:
        with worker_pool(min(workers, len(jobs))) as pool:
            futures = {pool.submit(fn, job): i for i, job in enumerate(jobs)}
            for f in as_completed(futures):
                yield futures[f], f.result()


# ------------------------------------------------------------------------------------------------------------
# the record files of a run

def run_files(folder: str | Path, run: dict, games: int, force: bool = False, resume: bool = False,
              games_of_run: "list[tuple] | None" = None) -> tuple[list[Path], bool]:
    """The record files (game-NNNN.json) of the `games` games of a run described by `run` (JSON: what it plays)
    in `folder`, and whether they are those of an earlier run being resumed. With `resume`, the files of the
    last run of the folder described as `run`, if there is one (its records there are kept, the others are to
    be played); where runs.jsonl is lost or damaged, the run is recognised from its records (`games_of_run`:
    each game's (seats, setup seed, setup), see recognised_first) and noted again. Otherwise new files numbered on
    after the records in the folder (from game-0001.json with `force`); the run is then noted in
    folder/runs.jsonl so that it can be resumed."""
    folder = Path(folder)
    first = None
    if resume:
        notes = _run_notes(folder) or []
        first = _noted_run(notes, run)
        if first is not None:
            return [folder / f"game-{first + g:04d}.json" for g in range(games)], True
        _refuse_another_count(folder, notes, run)
        if games_of_run and not _notes_intact(folder):
            first = recognised_first(folder, games_of_run)
    paths = ([folder / f"game-{first + g:04d}.json" for g in range(games)] if first is not None
             else numbered_paths(folder, games, force))
    _note_run(folder, run, int(paths[0].stem[5:]))
    return paths, first is not None


def _note_run(folder: Path, run: dict, first: int) -> None:
    line = json.dumps({"run": run, "first": first}, separators=(",", ":")) + "\n"
    with open(folder / RUNS_FILE, "ab+") as f:
        if f.seek(0, os.SEEK_END) > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                line = "\n" + line              # a last line cut short stays apart from this one
        f.write(line.encode("utf-8"))           # (appended at the end whatever the position read)


def _notes_intact(folder: Path) -> bool:
    """Whether folder/runs.jsonl is there and every line of it reads (else a run's note may be lost)."""
    try:
        lines = (folder / RUNS_FILE).read_text(encoding="utf-8").splitlines()
        return all(isinstance(json.loads(line), dict) for line in lines if line.strip())
    except (OSError, UnicodeError, ValueError):
        return False


def recognised_first(folder: Path, games_of_run: list[tuple]) -> int | None:
    """The first file number of a run whose records are in `folder` but whose note is lost: the number that the
    most records there agree on, each record read as game g of the run when its seats, setup seed and setup are
    game g's (`games_of_run[g]`). None when no record there is a game of the run."""
    wanted: dict[tuple, list[int]] = {}
    for g, (specs, setup_seed, setup) in enumerate(games_of_run):
        wanted.setdefault((tuple(specs), setup_seed, setup), []).append(g)
    votes: dict[int, int] = {}
    for path in folder.glob("game-[0-9][0-9][0-9][0-9]*.json"):
        key = _record_key(path)
        number = path.stem[5:]
        if key is None or key not in wanted or not number.isdigit():
            continue
        for g in wanted[key]:
            if int(number) - g >= 1:
                votes[int(number) - g] = votes.get(int(number) - g, 0) + 1
    return max(votes, key=lambda f: (votes[f], -f)) if votes else None


def _record_key(path: Path) -> tuple | None:
    """(seats, setup seed, setup) of the record at `path`, or None where it is no readable record."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        start, seats = doc["start"], doc["seats"]
        key = tuple(seats), start["seed"], start.get("setup", "random")
        hash(key)                                # a record whose fields hold lists or objects is no game's
        return key
    except (OSError, UnicodeError, ValueError, KeyError, TypeError, AttributeError):
        return None


def checked_records(paths: list[Path], games_of_run: list[tuple], edition) -> tuple[dict[int, GameRecord], list[Path]]:
    """The records of a resumed run that are there whole, by game index, and the damaged ones set aside. Each
    file is read as a record and replayed to its end, its stated result checked (GameRecord.from_json): a file
    that is not such a record of its game (unreadable, cut short, a replay that fails or disagrees with its
    result) is renamed NAME.damaged and its game is to be played again. A whole record of another game raises
    BarcelonaError: the folder was changed by hand."""
    kept: dict[int, GameRecord] = {}
    damaged: list[Path] = []
    for g, path in enumerate(paths):
        if not path.exists():
            continue
        specs, setup_seed, setup = games_of_run[g]
        key = _record_key(path)
        rec = _whole_record(path, edition) if key is not None else None
        if rec is not None and key != (tuple(specs), setup_seed, setup):
            raise BarcelonaError(f"--resume: {path} is not the game of this run it should be (seats "
                                 f"{', '.join(specs)}, setup seed {setup_seed}); was the folder changed?")
        if rec is None:
            aside = path.with_name(path.name + ".damaged")
            os.replace(path, aside)
            damaged.append(aside)
        else:
            kept[g] = rec
    return kept, damaged


def _whole_record(path: Path, edition) -> GameRecord | None:
    try:
        rec = GameRecord.load(path, edition)
    except BarcelonaError:
        return None
    return rec if rec.result is not None else None


def _noted_run(notes: list[dict], run: dict) -> int | None:
    """The first file number of the last run of a folder's `notes` (_run_notes) that is `run`, or None."""
    for note in notes:
        first = note.get("first")
        if note.get("run") == run and isinstance(first, int) and not isinstance(first, bool) and first >= 1:
            return first
    return None


def _refuse_another_count(folder: Path, notes: list[dict], run: dict) -> None:
    """A resume of a run that the folder holds (its `notes`) with another number of games is refused
    (BarcelonaError): it is that run the caller means, and starting a new one would play its games again under new
    file numbers."""
    for note in notes:
        noted = note.get("run")
        if "games" in run and isinstance(noted, dict) and {**noted, "games": run["games"]} == run:
            raise BarcelonaError(f"--resume: {folder} holds this run with {noted['games']!r} games, not "
                                 f"{run['games']}: resume it with --games {noted['games']!r}, or leave out --resume "
                                 "to start a new run after its records")


def _run_notes(folder: Path) -> list[dict] | None:
    """The runs noted in folder/runs.jsonl, the last first (lines that are no JSON object skipped; a line cut short
    by a killed run is one); None where the file cannot be read."""
    try:
        lines = (folder / RUNS_FILE).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeError):
        return None
    notes = []
    for line in reversed(lines):
        try:
            note = json.loads(line)
        except ValueError:
            continue
        if isinstance(note, dict):
            notes.append(note)
    return notes


def write_record(record: GameRecord, path: Path, overwrite: bool = False) -> None:
    """Write a record to `path`, whole or not at all (a temporary file renamed; a run killed mid-write leaves
    no half record to resume from). Without `overwrite` an existing file is left alone (FileExistsError)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.partial")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(record.dumps() + "\n")
    try:
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)      # fails if `path` exists: never over a record
            except FileExistsError:
                raise
            except OSError:             # a file system without hard links
                record.save(path, overwrite=False)
    finally:
        if tmp.exists():
            tmp.unlink()


def _check_int(name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BarcelonaError(f"{name} must be an integer from {lo} to {hi}, not {value!r}")


@dataclass
class MatchResult:
    candidate: str
    opponent: str
    players: int
    games: int
    share: float                 # candidate's mean win share
    low: float                   # 95% interval (Wilson, on the share)
    high: float
    beat: float                  # fraction of (candidate, opponent) pairs the candidate finished ahead (ties 0.5)
    beat_low: float
    beat_high: float
    mean_score: float            # candidate's mean final VP
    opponent_mean_score: float
    seconds: float

    def line(self) -> str:
        return (f"{self.candidate} vs {self.opponent} ({self.players}p, {self.games} games): "
                f"win share {self.share:.3f} [{self.low:.3f}, {self.high:.3f}] "
                f"(equal strength {1 / self.players:.3f}); beats an opponent {self.beat:.3f} "
                f"[{self.beat_low:.3f}, {self.beat_high:.3f}]; VP {self.mean_score:.1f} vs "
                f"{self.opponent_mean_score:.1f}")


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def game_bots(specs: list[str], bot_seed: int) -> list:
    """The bots of a game, specs[i] in seat i, each seeded from the game's bot seed and its seat (mix_seed)."""
    return [make_bot(spec, mix_seed(bot_seed, i)) for i, spec in enumerate(specs)]


def chance_rng(setup_seed: int, bot_seed: int) -> random.Random:
    """The chance outcomes of a game (draws and reveals), seeded from its setup seed and bot seed (mix_seed)."""
    return random.Random(mix_seed(setup_seed, bot_seed))


def play_game(specs: list[str], setup_seed: int, bot_seed: int, record: bool = False, edition="default") -> dict:
    """One game on `edition`'s board; specs[i] plays seat i. Returns scores, returns, places (1 = first, after
    the tie-breakers of R127) and the number of decisions; with `record`, the game record too (JSON,
    docs/records.md)."""
    s = State.new(len(specs), setup_seed, edition)
    rec = GameRecord.for_new_game(len(specs), setup_seed, seats=list(specs),
                                  edition=s.game_data.edition) if record else None
    decisions = play_out(s, game_bots(specs, bot_seed), chance_rng(setup_seed, bot_seed),
                         on_step=rec.add if rec else None)
    out = {"scores": s.scores(), "returns": s.returns(), "places": s.places(), "decisions": decisions}
    if rec is not None:
        rec.finish(s)
        out["record"] = rec.to_json()
    return out


def _job(args):
    specs, setup_seed, bot_seed, cand_seat, record, edition = args
    r = play_game(specs, setup_seed, bot_seed, record, edition)
    r["cand_seat"] = cand_seat
    return r


def rotation_note(players: int, games: int) -> str | None:
    """None when every seat hosts the candidate equally often (games a multiple of players), else a warning
    saying how often it sat in each seat."""
    if games % players == 0:
        return None
    counts = [games // players + (1 if seat < games % players else 0) for seat in range(players)]
    return (f"seat rotation incomplete: {games} games with {players} players put the candidate in seats "
            f"{'/'.join(str(q) for q in range(players))} {'/'.join(map(str, counts))} times (the first-player "
            f"advantage does not cancel); use a multiple of {players} games")


def _save(result: dict, path, edition) -> None:
    """Write one game's record (never over an existing file)."""
    rec = GameRecord.from_json(result.pop("record"), edition)
    try:
        write_record(rec, path, overwrite=False)
    except OSError as exc:
        raise BarcelonaError(f"--save: cannot write {path} ({exc.strerror or exc})") from None


def _saved_result(path: Path, job: tuple) -> dict:
    """The result of a game saved at `path` (paired runs read, never changed), from its replay."""
    specs, setup_seed, _bot_seed, _cand_seat, _record, edition = job
    rec = GameRecord.load(path, edition)
    if rec.seats != specs or rec.start.get("seed") != setup_seed:
        raise BarcelonaError(f"{path} is not the game of this match it should be (seats {', '.join(specs)}, "
                             f"setup seed {setup_seed}); was the folder changed?")
    return _kept_result(rec, job)


def _kept_result(rec: GameRecord, job: tuple) -> dict:
    """The result of a game of the run whose record is kept (a resumed run), from its replay."""
    s = rec.replay()
    return {"scores": s.scores(), "returns": s.returns(), "places": s.places(), "cand_seat": job[3]}


def match_jobs(candidate: str, opponent: str, players: int, games: int, seed: int, record: bool,
               edition=None) -> list[tuple]:
    """The games of a match: (specs, setup seed, bot seed, the candidate's seat, record, edition) each, the
    candidate's seat rotating game by game over each seeded setup. `edition`: the board (a tables.Edition, a
    name or a path; None: default, and saved records are read under the edition they name)."""
    jobs = []
    for g in range(games):
        seat = g % players
        specs = [opponent] * players
        specs[seat] = candidate
        jobs.append((specs, seed + g // players, mix_seed(seed, g), seat, record, edition))
    return jobs


def match(candidate: str, opponent: str, players: int = 2, games: int = 20, seed: int = 0, workers: int = 2,
          progress: bool = True, save: str | None = None, ray: str | None = None,
          resume: bool = False, on_start: Callable[[list[Path], bool, list[Path]], None] | None = None,
          edition="default") -> MatchResult:
    """`games` games of the candidate in one seat against the opponent in the others, the candidate's seat
    rotating game by game over each seeded setup. `save`: a folder for the games' records (game-0001.json ...,
    numbered on after the records already there), each written as its game ends; with `resume`, the games of
    the same match saved there before (an interrupted run) are read back and replayed instead of played again
    (checked_records: a damaged one is set aside and played again).
    `ray`: run the games as Ray tasks (distributed.py: ``local``, ``auto`` or an address) instead of `workers`
    local processes; the results are the same. `progress`: a bar on stderr (only on a terminal). `on_start(paths,
    resumed, damaged)` is told the record files of a saved match (and the damaged ones set aside) before its
    games are played. The games are played on
    `edition`'s board (a name, a data-file path or a tables.Edition)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise PlayerCountError(f"Barcelona is played by 2 to 4 players, not {players!r}")
    _check_int("games", games, 1, MAX_GAMES)
    _check_int("workers", workers, 1, MAX_WORKERS)
    _check_int("seed", seed, 0, 2 ** 64 - 1)
    check_bot_spec(candidate, "candidate")
    check_bot_spec(opponent, "opponent")
    ed = load_edition(edition)
    jobs = match_jobs(candidate, opponent, players, games, seed, save is not None, ed)
    paths, kept = None, {}
    if save is not None:
        run = {"command": "arena", "candidate": candidate, "opponent": opponent, "players": players,
               "seed": seed, "games": games, "edition": {"name": ed.name, "sha256": ed.sha256}}
        games_of_run = [(job[0], job[1], "random") for job in jobs]
        try:
            paths, resumed = run_files(save, run, games, resume=resume, games_of_run=games_of_run)
            kept, damaged = checked_records(paths, games_of_run, ed) if resumed else ({}, [])
        except OSError as exc:
            raise BarcelonaError(f"--save: cannot write {exc.filename or save} ({exc.strerror or exc})") from None
        if on_start is not None:
            on_start(paths, resumed, damaged)
    t0 = time.perf_counter()
    results = _play_all(jobs, workers, paths, kept, f"{candidate} vs {opponent}", progress, ray)
    return _summary(candidate, opponent, players, results, time.perf_counter() - t0)


def _play_all(jobs: list, workers: int, paths, kept: dict[int, GameRecord], desc: str, progress: bool,
              ray: str | None = None) -> list[dict]:
    """The results of the games `jobs`, in order: those whose records are `kept` read back, the others played
    (each record written to its path as its game ends)."""
    results: list = [None] * len(jobs)
    for i, rec in kept.items():
        results[i] = _kept_result(rec, jobs[i])
    todo = [i for i, r in enumerate(results) if r is None]
    with bar(len(jobs), desc, unit="game", enabled=progress) as tick:
        done = [r for r in results if r is not None]
        tick(len(done))
        with closing(run_jobs(_job, [jobs[i] for i in todo], workers, ray, "barcelona-arena")) as played:
            for k, r in played:
                if paths is not None:
                    _save(r, paths[todo[k]], jobs[todo[k]][5])
                results[todo[k]] = r
                done.append(r)
                tick(1, share=f"{sum(x['returns'][x['cand_seat']] for x in done) / len(done):.3f}")
    return results


def _summary(candidate: str, opponent: str, players: int, results: list[dict], seconds: float) -> MatchResult:
    games = len(results)
    shares = [r["returns"][r["cand_seat"]] for r in results]
    low, high = wilson(sum(shares), len(shares))
    beats = []
    for r in results:
        me = r["places"][r["cand_seat"]]
        pair = [1.0 if me < k else 0.5 if me == k else 0.0
                for i, k in enumerate(r["places"]) if i != r["cand_seat"]]
        beats.append(sum(pair) / len(pair))
    blow, bhigh = wilson(sum(beats), len(beats))
    own = [r["scores"][r["cand_seat"]] for r in results]
    other = [sum(sc for i, sc in enumerate(r["scores"]) if i != r["cand_seat"]) / (players - 1) for r in results]
    return MatchResult(candidate, opponent, players, games, sum(shares) / games, low, high,
                       sum(beats) / games, blow, bhigh, sum(own) / games, sum(other) / games, seconds)


# ------------------------------------------------------------------------------------------------------------
# two saved matches compared game by game

@dataclass
class PairedDifference:
    """Two arena runs compared on the games both played (the same setup with the candidate in the same seat)."""
    first: str                   # the first run's candidate, and the second's
    second: str
    first_folder: str            # where each run's records are
    second_folder: str
    games: int
    first_share: float           # each candidate's mean win share over those games
    second_share: float
    difference: float            # first_share - second_share
    half_width: float            # of the difference's 95% interval: 1.96 standard errors of the games' differences

    def line(self) -> str:
        return (f"{self.games} games on the same setups and seats: {self.first_folder} ({self.first}) "
                f"{self.first_share:.3f}, {self.second_folder} ({self.second}) {self.second_share:.3f}; game by game "
                f"{self.difference:+.3f} +- {self.half_width:.3f} (95%)")


def saved_match(folder: str | Path, edition=None) -> tuple[dict, dict[tuple[int, int], float]]:
    """The last arena run saved in `folder` (as runs.jsonl notes it: candidate, opponent, players, seed, games) and
    its candidate's win share in each game whose record is there, by (setup seed, the candidate's seat); each
    record is replayed (under `edition`, by default the one it names) and checked against the game of the run it
    should be."""
    folder = Path(folder)
    run, first = _last_arena_run(folder)
    jobs = match_jobs(run["candidate"], run["opponent"], run["players"], run["games"], run["seed"], False, edition)
    shares = {}
    for g, job in enumerate(jobs):
        path = folder / f"game-{first + g:04d}.json"
        if path.exists():
            shares[(job[1], job[3])] = _saved_result(path, job)["returns"][job[3]]
    return run, shares


def _last_arena_run(folder: Path) -> tuple[dict, int]:
    """The last arena run noted in folder/runs.jsonl and the number of its first record file."""
    notes = _run_notes(folder)
    if notes is None:
        raise BarcelonaError(f"{folder}: no arena run saved there (no readable {RUNS_FILE}: see arena --save)")
    for note in notes:
        run = note.get("run")
        if isinstance(run, dict) and run.get("command") == "arena":
            try:
                check_bot_spec(run["candidate"], "candidate")
                check_bot_spec(run["opponent"], "opponent")
                for name, lo, hi in (("players", 2, 4), ("games", 1, MAX_GAMES), ("seed", 0, 2 ** 64 - 1)):
                    _check_int(name, run[name], lo, hi)
                _check_int("first", note.get("first"), 1, 10 ** 6)
            except (KeyError, BarcelonaError) as exc:
                raise BarcelonaError(f"{folder / RUNS_FILE}: its last arena run is not readable ({exc})") from None
            return run, note["first"]
    raise BarcelonaError(f"{folder}: no arena run noted in {RUNS_FILE}")


def paired_difference(first: str | Path, second: str | Path, edition=None) -> PairedDifference:
    """Two saved arena runs (arena --save) compared game by game on the setups and seats both played, the way to
    tell two candidates apart on the same setups: the games' own variation cancels, so the interval is narrower
    than the two runs' Wilson intervals say. The records are read under `edition` (None: the one each names)."""
    run_a, a = saved_match(first, edition)
    run_b, b = saved_match(second, edition)
    if run_a["players"] != run_b["players"]:
        raise BarcelonaError(f"the runs are of {run_a['players']} and {run_b['players']} players")
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise BarcelonaError(f"{first} and {second} have {len(common)} game(s) in common (the same setup seed with "
                             "the candidate in the same seat); at least 2 are needed")
    diffs = [a[k] - b[k] for k in common]
    n = len(diffs)
    return PairedDifference(run_a["candidate"], run_b["candidate"], str(first), str(second), n,
                            fmean(a[k] for k in common), fmean(b[k] for k in common), fmean(diffs),
                            1.96 * stdev(diffs) / math.sqrt(n))


def policy_duel(players: int = 2, games: int = 3000, seed: int = 0) -> tuple[float, float, float]:
    """The heuristic rollout policy playing one seat against uniform random play in the others (seat rotation,
    seeded setups): its win share and 95% interval. Cheap (thousands of games a second): the rollout policy's
    weights were chosen with it, and kept because the ISMCTS with it beats the ISMCTS with uniform rollouts."""
    from ..search.tree import policy_game
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise PlayerCountError(f"Barcelona is played by 2 to 4 players, not {players!r}")
    _check_int("games", games, 1, 10 ** 7)
    _check_int("seed", seed, 0, 2 ** 64 - 1)
    share = 0.0
    for g in range(games):
        seat = g % players
        policies = ["uniform"] * players
        policies[seat] = "heuristic"
        _, returns = policy_game(players, seed + g // players, mix_seed(seed, g), policies)
        share += returns[seat]
    low, high = wilson(share, games)
    return share / games, low, high
