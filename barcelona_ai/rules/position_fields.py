"""The shared vocabulary of position documents (format, phases, frame kinds, levels, the names of an
edition's components) and the readers of one field each (an integer in range, a crossing, a seat ...),
every one raising InvalidPositionError naming the field by its JSON path (docs/positions.md)."""
from __future__ import annotations

import json
import re
from typing import Any

from ..core import SOURCES
from ..errors import BarcelonaError, InvalidPositionError
from .jsonio import parse_json
from .editions import edition_of_document
from .tables import CLASSES, EFFECT_CODES, GRANT_KINDS, NUM_SIDEWALK, SPACE_INDEX

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

_TOP_KEYS = ("format", "version", "edition", "edition_sha256", "players", "viewpoint", "to_move", "phase",
             "action_tiles", "crossings", "streets", "buildings", "building_tiles_left", "bonus_rows_taken",
             "citizen_tracks", "cerda_tiles", "cerda_scorings_done", "modernisme", "public_services", "sagrada_offer",
             "sidewalk", "bag", "unseen_pool", "turn_state")
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


def _edition(edition: str, sha256: Any, chosen: Any):
    """editions.edition_of_document, with every failure a BarcelonaError: DataFileError for an unknown, invalid or
    other edition (as documented), InvalidPositionError for a name that is not even a readable file."""
    if len(edition) > 1000 or "\x00" in edition:
        _fail("edition", f"{_show(edition)} is not an edition name nor a data file path")
    try:
        return edition_of_document(edition, sha256, chosen)
    except BarcelonaError:
        raise
    except (OSError, ValueError, RecursionError) as exc:     # a directory, not UTF-8, nested too deeply ...
        _fail("edition", f"data file {_show(edition)} cannot be read: {type(exc).__name__}")


def _parse_json(text: str | bytes | bytearray) -> Any:
    """JSON text -> Python objects; every failure (syntax, encoding, nesting, a number too long to convert, a key
    given twice) is an InvalidPositionError (jsonio)."""
    return parse_json(text, "position", InvalidPositionError, unique_keys=True)
