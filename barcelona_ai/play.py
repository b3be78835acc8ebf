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

Commands at every prompt: a choice number or notation, ``?``/``hint``, ``undo``, ``board``, ``show N``,
``moves``, ``save FILE``, ``help``, ``quit``. A bad entry prints why and asks again.

Exit codes: 0 when the game ended or the user typed ``quit``; 1 when the input ended (EOF) before the game was
over (the game is left as it was: save it first with ``save FILE`` to continue it with ``--load``); 2 for bad
arguments (an unknown seat, an unreadable record or position).
"""
from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import threading
import time

from . import cli_args as A
from . import new_game
from .core import CONSTANTS as C
from .core import State
from .errors import AmbiguousMoveError, BarcelonaError, IllegalActionError, InvalidMoveError, PlayerCountError
from .record import (GameRecord, InvalidRecordError, apply_entry, is_draw_for_other, unseen_pool)
from .render import render_player

CLASSES = ("W", "M", "U")
CLASS_NAMES = ("Working", "Middle", "Upper")

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

PLACE_RE = re.compile(r"^\s*(?:place\s*)?\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*([wmu])(?:\s*/\s*([wmu]))?\s*$", re.I)


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


def _hand_size(state: State, p: int) -> int:
    return sum(max(h, 0) for h in state.raw()["pl"][p]["hand"])


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
    raw = state.raw()
    return min(raw["pl"][p]["turns"] for p in range(raw["num_players"])) + 1


def _limit_text(limit) -> str:
    return f"{limit.iterations} iterations" if limit.iterations else f"{limit.time:g} s"


# ---------------------------------------------------------------------------------------------------------------
# the session: a record, the state it leads to, and which entries the human typed

class Session:
    """A game in progress. Every move goes into the record first; the state is the record replayed, so undo
    (cut the record, replay it) is exact."""

    def __init__(self, mode: str, record: GameRecord, seat: int, seed: int, limit, engine, names: list[str],
                 secret_seed: bool = False):
        self.mode = mode                     # "play" or "table"
        self.record = record
        self.seat = seat
        self.seed = seed
        self.secret_seed = secret_seed       # drawn by the program, shown only when the game is over
        self.limit = limit
        self.engine = engine
        self.names = names
        self.typed: list[bool] = []
        self.header_key = None
        self.state = None
        self.rng = random.Random(seed)
        self.rebuild(len(record.actions))

    # -- who is who ----------------------------------------------------------------------------------------
    def name(self, p: int) -> str:
        return self.names[p]

    def viewer(self) -> int | None:
        return None if self.state.is_terminal() else self.seat

    # -- applying entries ----------------------------------------------------------------------------------
    def input_point(self, s: State, entry_id: int | None) -> bool:
        """Whether the entry about to be applied at `s` was typed by the human (undo takes these back)."""
        if self.mode == "play":
            return not s.is_chance_node() and s.current_player() == self.seat and len(s.legal_actions()) > 1
        if entry_id is None:
            return False
        if s.is_chance_node():
            return own_draw(s, self.seat) or len(s.legal_actions()) > 1
        return other_placement(s, self.seat) or len(s.legal_actions()) > 1

    def apply_entry(self, s: State, entry: dict, rng: random.Random) -> None:
        if self.mode == "play" and self.record.viewpoint is None:
            s.apply(entry.get("id"))
        else:                                # a table, or a saved game that hides the engine's citizens
            apply_entry(s, entry, self.seat, rng)

    def rebuild(self, n: int) -> None:
        """Replay the first n entries of the record (dropping the rest)."""
        del self.record.actions[n:]
        self.record.result = None
        s = self.record.initial_state(self.seed)
        rng = random.Random(self.seed)
        typed = []
        for i, entry in enumerate(self.record.actions):
            typed.append(self.input_point(s, entry.get("id")))
            try:
                self.apply_entry(s, entry, rng)
            except IllegalActionError as exc:
                raise InvalidRecordError(f"actions[{i}].id: {exc}") from None
        self.state, self.rng, self.typed = s, rng, typed
        self.header_key = None

    def push(self, entry: dict, typed: bool) -> None:
        """Apply an entry (on a copy first: a failure leaves the game as it was) and note it in the record."""
        s = self.state.clone()
        self.apply_entry(s, entry, self.rng)
        self.record.actions.append(entry)
        self.typed.append(typed)
        self.state = s

    def entry(self, a: int) -> dict:
        s = self.state
        by = "chance" if s.is_chance_node() else s.current_player()
        return {"id": a, "move": s.action_to_string(a), "by": by}

    def undo(self) -> str:
        idx = [i for i, t in enumerate(self.typed) if t]
        if not idx:
            return "Nothing to undo."
        i = idx[-1]
        gone = self.record.actions[i]
        later = len(self.record.actions) - i - 1
        self.rebuild(i)
        by = gone.get("by")
        who = "" if by == "chance" else f"{self.name(by)}: "
        more = f" and the {later} entries after it" if later else ""
        return f"Took back {who}{gone.get('move')}{more}."

    def save(self, path: str) -> str:
        """Write the game record. In play mode before the game is over it is the human's view of the game
        (seen_by): the engine's citizens and the chance seed are not in it (A6)."""
        self.record.finish(self.state)
        over = self.state.is_terminal()
        record = self.record if self.mode == "table" or over else seen_by(self.record, self.seat, self.seed)
        try:
            record.save(path)
        except OSError as exc:
            return f"cannot save to {path!r}: {exc.strerror}"
        how = "play" if self.mode == "play" else "table"
        return (f"Saved the game record ({len(self.record.actions)} entries) to {path}; continue it with: "
                f"barcelona-ai {how} --load {path} --seat {self.seat}")


def seen_by(record: GameRecord, seat: int, seed: int) -> GameRecord:
    """The record as `seat` saw the game: the start as `seat`'s view of the first position (no setup seed, no
    other hand), and every draw by another player as a hidden entry. Replaying it samples those citizens again
    from what `seat` has not seen (record.apply_entry), so nothing `seat` could not see can be read from it."""
    start = record.start
    if record.viewpoint is None:
        start = {"position": record.initial_state(seed).to_json(viewpoint=seat)}
    out = GameRecord(players=record.players, start=start, edition=record.edition, viewpoint=seat,
                     seats=record.seats, engine=record.engine)
    for _, s, entry in record.steps(seed):
        if entry is None:
            break
        out.actions.append({"id": None, "move": "draw (hidden)", "by": "chance"} if is_draw_for_other(s, seat)
                           else dict(entry))
    return out


def own_draw(s: State, seat: int) -> bool:
    if not s.is_chance_node():
        return False
    acts = s.legal_actions()
    return bool(acts) and C["A_DRAW"] <= acts[0] < C["A_REVEAL"] and s.raw()["cur"] == seat


def other_placement(s: State, seat: int) -> bool:
    if s.is_chance_node() or s.is_terminal() or s.current_player() == seat:
        return False
    return s.raw()["phase"] == C["PH_PLACE"] and any(a < C["A_INT_PICK"] for a in s.legal_actions())


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
    raw = s.raw()
    parts = []
    for p in range(s.num_players):
        pl = raw["pl"][p]
        parts.append(f"{sess.name(p)} {pl['score']} VP ({pl['coins']} coins, {pl['cloth']} cloth)")
    print("Scores: " + " | ".join(parts))
    hand = raw["pl"][sess.seat]["hand"]
    mine = " ".join(CLASSES[k] for k in range(3) for _ in range(max(hand[k], 0))) or "empty"
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
    s = sess.state
    if s.is_chance_node() or s.is_terminal():
        return False
    raw = s.raw()
    cur = raw["cur"]
    key = (cur, raw["pl"][cur]["turns"])
    if key == sess.header_key:
        return False
    sess.header_key = key
    print(f"\n=== Round {_round(s)}: {sess.name(cur)}'s turn ===")
    return True


def _chance_outcome(sess: Session) -> int:
    s = sess.state
    acts, probs = zip(*s.chance_outcomes())
    rng = random.Random(f"{sess.seed}/{len(sess.record.actions)}")
    return rng.choices(acts, probs)[0]


def _announce_chance(sess: Session, a: int) -> None:
    s = sess.state
    if C["A_DRAW"] <= a < C["A_REVEAL"]:
        cur = s.raw()["cur"]
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
            a = _chance_outcome(sess)
            _announce_chance(sess, a)
            sess.push(sess.entry(a), False)
            continue
        started = _turn_header(sess)
        p = s.current_player()
        legal = s.legal_actions()
        before = s.scores()[p]
        if len(legal) == 1:
            a = legal[0]
            text = s.action_to_string(a)
            sess.push(sess.entry(a), False)
            gain = sess.state.scores()[p] - before
            vp = f" ({gain:+d} VP)" if gain else ""
            print(f"  {sess.name(p)}: {text}{vp}   (only choice)")
            continue
        if p == sess.seat:
            _human_turn_view(sess, started)
            try:
                a = choose_legal(sess, con, "Your choice", HELP)
            except _Undo:
                print("  " + sess.undo())
                continue
            text = s.action_to_string(a)
            sess.push(sess.entry(a), True)
            gain = sess.state.scores()[p] - before
            print(f"  {sess.name(p)}: {text}" + (f"   ({gain:+d} VP)" if gain else ""))
            continue
        with Spinner(f"{sess.name(p)} is thinking"):
            an = sess.engine.analyse(s, sess.limit, top=1)
        best = an.best
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


def _check_seat(seat: int, players: int) -> None:
    if not 0 <= seat < players:
        raise PlayerCountError(f"no seat {seat} in a {players}-player game (seats are 0..{players - 1})")


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


def _secret_seed() -> int:
    """A seed nobody can guess: it decides the chance outcomes and so the engine's hidden citizens."""
    return random.SystemRandom().getrandbits(63)


def cmd_play(args: argparse.Namespace) -> int:
    """A game against the engine. Without --seed the chance seed is secret until the game is over (it would
    tell every hand and every future draw); a save before the end hides the engine's citizens (seen_by)."""
    from .engine import Engine
    limit = _limit(args)
    secret = args.seed is None
    if args.load:
        record = GameRecord.load(args.load)
        if record.viewpoint is not None and record.viewpoint != args.seat:
            raise InvalidRecordError(f"viewpoint: {args.load} was kept by seat {record.viewpoint}; continue it "
                                     f"with --seat {record.viewpoint}")
        if args.players is not None and args.players != record.players:
            raise PlayerCountError(f"--players {args.players}: the record is a {record.players}-player game")
        players = record.players
        if secret and record.viewpoint is None and "seed" in record.start:
            seed, secret = int(record.start["seed"]), False      # a whole game's record shows its seed anyway
        elif secret:
            seed = _secret_seed()
        else:
            seed = args.seed
    else:
        players = 2 if args.players is None else args.players
        seed = _secret_seed() if secret else args.seed
        new_game(players, seed=seed)           # checks the player count
        record = None
    _check_seat(args.seat, players)
    budget = f"ismcts:{limit.iterations}" if limit.iterations else f"ismcts:{limit.time:g}s"
    seats = ["human" if p == args.seat else budget for p in range(players)]
    if record is None:
        record = GameRecord.for_new_game(players, seed, setup=args.setup, seats=seats)
    elif record.seats is None or len(record.seats) != players:
        record.seats = seats
    names = [f"P{p} (you)" if p == args.seat else f"P{p}" for p in range(players)]
    sess = Session("play", record, args.seat, seed, limit, Engine(seed=seed), names, secret_seed=secret)
    print(f"barcelona-ai play: {players} players; you are P{args.seat}; the others are the ISMCTS engine "
          f"({_limit_text(limit)} a decision).")
    if secret:
        print("Chance comes from a secret seed: the replay key is shown when the game is over.")
    else:
        print(f"Seed {seed} (the same seed and answers replay this game: --seed {seed}).")
    if args.load:
        hidden = " (the engine's hidden citizens were drawn again from those you have not seen)" \
            if record.viewpoint is not None else ""
        print(f"Loaded {args.load}: {len(record.actions)} entries replayed{hidden}.")
    print("Type help for the commands.")
    return _run_session(run_play, sess)


# ---------------------------------------------------------------------------------------------------------------
# table

def _parse_other_place(sess: Session, text: str) -> dict:
    """'place (c,r) T/B' for another player: the action and the entry (the sampled hand gets corrected)."""
    s = sess.state
    p = s.current_player()
    m = PLACE_RE.match(text)
    if not m:
        try:
            a = s.string_to_action(text)           # e.g. a skip, when that is legal
        except (InvalidMoveError, AmbiguousMoveError):
            a = None
        if a is not None and a >= C["A_INT_PICK"]:
            return sess.entry(a)
        if text.strip().lower().startswith("place"):
            raise InvalidMoveError(f"'{text}': name the crossing and the citizens {sess.name(p)} placed, top "
                                   "first, e.g. 'place (1,2) W/M' (c column, r row, 0-4)")
        raise InvalidMoveError(f"'{text}' is not a placement: type what {sess.name(p)} placed as "
                               "'place (c,r) TOP/BOTTOM', e.g. 'place (1,2) W/M' (c column, r row, 0-4)")
    c, r = int(m.group(1)), int(m.group(2))
    if not (0 <= c <= 4 and 0 <= r <= 4):
        raise InvalidMoveError(f"({c},{r}) is not a crossing: columns and rows are 0..4")
    top = CLASSES.index(m.group(3).upper())
    size = _hand_size(s, p)
    if size >= 2 and not m.group(4):
        raise InvalidMoveError(f"{sess.name(p)} places 2 citizens: name both, top first, e.g. "
                               f"'place ({c},{r}) {CLASSES[top]}/M'")
    if size < 2 and m.group(4):
        raise InvalidMoveError(f"{sess.name(p)} holds {size} citizen: type 'place ({c},{r}) {CLASSES[top]}'")
    a = C["A_PLACE"] + (r * 5 + c) * 3 + top
    move = f"place ({c},{r}) {CLASSES[top]}" + (f"/{m.group(4).upper()}" if m.group(4) else "")
    return {"id": a, "move": move, "by": p}


def _parse_own_draw(sess: Session, text: str, offered: list[int]) -> dict:
    m = re.fullmatch(r"(?:draw\s*)?(w|m|u|working|middle|upper)", text.strip(), re.I)
    if not m:
        raise InvalidMoveError(f"'{text}' is not a draw: type 'draw W', 'draw M' or 'draw U' (or 1-{len(offered)})")
    k = "wmu".index(m.group(1)[0].lower())
    if k not in offered:
        raise InvalidMoveError(f"no {CLASS_NAMES[k]} citizen is left unseen: the bag cannot hold one")
    return {"id": C["A_DRAW"] + k, "move": f"draw {CLASSES[k]}", "by": "chance"}


def run_table(sess: Session) -> int:
    con = Console()
    seat = sess.seat
    while True:
        s = sess.state
        if s.is_terminal():
            final_report(sess)
            offer_save(sess, con)
            return 0
        try:
            if s.is_chance_node():
                if is_draw_for_other(s, seat):
                    cur = s.raw()["cur"]
                    sess.push({"id": None, "move": "draw (hidden)", "by": "chance"}, False)
                    print(f"  {sess.name(cur)} draws a citizen: hidden from you; the engine samples it from "
                          "the unseen citizens.")
                    continue
                legal = s.legal_actions()
                if own_draw(s, seat):
                    pool = unseen_pool(s, seat)
                    offered = [k for k in range(3) if pool[k] > 0]
                    labels = [f"draw {CLASSES[k]}" for k in offered]
                    print("\nYour draw from the bag (unseen citizens: "
                          + ", ".join(f"{CLASSES[k]} {pool[k]}" for k in range(3)) + ")")
                    print(columns(labels))
                    k = ask_loop(sess, con, f"What did you draw? [1-{len(labels)}, draw W|M|U]: ", labels,
                                 lambda t: _parse_own_draw(sess, t, offered), TABLE_HELP,
                                 lambda: print(columns(labels)))
                    entry = k if isinstance(k, dict) else {"id": C["A_DRAW"] + offered[k],
                                                           "move": labels[k], "by": "chance"}
                    sess.push(entry, True)
                    print(f"  You: {entry['move']}")
                    continue
                if len(legal) == 1:
                    print(f"  Modernisme display: {s.action_to_string(legal[0])} (the last tile of the stack).")
                    sess.push(sess.entry(legal[0]), False)
                    continue
                labels = [s.action_to_string(a) for a in legal]
                print("\nA Modernisme tile is revealed from the stack:")
                print(columns(labels))

                def parse_reveal(t, s=s):
                    try:
                        return ("id", s.string_to_action(t))
                    except InvalidMoveError:
                        return ("id", s.string_to_action("reveal " + t))

                k = ask_loop(sess, con, f"Which tile? [1-{len(labels)}, reveal SCnn]: ", labels, parse_reveal,
                             TABLE_HELP, lambda: print(columns(labels)))
                a = k[1] if isinstance(k, tuple) else legal[k]
                sess.push(sess.entry(a), True)
                print(f"  Modernisme display: {s.action_to_string(a)}")
                continue
            started = _turn_header(sess)
            p = s.current_player()
            legal = s.legal_actions()
            before = s.scores()[p]
            if started:
                print_board(sess)
            if other_placement(s, seat):
                if not started:
                    print_compact(sess)
                print(f"{sess.name(p)} holds {_hand_size(s, p)} citizen(s) (not seen). Type the placement as "
                      "'place (c,r) TOP/BOTTOM', e.g. 'place (1,2) W/M'.")
                entry = ask_loop(sess, con, f"{sess.name(p)} places: ", None,
                                 lambda t: _parse_other_place(sess, t), TABLE_HELP,
                                 no_numbers=f"{sess.name(p)}'s hand is not known, so placements are not "
                                            "numbered: type it, e.g. 'place (1,2) W/M'.")
                try:
                    sess.push(entry, True)
                except (BarcelonaError, ValueError) as exc:
                    print(f"  {exc}")
                    continue
                print(f"  {sess.name(p)}: {entry['move']}")
                continue
            if len(legal) == 1:
                a = legal[0]
                text = s.action_to_string(a)
                sess.push(sess.entry(a), False)
                gain = sess.state.scores()[p] - before
                print(f"  {sess.name(p)}: {text}{f' ({gain:+d} VP)' if gain else ''}   (only choice)")
                continue
            if not started:
                print()
                print_compact(sess)
            who = "Your choice" if p == seat else f"{sess.name(p)}'s choice"
            a = choose_legal(sess, con, who, TABLE_HELP)
            text = s.action_to_string(a)
            sess.push(sess.entry(a), True)
            gain = sess.state.scores()[p] - before
            print(f"  {sess.name(p)}: {text}" + (f"   ({gain:+d} VP)" if gain else ""))
        except _Undo:
            print("  " + sess.undo())


def cmd_table(args: argparse.Namespace) -> int:
    from .engine import Engine
    from .position import load_position
    limit = _limit(args)
    seed = 0 if args.seed is None else args.seed
    if args.load and args.position:
        raise BarcelonaError("give --load RECORD or --position FILE, not both")
    if args.load:
        record = GameRecord.load(args.load)
        if args.players is not None and args.players != record.players:
            raise PlayerCountError(f"--players {args.players}: the record is a {record.players}-player game")
        _check_seat(args.seat, record.players)
        if record.viewpoint is not None and record.viewpoint != args.seat:
            raise InvalidRecordError(f"viewpoint: the record was kept by seat {record.viewpoint}, not "
                                     f"--seat {args.seat}")
        if record.viewpoint is None:
            record.viewpoint = args.seat
    elif args.position:
        state = load_position(args.position, seed)
        if args.players is not None and args.players != state.num_players:
            raise PlayerCountError(f"--players {args.players}: the position has {state.num_players} players")
        _check_seat(args.seat, state.num_players)
        record = GameRecord.for_position(state, viewpoint=args.seat)
    else:
        players = 4 if args.players is None else args.players
        new_game(players, seed=seed)
        _check_seat(args.seat, players)
        record = GameRecord.for_new_game(players, seed, setup=args.setup, viewpoint=args.seat)
    players = record.players
    record.seats = record.seats or ["you" if p == args.seat else "table" for p in range(players)]
    names = [f"P{p} (you)" if p == args.seat else f"P{p}" for p in range(players)]
    sess = Session("table", record, args.seat, seed, limit, Engine(seed=seed), names)
    start = (f"record {args.load}" if args.load else f"position {args.position}" if args.position
             else f"a new game from seed {seed}")
    print(f"barcelona-ai table: {players} players, {start}; you are P{args.seat}. Type every decision of every "
          "player, your own draws and the Modernisme reveals; the other players' draws are sampled.")
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
