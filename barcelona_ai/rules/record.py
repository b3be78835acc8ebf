"""Game records: where a game started and every decision and chance outcome, in order; replaying one gives the
same state.

A record is JSON (``format: barcelona-record``, see docs/records.md):

    {"format": "barcelona-record", "version": 1, "engine": "barcelona_ai 0.1.0", "edition": "default",
     "edition_sha256": "6f0e...",                      # the content of the board data played (tables.content_digest)
     "players": 3,
     "start": {"seed": 7, "setup": "random"}          # or {"position": <a position document>}
     "viewpoint": null,                                # a seat for records kept at a real table (table mode)
     "seats": ["human", "ismcts:t1.0", "greedy"],      # optional labels
     "actions": [{"id": 27, "move": "place (4,1) W/M", "by": 0}, {"id": 615, "move": "draw M", "by": "chance"},
                 {"id": null, "move": "draw (hidden)", "by": "chance"}, ...],
     "result": {"scores": [...], "returns": [...]},    # when the game is over
     "resume": "eJy..."}                               # play's save before the end: what --load continues from

Table mode (a record kept from one player's point of view) writes the other players' draws as hidden entries
(``"id": null``). Replaying samples them from the unseen pool with a seed, and when that player later places
citizens the sample is corrected so the hand holds what was placed (``ensure_hand``): the state then agrees with
everything the viewpoint player saw.

``resume`` is written by ``barcelona-ai play`` in a save before the end of the game (workflows/session.py): the
game as the engine holds it (its hidden citizens, the chance seed), encoded so that the player does not read it
by accident, from which ``play --load`` continues the same game. Every other reader ignores it.
"""
from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..core import CONSTANTS, State, action_id, new_game
from ..errors import BarcelonaError, IllegalActionError, InvalidRecordError
from .jsonio import check_depth, parse_json, read_bytes, short_repr, show_path
from .notation import parse_placement
from .editions import edition_of_document
from .tables import Edition, load_edition

C = CONSTANTS
CLASSES = ("W", "M", "U")


def is_draw_for_other(state: State, viewpoint: int | None) -> bool:
    """True at a citizen draw the viewpoint player does not see (another player's draw, A6)."""
    return viewpoint is not None and state.is_hidden_draw(viewpoint)


def sample_hidden_draw(state: State, rng: random.Random) -> int:
    """A draw outcome sampled with its probability (for a draw the viewpoint player cannot see)."""
    acts, probs = zip(*state.chance_outcomes())
    return rng.choices(acts, probs)[0]


# The resampling of unseen citizens is the core's (State._hold, _make_drawable, _give_hand); these name it for
# records, whose errors are InvalidRecordError.

def ensure_hand(state: State, player: int, classes: list[int]) -> None:
    """Make `player`'s hidden hand hold `classes` (class ids, with repeats) by swapping citizens with the bag.
    Used at a real table: another player's hand was sampled, and now they placed citizens we can see.
    Raises InvalidRecordError if the unseen citizens cannot supply them; changes nothing then."""
    _as_record_error(state._hold, player, classes)


def unseen_pool(state: State, seat: int) -> list[int]:
    """Citizens `seat` has not seen, by class: the bag and every other player's hand."""
    return state.unseen_pool(seat)


def make_drawable(state: State, k: int, seat: int) -> None:
    """Before `seat`'s own draw of class k at a real table: if the sampled hidden hands hold every unseen
    citizen of that class, move one back to the bag (nothing `seat` has seen changes)."""
    _as_record_error(state._make_drawable, k, seat)


def give_hand(state: State, p: int, classes: list[int], seat: int) -> None:
    """Make another player's sampled hand hold `classes` (what they visibly placed), drawing on third players'
    hidden hands too when needed (State._give_hand)."""
    _as_record_error(state._give_hand, p, classes, seat)


def _as_record_error(edit, *args) -> None:
    try:
        edit(*args)
    except InvalidRecordError:
        raise
    except BarcelonaError as exc:
        raise InvalidRecordError(str(exc)) from None


def apply_entry(state: State, entry: dict, viewpoint: int | None, rng: random.Random,
                where: str = "entry") -> None:
    """Apply one record entry. At a real table (viewpoint set): a hidden entry is another player's draw,
    sampled from the unseen citizens; before the viewpoint's own draw the sampled hands give back a citizen of
    that class if needed; another player's placement first corrects their sampled hand to what they placed."""
    a = entry.get("id")
    if a is None:
        if not is_draw_for_other(state, viewpoint):
            raise InvalidRecordError(f"{where}: a hidden entry where no hidden draw is due")
        state.apply(sample_hidden_draw(state, rng))
        return
    if viewpoint is not None and not isinstance(a, bool) and isinstance(a, int):
        try:
            if state.draws_for() == viewpoint and C["A_DRAW"] <= a < C["A_REVEAL"]:
                make_drawable(state, a - C["A_DRAW"], viewpoint)
            elif not state.is_chance_node() and not state.is_terminal() and state.current_player() != viewpoint \
                    and C["A_PLACE"] <= a < C["A_INT_PICK"]:
                place_with_known_citizens(state, a, entry.get("move", ""), viewpoint)
                return
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"{where}: {exc}") from None
    try:
        state.apply(a)
    except IllegalActionError as exc:
        raise InvalidRecordError(f"{where}.id: {exc}") from None


@dataclass
class GameRecord:
    players: int
    start: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)
    edition: Any = "default"                   # what new_game takes: a shipped name, a data-file path or an Edition
    viewpoint: int | None = None
    seats: list[str] | None = None
    result: dict[str, Any] | None = None
    engine: str = f"barcelona_ai {__version__}"
    resume: str | None = None                  # play's encoded continuation (session.py); None elsewhere

    # -- building ---------------------------------------------------------------------------------------
    @staticmethod
    def for_new_game(players: int, seed: int, setup: str = "random", edition: Any = "default",
                     seats: list[str] | None = None, viewpoint: int | None = None) -> "GameRecord":
        return GameRecord(players=players, start={"seed": seed, "setup": setup}, edition=edition, seats=seats,
                          viewpoint=viewpoint)

    @staticmethod
    def for_position(state: State, seats: list[str] | None = None, viewpoint: int | None = None) -> "GameRecord":
        return GameRecord(players=state.num_players, start={"position": state.to_json(viewpoint)},
                          edition=state.game_data.edition, seats=seats, viewpoint=viewpoint)

    def initial_state(self, seed: int = 0) -> State:
        if "position" in self.start:
            try:
                return State.from_json(self.start["position"], seed=seed, edition=self.edition)
            except InvalidRecordError:
                raise
            except BarcelonaError as exc:
                raise InvalidRecordError(f"start.position: {exc}") from None
        try:
            return new_game(self.players, seed=self.start["seed"], edition=self.edition,
                            setup=self.start.get("setup", "random"))
        except BarcelonaError as exc:
            raise InvalidRecordError(f"edition: {exc}") from None

    def add(self, state: State, action: int | None, hidden: bool = False) -> None:
        """Note `action` (about to be applied to `state`); hidden=True for a draw the viewpoint cannot see."""
        by = "chance" if state.is_chance_node() else state.current_player()
        if hidden:
            self.actions.append({"id": None, "move": "draw (hidden)", "by": "chance"})
        else:
            a = action_id(action)
            self.actions.append({"id": a, "move": state.action_to_string(a), "by": by})

    def finish(self, state: State) -> None:
        if state.is_terminal():
            self.result = {"scores": state.scores(), "returns": state.returns()}

    # -- replaying --------------------------------------------------------------------------------------
    def steps(self, seed: int = 0):
        """Walk the record in one pass: yields (i, state before entry i, entry) for every entry, then
        (len, final state, None). The state is the walker's own (clone it to keep it). Hidden draws are sampled
        with `seed`; another player's placement in a table-mode record corrects their sampled hand first."""
        if not _is_int(seed) or seed < 0:
            raise InvalidRecordError(f"seed: {short_repr(seed)} is not a non-negative integer")
        s = self.initial_state(seed)
        rng = random.Random(seed)
        for i, entry in enumerate(self.actions):
            yield i, s, entry
            apply_entry(s, entry, self.viewpoint, rng, f"actions[{i}]")
        yield len(self.actions), s, None

    def decisions(self, seed: int = 0):
        """Walk the record's decisions: yields (d, state) for the d-th entry at which a player decides (chance
        entries skipped), d = 0, 1, ...; the state is the walker's own, as in steps()."""
        d = 0
        for _i, s, entry in self.steps(seed):
            if entry is not None and s.current_player() >= 0:
                yield d, s
                d += 1

    def replay(self, upto: int | None = None, seed: int = 0) -> State:
        """The state after the first `upto` entries (all by default); see steps()."""
        n = len(self.actions) if upto is None else upto
        if not _is_int(n) or not 0 <= n <= len(self.actions):
            raise InvalidRecordError(f"--at {upto}: the record has {len(self.actions)} entries")
        for i, s, _ in self.steps(seed):
            if i == n:
                return s
        raise AssertionError("unreachable")

    # -- JSON -------------------------------------------------------------------------------------------
    def edition_data(self) -> Edition:
        """The edition the game is played under (loaded)."""
        try:
            return load_edition(self.edition)
        except BarcelonaError as exc:
            raise InvalidRecordError(f"edition: {exc}") from None

    def to_json(self) -> dict:
        ed = self.edition_data()
        doc = {"format": "barcelona-record", "version": 1, "engine": self.engine, "edition": ed.name,
               "edition_sha256": ed.sha256, "players": self.players, "start": self.start, "viewpoint": self.viewpoint,
               "seats": self.seats, "actions": self.actions}
        if self.result is not None:
            doc["result"] = self.result
        if self.resume is not None:
            doc["resume"] = self.resume
        return doc

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    def save(self, path: str | Path, overwrite: bool = True) -> None:
        """Write the record; with overwrite=False an existing file is left alone (FileExistsError)."""
        with open(path, "w" if overwrite else "x", encoding="utf-8") as f:
            f.write(self.dumps() + "\n")

    @staticmethod
    def from_json(doc: Any, edition: Any = None) -> "GameRecord":
        """A record from its JSON (a dict or the text): every field is checked, then every entry is replayed
        (it must be legal where it stands) and the fields that state facts about the game (players, seats,
        result) must agree with the replay. Any problem raises InvalidRecordError naming the first wrong field;
        nothing of `doc` is changed. `edition` (a name, a data-file path or an Edition) is the edition the
        reader plays: a record written under another one is refused naming both (editions.edition_of_document);
        by default, the shipped edition the record names."""
        if isinstance(doc, (str, bytes, bytearray)):
            doc = parse_json(doc, "record", InvalidRecordError)
        else:
            check_depth(doc, "record", InvalidRecordError)
        if not isinstance(doc, dict):
            raise InvalidRecordError("record: expected a JSON object")
        if doc.get("format") != "barcelona-record":
            raise InvalidRecordError("format: expected 'barcelona-record'")
        if not _is_int(doc.get("version")) or doc.get("version") != 1:
            raise InvalidRecordError(f"version: {short_repr(doc.get('version'))} is not supported (1)")
        known = {"format", "version", "engine", "edition", "edition_sha256", "players", "start", "viewpoint", "seats",
                 "actions", "result", "resume"}
        extra = sorted(str(k) for k in set(doc) - known)
        if extra:
            raise InvalidRecordError(f"{_key(extra[0])}: unknown field")
        engine = doc.get("engine", "")
        if not isinstance(engine, str) or len(engine) > MAX_LABEL:
            raise InvalidRecordError(f"engine: expected a text of at most {MAX_LABEL} characters")
        written = doc.get("edition", "default")
        if not isinstance(written, str) or not 1 <= len(written) <= 4096:
            raise InvalidRecordError(f"edition: {short_repr(written)} is not an edition name or data-file path")
        try:
            played = edition_of_document(written, doc.get("edition_sha256"), chosen=edition)
        except BarcelonaError as exc:               # its message names the field (edition or edition_sha256)
            raise InvalidRecordError(str(exc)) from None
        players = doc.get("players")
        if not _is_int(players) or not 2 <= players <= 4:
            raise InvalidRecordError(f"players: {short_repr(players)} is not 2..4")
        start = doc.get("start")
        if not isinstance(start, dict) or not ("position" in start or "seed" in start):
            raise InvalidRecordError("start: expected {'seed': N, 'setup': ...} or {'position': {...}}")
        if "position" in start and set(start) != {"position"}:
            raise InvalidRecordError("start: a start from a position holds only 'position'")
        if "seed" in start:
            if set(start) - {"seed", "setup"}:
                raise InvalidRecordError(f"start.{sorted(set(start) - {'seed', 'setup'})[0]}: unknown field")
            if not _is_int(start["seed"]) or not 0 <= start["seed"] <= MAX_SEED:
                raise InvalidRecordError(f"start.seed: {short_repr(start['seed'])} is not an integer in 0..2^64-1")
            if start.get("setup", "random") not in ("random", "printed"):
                raise InvalidRecordError(f"start.setup: {short_repr(start.get('setup'))} is not 'random' or 'printed'")
        else:
            if isinstance(start["position"], str):
                start = {"position": parse_json(start["position"], "start.position", InvalidRecordError)}
            if not isinstance(start["position"], dict):
                raise InvalidRecordError("start.position: expected a position document (an object)")
        vp = doc.get("viewpoint")
        if vp is not None and (not _is_int(vp) or not 0 <= vp < players):
            raise InvalidRecordError(f"viewpoint: {short_repr(vp)} is not a seat of a {players}-player game")
        seats = doc.get("seats")
        if seats is not None:
            if not isinstance(seats, list) or len(seats) != players:
                raise InvalidRecordError(f"seats: expected null or a list of {players} labels, one a seat")
            for i, x in enumerate(seats):
                if not isinstance(x, str) or len(x) > MAX_LABEL:
                    raise InvalidRecordError(f"seats[{i}]: expected a text of at most {MAX_LABEL} characters")
        actions = doc.get("actions")
        if not isinstance(actions, list):
            raise InvalidRecordError("actions: expected a list")
        if len(actions) > MAX_ENTRIES:
            raise InvalidRecordError(f"actions: {len(actions)} entries; a game has far fewer (at most "
                                     f"{MAX_ENTRIES} are read)")
        for i, e in enumerate(actions):
            _check_entry(e, f"actions[{i}]", vp is not None)
        result = doc.get("result")
        if result is not None:
            _check_result_shape(result, players)
        resume = doc.get("resume")
        if resume is not None and (not isinstance(resume, str) or len(resume) > MAX_RESUME):
            raise InvalidRecordError(f"resume: expected a text of at most {MAX_RESUME} characters")
        rec = GameRecord(players=players, start=start, actions=actions, edition=played, viewpoint=vp,
                         seats=seats, result=result, engine=engine, resume=resume)
        final = rec._replay_checked()
        if result is not None:
            _check_result(result, final)
        return rec

    def _replay_checked(self) -> State:
        """Replay every entry (seed 0), checking the start and each entry's 'by' against the replay; the
        final state."""
        s = None
        for i, s, entry in self.steps(0):
            if i == 0:
                self._check_start(s)
            if entry is None:
                break
            by = entry.get("by")
            if by is not None and entry.get("id") is not None:
                want = "chance" if s.is_chance_node() else s.current_player()
                if by != want or isinstance(by, bool):
                    raise InvalidRecordError(f"actions[{i}].by: {short_repr(by)}, but "
                                             + ("a chance outcome" if want == "chance" else f"player {want}")
                                             + " decides there")
            elif by is not None and by != "chance":
                raise InvalidRecordError(f"actions[{i}].by: a hidden draw is a chance outcome, not {short_repr(by)}")
        return s

    def _check_start(self, s: State) -> None:
        if s.num_players != self.players:
            raise InvalidRecordError(f"players: {self.players}, but the start position has {s.num_players}")
        if "position" in self.start:
            pos = self.start["position"]
            pvp = pos.get("viewpoint") if isinstance(pos, dict) else None
            if pvp is not None and pvp != self.viewpoint:
                raise InvalidRecordError(f"viewpoint: {short_repr(self.viewpoint)}, but the start position is seen by "
                                         f"player {pvp}")

    @staticmethod
    def load(path: str | Path, edition: Any = None) -> "GameRecord":
        what = f"record {show_path(path)}"
        data = read_bytes(path, what, InvalidRecordError)
        doc = parse_json(data, what, InvalidRecordError)
        if isinstance(doc, dict) and doc.get("format") == "barcelona-position":
            raise InvalidRecordError(f"{show_path(path)} is a position, not a game record: start from it with "
                                     "'table --position FILE', or ask 'hint FILE' / 'analyse FILE'")
        return GameRecord.from_json(doc, edition)


def numbered_paths(folder: str | Path, count: int, force: bool = False, stem: str = "game") -> list[Path]:
    """`count` record files folder/game-0001.json, ... for a run that writes games. Without `force` the
    numbers go on after the highest game-NNNN.json already there, so that no record is overwritten; with
    `force` they start at 1 (and overwrite)."""
    folder = Path(folder)
    start = 0
    if not force:
        pattern = re.compile(rf"{re.escape(stem)}-(\d+)\.json")
        found = [int(m.group(1)) for f in folder.iterdir() if (m := pattern.fullmatch(f.name)) and f.is_file()] \
            if folder.is_dir() else []
        start = max(found, default=0)
    return [folder / f"{stem}-{start + g:04d}.json" for g in range(1, count + 1)]


MAX_SEED = 2 ** 64 - 1          # the core uses 64 bits of a seed: larger ones would replay another game
MAX_ENTRIES = 10_000            # a game has a few hundred entries (a 4-player game about 400)
MAX_LABEL = 200                 # seats, engine, move texts
MAX_RESUME = 1 << 20            # characters of play's encoded continuation (a whole game's takes a few thousand)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)




def _key(k: str) -> str:
    """A field name for an error message: as is when short and printable."""
    return k if len(k) <= 40 and k.isprintable() else short_repr(k)


def _check_entry(e: Any, where: str, table: bool) -> None:
    if not isinstance(e, dict) or "id" not in e:
        raise InvalidRecordError(f"{where}: expected an object with an 'id'")
    extra = sorted(str(k) for k in set(e) - {"id", "move", "by"})
    if extra:
        raise InvalidRecordError(f"{where}.{_key(extra[0])}: unknown field")
    a = e["id"]
    if a is not None and (not _is_int(a) or not 0 <= a < C["NUM_ACTIONS"]):
        raise InvalidRecordError(f"{where}.id: {short_repr(a)} is not an action id (0..{C['NUM_ACTIONS'] - 1})")
    if a is None and not table:
        raise InvalidRecordError(f"{where}.id: null (a hidden draw) is only for a record kept at a table "
                                 "(viewpoint set)")
    move = e.get("move", "")
    if not isinstance(move, str) or len(move) > MAX_LABEL:
        raise InvalidRecordError(f"{where}.move: expected a text of at most {MAX_LABEL} characters")
    by = e.get("by")
    if by is not None and by != "chance" and (not _is_int(by) or not 0 <= by < 4):
        raise InvalidRecordError(f"{where}.by: {short_repr(by)} is not a seat or 'chance'")


def _check_result_shape(result: Any, players: int) -> None:
    if not isinstance(result, dict) or set(result) != {"scores", "returns"}:
        raise InvalidRecordError("result: expected {'scores': [...], 'returns': [...]}")
    sc, ret = result["scores"], result["returns"]
    if not isinstance(sc, list) or len(sc) != players or not all(_is_int(x) for x in sc):
        raise InvalidRecordError(f"result.scores: expected {players} integers")
    if not isinstance(ret, list) or len(ret) != players or \
            not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in ret):
        raise InvalidRecordError(f"result.returns: expected {players} numbers")


def _check_result(result: dict, final: State) -> None:
    if not final.is_terminal():
        raise InvalidRecordError("result: the record states a result, but its game is not over after the "
                                 "last entry")
    if result["scores"] != final.scores():
        raise InvalidRecordError(f"result.scores: {short_repr(result['scores'])}, but the replay scores "
                                 f"{final.scores()}")
    if any(abs(x - y) > 1e-9 for x, y in zip(result["returns"], final.returns())):
        raise InvalidRecordError(f"result.returns: {short_repr(result['returns'])}, but the replay gives "
                                 f"{final.returns()} (R127)")


def place_with_known_citizens(state: State, action: int, move: str, viewpoint: int) -> None:
    """Apply another player's placement at a real table: their (sampled) hand is first corrected to hold the
    citizens seen on the crossing. `move` is the notation 'place (c,r) T/B' (the bottom class is read from it
    by notation.parse_placement)."""
    p = state.current_player()
    top = (action - C["A_PLACE"]) % 3
    classes = [top]
    size = state.hand_size(p)
    if size == 2:
        placed = parse_placement(move)
        if placed is None or placed[3] is None:
            raise InvalidRecordError(f"a placement by player {p} needs both citizens, e.g. 'place (1,2) W/M'")
        classes.append(placed[3])
    give_hand(state, p, classes, viewpoint)
    try:
        state.apply(action)
    except IllegalActionError as exc:
        raise InvalidRecordError(f"placement by player {p}: {exc}") from None
