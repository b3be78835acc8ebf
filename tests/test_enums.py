"""The C enums of core.pxd are the one source of every ordered list the Python layer names: this test reads
core.pxd and pins each Python tuple or constant that restates an enum, so that a change on one side only fails
here instead of silently mislabelling a phase, a frame, an effect, a condition or a VP source."""
import re
from pathlib import Path

import pytest

import barcelona_ai
from barcelona_ai import core
from barcelona_ai.rules import position, position_fields, tables
from barcelona_ai.search import tree as search

PXD = Path(barcelona_ai.__file__).parent / "core.pxd"


def pxd_enums(path: Path = PXD) -> dict[str, int]:
    """NAME -> value of every `cdef enum:` entry in a .pxd file."""
    values: dict[str, int] = {}
    inside = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("cdef enum"):
            inside = True
            continue
        if inside and not line.startswith((" ", "\t")) and line.strip():
            inside = False
        if inside:
            m = re.match(r"\s+([A-Z_][A-Z0-9_]*)\s*=\s*(-?\d+)", line)
            if m:
                values[m.group(1)] = int(m.group(2))
    return values


ENUMS = pxd_enums()


def prefixed(prefix: str) -> dict[str, int]:
    return {k[len(prefix):]: v for k, v in ENUMS.items() if k.startswith(prefix)}


def test_the_pxd_is_read():
    assert ENUMS["NUM_ACTIONS"] == 635 and ENUMS["A_DRAW"] == 614 and ENUMS["TERMINAL"] == -4


@pytest.mark.parametrize("python_names,prefix", [
    (tables.EFFECT_CODES, "E_"),
    (tables.CONDITIONS, "C_"),
    (position.PHASES, "PH_"),
    (tuple(s.upper() for s in core.SOURCES), "SRC_"),
])
def test_python_tuples_follow_the_c_enum_order(python_names, prefix):
    assert {name: i for i, name in enumerate(python_names)} == prefixed(prefix)


def test_frame_kinds():
    assert {name: k for k, name in position.FRAME_KINDS.items()} == prefixed("FR_")


def test_grant_kinds_follow_gk_order():
    """tables.GRANT_KINDS names the granted actions in the data file's words; core.pxd's GK_* in short ones."""
    short = {"GAIN_2_COINS": "COINS", "GAIN_CLOTH_3VP": "CLOTH", "PLACE_COBBLESTONE": "COBBLE",
             "BUILD_1_WIDE": "WIDE", "BUILD_2_NARROW": "NARROW", "BUILD_INTERSECTION": "INTERSECTION",
             "IMPROVE_MODERNISME": "MOD_IMPROVE", "TAKE_MODERNISME": "MOD_TAKE", "BUILD_PUBLIC_SERVICE": "PS",
             "MOVE_TRAM": "TRAM", "CERDA_PLUS_2": "CERDA", "BUILD_STREETS": "STREETS",
             "BUILD_INTERSECTION_FREE": "INTERSECTION_FREE", "IMPROVE_MODERNISME_FREE": "MOD_IMPROVE_FREE",
             "TAKE_MODERNISME_FREE": "MOD_TAKE_FREE", "PLACE_COBBLESTONE_ANYWHERE": "COBBLE_ANYWHERE",
             "MOVE_TRAM_COIN_FREE": "TRAM_COIN_FREE"}
    assert len(tables.GRANT_KINDS) == ENUMS["NGK"]
    assert {short[name]: i for i, name in enumerate(tables.GRANT_KINDS)} == prefixed("GK_")


def test_position_restates_the_enum_values():
    for name in ("PH_PLACE", "PH_ACTIONS", "PH_BUILD", "PH_END", "PH_REFRESH", "PH_DRAW", "PH_OVER",
                 "E_RES", "E_SAGRADA", "E_ACT", "E_MARKER", "GK_COINS", "GK_CLOTH", "GK_COBBLE", "GK_NARROW",
                 "GK_PS", "GK_TRAM", "GK_CERDA", "GK_STREETS", "GK_COBBLE_ANYWHERE", "GK_TRAM_COIN_FREE",
                 "MAX_FRAMES", "MAX_PLAYERS"):
        assert getattr(position_fields, name) == ENUMS[name], name


def test_component_counts_and_array_sizes():
    assert tables.NUM_MODERNISME == ENUMS["NMOD"]
    assert tables.NUM_SAGRADA == ENUMS["NSAG"]
    assert tables.NUM_PS_TYPES == ENUMS["NPS"]
    assert tables.NUM_CLASSES == ENUMS["NCLASS"]
    assert tables.MAX_EFFECTS == ENUMS["MAX_EFF"]
    assert tables.NUM_BUILDING_SPACES == ENUMS["NBSPACE"]
    assert len(core.SOURCES) == ENUMS["NSRC"]
    m = re.search(r"int8_t cond_kind\[(\d+)\]", PXD.read_text(encoding="utf-8"))
    assert m and tables.MAX_CONDITIONS == int(m.group(1))


def test_exported_constants_match_the_pxd():
    for name, value in core.CONSTANTS.items():
        assert ENUMS[name] == value, name


def test_search_hidden_draw_key():
    search_enums = pxd_enums(PXD.parent / "search" / "tree.pxd")
    assert search.HIDDEN_DRAW == search_enums["KEY_HIDDEN_DRAW"]
    assert search.HIDDEN_DRAW >= ENUMS["NUM_ACTIONS"]          # never an action id
