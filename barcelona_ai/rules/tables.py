"""Load and validate a board-data file (an "edition") and turn it into plain integer tables for the core.

Every printed number of the game lives in ``data/<edition>.json``. This module checks every count and name
(errors name the field) and derives the geometry of the 5x5 street grid: crossings, street spaces, blocks,
building spaces and their adjacencies. The result, :class:`Edition`, holds only ints and lists of ints;
``core.GameData`` copies it into C arrays once.

Coordinates (rules-inventory §0): crossing ``(c,r)`` has index ``r*5+c``. Street spaces: ``V(c,r)`` =
``c*4+r`` (0..19), ``H(c,r)`` = ``20+r*4+c`` (20..39), ``D(k)`` = ``40+k``. Streets: vertical ``c`` = 0..4,
horizontal ``r`` = 5..9, diagonal = 10. Building spaces: block rows ``j`` then columns ``i``; a diagonal block
``B(k,k)`` gives two corner spaces ``NE(k)`` then ``SW(k)``, every other block one normal space.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import DataFileError
from .jsonio import check_depth, load_json_file, short_repr, show_path

from .geometry import (GRID, NUM_CROSSINGS, NUM_SPACES, SPACE_INDEX, building_spaces,  # noqa: F401 (the tables'
                       crossing_index, space_ends, space_name, space_street)               # modules read them here)
NUM_STREETS = 11
NUM_BUILDING_SPACES = 20
NUM_SIDEWALK = 30
NUM_MODERNISME = 18
NUM_SAGRADA = 16
NUM_PS_TYPES = 7
NUM_CLASSES = 3
MAX_EFFECTS = 4
CLASSES = ("WORKING", "MIDDLE", "UPPER")
BUILDING_TYPES = ("CORNER", "L1", "L2", "L3")

ACTION_KINDS = ("GAIN_2_COINS", "GAIN_CLOTH_3VP", "PLACE_COBBLESTONE", "BUILD_1_WIDE", "BUILD_2_NARROW",
                "BUILD_INTERSECTION", "IMPROVE_MODERNISME", "TAKE_MODERNISME", "BUILD_PUBLIC_SERVICE",
                "MOVE_TRAM", "CERDA_PLUS_2")

# Granted-action kinds (what an effect, a Passenger or a Public Service lets a player do). The first 11 are the
# action tiles, in ACTION_KINDS order; the others are the variants that Public Services and tiles grant.
GRANT_KINDS = ACTION_KINDS + ("BUILD_STREETS", "BUILD_INTERSECTION_FREE", "IMPROVE_MODERNISME_FREE",
                              "TAKE_MODERNISME_FREE", "PLACE_COBBLESTONE_ANYWHERE", "MOVE_TRAM_COIN_FREE")

# Effect codes (the C enum in core.pxd follows this order).
EFFECT_CODES = ("COIN", "CLOTH", "RES", "VP", "CERDA", "SAGRADA", "ACT", "CLOTH_PER_BLOCK", "MARKER")
ACT_EFFECTS = {
    "ACT_BUILD_NARROW": "BUILD_2_NARROW", "ACT_BUILD_WIDE": "BUILD_1_WIDE",
    "ACT_BUILD_INTERSECTION": "BUILD_INTERSECTION", "ACT_TAKE_MODERNISME": "TAKE_MODERNISME",
    "ACT_IMPROVE_MODERNISME": "IMPROVE_MODERNISME", "ACT_MOVE_TRAM": "MOVE_TRAM",
    "ACT_TAKE_MODERNISME_FREE": "TAKE_MODERNISME_FREE", "ACT_IMPROVE_MODERNISME_FREE": "IMPROVE_MODERNISME_FREE",
}
# The 7 Public Service types (rules inventory §1.13, PS1..PS7): names only; what each one gives is printed on its
# tile and lives in the data file (public_services.benefits).
PUBLIC_SERVICE_TYPES = ("SANT_ANTONI", "ESTACIO_FRANCA", "HOSPITAL_SANT_PAU", "LLUIS_COMPANYS", "UNIVERSITAT",
                        "MUSEU_MODERNISME", "PAVELLO_OPERACIONS")
CONDITIONS = ("BLOCK_LINE", "CLOTH_5", "COIN_5", "NARROW_LINE", "INTERSECTION_ADJ3", "CERDA_MULT", "WIDE_LINE",
              "PUBLIC_SERVICES", "NARROW_TILES", "PASSENGER_ADJ2", "WIDE_TILES", "MOD_TOP", "PASSENGERS",
              "COBBLESTONES", "INTERSECTIONS", "EMPTY_MARKER_STACKS", "CORNER_BLOCKS", "MOD_TILES",
              "BOTTOM_MARKERS")
SIMPLE_CODES = ("COIN", "CLOTH", "VP", "CERDA")   # what street spaces and Intersection slots may print
# The amounts an effect may carry (the core stores them in 8 bits; VP are summed into 16-bit score sources).
EFFECT_AMOUNTS = {"COIN": (0, 20), "CLOTH": (0, 20), "RES": (1, 5), "VP": (0, 30), "CERDA": (-16, 16),
                  "SAGRADA": (0, 16)}
MAX_CONDITIONS = 32           # core.pxd DataC.cond_kind[32]
MAX_TITLE = 40                # characters of a printed title (action_titles)


# ---------------------------------------------------------------------------------------------------------------
# the validated edition

@dataclass
class Edition:
    """Plain integer tables of one edition; built by :func:`load_edition`, consumed by ``core.GameData``."""
    name: str
    raw: dict
    source: str = "default"            # what load_edition() was given: a built-in name or a file path
    sha256: str = ""                   # of the file's content (content_digest): what records and positions name
    board_sha256: str = ""             # of its board alone (board_digest): what a learned model was fitted on
    effect_lists: list[list[tuple[int, int]]] = field(default_factory=list)
    t: dict[str, Any] = field(default_factory=dict)   # every table, by the name core.pyx reads

    @property
    def label(self) -> str:
        """How a person sees the edition: its name and the start of its content digest."""
        return edition_label(self.name, self.sha256)


def edition_label(name: str, sha256: str | None) -> str:
    """'edition "default" (board data 1a2b3c4d)': the name and, when known, the first digits of the digest."""
    shown = short_repr(name) if not isinstance(name, str) or len(name) > 64 else f'"{name}"'
    return f"edition {shown}" + (f" (board data {sha256[:8]})" if sha256 else "")


def board_digest(doc: dict) -> str:
    """The content digest of the board alone: the data without its name and description, so that a copy of a
    board under another name is the same board (the learned models fitted on one apply to the other)."""
    return content_digest({k: v for k, v in doc.items() if k not in ("edition", "description")})


def content_digest(doc: Any) -> str:
    """The sha256 of a data document's content (canonical JSON: keys sorted, no spaces), hex: two files with the
    same numbers have the same digest whatever their layout, and one changed number changes it."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class _Builder:
    def __init__(self, doc: dict, source: str):
        self.doc = doc
        self.source = source
        self.lists: list[list[tuple[int, int]]] = []
        self._list_ids: dict[tuple, int] = {}

    def fail(self, path: str, msg: str) -> None:
        raise DataFileError(f"{self.source}: field '{path}': {msg}")

    def get(self, obj: Any, key: str, path: str, typ: type | tuple = (dict, list, int, str)) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            self.fail(f"{path}.{key}" if path else key, "missing")
        val = obj[key]
        if typ is int and (isinstance(val, bool) or not isinstance(val, int)):
            self.fail(f"{path}.{key}" if path else key, f"expected an integer, got {short_repr(val)}")
        if typ is not int and not isinstance(val, typ):
            self.fail(f"{path}.{key}" if path else key, f"expected {typ}, got {type(val).__name__}")
        return val

    def int_in(self, obj: Any, key: str, path: str, lo: int, hi: int) -> int:
        """An integer field in lo..hi (every number the core stores is range-checked: its C fields are
        8-bit, and many are array indices)."""
        val = self.get(obj, key, path, int)
        if not lo <= val <= hi:
            self.fail(f"{path}.{key}" if path else key, f"{short_repr(val)} is not in {lo}..{hi}")
        return val

    def str_list(self, obj: Any, key: str, path: str) -> list[str]:
        val = self.get(obj, key, path, list)
        p = f"{path}.{key}" if path else key
        for x in val:
            if not isinstance(x, str):
                self.fail(p, f"expected names (strings), got {short_repr(x)}")
        return val

    def int_list(self, obj: Any, key: str, path: str, length: int | None = None, lo: int = 0,
                 hi: int = 10_000) -> list[int]:
        val = self.get(obj, key, path, list)
        p = f"{path}.{key}" if path else key
        if length is not None and len(val) != length:
            self.fail(p, f"expected {length} values, got {len(val)}")
        for x in val:
            if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
                self.fail(p, f"value {short_repr(x)} is not an integer in {lo}..{hi}")
        return list(val)

    def effects(self, text: Any, path: str, allowed: tuple[str, ...] | None = None) -> list[tuple[int, int]]:
        """Parse 'COIN1+CLOTH1' / 'ACT_BUILD_WIDE' / 'CERDA-1' / '' / '-' into (code, amount) pairs."""
        if not isinstance(text, str):
            self.fail(path, f"expected an effect string, got {short_repr(text)}")
        out: list[tuple[int, int]] = []
        if text in ("", "-"):
            return out
        if len(text) > 200:
            self.fail(path, "an effect string of more than 200 characters")
        for part in text.split("+"):
            if part.startswith("ACT_"):
                grant = ACT_EFFECTS.get(part)
                if grant is None and part[4:] in GRANT_KINDS:
                    grant = part[4:]
                if grant is None:
                    self.fail(path, f"unknown action effect '{part}'")
                code, amount = "ACT", GRANT_KINDS.index(grant)
            elif part == "CLOTH_PER_BLOCK":
                code, amount = part, 0
            else:
                m = re.fullmatch(r"([A-Z]+)(-?[0-9]{1,6})", part)
                if not m or m.group(1) not in EFFECT_AMOUNTS:             # ACT is written ACT_<KIND>; the
                    self.fail(path, f"unknown effect {short_repr(part)}")      # engine alone adds MARKER (R93)
                code, amount = m.group(1), int(m.group(2))
                if code != "CERDA" and amount < 0:
                    self.fail(path, f"negative amount in '{part}'")
                if code == "RES" and not 1 <= amount <= 5:
                    self.fail(path, f"'{part}': RES takes 1..5 resources")
                lo, hi = EFFECT_AMOUNTS[code]
                if not lo <= amount <= hi:
                    self.fail(path, f"'{part}': {code} takes {lo}..{hi}")
            if allowed is not None and code not in allowed:
                self.fail(path, f"effect '{part}' is not allowed here (allowed: {', '.join(allowed)})")
            out.append((EFFECT_CODES.index(code), amount))
        if len(out) > MAX_EFFECTS - 1:
            self.fail(path, f"at most {MAX_EFFECTS - 1} effects")
        return out

    def list_id(self, effects: list[tuple[int, int]]) -> int:
        key = tuple(effects)
        if key not in self._list_ids:
            self._list_ids[key] = len(self.lists)
            self.lists.append(list(effects))
        return self._list_ids[key]


def _builtin_path(name: str) -> Path:
    return Path(str(resources.files("barcelona_ai") / "data" / f"{name}.json"))


def available_editions() -> list[str]:
    """The editions the package ships: the data files whose "edition" is their own name (the model files beside
    them are no editions)."""
    return list(_shipped_editions())


@functools.lru_cache(maxsize=1)
def _shipped_editions() -> tuple[str, ...]:
    folder = Path(str(resources.files("barcelona_ai") / "data"))
    return tuple(sorted(p.stem for p in folder.glob("*.json") if _edition_name(p) == p.stem))


def _edition_name(path: Path):
    try:
        return load_json_file(path, f"data file {path.name}", DataFileError).get("edition")
    except (DataFileError, AttributeError):
        return None


_CACHE: dict[str, Edition] = {}


def load_edition(edition: "str | Path | Edition" = "default") -> Edition:
    """Load a built-in edition by name, or a data file by path; validated, cached by resolved path. An Edition
    is returned as it is."""
    if isinstance(edition, Edition):
        return edition
    if isinstance(edition, Path) or (isinstance(edition, str) and edition.endswith(".json")):
        if len(str(edition)) > 4096:
            raise DataFileError(f"data file {show_path(edition)}: the path is too long")
        path = Path(edition)
    else:
        if not isinstance(edition, str) or not re.fullmatch(r"[A-Za-z0-9_\-]{1,64}", edition) \
                or edition not in available_editions():
            shown = show_path(edition) if isinstance(edition, str) else repr(edition)[:80]
            raise DataFileError(f"unknown edition {shown}; available: {', '.join(available_editions())}")
        path = _builtin_path(edition)
    what = f"data file {show_path(path)}"
    try:
        key = str(path.resolve())
    except (OSError, RuntimeError, ValueError):      # a symlink loop, a NUL byte: read_bytes says why
        key = str(path)
    if key in _CACHE:
        return _CACHE[key]
    try:
        missing = not path.exists() and not path.is_symlink()
    except (OSError, ValueError):
        missing = False
    if missing:
        raise DataFileError(f"{what} does not exist")
    doc = load_json_file(path, what, DataFileError)
    ed = build_edition(doc, source=path.name)
    ed.source = str(edition)
    _CACHE[key] = ed
    return ed


def build_edition(doc: Any, source: str = "<data>") -> Edition:
    """Validate a parsed data document and derive every table the core needs.

    The parts are read in the order below, which decides the fault a file with several is refused for (the
    first one met): keep it."""
    b = _Builder(doc, source)
    check_depth(doc, f"{source}: field ''", DataFileError)
    if not isinstance(doc, dict):
        b.fail("", "the data file must hold a JSON object")
    digest = content_digest(doc)
    t: dict[str, Any] = {}
    name = b.get(doc, "edition", "", str)
    if not 1 <= len(name) <= 64 or not name.isprintable():
        b.fail("edition", "a name of 1..64 printable characters")
    _read_grid(b, doc, t)
    _read_streets(b, doc, t)
    _derive_street_geometry(t)
    _read_crossing_costs(b, doc, t)
    _derive_building_geometry(t)
    _read_actions(b, doc, t)
    _read_citizens(b, doc, t)
    _read_citizen_tracks(b, doc, t)
    _read_cerda_track(b, doc, t)
    _read_sidewalk(b, doc, t)
    _read_player_board(b, doc, t)
    cond_ids = _read_conditions(b, doc, t)
    _read_tiles(b, doc, t, cond_ids)
    _read_sagrada_tiles(b, doc, t)
    _read_buildings(b, doc, t)
    _read_public_services(b, doc, t)
    _construction_options(b, t)
    ed = Edition(name=name, raw=doc, sha256=digest, board_sha256=board_digest(doc), effect_lists=b.lists, t=t)
    if len(b.lists) > 250:
        b.fail("", "too many distinct effect lists")
    return ed


# -- grid and streets -------------------------------------------------------------------------------------------
def _read_grid(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """grid.size: the engine is laid out for one grid size."""
    grid = b.get(doc, "grid", "", dict)
    if b.get(grid, "size", "grid", int) != GRID:
        b.fail("grid.size", f"the engine's action ids are laid out for a {GRID}x{GRID} grid")


def _read_streets(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """streets: Wide spaces, the benefit printed on each street space, run VP."""
    streets = b.get(doc, "streets", "", dict)
    wide = b.str_list(streets, "wide", "streets")
    for w in wide:
        if w not in SPACE_INDEX:
            b.fail("streets.wide", f"unknown street space {short_repr(w)}")
    wide_set = {SPACE_INDEX[w] for w in wide}
    for k in range(4):
        if 40 + k not in wide_set:
            b.fail("streets.wide", f"the diagonal space D({k}) must be wide (Narrow lines are only "
                                   "vertical or horizontal, rules-inventory §2.2)")
    benefits = b.get(streets, "benefits", "streets", dict)
    for key in benefits:
        if key not in SPACE_INDEX:
            b.fail(f"streets.benefits.{short_repr(key)}", "unknown street space")
    t["space_wide"] = [1 if s in wide_set else 0 for s in range(NUM_SPACES)]
    t["space_list"] = []
    for s in range(NUM_SPACES):
        nm = space_name(s)
        if nm not in benefits:
            b.fail(f"streets.benefits.{nm}", "missing (write '-' for a blank space)")
        t["space_list"].append(b.list_id(b.effects(benefits[nm], f"streets.benefits.{nm}", SIMPLE_CODES)))
    rates = b.get(streets, "run_vp_per_tile", "streets", dict)
    t["run_vp_wide"] = b.int_in(rates, "wide", "streets.run_vp_per_tile", 0, 20)
    t["run_vp_narrow"] = b.int_in(rates, "narrow", "streets.run_vp_per_tile", 0, 20)


def _derive_street_geometry(t: dict[str, Any]) -> None:
    """The ends and street of every street space, and the street spaces at each crossing (no data read)."""
    t["space_a"], t["space_b"], t["space_street"], t["space_pos"] = [], [], [], []
    for s in range(NUM_SPACES):
        a, c = space_ends(s)
        st, pos = space_street(s)
        t["space_a"].append(a)
        t["space_b"].append(c)
        t["space_street"].append(st)
        t["space_pos"].append(pos)
    t["street_space"] = [0] * (NUM_STREETS * 4)
    for s in range(NUM_SPACES):
        t["street_space"][t["space_street"][s] * 4 + t["space_pos"][s]] = s
    cross_spaces: list[list[int]] = [[] for _ in range(NUM_CROSSINGS)]
    for s in range(NUM_SPACES):
        cross_spaces[t["space_a"][s]].append(s)
        cross_spaces[t["space_b"][s]].append(s)
    t["cross_nspaces"] = [len(x) for x in cross_spaces]
    t["cross_spaces"] = [x[i] if i < len(x) else -1 for x in cross_spaces for i in range(6)]


def _read_crossing_costs(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """crossing_cost_coins: the coins printed at each crossing."""
    costs = b.get(doc, "crossing_cost_coins", "", dict)
    t["cross_cost"] = []
    for r in range(GRID):
        for c in range(GRID):
            key = f"({c},{r})"
            v = b.get(costs, key, "crossing_cost_coins", int)
            if not 0 <= v <= 9:
                b.fail(f"crossing_cost_coins.{key}", "cost must be 0..9")
            t["cross_cost"].append(v)


# -- building spaces -------------------------------------------------------------------------------------------
def _derive_building_geometry(t: dict[str, Any]) -> None:
    """The building spaces, their crossings and their adjacency to street spaces and crossings (no data read)."""
    bsp = building_spaces()
    t["bs_corner"] = [x["corner"] for x in bsp]
    t["bs_block"] = [x["block"] for x in bsp]
    t["bs_row"] = [x["row"] for x in bsp]
    t["bs_ncross"] = [len(x["crossings"]) for x in bsp]
    t["bs_cross"] = [x["crossings"][i] if i < len(x["crossings"]) else -1 for x in bsp for i in range(4)]
    t["bs_names"] = [x["name"] for x in bsp]
    # a street space touches a building space when both its ends are corners of it (rules-inventory §4.1)
    sp_bs: list[list[int]] = []
    for s in range(NUM_SPACES):
        ends = {t["space_a"][s], t["space_b"][s]}
        sp_bs.append([i for i, x in enumerate(bsp) if ends <= set(x["crossings"])])
    t["space_nbs"] = [len(x) for x in sp_bs]
    t["space_bs"] = [x[i] if i < len(x) else -1 for x in sp_bs for i in range(2)]
    cr_bs = [[i for i, x in enumerate(bsp) if c in x["crossings"]] for c in range(NUM_CROSSINGS)]
    t["cross_nbs"] = [len(x) for x in cr_bs]
    t["cross_bs"] = [x[i] if i < len(x) else -1 for x in cr_bs for i in range(6)]


# -- actions ---------------------------------------------------------------------------------------------------
def _read_actions(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """action_tiles, action_effects, action_titles and printed_setup."""
    tiles = b.str_list(doc, "action_tiles", "")
    if sorted(tiles) != sorted(ACTION_KINDS):
        b.fail("action_tiles", f"must list the 11 action tiles {', '.join(ACTION_KINDS)} once each")
    aeff = b.get(doc, "action_effects", "", dict)
    t["action_list"] = []
    for kind in ("GAIN_2_COINS", "GAIN_CLOTH_3VP", "CERDA_PLUS_2"):
        t["action_list"].append(b.list_id(b.effects(b.get(aeff, kind, "action_effects", str),
                                                    f"action_effects.{kind}", SIMPLE_CODES)))
    titles = b.get(doc, "action_titles", "", dict)          # printed on the tiles; the text rendering shows them
    for key in titles:
        if key not in ACTION_KINDS:
            b.fail(f"action_titles.{short_repr(key)}", "unknown action tile")
    t["action_titles"] = []
    for kind in ACTION_KINDS:
        title = b.get(titles, kind, "action_titles", str)
        if not 1 <= len(title) <= MAX_TITLE or not title.isprintable() or not title.strip():
            b.fail(f"action_titles.{kind}", f"a title of 1..{MAX_TITLE} printable characters, got {short_repr(title)}")
        t["action_titles"].append(title)
    printed = b.get(doc, "printed_setup", "", dict)
    vert = b.str_list(printed, "vertical", "printed_setup")
    hor = b.str_list(printed, "horizontal", "printed_setup")
    diag = b.get(printed, "diagonal", "printed_setup", str)
    setup = list(vert) + list(hor) + [diag]
    if len(vert) != 5 or len(hor) != 5 or sorted(setup) != sorted(ACTION_KINDS):
        b.fail("printed_setup", "must place each of the 11 action tiles once (5 vertical, 5 horizontal, 1 diagonal)")
    t["printed_setup"] = [ACTION_KINDS.index(x) for x in setup]


# -- citizens and their tracks ---------------------------------------------------------------------------------
def _read_citizens(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """citizens: how many of each class (72 in all)."""
    cit = b.get(doc, "citizens", "", dict)
    t["citizens"] = [b.get(cit, c, "citizens", int) for c in CLASSES]
    if sum(t["citizens"]) != 72:
        b.fail("citizens", f"the game has 72 citizens (R5), the file has {sum(t['citizens'])}")


def _read_citizen_tracks(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """citizen_tracks: each class's track (VP, sections, Cerda marks, prefills)."""
    tracks = b.get(doc, "citizen_tracks", "", dict)
    t["track_len"], t["track_vp"], t["track_mark"], t["prefill3"], t["prefill2"] = [], [], [], [], []
    for k, cname in enumerate(CLASSES):
        p = f"citizen_tracks.{cname}"
        row = b.get(tracks, cname, "citizen_tracks", dict)
        vp = b.int_list(row, "vp", p, None, 0, 99)
        n = len(vp)
        if any(vp[i] > vp[i + 1] for i in range(n - 1)):
            b.fail(f"{p}.vp", "VP must not decrease from left to right (the lowest visible number is the "
                              "leftmost empty space's, R93 step 4)")
        if not 3 <= n <= 30:
            b.fail(f"{p}.vp", "a track has 3..30 spaces")
        sections = b.get(row, "sections", p, list)
        if len(sections) != 3:
            b.fail(f"{p}.sections", "every track has 3 sections")
        expect = 0
        for si, sec in enumerate(sections):
            if (not isinstance(sec, list) or len(sec) != 2
                    or any(isinstance(x, bool) or not isinstance(x, int) for x in sec)
                    or sec[0] != expect or sec[1] < sec[0]):
                b.fail(f"{p}.sections[{si}]", "sections must be [first, last] spans covering the track in order")
            expect = sec[1] + 1
        if expect != n:
            b.fail(f"{p}.sections", f"sections cover {expect} spaces but vp lists {n}")
        marks = b.int_list(row, "marks", p, 3, 0, n - 1)
        for si, m in enumerate(marks):
            if not sections[si][0] <= m <= sections[si][1]:
                b.fail(f"{p}.marks[{si}]", f"mark {m} lies outside section {sections[si]}")
        pre3 = b.int_list(row, "prefill_3p", p, None, 0, n - 1)
        pre2 = b.int_list(row, "prefill_2p", p, None, 0, n - 1)
        if not set(pre3) <= set(pre2):
            b.fail(f"{p}.prefill_2p", "must include every 3-player space (R12)")
        if set(pre2) & set(marks):
            b.fail(f"{p}.prefill_2p", "a prefilled space cannot be a Cerdà mark")
        t["track_len"].append(n)
        t["track_vp"].append(vp)
        t["track_mark"].append(marks)
        t["prefill3"].append(sum(1 << i for i in set(pre3)))
        t["prefill2"].append(sum(1 << i for i in set(pre2)))
        if t["citizens"][k] < len(set(pre2)) + 4:
            b.fail(f"citizens.{cname}", "too few citizens for the 2-player prefill")


def _read_cerda_track(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """cerda_track: its multipliers, start, overflow VP and resets."""
    cerda = b.get(doc, "cerda_track", "", dict)
    nsp = b.get(cerda, "spaces", "cerda_track", int)
    if not 3 <= nsp <= 16:
        b.fail("cerda_track.spaces", "must be 3..16")
    t["cerda_mult"] = b.int_list(cerda, "multiplier", "cerda_track", nsp, 0, 4)
    if any(t["cerda_mult"][i] > t["cerda_mult"][i + 1] for i in range(nsp - 1)):
        b.fail("cerda_track.multiplier", "multipliers must not decrease along the track")
    t["cerda_start"] = b.get(cerda, "start", "cerda_track", int)
    if not 0 <= t["cerda_start"] < nsp:
        b.fail("cerda_track.start", "outside the track")
    t["cerda_overflow_vp"] = b.int_in(cerda, "overflow_vp_per_step", "cerda_track", 0, 10)
    resets = b.int_list(cerda, "resets_after_scorings", "cerda_track", None, 1, 3)
    t["cerda_reset_mask"] = sum(1 << (x - 1) for x in resets)


# -- sidewalk --------------------------------------------------------------------------------------------------
def _read_sidewalk(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """sidewalk.rows: the 5x6 cells ('PRE' or an effect) and their adjacency."""
    side = b.get(doc, "sidewalk", "", dict)
    rows = b.get(side, "rows", "sidewalk", list)
    if len(rows) != 5 or any(not isinstance(r, list) or len(r) != 6 for r in rows):
        b.fail("sidewalk.rows", "the engine's action ids are laid out for a 5x6 Sidewalk")
    t["side_pre"] = 0
    t["side_list"] = []
    for i in range(NUM_SIDEWALK):
        cell = rows[i // 6][i % 6]
        if cell == "PRE":
            t["side_pre"] |= 1 << i
            t["side_list"].append(b.list_id([]))
        else:
            t["side_list"].append(b.list_id(b.effects(cell, f"sidewalk.rows[{i // 6}][{i % 6}]")))
    if t["side_pre"] == 0:
        b.fail("sidewalk.rows", "at least one printed starting cobblestone ('PRE') is needed for adjacency")
    t["side_adj"] = []
    for i in range(NUM_SIDEWALK):
        r, c = divmod(i, 6)
        m = 0
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < 5 and 0 <= c + dc < 6:
                m |= 1 << ((r + dr) * 6 + c + dc)
        t["side_adj"].append(m)


# -- player board ----------------------------------------------------------------------------------------------
def _read_player_board(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """player_board: read part by part, in the order below."""
    pb = b.get(doc, "player_board", "", dict)
    _read_warehouse(b, pb, t)
    _read_intersections(b, pb, t)
    _read_passengers(b, pb, t)
    _read_modernisme_spaces(b, pb, t)
    _read_street_stacks(b, pb, t)
    _read_marker_stacks(b, pb, t)
    _read_sagrada_track(b, pb, t)


def _read_warehouse(b: _Builder, pb: dict, t: dict[str, Any]) -> None:
    """player_board.warehouse: free spaces, Cobblestones and their VP, starting tokens."""
    wh = b.get(pb, "warehouse", "player_board", dict)
    t["wh_free"] = b.int_in(wh, "free_spaces", "player_board.warehouse", 2, 20)
    t["wh_cobbles"] = b.get(wh, "cobblestones", "player_board.warehouse", int)
    if t["wh_cobbles"] != 6:
        b.fail("player_board.warehouse.cobblestones", "every player has 6 Cobblestones (R28)")
    t["cobble_vp"] = b.int_list(wh, "cobblestone_end_vp", "player_board.warehouse", 6, 0, 99)
    t["start_coins"] = b.int_in(wh, "start_coins", "player_board.warehouse", 0, 20)
    t["start_cloth"] = b.int_in(wh, "start_cloth", "player_board.warehouse", 0, 20)
    if t["start_coins"] + t["start_cloth"] > t["wh_free"] or t["wh_free"] < 2:
        b.fail("player_board.warehouse.free_spaces", "too small for the starting Coin and Cloth")


def _read_intersections(b: _Builder, pb: dict, t: dict[str, Any]) -> None:
    """player_board.intersections: costs, benefits, picks."""
    inter = b.get(pb, "intersections", "player_board", dict)
    t["inter_cost"] = b.int_list(inter, "cost_coins", "player_board.intersections", 5, 0, 9)
    ben = b.get(inter, "benefit", "player_board.intersections", list)
    if len(ben) != 5:
        b.fail("player_board.intersections.benefit", "expected 5 values")
    t["inter_list"] = [b.list_id(b.effects(x, f"player_board.intersections.benefit[{i}]", SIMPLE_CODES))
                       for i, x in enumerate(ben)]
    t["inter_picks"] = b.int_list(inter, "picks_by_built", "player_board.intersections", 5, 0, 5)


def _read_passengers(b: _Builder, pb: dict, t: dict[str, Any]) -> None:
    """player_board.passengers: costs and end VP."""
    pas = b.get(pb, "passengers", "player_board", dict)
    pcost = b.get(pas, "cost", "player_board.passengers", list)
    if len(pcost) != 5:
        b.fail("player_board.passengers.cost", "expected 5 values")
    t["pass_coins"] = [b.int_in(x, "coins", f"player_board.passengers.cost[{i}]", 0, 9) for i, x in enumerate(pcost)]
    t["pass_cloth"] = [b.int_in(x, "cloth", f"player_board.passengers.cost[{i}]", 0, 9) for i, x in enumerate(pcost)]
    t["pass_vp"] = b.int_list(pas, "end_vp", "player_board.passengers", 5, 0, 99)


def _read_modernisme_spaces(b: _Builder, pb: dict, t: dict[str, Any]) -> None:
    """player_board.modernisme_spaces: the 5 project spaces."""
    mods = b.get(pb, "modernisme_spaces", "player_board", list)
    if len(mods) != 5:
        b.fail("player_board.modernisme_spaces", "expected 5 project spaces")
    for key, name_, hi in (("mod_take", "take_cost_cloth", 9), ("mod_raise", "raise_cost_cloth", 9),
                           ("mod_bottom", "bottom", 10), ("mod_top", "top", 10)):
        t[key] = [b.int_in(x, name_, f"player_board.modernisme_spaces[{i}]", 0, hi) for i, x in enumerate(mods)]
    for i in range(5):
        if t["mod_top"][i] <= t["mod_bottom"][i]:
            b.fail(f"player_board.modernisme_spaces[{i}]", "top must be higher than bottom (R68)")


def _read_street_stacks(b: _Builder, pb: dict, t: dict[str, Any]) -> None:
    """player_board.street_stacks: the Narrow and Wide stacks."""
    ss = b.get(pb, "street_stacks", "player_board", dict)
    for kind in ("narrow", "wide"):
        stacks = b.get(ss, kind, "player_board.street_stacks", list)
        if not 1 <= len(stacks) <= 3:
            b.fail(f"player_board.street_stacks.{kind}", "1..3 stacks")
        sizes = [b.int_in(x, "tiles", f"player_board.street_stacks.{kind}[{i}]", 1, 10)
                 for i, x in enumerate(stacks)]
        cer = [b.int_in(x, "cerda_when_empty", f"player_board.street_stacks.{kind}[{i}]", -16, 16)
               for i, x in enumerate(stacks)]
        # cumulative tile counts at which a stack empties, padded to 3
        cum, acc = [], 0
        for sz in sizes:
            acc += sz
            cum.append(acc)
        t[f"{kind}_total"] = acc
        t[f"{kind}_empty_at"] = cum + [-1] * (3 - len(cum))
        t[f"{kind}_empty_cerda"] = cer + [0] * (3 - len(cer))
    if t["narrow_total"] != 10 or t["wide_total"] != 5:
        b.fail("player_board.street_stacks", "every player has 10 Narrow and 5 Wide tiles (R4)")


def _read_marker_stacks(b: _Builder, pb: dict, t: dict[str, Any]) -> None:
    """player_board.building_marker_stacks and marker_stack_empty_cerda."""
    ms = b.int_list(pb, "building_marker_stacks", "player_board", 5, 1, 8)
    if sum(ms) != 8:
        b.fail("player_board.building_marker_stacks", "every player has 8 Building markers (R4)")
    acc, cum = 0, []
    for x in ms:
        acc += x
        cum.append(acc)
    t["marker_empty_at"] = cum
    t["marker_empty_cerda"] = b.int_in(pb, "marker_stack_empty_cerda", "player_board", -16, 16)


def _read_sagrada_track(b: _Builder, pb: dict, t: dict[str, Any]) -> None:
    """player_board.sagrada_track: its spaces and tile slots."""
    sag = b.get(pb, "sagrada_track", "player_board", dict)
    t["sag_spaces"] = b.int_in(sag, "spaces", "player_board.sagrada_track", 2, 30)
    slots = b.get(sag, "slots", "player_board.sagrada_track", list)
    if len(slots) != 3:
        b.fail("player_board.sagrada_track.slots", "expected 3 tile slots")
    t["sag_slot_after"] = [b.get(x, "after_space", f"player_board.sagrada_track.slots[{i}]", int)
                           for i, x in enumerate(slots)]
    t["sag_slot_level"] = [b.get(x, "level", f"player_board.sagrada_track.slots[{i}]", int)
                           for i, x in enumerate(slots)]
    for i, a in enumerate(t["sag_slot_after"]):
        if not 0 <= a < t["sag_spaces"] - 1 or t["sag_slot_level"][i] not in (1, 2, 3):
            b.fail(f"player_board.sagrada_track.slots[{i}]", "slot outside the track or level not 1..3")
        if a in t["sag_slot_after"][:i]:
            b.fail(f"player_board.sagrada_track.slots[{i}]", "two slots after the same space (R119)")


# -- scoring conditions and tiles ------------------------------------------------------------------------------
def _read_conditions(b: _Builder, doc: dict, t: dict[str, Any]) -> dict[str, int]:
    """conditions: the scoring conditions; returns the index of each condition id."""
    conds = b.get(doc, "conditions", "", dict)
    if not 1 <= len(conds) <= MAX_CONDITIONS:
        b.fail("conditions", f"{len(conds)} conditions; the engine holds 1..{MAX_CONDITIONS}")
    cond_ids: dict[str, int] = {}
    t["cond_kind"], t["cond_vp"], t["cond_cap"] = [], [], []
    for i, (cid, cdef) in enumerate(sorted(conds.items())):
        cname = b.get(cdef, "name", f"conditions.{cid}", str)
        if cname not in CONDITIONS:
            b.fail(f"conditions.{cid}.name", f"unknown condition {cname!r}")
        cond_ids[cid] = i
        t["cond_kind"].append(CONDITIONS.index(cname))
        t["cond_vp"].append(b.int_in(cdef, "vp", f"conditions.{cid}", 0, 20))
        cap = cdef.get("cap", 0)
        if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= 30:
            b.fail(f"conditions.{cid}.cap", "must be an integer in 0..30 (0 = no cap)")
        if cname in ("CLOTH_5", "COIN_5") and cap == 0:
            b.fail(f"conditions.{cid}.cap", "the Cloth/Coin conditions count up to a printed maximum")
        t["cond_cap"].append(cap)
    t["cond_names"] = [f"{cid} {conds[cid]['name']}" for cid in sorted(conds)]
    return cond_ids


def _read_tiles(b: _Builder, doc: dict, t: dict[str, Any], cond_ids: dict[str, int]) -> None:
    """modernisme_tiles, cerda_tiles (conditions by id) and modernisme_display."""
    mt = b.get(doc, "modernisme_tiles", "", list)
    ct = b.get(doc, "cerda_tiles", "", list)
    if len(mt) != NUM_MODERNISME:
        b.fail("modernisme_tiles", f"expected {NUM_MODERNISME} tiles (R2), got {len(mt)}")
    if len(ct) != 14:
        b.fail("cerda_tiles", f"expected 14 tiles (R2), got {len(ct)}")
    for key, lst in (("modernisme_tiles", mt), ("cerda_tiles", ct)):
        for x in lst:
            if not isinstance(x, str) or x not in cond_ids:
                b.fail(key, f"unknown condition {short_repr(x)}")
        if len(set(lst)) != len(lst):
            b.fail(key, "a condition appears on two tiles (each tile has its own condition, R2)")
    t["mod_cond"] = [cond_ids[x] for x in mt]
    t["cerda_cond"] = [cond_ids[x] for x in ct]
    t["display_size"] = b.get(doc, "modernisme_display", "", int)
    if not 1 <= t["display_size"] <= 8:
        b.fail("modernisme_display", "must be 1..8")


def _read_sagrada_tiles(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """sagrada_tiles: the effects of the tiles of each level."""
    st = b.get(doc, "sagrada_tiles", "", dict)
    for key in st:
        if key not in ("1", "2", "3"):
            b.fail(f"sagrada_tiles.{short_repr(key)}", "the levels are '1', '2' and '3'")
    t["sag_level"], t["sag_list"], t["sag_text"] = [], [], []
    for lvl in ("1", "2", "3"):
        for i, txt in enumerate(b.get(st, lvl, "sagrada_tiles", list)):
            t["sag_level"].append(int(lvl))
            t["sag_list"].append(b.list_id(b.effects(txt, f"sagrada_tiles.{lvl}[{i}]")))
            t["sag_text"].append(txt)
    if len(t["sag_level"]) != NUM_SAGRADA:
        b.fail("sagrada_tiles", f"expected {NUM_SAGRADA} tiles (R2), got {len(t['sag_level'])}")


def _read_buildings(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """buildings (citizens needed, effects, counts) and building_bonus_vp."""
    blds = b.get(doc, "buildings", "", dict)
    t["bld_count"], t["bld_any"], t["bld_mid"], t["bld_up"], t["bld_list"] = [], [], [], [], []
    for bt in BUILDING_TYPES:
        p = f"buildings.{bt}"
        x = b.get(blds, bt, "buildings", dict)
        t["bld_count"].append(b.int_in(x, "count", p, 0, 99))
        t["bld_any"].append(b.int_in(x, "any", p, 0, 4))
        t["bld_mid"].append(b.int_in(x, "middle", p, 0, 4))
        t["bld_up"].append(b.int_in(x, "upper", p, 0, 4))
        need = t["bld_any"][-1] + t["bld_mid"][-1] + t["bld_up"][-1]
        if not 1 <= need <= (3 if bt == "CORNER" else 4):
            b.fail(p, "needs between 1 and the number of crossings around its space")
        eff = b.effects(b.get(x, "effects", p, str), f"{p}.effects")
        eff.append((EFFECT_CODES.index("MARKER"), 0))        # R93 step 6 comes after the tile's effects
        t["bld_list"].append(b.list_id(eff))
    if t["bld_count"] != [8, 12, 8, 7]:
        b.fail("buildings", "counts must be CORNER 8, L1 12, L2 8, L3 7 (R3)")
    t["bonus_vp"] = b.int_in(doc, "building_bonus_vp", "", 0, 30)


def _read_public_services(b: _Builder, doc: dict, t: dict[str, Any]) -> None:
    """public_services: types, benefits, stack, tiles in play."""
    ps = b.get(doc, "public_services", "", dict)
    types = b.str_list(ps, "types", "public_services")
    if sorted(types) != sorted(PUBLIC_SERVICE_TYPES):
        b.fail("public_services.types", f"must name the 7 types {', '.join(PUBLIC_SERVICE_TYPES)}")
    benefits = b.get(ps, "benefits", "public_services", dict)
    if sorted(benefits) != sorted(types):
        b.fail("public_services.benefits", f"must give the benefit of each of the 7 types {', '.join(types)}")
    t["ps_names"] = list(types)
    t["ps_in_play"] = b.get(ps, "in_play", "public_services", int)
    if not 1 <= t["ps_in_play"] <= 7:
        b.fail("public_services.in_play", "must be 1..7")
    stack = b.get(ps, "stack", "public_services", list)
    if len(stack) != 3:
        b.fail("public_services.stack", "each type has 3 tiles (R17)")
    t["ps_cost"] = [b.int_in(x, "cost_coins", f"public_services.stack[{i}]", 0, 9) for i, x in enumerate(stack)]
    t["ps_vp"] = [b.int_in(x, "vp", f"public_services.stack[{i}]", 0, 30) for i, x in enumerate(stack)]
    t["ps_tiles_2p"] = b.int_in(ps, "tiles_per_stack_2p", "public_services", 1, 3)   # the stack holds 3 (R17)
    cs = b.int_in(ps, "cerda_steps", "public_services", -16, 16)
    t["ps_list"] = []
    for tp in types:
        main = b.effects(b.get(benefits, tp, "public_services.benefits", str), f"public_services.benefits.{tp}")
        t["ps_list"].append(b.list_id([(EFFECT_CODES.index("CERDA"), cs)] + main))


# -- construction options: (space, type, crossing subset) ------------------------------------------------------
def _construction_options(b: _Builder, t: dict[str, Any]) -> None:
    """Every (building space, building type, subset of its crossings) a construction may choose."""
    bsp = building_spaces()
    opts = []
    for s, x in enumerate(bsp):
        n = len(x["crossings"])
        for ty, bt in enumerate(BUILDING_TYPES):
            if (bt == "CORNER") != bool(x["corner"]):
                continue
            need = t["bld_any"][ty] + t["bld_mid"][ty] + t["bld_up"][ty]
            for mask in range(1 << n):
                if bin(mask).count("1") == need:
                    opts.append((s, ty, mask))
    if len(opts) > 256:
        b.fail("buildings", "too many construction options for the action-id space")
    t["opt_space"] = [o[0] for o in opts]
    t["opt_type"] = [o[1] for o in opts]
    t["opt_mask"] = [o[2] for o in opts]
