"""A game in progress, entered decision by decision: ``barcelona-ai play`` (a human against the engine) and
``barcelona-ai table`` (a game at a real table, entered from one seat's point of view). play.py is the terminal
around a Session (prompts, printing); a web page can drive the same Session.

Every move goes into the game record first; the state is the record replayed, so undo (cut the record, replay
it) is exact. In play mode chance outcomes come from the seed and the position in the record. In table mode the
other players' draws are hidden entries, sampled from the citizens the seat has not seen and corrected when that
player places citizens (record.apply_entry).

Saving a game against the engine before its end (Session.save, and the save after every entry that
``autosave`` asks for) writes the human's view of the game (seen_by: the engine's citizens and the seed are not in
its moves, rules A6) and, in the record's ``resume`` field, the game as the session holds it (the engine's
citizens, the chance seed and whether it is secret) as compressed JSON in base64: nobody reads it by accident,
and ``play --load`` continues the very same game from it (play_session). A record without it (the web board's
download, Session.record_to_save) is continued by drawing the engine's citizens again from those the human has
not seen. Once the game is over a save is the whole record. Every file is written whole: a temporary file in the
same folder, then renamed over the old one (write_atomically), so an interruption leaves the last save intact.
"""
from __future__ import annotations

import base64
import binascii
import contextlib
import json
import random
import re
import zlib

from ..core import CONSTANTS as C
from ..search.bots import ISMCTSBot
from ..search.running import mix_seed
from ..core import State, new_game
from ..rules.gamelog import LogLine, changes, entry_lines
from ..errors import AmbiguousMoveError, BarcelonaError, IllegalActionError, InvalidMoveError, PlayerCountError
from ..rules.notation import CLASS_LETTERS as CLASSES
from ..rules.notation import parse_placement
from ..rules.jsonio import parse_json, write_atomically
from ..rules.record import MAX_SEED, GameRecord, InvalidRecordError, apply_entry, is_draw_for_other, unseen_pool
from .playout import chance_outcome
from ..rules.tables import load_edition

CLASS_NAMES = ("Working", "Middle", "Upper")


def hidden_draw_entry() -> dict:
    """The record entry of a draw the seat does not see (another player's, A6)."""
    return {"id": None, "move": "draw (hidden)", "by": "chance"}


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
        self.limit = limit                   # the engine's budget a decision (play) or for hints (table)
        self.hint_limit = limit              # the budget of the seat's hints and eval
        self.plans: tuple[list, list] | None = None      # (record ids when asked, the last hints)
        self.engine = engine
        self.opponent = self._new_opponent()     # the engine's seats (engine_move): one player a turn
        self.opponent_turn = None                # the turn it plays (turn_key)
        self.names = names
        self.typed: list[bool] = []
        self.log: list[LogLine] = []         # the game log as the seat sees it (gamelog)
        self.seen_state: State | None = None  # the state after the seat's last decision (board markers)
        self.header_key = None
        self.state = None
        self.rng = random.Random(seed)
        self.rebuild(len(record.actions))
        self.saved = list(record.actions)      # the entries as last saved (or loaded)
        self.autosave: str | None = None       # play: the file written after every entry (keep)
        self.warn = None                       # called with a line when that file cannot be written
        self.shield = contextlib.nullcontext   # every push and undo, with its save, runs inside shield()
        self.resumed = False                   # continued from a save's resume field: the very same game
        self.load_note: str | None = None      # why a loaded record's resume field was not used
        self._save_failed = False

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
        self.seen_state = None
        s = self.record.initial_state(self.seed)
        rng = random.Random(self.seed)
        typed, log = [], []
        for i, entry in enumerate(self.record.actions):
            typed.append(self.input_point(s, entry.get("id")))
            before = s.clone()
            try:
                self.apply_entry(s, entry, rng)
            except IllegalActionError as exc:
                raise InvalidRecordError(f"actions[{i}].id: {exc}") from None
            log += entry_lines(before, entry, s, i, self.seat, self.name)
            if entry.get("by") == self.seat:
                self.seen_state = s.clone()
        self.state, self.rng, self.typed, self.log = s, rng, typed, log
        self.header_key = None

    def push(self, entry: dict, typed: bool) -> list[LogLine]:
        """Apply an entry (on a copy first: a failure leaves the game as it was), note it in the record and save
        it (keep); returns its lines of the game log (gamelog.entry_lines)."""
        with self.shield():
            s = self.state.clone()
            self.apply_entry(s, entry, self.rng)
            lines = entry_lines(self.state, entry, s, len(self.record.actions), self.seat, self.name)
            self.record.actions.append(entry)
            self.typed.append(typed)
            self.state = s
            self.log += lines
            if entry.get("by") == self.seat:
                self.seen_state = s.clone()
            self.keep()
        return lines

    def board_marks(self) -> dict | None:
        """The last-move markers of the board (gamelog.changes): what changed since the seat's last decision;
        None before it made one."""
        return None if self.seen_state is None else changes(self.seen_state, self.state)

    def since_last_turn(self) -> list[LogLine]:
        """The game log since the seat's last decision (what the others did, the scorings, the reveals)."""
        mine = [i for i, e in enumerate(self.record.actions) if e.get("by") == self.seat]
        last = mine[-1] if mine else -1
        return [ln for ln in self.log if ln.index > last]

    def events_of_last_entry(self) -> list[str]:
        """The events (scorings, refreshes, the final scoring) the last entry brought."""
        n = len(self.record.actions) - 1
        return [ln.text for ln in self.log if ln.index == n and ln.event]

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
        with self.shield():
            self.rebuild(i)
            self.keep()
        by = gone.get("by")
        who = "" if by == "chance" else f"{self.name(by)}: "
        more = f" and the {later} entries after it" if later else ""
        return f"Took back {who}{gone.get('move')}{more}."

    def record_to_save(self) -> GameRecord:
        """The game record as a save holds it. In play mode before the game is over it is the human's view of
        the game (seen_by): the engine's citizens and the chance seed are not in it (A6)."""
        self.record.finish(self.state)
        over = self.state.is_terminal()
        return self.record if self.mode == "table" or over else seen_by(self.record, self.seat, self.seed)

    def record_to_keep(self) -> GameRecord:
        """What a save of the game holds: record_to_save and, in play mode before the game is over, the resume
        field from which play --load continues the very same game (encode_resume)."""
        out = self.record_to_save()
        if out is not self.record:
            out.resume = encode_resume(self.record, self.seat, self.seed, self.secret_seed)
        return out

    def _write(self, path: str) -> str | None:
        """Write record_to_keep to `path` (write_atomically); why it could not be written, or None."""
        try:
            write_atomically(path, self.record_to_keep().dumps() + "\n")
        except OSError as exc:
            return f"cannot save to {path!r}: {exc.strerror or exc}"
        self.saved = list(self.record.actions)
        return None

    def save(self, path: str) -> str:
        """Write the game (record_to_keep) to `path`; the line that says so."""
        failed = self._write(path)
        if failed:
            return failed
        return (f"Saved the game record ({len(self.record.actions)} entries) to {path}; continue it with: "
                f"{self.continue_command(path)}")

    def continue_command(self, path: str) -> str:
        how = "play" if self.mode == "play" else "table"
        return f"barcelona-ai {how} --load {path}"

    @property
    def autosaving(self) -> bool:
        """Whether the autosave file holds the game as it is now."""
        return self.autosave is not None and not self._save_failed

    def keep(self) -> None:
        """Save the game to the autosave file, if there is one; the first failure in a row is told to warn."""
        if self.autosave is None:
            return
        failed = self._write(self.autosave)
        if failed and not self._save_failed and self.warn is not None:
            self.warn(f"{failed}: the game is not saved as it goes (save FILE saves it elsewhere)")
        self._save_failed = failed is not None

    def unsaved(self) -> bool:
        """Whether the game has entries that no save (or load) holds."""
        return self.record.actions != self.saved

    # -- what comes next -----------------------------------------------------------------------------------
    def new_turn(self) -> bool:
        """True (once) when a player's turn has just started: a decision of a player whose turn was not seen
        yet."""
        s = self.state
        if s.is_chance_node() or s.is_terminal():
            return False
        cur = s.turn_player
        key = (cur, s.view().players[cur].turns)
        if key == self.header_key:
            return False
        self.header_key = key
        return True

    def chance_outcome(self) -> int:
        """Play mode: the chance outcome due now, from the seed and the number of entries so far (the same
        seed and the same answers give the same game)."""
        return chance_outcome(self.state, random.Random(mix_seed(self.seed, len(self.record.actions))))

    def engine_move(self) -> int:
        """The engine's choice for the player to move (play mode): the arena's ISMCTS player (bots.ISMCTSBot:
        best_move at the session's budget, keeping its tree between its decisions), the engine whose strength
        docs/measurements/strength.md records; a new one each turn (no tree outlives a turn in its games: a
        player's next turn starts from positions its last search did not reach), so that what it plays depends
        on the record and the seed only (take_up_turn). Its numbers are not shown: it reads its own hand (A6)."""
        return self.engine_player().choose(self.state)

    def engine_player(self) -> ISMCTSBot:
        """The engine player of the turn going on (engine_move)."""
        key = turn_key(self.state)
        if key != self.opponent_turn:
            self.opponent, self.opponent_turn = self._new_opponent(), key
        return self.opponent

    def _new_opponent(self) -> ISMCTSBot:
        return ISMCTSBot(self.limit.iterations, self.limit.time, seed=self.seed)

    def take_up_turn(self) -> int:
        """A new engine player for the turn going on that has run again the searches of the engine's decisions
        of that turn so far (with an iteration budget: the same searches, so the same tree): its next move is
        the one the game would have had without the stop (a load, an interrupted search). Returns how many
        searches it ran."""
        s = self.state
        self.opponent, self.opponent_turn = self._new_opponent(), None
        if self.mode != "play" or s.is_terminal() or s.is_chance_node() or not self.limit.iterations:
            return 0
        self.opponent_turn = key = turn_key(s)
        done = 0
        for _i, t, entry in self.record.steps(self.seed):
            if entry is None:
                break
            if not t.is_chance_node() and t.current_player() != self.seat and len(t.legal_actions()) > 1 \
                    and turn_key(t) == key:
                self.opponent.choose(t.clone())
                done += 1
        return done

    def hints(self, limit=None) -> list:
        """The engine's 3 best turn plans for the seat, which decides now (at `limit`, default the hint budget);
        remembered so that planned_action(k) can play them."""
        return self.remember_hints(self.engine.hints(self.state, limit or self.hint_limit, top=3))

    def remember_hints(self, plans: list) -> list:
        """Keep `plans` (hints of the position now, e.g. those of an interrupted search) for planned_action."""
        self.plans = ([e.get("id") for e in self.record.actions], plans)
        return plans

    def planned_action(self, k: int) -> int | None:
        """The next decision of hint k (1-based) of the last hints, if every entry since they were given
        followed that plan; None when there are none or they no longer apply."""
        if self.plans is None:
            return None
        ids, plans = self.plans
        if not 1 <= k <= len(plans):
            raise InvalidMoveError(f"there is no hint {k}: the last hints were 1..{len(plans)}")
        done = [e.get("id") for e in self.record.actions]
        if done[:len(ids)] != ids:
            return None
        plan, since = plans[k - 1].actions, done[len(ids):]
        if since != plan[:len(since)] or len(since) >= len(plan) or plan[len(since)] not in \
                self.state.legal_actions():
            return None
        return plan[len(since)]

    def evaluate(self):
        """Who is ahead now, as the seat sees it (standing.evaluate with the hint budget; seed 0): a search of
        the position on the seat's decision, else an average over the seat's determinizations and the chance
        outcome due; the result once the game is over."""
        from .standing import evaluate
        viewpoint = None if self.state.is_terminal() else self.seat
        return evaluate(self.state, self.engine, self.hint_limit, viewpoint=viewpoint, seed=0)

    def push_hidden_draw(self) -> int:
        """Table mode: another player's draw the seat does not see, sampled; returns that player."""
        cur = self.state.turn_player
        self.push(hidden_draw_entry(), False)
        return cur

    # -- table-mode entries (parsing what the user typed; errors are InvalidMoveError) ---------------------
    def draw_choices(self) -> tuple[list[int], list[int]]:
        """The seat's own draw: the unseen citizens by class, and the classes it can draw (some unseen)."""
        pool = unseen_pool(self.state, self.seat)
        return pool, [k for k in range(3) if pool[k] > 0]

    def own_draw_entry(self, text: str, offered: list[int]) -> dict:
        """'draw W' (or 'W', 'working' ...) for the seat's own draw."""
        m = re.fullmatch(r"(?:draw\s*)?(w|m|u|working|middle|upper)", text.strip(), re.I)
        if not m:
            raise InvalidMoveError(f"'{text}' is not a draw: type 'draw W', 'draw M' or 'draw U' "
                                   f"(or 1-{len(offered)})")
        k = "wmu".index(m.group(1)[0].lower())
        if k not in offered:
            raise InvalidMoveError(f"no {CLASS_NAMES[k]} citizen is left unseen: the bag cannot hold one")
        return draw_entry(k)

    def other_placement_entry(self, text: str) -> dict:
        """'place (c,r) T/B' for another player (notation.parse_placement): the entry, which names both
        citizens, so that replaying it corrects that player's sampled hand. Another legal move that is no
        placement (a skip) is accepted in notation."""
        s = self.state
        p = s.current_player()
        placed = parse_placement(text)
        if placed is None:
            return self._other_non_placement(text)
        c, r, top, bottom = placed
        if not (0 <= c <= 4 and 0 <= r <= 4):
            raise InvalidMoveError(f"({c},{r}) is not a crossing: columns and rows are 0..4")
        size = hand_size(s, p)
        if size >= 2 and bottom is None:
            raise InvalidMoveError(f"{self.name(p)} places 2 citizens: name both, top first, e.g. "
                                   f"'place ({c},{r}) {CLASSES[top]}/M'")
        if size < 2 and bottom is not None:
            raise InvalidMoveError(f"{self.name(p)} holds {size} citizen: type 'place ({c},{r}) {CLASSES[top]}'")
        a = C["A_PLACE"] + (r * 5 + c) * 3 + top
        move = f"place ({c},{r}) {CLASSES[top]}" + (f"/{CLASSES[bottom]}" if bottom is not None else "")
        return {"id": a, "move": move, "by": p}

    def _other_non_placement(self, text: str) -> dict:
        s = self.state
        p = s.current_player()
        try:
            a = s.string_to_action(text)           # e.g. a skip, when that is legal
        except (InvalidMoveError, AmbiguousMoveError):
            a = None
        if a is not None and a >= C["A_INT_PICK"]:
            return self.entry(a)
        if text.strip().lower().startswith("place"):
            raise InvalidMoveError(f"'{text}': name the crossing and the citizens {self.name(p)} placed, top "
                                   "first, e.g. 'place (1,2) W/M' (c column, r row, 0-4)")
        raise InvalidMoveError(f"'{text}' is not a placement: type what {self.name(p)} placed as "
                               "'place (c,r) TOP/BOTTOM', e.g. 'place (1,2) W/M' (c column, r row, 0-4)")


def draw_entry(k: int) -> dict:
    """The record entry of a draw of class k seen by the seat."""
    return {"id": C["A_DRAW"] + k, "move": f"draw {CLASSES[k]}", "by": "chance"}


def reveal_action(state: State, text: str) -> int:
    """A Modernisme reveal typed as 'reveal SC05' or just 'SC05'."""
    try:
        return state.string_to_action(text)
    except InvalidMoveError:
        return state.string_to_action("reveal " + text)


def hand_size(state: State, p: int) -> int:
    return state.hand_size(p)


def turn_key(state: State) -> tuple[int, int]:
    """The turn going on: its player and how many turns that player had finished before it."""
    p = state.turn_player
    return p, state.view().players[p].turns


# ---------------------------------------------------------------------------------------------------------------
# saving: the resume field, whole files

MAX_RESUME_BYTES = 1 << 22         # the resume field's JSON (a whole game's is some 30 kB)


def encode_resume(record: GameRecord, seat: int, seed: int, secret: bool) -> str:
    """The resume field: {"seat", "seed", "secret", "record"} (the game as the session holds it) as compressed
    JSON in base64."""
    game = record.to_json()
    game.pop("resume", None)
    doc = {"seat": seat, "seed": seed, "secret": secret, "record": game}
    raw = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def decode_resume(text: str, edition=None) -> tuple[GameRecord, int, int, bool]:
    """(record, seat, seed, secret) from a resume field (encode_resume), its record read under `edition` (None:
    the one it names); InvalidRecordError naming what is wrong ("resume: ...")."""
    bad = InvalidRecordError("resume: not a continuation written by barcelona-ai play")
    try:
        unzip = zlib.decompressobj()
        raw = unzip.decompress(base64.b64decode(text.encode("ascii"), validate=True), MAX_RESUME_BYTES)
    except (binascii.Error, zlib.error, UnicodeError, ValueError):
        raise bad from None
    if unzip.unconsumed_tail or not unzip.eof:
        raise bad
    doc = parse_json(raw, "resume", InvalidRecordError)
    if not isinstance(doc, dict) or set(doc) != {"seat", "seed", "secret", "record"}:
        raise bad
    seat, seed, secret = doc["seat"], doc["seed"], doc["secret"]
    if not isinstance(secret, bool) or any(not isinstance(x, int) or isinstance(x, bool) for x in (seat, seed)) \
            or not 0 <= seed <= MAX_SEED:
        raise bad
    try:
        record = GameRecord.from_json(doc["record"], edition)
    except InvalidRecordError as exc:
        raise InvalidRecordError(f"resume: {exc}") from None
    if not 0 <= seat < record.players:
        raise bad
    return record, seat, seed, secret




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
        out.actions.append(hidden_draw_entry() if is_draw_for_other(s, seat) else dict(entry))
    return out


def own_draw(s: State, seat: int) -> bool:
    """A citizen draw into `seat`'s own hand (seen by `seat` only, A6)."""
    return s.draws_for() == seat


def other_placement(s: State, seat: int) -> bool:
    if s.is_chance_node() or s.is_terminal() or s.current_player() == seat:
        return False
    return s.phase == C["PH_PLACE"] and any(a < C["A_INT_PICK"] for a in s.legal_actions())


# ---------------------------------------------------------------------------------------------------------------
# starting a session (the errors name the options as the command line does)

def secret_seed() -> int:
    """A seed nobody can guess: it decides the chance outcomes and so the engine's hidden citizens."""
    return random.SystemRandom().getrandbits(63)


def check_seat(seat: int, players: int) -> None:
    if not 0 <= seat < players:
        raise PlayerCountError(f"no seat {seat} in a {players}-player game (seats are 0..{players - 1})")


def _names(players: int, seat: int) -> list[str]:
    return [f"P{p} (you)" if p == seat else f"P{p}" for p in range(players)]


def play_session(seat: int | None, limit, players: int | None = None, seed: int | None = None,
                 setup: str = "random", load: "str | GameRecord | None" = None, hint_limit=None,
                 edition=None) -> Session:
    """A game against the engine (it plays every seat but `seat`), new or continued from the record `load` (a
    file, or a GameRecord read already). Without a seed the chance seed is secret (Session.secret_seed) until
    the game is over: it would tell every hand and every future draw. A save's resume field brings the very
    game back (its seed, secret or not; Session.resumed), a whole game's record its own seed. `seat` None: the
    seat that kept the record, else 0. `edition`: the board of a new game (None: default), and the edition a
    loaded record must have been played under (None: the one it names)."""
    from ..search.engine import Engine
    secret = seed is None
    resumed, note = False, None
    if load:
        record, where = _record_of(load, edition)
        if seat is None:
            seat = 0 if record.viewpoint is None else record.viewpoint
        if record.viewpoint is not None and record.viewpoint != seat:
            raise InvalidRecordError(f"viewpoint: {where} was kept by seat {record.viewpoint}; continue it "
                                     f"with --seat {record.viewpoint}")
        if players is not None and players != record.players:
            raise PlayerCountError(f"--players {players}: the record is a {record.players}-player game")
        players = record.players
        kept, note = _resumed(record)
        if kept is not None:
            record, resumed = kept[0], True
            if secret:
                seed, secret = kept[1], kept[2]
        elif secret and record.viewpoint is None and "seed" in record.start:
            seed, secret = int(record.start["seed"]), False      # a whole game's record shows its seed anyway
        elif secret:
            seed = secret_seed()
    else:
        seat = 0 if seat is None else seat
        players = 2 if players is None else players
        seed = secret_seed() if secret else seed
        edition = load_edition(edition or "default")
        new_game(players, seed=seed, edition=edition)     # checks the player count
        record = None
    check_seat(seat, players)
    budget = f"ismcts:{limit.iterations}" if limit.iterations else f"ismcts:{limit.time:g}s"
    seats = ["human" if p == seat else budget for p in range(players)]
    if record is None:
        record = GameRecord.for_new_game(players, seed, setup=setup, seats=seats, edition=edition)
    elif record.seats is None or len(record.seats) != players:
        record.seats = seats
    sess = Session("play", record, seat, seed, limit, Engine(seed=seed), _names(players, seat),
                   secret_seed=secret)
    sess.hint_limit = hint_limit or limit
    sess.resumed, sess.load_note = resumed, note
    if load:
        sess.take_up_turn()
    return sess


def _resumed(record: GameRecord) -> tuple[tuple[GameRecord, int, bool] | None, str | None]:
    """The game a save's resume field holds, as far as the save's moves go: ((record, seed, secret), None); (None,
    why it is not used) when it cannot be read or its moves are not the save's (seen_by of it); (None, None)
    without one."""
    if record.resume is None:
        return None, None
    try:
        game, seat, seed, secret = decode_resume(record.resume, record.edition)
    except InvalidRecordError as exc:
        return None, str(exc)
    n = len(record.actions)
    if record.viewpoint == seat and game.players == record.players and len(game.actions) >= n:
        game = GameRecord(players=game.players, start=game.start, actions=game.actions[:n], edition=game.edition,
                          viewpoint=game.viewpoint, seats=game.seats, engine=game.engine)
        seen = seen_by(game, seat, seed)
        if seen.start == record.start and seen.actions == record.actions and \
                seen.edition_data().sha256 == record.edition_data().sha256:
            return (game, seed, secret), None
    return None, "resume: it does not continue the record's moves"


def table_session(seat: int | None, limit, players: int | None = None, seed: int | None = None,
                  setup: str = "random", load: "str | GameRecord | None" = None,
                  position: "str | dict | None" = None, table=None, edition=None) -> Session:
    """A game at a real table seen from `seat`: continued from the record `load` (file or GameRecord), started
    from the position `position` (file or document), from the table's setup `table` (a complete
    table_setup.TableSetup), or, for practice, from the seeded setup new_game(players, seed). `seed` (default 0)
    also samples the hidden hands. A record or a viewpoint position brings its seat: a different `seat` is an
    error; None takes it. `edition`: the board of a new game (None: default; the table's setup brings its own),
    and the edition a record or position must have been written under (None: the one it names)."""
    from ..search.engine import Engine
    given = [x for x, v in (("--load", load), ("--position", position), ("the table's setup", table)) if v]
    if len(given) > 1:
        raise BarcelonaError(f"give one start: {' or '.join(given)}, not both")
    sample_seed = 0 if seed is None else seed
    if load:
        record = _table_record(load, seat, players, edition)
    elif position:
        record = _table_position(position, seat, players, sample_seed, edition)
    elif table is not None:
        record = _table_setup_record(table, seat, players, sample_seed)
    else:
        players = 4 if players is None else players
        seat = 0 if seat is None else seat
        edition = load_edition(edition or "default")
        new_game(players, seed=sample_seed, edition=edition)
        check_seat(seat, players)
        record = GameRecord.for_new_game(players, sample_seed, setup=setup, viewpoint=seat, edition=edition)
    seat = record.viewpoint
    players = record.players
    record.seats = record.seats or ["you" if p == seat else "table" for p in range(players)]
    return Session("table", record, seat, sample_seed, limit, Engine(seed=sample_seed), _names(players, seat))


def _check_players(players: int | None, has: int, what: str) -> None:
    if players is not None and players != has:
        raise PlayerCountError(f"--players {players}: the {what} has {has} players")


def _record_of(load: "str | GameRecord", edition=None) -> tuple[GameRecord, str]:
    """The record `load` (a GameRecord, or a record file read now under `edition`) and how error messages name
    it."""
    if isinstance(load, GameRecord):
        return load, "the record"
    return GameRecord.load(load, edition), load


def _table_record(load: "str | GameRecord", seat: int | None, players: int | None, edition=None) -> GameRecord:
    record, where = _record_of(load, edition)
    _check_players(players, record.players, "record")
    if record.viewpoint is not None and seat is not None and record.viewpoint != seat:
        raise InvalidRecordError(f"viewpoint: {where} was kept by seat {record.viewpoint}, not --seat {seat}; "
                                 f"continue it with --seat {record.viewpoint}")
    if record.viewpoint is None:
        seat = 0 if seat is None else seat
        check_seat(seat, record.players)
        record.viewpoint = seat
    return record


def _table_position(position: "str | dict", seat: int | None, players: int | None, seed: int,
                    edition=None) -> GameRecord:
    """A record starting from a position (a file, or a document read already); the seat of a viewpoint
    document must be --seat's."""
    from ..errors import InvalidPositionError
    from ..rules.jsonio import load_json_file, show_path
    if isinstance(position, dict):
        doc, where = position, "the position"
    else:
        where = show_path(position)
        doc = load_json_file(position, f"position {where}", InvalidPositionError)
    if isinstance(doc, dict) and doc.get("format") == "barcelona-record":
        raise InvalidPositionError(f"{where} is a game record, not a position: continue it with "
                                   "'table --load FILE'")
    vp = doc.get("viewpoint") if isinstance(doc, dict) else None
    if vp is not None and seat is not None and vp != seat:
        raise InvalidPositionError(f"--seat {seat}: {where} is written from seat {vp}'s point of "
                                   f"view (its \"viewpoint\"); use --seat {vp}")
    state = State.from_json(doc, seed=seed, edition=edition)
    _check_players(players, state.num_players, "position")
    seat = (vp if vp is not None else 0) if seat is None else seat
    check_seat(seat, state.num_players)
    return GameRecord.for_position(state, viewpoint=seat)


def _table_setup_record(table, seat: int | None, players: int | None, seed: int) -> GameRecord:
    """A record starting from the setup typed from the table (table_setup.TableSetup)."""
    from ..rules.table_setup import SetupError, setup_document
    if seat is not None and table.seat is not None and seat != table.seat:
        raise SetupError(f"--seat {seat}: the setup says seat {table.seat}")
    if players is not None and table.players is not None and players != table.players:
        raise SetupError(f"--players {players}: the setup says {table.players} players")
    state = State.from_json(setup_document(table), seed=seed, edition=table.edition)
    return GameRecord.for_position(state, viewpoint=table.seat)


__all__ = ["Session", "seen_by", "own_draw", "other_placement", "hidden_draw_entry", "draw_entry",
           "reveal_action", "hand_size", "secret_seed", "check_seat", "play_session", "table_session",
           "CLASSES", "CLASS_NAMES"]
