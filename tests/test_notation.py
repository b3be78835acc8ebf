"""Move notation (barcelona_ai.rules.notation): round trips, pinned forms, parse errors.

Rule numbers (R/A) refer to docs/rules-inventory.md; the notation itself is documented in the module docstring.
"""
from __future__ import annotations

import random

import pytest

from barcelona_ai import (AmbiguousMoveError, IllegalActionError, InvalidMoveError, NUM_ACTIONS, new_game)
from barcelona_ai.rules.notation import (action_to_string, describe_action_id, legal_strings, normalize,
                                   string_to_action)

from barcelona_ai.rules.tables import CLASSES
from helpers import (C, T, W, M, U, build_id, citizens, cross, edit, game, place_id, set_actions, space, street_id,
                     tram_id)


def _walk_states(players: int, seed: int):
    """Every state of one seeded random game (s.apply of a random legal action), terminal included."""
    s = new_game(players=players, seed=seed)
    rng = random.Random(seed)
    while True:
        yield s
        if s.is_terminal():
            return
        s.apply(rng.choice(s.legal_actions()))


def _top_frame(s):
    return s.view().top_frame


def _find(pred, players=(2, 3, 4), seeds=range(40)):
    for n in players:
        for seed in seeds:
            for s in _walk_states(n, seed):
                if pred(s):
                    return s
    raise AssertionError("no state found")


def _with_hand(hand, players=4, seed=1):
    """A fresh printed-setup game where seat 0 (to move, R31) holds `hand` (by class)."""
    return edit(game(players, seed), lambda d: d["players"][0].update(hand=dict(zip(CLASSES, hand))))


# ---------------------------------------------------------------------------------------------------------------
# the guarantees

@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_trip_and_uniqueness_over_random_games(players):
    """For every state of several random games and every legal action a (decisions and chance outcomes):
    string_to_action(s, action_to_string(s, a)) == a, and the strings of one state are pairwise distinct
    (also after normalisation, so case/whitespace tolerance cannot merge two moves)."""
    checked = 0
    for seed in range(8):
        for s in _walk_states(players, seed):
            legal = s.legal_actions()
            texts = [action_to_string(s, a) for a in legal]
            assert len(set(texts)) == len(texts)
            assert len({normalize(x) for x in texts}) == len(texts)
            for a, text in zip(legal, texts):
                assert string_to_action(s, text) == a, (a, text)
                assert s.string_to_action(text) == a
                checked += 1
            assert legal_strings(s) == dict(zip(legal, texts))
    assert checked > 1000


def test_random_games_reach_every_id_range():
    """The seeded walks above exercise every id range of core.pxd (so the round trip covers each form)."""
    starts = sorted((v, k) for k, v in C.items() if k.startswith("A_"))
    seen = set()
    for players in (2, 3, 4):
        for seed in range(8):
            for s in _walk_states(players, seed):
                for a in s.legal_actions():
                    seen.add(max((v, k) for v, k in starts if v <= a)[1])
    assert seen == {k for _, k in starts}


def test_round_trip_through_mixed_case_and_spacing():
    s = _with_hand([1, 1, 0])
    for a in s.legal_actions():
        text = action_to_string(s, a)
        mangled = "  " + " ".join(text.upper()) + "  "
        assert string_to_action(s, mangled) == a


def test_describe_covers_every_id_and_is_unique():
    """describe_action_id is context-free and names each id of [0, NUM_ACTIONS) differently."""
    texts = [describe_action_id(a) for a in range(NUM_ACTIONS)]
    used = [x for x in texts if not x.startswith("unused build id")]
    assert len(set(used)) == len(used)
    assert all(x and x != "unknown id" for x in texts)


def test_describe_out_of_range_and_non_ids():
    for bad in (-1, NUM_ACTIONS, 10 ** 9, True, "3", None, 2.0):
        assert describe_action_id(bad) == "unknown id"


def test_unused_build_ids_say_so():
    """A_BUILD reserves 256 ids; the default edition uses 216 construction options (tables.py)."""
    first_unused = C["A_BUILD"] + len(T["opt_space"])
    assert describe_action_id(first_unused).startswith("unused build id")
    assert not describe_action_id(first_unused - 1).startswith("unused")


# ---------------------------------------------------------------------------------------------------------------
# pinned forms (the format must not change silently)

PINNED = [
    (C["A_INT_PICK"] + 1, "pick slot 2 (2 VP)"),               # R62-R65, slot benefits of the data file
    (C["A_INT_DONE"], "pick done"),
    (C["A_GAIN_COINS"], "gain 2 coins"),                       # R42
    (C["A_GAIN_CLOTH"], "gain 1 cloth + 3 VP"),                # R42
    (C["A_CERDA"], "Cerdà +2"),                                # R89
    (C["A_COBBLE"] + 2 * 6 + 5, "cobble r2c5"),                # R46
    (street_id("V(2,0)"), "wide V(2,0)"),                      # R50, R51
    (street_id("V(0,1)"), "narrow V(0,1)"),
    (street_id("D(2)"), "wide D(2)"),
    (C["A_INTERSECTION"] + cross(1, 1), "intersection (1,1)"),   # R57
    (C["A_MOD_IMPROVE"] + 2, "improve project 3"),             # R66
    (C["A_MOD_TAKE"] + 4 * 5 + 2, "take Intersections by 3 Buildings -> project 3"),   # R71; tile 4: SC05
    (C["A_PS"] + 0, "public service Sant Antoni Market"),      # R76
    (C["A_PS"] + 6, "public service Pavelló d'Operacions"),
    (tram_id("H(1,2)"), "tram -> H(1,2)"),                     # R81, R82
    (C["A_PASSENGER"], "passenger"),                           # R83
    (C["A_SKIP"], "skip"),
    (C["A_END_ACTIONS"], "end actions"),
    (C["A_SAG_STEP"], "sagrada step"),                         # R118
    (C["A_SAG_STOP"], "sagrada stop"),
    (C["A_SAG_TILE"] + 1, "sagrada level 1: 2 resources + 2 VP"),     # R119
    (C["A_SAG_TILE"] + 15, "sagrada level 3: Improve a Modernisme Project for free + 8 VP"),
    (C["A_RES"] + 2, "take 2 coins, rest cloth"),
    (C["A_RES"] + 1, "take 1 coin, rest cloth"),
    (C["A_DISCARD_COIN"], "discard coin"),                     # A39
    (C["A_DISCARD_CLOTH"], "discard cloth"),
    (build_id("B(1,0)", "L2", [(1, 0), (2, 1)]), "build L2 B(1,0) using (1,0),(2,1)"),   # R92, R97
    (build_id("NE(0)", "CORNER", [(0, 0), (1, 0)]), "build corner NE(0) using (0,0),(1,0)"),   # R96
    (build_id("B(2,3)", "L3", [(2, 3), (3, 3), (3, 4)]), "build L3 B(2,3) using (2,3),(3,3),(3,4)"),  # R98
    (C["A_DRAW"] + 1, "draw M"),                               # R32
    (C["A_REVEAL"] + 5, "reveal Line of Wide Streets"),        # R73; tile 5 is SC07
    (place_id(2, 3, U), "place (2,3) U on top"),               # R37, context-free
]


@pytest.mark.parametrize("action,text", PINNED)
def test_pinned_describe(action, text):
    assert describe_action_id(action) == text


def test_pinned_place_forms_depend_on_the_hand():
    """R37: the hand's other citizen goes underneath; A2: a single citizen is placed alone."""
    s = _with_hand([1, 1, 0])
    assert action_to_string(s, place_id(2, 3, W)) == "place (2,3) W/M"
    assert action_to_string(s, place_id(2, 3, M)) == "place (2,3) M/W"
    s = _with_hand([0, 0, 2])
    assert action_to_string(s, place_id(0, 1, U)) == "place (0,1) U/U"
    s = _with_hand([0, 1, 0])
    assert action_to_string(s, place_id(4, 0, M)) == "place (4,0) M"
    assert string_to_action(s, "place (4,0) M") == place_id(4, 0, M)


def test_resource_split_names_both_parts():
    """A RES split (Sagrada tiles, R119) is written with the Cloth part from the decision's total."""
    s = _find(lambda s: (f := _top_frame(s)) is not None and f.kind == C["FR_RES"] and f.a >= 2
              and s.current_player() >= 0 and s.view().discard_player is None)
    total = _top_frame(s).a
    assert s.legal_actions() == [C["A_RES"] + i for i in range(total + 1)]
    assert action_to_string(s, C["A_RES"] + total) == f"take {total} coins + 0 cloth"
    assert action_to_string(s, C["A_RES"] + 1) == f"take 1 coin + {total - 1} cloth"
    assert action_to_string(s, C["A_RES"] + 0) == f"take 0 coins + {total} cloth"
    assert string_to_action(s, "take 0 coins") == C["A_RES"]
    assert string_to_action(s, "take 1 coins") == C["A_RES"] + 1
    assert string_to_action(s, "take 0 coins, rest cloth") == C["A_RES"]


def test_action_to_string_rejects_non_ids():
    s = game()
    for bad in (-1, NUM_ACTIONS, True, "5"):
        with pytest.raises(IllegalActionError):
            action_to_string(s, bad)
    assert issubclass(IllegalActionError, ValueError)


def test_state_methods_delegate():
    s = _with_hand([1, 1, 0])
    a = place_id(2, 3, W)
    assert s.action_to_string(a) == "place (2,3) W/M"
    assert s.string_to_action("place (2,3) W/M") == a


def test_core_illegal_message_uses_the_notation():
    """core.State._illegal_message calls describe_action_id: an Intersection id at placement time (R57 is an
    action, step 1 places first, R37) is reported in notation."""
    s = _with_hand([1, 1, 0])
    with pytest.raises(IllegalActionError, match=r"intersection \(1,1\)"):
        s.apply(C["A_INTERSECTION"] + cross(1, 1))


# ---------------------------------------------------------------------------------------------------------------
# parsing: tolerance, extra forms, bare ids

def test_case_whitespace_accents_and_underscores():
    s = _with_hand([1, 1, 0])
    a = place_id(2, 3, W)
    for text in ("place (2,3) W/M", "PLACE (2,3) w/m", "  place   ( 2 , 3 )  W / M  ", "place(2,3)W/M",
                 "\tPlace (2,3)\nW/M"):
        assert string_to_action(s, text) == a


def test_extra_forms_are_accepted():
    s = _with_hand([1, 1, 0])
    assert string_to_action(s, "place (2,3) W") == place_id(2, 3, W)        # top class only
    assert string_to_action(s, "place (2,3) M on top") == place_id(2, 3, M)
    # after placing on (1,2) of the printed setup: vertical 1 = Build 2 Narrow, horizontal 2 = Cerda +2 (§4.4)
    s.apply(place_id(1, 2, W))
    assert string_to_action(s, "Cerdà +2") == C["A_CERDA"]                  # accent ignored
    assert string_to_action(s, "cerda") == C["A_CERDA"]
    assert string_to_action(s, "street V(0,1)") == street_id("V(0,1)")
    assert string_to_action(s, "V(0,1)") == street_id("V(0,1)")
    assert string_to_action(s, "end") == C["A_END_ACTIONS"]


def test_build_crossings_in_any_order():
    """R92: the same option may be written with its crossings in any order."""
    s = _find(lambda s: any(C["A_BUILD"] <= a < C["A_DRAW"] and len(action_to_string(s, a).split(",")) >= 3
                            for a in s.legal_actions()))
    a = next(a for a in s.legal_actions() if C["A_BUILD"] <= a < C["A_DRAW"]
             and len(action_to_string(s, a).split(",")) >= 3)
    text = action_to_string(s, a)
    head, used = text.split(" using ")
    crossings = used.replace("),(", ")|(").split("|")
    assert string_to_action(s, f"{head} using {','.join(reversed(crossings))}") == a


def test_public_service_by_data_name():
    s = _find(lambda s: any(C["A_PS"] <= a < C["A_TRAM"] for a in s.legal_actions()))
    a = next(a for a in s.legal_actions() if C["A_PS"] <= a < C["A_TRAM"])
    name = T["ps_names"][a - C["A_PS"]]
    assert string_to_action(s, f"ps {name}") == a
    assert string_to_action(s, name.lower()) == a


def test_bare_ids():
    s = _with_hand([1, 1, 0])
    a = s.legal_actions()[3]
    assert string_to_action(s, str(a)) == a
    assert string_to_action(s, f"  {a} ") == a
    assert string_to_action(s, a) == a                                        # an int is taken as an id


def test_chance_outcomes_parse():
    """Draws (R32) and reveals (R73) are written 'draw W' / 'reveal SC07'."""
    s = _find(lambda s: s.is_chance_node() and s.view().reveal_pending == 0)
    for a in s.legal_actions():
        k = a - C["A_DRAW"]
        assert string_to_action(s, f"draw {'WMU'[k]}") == a
        assert string_to_action(s, f"draw {('working', 'middle', 'upper')[k]}") == a
    s = _find(lambda s: s.is_chance_node() and s.view().reveal_pending > 0)
    for a in s.legal_actions():
        assert string_to_action(s, describe_action_id(a)) == a


# ---------------------------------------------------------------------------------------------------------------
# parsing errors

def test_garbage_is_not_notation():
    s = _with_hand([1, 1, 0])
    for text in ("xyzzy", "place (9,9) W", "build L7 B(1,0)", "!!"):
        with pytest.raises(InvalidMoveError, match="not a move") as exc:
            string_to_action(s, text)
        assert "legal moves" in str(exc.value)
    with pytest.raises(InvalidMoveError, match="empty"):
        string_to_action(s, "   ")
    with pytest.raises(InvalidMoveError):
        string_to_action(s, None)
    assert issubclass(InvalidMoveError, ValueError) and issubclass(AmbiguousMoveError, ValueError)


def test_well_formed_but_illegal_says_so():
    """A real move that is not legal now is told apart from text that is no move at all."""
    s = _with_hand([1, 1, 0])
    # step 1 is placing (R37): an Intersection is an action of a crossing, not legal yet
    with pytest.raises(InvalidMoveError, match="not legal now") as exc:
        string_to_action(s, "intersection (1,1)")
    assert "intersection (1,1)" in str(exc.value)
    # the hand is W+M, so no M/M placement exists (R37)
    with pytest.raises(InvalidMoveError, match="not legal now"):
        string_to_action(s, "place (2,3) M/M")
    with pytest.raises(InvalidMoveError, match="not legal now"):
        string_to_action(s, "place (2,3) U")
    with pytest.raises(InvalidMoveError, match="not legal now"):
        string_to_action(s, str(C["A_SKIP"]))
    with pytest.raises(InvalidMoveError, match="not an action id"):
        string_to_action(s, "9999")
    with pytest.raises(InvalidMoveError, match="not an action id"):
        string_to_action(s, "-3")


def test_occupied_crossing_is_illegal():
    """R37: only empty crossings take citizens."""
    s = edit(_with_hand([1, 1, 0]), lambda d: citizens(d, 2, 3, M))
    with pytest.raises(InvalidMoveError, match="not legal now"):
        string_to_action(s, "place (2,3) W/M")


def test_ambiguous_place_without_top_class():
    """With a W+M hand, 'place (2,3)' could put either on top (R37)."""
    s = _with_hand([1, 1, 0])
    with pytest.raises(AmbiguousMoveError) as exc:
        string_to_action(s, "place (2,3)")
    assert "place (2,3) W/M" in str(exc.value) and "place (2,3) M/W" in str(exc.value)
    # with a pair of one class there is only one way
    s = _with_hand([0, 2, 0])
    assert string_to_action(s, "place (2,3)") == place_id(2, 3, M)


def test_ambiguous_bare_space_street_or_tram():
    """A crossing whose streets offer Build 2 Narrow (vertical) and Move your Tram (horizontal): a bare space
    name fits both the street tile (R50) and the first Tram placement (R81)."""
    def setup(doc):
        set_actions(doc, ["GAIN_2_COINS", "BUILD_2_NARROW", "BUILD_PUBLIC_SERVICE", "BUILD_1_WIDE",
                          "GAIN_CLOTH_3VP"],
                    ["TAKE_MODERNISME", "PLACE_COBBLESTONE", "MOVE_TRAM", "BUILD_INTERSECTION",
                     "IMPROVE_MODERNISME"], "CERDA_PLUS_2")
        doc["players"][0]["hand"] = dict(zip(CLASSES, [1, 1, 0]))
    s = edit(game(4, 1), setup)
    s.apply(place_id(1, 2, W))
    with pytest.raises(AmbiguousMoveError) as exc:
        string_to_action(s, "V(0,1)")
    assert "narrow V(0,1)" in str(exc.value) and "tram -> V(0,1)" in str(exc.value)
    assert string_to_action(s, "narrow V(0,1)") == street_id("V(0,1)")
    assert string_to_action(s, "tram V(0,1)") == tram_id("V(0,1)")
    # a wide space fits only the Tram: this crossing's street action is Build 2 Narrow (R51)
    assert string_to_action(s, "V(2,0)") == tram_id("V(2,0)")


def test_terminal_state_accepts_nothing():
    s = _find(lambda s: s.is_terminal(), players=(2,), seeds=range(1))
    with pytest.raises(InvalidMoveError, match="game is over"):
        string_to_action(s, "skip")
    assert legal_strings(s) == {}


def test_space_helper_matches_notation():
    """The notation's space names are those of tables.SPACE_INDEX (rules-inventory §0)."""
    for name in ("V(0,0)", "V(4,3)", "H(0,0)", "H(3,4)", "D(0)", "D(3)"):
        text = describe_action_id(C["A_TRAM"] + space(name))
        assert text == f"tram -> {name}"


def test_one_order_for_citizens_and_axes_named_where_it_could_be_mistaken():
    """A crossing's citizens are written top first (W/M) on the board and in moves, and named by place
    in a position document; the order can be named in a move, and a Sidewalk space names its axes in either
    order."""
    from barcelona_ai import new_game
    from barcelona_ai.rules.notation import parse_placement
    s = new_game(2, seed=0)                          # player 0 holds W and U
    a = s.string_to_action("place (1,0) W/U")
    assert s.string_to_action("place (1,0) top W bottom U") == a
    assert s.string_to_action("place (1,0) bottom U top W") == a
    assert s.string_to_action("place (1,0) top U bottom W") != a
    assert parse_placement("place (1,2) bottom M top W") == parse_placement("place (1,2) W/M") == (1, 2, 0, 1)
    assert parse_placement("(1,2) top U") == (1, 2, 2, None)
    s.apply(a)
    assert s.to_json()["crossings"]["(1,0)"]["citizens"] == {"bottom": "UPPER", "top": "WORKING"}   # named
    assert "W/U" in s.render().split("\n")[3]                                         # top first
    import random
    rng = random.Random(3)
    g = new_game(2, seed=4)
    while not any(g.action_to_string(x).startswith("cobble ") for x in g.legal_actions()):
        g.apply(rng.choice(g.legal_actions()))
    cob = [x for x in g.legal_actions() if g.action_to_string(x).startswith("cobble ")]
    for x in cob:
        row, col = g.action_to_string(x)[len("cobble r"):].split("c")        # cobble r<row>c<col>
        assert g.string_to_action(f"cobble c{col}r{row}") == g.string_to_action(f"r{row}c{col}") == x
