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
    over. The game is saved after every entry (play_guard: ``--save FILE``, by default a new file named after
    the start time; ``--no-save`` saves nothing), as the human saw it, with the engine's citizens and the seed
    encoded in its resume field (session.py), so that ``--load FILE`` continues the very same game; ``save
    FILE`` writes the same to another file. Once the game is over the file is the whole game's record, and
    ``--load`` of it shows the result. Ctrl-C asks whether to move now (the engine plays its best move so
    far), save and quit, or go on (play_guard).
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

Exit codes: 0 when the game ended or the user typed ``quit`` (or answered Ctrl-C's question with save and quit);
1 when the input ended (EOF) before the game was over (the game is left as it was: play's file holds it); 2 for
bad arguments (an unknown seat, an unreadable record or position, a ``--save`` file that holds another game);
130 after a second Ctrl-C (play: saved first) or a Ctrl-C in table mode.
"""
from __future__ import annotations

import argparse
import re
import textwrap

from . import args as A
from ..core import CONSTANTS as C
from ..core import State
from ..errors import AmbiguousMoveError, BarcelonaError, IllegalActionError, InvalidMoveError, SearchInterrupted
from . import play_guard as G
from ..workflows.progress import SearchProgress
from ..rules.record import InvalidRecordError, is_draw_for_other
from ..rules.render import render_player, render_state
from ..rules.gamelog import move_gain, summary
from ..rules.words import breakdown_words, edition_words
from ..rules.explain import plan_effect
from ..workflows.standing import standing_lines
from ..rules.table_setup import COMPONENT_FIELDS, SetupError, TableSetup, check_setup, read_setup_file, set_field
from ..rules.table_setup import prompt as setup_prompt
from ..workflows.session import (CLASSES, Session, draw_entry, other_placement, own_draw, play_session, reveal_action,
                      table_session)
from ..workflows.session import hand_size as _hand_size
from .play_guard import Stop
from .terminal import Console, Undo, columns, mask_hands

HELP = """Commands (at any prompt):
  1..N          play the numbered choice
  notation      type the move, e.g. 'place (1,2) W/M', 'gain 2 coins', 'end actions', 'wide H(1,2)'
  ? or hint     the engine's 3 best turn plans for you (win probability, expected final VP)
  h1, h2, h3    play the next decision of hint 1, 2 or 3
  eval          who is ahead and by how much: every player's win probability and expected final VP
  undo          take back your last decision (and everything played after it)
  board         the whole table
  show N        player N's board ('show' alone: yours)
  moves         list the choices again
  save FILE     write the game record (JSON) to FILE
  help          this list
  quit          stop here (continue later with --load FILE)
  Ctrl-C        asks: move now (while the engine thinks), save and quit, or go on"""

TABLE_HELP = HELP.replace(
    "  undo          take back your last decision (and everything played after it)",
    "  undo          take back the last entry you typed").replace(
    "  notation      type the move, e.g. 'place (1,2) W/M', 'gain 2 coins', 'end actions', 'wide H(1,2)'",
    "  notation      type the move, e.g. 'place (1,2) W/M', 'gain 2 coins', 'end actions', 'wide H(1,2)'\n"
    "                your draws: 'draw W' / 'draw M' / 'draw U'; reveals: 'reveal SC05'").replace(
    "the engine's 3 best turn plans for you", "on your turn: the engine's 3 best turn plans").replace(
    "stop here (continue later with --load FILE)", "stop here (save first to continue later with --load)").replace(
    "\n  Ctrl-C        asks: move now (while the engine thinks), save and quit, or go on", "")


def _status_tail(state: State) -> str:
    """The last lines of the rendering: whose decision it is and what kind."""
    return state.render().rstrip().rsplit("\n\n", 1)[-1]


def _round(state: State) -> int:
    return state.round_number


def _limit_text(limit) -> str:
    return f"{limit.iterations} iterations" if limit.iterations else f"{limit.time:g} s"


# ---------------------------------------------------------------------------------------------------------------
# reading the user

def _show(sess: Session, text: str) -> None:
    print(mask_hands(text, sess.state, sess.viewer()))


def print_board(sess: Session) -> None:
    """The whole table, with markers on what changed since the seat's last decision."""
    _show(sess, render_state(sess.state, sess.board_marks()))


def print_compact(sess: Session) -> None:
    s = sess.state
    view = s.view(viewpoint=sess.seat)
    parts = [f"{sess.name(pl.seat)} {pl.score} VP ({pl.coins} coins, {pl.cloth} cloth)" for pl in view.players]
    print("Scores: " + " | ".join(parts))
    hand = view.players[sess.seat].hand or (0, 0, 0)
    mine = " ".join(CLASSES[k] for k in range(3) for _ in range(hand[k])) or "empty"
    print(f"Your hand: {mine}")
    print(_status_tail(s))


def _not_your_turn(sess: Session) -> bool:
    s = sess.state
    if s.is_chance_node() or s.is_terminal() or s.current_player() != sess.seat:
        print(f"  Hints are for your own decisions ({sess.name(sess.seat)}); it is not your turn.")
        return True
    return False


def hints(sess: Session, con: Console | None = None) -> None:
    """The engine's 3 best turn plans for the seat, with the iterations they took (h1..h3 play them). A Ctrl-C
    asks (play): stopped, the plans found so far."""
    if _not_your_turn(sess):
        return
    me = sess.seat
    plans, done = None, ""
    while plans is None:
        try:
            with SearchProgress(sess.engine, sess.hint_limit, "thinking") as sp:
                plans = sess.hints()
        except SearchInterrupted as exc:
            if G.stop_search(con, exc, "your hints"):
                plans, done = sess.remember_hints(exc.result or []), "stopped: "
    if not plans:
        print("  No hints: the search stopped before it found a plan.")
        return
    plays = "h1 plays it" if len(plans) == 1 else f"h1..h{len(plans)} plays one"
    print(f"  Hints for {sess.name(me)} ({done}{_done_text(sess.hint_limit, sp.iterations)}; {plays}):")
    print_evaluation_note(sess)
    for i, h in enumerate(plans, 1):
        print(f"  {i}. {' ; '.join(h.moves)}")
        print(f"     win {h.win_prob[me]:.0%}, expected final VP {h.expected_score[me]:.0f} (searched {h.visits} "
              "times)")
        if h.reason:
            print(f"     why: {h.reason}")


def _done_text(limit, iterations: int) -> str:
    if limit.iterations:
        return f"{iterations or limit.iterations} iterations"
    return f"{limit.time:g} s, {iterations} iterations"


def play_hint(sess: Session, k: int, con: Console | None = None) -> int | None:
    """The next decision of hint k: from the last hints if the turn followed that plan, else from new ones."""
    if _not_your_turn(sess):
        return None
    a = sess.planned_action(k) if sess.plans else None
    if a is None:
        hints(sess, con)
        a = sess.planned_action(k)
    if a is None:
        print(f"  Hint {k} does not apply here: type a choice.")
    return a


def print_eval(sess: Session, con: Console | None = None) -> None:
    """Who is ahead, as the seat sees it (standing.evaluate: nothing the seat cannot see is read, A6)."""
    while True:
        try:
            with SearchProgress(sess.engine, sess.hint_limit, "evaluating"):
                st = sess.evaluate()
            break
        except SearchInterrupted as exc:
            if G.stop_search(con, exc, "the evaluation"):
                print("  Evaluation stopped.")
                return
    print_evaluation_note(sess)
    for line in standing_lines(st, sess.name):
        print("  " + line)


def print_evaluation_note(sess: Session) -> None:
    """Where the engine's numbers on this board are not its learned models' (Engine.evaluation_note), says so."""
    note = sess.engine.evaluation_note(sess.state)
    if note:
        print(textwrap.fill(note, 100, initial_indent="  ", subsequent_indent="  "))


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
            hints(sess, con)
            continue
        if low in ("eval", "evaluate", "e"):
            print_eval(sess, con)
            continue
        if re.fullmatch(r"h\d", low):
            try:
                a = play_hint(sess, int(low[1:]), con)
            except BarcelonaError as exc:
                print(f"  {exc}")
                continue
            if a is not None and labels is not None:
                return ("id", a)
            if a is not None:
                print("  Type the move itself here (hints play your own decisions).")
            continue
        if low == "undo":
            raise Undo()
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
            if sess.autosaving:
                G.leave(sess, 0)
            print("Game stopped.")
            if sess.unsaved():
                offer_save(sess, con)
            raise Stop(0)
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


def choose_legal(sess: Session, con: Console, who: str, help_text: str, note=None) -> int:
    """A numbered choice among the legal actions (or their notation); `note()` prints just above the first
    prompt (the 'since your last turn' summary)."""
    s = sess.state
    legal = s.legal_actions()
    labels = [s.action_to_string(a) for a in legal]

    def redraw():
        print(columns(labels))

    redraw()
    if note is not None:
        note()
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
    """Play decision `a` of the player to move and print it with the VP it gained (a scoring it triggered is
    an event line of its own, gamelog)."""
    s = sess.state
    p = s.current_player()
    text = s.action_to_string(a)
    before = s.clone()
    sess.push(sess.entry(a), typed)
    gain = move_gain(before, sess.state, p)
    print(f"  {sess.name(p)}: {text}" + (f"   ({gain:+d} VP)" if gain else "") + ("   (only choice)" if only else ""))
    if not typed and not only and p != sess.seat:             # the engine's move, and why (the rules' effect)
        print(f"     why: {plan_effect(before, [a], p).line}")
    print_events(sess)


def print_events(sess: Session) -> None:
    """The events the last entry brought: scorings, the Modernisme refresh, the final scoring."""
    for text in sess.events_of_last_entry():
        for i, line in enumerate(textwrap.wrap(text, 104)):
            print(("  * " if i == 0 else "    ") + line)


def print_since_last_turn(sess: Session) -> None:
    """What happened since the seat's last decision, next to the prompt (the board above it is long)."""
    lines = summary(sess.since_last_turn(), sess.name)
    if lines:
        print("Since your last turn:")
        for line in lines:
            print("  " + line)


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


def final_report(sess: Session, show_key: bool = True) -> None:
    s = sess.state
    print("\n=== Game over ===")
    print(s.render())
    print("\nFinal scores (VP by source):")
    for p, (score, parts) in enumerate(zip(s.scores(), s.score_breakdown())):
        nonzero = breakdown_words(parts)
        print(f"  {sess.name(p):<10} {score:4d} VP  ({nonzero})")
    winners = s.winners()
    names = " and ".join(sess.name(p) for p in winners)
    verb = "win (shared)" if len(winners) > 1 else "wins"
    print(f"Winner: {names} {verb}; a tie goes to the furthest on the Cerdà track, then on the Sagrada Família "
          "track, then to the most Building markers on the board.")
    if sess.secret_seed and show_key:
        print(f"Replay key: --seed {sess.seed} (chance and the engine's citizens came from it; shown now that "
              "the game is over).")


def offer_save(sess: Session, con: Console) -> None:
    sess.record.finish(sess.state)
    try:
        text = con.ask("Type 'save FILE' to keep the game record, or press Enter to leave: ")
    except Stop:
        return
    if text.lower().startswith("save ") and text[5:].strip():
        print("  " + sess.save(text[5:].strip()))


def _human_turn_view(sess: Session, started: bool) -> None:
    if started:
        print_board(sess)
    else:
        print()
        print_compact(sess)


def _game_over(sess: Session, con: Console) -> bool:
    """At the end of the game: the final report, and where the record is (or the offer to save it)."""
    if not sess.state.is_terminal():
        return False
    final_report(sess)
    if sess.autosaving:
        print(f"The game's record is saved in {sess.autosave} (barcelona-ai review {sess.autosave} marks every "
              "decision).")
    else:
        offer_save(sess, con)
    return True


def run_play(sess: Session, guard: G.CtrlC | None = None) -> int:
    con = Console(sess)
    while not _game_over(sess, con):
        try:
            if guard is not None:
                guard.check()                  # a Ctrl-C held back while an entry was saved
            _play_step(sess, con)
        except KeyboardInterrupt:              # neither at a prompt nor in a search: nothing is thinking
            print()
            G.after_ctrl_c(con, "prompt")
    return 0


def _play_step(sess: Session, con: Console) -> None:
    """The next entry: a chance outcome, an only choice, the human's choice or the engine's."""
    s = sess.state
    if s.is_chance_node():
        a = sess.chance_outcome()
        _announce_chance(sess, a)
        sess.push(sess.entry(a), False)
        print_events(sess)
        return
    started = _turn_header(sess)
    p = s.current_player()
    legal = s.legal_actions()
    if len(legal) == 1:
        _push_decision(sess, legal[0], False, only=True)
        return
    if p == sess.seat:
        _human_turn_view(sess, started)
        try:
            a = choose_legal(sess, con, "Your choice", HELP,
                             note=(lambda: print_since_last_turn(sess)) if started else None)
        except Undo:
            print("  " + sess.undo())
            return
        _push_decision(sess, a, True)
        return
    _push_decision(sess, G.engine_decision(sess, con, p), False)


def _limit(args):
    from ..search.engine import Limit
    if args.iterations is not None:
        return Limit(iterations=args.iterations)
    return Limit(time=args.time)


def _hint_limit(args, limit):
    """The budget of the player's own hints and eval: --hint-iterations, --hint-time, else the engine's."""
    from ..search.engine import Limit
    if getattr(args, "hint_iterations", None) is not None:
        return Limit(iterations=args.hint_iterations)
    if getattr(args, "hint_time", None) is not None:
        return Limit(time=args.hint_time)
    return limit


def _run_session(run, sess) -> int:
    """Run a play or table session; the exit code: 0 game over or quit, 1 input ended, 130 interrupted."""
    try:
        return run(sess)
    except Stop as stop:
        if stop.code == 1 and sess.autosaving:
            print(f"Input ended before the game was over: it is saved in {sess.autosave}; continue it with "
                  f"{sess.continue_command(sess.autosave)}")
        elif stop.code == 1:
            print("Input ended before the game was over: the game stops here (type 'save FILE' first to "
                  "continue it later).")
        return stop.code
    except KeyboardInterrupt:
        print("\nInterrupted.")
        if sess.autosaving:
            print(f"The game is saved in {sess.autosave}.")
        return 130


def cmd_play(args: argparse.Namespace) -> int:
    """A game against the engine. Without --seed the chance seed is secret until the game is over (it would
    tell every hand and every future draw). The game is saved as it goes (_start_saving), and Ctrl-C asks what
    to do (play_guard)."""
    limit = _limit(args)
    hint_limit = _hint_limit(args, limit)
    problem = G.check_save_path(args.save, args.load) if args.save and not args.no_save else None
    if problem:
        raise BarcelonaError(problem)
    sess = play_session(args.seat, limit, players=args.players, seed=args.seed, setup=args.setup, load=args.load,
                        hint_limit=hint_limit, edition=args.edition)
    record = sess.record
    if args.load and sess.state.is_terminal():
        print(f"barcelona-ai play: {args.load} holds a finished game ({len(record.actions)} entries): the game is "
              "over.")
        final_report(sess, show_key=False)
        print(f"Its review: barcelona-ai review {args.load}")
        return 0
    print(f"barcelona-ai play: {record.players} players, {edition_words(sess.state)}; you are P{sess.seat}; the "
          "others are the ISMCTS engine "
          f"({_limit_text(limit)} a decision; your hints and eval: {_limit_text(hint_limit)}).")
    if sess.secret_seed:
        print("Chance comes from a secret seed: the replay key is shown when the game is over.")
    else:
        print(f"Seed {sess.seed} (the same seed and answers replay this game: --seed {sess.seed}).")
    if args.load:
        how = " (the same game goes on: the engine's citizens and the chance seed come from its resume field)" \
            if sess.resumed else ""
        if not sess.resumed and record.viewpoint is not None:
            why = f"; {sess.load_note}" if sess.load_note else ""
            how = f" (the engine's hidden citizens were drawn again from those you have not seen{why})"
        print(f"Loaded {args.load}: {len(record.actions)} entries replayed{how}.")
    G.start_saving(sess, args)
    print("Type help for the commands; Ctrl-C asks whether to move now, save and quit, or go on.")
    with G.CtrlC() as guard:
        sess.shield = guard.held
        return _run_session(lambda s: run_play(s, guard), sess)


# ---------------------------------------------------------------------------------------------------------------
# table

def run_table(sess: Session) -> int:
    con = Console()
    while not _game_over(sess, con):
        try:
            if sess.state.is_chance_node():
                _table_chance(sess, con)
            else:
                _table_decision(sess, con)
        except Undo:
            print("  " + sess.undo())
    return 0


def _table_chance(sess: Session, con: Console) -> None:
    """A chance outcome at the table: another player's hidden draw, the seat's own draw, a Modernisme reveal."""
    s = sess.state
    if is_draw_for_other(s, sess.seat):
        cur = sess.push_hidden_draw()
        print(f"  {sess.name(cur)} draws a citizen: hidden from you; the engine samples it from "
              "the unseen citizens.")
        print_events(sess)
        return
    if own_draw(s, sess.seat):
        _table_own_draw(sess, con)
        return
    legal = s.legal_actions()
    if len(legal) == 1:
        print(f"  Modernisme display: {s.action_to_string(legal[0])} (the last tile of the stack).")
        sess.push(sess.entry(legal[0]), False)
        print_events(sess)
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
    print_events(sess)


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
    print_events(sess)


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
    note = (lambda: print_since_last_turn(sess)) if started and p == sess.seat else None
    _push_decision(sess, choose_legal(sess, con, who, TABLE_HELP, note), True)


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
    print_events(sess)


def table_setup_from_args(args: argparse.Namespace) -> TableSetup | None:
    """The table's setup from --setup-file and the setup options (missing fields are asked later); None when
    the game starts from --load, --position or a practice --seed, which bring their own setup."""
    given = [f"--{f}" for f in COMPONENT_FIELDS if getattr(args, f) is not None]
    given += ["--setup-file"] if args.setup_file else []
    start = "--load" if args.load else "--position" if args.position else "--seed" if args.seed is not None \
        else None
    if start:
        if given:
            raise SetupError(f"{given[0]}: the setup options describe a new game at a table, and {start} brings "
                             "its own setup: give one or the other")
        return None
    setup = TableSetup(edition=args.edition or "default")
    if args.setup_file:
        read_setup_file(args.setup_file, setup)
    options = [("players", args.players), ("seat", args.seat)] + [(f, getattr(args, f)) for f in COMPONENT_FIELDS]
    if args.setup == "printed" and args.actions is None:
        options.append(("actions", "printed"))
    for name, value in options:
        if value is not None:
            try:
                set_field(setup, name, str(value))
            except SetupError as exc:
                raise SetupError(f"--{name}: {exc}") from None
    return setup


def ask_table_setup(con: Console, setup: TableSetup) -> None:
    """Ask for every field of the setup not given yet, each checked as it is typed (help, quit work)."""
    print("Setting up from the table: type what lies on it (help explains, quit stops).")
    while True:
        for name in setup.missing():
            _ask_setup_field(con, setup, name)
        try:
            check_setup(setup)
            return
        except SetupError as exc:
            print(f"  {exc}")
            setup.display = None                # the one check across fields: a Cerdà twin on the display


def _ask_setup_field(con: Console, setup: TableSetup, name: str) -> None:
    while getattr(setup, name) is None:
        text = con.ask(f"{setup_prompt(name, setup)}: ")
        low = text.lower()
        if low in ("quit", "exit", "q"):
            print("Setup stopped.")
            raise Stop(0)
        if low in ("help", "h", "?") or not text:
            print(SETUP_HELP)
            continue
        try:
            set_field(setup, name, text)
        except SetupError as exc:
            print(f"  {exc}")


SETUP_HELP = """The setup as it lies on the table (rules R10-R32); each answer is checked at once:
  players   2, 3 or 4                 seat      yours: 0 is the first player (R31), then clockwise
  actions   the 11 action tiles (R11) by the board's codes: the 5 at the foot of columns c0..c4 left to
            right, the 5 at the end of rows r0..r4 top to bottom, then the diagonal's, e.g.
            COB INT CER WID IMP / CLO PS TAK COI NAR / TRM   ('printed' for the printed actions)
            codes: COI Gain 2 Coins, CLO Gain 1 Cloth + 3 VP, COB Place Cobblestone, WID Build 1 Wide
            Street, NAR Build 2 Narrow Streets, INT Build an Intersection, IMP Improve Modernisme,
            TAK Take Modernisme, PS Build a Public Service, TRM Move your Tram, CER Cerda +2
  cerda     the Cerda Scoring tiles of sections 1, 2, 3 (R14), e.g. SC01 SC03 SC14 (or 1 3 14)
  display   the 4 Modernisme tiles face up (R16), e.g. SC08 SC09 SC12 SC18
  services  the 5 Public Service types in play (R17) by a word of their names, e.g. antoni pau museu
  hand      your two citizens (R32): W, M or U, e.g. W M
A setup file holds the same as 'field: value' lines: barcelona-ai table --setup-file FILE."""


def cmd_table(args: argparse.Namespace) -> int:
    limit = _limit(args)
    table = table_setup_from_args(args)
    if table is not None and table.missing():
        try:
            ask_table_setup(Console(), table)
        except Stop as stop:
            return stop.code
    sess = table_session(args.seat, limit, players=args.players, seed=args.seed, setup=args.setup or "random",
                         load=args.load, position=args.position, table=table, edition=args.edition)
    start = (f"record {args.load}" if args.load else f"position {args.position}" if args.position
             else "the table's setup" if table is not None else f"a practice game from seed {sess.seed}")
    print(f"barcelona-ai table: {sess.record.players} players, {edition_words(sess.state)}, {start}; you are "
          f"P{sess.seat}. Type every "
          "decision of every player, your own draws and the Modernisme reveals; the other players' draws are "
          "sampled.")
    if table is not None:
        print("Setup (a file with these lines starts the same game: --setup-file FILE):")
        for line in table.summary():
            print(f"  {line}")
    print(f"Hints: ? on your turn, eval at any prompt ({_limit_text(limit)}). Type help for the commands.")
    return _run_session(run_table, sess)


# ---------------------------------------------------------------------------------------------------------------

def register(sub):
    """Add this module's subcommands to the barcelona-ai parser."""
    p = sub.add_parser("play", help="play a game in the terminal against the engine",
                       description="A game against the ISMCTS engine: you play --seat N, the engine the others. "
                                   "Exit code 0 when the game ends or on quit, 1 if the input ends first.")
    p.add_argument("--players", type=A.players, default=None, help="2..4 (default 2, or the record's)")
    p.add_argument("--seat", type=A.seat, default=None,
                   help="your seat, 0..players-1 (default 0, or the seat that kept the --load record)")
    p.add_argument("--time", type=A.search_seconds, default=1.0, help="engine seconds a decision (default 1.0)")
    p.add_argument("--iterations", type=A.iterations, default=None,
                   help="engine iterations a decision, instead of --time (default: none, --time)")
    A.add_level_option(p)
    p.add_argument("--hint-time", type=A.search_seconds, default=None, metavar="S",
                   help="seconds for your hints and eval (default: the engine's budget, --time/--iterations)")
    p.add_argument("--hint-iterations", type=A.iterations, default=None, metavar="N",
                   help="iterations for your hints and eval, instead of --hint-time (default: the engine's budget)")
    p.add_argument("--seed", type=A.seed, default=None,
                   help="setup and chance seed (default: a secret one, shown when the game is over)")
    p.add_argument("--setup", choices=("random", "printed"), default="random",
                   help="shuffled (R11) or printed action tiles")
    p.add_argument("--load", metavar="RECORD.json", default=None,
                   help="continue a saved game record, or show a finished one's result (default: a new game)")
    saving = p.add_mutually_exclusive_group()
    saving.add_argument("--save", metavar="FILE", default=None,
                        help="the file the game is saved to after every entry; not another game's (default: the "
                             "--load file if play saved it, else barcelona-DATE-TIME.json in the current folder)")
    saving.add_argument("--no-save", action="store_true", help="do not save the game as it goes")
    A.add_edition_option(p)
    p.set_defaults(func=cmd_play)
    t = sub.add_parser("table", help="enter a game played at a real table, with hints on your turn",
                       description="Table mode: type every decision of every player, your own draws and the "
                                   "Modernisme reveals; the others' draws are hidden and sampled. Exit code 0 "
                                   "when the game ends or on quit, 1 if the input ends first.")
    t.add_argument("--players", type=A.players, default=None,
                   help="2..4 (default: asked, or the record's or position's)")
    t.add_argument("--seat", type=A.seat, default=None,
                   help="your seat, 0..players-1 (default: asked, or the viewpoint of the record or position)")
    t.add_argument("--actions", metavar="TILES", default=None,
                   help="the 11 action tiles: columns c0..c4, rows r0..r4, diagonal, e.g. 'COB INT CER WID IMP / "
                        "CLO PS TAK COI NAR / TRM', or 'printed' (default: asked)")
    t.add_argument("--cerda", metavar="TILES", default=None,
                   help="the Cerda Scoring tiles of sections 1-3, e.g. 'SC01 SC03 SC14' (default: asked)")
    t.add_argument("--display", metavar="TILES", default=None,
                   help="the 4 Modernisme tiles on the display, e.g. 'SC08 SC09 SC12 SC18' (default: asked)")
    t.add_argument("--services", metavar="TYPES", default=None,
                   help="the 5 Public Service types, e.g. 'antoni pau universitat museu pavello' (default: asked)")
    t.add_argument("--hand", metavar="CITIZENS", default=None, help="your two citizens, e.g. 'W M' (default: asked)")
    t.add_argument("--setup-file", metavar="FILE", default=None,
                   help="the setup as 'field: value' lines (players, seat, actions, cerda, display, services, "
                        "hand; default: none)")
    t.add_argument("--position", metavar="FILE", default=None,
                   help="start from a position JSON (docs/positions.md; default: none)")
    t.add_argument("--load", metavar="RECORD.json", default=None, help="continue a saved table record (default: none)")
    t.add_argument("--seed", type=A.seed, default=None,
                   help="practice: the setup of new_game(players, seed) instead of the table's; also the seed of "
                        "the sampled hidden hands (default: none; hands sampled with seed 0)")
    t.add_argument("--setup", choices=("random", "printed"), default=None,
                   help="with --seed: shuffled or printed action tiles (default random); without: 'printed' is "
                        "--actions printed")
    t.add_argument("--time", type=A.search_seconds, default=1.0, help="engine seconds for a hint or eval (default 1.0)")
    t.add_argument("--iterations", type=A.iterations, default=None,
                   help="engine iterations for a hint or eval, instead of --time (default: none, --time)")
    A.add_edition_option(t)
    t.set_defaults(func=cmd_table)
