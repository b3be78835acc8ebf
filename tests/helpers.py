"""Building positions for rule tests.

A position is edited as a position document (docs/positions.md: named pieces, ``state.to_json()``) and read
back with ``State.from_json``, the one validated way into the rules core: a test sets up exactly the table a
rule talks about, the position loader checks that the rules can play on from it (72 citizens, every tile and
marker somewhere, counts that match the board, the turn's pieces against the phase), and then the test applies
real actions. ``edit`` hands the document to the test without the fields that follow from the rest (the bag,
the tiles left, the pieces counted on player boards ...): the loader fills them in, so a test writes only what
its rule is about. Tests read a state through ``State.view()`` (barcelona_ai/rules/view.py) and the State accessors.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Iterable

import pytest

from barcelona_ai import CONSTANTS, IllegalActionError, State, new_game
from barcelona_ai.rules.tables import (ACTION_KINDS, CLASSES, SPACE_INDEX, available_editions, crossing_index,
                                       load_edition)

C = CONSTANTS
W, M, U = 0, 1, 2          # citizen classes
ED = load_edition("default")
T = ED.t
# The editions the rulebook's worked examples are checked on: every shipped one, and the next default's board.
NEXT_DEFAULT = str(Path(__file__).resolve().parent.parent / "bench" / "next-default.json")
WORKED_EXAMPLE_EDITIONS = [*available_editions(), NEXT_DEFAULT]


def edition_id(edition: str) -> str:
    """A test id for an edition: its name, or its file's stem."""
    return Path(edition).stem
LEVELS = {1: "L1", 2: "L2", 3: "L3", 4: "CORNER"}           # a view's building level -> its document name
DERIVED = ("bag", "building_tiles_left", "bonus_rows_taken", "cerda_scorings_done", "sagrada_offer")
PLAYER_DERIVED = ("intersections", "narrow_laid", "wide_laid", "passengers", "markers_placed")


def game(players: int = 4, seed: int = 0, setup: str = "printed", edition="default") -> State:
    return new_game(players=players, seed=seed, setup=setup, edition=edition)


def tables(edition="default") -> dict:
    """The tables of an edition (a shipped name or a data file), as ``T`` holds the default's."""
    return load_edition(edition).t


# ---- reading a state ---------------------------------------------------------------------------------------

def pl(s: State, p: int = 0):
    """Player p's part of the state's view."""
    return s.view().players[p]


def src(s: State, p: int, name: str) -> int:
    """Player p's VP from one source (score_breakdown)."""
    return s.score_breakdown()[p][name]


def bits(lo: int, hi: int) -> int:
    """A track's bitmask with spaces lo..hi-1 occupied."""
    return ((1 << hi) - 1) & ~((1 << lo) - 1)


def cond(name: str) -> int:
    """The index of a scoring condition by its code (SC01 ...)."""
    return [n.split()[0] for n in T["cond_names"]].index(name)


# ---- documents ---------------------------------------------------------------------------------------------

def position(state: State) -> dict:
    """The position document of `state` without the fields the loader derives from the rest (docs/positions.md:
    the bag, Building tiles left, bonus rows, scorings done, the Sagrada offer, the Modernisme stack and the
    pieces each player board counts)."""
    doc = state.to_json()
    for key in DERIVED:
        del doc[key]
    del doc["modernisme"]["stack"]
    for p in doc["players"]:
        for key in PLAYER_DERIVED:
            del p[key]
    return doc


def edit(state: State, fn: Callable[[dict], None]) -> State:
    """The position of `state` (position()) changed by fn, read back through the position loader (which refuses
    a position the rules cannot play on from), then the automatic steps. A new State: no history."""
    doc = position(state)
    fn(doc)
    out = State.from_json(doc, edition=state.game_data.edition)
    out.settle()
    return out


def swap_with_the_bag(state: State, seat: int) -> State:
    """`state` with one citizen of `seat`'s hand swapped for one of another class from the bag (the first class
    it holds for the first other class the bag has): a state that only `seat` can tell apart (A6). Written
    through the whole position document, so a mid-turn state keeps every count as it is."""
    doc = state.to_json()
    h, bag = doc["players"][seat]["hand"], doc["bag"]
    k_from = next(k for k in CLASSES if h[k] > 0)
    k_to = next(k for k in CLASSES if k != k_from and bag[k] > 0)
    h[k_from] -= 1
    h[k_to] += 1
    bag[k_from] += 1
    bag[k_to] -= 1
    return State.from_json(doc)


def cross_name(c: int, r: int) -> str:
    return f"({c},{r})"


def citizens(doc: dict, c: int, r: int, *classes: int) -> None:
    """The citizens on crossing (c,r), bottom first (classes W, M, U); its Intersection stays."""
    x = doc["crossings"].setdefault(cross_name(c, r), {"citizens": [], "intersection": None})
    x["citizens"] = [CLASSES[k] for k in classes]


def intersection(doc: dict, c: int, r: int, seat: int | None) -> None:
    """`seat`'s Intersection on crossing (c,r) (None: none); its citizens stay."""
    x = doc["crossings"].setdefault(cross_name(c, r), {"citizens": [], "intersection": None})
    x["intersection"] = seat


def own(doc: dict, seat: int | None, *names: str) -> None:
    """Street tiles of `seat` on the named street spaces (the player board's count follows)."""
    for n in names:
        doc["streets"].setdefault(n, {"owner": None, "passenger": None})["owner"] = seat


def passenger(doc: dict, seat: int | None, *names: str) -> None:
    """Passengers of `seat` on the named street spaces."""
    for n in names:
        doc["streets"].setdefault(n, {"owner": None, "passenger": None})["passenger"] = seat


def building(doc: dict, name: str, level: int | str, markers: Iterable[int] = ()) -> None:
    """A building on space `name`: level 1..3, 4 (Corner) or its name; `markers` bottom first."""
    doc["buildings"][name] = {"level": LEVELS.get(level, level), "markers": list(markers)}


def track(doc: dict, k: int, occupied: int | Iterable[int], off_board: int = 0) -> None:
    """Citizen track of class k: the occupied spaces (a bitmask or the indices), citizens beside it."""
    if isinstance(occupied, int):
        occupied = [i for i in range(occupied.bit_length()) if occupied >> i & 1]
    doc["citizen_tracks"][CLASSES[k]] = {"occupied": list(occupied), "off_board": off_board}


def scored(doc: dict, *sections: int) -> None:
    """Cerdà sections (0..2) marked scored (a track must have reached each one's mark, R109)."""
    for sec in sections:
        doc["cerda_tiles"][sec]["scored"] = True


def hand(w: int = 0, m: int = 0, u: int = 0) -> dict:
    return {"WORKING": w, "MIDDLE": m, "UPPER": u}


SPARE_SIDEWALK = ("r0c0", "r0c5", "r4c0", "r4c5", "r0c1", "r4c1", "r0c4", "r4c4")   # far from the printed r2c2, r2c3
SIDEWALK = SPARE_SIDEWALK + tuple(f"r{i // 6}c{i % 6}" for i in range(30)
                                  if not T["side_pre"] >> i & 1 and f"r{i // 6}c{i % 6}" not in SPARE_SIDEWALK)


def cobblestones(doc: dict, seat: int, n: int, spaces: Iterable[str] = SIDEWALK) -> None:
    """`seat` has taken `n` more Cobblestones out of its Warehouse, placed on the first free Sidewalk spaces of
    `spaces`, by default the corners first (the Sidewalk holds every Cobblestone out, R46)."""
    free = [x for x in spaces if x not in doc["sidewalk"]]
    doc["sidewalk"] = doc["sidewalk"] + free[:n]
    doc["players"][seat]["cobblestones"] += n


def warehouse_room(doc: dict, seat: int) -> None:
    """Cobblestones out for `seat` (cobblestones()) until its Coins and Cloth fit its Warehouse: 4 spaces plus
    one per Cobblestone taken out (R43, R45)."""
    pl = doc["players"][seat]
    need = pl["coins"] + pl["cloth"] - T["wh_free"] - pl["cobblestones"]
    if need > 0:
        cobblestones(doc, seat, need)


def projects(doc: dict, seat: int, tiles: Iterable | None = None, up: Iterable | None = None) -> None:
    """`seat`'s five Modernisme project spaces: the tiles (names, or None) and/or the markers up (bools)."""
    spaces = doc["players"][seat]["modernisme"]
    for k, tile in enumerate(tiles if tiles is not None else [x["tile"] for x in spaces]):
        spaces[k]["tile"] = tile
    for k, flag in enumerate(up if up is not None else [x["marker_up"] for x in spaces]):
        spaces[k]["marker_up"] = bool(flag)


def turn(doc: dict, seat: int, phase: str, crossing: tuple[int, int] | None = None) -> None:
    """`seat` to move in `phase` ("PLACE", "ACTIONS", "BUILD" ...), having placed on `crossing`; the seats
    before it have completed one turn more (R31), as the loader wants."""
    doc["to_move"] = seat
    doc["phase"] = phase
    base = doc["players"][seat]["turns"]
    for p, pl in enumerate(doc["players"]):
        pl["turns"] = base + (p < seat)
    doc["turn_state"]["place_crossing"] = cross_name(*crossing) if crossing is not None else None
    doc["turn_state"]["streets_used"] = []


def mod_name(tile: int) -> str:
    """The document name of Modernisme tile `tile` (its condition id, e.g. "SC05")."""
    return T["cond_names"][T["mod_cond"][tile]].split()[0]


def face_down(doc: dict) -> list[str]:
    """The Modernisme tiles of a position() document's stack: every tile nowhere else (the display, the
    discard, a project space) but the Cerdà tiles' twins, back in the box (R15)."""
    mod = doc["modernisme"]
    elsewhere = {x["tile"] for x in doc["cerda_tiles"]} | set(mod["display"]) | set(mod["discard"])
    elsewhere |= {x["tile"] for p in doc["players"] for x in p["modernisme"]}
    return [mod_name(m) for m in range(len(T["mod_cond"])) if mod_name(m) not in elsewhere]


def modernisme_piles(doc: dict, stack: Iterable[int], display: Iterable[int], discard: Iterable[int] = ()) -> None:
    """The Modernisme tiles (ids) face down, on display and discarded; every other tile but the Cerdà tiles'
    twins (in the box, R15: set the Cerdà tiles first) goes onto empty project spaces, seat 1's first, seat 0's
    last (a tile is always somewhere)."""
    piles = {"stack": [mod_name(m) for m in stack], "display": [mod_name(m) for m in display],
             "discard": [mod_name(m) for m in discard]}
    doc["modernisme"].update(piles)
    rest = [x for x in face_down(doc) if x not in piles["stack"]]
    seats = list(range(1, len(doc["players"]))) + [0]
    spaces = [sp for p in seats for sp in doc["players"][p]["modernisme"] if sp["tile"] is None]
    assert len(rest) <= len(spaces), "more Modernisme tiles than empty project spaces"
    for sp, tile in zip(spaces, rest):
        sp["tile"] = tile


def ps_in_play(doc: dict, *names: str) -> None:
    """The Public Service types in play: `names` and then the edition's next ones (the edition's number of
    types, R17), each with a full stack (R18: 2 tiles with 2 players, 3 otherwise)."""
    order = list(names) + [n for n in T["ps_names"] if n not in names]
    tiles = T["ps_tiles_2p"] if len(doc["players"]) == 2 else 3
    doc["public_services"] = {n: tiles for n in order[:T["ps_in_play"]]}
    for p in doc["players"]:
        p["public_services"] = [x for x in p["public_services"] if x in doc["public_services"]]


def ps_built(doc: dict, name: str, *seats: int) -> None:
    """The Public Service `name` built by `seats`: its stack is that much lower (R78)."""
    for p in seats:
        doc["players"][p]["public_services"].append(name)
    doc["public_services"][name] -= len(seats)


def all_bonus_rows_taken(doc: dict, spaces: Iterable[str] = ("SW(0)", "SW(1)", "SW(2)", "SW(3)")) -> None:
    """Every block row's Building Bonus taken (R93 step 2): an unmarked building (A25) on one space of each row
    that has none yet, a Corner on a corner space (by default the four SW corners), else a Level 1."""
    built = {T["bs_row"][T["bs_names"].index(n)] for n in doc["buildings"]}
    for name in spaces:
        row = T["bs_row"][T["bs_names"].index(name)]
        if row not in built:
            building(doc, name, "CORNER" if name[0] in "NS" else "L1")
            built.add(row)


NORMAL_BLOCKS = tuple(n for n in T["bs_names"] if n.startswith("B"))


def every_block_built(doc: dict, spare: Iterable[str] = ()) -> None:
    """No construction possible on any building space but `spare` (left empty): unmarked Corners on the
    corner spaces (never overbuilt, R103), Level 3 buildings (the whole stack) and then Level 2 ones on the
    blocks (no Level 3 tile is left to go on a Level 2, A4, and a Level 1 goes on empty blocks only)."""
    for name in T["bs_names"]:
        if name[0] in "NS" and name not in spare:
            building(doc, name, "CORNER")
    blocks = [n for n in NORMAL_BLOCKS if n not in spare]
    for i, name in enumerate(blocks):
        building(doc, name, "L3" if i < T["bld_count"][3] else "L2")


def fill_crossings(doc: dict, crossings: Iterable[tuple[int, int]], bag: tuple[int, int, int] = (0, 0, 0)) -> None:
    """Every citizen that is not in a hand, on a track or on a crossing, but `bag` (per class), onto
    `crossings`, two on each in turn (W first, then M, then U)."""
    out = [0, 0, 0]
    for p in doc["players"]:
        for k in range(3):
            out[k] += p["hand"][CLASSES[k]]
    for k in range(3):
        tr = doc["citizen_tracks"][CLASSES[k]]
        out[k] += len(tr["occupied"]) + tr["off_board"]
    for x in doc["crossings"].values():
        for name in x["citizens"]:
            out[CLASSES.index(name)] += 1
    pool = [k for k in range(3) for _ in range(T["citizens"][k] - out[k] - bag[k])]
    crossings = list(crossings)
    assert len(pool) <= 2 * len(crossings), "not enough crossings for the citizens"
    for i, (c, r) in enumerate(crossings):
        citizens(doc, c, r, *pool[2 * i: 2 * i + 2])


MARKER_SPACES = ("B(0,3)", "B(1,3)", "B(2,3)", "B(3,2)", "B(0,2)", "B(1,2)")   # block rows 2 and 3


def markers_placed(doc: dict, seat: int, n: int, spaces: Iterable[str] = MARKER_SPACES) -> None:
    """`n` Building markers of `seat` on the board (markers_placed is counted there): Level 3 buildings of up
    to three of its markers on `spaces`, by default in block rows 2 and 3."""
    for name in spaces:
        if n <= 0:
            break
        k = min(n, 3)
        building(doc, name, "L3", [seat] * k)
        n -= k
    assert n <= 0, "not enough spaces for the markers"


def end_triggered(doc: dict, t: dict = T) -> None:
    """All three Cerdà sections scored and the end triggered (R122): the Upper track reaches its last mark (of
    the edition whose tables are `t`)."""
    track(doc, U, range(t["track_mark"][U][2] + 1))
    scored(doc, 0, 1, 2)
    doc["turn_state"]["end_triggered"] = True


# ---- ids ---------------------------------------------------------------------------------------------------

def cross(c: int, r: int) -> int:
    return crossing_index(c, r)


def space(name: str) -> int:
    return SPACE_INDEX[name]


def place_id(c: int, r: int, top: int) -> int:
    return C["A_PLACE"] + cross(c, r) * 3 + top


def street_id(name: str) -> int:
    return C["A_STREET"] + space(name)


def tram_id(name: str) -> int:
    return C["A_TRAM"] + space(name)


def set_actions(doc: dict, vertical: list[str], horizontal: list[str], diagonal: str) -> None:
    """Put action tiles on the streets (names of tables.ACTION_KINDS)."""
    for x in list(vertical) + list(horizontal) + [diagonal]:
        assert x in ACTION_KINDS, x
    doc["action_tiles"] = {"vertical": list(vertical), "horizontal": list(horizontal), "diagonal": diagonal}


def building_space(name: str) -> int:
    return T["bs_names"].index(name)


def build_id(space_name: str, btype: str, crossings: list[tuple[int, int]]) -> int:
    """The A_BUILD id of constructing `btype` on `space_name` with the top citizens of `crossings`."""
    bs = building_space(space_name)
    ty = ("CORNER", "L1", "L2", "L3").index(btype)
    around = T["bs_cross"][bs * 4: bs * 4 + T["bs_ncross"][bs]]
    mask = 0
    for c, r in crossings:
        mask |= 1 << around.index(cross(c, r))
    for o in range(len(T["opt_space"])):
        if T["opt_space"][o] == bs and T["opt_type"][o] == ty and T["opt_mask"][o] == mask:
            return C["A_BUILD"] + o
    raise KeyError((space_name, btype, crossings))


def mask(ids) -> int:
    """The bitmask of a view's tuple of ids (bit i set for each id i), to compare with the mask literals of the
    positions the tests build."""
    return sum(1 << i for i in ids)


def legal(s: State) -> set[int]:
    return set(s.legal_actions())


def refused(s: State, a: int) -> None:
    """apply(a) raises IllegalActionError and leaves the state bit-for-bit unchanged."""
    h = s.hash()
    with pytest.raises(IllegalActionError):
        s.apply(a)
    assert s.hash() == h


def at_build(s: State, cits: dict, player: int = 0, fn: Callable[[dict], None] | None = None) -> State:
    """Seat `player` in step 2 (construction), with citizens {(c,r): cls or (bottom, top)} on the crossings."""
    def f(doc):
        turn(doc, player, "BUILD", next(iter(cits), (0, 0)))
        for (c, r), v in cits.items():
            citizens(doc, c, r, *((v,) if isinstance(v, int) else tuple(v)))
        if fn:
            fn(doc)
    return edit(s, f)


README = Path(__file__).resolve().parent.parent / "README.md"


def readme_adapter_example(module: str) -> str:
    """The Python block of the README's "In OpenSpiel and PettingZoo" subsection that imports `module`."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### In OpenSpiel and PettingZoo", 1)[1].split("\n## ", 1)[0]
    found = [b for b in re.findall(r"```python\n(.*?)```", section, re.S) if module in b]
    assert len(found) == 1, f"README: one example importing {module} in 'In OpenSpiel and PettingZoo'"
    return found[0]


def transcribe(state: State, seat: int, rng, own_mark: str = "") -> tuple[list[str], list[int]]:
    """The game played on from `state` with random decisions and chance (`rng`), as the player in `seat` types
    it at the table: every decision with a choice (the seat's own prefixed with `own_mark`), other players'
    placements with both citizens named, own draws, reveals with a choice; never the other players' draws
    (A6). Returns the lines and the true final scores. `state` is played on."""
    s, lines = state, []
    while not s.is_terminal():
        acts = s.legal_actions()
        if s.is_chance_node():
            a = rng.choices(*zip(*s.chance_outcomes()))[0]
            reveal = acts[0] >= CONSTANTS["A_REVEAL"]
            if (reveal and len(acts) > 1) or (not reveal and s.turn_player == seat):
                lines.append(s.action_to_string(a))
            s.apply(a)
            continue
        p = s.current_player()
        a = rng.choice(acts)
        if p != seat and s.phase == CONSTANTS["PH_PLACE"] and a < CONSTANTS["A_INT_PICK"]:
            c, top = divmod(a - CONSTANTS["A_PLACE"], 3)
            hand = list(s.hand(p))
            hand[top] -= 1
            rest = [k for k in range(3) for _ in range(hand[k])]
            lines.append(f"place ({c % 5},{c // 5}) {'WMU'[top]}" + (f"/{'WMU'[rest[0]]}" if rest else ""))
        elif len(acts) > 1:
            lines.append((own_mark if p == seat else "") + s.action_to_string(a))
        s.apply(a)
    return lines, s.scores()
