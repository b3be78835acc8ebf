"""Building positions for rule tests.

A position is edited through the raw C state (``State.raw()`` gives nested dicts with the field names of
``barcelona_ai/core.pxd``; ``_set_raw`` writes them back) and then settled, so a test can set up exactly the
table a rule talks about and then apply real actions. Tests read a state through ``State.view()``
(barcelona_ai/view.py) and the State accessors, not raw(): raw() is only the way in for such edits.
"""
from __future__ import annotations

from typing import Callable

import pytest

from barcelona_ai import CONSTANTS, IllegalActionError, State, new_game
from barcelona_ai.tables import ACTION_KINDS, SPACE_INDEX, crossing_index, load_edition

C = CONSTANTS
W, M, U = 0, 1, 2          # citizen classes
ED = load_edition("default")
T = ED.t


def game(players: int = 4, seed: int = 0, setup: str = "printed") -> State:
    return new_game(players=players, seed=seed, setup=setup)


def edit(state: State, fn: Callable[[dict], None], settle: bool = True) -> State:
    """Apply fn to the raw state dict, write it back, and run the automatic steps."""
    raw = state.raw()
    fn(raw)
    state._set_raw(raw)
    if settle:
        state.settle()
    return state


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


def set_actions(raw: dict, vertical: list[str], horizontal: list[str], diagonal: str) -> None:
    """Put action tiles on the streets (names of tables.ACTION_KINDS)."""
    raw["street_action"] = [ACTION_KINDS.index(x) for x in list(vertical) + list(horizontal) + [diagonal]]


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
    def f(raw):
        raw["cur"] = player
        raw["phase"] = C["PH_BUILD"]
        raw["place_crossing"] = cross(*next(iter(cits), (0, 0)))
        for (c, r), v in cits.items():
            v = (v,) if isinstance(v, int) else tuple(v)
            raw["cross_lo"][cross(c, r)] = v[0]
            raw["cross_hi"][cross(c, r)] = v[1] if len(v) > 1 else -1
        if fn:
            fn(raw)
    return edit(s, f)
