"""Position documents: a documented, human-writable JSON form of a game state (docs/positions.md).

``state_to_json(state)`` writes every field of the state with names instead of raw integers; ``state_from_json``
reads such a document back, checks every count against the edition (citizens, tiles, markers, tokens ...) and
builds the state. Writing and reading are exact: ``State.from_json(s.to_json()).hash() == s.hash()`` for every
reachable state, mid-turn and terminal ones included (the turn machinery travels in ``"turn_state"``).

``state_to_json(state, viewpoint=p)`` writes only what seat p may know (A6): the other players' hands become
``{"hidden": n}`` and the bag becomes the unseen pool (bag + hidden hands). Reading such a document samples the
hidden hands from the pool with ``seed``; the result has the same ``observation_hash(p)`` as the original.

Every problem in a document raises :class:`InvalidPositionError` naming the first wrong field by its JSON path
(``players[1].coins: -1 is negative``); a failed load never returns a state. A wrong player count raises
:class:`PlayerCountError`, an unknown edition :class:`DataFileError` (from ``tables.load_edition``).

This reader is the one validation boundary of the rules core (issue #8): every value that reaches the C state
from a document is checked here, in full and against the rest of the position (the turn's frame stack against
the phase, the board and the players: ``_Reader._turn_checks``), before ``State._from_raw`` builds it; the core
then refuses any value it would use out of bounds (``raw_bounds_problem``) as a second guard. What loads is a
position the rules can reach, or one of the documented superset (docs/positions.md) from which every game keeps
the invariants; tests/test_fuzz_positions.py checks that on mutated documents.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..core import SOURCES, State, register_text_services
from ..errors import BarcelonaError, InvalidPositionError, PlayerCountError
from .jsonio import parse_json, read_bytes, show_path
from .tables import (ACTION_KINDS, BUILDING_TYPES, CLASSES, EFFECT_CODES, GRANT_KINDS, NUM_BUILDING_SPACES,
                     NUM_CROSSINGS, NUM_SIDEWALK, NUM_SPACES, SPACE_INDEX, load_edition, space_name)
from .view import FrameView, PlayerView

__all__ = ["FORMAT", "VERSION", "PHASES", "FRAME_KINDS", "state_to_json", "state_from_json", "load_position",
           "dump_position"]

FORMAT = "barcelona-position"
VERSION = 1
PHASES = ("PLACE", "ACTIONS", "BUILD", "END", "REFRESH", "DRAW", "OVER")          # core.pxd PH_* order
FRAME_KINDS = {1: "EFFECTS", 2: "GRANT", 3: "NARROW2", 4: "PASSENGER", 5: "SAGRADA", 6: "SAG_TILE", 7: "RES",
               8: "INT_PICK"}                                                    # core.pxd FR_*
FRAME_KIND_IDS = {v: k for k, v in FRAME_KINDS.items()}
LEVEL_NAMES = {1: "L1", 2: "L2", 3: "L3", 4: "CORNER"}                          # StateC.bld_level
LEVEL_IDS = {v: k for k, v in LEVEL_NAMES.items()}
BUILD_TYPE_OF_LEVEL = {1: 1, 2: 2, 3: 3, 4: 0}                                  # level -> BUILDING_TYPES index
STREET_DIRS = ("vertical", "horizontal", "diagonal")                            # StateC.streets_used bits
MAX_PLAYERS = 4
MAX_FRAMES = 24                 # core.pxd: the frame stack's size
MAX_LOADED_FRAMES = 12          # frames a document may hold (see _Reader._frames: play can push ~8 more)
MAX_VP_SOURCE = 10_000          # VP per source (int16 in C): no game can add 22,767 more (docs/positions.md)
MAX_OVERFLOW = 16               # tokens over the Warehouse while a discard is due (one gain gives at most 8)
PH_PLACE, PH_ACTIONS, PH_BUILD, PH_END, PH_REFRESH, PH_DRAW, PH_OVER = range(7)
E_RES, E_SAGRADA, E_ACT, E_MARKER = 2, 5, 6, 8                                 # tables.EFFECT_CODES
GK_COINS, GK_CLOTH, GK_COBBLE, GK_NARROW, GK_PS, GK_TRAM, GK_CERDA = 0, 1, 2, 4, 8, 9, 10   # tables.GRANT_KINDS
GK_STREETS, GK_COBBLE_ANYWHERE, GK_TRAM_COIN_FREE = 11, 15, 16

_TOP_KEYS = ("format", "version", "edition", "players", "viewpoint", "to_move", "phase", "action_tiles",
             "crossings", "streets", "buildings", "building_tiles_left", "bonus_rows_taken", "citizen_tracks",
             "cerda_tiles", "cerda_scorings_done", "modernisme", "public_services", "sagrada_offer", "sidewalk",
             "bag", "unseen_pool", "turn_state")
_PLAYER_KEYS = ("seat", "score", "vp_by_source", "coins", "cloth", "cobblestones", "intersections", "narrow_laid",
                "wide_laid", "passengers", "tram", "markers_placed", "cerda", "sagrada", "modernisme",
                "sagrada_tiles", "public_services", "hand", "turns")
_TURN_KEYS = ("place_crossing", "streets_used", "frames", "discard_player", "reveal_pending", "refresh_pending",
              "draws_left", "activity", "end_triggered")
_CROSS_RE = re.compile(r"\(\s*([0-4])\s*,\s*([0-4])\s*\)")
_SIDE_RE = re.compile(r"r([0-4])c([0-5])")


# ---------------------------------------------------------------------------------------------------------------
# names of one edition's pieces

def _unique_names(names: list[str]) -> list[str]:
    """The k-th repeat of a name (k >= 2) becomes 'name#k', so every piece has its own name."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


def _effect_text(effects: list[tuple[int, int]]) -> str:
    parts = []
    for code, amt in effects:
        name = EFFECT_CODES[code]
        if name == "ACT":
            parts.append("ACT_" + GRANT_KINDS[amt])
        elif name in ("MARKER", "CLOTH_PER_BLOCK"):
            parts.append(name)
        else:
            parts.append(f"{name}{amt}")
    return "+".join(parts) if parts else "-"


class _Names:
    """Name <-> index tables of one edition."""

    def __init__(self, ed):
        t = ed.t
        self.ed = ed
        self.t = t
        self.cond_ids = [n.split()[0] for n in t["cond_names"]]
        self.mod = _unique_names([self.cond_ids[c] for c in t["mod_cond"]])
        self.mod_index = {n: i for i, n in enumerate(self.mod)}
        self.sag = _unique_names(list(t["sag_text"]))
        self.sag_index = {n: i for i, n in enumerate(self.sag)}
        self.ps = list(t["ps_names"])
        self.ps_index = {n: i for i, n in enumerate(self.ps)}
        self.bs = list(t["bs_names"])
        self.bs_index = {n: i for i, n in enumerate(self.bs)}
        self.cerda_conds = sorted(set(t["cerda_cond"]))
        self.cond_index = {n: i for i, n in enumerate(self.cond_ids)}
        self.eff = [_effect_text(lst) for lst in ed.effect_lists]
        self.eff_index = {n: i for i, n in enumerate(self.eff)}
        self.marker_code = EFFECT_CODES.index("MARKER")
        # where an EFFECTS frame of each list comes from: the VP sources it may book (core: push_frame callers)
        src = {name: i for i, name in enumerate(SOURCES)}
        self.list_sources: dict[int, set[int]] = {}
        for key, origin in (("action_list", "actions"), ("side_list", "sidewalk"), ("ps_list", "public_services"),
                            ("bld_list", "buildings"), ("sag_list", "sagrada")):
            for lst in t[key]:
                self.list_sources.setdefault(lst, set()).add(src[origin])
        amounts = [(code, amt) for lst in ed.effect_lists for code, amt in lst]
        self.max_res = max([amt for code, amt in amounts if code == E_RES], default=0)
        self.max_sagrada = max([amt for code, amt in amounts if code == E_SAGRADA], default=0)


_NAMES: dict[int, _Names] = {}


def _names(ed) -> _Names:
    key = id(ed)
    if key not in _NAMES:
        _NAMES[key] = _Names(ed)
    return _NAMES[key]


def _cross_name(c: int) -> str:
    return f"({c % 5},{c // 5})"


def _side_name(i: int) -> str:
    return f"r{i // 6}c{i % 6}"


def _bits(mask: int, n: int) -> list[int]:
    return [i for i in range(n) if (mask >> i) & 1]


# ---------------------------------------------------------------------------------------------------------------
# writing

def _frame_to_json(f: FrameView, nm: _Names) -> dict:
    kind = FRAME_KINDS[f.kind]
    out: dict[str, Any] = {"kind": kind, "player": f.player}
    if kind == "EFFECTS":                 # the core leaves the fields a kind does not use at 0 (push_frame)
        out["effects"] = nm.eff[f.effect_list]
        out["next"] = f.a
        if any(code == nm.marker_code for code, _ in nm.ed.effect_lists[f.effect_list]):
            out["building"] = nm.bs[f.b]
    elif kind == "GRANT":
        out["action"] = GRANT_KINDS[f.a]
    elif kind == "PASSENGER":
        out["space"] = space_name(f.a)
        out["coin_free"] = bool(f.b)
    elif kind == "SAGRADA":
        out["steps_left"] = f.a
    elif kind == "SAG_TILE":
        out["level"] = f.a
        out["slot"] = f.b
    elif kind == "RES":
        out["resources"] = f.a
    elif kind == "INT_PICK":
        out["picks_left"] = f.a
        out["slots_taken"] = _bits(f.b & 0xFF, 8)
    out["source"] = SOURCES[f.source]
    return out


def _ids_below(ids: tuple[int, ...], n: int) -> list[int]:
    """The ids of a view's id tuple that name one of `n` pieces (the ones a mask may hold beyond are none)."""
    return [i for i in ids if i < n]


def _player_to_json(pl: PlayerView, nm: _Names) -> dict:
    if pl.hand is None:                   # hidden from the viewpoint (or in a state built from an observation)
        hand: dict[str, int] = {"hidden": pl.hand_size}
    else:
        hand = {CLASSES[k]: pl.hand[k] for k in range(3)}
    return {
        "seat": pl.seat, "score": pl.score,
        "vp_by_source": {SOURCES[i]: v for i, v in enumerate(pl.vp_sources) if v},
        "coins": pl.coins, "cloth": pl.cloth, "cobblestones": pl.cobblestones, "intersections": pl.intersections,
        "narrow_laid": pl.narrow_laid, "wide_laid": pl.wide_laid, "passengers": pl.passengers,
        "tram": space_name(pl.tram) if pl.tram is not None else None, "markers_placed": pl.markers_placed,
        "cerda": pl.cerda, "sagrada": pl.sagrada,
        "modernisme": [{"tile": nm.mod[tile] if tile is not None else None, "marker_up": up}
                       for tile, up in zip(pl.modernisme, pl.modernisme_up)],
        "sagrada_tiles": [nm.sag[x] if x is not None else None for x in pl.sagrada_tiles],
        "public_services": [nm.ps[i] for i in _ids_below(pl.public_services, len(nm.ps))],
        "hand": hand, "turns": pl.turns}


def state_to_json(state: State, viewpoint: int | None = None) -> dict:
    """The position document of `state` (docs/positions.md); with `viewpoint`, only what that seat may know.

    It reads the state's view (``state.view(viewpoint)``, view.StateView): for a viewpoint that view already
    holds only what the seat may know (the other hands as sizes, the unseen pool instead of the bag)."""
    n = state.num_players
    if viewpoint is not None:
        if isinstance(viewpoint, bool) or not isinstance(viewpoint, int) or not 0 <= viewpoint < n:
            raise PlayerCountError(f"no seat {viewpoint!r} in a {n}-player game")
    v = state.view(viewpoint)
    ed = state.game_data.edition
    nm = _names(ed)
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "edition": getattr(ed, "source", ed.name)}
    if viewpoint is not None:
        doc["viewpoint"] = viewpoint
    doc["to_move"] = v.turn_player
    doc["phase"] = PHASES[v.phase]
    sa = v.action_tiles
    doc["action_tiles"] = {"vertical": [ACTION_KINDS[x] for x in sa[0:5]],
                           "horizontal": [ACTION_KINDS[x] for x in sa[5:10]], "diagonal": ACTION_KINDS[sa[10]]}
    crossings = {}
    for c, (cits, it) in enumerate(zip(v.crossings, v.intersections)):
        if cits or it is not None:
            crossings[_cross_name(c)] = {"citizens": _citizens_doc(cits), "intersection": it}
    doc["crossings"] = crossings
    doc["streets"] = {space_name(sp): {"owner": o, "passenger": pa}
                      for sp, (o, pa) in enumerate(zip(v.streets, v.passengers)) if o is not None or pa is not None}
    doc["buildings"] = {nm.bs[bs]: {"level": LEVEL_NAMES.get(lvl, lvl), "markers": list(marks)}
                        for bs, (lvl, marks) in enumerate(zip(v.building_levels, v.building_markers))
                        if lvl != 0 or marks}
    doc["building_tiles_left"] = {BUILDING_TYPES[i]: v.building_tiles_left[i] for i in range(4)}
    doc["bonus_rows_taken"] = list(v.bonus_rows_taken)
    doc["citizen_tracks"] = {CLASSES[k]: {"occupied": list(v.tracks[k]), "off_board": v.tracks_off_board[k]}
                             for k in range(3)}
    doc["cerda_tiles"] = [{"tile": nm.cond_ids[tile], "scored": scored}
                          for tile, scored in zip(v.cerda_tiles, v.cerda_scored)]
    doc["cerda_scorings_done"] = v.cerda_scorings_done
    doc["modernisme"] = {key: [nm.mod[i] for i in _ids_below(ids, len(nm.mod))]
                         for key, ids in (("stack", v.modernisme_stack), ("display", v.modernisme_display),
                                          ("discard", v.modernisme_discard))}
    doc["public_services"] = {nm.ps[i]: left for i, left in enumerate(v.public_services_left[:len(nm.ps)])
                              if left is not None}
    doc["sagrada_offer"] = [nm.sag[i] for i in _ids_below(v.sagrada_offer, len(nm.sag))]
    doc["sidewalk"] = [_side_name(i) for i in _ids_below(v.sidewalk, NUM_SIDEWALK)]
    pool = v.bag if viewpoint is None else v.unseen_pool       # a viewpoint's view holds the pool, not the bag
    doc["unseen_pool" if viewpoint is not None else "bag"] = {CLASSES[k]: pool[k] for k in range(3)}
    doc["players"] = [_player_to_json(pl, nm) for pl in v.players]
    doc["turn_state"] = {
        "place_crossing": _cross_name(v.place_crossing) if v.place_crossing is not None else None,
        "streets_used": [STREET_DIRS[i] for i in v.streets_used if i < len(STREET_DIRS)],
        "frames": [_frame_to_json(f, nm) for f in v.frames],
        "discard_player": v.discard_player,
        "reveal_pending": v.reveal_pending, "refresh_pending": v.refresh_pending,
        "draws_left": v.draws_left, "activity": v.activity, "end_triggered": v.end_triggered,
    }
    return doc


def _pretty(obj: Any, indent: int = 0, width: int = 110) -> str:
    """Indented JSON that keeps short lists and objects on one line (easier to read and to edit by hand)."""
    flat = json.dumps(obj, ensure_ascii=False)
    if indent > 0 and len(flat) + indent <= width or not isinstance(obj, (dict, list)) or not obj:
        return flat
    pad = " " * (indent + 2)
    if isinstance(obj, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, indent + 2, width)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if all(not isinstance(v, (dict, list)) for v in obj):      # a long list of names: several per line
        lines, cur = [], ""
        for v in obj:
            item = json.dumps(v, ensure_ascii=False)
            if cur and len(pad) + len(cur) + len(item) + 2 > width:
                lines.append(cur + ",")
                cur = ""
            cur = f"{cur}, {item}" if cur else item
        lines.append(cur)
        return "[\n" + "\n".join(pad + x for x in lines) + "\n" + " " * indent + "]"
    items = [pad + _pretty(v, indent + 2, width) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def dump_position(state: State, viewpoint: int | None = None) -> str:
    """The position document of `state` as indented JSON text (short lists and objects kept on one line)."""
    return _pretty(state_to_json(state, viewpoint)) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# reading

def _join(path: str, key: Any) -> str:
    if isinstance(key, int) and not isinstance(key, bool) and abs(key) < 10 ** 18:
        return f"{path}[{key}]"
    key = key if isinstance(key, str) else _show(key)          # (a caller's dict may have any hashable key)
    return f"{path}.{key}" if path else key


def _fail(path: str, msg: str):
    raise InvalidPositionError(f"{path}: {msg}" if path else msg)


def _obj(v: Any, path: str, allowed: tuple, required: tuple = ()) -> dict:
    if not isinstance(v, dict):
        _fail(path or "position", f"expected a JSON object, got {_show(v)}")
    for k in v:
        if k not in allowed:
            _fail(_join(path, k), f"unknown key (allowed: {', '.join(allowed)})")
    for k in required:
        if k not in v:
            _fail(_join(path, k), "missing")
    return v


def _show(v: Any) -> str:
    if isinstance(v, (dict, list)):
        return "an object" if isinstance(v, dict) else "a list"
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10 ** 18:
        return f"an integer of {v.bit_length()} bits"       # (str() of a huge int is slow or refused)
    try:
        text = json.dumps(v) if isinstance(v, (str, int, float, bool)) or v is None else repr(v)
    except Exception:                                        # noqa: BLE001 - a value that cannot even be shown
        text = f"a {type(v).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def _int(v: Any, path: str, lo: int | None = 0, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        _fail(path, f"expected an integer, got {_show(v)}")
    if lo is not None and v < lo:
        _fail(path, f"{_show(v)} is negative" if lo == 0 else f"{_show(v)} is less than {lo}")
    if hi is not None and v > hi:
        _fail(path, f"{_show(v)} is more than {hi}")
    return v


def _bool(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        _fail(path, f"expected true or false, got {_show(v)}")
    return v


def _list(v: Any, path: str, length: int | None = None, max_len: int | None = None) -> list:
    if not isinstance(v, list):
        _fail(path, f"expected a list, got {_show(v)}")
    if length is not None and len(v) != length:
        _fail(path, f"expected {length} entries, got {len(v)}")
    if max_len is not None and len(v) > max_len:
        _fail(path, f"at most {max_len} entries, got {len(v)}")
    return v


def _name(v: Any, path: str, names: dict | list | tuple, what: str) -> int:
    if isinstance(names, (list, tuple)):
        names = {n: i for i, n in enumerate(names)}
    if not isinstance(v, str) or v not in names:
        shown = list(names)
        hint = ", ".join(shown) if len(shown) <= 20 else ", ".join(shown[:20]) + ", ..."
        _fail(path, f"{_show(v)} is not a {what} (one of {hint})")
    return names[v]


def _seat(v: Any, path: str, n: int, nullable: bool = False) -> int:
    if v is None and nullable:
        return -1
    if isinstance(v, bool) or not isinstance(v, int):
        _fail(path, f"expected a seat 0..{n - 1}{' or null' if nullable else ''}, got {_show(v)}")
    if not 0 <= v < n:
        _fail(path, f"seat {_show(v)} does not exist in a {n}-player game (seats 0..{n - 1})")
    return v


def _citizens_doc(cits: tuple) -> dict:
    """A crossing's citizens by name, so that their order cannot be mistaken: {"bottom": "W", "top": "M"} (R37:
    the top one is the one the board shows first, `M/W` in notation), {"bottom": "W"} for one, {} for none."""
    return {name: CLASSES[x] for name, x in zip(("bottom", "top"), cits)}


def _citizens(v: Any, path: str) -> list[int]:
    """A crossing's citizen classes, bottom first, from {"bottom": .., "top": ..} (a top needs a bottom), or
    from the older form, a list bottom first."""
    if isinstance(v, list):
        cits = _list(v, path, max_len=2)
        return [_name(x, f"{path}[{i}]", CLASSES, "citizen class") for i, x in enumerate(cits)]
    _obj(v, path, ("bottom", "top"))
    if "top" in v and "bottom" not in v:
        _fail(path, "a top citizen needs a bottom one (R37)")
    return [_name(v[k], _join(path, k), CLASSES, "citizen class") for k in ("bottom", "top") if k in v]


def _crossing(v: Any, path: str) -> int:
    m = _CROSS_RE.fullmatch(v) if isinstance(v, str) else None
    if m is None:
        _fail(path, f"{_show(v)} is not a crossing name '(c,r)' with c and r in 0..4")
    return int(m.group(2)) * 5 + int(m.group(1))


def _space(v: Any, path: str) -> int:
    if not isinstance(v, str) or v not in SPACE_INDEX:
        _fail(path, f"{_show(v)} is not a street space name (V(c,r) c 0..4 r 0..3, H(c,r) c 0..3 r 0..4, D(k) "
                    "k 0..3)")
    return SPACE_INDEX[v]


def _side(v: Any, path: str) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        if not 0 <= v < NUM_SIDEWALK:
            _fail(path, f"Sidewalk index {_show(v)} is outside 0..{NUM_SIDEWALK - 1}")
        return v
    m = _SIDE_RE.fullmatch(v) if isinstance(v, str) else None
    if m is None:
        _fail(path, f"{_show(v)} is not a Sidewalk space ('r<row>c<col>', row 0..4, col 0..5, or index 0..29)")
    return int(m.group(1)) * 6 + int(m.group(2))


def _class_counts(v: Any, path: str, hi: int = 99) -> list[int]:
    _obj(v, path, CLASSES)
    return [_int(v.get(c, 0), _join(path, c), 0, hi) for c in CLASSES]


def _edition(edition: str):
    """tables.load_edition, with every failure a BarcelonaError: DataFileError for an unknown or invalid edition
    (as documented), InvalidPositionError for a name that is not even a readable file."""
    if len(edition) > 1000 or "\x00" in edition:
        _fail("edition", f"{_show(edition)} is not an edition name nor a data file path")
    try:
        return load_edition(edition)
    except BarcelonaError:
        raise
    except (OSError, ValueError, RecursionError) as exc:     # a directory, not UTF-8, nested too deeply ...
        _fail("edition", f"data file {_show(edition)} cannot be read: {type(exc).__name__}")


def _parse_json(text: str | bytes | bytearray) -> Any:
    """JSON text -> Python objects; every failure (syntax, encoding, nesting, a number too long to convert, a key
    given twice) is an InvalidPositionError (jsonio)."""
    return parse_json(text, "position", InvalidPositionError, unique_keys=True)


class _Reader:
    """Reads and checks one document into a raw state dict (StateC field names)."""

    def __init__(self, doc: Any):
        if isinstance(doc, (str, bytes, bytearray)):
            doc = _parse_json(doc)
        self.doc = _obj(doc, "", _TOP_KEYS, ("format", "version", "players", "to_move", "action_tiles",
                                             "citizen_tracks", "cerda_tiles", "public_services"))
        self.hidden: dict[int, int] = {}                    # seat -> size of a hidden hand (viewpoint form)
        self.sag_where: dict[int, str] = {}                 # Sagrada tile -> JSON path where it was found
        self.mod_where: dict[int, str] = {}                 # Modernisme tile -> JSON path where it was found

    # -- the whole document -----------------------------------------------------------------------------
    def read(self) -> tuple[dict, str, int | None, bool]:
        d = self.doc
        if d["format"] != FORMAT:
            _fail("format", f"{_show(d['format'])} is not {json.dumps(FORMAT)}")
        if isinstance(d["version"], bool) or d["version"] != VERSION:
            _fail("version", f"{_show(d['version'])} is not a supported version (this reader knows {VERSION})")
        edition = d.get("edition", "default")
        if not isinstance(edition, str):
            _fail("edition", f"expected an edition name, got {_show(edition)}")
        self.ed = _edition(edition)
        self.nm = nm = _names(self.ed)
        self.t = nm.t
        players = _list(d["players"], "players")
        if not 2 <= len(players) <= 4:
            raise PlayerCountError(f"players: Barcelona is played by 2 to 4 players, not {len(players)}")
        self.n = n = len(players)
        self.viewpoint = vp = _seat(d["viewpoint"], "viewpoint", n) if "viewpoint" in d else None
        r: dict[str, Any] = {}
        self.r = r
        r["num_players"] = n
        r["cur"] = _seat(d["to_move"], "to_move", n)
        phase = _name(d.get("phase", "PLACE"), "phase", PHASES, "phase")
        self.has_turn_state = "turn_state" in d
        if not self.has_turn_state and phase not in (PH_PLACE, PH_OVER):
            _fail("phase", f"{PHASES[phase]} needs a 'turn_state' object; without one a position is at the start "
                           "of to_move's turn (PLACE) or over (OVER)")
        r["phase"] = phase
        self._action_tiles()
        self._crossings()
        self._streets()
        self._buildings()
        self._tracks()
        self._cerda()
        self._modernisme_offer()
        self._public_services()
        self._sidewalk()
        self._players()
        self._modernisme_all()
        self._sagrada()
        self._citizens()
        self._turn_state()
        self._cross_checks()
        self._turn_checks()
        self._fill_absent_seats()
        r["spare"] = 0
        return r, edition, vp, not self.has_turn_state

    # -- board --------------------------------------------------------------------------------------------
    def _action_tiles(self):
        a = _obj(self.doc["action_tiles"], "action_tiles", ("vertical", "horizontal", "diagonal"),
                 ("vertical", "horizontal", "diagonal"))
        ids = []
        for key in ("vertical", "horizontal"):
            lst = _list(a[key], f"action_tiles.{key}", 5)
            ids += [_name(x, f"action_tiles.{key}[{i}]", ACTION_KINDS, "action tile") for i, x in enumerate(lst)]
        ids.append(_name(a["diagonal"], "action_tiles.diagonal", ACTION_KINDS, "action tile"))
        seen: dict[int, str] = {}
        paths = [f"action_tiles.vertical[{i}]" for i in range(5)] + \
                [f"action_tiles.horizontal[{i}]" for i in range(5)] + ["action_tiles.diagonal"]
        for x, p in zip(ids, paths):
            if x in seen:
                _fail(p, f"{ACTION_KINDS[x]} is already at {seen[x]} (each action tile is used once, R11)")
            seen[x] = p
        self.r["street_action"] = ids

    def _crossings(self):
        r = self.r
        r["cross_lo"], r["cross_hi"], r["cross_int"] = [-1] * 25, [-1] * 25, [-1] * 25
        cr = self.doc.get("crossings", {})
        _obj(cr, "crossings", tuple(cr) if isinstance(cr, dict) else ())
        done: dict[int, str] = {}
        for key, val in cr.items():
            path = _join("crossings", key)
            c = _crossing(key, path)
            if c in done:
                _fail(path, f"the same crossing as {done[c]}")
            done[c] = key
            _obj(val, path, ("citizens", "intersection"))
            ks = _citizens(val.get("citizens", {}), _join(path, "citizens"))
            if ks:
                r["cross_lo"][c] = ks[0]
            if len(ks) > 1:
                r["cross_hi"][c] = ks[1]
            r["cross_int"][c] = _seat(val.get("intersection"), _join(path, "intersection"), self.n, True)

    def _streets(self):
        r = self.r
        r["street_owner"], r["passenger"] = [-1] * NUM_SPACES, [-1] * NUM_SPACES
        st = self.doc.get("streets", {})
        _obj(st, "streets", tuple(st) if isinstance(st, dict) else ())
        for key, val in st.items():
            path = _join("streets", key)
            sp = _space(key, path)
            _obj(val, path, ("owner", "passenger"))
            r["street_owner"][sp] = _seat(val.get("owner"), _join(path, "owner"), self.n, True)
            r["passenger"][sp] = _seat(val.get("passenger"), _join(path, "passenger"), self.n, True)

    def _buildings(self):
        r, nm, t = self.r, self.nm, self.t
        r["bld_level"], r["bld_n"], r["bld_mark"] = [0] * NUM_BUILDING_SPACES, [0] * NUM_BUILDING_SPACES, [-1] * 60
        b = self.doc.get("buildings", {})
        _obj(b, "buildings", tuple(b) if isinstance(b, dict) else ())
        built = [0, 0, 0, 0]
        for key, val in b.items():
            path = _join("buildings", key)
            bs = _name(key, path, nm.bs_index, "building space")
            _obj(val, path, ("level", "markers"), ("level",))
            lvl = _name(val["level"], _join(path, "level"), LEVEL_IDS, "building level")
            if (lvl == 4) != bool(t["bs_corner"][bs]):
                _fail(_join(path, "level"), f"{key} is a {'corner' if t['bs_corner'][bs] else 'normal'} space: "
                                            f"{'only CORNER' if t['bs_corner'][bs] else 'L1, L2 or L3, not CORNER'}"
                                            " (R90, R101)")
            most = 1 if lvl == 4 else lvl
            marks = _list(val.get("markers", []), _join(path, "markers"), max_len=most)
            r["bld_level"][bs] = lvl
            r["bld_n"][bs] = len(marks)
            for i, m in enumerate(marks):
                r["bld_mark"][bs * 3 + i] = _seat(m, f"{path}.markers[{i}]", self.n)
            built[BUILD_TYPE_OF_LEVEL[lvl]] += 1
        self.built_by_type = built
        nbuilt = sum(built)
        nmarks = sum(r["bld_n"])
        if "building_tiles_left" in self.doc:
            left = _obj(self.doc["building_tiles_left"], "building_tiles_left", BUILDING_TYPES, BUILDING_TYPES)
            stack = [_int(left[bt], f"building_tiles_left.{bt}", 0, t["bld_count"][i])
                     for i, bt in enumerate(BUILDING_TYPES)]
        else:               # a stack of m markers on a Level-L building stood on Levels L-1 ... (R101)
            need = list(built)
            for bs in range(NUM_BUILDING_SPACES):
                if r["bld_level"][bs] in (2, 3):
                    for j in range(1, r["bld_n"][bs]):
                        need[r["bld_level"][bs] - j] += 1
            stack = [t["bld_count"][i] - need[i] for i in range(4)]
            for i, bt in enumerate(BUILDING_TYPES):
                if stack[i] < 0:
                    _fail("buildings", f"{need[i]} {bt} tiles on the board, the game has {t['bld_count'][i]} (R3)")
        if stack[0] + built[0] != t["bld_count"][0]:        # Corners are never built over (R103)
            _fail("building_tiles_left.CORNER", f"{stack[0]} left but {built[0]} Corner buildings on the board: "
                                                f"the game has {t['bld_count'][0]} (R3)")
        for i, bt in enumerate(BUILDING_TYPES):
            if stack[i] + built[i] > t["bld_count"][i]:
                _fail(f"building_tiles_left.{bt}", f"{stack[i]} left but {built[i]} on the board: the game has "
                                                   f"{t['bld_count'][i]} (R3)")
        used = sum(t["bld_count"]) - sum(stack)
        if used < max(nbuilt, nmarks):
            _fail("building_tiles_left", f"{used} tiles used but {max(nbuilt, nmarks)} constructions on the "
                                         "board (one tile and at most one marker each, R93)")
        r["bld_stack"] = stack
        rows = sorted({t["bs_row"][bs] for bs in range(NUM_BUILDING_SPACES) if r["bld_level"][bs] > 0})
        if "bonus_rows_taken" in self.doc:
            lst = _list(self.doc["bonus_rows_taken"], "bonus_rows_taken", max_len=4)
            got = [_int(x, f"bonus_rows_taken[{i}]", 0, 3) for i, x in enumerate(lst)]
            if sorted(set(got)) != rows or len(set(got)) != len(got):
                _fail("bonus_rows_taken", f"{sorted(got)} but the block rows with a building are {rows} (the first "
                                          "building of a row takes its bonus, R93 step 2)")
        r["bonus_rows"] = sum(1 << x for x in rows)

    def _tracks(self):
        r, t = self.r, self.t
        tr = _obj(self.doc["citizen_tracks"], "citizen_tracks", CLASSES, CLASSES)
        r["track"], r["track_off"] = [0, 0, 0], [0, 0, 0]
        pre = t["prefill3"] if self.n == 3 else t["prefill2"] if self.n == 2 else [0, 0, 0]
        for k, cls in enumerate(CLASSES):
            path = f"citizen_tracks.{cls}"
            row = _obj(tr[cls], path, ("occupied", "off_board"), ("occupied",))
            n_sp = t["track_len"][k]
            occ = _list(row["occupied"], _join(path, "occupied"))
            mask = 0
            for i, x in enumerate(occ):
                x = _int(x, f"{path}.occupied[{i}]", 0, n_sp - 1)
                if (mask >> x) & 1:
                    _fail(f"{path}.occupied[{i}]", f"space {x} is listed twice")
                mask |= 1 << x
            for x in range(n_sp):
                if (pre[k] >> x) & 1 and not (mask >> x) & 1:
                    _fail(_join(path, "occupied"), f"space {x} is prefilled in a {self.n}-player game (R12) and "
                                                   "must be occupied")
            free_seen = None
            for x in range(n_sp):
                if (pre[k] >> x) & 1:
                    continue
                if not (mask >> x) & 1:
                    free_seen = x if free_seen is None else free_seen
                elif free_seen is not None:
                    _fail(_join(path, "occupied"), f"space {x} is occupied but space {free_seen} to its left is "
                                                   "empty (citizens fill the leftmost empty space, R104)")
            off = _int(row.get("off_board", 0), _join(path, "off_board"), 0, 99)
            if off and mask != (1 << n_sp) - 1:
                _fail(_join(path, "off_board"), f"{off} citizens beside the board but the track is not full (R105)")
            r["track"][k] = mask
            r["track_off"][k] = off

    def _cerda(self):
        r, nm, t = self.r, self.nm, self.t
        lst = _list(self.doc["cerda_tiles"], "cerda_tiles", 3)
        r["cerda_tile"], scored = [], 0
        cerda_ids = {nm.cond_ids[c]: c for c in nm.cerda_conds}
        for i, x in enumerate(lst):
            path = f"cerda_tiles[{i}]"
            _obj(x, path, ("tile", "scored"), ("tile",))
            c = _name(x["tile"], _join(path, "tile"), cerda_ids, "Cerdà tile")
            if c in r["cerda_tile"]:
                _fail(_join(path, "tile"), f"{x['tile']} is already section {r['cerda_tile'].index(c) + 1}'s tile")
            r["cerda_tile"].append(c)
            if _bool(x.get("scored", False), _join(path, "scored")):
                reached = any((r["track"][k] >> t["track_mark"][k][i]) & 1 for k in range(3))
                if not reached:
                    _fail(_join(path, "scored"), f"section {i + 1} is scored but no citizen track reached its mark "
                                                 "(R109)")
                scored |= 1 << i
        r["scored"] = scored
        done = bin(scored).count("1")
        if "cerda_scorings_done" in self.doc:
            got = _int(self.doc["cerda_scorings_done"], "cerda_scorings_done", 0, 3)
            if got != done:
                _fail("cerda_scorings_done", f"{got} but {done} sections are marked scored")
        r["scorings"] = done

    def _modernisme_offer(self):
        nm = self.nm
        mo = _obj(self.doc.get("modernisme", {}), "modernisme", ("stack", "display", "discard"))
        twins = {t_ for t_ in range(len(nm.mod)) if self.t["mod_cond"][t_] in self.r["cerda_tile"]}
        self.mod_twins = twins
        masks = {}
        for key in ("display", "discard", "stack"):
            if key not in mo:
                continue
            lst = _list(mo[key], f"modernisme.{key}",
                        max_len=self.t["display_size"] if key == "display" else None)
            m = 0
            for i, x in enumerate(lst):
                path = f"modernisme.{key}[{i}]"
                tile = self._mod_tile(x, path)
                m |= 1 << tile
            masks[key] = m
        self.mod_masks = masks

    def _mod_tile(self, x: Any, path: str) -> int:
        tile = _name(x, path, self.nm.mod_index, "Modernisme tile")
        if tile in self.mod_twins:
            _fail(path, f"{x} is the twin of a Cerdà tile and went back to the box at setup (R15)")
        if tile in self.mod_where:
            _fail(path, f"tile {x} is already at {self.mod_where[tile]}")
        self.mod_where[tile] = path
        return tile

    def _modernisme_all(self):
        r, nm = self.r, self.nm
        everything = (1 << len(nm.mod)) - 1
        twins = sum(1 << x for x in self.mod_twins)
        placed = sum(1 << x for x in self.mod_where)
        r["mod_display"] = self.mod_masks.get("display", 0)
        r["mod_discard"] = self.mod_masks.get("discard", 0)
        if "stack" in self.mod_masks:
            r["mod_stack"] = self.mod_masks["stack"]
            missing = everything & ~twins & ~placed
            if missing:
                x = (missing & -missing).bit_length() - 1
                _fail("modernisme", f"tile {nm.mod[x]} is nowhere (every Modernisme tile but the Cerdà twins is in "
                                    "the stack, the display, the discard or on a player board)")
        else:
            r["mod_stack"] = everything & ~twins & ~placed

    def _public_services(self):
        r, nm, t = self.r, self.nm, self.t
        ps = _obj(self.doc["public_services"], "public_services", tuple(nm.ps))
        per = t["ps_tiles_2p"] if self.n == 2 else 3
        r["ps_left"] = [-1] * len(nm.ps)
        for name, v in ps.items():
            r["ps_left"][nm.ps_index[name]] = _int(v, _join("public_services", name), 0, per)
        if len(ps) != t["ps_in_play"]:
            _fail("public_services", f"{len(ps)} types in play, the edition plays {t['ps_in_play']} (R17)")
        self.ps_per = per

    def _sidewalk(self):
        pre = self.t["side_pre"]
        lst = _list(self.doc.get("sidewalk", []), "sidewalk")
        m = pre
        seen = 0
        for i, x in enumerate(lst):
            s = _side(x, f"sidewalk[{i}]")
            if (seen >> s) & 1:
                _fail(f"sidewalk[{i}]", f"{_side_name(s)} is listed twice")
            seen |= 1 << s
            m |= 1 << s
        self.r["sidewalk"] = m
        self.cobbles_on_sidewalk = bin(m & ~pre).count("1")

    # -- players --------------------------------------------------------------------------------------------
    def _players(self):
        lst = self.doc["players"]
        self.r["pl"] = [self._player(p, x) for p, x in enumerate(lst)]

    def _player(self, p: int, x: Any) -> dict:
        """players[p], read part by part in document order (the first error found is the one reported)."""
        path = f"players[{p}]"
        _obj(x, path, _PLAYER_KEYS, ("score", "coins", "cloth", "cerda", "hand"))
        if "seat" in x and _int(x["seat"], _join(path, "seat"), 0, 3) != p:
            _fail(_join(path, "seat"), f"{x['seat']} but this is entry {p} of players (entries are in seat order)")
        pl: dict[str, Any] = {}
        self._player_score(pl, x, path)
        self._player_warehouse(pl, x, path)
        self._player_pieces(pl, p, x, path)
        self._player_tracks(pl, x, path)
        self._player_modernisme(pl, x, path)
        self._player_sagrada_tiles(pl, x, path)
        pl["ps_built"] = self._player_public_services(x, path)
        pl["hand"] = self._hand(p, x["hand"], _join(path, "hand"))
        turns = _join(path, "turns")
        pl["turns"] = _int(x["turns"], turns, 0, 999) if "turns" in x else None     # filled in _cross_checks
        pl["spare"] = 0
        return pl

    def _player_score(self, pl: dict, x: Any, path: str) -> None:
        # VP are unbounded in the rules (R7, A43) but C keeps each source in an int16: a document may give at most
        # MAX_VP_SOURCE per source, which leaves room for more than any game can still add (docs/positions.md)
        pl["score"] = _int(x["score"], _join(path, "score"), 0, MAX_VP_SOURCE * len(SOURCES))
        src = [0] * len(SOURCES)
        if "vp_by_source" in x:
            vpath = _join(path, "vp_by_source")
            vs = _obj(x["vp_by_source"], vpath, SOURCES)
            for i, s in enumerate(SOURCES):
                src[i] = _int(vs.get(s, 0), _join(vpath, s), 0, MAX_VP_SOURCE)
            if sum(src) != pl["score"]:
                _fail(vpath, f"the sources add up to {sum(src)} but score is {pl['score']}")
        else:
            if pl["score"] > MAX_VP_SOURCE:
                _fail(_join(path, "score"), f"{pl['score']} is more than {MAX_VP_SOURCE} without a vp_by_source split")
            src[0] = pl["score"]
        pl["vp_src"] = src

    def _player_warehouse(self, pl: dict, x: Any, path: str) -> None:
        pl["coins"] = _int(x["coins"], _join(path, "coins"), 0, 99)      # the Warehouse bounds both (_cross_checks)
        pl["cloth"] = _int(x["cloth"], _join(path, "cloth"), 0, 99)
        pl["cobbles"] = _int(x.get("cobblestones", 0), _join(path, "cobblestones"), 0, 6)

    def _player_pieces(self, pl: dict, p: int, x: Any, path: str) -> None:
        """The counts of pieces on the board: each given count must match what the board shows for seat p."""
        r, t = self.r, self.t
        own_int = sum(1 for c in range(NUM_CROSSINGS) if r["cross_int"][c] == p)
        own_nar = sum(1 for s in range(NUM_SPACES) if r["street_owner"][s] == p and not t["space_wide"][s])
        own_wide = sum(1 for s in range(NUM_SPACES) if r["street_owner"][s] == p and t["space_wide"][s])
        own_pass = sum(1 for s in range(NUM_SPACES) if r["passenger"][s] == p)
        own_mark = sum(1 for bs in range(NUM_BUILDING_SPACES) for k in range(r["bld_n"][bs])
                       if r["bld_mark"][bs * 3 + k] == p)
        for key, field, hi, count, what in (
                ("intersections", "inters", 5, own_int, "Intersections of seat {p} on the crossings"),
                ("narrow_laid", "narrow", 10, own_nar, "Narrow Street tiles of seat {p} on the board"),
                ("wide_laid", "wide", 5, own_wide, "Wide Street tiles of seat {p} on the board"),
                ("passengers", "passengers", 5, own_pass, "Passengers of seat {p} on the streets"),
                ("markers_placed", "markers", 8, own_mark, "Building markers of seat {p} on buildings")):
            if count > hi:
                _fail(_join(path, key), f"{count} {what.format(p=p)}: a player has only {hi} (R4)")
            v = _int(x.get(key, count), _join(path, key), 0, hi)
            if v != count:
                _fail(_join(path, key), f"{v} but there are {count} {what.format(p=p)}")
            pl[field] = v

    def _player_tracks(self, pl: dict, x: Any, path: str) -> None:
        """The tram and the markers on the Cerda and Sagrada tracks."""
        t = self.t
        pl["tram"] = _space(x["tram"], _join(path, "tram")) if x.get("tram") is not None else -1
        pl["cerda"] = _int(x["cerda"], _join(path, "cerda"), 0, len(t["cerda_mult"]) - 1)
        pl["sagrada"] = _int(x.get("sagrada", 0), _join(path, "sagrada"), 0, t["sag_spaces"] - 1)

    def _player_modernisme(self, pl: dict, x: Any, path: str) -> None:
        pl["mod_tile"], pl["mod_up"] = [-1] * 5, [0] * 5
        if "modernisme" in x:
            lpath = _join(path, "modernisme")
            for i, e in enumerate(_list(x["modernisme"], lpath, 5)):
                ep = f"{lpath}[{i}]"
                _obj(e, ep, ("tile", "marker_up"))
                if e.get("tile") is not None:
                    pl["mod_tile"][i] = self._mod_tile(e["tile"], _join(ep, "tile"))
                pl["mod_up"][i] = 1 if _bool(e.get("marker_up", False), _join(ep, "marker_up")) else 0

    def _player_sagrada_tiles(self, pl: dict, x: Any, path: str) -> None:
        t = self.t
        pl["sag_tile"] = [-1] * 3
        if "sagrada_tiles" in x:
            lpath = _join(path, "sagrada_tiles")
            for i, e in enumerate(_list(x["sagrada_tiles"], lpath, 3)):
                if e is None:
                    continue
                ep = f"{lpath}[{i}]"
                tile = self._sag_tile(e, ep)
                if t["sag_level"][tile] != t["sag_slot_level"][i]:
                    _fail(ep, f"{e} is a level-{t['sag_level'][tile]} tile; slot {i} takes level "
                              f"{t['sag_slot_level'][i]} (R119)")
                if pl["sagrada"] <= t["sag_slot_after"][i]:
                    _fail(ep, f"slot {i} is filled but the Sagrada marker (space {pl['sagrada']}) has not passed "
                              f"space {t['sag_slot_after'][i]} (R119)")
                pl["sag_tile"][i] = tile

    def _player_public_services(self, x: Any, path: str) -> int:
        """The bit set of the Public Service types the seat has built."""
        built = 0
        if "public_services" in x:
            lpath = _join(path, "public_services")
            for i, e in enumerate(_list(x["public_services"], lpath)):
                ep = f"{lpath}[{i}]"
                k = _name(e, ep, self.nm.ps_index, "Public Service")
                if self.r["ps_left"][k] < 0:
                    _fail(ep, f"{e} is not in play in this game (see public_services)")
                if (built >> k) & 1:
                    _fail(ep, f"{e} is listed twice (one of each type, R79)")
                built |= 1 << k
        return built

    def _sag_tile(self, e: Any, path: str) -> int:
        tile = _name(e, path, self.nm.sag_index, "Sagrada tile")
        if tile in self.sag_where:
            _fail(path, f"tile {e} is already at {self.sag_where[tile]}")
        self.sag_where[tile] = path
        return tile

    def _hand(self, p: int, h: Any, path: str) -> list[int]:
        if isinstance(h, dict) and "hidden" in h:
            _obj(h, path, ("hidden",))
            if self.viewpoint is None:
                _fail(_join(path, "hidden"), "a hidden hand needs a viewpoint document ('viewpoint' and "
                                             "'unseen_pool')")
            if p == self.viewpoint:
                _fail(_join(path, "hidden"), f"seat {p} is the viewpoint: its own hand is known")
            size = _int(h["hidden"], _join(path, "hidden"), 0, 2)
            self.hidden[p] = size
            return [size, -1, -1]                        # filled from the pool in _citizens
        if self.viewpoint is not None and p != self.viewpoint:
            _fail(path, f"in a viewpoint document only seat {self.viewpoint}'s hand is known: write {{\"hidden\": n}}")
        hand = _class_counts(h, path, 2)
        if sum(hand) > 2:
            _fail(path, f"{sum(hand)} citizens: a hand holds at most 2 (R32)")
        return hand

    def _sagrada(self):
        r, nm = self.r, self.nm
        on_boards = sum(1 << x for x in self.sag_where)
        everything = (1 << len(nm.sag)) - 1
        if "sagrada_offer" in self.doc:
            lst = _list(self.doc["sagrada_offer"], "sagrada_offer")
            m = 0
            for i, e in enumerate(lst):
                m |= 1 << self._sag_tile(e, f"sagrada_offer[{i}]")
            missing = everything & ~m & ~on_boards
            if missing:
                x = (missing & -missing).bit_length() - 1
                _fail("sagrada_offer", f"tile {nm.sag[x]} is nowhere (each Sagrada tile is in the offer or in a "
                                       "player's slot)")
            r["sag_offer"] = m
        else:
            r["sag_offer"] = everything & ~on_boards

    def _citizens(self):
        """72 citizens (the edition's counts) across bag, hands, crossings, tracks and beside the board (R5)."""
        r, t, n = self.r, self.t, self.n
        key = "unseen_pool" if self.viewpoint is not None else "bag"
        other = "bag" if self.viewpoint is not None else "unseen_pool"
        if other in self.doc:
            _fail(other, f"a {'viewpoint' if self.viewpoint is not None else 'full'} document gives '{key}', "
                         f"not '{other}'")
        known = [0, 0, 0]
        for p in range(n):
            if self.viewpoint is None or p == self.viewpoint:
                for k in range(3):
                    known[k] += r["pl"][p]["hand"][k]
        table = [0, 0, 0]
        for c in range(NUM_CROSSINGS):
            for x in (r["cross_lo"][c], r["cross_hi"][c]):
                if x >= 0:
                    table[x] += 1
        parts = []
        for k in range(3):
            parts.append(known[k] + table[k] + bin(r["track"][k]).count("1") + r["track_off"][k])
        if key in self.doc:
            bag = _class_counts(self.doc[key], key, 99)
            for k, cls in enumerate(CLASSES):
                if bag[k] + parts[k] != t["citizens"][k]:
                    _fail(f"{key}.{cls}", f"{bag[k] + parts[k]} {cls} citizens in all ({key} {bag[k]}, known hands "
                                          f"{known[k]}, crossings {table[k]}, track {bin(r['track'][k]).count('1')},"
                                          f" beside the board {r['track_off'][k]}); the game has "
                                          f"{t['citizens'][k]} (R5)")
        else:
            bag = [t["citizens"][k] - parts[k] for k in range(3)]
            for k, cls in enumerate(CLASSES):
                if bag[k] < 0:
                    _fail(f"{key}.{cls}", f"{parts[k]} {cls} citizens outside the {key}, the game has only "
                                          f"{t['citizens'][k]} (R5)")
        hidden = self.hidden
        if sum(hidden.values()) > sum(bag):
            _fail(key, f"the hidden hands hold {sum(hidden.values())} citizens but the unseen pool has "
                       f"{sum(bag)}")
        pool = list(bag)
        for p in sorted(hidden):                          # any split works: load() resamples it (determinize)
            hand = [0, 0, 0]
            for _ in range(hidden[p]):
                k = max(range(3), key=lambda j: pool[j])
                pool[k] -= 1
                hand[k] += 1
            r["pl"][p]["hand"] = hand
        r["bag"] = pool

    # -- turn machinery -----------------------------------------------------------------------------------
    def _turn_state(self):
        """Parse turn_state: every field in its range. How the parts fit each other and the rest of the position
        is checked in _turn_checks, once the players are known."""
        r, n = self.r, self.n
        ts = _obj(self.doc.get("turn_state", {}), "turn_state", _TURN_KEYS)
        pc = ts.get("place_crossing")
        r["place_crossing"] = _crossing(pc, "turn_state.place_crossing") if pc is not None else -1
        used = _list(ts.get("streets_used", []), "turn_state.streets_used", max_len=3)
        m = 0
        for i, e in enumerate(used):
            b = _name(e, f"turn_state.streets_used[{i}]", STREET_DIRS, "street direction")
            if (m >> b) & 1:
                _fail(f"turn_state.streets_used[{i}]", f"{e} is listed twice (each street's action once, R39)")
            m |= 1 << b
        r["streets_used"] = m
        frames = _list(ts.get("frames", []), "turn_state.frames")
        if len(frames) > MAX_LOADED_FRAMES:
            _fail("turn_state.frames", f"{len(frames)} frames; a position holds at most {MAX_LOADED_FRAMES} (play "
                                       f"nests a few more on top, within the core's {MAX_FRAMES})")
        self.frames = []
        for i, e in enumerate(frames):
            self.frames.append(self._frame(e, f"turn_state.frames[{i}]", self.frames[-1] if i else None))
        out = [{k: v for k, v in f.items() if k != "path"} for f in self.frames]
        r["nframes"] = len(out)
        out += [dict(kind=0, player=0, a=0, b=0, src=0, lst=0) for _ in range(MAX_FRAMES - len(out))]
        r["frames"] = out
        r["discard_player"] = _seat(ts.get("discard_player"), "turn_state.discard_player", n, True)
        r["reveal_pending"] = _int(ts.get("reveal_pending", 0), "turn_state.reveal_pending", 0,
                                   self.t["display_size"])
        r["refresh_pending"] = _int(ts.get("refresh_pending", 0), "turn_state.refresh_pending", 0, 3)
        r["draws_left"] = _int(ts.get("draws_left", 0), "turn_state.draws_left", 0, 2)
        # default: something happened this round unless the round is just starting (seat 0 to move)
        r["activity"] = 1 if _bool(ts.get("activity", r["cur"] != 0), "turn_state.activity") else 0
        end = bool((r["scored"] >> 2) & 1)
        if "end_triggered" in ts and _bool(ts["end_triggered"], "turn_state.end_triggered") != end:
            _fail("turn_state.end_triggered", f"must be {str(end).lower()}: the end is triggered exactly when "
                                              "section 3 is scored (R122)")
        r["end_triggered"] = int(end)

    def _frame(self, e: Any, path: str, below: dict | None) -> dict:
        """One frame: its kind's named fields only (no raw core fields), each in its range for that kind. Without
        "source", the source the core books for that kind (for a frame pushed by an effect, its pusher's)."""
        nm, t = self.nm, self.t
        if not isinstance(e, dict):
            _fail(path, f"expected a frame object, got {_show(e)}")
        kind = _name(e.get("kind"), _join(path, "kind"), FRAME_KIND_IDS, "frame kind")
        kname = FRAME_KINDS[kind]
        named = {"EFFECTS": ("effects", "next", "building"), "GRANT": ("action",), "NARROW2": (),
                 "PASSENGER": ("space", "coin_free"), "SAGRADA": ("steps_left",), "SAG_TILE": ("level", "slot"),
                 "RES": ("resources",), "INT_PICK": ("picks_left", "slots_taken")}[kname]
        required = {"EFFECTS": ("effects",), "GRANT": ("action",), "PASSENGER": ("space",),
                    "SAGRADA": ("steps_left",), "SAG_TILE": ("level", "slot"), "RES": ("resources",),
                    "INT_PICK": ("picks_left",)}.get(kname, ())
        _obj(e, path, ("kind", "player", "source") + named, ("player",) + required)
        f = {"kind": kind, "player": _seat(e["player"], _join(path, "player"), self.n), "a": 0, "b": 0,
             "src": 0, "lst": 0, "path": path}
        if "source" in e:
            f["src"] = _name(e["source"], _join(path, "source"), SOURCES, "VP source")
        elif kname in ("RES", "SAGRADA", "GRANT"):
            f["src"] = below["src"] if below is not None else SOURCES.index("actions")
        else:
            f["src"] = SOURCES.index({"SAG_TILE": "sagrada", "INT_PICK": "intersections"}.get(kname, "streets"))
        if kname == "EFFECTS":
            f["lst"] = lst = _name(e["effects"], _join(path, "effects"), nm.eff_index, "effect list of this edition")
            if lst not in nm.list_sources:
                _fail(_join(path, "effects"), f"{e['effects']} is applied at once where it is printed (a street "
                                              "space or an Intersection slot), never as a frame")
            if "source" not in e and len(nm.list_sources[lst]) == 1:
                f["src"] = next(iter(nm.list_sources[lst]))
            if f["src"] not in nm.list_sources[lst]:
                origins = " or ".join(SOURCES[x] for x in sorted(nm.list_sources[lst]))
                _fail(_join(path, "source"), f"{_show(e['source'])}: {e['effects']} books its VP as {origins}"
                      if "source" in e else f"missing: {e['effects']} books its VP as {origins}, say which")
            effects = nm.ed.effect_lists[lst]
            f["a"] = _int(e.get("next", 0), _join(path, "next"), 0, len(effects))
            if any(code == E_MARKER for code, _ in effects):
                if "building" not in e:
                    _fail(_join(path, "building"), f"missing: {e['effects']} places a Building marker (R93 step 6)")
                f["b"] = _name(e["building"], _join(path, "building"), nm.bs_index, "building space")
            elif "building" in e:
                _fail(_join(path, "building"), f"{e['effects']} places no Building marker")
        elif kname == "GRANT":
            f["a"] = _name(e["action"], _join(path, "action"), GRANT_KINDS, "granted action")
        elif kname == "PASSENGER":
            f["a"] = _space(e["space"], _join(path, "space"))
            f["b"] = 1 if _bool(e.get("coin_free", False), _join(path, "coin_free")) else 0
        elif kname == "SAGRADA":
            f["a"] = _int(e["steps_left"], _join(path, "steps_left"), 0, nm.max_sagrada)
        elif kname == "SAG_TILE":
            f["a"] = _int(e["level"], _join(path, "level"), 1, max(t["sag_slot_level"]))
            f["b"] = _int(e["slot"], _join(path, "slot"), 0, len(t["sag_slot_level"]) - 1)
        elif kname == "RES":
            f["a"] = _int(e["resources"], _join(path, "resources"), 1, nm.max_res)
        elif kname == "INT_PICK":
            f["a"] = _int(e["picks_left"], _join(path, "picks_left"), 0, max(t["inter_picks"]))
            taken = _list(e.get("slots_taken", []), _join(path, "slots_taken"), max_len=5)
            m = 0
            for i, x in enumerate(taken):
                slot = _int(x, f"{path}.slots_taken[{i}]", 0, 4)
                if (m >> slot) & 1:
                    _fail(f"{path}.slots_taken[{i}]", f"slot {slot} is listed twice")
                m |= 1 << slot
            f["b"] = m
        return f

    def _turn_checks(self):
        """The turn machinery against the phase and the rest of the position: what each phase may have pending
        (R34's four steps), the frame stack's shape, and every count a pending piece will use."""
        r, t = self.r, self.t
        ph, cur, pls = r["phase"], r["cur"], r["pl"]
        pname = PHASES[ph]
        pc, used = r["place_crossing"], r["streets_used"]
        if ph == PH_PLACE and (pc >= 0 or used):
            _fail("turn_state.place_crossing", "the PLACE phase has no crossing nor streets used yet")
        if ph == PH_ACTIONS:
            if pc < 0:
                _fail("turn_state.place_crossing", "the ACTIONS phase needs the crossing the hand was placed on")
            if r["cross_lo"][pc] < 0:
                _fail("turn_state.place_crossing", f"{_cross_name(pc)} has no citizens")
            if sum(pls[cur]["hand"]) != 0:
                _fail(f"players[{cur}].hand", f"seat {cur} placed its hand this turn (ACTIONS): it holds no "
                                              "citizens until its draws (R34)")
        if used:
            if pc < 0:
                _fail("turn_state.streets_used", "street actions were taken but no crossing was placed on")
            if used & 4 and pc % 5 != pc // 5:
                _fail("turn_state.streets_used", f"{_cross_name(pc)} is not on the diagonal")
        if self.frames and ph not in (PH_ACTIONS, PH_END):
            _fail("turn_state.frames", f"frames wait only in the ACTIONS and END phases (actions, and the effects "
                                       f"of a construction), not in {pname}")
        d = r["discard_player"]
        if d >= 0:
            pl = pls[d]
            if ph not in (PH_ACTIONS, PH_END):
                _fail("turn_state.discard_player", f"Warehouses overflow only from gains in the ACTIONS and END "
                                                   f"phases, not in {pname}")
            if pl["coins"] == 0 or pl["cloth"] == 0:
                _fail("turn_state.discard_player", f"seat {d} holds only {'Cloth' if pl['coins'] == 0 else 'Coins'}"
                                                   ": the overflow goes back at once, there is nothing to choose "
                                                   "(A39)")
            over = pl["coins"] + pl["cloth"] - (t["wh_free"] + pl["cobbles"])
            if over > MAX_OVERFLOW:
                _fail(f"players[{d}].coins", f"{over} tokens over the Warehouse; one gain overflows it by at most "
                                             f"{MAX_OVERFLOW} (R43, A39)")
        rp = r["reveal_pending"]
        if rp:
            free = t["display_size"] - bin(r["mod_display"]).count("1")
            if ph not in (PH_ACTIONS, PH_END, PH_REFRESH):
                _fail("turn_state.reveal_pending", f"the display is refilled during actions or a refresh, not in "
                                                   f"{pname} (R73, R111)")
            if rp > free:
                _fail("turn_state.reveal_pending", f"{rp} reveals owed but the display has {free} empty places "
                                                   "(R73, R111)")
            if ph != PH_REFRESH and rp > 1:
                _fail("turn_state.reveal_pending", f"{rp}: a tile taken from the display is replaced at once, one "
                                                   "at a time (R73)")
            if d >= 0:
                _fail("turn_state.reveal_pending", "a reveal and a discard cannot both be due (each is resolved "
                                                   "before anything else happens)")
        if r["refresh_pending"]:
            if ph != PH_REFRESH:
                _fail("turn_state.refresh_pending", f"refreshes are owed only in the REFRESH phase, not in {pname}")
            if r["refresh_pending"] > r["scorings"]:
                _fail("turn_state.refresh_pending", f"{r['refresh_pending']} refreshes owed after "
                                                    f"{r['scorings']} Cerdà scorings (one each, R111)")
        held = sum(pls[cur]["hand"])
        if ph == PH_DRAW:
            if r["draws_left"] == 0:
                _fail("turn_state.draws_left", f"0 in the DRAW phase: seat {cur} holds {held} and draws "
                                               f"{2 - held} (a full hand ends the turn, R34 step 4)")
            if r["draws_left"] + held != 2:
                _fail("turn_state.draws_left", f"{r['draws_left']} draws left but seat {cur} holds {held}: the hand "
                                               "is refilled to 2 one citizen at a time (R34 step 4, A1)")
        elif r["draws_left"]:
            _fail("turn_state.draws_left", f"citizens are drawn in the DRAW phase, not in {pname}")
        # Sections: each is scored in the END step of the turn whose construction reached its mark (R109)
        if ph != PH_END:
            for i in range(3):
                reached = any((r["track"][k] >> t["track_mark"][k][i]) & 1 for k in range(3))
                if reached and not (r["scored"] >> i) & 1:
                    _fail(f"cerda_tiles[{i}].scored", f"a citizen track reached section {i + 1}'s mark: it is "
                                                      f"scored in the END step of that turn (R109), before {pname}")
        if ph == PH_OVER and (d >= 0 or rp or r["refresh_pending"] or self.frames):
            _fail("turn_state", "nothing is pending once the game is over")
        self._frames()

    def _frames(self):
        """The frame stack (bottom first). The core pushes a frame only from the one below it (core.pyx:
        run_effects, apply_grant, apply_frame), so the stack is a chain: the bottom frame starts the piece of
        the turn that is under way, every other frame was pushed by the frame under it, and only the top frame
        waits for a decision. Checked: who decides, where each frame comes from, and every count it will use."""
        frames, r, t, nm = self.frames, self.r, self.t, self.nm
        if not frames:
            return
        cur, ph = r["cur"], r["phase"]
        top = len(frames) - 1
        for i, f in enumerate(frames):
            kname = FRAME_KINDS[f["kind"]]
            if kname == "INT_PICK":
                self._int_pick(f, i)
            elif f["player"] != cur:
                _fail(_join(f["path"], "player"), f"seat {f['player']}: only the Intersection owner's picks "
                                                  f"(INT_PICK) are decided by another seat than to_move ({cur})")
            if i < top and kname not in ("EFFECTS", "SAGRADA"):
                _fail(f["path"], f"a {kname} frame waits for a decision, so it is the top frame; only EFFECTS and "
                                 "SAGRADA frames wait under others")
            if kname == "SAG_TILE":
                self._sag_tile_frame(f)
        base = frames[0]
        if ph == PH_END:                         # the construction's effects: tile, marker (R93 steps 5-6)
            if not self._is_building_effects(base):
                _fail(base["path"], "in the END phase the bottom frame is the EFFECTS of the building just "
                                    "constructed (source buildings, with its building space)")
        elif FRAME_KIND_IDS["INT_PICK"] != base["kind"]:
            pc = r["place_crossing"]
            streets = [st for i, st in enumerate((pc % 5, 5 + pc // 5, 10)) if (r["streets_used"] >> i) & 1]
            if not any(self._left_by(base, r["street_action"][st], None) for st in streets):
                taken = ", ".join(ACTION_KINDS[r["street_action"][st]] for st in streets) or "none was taken"
                _fail(base["path"], "the bottom frame must be what a street action taken this turn (streets_used) "
                                    f"leaves pending; {taken}")
        for i in range(1, len(frames)):
            self._child(frames[i - 1], frames[i])
        # every pending MARKER effect finds room on its building (one marker per level, R102)
        pending: dict[int, int] = {}
        where: dict[int, str] = {}
        for f in frames:
            if f["kind"] == FRAME_KIND_IDS["EFFECTS"]:
                codes = [code for code, _ in nm.ed.effect_lists[f["lst"]]]
                if E_MARKER in codes[f["a"]:]:
                    pending[f["b"]] = pending.get(f["b"], 0) + 1
                    where[f["b"]] = f["path"]
        used = sum(t["bld_count"]) - sum(r["bld_stack"])
        if pending and sum(r["bld_n"]) + sum(pending.values()) > used:
            bs = next(iter(pending))
            _fail(_join(where[bs], "building"), f"{sum(r['bld_n'])} markers on the board and one pending, but only "
                                                f"{used} Building tiles were used (one marker per construction, R93)")
        for bs, k in pending.items():
            lvl = r["bld_level"][bs]
            room = 0 if lvl == 0 else 1 if lvl == 4 else lvl
            if r["bld_n"][bs] + k > room:
                _fail(_join(where[bs], "building"), f"{nm.bs[bs]} ({LEVEL_NAMES.get(lvl, 'empty')}) holds "
                                                f"{r['bld_n'][bs]} markers and has room for {room}: no marker can "
                                                "be placed there (R102)")

    def _is_building_effects(self, f: dict) -> bool:
        r = self.r
        if f["kind"] != FRAME_KIND_IDS["EFFECTS"] or f["src"] != SOURCES.index("buildings"):
            return False
        lvl = r["bld_level"][f["b"]]
        return lvl > 0 and f["lst"] == self.t["bld_list"][BUILD_TYPE_OF_LEVEL[lvl]]

    def _int_pick(self, f: dict, i: int):
        """The Intersection owner's picks (R62-R65): pushed when the hand is placed, before any action."""
        r, t = self.r, self.t
        pc = r["place_crossing"]
        path = f["path"]
        if i != 0 or len(self.frames) != 1 or r["phase"] != PH_ACTIONS or r["streets_used"]:
            _fail(path, "INT_PICK is the only frame, in the ACTIONS phase before any street action: the owner "
                        "picks as soon as the hand is placed (R62)")
        owner = r["cross_int"][pc]
        if f["player"] != owner:
            _fail(_join(path, "player"), f"seat {f['player']} but the Intersection on {_cross_name(pc)} is "
                                         f"{'nobody' if owner < 0 else 'seat %d' % owner}'s (R62)")
        if f["src"] != SOURCES.index("intersections"):
            _fail(_join(path, "source"), "Intersection picks book their VP as intersections")
        built = r["pl"][owner]["inters"]
        if f["b"] >> built:
            _fail(_join(path, "slots_taken"), f"seat {owner} has emptied only slots 0..{built - 1} (R63)")
        if f["a"] + bin(f["b"]).count("1") != t["inter_picks"][built - 1]:
            _fail(_join(path, "picks_left"), f"{f['a']} left after {bin(f['b']).count('1')} picks, but seat "
                                             f"{owner}'s {built} Intersections give {t['inter_picks'][built - 1]} "
                                             "(R64)")

    def _sag_tile_frame(self, f: dict):
        """A Sagrada slot just passed (R119): the marker is one space past it, the slot empty, the level its own."""
        t = self.t
        pl = self.r["pl"][f["player"]]
        j = f["b"]
        if f["a"] != t["sag_slot_level"][j]:
            _fail(_join(f["path"], "level"), f"slot {j} takes a level-{t['sag_slot_level'][j]} tile (R119)")
        if pl["sagrada"] != t["sag_slot_after"][j] + 1:
            _fail(_join(f["path"], "slot"), f"the Sagrada marker is on space {pl['sagrada']}; slot {j} is chosen "
                                            f"just after passing space {t['sag_slot_after'][j]} (R119)")
        if pl["sag_tile"][j] >= 0:
            _fail(_join(f["path"], "slot"), f"slot {j} already holds {self.nm.sag[pl['sag_tile'][j]]}")
        if f["src"] != SOURCES.index("sagrada"):
            _fail(_join(f["path"], "source"), "a Sagrada tile books its VP as sagrada")

    def _child(self, parent: dict, f: dict):
        """`f` was pushed by `parent`, the frame under it."""
        nm, t, pl = self.nm, self.t, self.r["pl"][parent["player"]]
        kind = FRAME_KINDS[f["kind"]]
        if parent["kind"] == FRAME_KIND_IDS["EFFECTS"]:
            effects = nm.ed.effect_lists[parent["lst"]]
            k = parent["a"]
            code, amt = effects[k - 1] if k >= 1 else (None, 0)
            if code == E_RES:
                ok = kind == "RES" and f["a"] == amt and f["src"] == parent["src"]
            elif code == E_SAGRADA:
                ok = kind == "SAGRADA" and f["a"] <= amt and f["src"] == parent["src"]
            elif code == E_ACT:
                ok = self._left_by(f, amt, parent["src"])
            else:
                _fail(_join(parent["path"], "next"), f"{parent['a']}: the effect before it "
                      f"({nm.eff[parent['lst']]} item {k}) does not wait for another frame, so nothing can be "
                      "stacked on this one")
            if not ok:
                _fail(f["path"], f"a {kind} frame cannot come from item {k} of {nm.eff[parent['lst']]} (the frame "
                                 "under it)")
        else:                                    # SAGRADA: the slot just passed (SAG_TILE), then that tile's list
            if kind == "SAG_TILE":
                return
            ok = kind == "EFFECTS" and f["src"] == SOURCES.index("sagrada") and any(
                pl["sag_tile"][j] >= 0 and t["sag_list"][pl["sag_tile"][j]] == f["lst"]
                and pl["sagrada"] == t["sag_slot_after"][j] + 1 for j in range(len(t["sag_slot_after"])))
            if not ok:
                _fail(f["path"], "on a SAGRADA frame only the choice of the slot just passed (SAG_TILE) or the "
                                 "effects of the tile chosen for it (EFFECTS, source sagrada) can wait (R119)")

    def _left_by(self, f: dict, gk: int, grant_src: int | None) -> bool:
        """Whether frame `f` can be what an action of kind `gk` leaves pending at its own level: the GRANT frame
        itself (granted by an effect booking `grant_src`; None for an action tile taken from a street), or what its
        first choice pushes (core.pyx apply_grant), or, after a Tram move, what the Passenger's free action
        leaves (R84, A18)."""
        t, r = self.t, self.r
        p = f["player"]
        pl = r["pl"][p]
        kind = FRAME_KINDS[f["kind"]]
        src = SOURCES.index
        if kind == "GRANT" and grant_src is not None and f["a"] == gk and f["src"] == grant_src:
            return True
        if kind == "EFFECTS":
            if gk in (GK_COINS, GK_CLOTH, GK_CERDA):
                return f["src"] == src("actions") and f["lst"] == t["action_list"][(GK_COINS, GK_CLOTH,
                                                                                    GK_CERDA).index(gk)]
            if gk in (GK_COBBLE, GK_COBBLE_ANYWHERE):      # the list of a Sidewalk space with a placed Cobblestone
                placed = r["sidewalk"] & ~t["side_pre"]
                return f["src"] == src("sidewalk") and pl["cobbles"] > 0 and any(
                    (placed >> x) & 1 and t["side_list"][x] == f["lst"] for x in range(NUM_SIDEWALK))
            if gk == GK_PS:                                # a Public Service this player built
                return f["src"] == src("public_services") and any(
                    (pl["ps_built"] >> k) & 1 and t["ps_list"][k] == f["lst"] for k in range(len(t["ps_list"])))
        if kind == "NARROW2" and gk in (GK_NARROW, GK_STREETS):     # the second Narrow tile (A14)
            return f["src"] == 0 and pl["narrow"] > 0
        if gk in (GK_TRAM, GK_TRAM_COIN_FREE):
            if kind == "PASSENGER":                        # where the Tram stopped (R83)
                return f["a"] == pl["tram"] and f["src"] == 0 and f["b"] in (0, int(gk == GK_TRAM_COIN_FREE))
            sp = pl["tram"]
            if sp >= 0 and r["passenger"][sp] == p:        # the Passenger is placed: the street's action (R84)
                k0 = r["street_action"][t["space_street"][sp]]
                if kind == "GRANT":
                    return f["a"] == k0 and f["src"] == src("actions")
                if k0 not in (GK_TRAM, GK_TRAM_COIN_FREE):
                    return self._left_by(f, k0, None)
        return False

    # -- counts that involve several parts ------------------------------------------------------------------
    def _cross_checks(self):
        r, t, n = self.r, self.t, self.n
        pls = r["pl"]
        # Trams: one per space (R82)
        where: dict[int, int] = {}
        for p in range(n):
            sp = pls[p]["tram"]
            if sp >= 0:
                if sp in where:
                    _fail(f"players[{p}].tram", f"seat {where[sp]}'s Tram is already on {space_name(sp)} "
                                                      "(R82)")
                where[sp] = p
        # Cobblestones: each one taken out of a Warehouse lies on the Sidewalk (R46)
        cob = sum(pls[p]["cobbles"] for p in range(n))
        if cob != self.cobbles_on_sidewalk:
            _fail("sidewalk", f"{self.cobbles_on_sidewalk} Cobblestones placed beside the printed ones, but the "
                              f"players' cobblestones add up to {cob}")
        # Public Services: the built tiles came off their stacks (R76)
        for k, name in enumerate(self.nm.ps):
            if r["ps_left"][k] < 0:
                continue
            owners = sum(1 for p in range(n) if (pls[p]["ps_built"] >> k) & 1)
            if self.ps_per - r["ps_left"][k] != owners:
                _fail(f"public_services.{name}", f"{r['ps_left'][k]} tiles left of {self.ps_per}, but {owners} "
                                                 "players built it")
        # Warehouse capacity (R43, A39)
        for p in range(n):
            cap = t["wh_free"] + pls[p]["cobbles"]
            over = pls[p]["coins"] + pls[p]["cloth"] > cap
            if over and r["discard_player"] != p:
                _fail(f"players[{p}].coins", f"coins {pls[p]['coins']} + cloth {pls[p]['cloth']} exceed the "
                                                   f"Warehouse ({cap} spaces, R43)")
            if not over and r["discard_player"] == p:
                _fail("turn_state.discard_player", f"seat {p}'s Warehouse does not overflow")
        # turns: seats before to_move have finished one more turn than the others (all equal at the end)
        def ahead(p):
            return 1 if r["phase"] != PH_OVER and p < r["cur"] else 0

        given = [p for p in range(n) if pls[p]["turns"] is not None]
        ref = pls[given[0]]["turns"] - ahead(given[0]) if given else 0
        for p in range(n):
            if pls[p]["turns"] is None:
                pls[p]["turns"] = max(0, ref + ahead(p))
        cur_t = pls[n - 1]["turns"] if r["phase"] == PH_OVER else pls[r["cur"]]["turns"]
        for p in range(n):
            want = cur_t + ahead(p)
            if pls[p]["turns"] != want:
                _fail(f"players[{p}].turns", f"{pls[p]['turns']} but seat {r['cur']} (to move) has "
                                                   f"{pls[r['cur']]['turns']}: seats before to_move have one turn "
                                                   "more, the others the same")

    def _fill_absent_seats(self):
        for _ in range(self.n, MAX_PLAYERS):
            self.r["pl"].append({"score": 0, "vp_src": [0] * len(SOURCES), "coins": 0, "cloth": 0, "cobbles": 0,
                                 "inters": 0, "narrow": 0, "wide": 0, "passengers": 0, "tram": -1, "markers": 0,
                                 "cerda": 0, "sagrada": 0, "mod_tile": [-1] * 5, "mod_up": [0] * 5,
                                 "sag_tile": [-1] * 3, "ps_built": 0, "hand": [0, 0, 0], "turns": 0, "spare": 0})


def state_from_json(doc: Any, seed: int = 0) -> State:
    """Build a state from a position document (a dict or JSON text); see docs/positions.md.

    A viewpoint document's hidden hands are sampled from its unseen pool with `seed`."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidPositionError(f"seed: expected an integer, got {_show(seed)}")
    reader = _Reader(doc)
    raw, edition, viewpoint, hand_written = reader.read()
    try:
        st = State._from_raw(raw, edition)          # the core's memory-safety guard, after every check above
    except InvalidPositionError:
        raise
    except BarcelonaError as exc:
        raise InvalidPositionError(f"position: {exc}") from None
    problem = st._invariant_problem()               # the core's own invariants, as a last guard
    if problem:
        raise InvalidPositionError(f"position: {problem}")
    if viewpoint is not None:
        st = st.determinize(viewpoint, seed)
    if hand_written and raw["phase"] == PH_PLACE:
        st.settle()                                   # the automatic steps of a start-of-turn position
    elif not st.is_terminal() and not st.legal_actions():
        st.settle()                                   # a written position that stopped where no decision waits
    return st


def load_position(path_or_str: str | Path | dict, seed: int = 0) -> State:
    """A state from a position file (a path) or from JSON text (a string starting with '{') or a dict."""
    if isinstance(path_or_str, dict):
        return state_from_json(path_or_str, seed)
    if isinstance(path_or_str, str) and path_or_str.lstrip().startswith("{"):
        return state_from_json(path_or_str, seed)
    if not isinstance(path_or_str, (str, Path)):
        raise InvalidPositionError(f"position: expected a file path, JSON text or a dict, got "
                                   f"{type(path_or_str).__name__}")
    what = f"position file {show_path(path_or_str)}"
    return state_from_json(parse_json(read_bytes(path_or_str, what, InvalidPositionError), what,
                                      InvalidPositionError, unique_keys=True), seed)


# State.to_json / State.from_json use these (core.pyx, "Layers").
register_text_services(state_to_json=state_to_json, state_from_json=state_from_json)
