"""The web board's workflows (``barcelona-ai serve``; web.py is the HTTP layer around them).

A web game is a session.Session (the one ``play`` and ``table`` drive in a terminal) kept under an id; every
request is one call here, and every answer a JSON document of plain values. Nothing here knows a rule or
searches: the moves, their notation, the engine's moves, hints and analysis, records and positions, reviews all
come from the library calls the command line makes.

Hidden information (A6): a game is seen from its seat. Its document draws the board from ``state.view(seat)``
(board_svg), lists the seat's own moves only, writes the log as the seat saw it (gamelog) and saves the record
as the seat saw the game (Session.record_to_save); hints and analysis search from the seat's observation
(engine.Engine). Only a finished game shows everything.

The decision a game waits for (``GameDocument["waiting"]``):

- ``"you"``: the seat decides (play and table), or, at a table, another player took a decision that is not a
  placement: choose from ``legal`` (by id or notation);
- ``"placement"``: at a table, another player placed citizens: send its notation ``place (c,r) TOP/BOTTOM``
  (their hand is not known, so it is entered, not chosen from ``legal``; the document's ``placement`` says which
  crossings it may take and what the citizens may be, table_entry.placement_picker);
- ``"draw"``: at a table, the seat's own draw: choose the class drawn from ``legal``;
- ``"reveal"``: at a table, a Modernisme tile was revealed: choose it from ``legal``;
- ``"step"``: nobody here decides: the engine's move, a chance outcome, another player's hidden draw or an only
  choice; ``step`` plays it, one at a time, so the page can show the engine's moves one by one;
- ``"over"``: the game is over.

At a table, when another player decides (a placement or another choice), the document may carry ``proposal``,
that player's likely move for the seat to confirm (table_entry.proposal: forced, or the same in every one of a few
small searches of the seat's view), cached per position; it is never entered unless the page sends it.
"""
from __future__ import annotations

import re
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from .board_svg import board_svg
from ..core import CONSTANTS as C
from ..core import State, new_game
from ..rules.geometry import space_name
from ..search.engine import Limit
from ..search.results import shown_moves
from ..errors import BarcelonaError, GameNotFound, NotNow, WebRequestError
from ..rules.record import GameRecord, InvalidRecordError, is_draw_for_other
from ..workflows.session import (CLASS_NAMES, Session, draw_entry, hidden_draw_entry, other_placement, own_draw,
                                 play_session, table_session)
from ..rules.explain import preview, why_illegal
from ..rules.render import decision_words
from ..rules.table_setup import COMPONENT_FIELDS, SetupError, TableSetup, check_setup, choices, prompt, set_field
from ..rules.tables import Edition, available_editions, load_edition
from ..rules.words import edition_words
from .table_entry import choice_words, placement_picker, placement_refusal, proposal

__all__ = ["WebRequestError", "GameNotFound", "NotNow", "Games", "WebGame", "game_document", "action_target",
           "Reviews", "table_setup_fields", "int_field", "MAX_GAMES", "MAX_ITERATIONS", "DEFAULT_ITERATIONS",
           "DEFAULT_HINT_ITERATIONS"]

MAX_GAMES = 64                      # games one server keeps (the oldest is dropped beyond)
IDLE_SECONDS = 6 * 3600             # a game or review nobody has asked for in this long is dropped
MAX_ITERATIONS = 1_000_000           # a search's budget over the web (about 15 s of one core)
REVIEW_WORKERS = 2                  # reviews running at once on one server (others wait in line)
DEFAULT_ITERATIONS = 1000           # the engine's budget a decision in a web game (about 0.1 s)
DEFAULT_HINT_ITERATIONS = 4000      # the budget of a hint (about half a second)
LOG_LINES = 60                      # the game log lines a document carries (the latest)
MAX_PROPOSALS = 256                 # positions whose proposal a game keeps


# ---------------------------------------------------------------------------------------------------------------
# request fields

def int_field(doc: dict, name: str, lo: int, hi: int, default: int | None) -> int | None:
    """Field `name` of a request: an integer in lo..hi (not a bool), or `default` when it is absent."""
    value = doc.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise WebRequestError(f"{name}: expected an integer from {lo} to {hi}, not {value!r}")
    return value


def _dict_field(doc: dict, name: str) -> dict | None:
    value = doc.get(name)
    if value is not None and not isinstance(value, dict):
        raise WebRequestError(f"{name}: expected a JSON object, not {type(value).__name__}")
    return value


def _check_keys(doc: Any, allowed: set[str], what: str) -> dict:
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise WebRequestError(f"{what}: expected a JSON object, not {type(doc).__name__}")
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise WebRequestError(f"{unknown[0]}: unknown field of {what} (known: {', '.join(sorted(allowed))})")
    return doc


# ---------------------------------------------------------------------------------------------------------------
# games

NEW_GAME_FIELDS = {"mode", "players", "seat", "seed", "iterations", "hint_iterations", "record", "position", "setup",
                   "edition"}
SETUP_FIELDS = COMPONENT_FIELDS          # a real table's setup, as `barcelona-ai table` asks it


def table_setup_fields(edition="default") -> list[dict]:
    """The fields of a real table's setup with the prompts `barcelona-ai table` asks them with (table_setup), in
    `edition`'s names."""
    return [{"name": name, "prompt": prompt(name, TableSetup(edition=edition)), "choices": choices(name, edition)}
            for name in SETUP_FIELDS]


class Editions:
    """The editions a server plays, by name: the shipped ones, the one it was started with (serve --edition),
    which is the default of new games, and those made with the page's board form (board_form.py). A request
    names an edition, never a path (a path would let a request probe the server's files)."""

    def __init__(self, edition=None):
        self.by_name = {name: load_edition(name) for name in available_editions()}
        self.shipped = frozenset(self.by_name)
        chosen = load_edition(edition or "default")
        self.by_name[chosen.name] = chosen
        self.default = chosen.name

    def named(self, value: Any, field: str) -> Edition:
        """The edition a request's `field` names (None: the server's default)."""
        if value is None:
            return self.by_name[self.default]
        if not isinstance(value, str) or value not in self.by_name:
            raise WebRequestError(f"{field}: the web board plays the editions {', '.join(sorted(self.by_name))}, "
                                  f"not {repr(value)[:60]}")
        return self.by_name[value]

    def of_document(self, doc: dict, field: str) -> Edition:
        """The edition a record or position document sent to the server names (its reader then checks the
        document's content digest against it)."""
        return self.named(doc.get("edition", "default"), f"{field}.edition")

    def listing(self) -> dict:
        """What the page's menu offers: each edition's name and how a player reads it, and the default."""
        return {"default": self.default,
                "editions": [{"name": n, "words": edition_words(ed)} for n, ed in sorted(self.by_name.items())]}


def _table_setup(doc: dict, players: int | None, seat: int | None, edition="default"):
    """The table_setup.TableSetup of the new game's "setup" (each field the text `table` takes), or None."""
    value = _dict_field(doc, "setup")
    if value is None:
        return None
    setup = TableSetup(players=4 if players is None else players, seat=0 if seat is None else seat,
                       edition=edition)
    for name, text in value.items():
        if name not in SETUP_FIELDS:
            raise WebRequestError(f"setup.{name}: not a setup field ({', '.join(SETUP_FIELDS)})")
        if not isinstance(text, str):
            raise WebRequestError(f"setup.{name}: expected the text of the field, not {text!r}")
        try:
            set_field(setup, name, text)
        except SetupError as exc:
            raise WebRequestError(f"setup.{exc}") from None
    try:
        check_setup(setup)
    except SetupError as exc:
        raise WebRequestError(f"setup: {exc}") from None
    return setup


class WebGame:
    """One game of the server: its session, a lock (one request at a time changes it) and its running
    analysis, if any."""

    def __init__(self, gid: str, session: Session):
        self.id = gid
        self.session = session
        self.lock = threading.RLock()
        self.analysis = None                     # the running engine.AnalysisStream
        self.proposals: dict = {}                # (entries, the seat's observation) -> table_entry.proposal

    def stop_analysis(self) -> None:
        stream = self.analysis
        if stream is not None:
            stream.stop()

    # -- what the game waits for --------------------------------------------------------------------------
    def waiting(self) -> str:
        sess = self.session
        s = sess.state
        if s.is_terminal():
            return "over"
        if s.is_chance_node():
            if sess.mode == "play" or is_draw_for_other(s, sess.seat):
                return "step"
            if own_draw(s, sess.seat):
                return "draw"
            return "reveal" if len(s.legal_actions()) > 1 else "step"
        if sess.mode == "table" and other_placement(s, sess.seat):
            return "placement"
        if len(s.legal_actions()) == 1:
            return "step"
        if sess.mode == "play" and s.current_player() != sess.seat:
            return "step"
        return "you"

    def choices(self, waiting: str | None = None) -> list[int]:
        """The action ids the page may send now (empty when it may not choose); `waiting` if known already."""
        sess = self.session
        waiting = waiting or self.waiting()
        if waiting == "draw":
            return [C["A_DRAW"] + k for k in sess.draw_choices()[1]]
        if waiting in ("you", "reveal"):
            return list(sess.state.legal_actions())
        if waiting == "placement":               # another player's skip (no placement) is chosen, not typed
            return [a for a in sess.state.legal_actions() if a >= C["A_INT_PICK"]]
        return []

    # -- changing the game --------------------------------------------------------------------------------
    def move(self, action: Any = None, text: Any = None) -> list[str]:
        """Play the page's choice: an action id of choices(), or a move in notation (at a table, another
        player's placement as 'place (c,r) TOP/BOTTOM'). Returns the new log lines."""
        sess = self.session
        waiting = self.waiting()
        if waiting in ("step", "over"):
            raise NotNow("the game is over" if waiting == "over" else
                         "nobody here decides now: step to let the engine (or chance) play")
        if (action is None) == (text is None):
            raise WebRequestError("give the move as 'id' (an action id) or 'move' (its notation), one of them")
        if text is not None and not isinstance(text, str):
            raise WebRequestError(f"move: expected the notation of a move, not {text!r}")
        if waiting == "placement" and text is not None:
            entry = sess.other_placement_entry(text)
            refused = placement_refusal(sess.state, sess.seat, entry)
            if refused:
                raise WebRequestError(refused)
        else:
            a = self._action_of(action, text, waiting)
            entry = draw_entry(a - C["A_DRAW"]) if waiting == "draw" else sess.entry(a)
        self.stop_analysis()
        return [ln.text for ln in sess.push(entry, True)]

    def _action_of(self, action: Any, text: Any, waiting: str) -> int:
        sess = self.session
        choices = self.choices(waiting)
        if action is None:
            if waiting == "draw":
                return sess.own_draw_entry(text, sess.draw_choices()[1])["id"]
            a = sess.state.string_to_action(text)
        else:
            if isinstance(action, bool) or not isinstance(action, int):
                raise WebRequestError(f"id: expected an action id (an integer), not {action!r}")
            a = action
        if a not in choices:
            raise WebRequestError(self._refusal(a, waiting))
        return a

    def _refusal(self, a: int, waiting: str) -> str:
        """Why action `a`, not among the choices now, is refused: the rules' reason where it is a move."""
        sess = self.session
        s = sess.state
        if not 0 <= a < C["NUM_ACTIONS"]:
            return f"id: {a} is no move of the game (the document's 'legal' lists the choices now)"
        if waiting == "draw" and C["A_DRAW"] <= a < C["A_REVEAL"]:
            return f"you cannot have drawn a {CLASS_NAMES[a - C['A_DRAW']]} citizen: none is left unseen"
        if waiting == "placement" and a < C["A_INT_PICK"]:
            return "enter another player's placement with both its citizens, as 'place (c,r) TOP/BOTTOM'"
        return f"'{s.action_to_string(a)}' cannot be played now: {why_illegal(s, a)}"

    def step(self) -> list[str]:
        """Play the next entry nobody here decides: the engine's move (play mode), a chance outcome, another
        player's hidden draw (table), an only choice. Returns the new log lines."""
        sess = self.session
        waiting = self.waiting()
        if waiting != "step":
            raise NotNow("the game is over" if waiting == "over" else "the game waits for your decision")
        s = sess.state
        self.stop_analysis()
        if s.is_chance_node():
            if sess.mode == "table" and is_draw_for_other(s, sess.seat):
                return [ln.text for ln in sess.push(hidden_draw_entry(), False)]
            legal = s.legal_actions()
            a = legal[0] if sess.mode == "table" else sess.chance_outcome()
            return [ln.text for ln in sess.push(sess.entry(a), False)]
        legal = s.legal_actions()
        a = legal[0] if len(legal) == 1 else sess.engine_move()
        return [ln.text for ln in sess.push(sess.entry(a), False)]

    def undo(self) -> str:
        self.stop_analysis()
        return self.session.undo()

    def proposal(self, waiting: str) -> dict | None:
        """At a table, the likely move of another player who decides now (table_entry.proposal), with its board
        target; computed once per position."""
        sess = self.session
        s = sess.state
        if sess.mode != "table" or waiting not in ("you", "placement") or s.current_player() == sess.seat:
            return None
        key = (len(sess.record.actions), s.observation_hash(sess.seat))
        if key not in self.proposals:
            if len(self.proposals) >= MAX_PROPOSALS:
                self.proposals.clear()
            found = proposal(s, sess.seat)
            if found is not None:
                found["target"] = action_target(s, found["id"]) if found["id"] is not None else \
                    f"crossing:{found['crossing']}"
            self.proposals[key] = found
        return self.proposals[key]

    # -- asking the engine --------------------------------------------------------------------------------
    def check_seat_decides(self) -> None:
        s = self.session.state
        if self.waiting() != "you" or s.current_player() != self.session.seat:
            raise NotNow("hints and analysis are for your own decision: it is not yours now")

    def hints(self, iterations: int | None = None) -> list[dict]:
        """The engine's 3 best turn plans for the seat (Session.hints), each with the board targets of its
        moves, and the seat's win probability and expected final score."""
        self.check_seat_decides()
        sess = self.session
        plans = sess.hints(None if iterations is None else Limit(iterations=iterations))
        return [plan_document(sess, plan, k) for k, plan in enumerate(plans, 1)]

    def analysis_stream(self, iterations: int | None, interval: float = 0.4):
        """A running analysis of the seat's decision (Engine.analysis), remembered so that a stop request or a
        move ends it."""
        self.check_seat_decides()
        sess = self.session
        its = iterations or sess.hint_limit.iterations or DEFAULT_HINT_ITERATIONS
        self.stop_analysis()
        self.analysis = sess.engine.analysis(sess.state, Limit(iterations=its), top=3, viewpoint=sess.seat,
                                             interval=interval)
        return self.analysis


def plan_document(sess: Session, plan, rank: int) -> dict:
    seat = sess.seat
    state = sess.state
    return {"rank": rank, "moves": plan.moves, "actions": plan.actions, "targets": plan_targets(state, plan.actions),
            "visits": plan.visits, "win_prob": plan.win_prob[seat], "expected_score": plan.expected_score[seat],
            "main_line": plan.main_line, "reason": plan.reason, "vp_now": plan.vp_now}


def plan_targets(state, actions: list[int]) -> list[str | None]:
    """The board target of each move of a turn plan (played on a copy; None where a move has none, or where
    the plan's later moves wait on chance)."""
    s = state.clone()
    out = []
    for a in actions:
        if s.is_chance_node() or s.is_terminal() or a not in s.legal_actions():
            out.append(None)
            continue
        out.append(action_target(s, a))
        s.apply(a)
    return out


class _Store:
    """What the server keeps (games, reviews) by a random id (two tabs, two games), at most `limit`: the oldest
    goes first, and one nobody has asked for in `idle_seconds` goes too (dropped() is told)."""

    def __init__(self, what: str, limit: int = MAX_GAMES, idle_seconds: float = IDLE_SECONDS):
        self._items: dict = {}
        self._used: dict = {}                    # id -> time.monotonic() of the last request that named it
        self._lock = threading.Lock()
        self.what = what
        self.limit = limit
        self.idle_seconds = idle_seconds

    @staticmethod
    def new_id() -> str:
        return secrets.token_hex(8)

    def add(self, item) -> None:
        with self._lock:
            self._drop_idle()
            while len(self._items) >= self.limit:
                self._drop(next(iter(self._items)))
            self._items[item.id] = item
            self._used[item.id] = time.monotonic()

    def _drop(self, key: str) -> None:
        self._used.pop(key, None)
        self.dropped(self._items.pop(key))

    def _drop_idle(self) -> None:
        cutoff = time.monotonic() - self.idle_seconds
        for key in [k for k, used in self._used.items() if used < cutoff]:
            self._drop(key)

    def dropped(self, item) -> None:
        """An item dropped to make room."""

    def get(self, key: str):
        with self._lock:
            self._drop_idle()
            item = self._items.get(key)
            if item is not None:
                self._used[key] = time.monotonic()
        if item is None:
            raise GameNotFound(f"no {self.what} {key!r} on this server (it may have been dropped after "
                               f"{self.idle_seconds / 3600:g} hours unused, or to make room: start a new one)")
        return item


class Games(_Store):
    """The server's games."""

    def __init__(self, max_games: int = MAX_GAMES, idle_seconds: float = IDLE_SECONDS,
                 editions: Editions | None = None):
        super().__init__("game", max_games, idle_seconds)
        self.editions = editions or Editions()

    def dropped(self, item: WebGame) -> None:
        item.stop_analysis()

    def create(self, doc: Any) -> WebGame:
        """A new game from the page's options (NEW_GAME_FIELDS): mode 'play' (against the engine) or 'table'
        (a game at a real table, from the seat's view); players, seat, seed; the engine's iterations a
        decision and a hint's; a record to continue or (table) a position to start from; the edition (a name
        of Editions: the server's default when absent)."""
        doc = _check_keys(doc, NEW_GAME_FIELDS, "the new game")
        mode = doc.get("mode", "play")
        if mode not in ("play", "table"):
            raise WebRequestError(f"mode: expected 'play' or 'table', not {mode!r}")
        players = int_field(doc, "players", 2, 4, None)
        seat = int_field(doc, "seat", 0, 3, None)
        seed = int_field(doc, "seed", 0, 2**63 - 1, None)
        limit = Limit(iterations=int_field(doc, "iterations", 1, MAX_ITERATIONS, DEFAULT_ITERATIONS))
        hint_limit = Limit(iterations=int_field(doc, "hint_iterations", 1, MAX_ITERATIONS,
                                                 DEFAULT_HINT_ITERATIONS))
        edition = self.editions.named(doc.get("edition"), "edition")
        record = _record_field(doc, self.editions, doc.get("edition") is not None and edition)
        position = _dict_field(doc, "position")
        if position is not None:
            edition = _position_edition(self.editions, position, doc.get("edition") is not None and edition)
        if record is not None and seat is None:
            seat = record.viewpoint                      # a record kept by a seat continues from that seat
        if mode == "play":
            for name in ("position", "setup"):
                if doc.get(name) is not None:
                    raise WebRequestError(f"{name}: a game against the engine starts from a new game or a record; "
                                          f"start a table game from a {name}")
            sess = play_session(0 if seat is None else seat, limit, players=players, seed=seed, load=record,
                                hint_limit=hint_limit, edition=edition)
        else:
            table = _table_setup(doc, players, seat, edition)
            sess = table_session(seat, hint_limit, players=players, seed=seed, load=record, position=position,
                                 table=table, edition=edition)
        game = WebGame(self.new_id(), sess)
        self.add(game)
        return game


def _position_edition(editions: Editions, position: dict, chosen) -> Edition:
    """The edition of a position sent with a new game: the one it names, which must be the request's `chosen`
    edition when it names one (False: it names none)."""
    named = editions.of_document(position, "position")
    if chosen and named is not chosen:
        raise WebRequestError(f"position.edition: the position was written under {edition_words(named)}, not "
                              f"under {edition_words(chosen)}")
    return named


def _record_field(doc: dict, editions: Editions, chosen=False) -> GameRecord | None:
    """The record a new game continues, read under the edition it names (which must be the request's `chosen`
    one when it names one)."""
    value = _dict_field(doc, "record")
    if value is None:
        return None
    named = editions.of_document(value, "record")
    try:
        return GameRecord.from_json(value, chosen or named)
    except InvalidRecordError as exc:
        raise WebRequestError(f"record: {exc}") from None


# ---------------------------------------------------------------------------------------------------------------
# what a move points at on the board (board_svg's data-target names)

# (first id, end id, target kind, ids per target): an id in [first, end) points at kind:(id - first) // per
_TARGET_RANGES = (
    ("A_PLACE", "A_INT_PICK", "crossing", 3),            # 3 ids a crossing: the class on top
    ("A_COBBLE", "A_STREET", "sidewalk", 1),
    ("A_STREET", "A_INTERSECTION", "space", 1),
    ("A_INTERSECTION", "A_MOD_IMPROVE", "crossing", 1),
    ("A_MOD_TAKE", "A_PS", "modernisme", 5),             # 5 ids a display tile: the project space it goes to
    ("A_PS", "A_TRAM", "service", 1),
    ("A_TRAM", "A_PASSENGER", "space", 1),
    ("A_SAG_TILE", "A_RES", "sagrada", 1),
)


def action_target(state, a: int) -> str | None:
    """The board element action `a` points at, in board_svg's data-target words; None for the moves that are
    no place on the board (end actions, skip, a resources split ...)."""
    for first, end, kind, per in _TARGET_RANGES:
        if C[first] <= a < C[end]:
            return f"{kind}:{(a - C[first]) // per}"
    if C["A_MOD_IMPROVE"] <= a < C["A_MOD_TAKE"]:         # a project space of the player who decides
        return f"project:{state.current_player()}:{a - C['A_MOD_IMPROVE']}"
    if C["A_BUILD"] <= a < C["A_DRAW"]:                   # a building option: its building space
        spaces = state.game_data.edition.t["opt_space"]
        opt = a - C["A_BUILD"]
        return f"building:{spaces[opt]}" if opt < len(spaces) else None
    return None


# ---------------------------------------------------------------------------------------------------------------
# the game as the page sees it

def _caption(game: WebGame, waiting: str) -> str:
    sess = game.session
    s = sess.state
    if s.is_terminal():
        winners = " and ".join(sess.name(p) for p in s.winners())
        return "Game over: " + ", ".join(f"{sess.name(p)} {v} VP" for p, v in enumerate(s.scores())) + \
            f". Winner: {winners}."
    round_no = s.view().round_number
    if waiting == "placement":
        return f"Round {round_no}: {sess.name(s.current_player())} places citizens: enter what they placed"
    if waiting == "draw":
        return f"Round {round_no}: you draw a citizen: which class did you draw?"
    if waiting == "reveal":
        return f"Round {round_no}: a Modernisme tile is revealed: which one?"
    if s.is_chance_node():
        return f"Round {round_no}: {sess.name(s.turn_player)}'s turn (a draw or a reveal is next)"
    who = "your" if s.current_player() == sess.seat else f"{sess.name(s.current_player())}'s"
    return f"Round {round_no}: {who} decision: {decision_words(s)}"


def game_document(game: WebGame) -> dict:
    """The game as its seat sees it: the board (SVG), what the game waits for, the legal choices with their
    notation and board targets, the game log, the scores; everything else once the game is over."""
    sess = game.session
    s = sess.state
    over = s.is_terminal()
    viewpoint = None if over else sess.seat
    view = s.view(viewpoint=viewpoint)
    waiting = game.waiting()
    caption = _caption(game, waiting)
    own = not over and not s.is_chance_node() and s.current_player() == sess.seat and waiting not in ("draw",
                                                                                                     "reveal")
    legal = [{"id": a, "move": _choice_text(s, a, waiting), "target": action_target(s, a),
              **({"preview": preview(s, a)} if own else {}),       # what a choice of the seat's own will do
              **choice_words(s, a, waiting)}                       # a draw's class, a reveal's tile
             for a in game.choices(waiting)]
    doc = {
        "id": game.id, "mode": sess.mode, "seat": sess.seat, "players": s.num_players, "names": sess.names,
        "waiting": waiting, "to_move": view.current_player if view.current_player >= 0 else None,
        "caption": caption, "round": view.round_number,
        "edition": {"name": s.edition, "words": edition_words(s)},
        "engine_note": sess.engine.evaluation_note(s),
        "svg": board_svg(s, viewpoint, sess.board_marks(), caption, you=sess.seat),
        "legal": legal, "can_undo": any(sess.typed),
        "scores": [pl.score for pl in view.players],
        "log": [{"index": ln.index, "text": ln.text, "event": ln.event, "player": ln.player, "round": ln.round}
                for ln in sess.log[-LOG_LINES:]],
        "entries": len(sess.record.actions),
        "iterations": sess.limit.iterations, "hint_iterations": sess.hint_limit.iterations,
        "over": over,
    }
    if waiting == "placement":
        doc["placement"] = placement_picker(s, sess.seat)
    found = game.proposal(waiting)
    if found is not None:
        doc["proposal"] = found
    if over:
        doc["result"] = {"scores": list(s.scores()), "returns": list(s.returns()), "winners": s.winners()}
        if sess.mode == "play":
            doc["seed"] = sess.seed            # the replay key, shown once the game is over
    return doc


def _choice_text(state, a: int, waiting: str) -> str:
    """A choice's notation; the seat's own draw at a table is written as the seat enters it ('draw W')."""
    return draw_entry(a - C["A_DRAW"])["move"] if waiting == "draw" else state.action_to_string(a)


def record_document(game: WebGame) -> dict:
    """The game record as a save holds it (Session.record_to_save: the seat's view until the game is over)."""
    record = game.session.record_to_save()
    game.session.saved = list(game.session.record.actions)
    return record.to_json()


def position_document(game: WebGame) -> dict:
    """The position now, as the seat sees it (State.to_json with the seat's viewpoint; everything once over)."""
    s = game.session.state
    return s.to_json(viewpoint=None if s.is_terminal() else game.session.seat)


def analysis_document(analysis, seat: int) -> dict:
    """An engine.Analysis for the page: who is ahead (per player win probability and expected final score) and
    the best moves with the seat's numbers."""
    return {"iterations": analysis.iterations,
            "players": [{"player": p.player, "win_prob": p.win_prob, "expected_score": p.expected_score,
                         "score_stdev": p.score_stdev, "current_score": p.current_score} for p in analysis.players],
            "moves": [{"moves": m.moves, "visits": m.visits, "win_prob": m.win_prob[seat],
                       "expected_score": m.expected_score[seat], "reason": m.reason}
                      for m in shown_moves(analysis.moves, analysis.player, len(analysis.moves))]}


# ---------------------------------------------------------------------------------------------------------------
# the board editor: a position document drawn as the reader loads it

POSITION_FIELDS = {"position"}
FRESH_FIELDS = {"players", "seat", "seed", "edition"}


def fresh_position(doc: Any, editions: Editions | None = None) -> dict:
    """A new game's setup (new_game(players, seed, edition)) as the position document `seat` would write of it
    (its viewpoint form: the other hands hidden), for the board editor to start from."""
    doc = _check_keys(doc, FRESH_FIELDS, "the setup")
    players = int_field(doc, "players", 2, 4, 2)
    seat = int_field(doc, "seat", 0, players - 1, 0)
    seed = int_field(doc, "seed", 0, 2**63 - 1, 0)
    edition = (editions or Editions()).named(doc.get("edition"), "edition")
    return {"position": new_game(players, seed=seed, edition=edition).to_json(viewpoint=seat)}


_RULE = r"(?:see )?[RA]\d+(?: steps? [\d-]+)?"


def _without_rule_numbers(text: str) -> str:
    """A reader's message without the rulebook's paragraph numbers it cites ('(R43, A39)', ', R11)')."""
    text = re.sub(rf" ?\({_RULE}(?:, {_RULE})*\)", "", text)
    return re.sub(rf"(?:, {_RULE})+(?=\))", "", text)


def position_board(doc: Any, editions: Editions | None = None) -> dict:
    """A position document read as a game would start from it (State.from_json, docs/positions.md; a refusal
    is the reader's message) and drawn from its viewpoint, with the names the document gives the board's
    street and building spaces (by their data-target index)."""
    doc = _check_keys(doc, POSITION_FIELDS, "the board editor's request")
    position = _dict_field(doc, "position")
    if position is None:
        raise WebRequestError("position: the board editor sends the position document to draw")
    edition = (editions or Editions()).of_document(position, "position")
    try:
        state = State.from_json(position, seed=0, edition=edition)
    except BarcelonaError as exc:              # the reader's words, without the rulebook's paragraph numbers
        raise WebRequestError(_without_rule_numbers(str(exc))) from None
    vp = position.get("viewpoint")
    t = state.game_data.edition.t
    return {"svg": board_svg(state, vp, None, f"The position: P{state.turn_player} to move", you=vp),
            "players": state.num_players, "viewpoint": vp, "to_move": state.turn_player,
            "spaces": [space_name(i) for i in range(len(state.view().streets))], "buildings": list(t["bs_names"])}


# ---------------------------------------------------------------------------------------------------------------
# reviews

REVIEW_FIELDS = {"record", "iterations", "seed"}


class ReviewJob:
    """A review (review.review_record) run by the server's review pool; its decisions appear as they are reviewed.
    stop() ends it before its next decision (a dropped review is stopped too); one waiting in line then never
    starts."""

    def __init__(self, rid: str, record: GameRecord, iterations: int, seed: int):
        self.id = rid
        self.record = record
        self.iterations = iterations
        self.seed = seed
        self.decisions: list = []
        self.summary: list = []
        self.at = 0                              # the record entry reviewed last
        self.error: str | None = None
        self.done = False
        self.started = False                     # False while it waits for a place in the review pool
        self.stopped = False
        from ..workflows.review import evaluation_note
        self.note = evaluation_note(record, seed)

    def stop(self) -> None:
        self.stopped = True

    def run(self) -> None:
        from ..workflows.review import review_record
        self.started = True
        if self.stopped:                         # stopped while it waited for a place
            self.done = True
            return
        try:
            review = review_record(self.record, Limit(iterations=self.iterations), seed=self.seed,
                                   progress=self._progress, on_decision=self.decisions.append,
                                   stop=lambda: self.stopped)
            self.summary = review.summary
        except BarcelonaError as exc:
            self.error = str(exc)
        finally:
            self.done = True

    def _progress(self, k: int, i: int, n: int) -> None:
        self.at = i

    def document(self) -> dict:
        """The review so far: per decision the index of its entry, the player, the move played and the engine's,
        the engine's win probability for that player and the mark; the summary once done."""
        return {"id": self.id, "done": self.done, "error": self.error, "players": self.record.players,
                "entries": len(self.record.actions), "at": self.at, "started": self.started,
                "stopped": self.stopped, "engine_note": self.note,
                "decisions": [asdict(d) for d in list(self.decisions)],
                "summary": [s.to_dict() for s in self.summary]}

    def position(self, index: int) -> dict:
        """The position before entry `index`, drawn for the player who decided there (a finished game's record,
        viewpoint None, shows every hand; a table record, only its seat's), with that decision's review."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= len(self.record.actions):
            raise WebRequestError(f"index: expected an entry index from 0 to {len(self.record.actions)}")
        state = self.record.replay(upto=index, seed=self.seed)
        decision = next((asdict(d) for d in self.decisions if d.index == index), None)
        caption = (f"Round {state.view().round_number}: the board before move {index + 1} of "
                   f"{len(self.record.actions)}" if index < len(self.record.actions) else "The end of the game")
        return {"index": index, "svg": board_svg(state, self.record.viewpoint, None, caption),
                "decision": decision}


class Reviews(_Store):
    """The server's reviews."""

    def __init__(self, workers: int = REVIEW_WORKERS, idle_seconds: float = IDLE_SECONDS):
        super().__init__("review", idle_seconds=idle_seconds)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="review")

    def dropped(self, item: ReviewJob) -> None:
        item.stop()

    def start(self, doc: Any, editions: Editions | None = None) -> ReviewJob:
        """A review of the request's record (read under the edition it names, one of `editions`)."""
        doc = _check_keys(doc, REVIEW_FIELDS, "the review")
        record = _record_field(doc, editions or Editions())
        if record is None:
            raise WebRequestError("record: a review needs the game record to review")
        iterations = int_field(doc, "iterations", 1, MAX_ITERATIONS, 500)
        seed = int_field(doc, "seed", 0, 2**63 - 1, 0)
        job = ReviewJob(self.new_id(), record, iterations, seed)
        self.add(job)
        self.pool.submit(job.run)
        return job
