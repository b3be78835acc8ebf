"""The board-data file: loaded, validated, errors name the field; no printed number lives in code."""
import copy
import hashlib
import json
import re
from importlib import resources

import pytest

from barcelona_ai import DataFileError, new_game
from barcelona_ai.tables import build_edition, load_edition

DOC = json.loads((resources.files("barcelona_ai") / "data" / "default.json").read_text())


def broken(path, value):
    doc = copy.deepcopy(DOC)
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


def test_default_edition_summary_is_pinned():
    """An edit of the data file is a deliberate change: update this checksum in the same commit."""
    ed = load_edition("default")
    assert ed.name == "default"
    assert len(ed.t["opt_space"]) == 216           # construction options: 12*(6+6+4) + 8*3
    assert sum(ed.t["citizens"]) == 72
    digest = hashlib.sha256(json.dumps(DOC, sort_keys=True).encode()).hexdigest()[:16]
    assert digest == PINNED_DIGEST, digest


PINNED_DIGEST = "b3c9b37e77f04e0d"


@pytest.mark.parametrize("path,value,field", [
    (["citizens", "UPPER"], 22, "citizens"),
    (["public_services", "benefits", "UNIVERSITAT"], "GOLD1", "public_services.benefits.UNIVERSITAT"),
    (["public_services", "benefits", "UNIVERSITAT"], KeyError, "public_services.benefits"),
    (["streets", "benefits", "V(0,0)"], "GOLD1", "streets.benefits.V(0,0)"),
    (["streets", "benefits", "V(0,1)"], KeyError, "streets.benefits.V(0,1)"),
    (["streets", "wide"], ["V(2,0)", "X(9,9)"], "streets.wide"),
    (["crossing_cost_coins", "(2,2)"], "one", "crossing_cost_coins.(2,2)"),
    (["action_tiles"], ["GAIN_2_COINS"] * 11, "action_tiles"),
    (["citizen_tracks", "UPPER", "marks"], [3, 8], "citizen_tracks.UPPER.marks"),
    (["citizen_tracks", "WORKING", "marks"], [4, 10, 40], "citizen_tracks.WORKING.marks"),
    (["cerda_track", "multiplier"], [0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 2], "cerda_track.multiplier"),
    (["sidewalk", "rows"], [["VP5"] * 6] * 5, "sidewalk.rows"),
    (["player_board", "building_marker_stacks"], [2, 2, 2, 2, 1], "player_board.building_marker_stacks"),
    (["player_board", "modernisme_spaces", 2, "top"], 1, "player_board.modernisme_spaces[2]"),
    (["modernisme_tiles"], DOC["modernisme_tiles"][:17], "modernisme_tiles"),
    (["cerda_tiles", 0], "SC99", "cerda_tiles"),
    (["conditions", "SC05", "name"], "ADJACENT", "conditions.SC05.name"),
    (["sagrada_tiles", "1", 0], "RES9", "sagrada_tiles.1[0]"),
    (["buildings", "L3", "count"], 6, "buildings"),
    (["public_services", "types", 0], "OPERA", "public_services.types"),
    (["grid", "size"], 6, "grid.size"),
    (["citizen_tracks", "MIDDLE", "vp"], [1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10, 9],
     "citizen_tracks.MIDDLE.vp"),
    (["player_board", "intersections", "benefit", 0], "SAGRADA1", "player_board.intersections.benefit[0]"),
])
def test_bad_data_names_the_field(path, value, field):
    with pytest.raises(DataFileError, match=re.escape(f"field '{field}'")):
        build_edition(broken(path, value), source="test.json")


def test_unknown_edition_and_missing_file(tmp_path):
    with pytest.raises(DataFileError, match="unknown edition"):
        load_edition("deluxe")
    with pytest.raises(DataFileError, match="unknown edition"):
        new_game(4, edition="../etc/passwd")
    with pytest.raises(DataFileError, match="does not exist"):
        load_edition(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(DataFileError, match="not valid JSON"):
        load_edition(str(bad))


def test_an_edited_edition_changes_the_game(tmp_path):
    """A user who owns the printed game corrects a value in a copy of the data file; the engine follows it."""
    doc = copy.deepcopy(DOC)
    doc["edition"] = "corrected"
    doc["building_bonus_vp"] = 9
    f = tmp_path / "corrected.json"
    f.write_text(json.dumps(doc))
    s = new_game(4, seed=1, edition=str(f))
    assert s.edition == "corrected"
    assert s.game_data.edition.t["bonus_vp"] == 9


def test_no_printed_numbers_in_core():
    """Costs, VP and track values come from the data file: spot-check that core.pyx has none of them."""
    src = (resources.files("barcelona_ai") / "core.pyx").read_text()
    for needle in ("10, 6, 3", "[1, 3, 5, 7, 10, 14]", "[2, 5, 10, 16, 23]", "vp = 7", "+= 5", "cost = 3"):
        assert needle not in src
