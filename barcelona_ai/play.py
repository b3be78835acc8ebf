"""``barcelona-ai play`` (a game in the terminal against the engine) and ``barcelona-ai table`` (a game played
on a real table, entered move by move from one player's point of view).

play
    The human plays ``--seat N``; the engine (ISMCTS, ``--time`` seconds or ``--iterations`` a decision) plays
    every other seat. Chance (citizen draws, Modernisme reveals) is sampled from ``--seed``: the setup and every
    chance outcome depend only on the seed and on the position in the game record, so the same seed and the same
    answers give the same game (with ``--iterations``; a time budget makes the engine's choices vary). Before
    each decision with a choice the legal moves are listed with numbers and in notation; the human types a
    number or the notation. The other players' hands are not shown (rules A6). Without ``--seed`` the seed is
    drawn in secret (it would tell every hand and every future draw) and shown as a replay key when the game is
    over; ``save FILE`` before the end writes the game as the human saw it, the engine's citizens hidden, and
    ``--load`` of such a file draws them again from the citizens the human has not seen.
table
    A game at a real table: the human types every decision of every player, their own draws (``draw M``) and
    the Modernisme reveals (``reveal SC05``), all from ``--seat N``'s point of view. The other players' draws
    are not seen: a draw is sampled from the unseen citizens for the engine and corrected when that player
    places citizens (``place (1,2) W/M`` names both citizens). ``?`` asks the engine for hints on the human's
    own turn; the engine never reads a hidden hand (it resamples them).

The game itself (the record, undo, save, the seeded chance, reading the table's entries) is a
session.Session; this module is the terminal around it: prompts, printing, the thinking indicator.

Commands at every prompt: a choice number or notation, ``?``/``hint``, ``undo``, ``board``, ``show N``,
``moves``, ``save FILE``, ``help``, ``quit``. A bad entry prints why and asks again.

Exit codes: 0 when the game ended or the user typed ``quit``; 1 when the input ended (EOF) before the game was
over (the game is left as it was: save it first with ``save FILE`` to continue it with ``--load``); 2 for bad
arguments (an unknown seat, an unreadable record or position).
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import threading
import time

from . import cli_args as A
from .core import CONSTANTS as C
from .core import State
from .errors import AmbiguousMoveError, BarcelonaError, IllegalActionError, InvalidMoveError
from .record import InvalidRecordError, is_draw_for_other
from .render import render_player
from .session import (CLASSES, Session, draw_entry, other_placement, own_draw, play_session, reveal_action,
                      table_session)
from .session import hand_size as _hand_size

HELP = """Commands (at any prompt):
  1..N          play the numbered choice
  notation      type the move, e.g. 'place (1,2) W/M', 'gain 2 coins', 'end actions', 'wide H(1,2)'
  ? or hint     the engine's 3 best turn plans for you (win probability, expected final VP)
  undo          take back your last decision (and everything played after it)
  board         the whole table
  show N        player N's board ('show' alone: yours)
  moves         list the choices again
  save FILE     write the game record (JSON) to FILE
  help          this list
  quit          stop here (save first to continue later with --load)"""

TABLE_HELP = HELP.replace(
    "  undo          take back your last decision (and everything played after it)",
    "  undo          take back the last entry you typed").replace(
    "  notation      type the move, e.g. 'place (1,2) W/M', 'gain 2 coins', 'end actions', 'wide H(1,2)'",
    "  notation      type the move, e.g. 'place (1,2) W/M', 'gain 2 coins', 'end actions', 'wide H(1,2)'\n"
    "                your draws: 'draw W' / 'draw M' / 'draw U'; reveals: 'reveal SC05'").replace(
    "the engine's 3 best turn plans for you", "on your turn: the engine's 3 best turn plans")


class _Stop(Exception):
    """Leave the game loop with an exit code."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class _Undo(Exception):
    """The user asked to take back their last decision."""


# ---------------------------------------------------------------------------------------------------------------
# progress indicator

class Spinner:
    """'thinking |' with the seconds spent, redrawn on one line of `stream` (stderr) while the engine searches.
    Only when the stream is a terminal: piped output gets nothing, so it cannot garble a transcript."""

    FRAMES = "|/-\\"

    def __init__(self, label: str = "thinking", stream=None, interval: float = 0.1):
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.interval = interval
        isatty = getattr(self.stream, "isatty", None)
        self.active = bool(isatty and isatty())
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0

    def _run(self) -> None:
        start = time.monotonic()
        i = 0
        while True:
            text = f"\r{self.label} {self.FRAMES[i % len(self.FRAMES)]} {time.monotonic() - start:4.1f} s"
            self._width = max(self._width, len(text))
            self.stream.write(text)
            self.stream.flush()
            i += 1
            if self._stop.wait(self.interval):
                break

    def __enter__(self) -> "Spinner":
        if self.active:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()


# ---------------------------------------------------------------------------------------------------------------
# text helpers

def columns(items: list[str], width: int | None = None) -> str:
    """Numbered items '  1) text' in as many columns as fit, numbered down the columns (like ls)."""
    if width is None:
        width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 120))
    n = len(items)
    num_w = len(str(n))
    cells = [f"{i + 1:>{num_w}}) {t}" for i, t in enumerate(items)]
    cell_w = max(len(c) for c in cells) + 3
    ncol = max(1, min(n, (width - 2) // cell_w))
    if n <= 8:
        ncol = 1
    nrow = -(-n // ncol)
    lines = []
    for r in range(nrow):
        row = [cells[c * nrow + r] for c in range(ncol) if c * nrow + r < n]
        lines.append("  " + "".join(x.ljust(cell_w) for x in row).rstrip())
    return "\n".join(lines)


def mask_hands(text: str, state: State, viewer: int | None) -> str:
    """Replace the hand line of every player but `viewer` in a rendering by its size (rules A6)."""
    if viewer is None:
        return text
    out = []
    who = None
    for line in text.split("\n"):
        m = re.match(r"^-- Player (\d+)", line)
        if m:
            who = int(m.group(1))
        if who is not None and who != viewer and line.startswith(" hand: "):
            tail = re.search(r"(\s+turns played \d+)$", line)
            line = f" hand: {_hand_size(state, who)} hidden" + (tail.group(1) if tail else "")
        out.append(line)
    return "\n".join(out)


def _status_tail(state: State) -> str:
    """The last lines of the rendering: whose decision it is and what kind."""
    return state.render().rstrip().rsplit("\n\n", 1)[-1]


def _round(state: State) -> int:
    return state.round_number


def _limit_text(limit) -> str:
    return f"{limit.iterations} iterations" if limit.iterations else f"{limit.time:g} s"


# ---------------------------------------------------------------------------------------------------------------
# reading the user

class Console:
    """Prompts on stdout, answers from stdin. When stdin is not a terminal the answer is echoed, so a scripted
    run reads like a typed one."""

    def __init__(self):
        self.echo = not sys.stdin.isatty()

    def ask(self, prompt: str) -> str:
        try:
            text = input(prompt)
        except EOFError:
            print()
            raise _Stop(1) from None
        if self.echo:
            print(text)
        return text.strip()


def _show(sess: Session, text: str) -> None:
    print(mask_hands(text, sess.state, sess.viewer()))


def print_board(sess: Session) -> None:
    _show(sess, sess.state.render())


def print_compact(sess: Session) -> None:
    s = sess.state
    view = s.view(viewpoint=sess.seat)
    parts = [f"{sess.name(pl.seat)} {pl.score} VP ({pl.coins} coins, {pl.cloth} cloth)" for pl in view.players]
    print("Scores: " + " | ".join(parts))
    hand = view.players[sess.seat].hand or (0, 0, 0)
    mine = " ".join(CLASSES[k] for k in range(3) for _ in range(hand[k])) or "empty"
    print(f"Your hand: {mine}")
    print(_status_tail(s))


def hints(sess: Session) -> None:
    s = sess.state
    if s.is_chance_node() or s.is_terminal() or s.current_player() != sess.seat:
        print(f"  Hints are for your own decisions ({sess.name(sess.seat)}); it is not your turn.")
        return
    me = sess.seat
    with Spinner("thinking"):
        plans = sess.engine.hints(s, sess.limit, top=3)
    print(f"  Hints for {sess.name(me)} ({_limit_text(sess.limit)}):")
    for i, h in enumerate(plans, 1):
        print(f"  {i}. {' ; '.join(h.moves)}")
        print(f"     win {h.win_prob[me]:.0%}, expected final VP {h.expected_score[me]:.0f} (visits {h.visits})")


def show_player(sess: Session, arg: str) -> None:
    n = sess.state.num_players
    if not arg:
        p = sess.seat
    else:
        m = re.fullmatch(r"p?(\d+)", arg.strip(), re.I)
        if not m or not 0 <= int(m.group(1)) < n:
            print(f"  No player {arg!r}: players are 0..{n - 1}.")
            return
        p = int(m.group(1))
    _show(sess, render_player(sess.state, p))


def ask_loop(sess: Session, con: Console, prompt: str, labels: list[str] | None, parse, help_text: str,
             redraw=None, no_numbers: str = "Numbers are not listed here: type the move in notation (help lists "
                                           "the commands)."):
    """Ask until `parse` accepts an answer. Numbers pick from `labels`; commands are handled here.
    `parse(text)` returns the answer or raises BarcelonaError (its message is shown and the question repeats)."""
    while True:
        text = con.ask(prompt)
        low = text.lower()
        if not text:
            continue
        if low in ("?", "hint", "hints"):
            hints(sess)
            continue
        if low == "undo":
            raise _Undo()
        if low in ("board", "table"):
            print_board(sess)
            continue
        if low == "show" or low.startswith("show "):
            show_player(sess, text[4:].strip())
            continue
        if low in ("moves", "list", "choices"):
            if redraw:
                redraw()
            continue
        if low == "save" or low.startswith("save "):
            path = text[4:].strip()
            print("  " + (sess.save(path) if path else "save needs a file name: save FILE"))
            continue
        if low in ("help", "h"):
            print(help_text)
            continue
        if low in ("quit", "exit", "q"):
            print("Game stopped.")
            raise _Stop(0)
        if re.fullmatch(r"\d+", text):
            k = int(text)
            if labels and 1 <= k <= len(labels):
                return k - 1
            if labels:
                print(f"  There is no choice {k}: type 1..{len(labels)}, a move in notation, or help.")
            else:
                print("  " + no_numbers)
            continue
        try:
            return parse(text)
        except (InvalidMoveError, AmbiguousMoveError, InvalidRecordError, IllegalActionError) as exc:
            print(f"  {exc}")
        except BarcelonaError as exc:
            print(f"  {exc}")


def choose_legal(sess: Session, con: Console, who: str, help_text: str) -> int:
    """A numbered choice among the legal actions (or their notation)."""
    s = sess.state
    legal = s.legal_actions()
    labels = [s.action_to_string(a) for a in legal]

    def redraw():
        print(columns(labels))

    redraw()
    k = ask_loop(sess, con, f"{who} [1-{len(labels)}, move, ? hint, help]: ", labels,
                 lambda t: ("id", s.string_to_action(t)), help_text, redraw)
    if isinstance(k, tuple):
        return k[1]
    return legal[k]


# ---------------------------------------------------------------------------------------------------------------
# play

def _turn_header(sess: Session) -> bool:
    """Print 'Round r: P1's turn' when a turn starts; True if it did."""
    if not sess.new_turn():
        return False
    s = sess.state
    print(f"\n=== Round {_round(s)}: {sess.name(s.turn_player)}'s turn ===")
    return True


def _push_decision(sess: Session, a: int, typed: bool, only: bool = False) -> None:
    """Play decision `a` of the player to move and print it with the VP it gained."""
    s = sess.state
    p = s.current_player()
    before = s.scores()[p]
    text = s.action_to_string(a)
    sess.push(sess.entry(a), typed)
    gain = sess.state.scores()[p] - before
    if only:
        print(f"  {sess.name(p)}: {text}{f' ({gain:+d} VP)' if gain else ''}   (only choice)")
    else:
        print(f"  {sess.name(p)}: {text}" + (f"   ({gain:+d} VP)" if gain else ""))


def _announce_chance(sess: Session, a: int) -> None:
    s = sess.state
    if C["A_DRAW"] <= a < C["A_REVEAL"]:
        cur = s.turn_player
        if cur == sess.seat:
            print(f"  You draw {CLASSES[a - C['A_DRAW']]}.")
        else:
            print(f"  {sess.name(cur)} draws a citizen.")           # what is not shown (A6)
    else:
        print(f"  Modernisme display: {s.action_to_string(a)}.")


def final_report(sess: Session) -> None:
    s = sess.state
    print("\n=== Game over ===")
    print(s.render())
    print("\nFinal scores (VP by source):")
    for p, (score, parts) in enumerate(zip(s.scores(), s.score_breakdown())):
        nonzero = ", ".join(f"{k} {v}" for k, v in parts.items() if v) or "-"
        print(f"  {sess.name(p):<10} {score:4d} VP  ({nonzero})")
    ret = s.returns()
    best = max(ret)
    winners = [p for p in range(len(ret)) if ret[p] == best and best > 0]
    names = " and ".join(sess.name(p) for p in winners)
    verb = "win (shared)" if len(winners) > 1 else "wins"
    print(f"Winner: {names} {verb}; ties are broken as in the rules (R127).")
    if sess.secret_seed:
        print(f"Replay key: --seed {sess.seed} (chance and the engine's citizens came from it; shown now that "
              "the game is over).")


def offer_save(sess: Session, con: Console) -> None:
    sess.record.finish(sess.state)
    try:
        text = con.ask("Type 'save FILE' to keep the game record, or press Enter to leave: ")
    except _Stop:
        return
    if text.lower().startswith("save ") and text[5:].strip():
        print("  " + sess.save(text[5:].strip()))


def _human_turn_view(sess: Session, started: bool) -> None:
    if started:
        print_board(sess)
    else:
        print()
        print_compact(sess)


def run_play(sess: Session) -> int:
    con = Console()
    while True:
        s = sess.state
        if s.is_terminal():
            final_report(sess)
            offer_save(sess, con)
            return 0
        if s.is_chance_node():
            a = sess.chance_outcome()
            _announce_chance(sess, a)
            sess.push(sess.entry(a), False)
            continue
        started = _turn_header(sess)
        p = s.current_player()
        legal = s.legal_actions()
        before = s.scores()[p]
        if len(legal) == 1:
            _push_decision(sess, legal[0], False, only=True)
            continue
        if p == sess.seat:
            _human_turn_view(sess, started)
            try:
                a = choose_legal(sess, con, "Your choice", HELP)
            except _Undo:
                print("  " + sess.undo())
                continue
            _push_decision(sess, a, True)
            continue
        with Spinner(f"{sess.name(p)} is thinking"):
            best = sess.engine_move()
        a = best.action
        text = s.action_to_string(a)
        sess.push(sess.entry(a), False)
        gain = sess.state.scores()[p] - before
        print(f"  {sess.name(p)}: {text}   ({gain:+d} VP, win {best.win_prob[p]:.0%})")


def _limit(args):
    from .engine import Limit
    if args.iterations is not None:
        return Limit(iterations=args.iterations)
    return Limit(time=args.time)


def _run_session(run, sess) -> int:
    """Run a play or table session; the exit code: 0 game over or quit, 1 input ended, 130 interrupted."""
    try:
        return run(sess)
    except _Stop as stop:
        if stop.code == 1:
            print("Input ended before the game was over: the game stops here (type 'save FILE' first to "
                  "continue it later).")
        return stop.code
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return 130


def cmd_play(args: argparse.Namespace) -> int:
    """A game against the engine. Without --seed the chance seed is secret until the game is over (it would
    tell every hand and every future draw); a save before the end hides the engine's citizens (seen_by)."""
    limit = _limit(args)
    sess = play_session(args.seat, limit, players=args.players, seed=args.seed, setup=args.setup, load=args.load)
    record = sess.record
    print(f"barcelona-ai play: {record.players} players; you are P{args.seat}; the others are the ISMCTS engine "
          f"({_limit_text(limit)} a decision).")
    if sess.secret_seed:
        print("Chance comes from a secret seed: the replay key is shown when the game is over.")
    else:
        print(f"Seed {sess.seed} (the same seed and answers replay this game: --seed {sess.seed}).")
    if args.load:
        hidden = " (the engine's hidden citizens were drawn again from those you have not seen)" \
            if record.viewpoint is not None else ""
        print(f"Loaded {args.load}: {len(record.actions)} entries replayed{hidden}.")
    print("Type help for the commands.")
    return _run_session(run_play, sess)


# ---------------------------------------------------------------------------------------------------------------
# table

def run_table(sess: Session) -> int:
    con = Console()
    while True:
        s = sess.state
        if s.is_terminal():
            final_report(sess)
            offer_save(sess, con)
            return 0
        try:
            if s.is_chance_node():
                _table_chance(sess, con)
            else:
                _table_decision(sess, con)
        except _Undo:
            print("  " + sess.undo())


def _table_chance(sess: Session, con: Console) -> None:
    """A chance outcome at the table: another player's hidden draw, the seat's own draw, a Modernisme reveal."""
    s = sess.state
    if is_draw_for_other(s, sess.seat):
        cur = sess.push_hidden_draw()
        print(f"  {sess.name(cur)} draws a citizen: hidden from you; the engine samples it from "
              "the unseen citizens.")
        return
    if own_draw(s, sess.seat):
        _table_own_draw(sess, con)
        return
    legal = s.legal_actions()
    if len(legal) == 1:
        print(f"  Modernisme display: {s.action_to_string(legal[0])} (the last tile of the stack).")
        sess.push(sess.entry(legal[0]), False)
        return
    _table_reveal(sess, con, legal)


def _table_own_draw(sess: Session, con: Console) -> None:
    pool, offered = sess.draw_choices()
    labels = [f"draw {CLASSES[k]}" for k in offered]
    print("\nYour draw from the bag (unseen citizens: "
          + ", ".join(f"{CLASSES[k]} {pool[k]}" for k in range(3)) + ")")
    print(columns(labels))
    k = ask_loop(sess, con, f"What did you draw? [1-{len(labels)}, draw W|M|U]: ", labels,
                 lambda t: sess.own_draw_entry(t, offered), TABLE_HELP, lambda: print(columns(labels)))
    entry = k if isinstance(k, dict) else draw_entry(offered[k])
    sess.push(entry, True)
    print(f"  You: {entry['move']}")


def _table_reveal(sess: Session, con: Console, legal: list[int]) -> None:
    s = sess.state
    labels = [s.action_to_string(a) for a in legal]
    print("\nA Modernisme tile is revealed from the stack:")
    print(columns(labels))
    k = ask_loop(sess, con, f"Which tile? [1-{len(labels)}, reveal SCnn]: ", labels,
                 lambda t: ("id", reveal_action(s, t)), TABLE_HELP, lambda: print(columns(labels)))
    a = k[1] if isinstance(k, tuple) else legal[k]
    sess.push(sess.entry(a), True)
    print(f"  Modernisme display: {s.action_to_string(a)}")


def _table_decision(sess: Session, con: Console) -> None:
    """A player's decision at the table: another player's placement (typed with its citizens), an only
    choice, or a numbered choice."""
    s = sess.state
    started = _turn_header(sess)
    p = s.current_player()
    legal = s.legal_actions()
    if started:
        print_board(sess)
    if other_placement(s, sess.seat):
        _table_other_placement(sess, con, started)
        return
    if len(legal) == 1:
        _push_decision(sess, legal[0], False, only=True)
        return
    if not started:
        print()
        print_compact(sess)
    who = "Your choice" if p == sess.seat else f"{sess.name(p)}'s choice"
    _push_decision(sess, choose_legal(sess, con, who, TABLE_HELP), True)


def _table_other_placement(sess: Session, con: Console, started: bool) -> None:
    s = sess.state
    p = s.current_player()
    if not started:
        print_compact(sess)
    print(f"{sess.name(p)} holds {_hand_size(s, p)} citizen(s) (not seen). Type the placement as "
          "'place (c,r) TOP/BOTTOM', e.g. 'place (1,2) W/M'.")
    entry = ask_loop(sess, con, f"{sess.name(p)} places: ", None, sess.other_placement_entry, TABLE_HELP,
                     no_numbers=f"{sess.name(p)}'s hand is not known, so placements are not "
                                "numbered: type it, e.g. 'place (1,2) W/M'.")
    try:
        sess.push(entry, True)
    except (BarcelonaError, ValueError) as exc:
        print(f"  {exc}")
        return
    print(f"  {sess.name(p)}: {entry['move']}")


def cmd_table(args: argparse.Namespace) -> int:
    limit = _limit(args)
    sess = table_session(args.seat, limit, players=args.players, seed=args.seed, setup=args.setup,
                         load=args.load, position=args.position)
    start = (f"record {args.load}" if args.load else f"position {args.position}" if args.position
             else f"a new game from seed {sess.seed}")
    print(f"barcelona-ai table: {sess.record.players} players, {start}; you are P{args.seat}. Type every decision "
          "of every player, your own draws and the Modernisme reveals; the other players' draws are sampled.")
    print(f"Hints: ? on your turn ({_limit_text(limit)}). Type help for the commands.")
    return _run_session(run_table, sess)


# ---------------------------------------------------------------------------------------------------------------

def register(sub):
    """Add this module's subcommands to the barcelona-ai parser."""
    p = sub.add_parser("play", help="play a game in the terminal against the engine",
                       description="A game against the ISMCTS engine: you play --seat N, the engine the others. "
                                   "Exit code 0 when the game ends or on quit, 1 if the input ends first.")
    p.add_argument("--players", type=A.players, default=None, help="2..4 (default 2, or the record's)")
    p.add_argument("--seat", type=A.seat, default=0, help="your seat, 0..players-1 (default 0)")
    p.add_argument("--time", type=A.search_seconds, default=1.0, help="engine seconds a decision (default 1.0)")
    p.add_argument("--iterations", type=A.iterations, default=None,
                   help="engine iterations a decision (overrides --time)")
    p.add_argument("--seed", type=A.seed, default=None,
                   help="setup and chance seed (default: a secret one, shown when the game is over)")
    p.add_argument("--setup", choices=("random", "printed"), default="random")
    p.add_argument("--load", metavar="RECORD.json", default=None, help="continue a saved game record")
    p.set_defaults(func=cmd_play)
    t = sub.add_parser("table", help="enter a game played at a real table, with hints on your turn",
                       description="Table mode: type every decision of every player, your own draws and the "
                                   "Modernisme reveals; the others' draws are hidden and sampled. Exit code 0 "
                                   "when the game ends or on quit, 1 if the input ends first.")
    t.add_argument("--players", type=A.players, default=None, help="2..4 (default 4, or the position's)")
    t.add_argument("--seat", type=A.seat, default=0, help="your seat, 0..players-1 (default 0)")
    t.add_argument("--position", metavar="FILE", default=None, help="start from a position JSON (docs/positions.md)")
    t.add_argument("--load", metavar="RECORD.json", default=None, help="continue a saved table record")
    t.add_argument("--seed", type=A.seed, default=None, help="setup seed of a new game; seed of the sampled hands")
    t.add_argument("--setup", choices=("random", "printed"), default="random")
    t.add_argument("--time", type=A.search_seconds, default=1.0, help="engine seconds for a hint (default 1.0)")
    t.add_argument("--iterations", type=A.iterations, default=None,
                   help="engine iterations for a hint (overrides --time)")
    t.set_defaults(func=cmd_table)
