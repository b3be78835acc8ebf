"""Rule tests: constructing Buildings and the citizen tracks (R90-R106; rulings A4, A5, A25-A29, A31).

Positions are built as position documents (tests/helpers.py), then real actions are applied and the exact VP,
tracks, Cerdà/Sagrada indices and markers are checked. Board numbers come from the default data file: the
citizen tracks' sections, marks and VP (rules-inventory §4.5) are read from its tables (``SECTIONS``, ``MARK``,
``VP``), so that a test says which space it means (the first of section 2, the space before a mark) rather than
its index; the Cerdà track starts on 4.
"""
import pytest

from barcelona_ai import IllegalActionError
from helpers import (C, ED, T, W, M, U, WORKED_EXAMPLE_EDITIONS, all_bonus_rows_taken, at_build, bits, build_id,
                     building, building_space, citizens, cross, edit, edition_id, end_triggered, game, hand,
                     intersection, markers_placed, mask, passenger, pl, scored, tables, track)

TYPES = ("CORNER", "L1", "L2", "L3")
A_BUILD, A_DRAW = C["A_BUILD"], C["A_DRAW"]


SECTIONS = [ED.raw["citizen_tracks"][c]["sections"] for c in ("WORKING", "MIDDLE", "UPPER")]   # [first, last]
MARK, VP, LEN = T["track_mark"], T["track_vp"], T["track_len"]


def full(k):
    return (1 << LEN[k]) - 1




def opt(a):
    """(space name, type, crossings used) of an A_BUILD id."""
    o = a - A_BUILD
    bs = T["opt_space"][o]
    around = T["bs_cross"][bs * 4: bs * 4 + T["bs_ncross"][bs]]
    used = tuple(sorted((x % 5, x // 5) for i, x in enumerate(around) if T["opt_mask"][o] >> i & 1))
    return T["bs_names"][bs], TYPES[T["opt_type"][o]], used


def options(s):
    return {opt(a) for a in s.legal_actions() if A_BUILD <= a < A_DRAW}


def kinds_on(s, space_name):
    return {ty for sp, ty, _ in options(s) if sp == space_name}


def marks(s, space_name):
    return list(s.view().building_markers[building_space(space_name)])


def level(s, space_name):
    return s.view().building_levels[building_space(space_name)]


def tracks(s):
    """The citizen tracks as bitmasks (bit i: space i occupied), one per class."""
    return [mask(t) for t in s.view().tracks]


# ---------------------------------------------------------------------------------------------------------
# R90, A4: construction is compulsory, exactly one, any legal option


def test_R90_A4_construction_is_compulsory_only_build_options_offered():
    s = at_build(game(4), {(1, 0): W, (2, 0): W})
    acts = s.legal_actions()
    assert s.current_player() == 0
    assert acts and all(A_BUILD <= a < A_DRAW for a in acts)
    assert C["A_END_ACTIONS"] not in acts and C["A_SKIP"] not in acts
    with pytest.raises(IllegalActionError):
        s.apply(C["A_END_ACTIONS"])


def test_R90_ending_the_actions_leads_to_the_compulsory_construction():
    def f(doc):
        doc["phase"] = "ACTIONS"
        doc["players"][0]["hand"] = hand()                  # the hand was placed
    s = at_build(game(4), {(1, 0): (W, M), (2, 0): W}, fn=f)
    assert C["A_END_ACTIONS"] in s.legal_actions()
    s.apply(C["A_END_ACTIONS"])
    assert s.current_player() == 0
    assert options(s) == {("B(1,0)", "L1", ((1, 0), (2, 0))), ("B(1,0)", "L2", ((1, 0), (2, 0)))}
    assert all(A_BUILD <= a < A_DRAW for a in s.legal_actions())


def test_R90_exactly_one_building_per_turn():
    s = at_build(game(4), {(1, 0): W, (2, 0): W, (3, 3): W, (4, 3): W})
    assert {sp for sp, _, _ in options(s)} == {"B(1,0)", "B(3,2)", "NE(3)"}
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert s.current_player() == 1                          # the turn moved on: no second construction
    v = s.view()
    assert v.crossings[cross(3, 3)][0] == W and v.crossings[cross(4, 3)][0] == W
    assert v.building_tiles_left[1] == 11


def test_R90_no_option_the_turn_goes_on():
    s = at_build(game(4), {(1, 0): W, (3, 1): W})          # no space has two of them around it
    assert s.current_player() == 1
    assert s.view().building_levels == (0,) * 20
    assert pl(s, 0).score == 0


def test_A4_any_legal_option_may_be_chosen_even_an_unfavourable_level2():
    s = at_build(game(4), {(1, 0): M, (2, 0): W})
    assert kinds_on(s, "B(1,0)") == {"L1", "L2"}
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (2, 0)]))
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]
    s.apply(C["A_SAG_STOP"])
    assert pl(s, 0).cerda == 3                          # the -1 Cerdà penalty was accepted (R97)
    assert level(s, "B(1,0)") == 2


def test_A4_a_type_whose_stack_is_empty_is_not_an_option():
    def no_l1(doc):
        doc["building_tiles_left"] = {"CORNER": 8, "L1": 0, "L2": 8, "L3": 7}
    s = at_build(game(4), {(1, 0): M, (2, 0): W}, fn=no_l1)
    assert kinds_on(s, "B(1,0)") == {"L2"}

    def no_l1_l2(doc):
        doc["building_tiles_left"] = {"CORNER": 8, "L1": 0, "L2": 0, "L3": 7}
    s = at_build(game(4), {(1, 0): M, (2, 0): W}, fn=no_l1_l2)
    assert s.current_player() == 1                          # nothing to build: the turn went on
    assert level(s, "B(1,0)") == 0


# ---------------------------------------------------------------------------------------------------------
# R91, R96, R103, A31: Corner spaces


def test_R91_building_spaces_16_blocks_8_corners_on_the_diagonal():
    assert sum(T["bs_corner"]) == 8 and len(T["bs_corner"]) == 20
    corner_blocks = {T["bs_block"][i] for i in range(20) if T["bs_corner"][i]}
    assert corner_blocks == {0, 5, 10, 15}                  # B(k,k)
    for o in range(len(T["opt_space"])):
        bs = T["opt_space"][o]
        assert (T["opt_type"][o] == 0) == bool(T["bs_corner"][bs])   # corners take Corner tiles only


def test_R91_R96_corner_offered_on_its_triangle_only():
    s = at_build(game(4), {(0, 0): W, (1, 0): W, (1, 1): M})
    assert kinds_on(s, "NE(0)") == {"CORNER"}
    assert {u for sp, _, u in options(s) if sp == "NE(0)"} == {((0, 0), (1, 0)), ((0, 0), (1, 1)),
                                                              ((1, 0), (1, 1))}
    assert {u for sp, _, u in options(s) if sp == "SW(0)"} == {((0, 0), (1, 1))}


def test_R96_corner_uses_only_the_3_crossings_of_its_triangle():
    # (1,0) is on NE(0), (0,1) on SW(0): the two share the diagonal block but no triangle
    s = at_build(game(4), {(1, 0): W, (0, 1): W})
    assert not any(sp in ("NE(0)", "SW(0)") for sp, _, _ in options(s))
    assert s.current_player() == 1
    s = at_build(game(4), {(0, 0): U, (0, 1): M})          # any 2 citizens, both on SW(0)
    assert options(s) == {("SW(0)", "CORNER", ((0, 0), (0, 1)))}


def test_R103_A31_corner_has_no_effect_and_is_never_overbuilt():
    def f(doc):
        all_bonus_rows_taken(doc, ("SW(0)", "B(3,1)", "SW(2)", "SW(3)"))
    s = at_build(game(4), {(1, 1): W, (2, 1): W}, fn=f)
    s.apply(build_id("NE(1)", "CORNER", [(1, 1), (2, 1)]))
    p = pl(s, 0)
    assert (p.cerda, p.sagrada, p.coins, p.cloth) == (4, 0, 1, 1)   # A31: no effect
    assert p.score == 1                                   # only the lowest visible VP (W row at 2, M at 1)
    assert level(s, "NE(1)") == 4 and marks(s, "NE(1)") == [0]
    # R103: with citizens on all three of its crossings it is never offered again
    s2 = at_build(s, {(1, 1): U, (2, 1): M, (2, 2): W}, player=1)
    assert "NE(1)" not in {sp for sp, _, _ in options(s2)}
    assert kinds_on(s2, "SW(1)") == {"CORNER"}                # its twin triangle is still free


# ---------------------------------------------------------------------------------------------------------
# R92: only the top citizen of a crossing counts


def test_R92_covered_citizen_never_counts():
    s = at_build(game(4), {(1, 0): (M, W), (2, 0): W})      # Middle under a Working citizen
    assert kinds_on(s, "B(1,0)") == {"L1"}
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    v = s.view()
    assert v.crossings[cross(1, 0)] == (M,)                 # one per crossing
    assert v.crossings[cross(2, 0)] == ()
    assert tracks(s) == [0b11, 0, 0]


def test_R92_top_middle_counts_for_level2():
    s = at_build(game(4), {(1, 0): (W, M), (2, 0): W})
    assert kinds_on(s, "B(1,0)") == {"L1", "L2"}
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (2, 0)]))
    s.apply(C["A_SAG_STOP"])
    assert tracks(s) == [0b1, 0b1, 0]
    assert s.view().crossings[cross(1, 0)] == (W,)


# ---------------------------------------------------------------------------------------------------------
# R93: the procedure, step by step


def test_R93_full_procedure_of_a_level1():
    s = at_build(game(4), {(1, 0): W, (2, 0): W})
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    v, p = s.view(), pl(s, 0)
    bs = building_space("B(1,0)")
    assert v.building_levels[bs] == 1 and v.building_tiles_left == (8, 11, 8, 7)  # step 1
    assert v.bonus_rows_taken == (0,)                                           # step 2
    assert tracks(s) == [0b11, 0, 0]                                            # step 3
    assert p.score == 5 + 1                                                  # step 2 + step 4 (M row: 1)
    assert s.score_breakdown()[0]["buildings"] == 6
    assert p.cerda == 5                                                      # step 5 (R95)
    assert marks(s, "B(1,0)") == [0] and p.markers_placed == 1                      # step 6
    assert v.cerda_scored == (False, False, False) and s.current_player() == 1         # step 7: no scoring


def test_R93_step4_lowest_visible_vp_is_read_after_the_citizens_move():
    def f(doc):
        all_bonus_rows_taken(doc)
        for k, occupied in enumerate((bits(0, 2), bits(0, 4), bits(0, 3))):   # W next 2 (VP 2); M next 4 (3);
            track(doc, k, occupied)                                         # U next 3 (3)
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert tracks(s)[0] == bits(0, 4)
    assert pl(s, 0).score == 3                            # not 2, the value covered by the first Working


def test_R93_step2_bonus_only_for_the_first_building_of_a_row():
    s = at_build(game(4), {(1, 0): W, (2, 0): W, (3, 0): W, (4, 0): W})
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert pl(s, 0).score == 6
    s = at_build(s, {}, player=1)
    s.apply(build_id("B(3,0)", "L1", [(3, 0), (4, 0)]))   # same block row 0: no bonus
    assert pl(s, 1).score == 1                            # W row next index 4 -> VP 3; M row -> 1
    assert s.view().bonus_rows_taken == (0,)
    s = at_build(s, {(0, 2): M, (1, 2): M}, player=2)
    s.apply(build_id("B(0,2)", "L1", [(0, 2), (1, 2)]))   # block row 2: bonus
    assert pl(s, 2).score == 5 + 2                        # W next 4 -> 3, M next 2 -> 2, U -> 2
    assert s.view().bonus_rows_taken == (0, 2)


def test_R93_step6_emptying_a_marker_stack_gives_one_cerda():
    def f(doc):
        markers_placed(doc, 0, 1)                            # stacks 2,2,2,1,1: the 2nd marker empties stack 1
    s = at_build(game(4), {(1, 1): W, (2, 1): W}, fn=f)
    s.apply(build_id("NE(1)", "CORNER", [(1, 1), (2, 1)]))
    assert pl(s, 0).markers_placed == 2 and pl(s, 0).cerda == 5

    def g(doc):
        markers_placed(doc, 0, 2)                            # the 3rd marker empties nothing
    s = at_build(game(4), {(1, 1): W, (2, 1): W}, fn=g)
    s.apply(build_id("NE(1)", "CORNER", [(1, 1), (2, 1)]))
    assert pl(s, 0).markers_placed == 3 and pl(s, 0).cerda == 4


def test_R94_A25_no_marker_left_still_must_build_and_gains_vp_and_effects():
    def f(doc):
        markers_placed(doc, 0, 8)                            # on Level 3 buildings of block rows 2 and 3
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, fn=f)
    assert kinds_on(s, "B(1,0)") == {"L1"}                  # still compulsory
    counts = s.condition_count("SC19", 0), s.condition_count("SC01", 0)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    p = pl(s, 0)
    assert level(s, "B(1,0)") == 1 and marks(s, "B(1,0)") == []
    assert p.markers_placed == 8 and p.score == 6 and p.cerda == 5   # VP and effect, no stack bonus
    assert (s.condition_count("SC19", 0), s.condition_count("SC01", 0)) == counts   # B(1,0) counts for nobody


def test_A25_overbuilding_an_unmarked_building_puts_the_marker_at_the_bottom():
    def f(doc):
        building(doc, "B(1,0)", "L1")                        # built by someone without markers
    s = at_build(game(4), {(1, 0): M, (2, 0): W}, player=1, fn=f)
    assert kinds_on(s, "B(1,0)") == {"L2"}                  # an unmarked building can be overbuilt
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (2, 0)]))
    s.apply(C["A_SAG_STOP"])
    assert marks(s, "B(1,0)") == [1]
    assert s.condition_count("SC19", 1) == 1


def test_A25_unmarked_buildings_count_as_buildings_for_SC05_and_SC10():
    def f(doc):
        for name in ("NE(0)", "SW(0)", "B(1,0)"):
            building(doc, name, 4 if name[0] in "NS" else 1)   # no markers at all
        intersection(doc, 1, 1, 0)
        passenger(doc, 0, "V(1,0)")                          # touches NE(0) and B(1,0)
    s = edit(game(4), f)
    assert s.condition_count("SC05", 0) == 1
    assert s.condition_count("SC10", 0) == 1


# ---------------------------------------------------------------------------------------------------------
# R95-R99: the four building types


def test_R95_A5_level1_takes_any_two_citizens_and_forces_plus_one_cerda():
    s = at_build(game(4), {(1, 0): U, (2, 0): M})
    assert ("B(1,0)", "L1", ((1, 0), (2, 0))) in options(s)   # Upper/Middle fill "any" (A5)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert s.current_player() == 1                           # the Cerdà step is not a decision (R115)
    assert pl(s, 0).cerda == 5
    assert tracks(s) == [0, 0b1, 0b1]


def test_R97_level2_needs_one_middle_upper_is_not_middle():
    assert kinds_on(at_build(game(4), {(1, 0): W, (2, 0): W}), "B(1,0)") == {"L1"}
    assert kinds_on(at_build(game(4), {(1, 0): U, (2, 0): U}), "B(1,0)") == {"L1"}
    assert kinds_on(at_build(game(4), {(1, 0): U, (2, 0): M}), "B(1,0)") == {"L1", "L2"}
    assert kinds_on(at_build(game(4), {(1, 0): M, (2, 0): M}), "B(1,0)") == {"L1", "L2"}


@pytest.mark.parametrize("step", [True, False])
def test_R97_A38_level2_optional_sagrada_step_compulsory_cerda_back(step):
    def f(doc):
        all_bonus_rows_taken(doc)
    s = at_build(game(4), {(1, 0): M, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (2, 0)]))
    assert s.current_player() == 0
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]
    s.apply(C["A_SAG_STEP"] if step else C["A_SAG_STOP"])
    p = pl(s, 0)
    assert p.sagrada == (1 if step else 0)
    assert p.cerda == 3
    assert p.score == 2                                   # lowest visible: W at 1 -> 2, M at 1 -> 2, U 2
    assert marks(s, "B(1,0)") == [0] and s.current_player() == 1


def test_R98_level3_requirements_one_upper_plus_two_on_three_crossings():
    assert "L3" not in kinds_on(at_build(game(4), {(1, 0): U, (2, 0): M}), "B(1,0)")
    assert "L3" not in kinds_on(at_build(game(4), {(1, 0): M, (2, 0): M, (1, 1): W}), "B(1,0)")
    s = at_build(game(4), {(1, 0): U, (2, 0): W, (1, 1): W, (2, 1): W})
    l3 = {u for sp, ty, u in options(s) if sp == "B(1,0)" and ty == "L3"}
    assert l3 == {((1, 0), (1, 1), (2, 0)), ((1, 0), (2, 0), (2, 1)), ((1, 0), (1, 1), (2, 1))}


def test_R98_A38_level3_effects_7vp_minus2_cerda_up_to_2_optional_sagrada_steps():
    def f(doc):
        all_bonus_rows_taken(doc)
    s = at_build(game(4), {(1, 0): U, (2, 0): W, (1, 1): W}, fn=f)
    s.apply(build_id("B(1,0)", "L3", [(1, 0), (2, 0), (1, 1)]))
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]
    s.apply(C["A_SAG_STEP"])
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]    # the second step, one at a time
    s.apply(C["A_SAG_STOP"])
    p = pl(s, 0)
    assert p.sagrada == 1 and p.cerda == 2
    # lowest visible after: W next 2 (VP 2), M next 0 (VP 1), U next 1 (VP 2) -> 1; plus 7
    assert p.score == 1 + 7
    assert s.score_breakdown()[0]["buildings"] == 8
    assert tracks(s) == [0b11, 0, 0b1]


def test_R99_any_level_may_go_on_an_empty_normal_block():
    s = at_build(game(4), {(1, 2): U, (2, 2): M, (1, 3): W})
    assert kinds_on(s, "B(1,2)") == {"L1", "L2", "L3"}


@pytest.mark.parametrize("edition", WORKED_EXAMPLE_EDITIONS, ids=edition_id)
def test_example_R100(edition):
    """R100: Level-2 with two adjacent citizens (one Middle); 7 VP = lowest visible after they move;
    may take 1 Sagrada step, must go 1 back on Cerdà; marker placed; no Cerdà scoring. The rows stand where the
    example's number comes out: the Working row's next space shows 6 and the one after it 7, the Middle row's
    next two show 7, the Upper row's next 7; the sections some row has reached are scored."""
    t = tables(edition)
    vp, mark = t["track_vp"], t["track_mark"]
    nxt = [max(i for i, v in enumerate(vp[W]) if v == 6),
           next(i for i, v in enumerate(vp[M][:-1]) if v == vp[M][i + 1] == 7),
           vp[U].index(7)]
    assert vp[W][nxt[W] + 1] == 7
    reached = tuple(any(mark[k][sec] < nxt[k] for k in (W, M, U)) for sec in range(3))
    assert reached[0] and not reached[2]

    def f(doc):
        all_bonus_rows_taken(doc)
        scored(doc, *(sec for sec in range(3) if reached[sec]))
        for k in (W, M, U):
            track(doc, k, bits(0, nxt[k]))
    s = at_build(game(4, edition=edition), {(2, 1): M, (3, 1): W}, fn=f)
    s.apply(build_id("B(2,1)", "L2", [(2, 1), (3, 1)]))
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]
    s.apply(C["A_SAG_STEP"])
    v, p = s.view(), pl(s, 0)
    assert tracks(s) == [bits(0, nxt[W] + 1), bits(0, nxt[M] + 1), bits(0, nxt[U])]
    assert p.score == 7                                   # the lowest visible: 7, 7, 7 (before: 6)
    assert p.sagrada == 1 and p.cerda == 3
    assert marks(s, "B(2,1)") == [0] and p.markers_placed == 1
    assert v.cerda_scored == reached and v.cerda_scorings_done == sum(reached)
    assert s.score_breakdown()[0]["cerda_scoring"] == 0
    assert s.current_player() == 1


# ---------------------------------------------------------------------------------------------------------
# R101-R103: overbuilding


def test_R101_R102_overbuild_L1_then_L2_then_L3_markers_stack_bottom_to_top():
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, player=1)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert kinds_on(at_build(s.clone(), {(1, 0): W, (2, 0): W}, player=2), "B(1,0)") == set()   # no L1 on L1
    s = at_build(s, {(1, 0): M, (1, 1): W}, player=2)
    assert kinds_on(s, "B(1,0)") == {"L2"}
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (1, 1)]))
    s.apply(C["A_SAG_STOP"])
    assert level(s, "B(1,0)") == 2 and marks(s, "B(1,0)") == [1, 2]
    s = at_build(s, {(1, 0): U, (2, 0): W, (2, 1): W}, player=3)
    assert kinds_on(s, "B(1,0)") == {"L3"}                  # no L2 on L2
    s.apply(build_id("B(1,0)", "L3", [(1, 0), (2, 0), (2, 1)]))
    s.apply(C["A_SAG_STOP"])
    assert level(s, "B(1,0)") == 3 and marks(s, "B(1,0)") == [1, 2, 3]
    assert s.view().building_tiles_left == (8, 11, 7, 6)
    assert s.condition_count("SC19", 1) == 1 and s.condition_count("SC19", 2) == 0
    assert s.condition_count("SC19", 3) == 0


def test_R101_level3_directly_on_level1_and_overbuild_gives_vp_and_effects():
    def f(doc):
        building(doc, "B(2,3)", 1, [1])
        all_bonus_rows_taken(doc)
    s = at_build(game(4), {(2, 3): U, (3, 3): M, (3, 4): W}, fn=f)
    assert kinds_on(s, "B(2,3)") == {"L2", "L3"}
    s.apply(build_id("B(2,3)", "L3", [(2, 3), (3, 3), (3, 4)]))
    s.apply(C["A_SAG_STOP"])
    p = pl(s, 0)
    assert level(s, "B(2,3)") == 3 and marks(s, "B(2,3)") == [1, 0]
    assert p.score == 7 + 2 and p.cerda == 2          # every row next shows 2


def test_R103_level3_is_never_overbuilt():
    def f(doc):
        building(doc, "B(1,0)", 3, [2])
    s = at_build(game(4), {(1, 0): U, (2, 0): M, (1, 1): W, (2, 1): U}, fn=f)
    assert kinds_on(s, "B(1,0)") == set()
    assert kinds_on(s, "B(2,0)") == {"L1", "L2"}           # a neighbour is still offered


# ---------------------------------------------------------------------------------------------------------
# R104-R106: citizen tracks


def test_R104_prefilled_spaces_are_skipped_3p():
    s = game(3)
    pre = tracks(s)
    assert pre == [sum(1 << first for first, _ in SECTIONS[k]) for k in (W, M, U)]   # R12 "3" spaces
    s = at_build(s, {(1, 0): W, (2, 0): W})
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert tracks(s)[0] == pre[0] | 0b110

    (_, last1), (first2, _), (first3, _) = SECTIONS[W]

    def f(doc):
        track(doc, W, bits(0, last1 + 1) | 1 << first2 | 1 << first3)   # section 1 full; section 2's first
        scored(doc, 0)                                                   # space printed "3" is taken
    s = at_build(game(3), {(1, 0): W, (2, 0): M}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert tracks(s)[0] == bits(0, first2 + 2) | 1 << first3


def test_R105_full_section_overflows_into_the_next_and_off_the_board():
    last1 = SECTIONS[W][0][1]

    def f(doc):
        track(doc, W, bits(0, last1 + 1))                   # Working section 1 full
        scored(doc, 0)
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert tracks(s)[0] == bits(0, last1 + 3)

    def g(doc):
        end_triggered(doc)
        for k in (W, M, U):                                  # Working full, the others up to their last mark
            track(doc, k, full(W) if k == W else bits(0, MARK[k][2] + 1))
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, fn=g)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert tracks(s)[0] == full(0) and s.view().tracks_off_board == (2, 0, 0)


def test_R106_each_row_has_its_own_mark_per_section():
    # the Upper row's section-1 mark is a space that is no mark on the Working row
    m = MARK[U][0]
    assert m not in MARK[W]

    def f(doc):
        track(doc, W, bits(0, m))
        track(doc, U, bits(0, m))
    s = at_build(game(4), {(1, 0): W, (2, 0): M}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert s.view().cerda_scored == (False, False, False)      # W reached space m: no mark
    s = at_build(game(4), {(1, 0): U, (2, 0): M}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    v = s.view()
    assert v.cerda_scored == (True, False, False) and v.cerda_scorings_done == 1    # U reached space m: its mark


def test_R106_lowest_visible_uses_each_rows_printed_numbers():
    def f(doc):
        all_bonus_rows_taken(doc)
        end_triggered(doc)                                   # the tracks reached every mark
        for k, occupied in enumerate((full(0), full(1), bits(0, 5))):   # only the Upper row shows a number
            track(doc, k, occupied)
    s = at_build(game(4), {(1, 0): U, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert VP[U][6] != VP[W][6] == VP[M][6]
    assert pl(s, 0).score == VP[U][6]                     # Upper space 6 shows its own number, not a W/M one


# ---------------------------------------------------------------------------------------------------------
# A5, A26-A29


def test_A5_builder_chooses_which_citizens_and_may_use_those_placed_this_turn():
    s = at_build(game(4), {(1, 0): W, (2, 0): W, (1, 1): W})
    l1 = {u for sp, ty, u in options(s) if sp == "B(1,0)" and ty == "L1"}
    assert l1 == {((1, 0), (2, 0)), ((1, 0), (1, 1)), ((1, 1), (2, 0))}
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (1, 1)]))
    assert s.view().crossings[cross(2, 0)][0] == W       # the unused one stays

    def f(doc):                                               # place this turn, then build with them
        citizens(doc, 2, 0, W)
        doc["players"][0]["hand"] = hand(0, 1, 1)
    s = edit(game(4), f)
    s.apply(C["A_PLACE"] + cross(1, 0) * 3 + M)              # Upper below, Middle on top (R37)
    assert C["A_END_ACTIONS"] in s.legal_actions()
    s.apply(C["A_END_ACTIONS"])
    assert ("B(1,0)", "L2", ((1, 0), (2, 0))) in options(s)
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (2, 0)]))
    assert s.view().crossings[cross(1, 0)] == (U,)


def test_A26_adjacency_counts_sc05_distinct_spaces_and_sc10_two_sided_spaces():
    def f(doc):
        intersection(doc, 1, 1, 0)                           # diagonal crossing: 6 building spaces around
        intersection(doc, 3, 0, 0)                           # border crossing: 2 spaces around
        for name, lvl in (("NE(0)", 4), ("SW(0)", 4), ("B(2,0)", 2), ("B(3,0)", 1)):
            building(doc, name, lvl)
    s = edit(game(4), f)
    # (1,1) touches NE(0), SW(0) (triangles counted separately) = 2 -> not yet 3
    assert s.condition_count("SC05", 0) == 0

    def g(doc):
        building(doc, "B(1,0)", 2)                           # an overbuilt block still counts once
    s = edit(s, g)
    assert s.condition_count("SC05", 0) == 1
    # SC10: V(0,1) touches only B(0,1) (border); V(1,0) touches NE(0) and B(1,0)

    def h(doc):
        building(doc, "B(0,1)", 3)
        passenger(doc, 0, "V(0,1)")
    s = edit(s, h)
    assert s.condition_count("SC10", 0) == 0

    def k(doc):
        passenger(doc, 0, "V(1,0)")
    s = edit(s, k)
    assert s.condition_count("SC10", 0) == 1


def test_A27_row_bonus_once_per_row_corners_included():
    s = at_build(game(4), {(1, 1): W, (2, 1): W})
    s.apply(build_id("NE(1)", "CORNER", [(1, 1), (2, 1)]))   # corner of B(1,1): block row 1
    assert s.view().bonus_rows_taken == (1,) and pl(s, 0).score == 5 + 1
    s = at_build(s, {(0, 1): W, (0, 2): W}, player=1)
    s.apply(build_id("B(0,1)", "L1", [(0, 1), (0, 2)]))      # row 1 again: no bonus
    assert pl(s, 1).score == 1                            # lowest visible only (M row: 1)
    assert s.view().bonus_rows_taken == (1,)


def test_A28_presence_any_marker_in_the_stack_diagonal_block_once():
    def f(doc):
        for name, stack in (("NE(0)", [0]), ("SW(0)", [0]), ("B(1,0)", [1, 0]), ("B(2,0)", [0, 1])):
            building(doc, name, 4 if name[0] in "NS" else len(stack), stack)
    s = edit(game(4), f)
    assert s.condition_count("SC01", 0) == 3                 # B(0,0), B(1,0) (covered marker), B(2,0)
    assert s.condition_count("SC01", 1) == 2                 # B(1,0), B(2,0)
    assert s.condition_count("SC17", 0) == 1                 # two corners, one diagonal block
    assert s.condition_count("SC19", 0) == 1                 # bottom of B(2,0) only (corners excluded)
    assert s.condition_count("SC19", 1) == 1


def test_A29_full_rows_ignored_all_full_gives_zero():
    def f(doc):
        all_bonus_rows_taken(doc)
        end_triggered(doc)
        for k, occupied in enumerate((full(0), bits(0, LEN[M] - 1), full(2))):   # only the Middle row shows a
            track(doc, k, occupied)                                               # number: its last space's
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert pl(s, 0).score == VP[M][-1]

    def g(doc):
        all_bonus_rows_taken(doc)
        end_triggered(doc)
        for k, occupied in enumerate((full(0), bits(0, LEN[M] - 1), full(2))):
            track(doc, k, occupied)
    s = at_build(game(4), {(1, 0): W, (2, 0): M}, fn=g)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))     # the Middle fills its row: all full
    assert tracks(s) == [full(0), full(1), full(2)] and s.view().tracks_off_board == (1, 0, 0)
    assert pl(s, 0).score == 0


# ---------------------------------------------------------------------------------------------------------
# every construction of random games against an independent reading of R93 (steps 1-4, 6), R104, R105


def _expected_build(before, a):
    tracks = ED.raw["citizen_tracks"]
    rows = [tracks[k]["vp"] for k in ("WORKING", "MIDDLE", "UPPER")]
    name, ty, used = opt(a)
    bs = building_space(name)
    p = before.turn_player
    track = [mask(t) for t in before.tracks]
    off = list(before.tracks_off_board)
    crossings = [list(x) for x in before.crossings]
    for c, r in used:
        k = crossings[cross(c, r)].pop()                      # the top citizen
        free = [i for i in range(len(rows[k])) if not track[k] >> i & 1]
        if free:
            track[k] |= 1 << free[0]
        else:
            off[k] += 1
    shown = [rows[k][min(i for i in range(len(rows[k])) if not track[k] >> i & 1)]
             for k in range(3) if track[k] != (1 << len(rows[k])) - 1]
    row = T["bs_row"][bs]
    bonus = 0 if row in before.bonus_rows_taken else ED.raw["building_bonus_vp"]
    return dict(p=p, bs=bs, ty=ty, track=track, off=off, crossings=tuple(tuple(x) for x in crossings),
                vp=bonus + (min(shown) if shown else 0))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R93_R104_R105_every_construction_in_random_games(players):
    import random
    from barcelona_ai import new_game
    checked = 0
    for seed in range(15):
        rng = random.Random(3000 + seed)
        s = new_game(players, seed=seed)
        while not s.is_terminal():
            before = s.view()
            a = rng.choice(s.legal_actions())
            if not (A_BUILD <= a < A_DRAW):
                s.apply(a)
                continue
            e = _expected_build(before, a)
            s.apply(a)
            after = s.view()
            p, bs = e["p"], e["bs"]
            assert tracks(s) == e["track"] and list(after.tracks_off_board) == e["off"]
            assert after.crossings == e["crossings"]
            assert after.building_levels[bs] == (4 if e["ty"] == "CORNER" else TYPES.index(e["ty"]))
            ty = TYPES.index(e["ty"])
            assert after.building_tiles_left[ty] == before.building_tiles_left[ty] - 1
            top = after.top_frame
            waiting = top is not None and top.kind == C["FR_SAGRADA"] and top.player == p
            gained = after.players[p].vp_sources[1] - before.players[p].vp_sources[1]      # "buildings"
            l3 = 7 if e["ty"] == "L3" and not waiting else 0
            assert gained == e["vp"] + l3, (seed, opt(a))
            if not waiting:
                marks0 = before.building_markers[bs]
                if before.players[p].markers_placed < 8:
                    assert after.building_markers[bs] == marks0 + (p,)
                else:
                    assert len(after.building_markers[bs]) == len(marks0)
            checked += 1
    assert checked > 20
