"""Position documents (barcelona_ai/rules/position.py, docs/positions.md): exact round trips, the viewpoint form (A6),
the documented examples, and validation of malformed documents (every error names the first wrong field)."""
from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from barcelona_ai import CONSTANTS as C
from barcelona_ai import DataFileError, InvalidPositionError, PlayerCountError, State, new_game
from barcelona_ai.rules.position import (PHASES, dump_position, load_position, state_from_json, state_to_json)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "positions.md"


# ---------------------------------------------------------------------------------------------------------------
# seeded random walks: every state of 12 games (2, 3 and 4 players, both setups), all phases and frame kinds

_PASSIVE = (C["A_SKIP"], C["A_END_ACTIONS"], C["A_SAG_STOP"], C["A_INT_DONE"])


def _walk(seed: int, busy: bool = False) -> list[State]:
    """Every state of one seeded random game; `busy` games mostly avoid skipping, so they reach late-game
    situations (overbuilt stacks of 3 markers, full tracks, reshuffled Modernisme stack, empty Public Service
    stacks)."""
    s = new_game(players=2 + seed % 3, seed=seed, setup="printed" if seed % 2 else "random")
    rng = random.Random(seed)
    out = [s.clone()]
    while not s.is_terminal():
        acts = s.legal_actions()
        active = [a for a in acts if a not in _PASSIVE]
        s.apply(rng.choice(active if busy and active and rng.random() < 0.9 else acts))
        out.append(s.clone())
    return out


@pytest.fixture(scope="module")
def walks() -> list[list[State]]:
    return [_walk(seed) for seed in range(12)] + [_walk(seed, busy=True) for seed in range(8)]


@pytest.fixture(scope="module")
def midgame() -> State:
    """The worked example of docs/positions.md: 3 players, seat 0 deciding a Sagrada step mid-turn."""
    s = new_game(players=3, seed=3)
    rng = random.Random(3)
    for _ in range(66):
        s.apply(rng.choice(s.legal_actions()))
    return s


def _json_copy(doc: dict) -> dict:
    return json.loads(json.dumps(doc))


def test_walks_cover_every_phase_and_frame_kind(walks):
    """The round-trip walks below reach every phase, every frame kind, overflows and terminal states."""
    phases, kinds, seen = set(), set(), set()
    for game in walks:
        assert game[-1].is_terminal()
        prev = None
        for s in game:
            v = s.view()
            phases.add(v.phase)
            kinds |= {f.kind for f in v.frames}
            # the Modernisme stack ran out and the discards became the new stack (R73, R111): since that happens
            # at once, an empty stack means no tile is left to reshuffle, which random walks do not reach
            reshuffled = prev is not None and bool(set(v.modernisme_stack) & set(prev.modernisme_discard))
            seen |= {name for name, hit in (
                ("overflow", v.discard_player is not None),
                ("three_markers", any(len(m) == 3 for m in v.building_markers)),
                ("off_board", any(v.tracks_off_board)), ("stack_reshuffled", reshuffled),
                ("ps_stack_empty", 0 in v.public_services_left), ("end_triggered", v.end_triggered)) if hit}
            prev = v
    assert phases == set(range(len(PHASES)))
    assert kinds == set(range(1, 9))
    assert seen == {"overflow", "three_markers", "off_board", "stack_reshuffled", "ps_stack_empty",
                    "end_triggered"}


def test_exact_round_trip_every_state(walks):
    """State.from_json(s.to_json()).hash() == s.hash() for every reachable state (through JSON text too)."""
    n = 0
    for game in walks:
        for s in game:
            doc = s.to_json()
            back = State.from_json(_json_copy(doc))
            assert back.hash() == s.hash(), (n, doc["phase"])
            assert back.view() == s.view()                       # every field (tests/test_view.py)
            assert back.current_player() == s.current_player()
            assert back.legal_actions() == s.legal_actions()
            n += 1
    assert n > 2500


def test_round_trip_text_and_file(midgame, walks, tmp_path):
    text = dump_position(midgame)
    assert text.startswith("{\n") and text.endswith("}\n")
    assert load_position(text).hash() == midgame.hash()
    path = tmp_path / "pos.json"
    path.write_text(text)
    assert load_position(path).hash() == midgame.hash()
    assert load_position(str(path)).hash() == midgame.hash()
    assert state_from_json(text).hash() == midgame.hash()
    end = walks[4][-1]
    assert end.is_terminal()
    again = load_position(dump_position(end))
    assert again.is_terminal() and again.hash() == end.hash() and again.returns() == end.returns()


def test_document_uses_names(midgame):
    doc = midgame.to_json()
    assert doc["format"] == "barcelona-position" and doc["version"] == 1 and doc["edition"] == "default"
    assert len(doc["players"]) == 3 and doc["to_move"] == 0 and doc["phase"] == "ACTIONS"
    assert doc["crossings"]["(1,2)"] == {"citizens": {"bottom": "WORKING", "top": "WORKING"}, "intersection": None}
    assert doc["buildings"]["B(1,3)"] == {"level": "L2", "markers": [0, 1]}
    assert [f["kind"] for f in doc["turn_state"]["frames"]] == ["EFFECTS", "SAGRADA"]
    assert set(doc["players"][1]["hand"]) == {"WORKING", "MIDDLE", "UPPER"}


def test_loading_does_not_change_the_document(midgame):
    doc = _json_copy(midgame.to_json(viewpoint=2))
    before = copy.deepcopy(doc)
    State.from_json(doc, seed=3)
    assert doc == before


def test_viewpoint_round_trips(walks):
    """A6: the viewpoint document hides other hands; loading samples them, the observation is unchanged."""
    n = 0
    for game in walks:
        for i, s in enumerate(game):
            if i % 4:
                continue
            for p in range(s.num_players):
                doc = _json_copy(s.to_json(viewpoint=p))
                assert "bag" not in doc and doc["viewpoint"] == p
                for q, pl in enumerate(doc["players"]):
                    assert ("hidden" in pl["hand"]) == (q != p)
                loaded = State.from_json(doc, seed=i + p)
                assert loaded.observation_hash(p) == s.observation_hash(p)
                assert loaded.hand(p) == s.hand(p)
                n += 1
    assert n > 1000


def test_viewpoint_seeds_sample_hidden_hands(walks):
    """Different seeds may give different hidden hands, always the same observation; same seed, same state."""
    differ = 0
    for game in walks[:6]:
        for s in game[::10]:
            doc = s.to_json(viewpoint=0)
            a, b = State.from_json(doc, seed=1), State.from_json(doc, seed=2)
            assert a.observation_hash(0) == b.observation_hash(0) == s.observation_hash(0)
            assert State.from_json(doc, seed=1).hash() == a.hash()
            differ += a.hash() != b.hash()
    assert differ > 0


def test_viewpoint_equals_determinize(midgame):
    """Loading a viewpoint document = building it and calling determinize(p, seed) (the pool split is resampled)."""
    for seed in range(5):
        loaded = State.from_json(midgame.to_json(viewpoint=1), seed=seed)
        assert loaded.hash() == midgame.determinize(1, seed).hash()


def test_viewpoint_seat_checked(midgame):
    with pytest.raises(PlayerCountError):
        midgame.to_json(viewpoint=3)


# ---------------------------------------------------------------------------------------------------------------
# documentation

def _json_blocks() -> list[str]:
    return re.findall(r"```json\n(.*?)\n```", DOCS.read_text(encoding="utf-8"), flags=re.S)


def test_docs_examples_load(midgame):
    blocks = _json_blocks()
    assert len(blocks) == 2
    full = json.loads(blocks[0])
    st = State.from_json(full)
    assert state_to_json(st) == full                      # exact: the document is a real state's
    assert len(full["players"]) == 3 and full["turn_state"]["frames"]
    vp = State.from_json(state_to_json(st, viewpoint=1), seed=11)
    assert vp.observation_hash(1) == st.observation_hash(1)
    hand = State.from_json(json.loads(blocks[1]))
    assert hand.current_player() == 1 and hand.phase == 0


def test_docs_hand_written_example_is_the_real_position():
    """The hand-written example equals the program's document of the same moment (score breakdown aside)."""
    s = new_game(players=3, seed=3)
    rng = random.Random(3)
    for _ in range(71):
        s.apply(rng.choice(s.legal_actions()))
    hand = State.from_json(json.loads(_json_blocks()[1]))
    a, b = state_to_json(hand), state_to_json(s)
    for d in (a, b):
        for pl in d["players"]:
            pl.pop("vp_by_source")
    assert a == b


def test_hand_written_start_of_turn_positions(walks):
    """A document without turn_state and without the derivable fields gives the same start-of-turn state."""
    checked = 0
    for game in walks[:6]:
        for s in game:
            v = s.view()
            if v.phase != 0 or v.frames or v.discard_player is not None:
                continue
            d = s.to_json()
            for key in ("turn_state", "bag", "sagrada_offer", "bonus_rows_taken", "cerda_scorings_done"):
                d.pop(key)
            d["modernisme"].pop("stack")
            for pl in d["players"]:
                for key in ("intersections", "narrow_laid", "wide_laid", "passengers", "markers_placed", "seat"):
                    pl.pop(key)
            assert State.from_json(d).hash() == s.hash()
            checked += 1
    assert checked > 50


def test_hand_written_position_is_settled():
    """Without turn_state the automatic steps run: a seat with nothing to place goes on (A1), here to its draws."""
    s = new_game(players=2, seed=5)
    d = s.to_json()
    for key in ("turn_state", "bag"):
        d.pop(key)
    d["players"][0]["hand"] = {}                    # its two citizens go back to the (derived) bag
    st = State.from_json(d)
    assert st.phase == PHASES.index("DRAW") and st.is_chance_node()
    assert State.from_json(st.to_json()).hash() == st.hash()


# ---------------------------------------------------------------------------------------------------------------
# malformed documents: each raises InvalidPositionError naming the wrong field

def _set(path: str, value):
    """A mutation that sets doc[path] (dotted keys, [i] indices)."""
    def fn(d):
        keys = re.findall(r"\[(\d+)\]|\.?([^.\[\]]+)", path)
        obj = d
        parts = [int(i) if i else k for i, k in keys]
        for k in parts[:-1]:
            obj = obj[k]
        obj[parts[-1]] = value
    return fn


MALFORMED = [
    # (id, mutation, expected start of the message)
    ("citizen_total", _set("bag.WORKING", 16), r"bag\.WORKING: 26 WORKING citizens"),
    ("negative_coins", _set("players[1].coins", -1), r"players\[1\]\.coins: -1 is negative"),
    ("unknown_top_key", _set("colour", "red"), r"colour: unknown key"),
    ("unknown_player_key", _set("players[0].colour", "red"), r"players\[0\]\.colour: unknown key"),
    ("mod_tile_twice", _set("players[0].modernisme[2].tile", "SC11"),
     r"players\[0\]\.modernisme\[2\]\.tile: tile SC11 is already at modernisme\.display\[0\]"),
    ("too_many_markers", _set("players[0].markers_placed", 9), r"players\[0\]\.markers_placed: 9 is more than 8"),
    ("markers_mismatch", _set("players[0].markers_placed", 3), r"players\[0\]\.markers_placed: 3 but there are 2"),
    ("markers_over_level", _set("buildings.B(3,1).markers", [0, 1, 2]), r"buildings\.B\(3,1\)\.markers: at most 2"),
    ("bad_seat", _set("streets.D(2).owner", 7), r"streets\.D\(2\)\.owner: seat 7 does not exist"),
    ("bad_crossing_name", _set("crossings.(5,1)", {"citizens": []}), r"crossings\.\(5,1\): "),
    ("wrong_format", _set("format", "chess"), r"format: "),
    ("wrong_version", _set("version", 2), r"version: 2 is not a supported version"),
    ("bad_class", _set("crossings.(4,0).citizens", ["NOBLE"]), r"crossings\.\(4,0\)\.citizens\[0\]: \"NOBLE\""),
    ("hand_of_three", _set("players[1].hand", {"UPPER": 2, "WORKING": 1}), r"players\[1\]\.hand: 3 citizens"),
    ("warehouse_overflow", _set("players[0].coins", 6), r"players\[0\]\.coins: coins 6 \+ cloth 0 exceed"),
    ("sagrada_twice", lambda d: d["sagrada_offer"].append("RES3"),
     r"sagrada_offer\[16\]: tile RES3 is already at sagrada_offer\[0\]"),
    ("public_service_count", _set("public_services.UNIVERSITAT", 2), r"public_services\.UNIVERSITAT: 2 tiles left"),
    ("wide_mismatch", _set("players[1].wide_laid", 0), r"players\[1\]\.wide_laid: 0 but there are 1"),
    ("action_tile_twice", _set("action_tiles.horizontal[0]", "GAIN_CLOTH_3VP"), r"action_tiles\.diagonal: "),
    ("cerda_twin_in_discard", lambda d: d["modernisme"]["discard"].append("SC08"),
     r"modernisme\.discard\[4\]: SC08 is the twin of a Cerdà tile"),
    ("track_gap", _set("citizen_tracks.UPPER.occupied", [0, 1, 2, 3, 5, 7, 10]),
     r"citizen_tracks\.UPPER\.occupied: space 7 is occupied but space 4"),
    ("bad_frame_kind", _set("turn_state.frames[0].kind", "DANCE"), r"turn_state\.frames\[0\]\.kind: \"DANCE\""),
    ("to_move_out_of_range", _set("to_move", 3), r"to_move: seat 3 does not exist"),
    ("trams_share_space", _set("players[1].tram", "H(2,3)"), r"players\[2\]\.tram: seat 1's Tram is already"),
    ("hidden_hand_in_full_doc", _set("players[1].hand", {"hidden": 2}), r"players\[1\]\.hand\.hidden: "),
    ("corner_on_normal_space", _set("buildings.B(3,1).level", "CORNER"), r"buildings\.B\(3,1\)\.level: "),
    ("sidewalk_count", lambda d: d["sidewalk"].append("r0c0"), r"sidewalk: 4 Cobblestones placed"),
    ("scored_without_mark", _set("cerda_tiles[1].scored", True), r"cerda_tiles\[1\]\.scored: section 2"),
    ("turns_inconsistent", _set("players[2].turns", 4), r"players\[2\]\.turns: 4 but seat 0"),
    ("discard_without_overflow", _set("turn_state.discard_player", 1), r"turn_state\.discard_player: "),
    ("mod_tile_missing", lambda d: d["modernisme"]["stack"].remove("SC01"), r"modernisme: tile SC01 is nowhere"),
    ("cerda_tile_not_cerda", _set("cerda_tiles[0].tile", "SC05"), r"cerda_tiles\[0\]\.tile: \"SC05\""),
    ("cerda_index_range", _set("players[0].cerda", 12), r"players\[0\]\.cerda: 12 is more than 11"),
    ("vp_sources_sum", _set("players[0].score", 15), r"players\[0\]\.vp_by_source: the sources add up to 14"),
    ("bool_for_int", _set("players[0].cloth", True), r"players\[0\]\.cloth: expected an integer"),
    ("bad_space_name", _set("streets.V(9,9)", {"owner": 0}), r"streets\.V\(9,9\): "),
    ("bad_sidewalk_name", lambda d: d["sidewalk"].append("r9c9"), r"sidewalk\[5\]: "),
    ("viewpoint_without_hidden_hands", _set("viewpoint", 1), r"players\[0\]\.hand: in a viewpoint document"),
    ("missing_required", lambda d: d.pop("cerda_tiles"), r"cerda_tiles: missing"),
    ("frame_player_range", _set("turn_state.frames[1].player", 5), r"turn_state\.frames\[1\]\.player: seat 5"),
    ("phase_without_turn_state", lambda d: d.pop("turn_state"), r"phase: ACTIONS needs a 'turn_state'"),
    ("building_tiles_left_too_many", _set("building_tiles_left.L2", 8), r"building_tiles_left\.L2: 8 left but 3"),
]


@pytest.mark.parametrize("name,mutate,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_documents(midgame, name, mutate, message):
    doc = _json_copy(midgame.to_json())
    mutate(doc)
    with pytest.raises(InvalidPositionError) as info:
        State.from_json(doc)
    assert re.match(message, str(info.value)), str(info.value)


def test_malformed_viewpoint_documents(midgame):
    doc = _json_copy(midgame.to_json(viewpoint=1))
    bad = copy.deepcopy(doc)
    bad["bag"] = bad.pop("unseen_pool")
    with pytest.raises(InvalidPositionError, match=r"^bag: a viewpoint document gives 'unseen_pool'"):
        State.from_json(bad)
    bad = copy.deepcopy(doc)
    bad["players"][1]["hand"] = {"hidden": 2}
    with pytest.raises(InvalidPositionError, match=r"^players\[1\]\.hand\.hidden: seat 1 is the viewpoint"):
        State.from_json(bad)
    bad = copy.deepcopy(doc)
    bad["unseen_pool"]["UPPER"] -= 1
    with pytest.raises(InvalidPositionError, match=r"^unseen_pool\.UPPER: "):
        State.from_json(bad)


def test_player_count_edition_and_text_errors(midgame):
    doc = _json_copy(midgame.to_json())
    for players in (doc["players"][:1], doc["players"] + doc["players"][:2]):
        bad = dict(doc, players=players)
        with pytest.raises(PlayerCountError):
            State.from_json(bad)
    with pytest.raises(DataFileError):
        State.from_json(dict(doc, edition="no-such-edition"))
    with pytest.raises(InvalidPositionError, match="^position: not valid JSON"):
        State.from_json("{not json")
    with pytest.raises(InvalidPositionError, match="^position: expected a JSON object"):
        State.from_json([1, 2])
    with pytest.raises(InvalidPositionError, match="cannot be read"):
        load_position("/no/such/position.json")


def test_crossing_citizens_are_named_by_place():
    """A document names each citizen's place (R37: the top one is written first on the board), so the
    order cannot be mistaken; the older list form (bottom first) still reads the same; a top needs a bottom."""
    from barcelona_ai.workflows.examples import example_position
    s = example_position("midgame-3p")
    named = s.to_json()
    occupied = {k: v for k, v in named["crossings"].items() if len(v["citizens"]) == 2}
    assert occupied and all(set(v["citizens"]) == {"bottom", "top"} for v in occupied.values())
    listed = copy.deepcopy(named)
    for v in listed["crossings"].values():
        v["citizens"] = [v["citizens"][k] for k in ("bottom", "top") if k in v["citizens"]]
    assert State.from_json(listed).view() == State.from_json(named).view() == s.view()
    key = next(iter(occupied))
    bad = copy.deepcopy(named)
    del bad["crossings"][key]["citizens"]["bottom"]
    with pytest.raises(InvalidPositionError, match="needs a bottom"):
        State.from_json(bad)
