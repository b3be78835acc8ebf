"""Command line: ``hint``, ``analyse``, ``review`` and ``selfplay`` (the non-interactive half of the CLI).

    barcelona-ai hint POSITION [--at N] [--time S | --iterations N] [--top K] [--seed N] [--threads T] [--json]
    barcelona-ai analyse POSITION|RECORD [--at N] [--time S | --iterations N] [--seed N] [--json]
    barcelona-ai review RECORD [--time S | --iterations N] [--seed N] [--json]
    barcelona-ai selfplay --games N --players P --out DIR [--bot SPEC] [--seed K] [--workers W] [--resume]
                          [--ray local|auto|ADDRESS]

POSITION is a position file (docs/positions.md), a game record (docs/records.md; the position after its first
N entries with --at N) or the name of a shipped example (``barcelona-ai hint midgame-3p``; see examples.py).

Every user error (unreadable file, malformed JSON, impossible counts, a file that is neither a position nor a
record, a bad --at, a position where nobody decides) raises a BarcelonaError; ``cli.main`` prints it as one
``error: ...`` line on stderr and exits with code 2.

The work is done by library modules: engine.py (hint, analyse), review.py (how a decision is measured and
marked, the thresholds), selfplay.py (bot games written as records). This module parses the arguments, calls
them and prints.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from dataclasses import asdict
from pathlib import Path

from .._version import __version__
from . import args as A
from ..core import CONSTANTS, State
from ..errors import BarcelonaError, SearchInterrupted
from ..rules.jsonio import parse_json, read_bytes, show_path
from ..rules.words import COORDINATES, TO_COME_WORDS, edition_words
from ..search.results import shown_moves
from ..workflows.progress import SearchProgress, bar
from ..workflows.review import MARKS, MIN_VISITS, THRESHOLDS, decides as _decides, review_record, thresholds_line

C = CONSTANTS

TO_COME_LABELS = {"cobblestones": "cobbles", "passengers": "passeng", "modernisme_tiles": "modern",
                  "cerda_scorings": "cerda", "other_play": "play"}
DEFAULT_ITERATIONS = {"hint": 20000, "analyse": 20000, "review": 1000}
AT = A.int_range(0, 10_000, "an entry count")      # --at: a record holds at most 10000 entries (record.py)


class CommandError(BarcelonaError):
    """A command-line input that cannot be used (printed as ``error: ...``, exit code 2)."""


# ---------------------------------------------------------------------------------------------------------------
# arguments

def _add_budget(p: argparse.ArgumentParser, command: str, threads: bool = True) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--time", type=A.search_seconds, metavar="S",
                   help=f"search time in seconds (per decision for review), at most {A.MAX_SECONDS:g} "
                        "(default: an iteration budget, below)")
    g.add_argument("--iterations", type=A.iterations, metavar="N",
                   help=f"ISMCTS iterations (default {DEFAULT_ITERATIONS[command]}"
                        f"{' a decision' if command == 'review' else ''}), at most {A.MAX_ITERATIONS:.0e}")
    p.add_argument("--seed", type=A.seed, default=0, help="engine seed (default 0): same seed, same answer")
    if threads:
        p.add_argument("--threads", type=A.threads, default=1, metavar="T",
                       help=f"root-parallel search trees (1..{A.MAX_THREADS})")
    p.add_argument("--json", action="store_true", help="machine-readable output (KataGo-style payload)")


def _limit(args: argparse.Namespace):
    from ..search.engine import Limit
    if args.time is not None:
        if not 0 < args.time <= A.MAX_SECONDS:          # NaN and infinity fail too
            raise CommandError(f"--time must be a number of seconds in (0, {A.MAX_SECONDS:g}], "
                               f"not {args.time:g}")
        return Limit(time=args.time)
    its = args.iterations if args.iterations is not None else DEFAULT_ITERATIONS[args.command]
    if not 1 <= its <= A.MAX_ITERATIONS:
        raise CommandError(f"--iterations must be an integer from 1 to {A.MAX_ITERATIONS}, not {its}")
    return Limit(iterations=its)


def _budget(limit) -> dict:
    return {"iterations": limit.iterations} if limit.iterations is not None else {"time": limit.time}


def _budget_text(limit) -> str:
    if limit.iterations is not None:
        return f"{limit.iterations} ISMCTS iterations"
    return f"{limit.time:g} s of ISMCTS"


def _engine(args: argparse.Namespace):
    from ..search.engine import Engine
    if not 0 <= args.seed <= A.MAX_SEED:
        raise CommandError(f"--seed must be an integer from 0 to 2^64-1, not {args.seed}")
    threads = getattr(args, "threads", 1)
    if not 1 <= threads <= A.MAX_THREADS:
        raise CommandError(f"--threads must be 1..{A.MAX_THREADS}, not {threads}")
    return Engine(seed=args.seed, threads=threads)


# ---------------------------------------------------------------------------------------------------------------
# reading positions and records

def read_document(arg: str, edition=None) -> tuple[str, dict, str]:
    """(kind, document, label) for a command-line argument: a position or record file, or a shipped example's
    name (played on `edition`'s board when one is given). kind is "position" or "record"."""
    from ..workflows.examples import example_text, list_examples
    name = show_path(arg)
    try:
        path = Path(arg)
        exists, is_file = path.exists(), path.is_file()
    except (OSError, ValueError):                   # a name too long for the system, a NUL byte
        exists = is_file = True                     # read_bytes says what is wrong
    if is_file:
        data, label = read_bytes(arg, name, CommandError), arg.encode("utf-8", "backslashreplace").decode()
    elif arg in list_examples():
        data, label = example_text(arg, edition), f"example {arg}"
    elif exists:
        raise CommandError(f"{name}: not a file")
    else:
        raise CommandError(f"{name}: no such file, and not a shipped example "
                           f"({', '.join(list_examples())})")
    doc = parse_json(data, name, CommandError)
    if not isinstance(doc, dict):
        found = "a list" if isinstance(doc, list) else _cut(json.dumps(doc), 40)
        raise CommandError(f"{name}: neither a position nor a game record (expected a JSON object, found "
                           f"{found})")
    fmt = doc.get("format")
    if fmt == "barcelona-position":
        return "position", doc, label
    if fmt == "barcelona-record":
        return "record", doc, label
    found = fmt if isinstance(fmt, (str, int, float, bool, type(None))) else type(fmt).__name__
    raise CommandError(f"{name}: neither a position nor a game record (expected \"format\": "
                       f"\"barcelona-position\" or \"barcelona-record\", found {_cut(json.dumps(found), 40)})")


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."


def load_record(doc: dict, arg: str = "record", edition=None):
    """The record of a document, read under `edition` (--edition; None: the one it names)."""
    from ..rules.record import GameRecord
    return GameRecord.from_json(doc, edition)


def record_state(rec, at: int | None, seed: int = 0, any_point: bool = False) -> tuple[State, int]:
    """The state after `at` entries of a record (default: the end, or the last state where someone decides).
    A state where nobody decides (chance outcome next, game over) is an error naming the nearest ones, unless
    `any_point` (analyse evaluates those too)."""
    n = len(rec.actions)
    if at is not None and not 0 <= at <= n:
        raise CommandError(f"--at {at}: the record has {n} entries (use 0..{n})")
    if at is not None and any_point:
        return rec.replay(at, seed).clone(), at
    chosen, prev, nxt = None, None, None
    for i, s, _ in rec.steps(seed):
        d = _decides(s)
        if at is None:
            if d:
                chosen = (s.clone(), i)
        elif i == at:
            if d:
                return s.clone(), i
            chosen = (s.clone(), i)
        elif d and i < at:
            prev = i
        elif d and i > at:
            nxt = i
            break
    if chosen is None:
        raise CommandError("the record holds no position where a player decides")
    if at is None:
        return chosen
    st = chosen[0]
    why = "the game is over" if st.is_terminal() else \
        f"a chance outcome is next ({', '.join(st.action_to_string(a) for a, _ in st.chance_outcomes()[:4])} ...)"
    near = " or ".join(f"--at {x}" for x in (prev, nxt) if x is not None)
    raise CommandError(f"--at {at}: {why} there and nobody decides"
                       + (f"; the nearest positions where a player decides: {near}" if near else ""))


def load_state(arg: str, at: int | None = None, seed: int = 0, edition=None) -> tuple[State, str, int | None]:
    """(state, label, entries replayed or None) from a command-line argument (position, record, example)."""
    s, label, i, _ = load_point(arg, at, seed, edition=edition)
    return s, label, i


def load_point(arg: str, at: int | None = None, seed: int = 0, any_point: bool = False,
               end_by_default: bool = False, edition=None) -> tuple[State, str, int | None, int | None]:
    """(state, label, entries replayed or None, viewpoint) from a command-line argument (position, record,
    example); the viewpoint is the seat a table-mode record or a viewpoint position was kept by (None: every
    hand is known). With `any_point`, --at N may be a chance point or the end of the game; with
    `end_by_default`, a record without --at gives its end. `edition` (--edition) is the board the document
    must have been written under (None: the one it names)."""
    kind, doc, label = read_document(arg, edition)
    if kind == "position":
        if at is not None:
            raise CommandError("--at applies to a game record, and this is a position")
        return State.from_json(doc, seed=seed, edition=edition), label, None, doc.get("viewpoint")
    rec = load_record(doc, arg, edition)
    if at is None and end_by_default:
        at = len(rec.actions)
    s, i = record_state(rec, at, seed, any_point)
    label = f"{label} after {i} of {len(rec.actions)} entries"
    decider = None if s.is_chance_node() or s.is_terminal() else s.current_player()
    if rec.viewpoint is not None and decider is not None and decider != rec.viewpoint:
        label += (f" (a table-mode record kept by player {rec.viewpoint}: player {decider}'s hand "
                  "is a sample)")
    return s, label, i, rec.viewpoint


def _need_decision(s: State, what: str) -> None:
    if s.is_terminal():
        raise CommandError(f"the game is over in this position: {what} needs a position where a player decides")
    if s.is_chance_node():
        outs = ", ".join(s.action_to_string(a) for a, _ in s.chance_outcomes()[:6])
        raise CommandError(f"a chance outcome is next in this position ({outs} ...): {what} needs a position "
                           "where a player decides")


# ---------------------------------------------------------------------------------------------------------------
# output helpers

def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _compact(win: list[float], score: list[float]) -> str:
    return " | ".join(f"P{q} {_pct(w)} {sc:.1f}" for q, (w, sc) in enumerate(zip(win, score)))


def _header(s: State, label: str, engine=None) -> str:
    """The position's first line; below it, where the engine's numbers are not its learned models' on this
    board, the sentence that says so (Engine.evaluation_note)."""
    scores = ", ".join(f"P{q} {v}" for q, v in enumerate(s.scores()))
    head = (f"{label}: {s.num_players} players, {edition_words(s)}, player {s.current_player()} to move; "
            f"VP now: {scores}")
    note = engine.evaluation_note(s) if engine is not None else None
    return head + ("\n" + textwrap.fill(note, 110) if note else "")


def _payload(args, limit, s: State, iterations: int | None, moves: list[dict], players: list[dict],
             **extra) -> dict:
    doc = {"engine": f"barcelona_ai {__version__}", "seed": args.seed, "budget": _budget(limit),
           "iterations": iterations,
           "to_move": None if s.is_chance_node() or s.is_terminal() else s.current_player(), "moves": moves,
           "players": players}
    doc.update(extra)
    return doc


def _print_players(a) -> None:
    groups = list(a.players[0].to_come) if a.players else []
    short = [TO_COME_LABELS.get(g, g) for g in groups]
    print("                                        VP still to come")
    print("player     win   expected VP    now   " + " ".join(f"{x:>7}" for x in short))
    for p in a.players:
        come = " ".join(f"{p.to_come[g]:7.1f}" for g in groups)
        mark = "*" if p.player == a.player else " "
        print(f"{mark}P{p.player}    {_pct(p.win_prob):>6}  {p.expected_score:5.1f} ± {p.score_stdev:4.1f}  "
              f"{p.current_score:5d}   {come}")


# ---------------------------------------------------------------------------------------------------------------
# hint

def cmd_hint(args: argparse.Namespace) -> int:
    s, label, at = load_state(args.position, args.at, args.seed, args.edition)
    _need_decision(s, "hint")
    if args.top < 1:
        raise CommandError(f"--top must be a positive integer, not {args.top}")
    limit, engine = _limit(args), _engine(args)
    me = s.current_player()
    plans, interrupted, secs = _searched(engine, limit, "hint", lambda: engine.hints(s, limit, top=args.top), list)
    if args.json:
        a = None
        if not interrupted:                     # same seed and budget: the root statistics of the same search
            a, interrupted, _ = _searched(engine, limit, "hint", lambda: engine.analyse(s, limit), object)
        doc = _payload(args, limit, s, a.iterations if a else None,
                       [m.to_dict() for m in plans], [asdict(p) for p in a.players] if a else [], position=label,
                       at=at, kind="hint", evaluation_note=engine.evaluation_note(s))
        return _print_json(doc, interrupted)
    print(_header(s, label, engine))
    if interrupted:
        print(INTERRUPTED)
    print(f"Turn plans for player {me} ({_budget_text(limit)}, seed {args.seed}, {secs:.1f} s):")
    print(textwrap.fill("(each with your win probability and expected final VP if you play it, best first; why: "
                        f"what the plan does by the rules; {COORDINATES})", 110))
    for i, m in enumerate(plans, 1):
        print(f"{i:2d}. {' ; '.join(m.moves)}")
        print(f"    win {_pct(m.win_prob[me])}, expected final VP {m.expected_score[me]:.1f} "
              f"(searched {m.visits} times)   [all: {_compact(m.win_prob, m.expected_score)}]")
        if m.reason:
            print(f"    why: {m.reason}")
        if m.main_line:
            print(f"    then: {' / '.join(m.main_line[:6])}")
    return 130 if interrupted else 0


INTERRUPTED = "Search interrupted (Ctrl-C): the answer below is from the search done until then."


def _searched(engine, limit, label: str, call, kind):
    """call() under a progress bar: (its answer, whether Ctrl-C interrupted it, seconds). On Ctrl-C the answer
    is the one of the search so far (the command then exits with 130)."""
    t0 = time.perf_counter()
    try:
        with SearchProgress(engine, limit, label):
            return call(), False, time.perf_counter() - t0
    except SearchInterrupted as exc:
        return _partial(exc, kind), True, time.perf_counter() - t0


def _print_json(doc: dict, interrupted: bool) -> int:
    """Print a command's JSON answer (marked as interrupted, with a note on stderr, after Ctrl-C); the exit code."""
    if interrupted:
        doc["interrupted"] = True
        print(INTERRUPTED, file=sys.stderr)
    print(json.dumps(doc, indent=1))
    return 130 if interrupted else 0


def _partial(exc: SearchInterrupted, kind):
    """The partial answer an interrupted search carries; with none, the command ends as interrupted (130)."""
    result = getattr(exc, "result", None)
    if result is None or (kind is list and not isinstance(result, list)):
        raise KeyboardInterrupt from None
    return result


# ---------------------------------------------------------------------------------------------------------------
# analyse

def cmd_analyse(args: argparse.Namespace) -> int:
    s, label, at, viewpoint = load_point(args.position, args.at, args.seed, any_point=True, edition=args.edition)
    limit, engine = _limit(args), _engine(args)
    if s.is_chance_node() or s.is_terminal():
        return _analyse_standing(args, limit, engine, s, label, at, viewpoint)
    a, interrupted, secs = _searched(engine, limit, "analyse", lambda: engine.analyse(s, limit, top=args.top), object)
    if args.json:
        doc = _payload(args, limit, s, a.iterations, [m.to_dict() for m in a.moves],
                       [asdict(p) for p in a.players], position=label, at=at, kind="analysis",
                       nodes=a.nodes, search_seed=a.seed, evaluation_note=engine.evaluation_note(s))
        return _print_json(doc, interrupted)
    me = a.player
    print(_header(s, label, engine))
    if interrupted:
        print(INTERRUPTED)
    print(f"Analysis for player {me} to move: {a.iterations} iterations, {a.nodes} nodes, seed {args.seed}, "
          f"{secs:.1f} s")
    print("(win probability, expected final VP ± spread, VP now, expected VP still to come by group; "
          "* = to move)")
    _print_players(a)
    print(_lead_line(a))
    if s.num_players == 2:
        print(SEAT_NOTE)
    print(textwrap.fill(f"Best moves (best first, by the win probability if played; {COORDINATES}):", 110))
    for i, m in enumerate(shown_moves(a.moves, me, args.top), 1):
        print(f"{i:2d}. {' ; '.join(m.moves):32s} win {_pct(m.win_prob[me]):>6}  "
              f"expected {m.expected_score[me]:5.1f} VP  (searched {m.visits})   "
              f"[all: {_compact(m.win_prob, m.expected_score)}]")
        if m.reason:
            print(f"    why: {m.reason}")
        if m.main_line:
            print(f"    then: {' / '.join(m.main_line[:6])}")
    return 130 if interrupted else 0


# Measured (docs/measurements/strength.md, "Seats"): the win probabilities count it, the expected VP do not.
SEAT_NOTE = ("In 2 players the second seat wins about two games in three between engines (it plays the last "
             "turn, knowing the first player's last move): the win probabilities count that, the VP do not.")


def _lead_line(a) -> str:
    """Where the lead comes from: the leader by expected final VP against the next, split into the VP on the
    board now and the VP still to come by group."""
    ranked = sorted(a.players, key=lambda p: -p.expected_score)
    if len(ranked) < 2:
        return ""
    lead, next_ = ranked[0], ranked[1]
    now = lead.current_score - next_.current_score
    come = {g: lead.to_come[g] - next_.to_come[g] for g in lead.to_come}
    parts = ", ".join(f"{TO_COME_WORDS.get(g, g)} {v:+.1f}" for g, v in sorted(come.items(), key=lambda x: -abs(x[1]))
                      if abs(v) >= 0.05)
    return (f"P{lead.player} leads P{next_.player} by {lead.expected_score - next_.expected_score:.1f} expected "
            f"final VP: {now:+d} on the board now, {sum(come.values()):+.1f} still to come"
            + (f" ({parts})" if parts else ""))


def _analyse_standing(args, limit, engine, s: State, label: str, at: int | None, viewpoint: int | None) -> int:
    """analyse at a point where nobody decides: at a chance point the evaluation averaged over the outcome due
    (and, in a table-mode record, over the hands its keeper did not see); at the end, the result."""
    from ..workflows.standing import evaluate, standing_lines
    with SearchProgress(engine, limit, "analyse"):
        st = evaluate(s, engine, limit, viewpoint=viewpoint, seed=args.seed)
    if args.json:
        doc = _payload(args, limit, s, st.iterations, [], [vars(p) for p in st.players], position=label, at=at,
                       kind="final" if st.kind == "final" else "chance", samples=st.samples, viewpoint=viewpoint)
        print(json.dumps(doc, indent=1))
        return 0
    scores = ", ".join(f"P{q} {v}" for q, v in enumerate(s.scores()))
    what = "the game is over" if s.is_terminal() else \
        f"a chance outcome is next ({', '.join(s.action_to_string(a) for a, _ in s.chance_outcomes()[:4])} ...)"
    print(f"{label}: {s.num_players} players, {what}; VP now: {scores}")
    for line in standing_lines(st):
        print(line)
    return 0


# ---------------------------------------------------------------------------------------------------------------
# show

def cmd_show(args: argparse.Namespace) -> int:
    """The board of a position, or of a record after its first N entries (any point: a chance outcome next or
    the game over too). The hands a table-mode record's keeper or a viewpoint position's seat did not see are
    shown as their sizes (A6)."""
    from .play import mask_hands
    s, label, at, viewpoint = load_point(args.position, args.at, 0, any_point=True, end_by_default=True,
                                         edition=args.edition)
    print(f"{label}: {s.num_players} players, {edition_words(s)}")
    print(mask_hands(s.render(), s, viewpoint).rstrip())
    return 0


# ---------------------------------------------------------------------------------------------------------------
# review

def cmd_review(args: argparse.Namespace) -> int:
    from ..workflows import review as RV
    kind, doc, label = read_document(args.record, args.edition)
    if kind != "record":
        raise CommandError(f"{args.record}: review needs a game record, and this is a position "
                           "(use analyse or hint)")
    rec = load_record(doc, args.record, args.edition)
    limit = _limit(args)
    _engine(args)                            # checks --seed and --threads
    note = RV.evaluation_note(rec, args.seed)
    with bar(len(rec.actions), "review", unit="entry") as tick:
        def progress(k, i, n):
            tick(i + 1 - progress.done, decisions=k)
            progress.done = i + 1
        progress.done = 0
        r = review_record(rec, limit, seed=args.seed, threads=args.threads, progress=progress)
    if args.json:
        out = {"engine": f"barcelona_ai {__version__}", "seed": args.seed, "budget": _budget(limit),
               "record": label, "players": rec.players, "viewpoint": rec.viewpoint, "entries": len(rec.actions),
               "thresholds": dict(THRESHOLDS), "vp_thresholds": dict(RV.VP_BOUNDS), "noise_z": RV.NOISE_Z,
               "min_visits": MIN_VISITS, "root_share": RV.ROOT_SHARE,
               "accuracy_half": {"win_prob": RV.WIN_HALF, "vp": RV.VP_HALF}, "how": _review_how(),
               "evaluation_note": note, **r.to_dict()}
        print(json.dumps(out, indent=1))
        return 0
    _print_review(rec, label, limit, args.seed, r, note)
    return 0


def _review_how() -> list[str]:
    """How review marks a decision, in words (the human output's header, the JSON's "how")."""
    from ..workflows import review as RV
    return [RV.thresholds_line(), RV.noise_line(), RV.accuracy_line()]


def _points(x: float) -> str:
    """A probability as percentage points, without the sign (a column headed with %)."""
    return f"{100 * x:.1f}"


def _review_seats_line(rec, r) -> str:
    """Which seats were reviewed, and why some decisions were left out."""
    reviewed = [f"P{n.player}" for n in r.seats if n.reviewed]
    head = f"Seats reviewed: {', '.join(reviewed) if reviewed else 'none'}"
    if rec.viewpoint is not None:
        head += (f" (the record was kept from P{rec.viewpoint}'s seat; the others' citizens are known where their "
                 "placements show them)")
    notes = [f"P{n.player}: {n.why}" for n in r.seats if n.why]
    return "; ".join([head] + notes)


def _print_review(rec, label: str, limit, seed: int, r, note: str | None = None) -> None:
    print(f"Review of {label}: {rec.players} players, {len(rec.actions)} entries; decisions with a choice "
          f"reviewed: {len(r.decisions)}")
    if note:
        print(textwrap.fill(note, 110))
    print(f"Engine: barcelona_ai {__version__}, {_budget_text(limit)} a decision, seed {seed} "
          f"({r.seconds:.1f} s)")
    print(_review_seats_line(rec, r))
    for text in _review_how():
        print(text)
    print("win % lost, VP lost: the engine's move minus the move played, for the player deciding (chance to win, "
          "expected final score), with the noise each must exceed to count")
    print()
    w = max([len("played"), len("engine's move")] +
            [max(len(d.played), len(d.engine_move)) for d in r.decisions])
    print(f"{'#':>5}  {'player':6}  {'played':{w}}  {'engine' + chr(39) + 's move':{w}}  {'win % lost':>12}  "
          f"{'VP lost':>13}  mark")
    for d in r.decisions:
        same = d.played_id == d.engine_id
        engine = "(the same)" if same else d.engine_move
        win = "" if same else f"{_points(d.loss)} ±{_points(d.win_prob_noise)}"
        vp = "" if same else f"{d.vp_loss:.1f} ±{d.vp_noise:.1f}"
        print(f"{d.index:5d}  P{d.player:<5}  {d.played:{w}}  {engine:{w}}  {win:>12}  {vp:>13}  {d.mark}")
    print()
    _print_swings(r)
    print("Summary:")
    print(f"{'player':6}  {'decisions':>9}  " + "  ".join(f"{m:>10}" for m in MARKS) +
          "  win % lost  VP lost  accuracy")
    for row in r.summary:
        print(f"P{row.player:<5}  {row.decisions:9d}  " + "  ".join(f"{row.marks[m]:10d}" for m in MARKS)
              + f"  {_points(row.mean_loss):>10}  {row.mean_vp_loss:7.1f}  {row.accuracy:8.0f}")
    print("(win % lost and VP lost: means over the player's decisions; accuracy 0-100 as defined above)")
    if rec.result:
        print(f"Result: scores {' '.join(str(x) for x in rec.result.get('scores', []))}")


def _print_swings(r) -> None:
    """The biggest losses of the game, each with the engine's line from there."""
    swings = r.swing_decisions()
    if not swings:
        print("Biggest swings: none (no decision lost more than the noise allows beyond good)")
        print()
        return
    print(f"Biggest swings ({len(swings)}: the decisions that lost the most beyond the noise):")
    for d in swings:
        print(f"  entry {d.index}, P{d.player} (round {d.round}) played {d.played}: {d.mark}, lost "
              f"{d.vp_loss:.1f} VP and {_points(d.loss)}% chance to win")
        print(f"      the engine's line: {' ; '.join(d.engine_line)}")
    print()


# ---------------------------------------------------------------------------------------------------------------
# selfplay

def cmd_selfplay(args: argparse.Namespace) -> int:
    from ..workflows.selfplay import run_selfplay
    specs = _selfplay_specs(args)
    if args.resume and args.force:
        raise CommandError("--resume and --force do not go together (--force rewrites from game-0001.json)")
    out = Path(args.out)
    written: list[int] = []
    with ray_session(args):                             # a bad --ray fails here, before anything is written
        try:
            out.mkdir(parents=True, exist_ok=True)
        except (OSError, ValueError) as exc:
            raise CommandError(f"--out {show_path(args.out)}: cannot create the folder "
                               f"({getattr(exc, 'strerror', None) or exc})") from None
        print(f"selfplay: {_plural(args.games, 'game')}, {args.players} players, seats {', '.join(specs)}; "
              f"setups new_game({args.players}, seed={args.seed}..{args.seed + args.games - 1}); records in {out}"
              + (f"; on Ray ({args.ray})" if args.ray else ""))

        def report(g, game, path):
            written.append(g)
            print(f"{path.name}: seed {game.setup_seed}, scores {' '.join(str(x) for x in game.scores)}, "
                  f"winner {' and '.join(f'P{p}' for p in game.winners)}; {game.decisions} decisions, "
                  f"{game.seconds:.1f} s", flush=True)

        try:
            run = run_selfplay(specs, args.games, args.seed, out, setup=args.setup, workers=args.workers,
                               on_game=report, force=args.force, progress=True, ray=args.ray,
                               resume=args.resume, edition=args.edition or "default",
                               on_start=lambda p, r, res: say_run_start(out, p, len(r.kept), res, args.resume,
                                                                         damaged=len(r.damaged)))
        except BrokenPipeError:                         # the reader of the output went away (_pipe_safe)
            raise
        except OSError as exc:                          # a record that cannot be written (selfplay.write_game)
            raise CommandError(f"--out: cannot write {show_path(exc.filename)} ({exc.strerror or exc})") from None
        except KeyboardInterrupt:
            print(f"selfplay: {_plural(len(written), 'record')} written; the same command with --resume plays "
                  "the rest", file=sys.stderr)
            raise
    kept = f" ({len(run.kept)} already there)" if run.kept else ""
    print(f"{_plural(len(run.games), 'record')} written to {out}{kept} in {run.seconds:.1f} s")
    return 0


def ray_session(args: argparse.Namespace):
    """The Ray session of a command given --ray (distributed.session; ``local`` with --workers CPUs), else a
    context that does nothing. Ray is imported only here, and only with --ray."""
    if getattr(args, "ray", None) is None:
        from contextlib import nullcontext
        return nullcontext()
    from ..workflows.distributed import session
    return session(args.ray, args.workers)


def say_run_start(out: Path, paths: list[Path], kept: int, resumed: bool, resume: bool, force: bool = True,
                  file=None, damaged: int = 0) -> None:
    """Say where a run's records (selfplay, arena --save) go, on `file` (stdout by default): a resumed run's files
    (`kept` of them there already and checked, `damaged` set aside), or numbers going on after existing records
    (`force`: the command has --force)."""
    if resumed:
        aside = (f" ({_plural(damaged, 'damaged record')} set aside as *.damaged, played again)"
                 if damaged else "")
        print(f"resuming the run of {out}: {paths[0].name} .. {paths[-1].name}, "
              f"{kept} already there{aside}, {_plural(len(paths) - kept, 'game')} to play", file=file)
        return
    if resume:
        print(f"--resume: {out} holds no earlier run of these games; starting it", file=file)
    if paths[0].name != "game-0001.json":
        rewrite = " (--force rewrites from game-0001.json)" if force else ""
        print(f"{out} already holds records up to game-{int(paths[0].stem[5:]) - 1:04d}.json: the new ones start "
              f"at {paths[0].name}{rewrite}", file=file)


def _selfplay_specs(args: argparse.Namespace) -> list[str]:
    """The checked arguments of selfplay: the bot spec of every seat."""
    from ..search.bots import make_bot
    from ..core import new_game
    if not 1 <= args.games <= A.MAX_GAMES:
        raise CommandError(f"--games must be 1..{A.MAX_GAMES}, not {args.games}")
    if not 0 <= args.seed <= A.MAX_SEED - A.MAX_GAMES:
        raise CommandError(f"--seed must be 0..2^64-1-{A.MAX_GAMES}, not {args.seed}")
    if not 1 <= args.workers <= A.MAX_WORKERS:
        raise CommandError(f"--workers must be 1..{A.MAX_WORKERS}, not {args.workers}")
    new_game(args.players, seed=0)                      # PlayerCountError for a bad --players
    specs = args.bot or ["ismcts:300"]
    if len(specs) == 1:
        specs = specs * args.players
    elif len(specs) != args.players:
        raise CommandError(f"give one --bot for every seat, or one for all: {len(specs)} for {args.players} "
                           "players")
    for spec in specs:
        try:
            make_bot(spec)                              # an unknown bot fails before any game starts
        except BarcelonaError as exc:
            raise CommandError(f"{exc} (--bot)") from None
    return specs


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---------------------------------------------------------------------------------------------------------------

def _pipe_safe(cmd):
    """Output piped into `head` and the like: stop quietly when the reader goes away."""
    def run(args: argparse.Namespace) -> int:
        try:
            return cmd(args)
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
    run.__name__, run.__doc__ = cmd.__name__, cmd.__doc__
    return run


def register(sub) -> None:
    """Add hint, analyse, show, review and selfplay to the barcelona-ai parser."""
    h = sub.add_parser("hint", help="the engine's best turn plans for the player to move",
                       description="The engine's top turn plans for the player to move in a position: visits, "
                                   "win probability, expected final VP, main line.")
    h.add_argument("position", metavar="POSITION",
                   help="position or record file (.json), or a shipped example: " + ", ".join(_examples()))
    h.add_argument("--at", type=AT, metavar="N",
                   help="for a record: the position after its first N entries (default: the last position where "
                        "someone decides)")
    h.add_argument("--top", type=A.top, default=3, metavar="K", help=f"how many turn plans (default 3, at most "
                                                                       f"{A.MAX_TOP})")
    _add_budget(h, "hint")
    A.add_edition_option(h, reads=True)
    h.set_defaults(func=_pipe_safe(cmd_hint), command="hint")

    a = sub.add_parser("analyse", aliases=["analyze"], help="who is ahead: win probabilities, expected scores, "
                                                              "best moves",
                       description="Per player win probability, expected final VP ± spread, VP now and VP "
                                   "still to come by group; then the best moves with their main lines.")
    a.add_argument("position", metavar="POSITION|RECORD",
                   help="position or record file (.json), or a shipped example")
    a.add_argument("--at", type=AT, metavar="N",
                   help="for a record: the position after its first N entries (default: the end, or the last "
                        "position where someone decides)")
    a.add_argument("--top", type=A.top, default=5, metavar="K", help=f"how many moves (default 5, at most "
                                                                     f"{A.MAX_TOP})")
    _add_budget(a, "analyse")
    A.add_edition_option(a, reads=True)
    a.set_defaults(func=_pipe_safe(cmd_analyse), command="analyse")

    w = sub.add_parser("show", help="the board of a position, or of a record after N entries",
                       description="Prints the board of a position file, a shipped example, or a game record "
                                   "after its first N entries (--at N; default: the end).")
    w.add_argument("position", metavar="POSITION|RECORD",
                   help="position or record file (.json), or a shipped example")
    w.add_argument("--at", type=AT, metavar="N",
                   help="for a record: the board after its first N entries (default: the end)")
    A.add_edition_option(w, reads=True)
    w.set_defaults(func=_pipe_safe(cmd_show), command="show")

    r = sub.add_parser("review", help="mark every decision of a recorded game against the engine's choice",
                       description="Replays a game record and marks each decision of every seat by the win "
                                   "probability and the expected final VP it lost against the engine's choice, "
                                   "beyond the noise of the estimates. "
                                   + " ".join(x if x.endswith(".") else x + "." for x in _review_how()))
    r.add_argument("record", metavar="RECORD", help="game record file (.json)")
    _add_budget(r, "review")
    A.add_edition_option(r, reads=True)
    r.set_defaults(func=_pipe_safe(cmd_review), command="review")

    s = sub.add_parser("selfplay", help="bots play each other; one game record per game",
                       description="Plays N games between bots from seeded setups and writes one game record "
                                   "per game (DIR/game-0001.json, ...).")
    s.add_argument("--games", type=A.games, default=1, metavar="N", help=f"1..{A.MAX_GAMES}")
    s.add_argument("--players", type=A.players, default=2, metavar="P", help="2..4")
    s.add_argument("--out", required=True, metavar="DIR", help="folder for the records (created if missing)")
    s.add_argument("--bot", action="append", metavar="SPEC",
                   help="random, greedy, flatmc:N, ismcts:N or ismcts:Ns (default ismcts:300); repeat it to "
                        "give each seat its own")
    s.add_argument("--seed", type=A.seed, default=0, metavar="K", help="game g uses setup seed K+g-1")
    s.add_argument("--setup", choices=("random", "printed"), default="random",
                   help="shuffled (R11) or printed action tiles")
    s.add_argument("--workers", type=A.workers, default=1, metavar="W", help="parallel processes")
    s.add_argument("--force", action="store_true",
                   help="write game-0001.json ... even over existing records (default: never overwrite; the "
                        "numbers go on after the records in DIR)")
    s.add_argument("--resume", action="store_true",
                   help="finish an interrupted run: if DIR holds this run (same games, bots, seed, setup; noted "
                        "in DIR/runs.jsonl), play only its games whose records are missing")
    add_ray_option(s, "the games")
    A.add_edition_option(s)
    s.set_defaults(func=_pipe_safe(cmd_selfplay), command="selfplay")


def add_ray_option(parser, what: str) -> None:
    """--ray of selfplay, arena and generate (distributed.py)."""
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help=f"run {what} as Ray tasks (needs the [ray] extra): 'local' starts Ray here with "
                             "--workers CPUs, 'auto' joins the cluster of this machine (ray start --head), or "
                             "HOST:PORT / ray://HOST:PORT of its head; the results are the same (default: local "
                             "processes)")


def _examples() -> list[str]:
    try:
        from ..workflows.examples import list_examples
        return list_examples()
    except Exception:           # the parser must build even without the data files
        return []


__all__ = ["register", "ray_session", "add_ray_option", "read_document", "load_state", "record_state",
           "review_record", "thresholds_line", "THRESHOLDS", "MARKS"]

