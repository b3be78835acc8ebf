"""Rule tests: Cerdà Scorings and the Cerdà track, the Sagrada Família track, Public Services and the 19
scoring conditions (R76-R79, R107-R121, PS1-PS7, SC01-SC19; rulings A8-A12, A30, A32-A38, A40, A45, A48).

Default data (rules-inventory §4): Cerdà track 0..11, multiplier [0,0,1,1,1,1,2,2,3,3,3,4], start 4, resets
after scorings 1 and 2; the citizen tracks' marks are read from its tables (W_MARKS, U_MARKS); Sagrada track
0..7 with slots of level 1/2/3 after spaces 1/3/6; Public Services cost 3/2/1 coins for 10/6/3 VP and +2 Cerdà.
"""
import json
import random

import pytest

from barcelona_ai import State, new_game
from barcelona_ai.rules.tables import CLASSES

from helpers import (C, ED, T, W, M, U, SPARE_SIDEWALK, WORKED_EXAMPLE_EDITIONS, all_bonus_rows_taken, at_build,
                     bits, build_id, building, citizens, cobblestones, cond, cross, edit, edition_id, game, hand,
                     intersection, markers_placed, mask, modernisme_piles, own, passenger, pl, projects, ps_built,
                     ps_in_play, scored, space, src, tables, track, turn, warehouse_room)

A_BUILD, A_DRAW, A_REVEAL = C["A_BUILD"], C["A_DRAW"], C["A_REVEAL"]
MULT = T["cerda_mult"]
START = T["cerda_start"]
W_MARKS = T["track_mark"][W]
U_MARKS = T["track_mark"][U]
PS = {n: i for i, n in enumerate(T["ps_names"])}


def chance_all(s):
    """Resolve chance nodes with their first outcome; returns the number resolved."""
    n = 0
    while s.is_chance_node():
        s.apply(s.legal_actions()[0])
        n += 1
    return n


def at_actions(s, c, r, player=0, fn=None):
    """Seat `player` has just placed its two Working citizens on (c,r) (printed action setup) and may take its
    actions."""
    def f(doc):
        turn(doc, player, "ACTIONS", (c, r))
        citizens(doc, c, r, W, W)
        doc["players"][player]["hand"] = hand()
        if fn:
            fn(doc)
    return edit(s, f)


def cerda_tiles(doc, tiles):
    """The Cerdà Scoring tiles of the three sections (distinct Cerdà tiles, R14)."""
    for sec, name in enumerate(tiles):
        doc["cerda_tiles"][sec]["tile"] = name


def scoring_turn(section, fn=None, builder=0, players=4, tiles=None):
    """A position where `builder` is in construction and the Corner NE(0) (Working + Working, no effect) puts a
    Working citizen on the section's mark. Returns (state, build action). Earlier sections count as scored
    (the Working row reached their marks); every block row's bonus is taken."""
    def f(doc):
        track(doc, W, bits(0, W_MARKS[section]))
        scored(doc, *range(section))
        if tiles is not None:
            cerda_tiles(doc, tiles)
        if fn:
            fn(doc)
        all_bonus_rows_taken(doc)
    s = at_build(game(players), {(0, 0): W, (1, 0): W}, player=builder, fn=f)
    return s, build_id("NE(0)", "CORNER", [(0, 0), (1, 0)])


def reveal_all(s):
    """Resolve the Modernisme reveals with their first outcome; returns how many (the draws stay)."""
    n = 0
    while s.is_chance_node() and s.legal_actions()[0] >= A_REVEAL:
        s.apply(s.legal_actions()[0])
        n += 1
    return n


# ---------------------------------------------------------------------------------------------------------
# R107-R110, R114, A8-A10, A12, A40, A48: Cerdà Scorings


def test_R107_scoring_when_a_row_reaches_its_mark_not_before():
    def short(doc):
        track(doc, W, bits(0, W_MARKS[0] - 2))               # W+W -> the two spaces before the mark
    s, a = scoring_turn(0, fn=short, tiles=["SC15", "SC16", "SC17"])
    s.apply(a)
    v = s.view()
    assert v.cerda_scored == (False, False, False) and v.cerda_scorings_done == 0 and s.current_player() == 1
    s, a = scoring_turn(0, tiles=["SC03", "SC16", "SC17"])
    s.apply(a)                                              # W+W -> the mark and the next: filled
    assert s.view().cerda_scored == (True, False, False) and s.view().cerda_scorings_done == 1
    assert [src(s, p, "cerda_scoring") for p in range(4)] == [2, 2, 2, 2]   # 1 coin x2 VP x1 each


def test_R107_any_row_triggers_the_shared_section():
    def f(doc):
        track(doc, U, bits(0, U_MARKS[0]))                   # Upper row one short of its mark
        cerda_tiles(doc, ["SC03", "SC02", "SC01"])
    s = at_build(game(4), {(0, 0): U, (1, 0): W}, fn=f)
    s.apply(build_id("NE(0)", "CORNER", [(0, 0), (1, 0)]))
    assert s.view().cerda_scored == (True, False, False)


@pytest.mark.parametrize("index", range(12))
def test_R108_R114_multiplier_by_cerda_index(index):
    def f(doc):
        doc["players"][1].update(cerda=index, coins=4, cloth=0)
    s, a = scoring_turn(0, fn=f, tiles=["SC03", "SC16", "SC17"])
    s.apply(a)
    assert MULT == [0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 4]      # §4.6
    assert src(s, 1, "cerda_scoring") == 2 * 4 * MULT[index]
    assert pl(s, 1).score == 2 * 4 * MULT[index]


def test_R108_every_player_scores_with_own_count_and_multiplier():
    def f(doc):
        for p, (coins, cerda) in enumerate([(3, 2), (1, 6), (4, 9), (2, 11)]):
            doc["players"][p].update(coins=coins, cloth=0, cerda=cerda)
    s, a = scoring_turn(0, fn=f, tiles=["SC03", "SC16", "SC17"])
    s.apply(a)
    assert [src(s, p, "cerda_scoring") for p in range(4)] == [2 * 3 * 1, 2 * 1 * 2, 2 * 4 * 3, 2 * 2 * 4]


def test_R110_A12_reset_after_scorings_1_and_2_only_above_the_start():
    for section in (0, 1):
        def f(doc):
            for p, cerda in enumerate([3, 4, 5, 11]):
                doc["players"][p]["cerda"] = cerda
        s, a = scoring_turn(section, fn=f, tiles=["SC15", "SC16", "SC17"])
        s.apply(a)
        assert s.view().cerda_scorings_done == section + 1
        assert [pl(s, p).cerda for p in range(4)] == [3, 4, START, START]


def test_R110_no_reset_after_the_third_scoring():
    def f(doc):
        for p, cerda in enumerate([3, 4, 5, 11]):
            doc["players"][p]["cerda"] = cerda
    s, a = scoring_turn(2, fn=f, tiles=["SC15", "SC16", "SC17"])
    s.apply(a)
    assert s.view().cerda_scorings_done == 3 and s.view().end_triggered
    assert [pl(s, p).cerda for p in range(4)] == [3, 4, 5, 11]


def test_R109_A10_a_scored_section_never_scores_again():
    def f(doc):
        track(doc, U, bits(0, U_MARKS[0] + 1))               # section 1 scored (by the Upper row's mark)
        scored(doc, 0)
        doc["players"][2].update(cerda=9, coins=3)
    s, a = scoring_turn(0, fn=f, tiles=["SC03", "SC06", "SC02"])   # each would give seat 2 VP
    s.apply(a)                                               # the Working row now reaches its mark
    assert s.view().cerda_scored == (True, False, False) and s.view().cerda_scorings_done == 1
    assert src(s, 2, "cerda_scoring") == 0 and pl(s, 2).cerda == 9   # no scoring, no reset
    assert not s.is_chance_node() and s.current_player() == 1           # no display refresh either


def end_of_turn(fn):
    """Seat 0 at the end of its turn (phase END: R34 step 3, the Cerdà Scorings), fn setting the board. The
    position loader accepts tracks past marks of unscored sections in this phase only (R109): in the default
    game one construction (at most 3 citizens) cannot reach two marks 5 or more spaces apart, so a turn that scores
    two sections (A9, 'possible only with very full tracks') starts here, as loaded, with the scorings."""
    def f(doc):
        turn(doc, 0, "END")
        fn(doc)
    return edit(game(4), f)


def test_A9_two_sections_in_one_turn_in_order_with_the_reset_between():
    def f(doc):
        track(doc, W, bits(0, W_MARKS[1] + 2))              # both marks 4 and 10 filled by this turn
        cerda_tiles(doc, ["SC03", "SC02", "SC15"])
        doc["players"][1].update(cerda=9, coins=2, cloth=2)  # x3 for section 1, reset to 4 (x1) for section 2
    s = end_of_turn(f)
    assert s.view().cerda_scored == (True, True, False) and s.view().cerda_scorings_done == 2
    assert src(s, 1, "cerda_scoring") == 2 * 2 * 3 + 2 * 2 * 1
    assert pl(s, 1).cerda == START
    assert chance_all(s) == 8                                # two display refreshes (R111)


def test_A9_sections_2_and_3_in_one_turn_reset_after_the_2nd_only_and_end_trigger():
    def f(doc):
        track(doc, W, bits(0, W_MARKS[2] + 1))              # the marks of sections 2 and 3 both filled
        scored(doc, 0)
        cerda_tiles(doc, ["SC15", "SC03", "SC02"])
        doc["players"][1].update(cerda=9, coins=2, cloth=2)
    s = end_of_turn(f)
    v = s.view()
    assert v.cerda_scored == (True, True, True) and v.cerda_scorings_done == 3 and v.end_triggered
    assert src(s, 1, "cerda_scoring") == 2 * 2 * 3 + 2 * 2 * 1
    assert pl(s, 1).cerda == START


def test_A32_refresh_with_too_few_tiles_left_shows_fewer_than_four():
    def f(doc):
        modernisme_piles(doc, stack=[], display=[0, 2])
    s, a = scoring_turn(0, fn=f, tiles=["SC15", "SC16", "SC17"])
    s.apply(a)
    assert chance_all(s) == 2
    assert masks(s) == (0, 0b101, 0)
    assert s.current_player() == 1


def test_A8_A48_scoring_uses_the_state_after_the_building_before_the_draws():
    def f(doc):
        track(doc, W, bits(0, W_MARKS[0]))
        cerda_tiles(doc, ["SC01", "SC16", "SC15"])
        doc["players"][0]["hand"] = hand()                   # the builder will draw 2 citizens after scoring
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))     # W -> the mark and the next: section 1 scores
    assert src(s, 0, "cerda_scoring") == 2 * 1 * 1           # the new building's marker counts (A48): SC01
    # the reveals (R111) and then the draws are still to come: the scoring happened first (A8)
    assert s.is_chance_node() and all(a >= A_REVEAL for a in s.legal_actions())
    assert chance_all(s) == 4 + 2
    assert sum(pl(s, 0).hand) == 2 and src(s, 0, "cerda_scoring") == 2
    assert s.current_player() == 1


def test_A40_coins_counted_at_scoring_time_after_the_turns_actions():
    def f(doc):
        track(doc, W, bits(0, W_MARKS[0]))
        all_bonus_rows_taken(doc)
        cerda_tiles(doc, ["SC03", "SC02", "SC01"])
        citizens(doc, 1, 0, W)
        citizens(doc, 0, 0, W, W)
    s = at_actions(game(4), 0, 0, fn=f)                       # vertical 0 = Gain 2 Coins
    s.apply(C["A_GAIN_COINS"])
    assert pl(s, 0).coins == 3
    s.apply(C["A_END_ACTIONS"])
    s.apply(build_id("NE(0)", "CORNER", [(0, 0), (1, 0)]))
    assert src(s, 0, "cerda_scoring") == 2 * 3 * 1


@pytest.mark.parametrize("edition", WORKED_EXAMPLE_EDITIONS, ids=edition_id)
def test_example_R112(edition):
    """R112: Upper row section 1 reaches its mark after Blue's turn; tile SC17 (3 VP per Corner on different
    blocks). Blue x3 with 3 corners in 2 blocks -> 18; Purple x2, none -> 0; Orange x1, one corner -> 3; then
    Blue and Purple return to the start, Orange (below it) stays."""
    blue, purple, orange, green = 0, 1, 2, 3

    def f(doc):
        cerda_tiles(doc, ["SC17", "SC01", "SC02"])
        track(doc, U, bits(0, tables(edition)["track_mark"][U][0]))   # Upper row one short of its mark
        for name, owner in (("NE(0)", blue), ("SW(0)", blue), ("NE(1)", orange)):
            building(doc, name, "CORNER", [owner])
        all_bonus_rows_taken(doc)                            # rows 2 and 3: unmarked Corners SW(2), SW(3)
        doc["players"][blue]["cerda"] = 9
        doc["players"][purple]["cerda"] = 6
        doc["players"][orange]["cerda"] = 3
    s = at_build(game(4, edition=edition), {(2, 2): U, (3, 2): W}, player=blue, fn=f)
    s.apply(build_id("NE(2)", "CORNER", [(2, 2), (3, 2)]))  # Blue's third corner, in a second block
    assert s.view().cerda_scored == (True, False, False)
    assert [s.condition_count("SC17", p) for p in range(4)] == [2, 0, 1, 0]
    assert [src(s, p, "cerda_scoring") for p in range(4)] == [18, 0, 3, 0]
    assert [pl(s, p).cerda for p in (blue, purple, orange, green)] == [START, START, 3, START]


# ---------------------------------------------------------------------------------------------------------
# R111, R73, A32: the Modernisme display


def test_R111_display_refreshed_after_a_scoring():
    s, a = scoring_turn(0, tiles=["SC15", "SC16", "SC17"])
    old_stack, old_display, _ = masks(s)
    s.apply(a)
    _, display, discard = masks(s)
    assert display == 0 and discard == old_display
    outs = s.chance_outcomes()
    assert {x - A_REVEAL for x, _ in outs} == {t for t in range(18) if old_stack >> t & 1}
    assert all(abs(p - 1 / len(outs)) < 1e-12 for _, p in outs)
    assert chance_all(s) == 4
    _, display, discard = masks(s)
    assert bin(display).count("1") == 4 and display & ~old_stack == 0
    assert discard == old_display


def masks(s):
    """The Modernisme stack, display and discard as bitmasks (bit t: tile t)."""
    v = s.view()
    return mask(v.modernisme_stack), mask(v.modernisme_display), mask(v.modernisme_discard)


def test_R111_R73_reshuffle_the_discard_when_the_stack_runs_out():
    """R111 (rulebook, Cerdà Scoring): "After finishing a Cerdà Scoring, discard all the Modernisme tiles on
    display, then reveal four new tiles. If at any point the Modernisme tiles stack would become empty,
    reshuffle the discarded tiles to create a new stack." (R73 ends with the same sentence.) Discard first,
    then reveal: with 2 tiles face down, the second reveal empties the stack; at that point the discards, the
    4 just discarded among them, become the new stack at once, and the last 2 reveals are uniform over it."""
    def f(doc):
        modernisme_piles(doc, stack=[10, 11], display=[0, 1, 2, 3],   # two tiles left face down, two
                         discard=[4, 5])                              # discarded by an earlier refresh
    s, a = scoring_turn(0, fn=f, tiles=["SC15", "SC16", "SC17"])
    s.apply(a)
    assert masks(s) == (0b11 << 10, 0, 0b111111)
    assert {x - A_REVEAL for x in s.legal_actions()} == {10, 11}
    s.apply(A_REVEAL + 10)
    assert masks(s) == (1 << 11, 1 << 10, 0b111111)
    s.apply(A_REVEAL + 11)
    assert masks(s) == (0b111111, 0b11 << 10, 0)            # reshuffled as the stack ran out, not later
    assert s.view().reveal_pending == 2
    outs = s.chance_outcomes()
    assert {x - A_REVEAL for x, _ in outs} == set(range(6))
    assert all(abs(p - 1 / 6) < 1e-12 for _, p in outs)
    chance_all(s)
    stack, display, discard = masks(s)
    assert bin(display).count("1") == 4 and display & (0b11 << 10) == 0b11 << 10
    assert discard == 0 and bin(stack).count("1") == 4 and stack | display == 0b11 << 10 | 0b111111


def test_R111_R73_refresh_after_a_take_emptied_the_stack_cannot_bring_back_its_discards():
    """A Take's refill (R73) reveals the last face-down tile while 4 tiles of an earlier
    refresh lie discarded: at that point they become the new stack. The Cerdà Scoring at the end of the same
    turn discards the display and reveals 4 from that stack, so none of the 4 tiles it has just discarded can
    come back. (Reshuffling only at the next reveal, as the engine used to, put the stack empty at the
    refresh and the 4 discarded tiles back among its outcomes.)"""
    last, earlier = 1 << 12, 0b1111 << 4

    def f(doc):
        cerda_tiles(doc, ["SC15", "SC16", "SC17"])
        modernisme_piles(doc, stack=[12], display=[0, 1, 2, 3], discard=[4, 5, 6, 7])
        track(doc, W, bits(0, W_MARKS[0]))                   # NE(0) below puts Working on section 1's mark
        all_bonus_rows_taken(doc)
        citizens(doc, 0, 0, W)
    s = at_actions(game(4), 1, 0, fn=f)                       # horizontal 0 = Take a Modernisme Project
    s.apply(C["A_MOD_TAKE"] + 0 * 5 + 0)                      # take tile 0 onto space 0
    assert s.legal_actions() == [A_REVEAL + 12]
    s.apply(A_REVEAL + 12)                                    # the last face-down tile
    assert masks(s) == (earlier, 0b1110 | last, 0)            # the discards are the stack at once (R73)
    s.apply(C["A_END_ACTIONS"])
    s.apply(build_id("NE(0)", "CORNER", [(0, 0), (1, 0)]))   # section 1 scores, the display is refreshed
    assert s.view().cerda_scorings_done == 1
    discarded = 0b1110 | last
    assert masks(s) == (earlier, 0, discarded)
    outs = s.chance_outcomes()
    assert {x - A_REVEAL for x, _ in outs} == {4, 5, 6, 7}   # only the stack, never the 4 just discarded
    assert all(abs(p - 1 / 4) < 1e-12 for _, p in outs)
    assert reveal_all(s) == 4
    stack, shown, discard = masks(s)
    assert shown == earlier and shown & discarded == 0
    assert (stack, discard) == (discarded, 0)                # the 4th reveal emptied the stack: reshuffled


def test_R111_R73_refresh_with_no_other_tile_left_brings_its_own_four_back():
    """Nothing face down and nothing discarded (every other tile is on a project space or in the box): the 4
    tiles the refresh discards are then the only discards while the stack is empty, so they form the new stack
    at once (R73 'at any point') and the 4 reveals show them again, in an order drawn at the chance nodes."""
    def f(doc):
        modernisme_piles(doc, stack=[], display=[3, 4, 5, 6])
    s, a = scoring_turn(0, fn=f, tiles=["SC15", "SC16", "SC17"])
    s.apply(a)
    assert masks(s) == (0b1111 << 3, 0, 0)
    assert {x - A_REVEAL for x in s.legal_actions()} == {3, 4, 5, 6}
    assert chance_all(s) == 4
    assert masks(s) == (0, 0b1111 << 3, 0)


def test_R111_R73_A6_modernisme_piles_in_random_games():
    """Random games, 2-4 players: after every action an empty stack has no discards beside it (R73, R111 'at
    any point'); every seat observes the same stack, display and discard (A6: the stack's order is hidden, its
    content public by deduction, the discards face up). Every refresh (R111) reveals first the tiles that were
    face down when it discarded the display; a tile it discarded comes back only from the reshuffle after those
    ran out, so never when 4 or more were face down."""
    refreshes = {"4+ face down": 0, "1-3 face down": 0, "none left": 0}
    for players in (2, 3, 4):
        for seed in range(10):
            rng = random.Random(3000 + seed)
            s = new_game(players, seed=seed)
            cur = None                                        # the refresh under way: (discarded, face down, reveals)
            while not s.is_terminal():
                b = masks(s)
                a = rng.choice(s.legal_actions())
                s.apply(a)
                r = s.view()
                assert r.modernisme_stack or not r.modernisme_discard, (players, seed)
                if b != masks(s):
                    for p in range(players):
                        o = s.view(viewpoint=p)
                        assert (mask(o.modernisme_stack), mask(o.modernisme_display),
                                mask(o.modernisme_discard)) == masks(s)
                if cur is not None and a >= A_REVEAL:
                    cur[2].append(a - A_REVEAL)
                    if len(cur[2]) == T["display_size"]:
                        discarded, down, shown = cur
                        k = bin(down).count("1")
                        if down & discarded:                  # nothing else was left: they are the stack
                            assert down == discarded
                            refreshes["none left"] += 1
                        else:
                            assert all(down >> x & 1 for x in shown[:k]), (players, seed, cur)
                            assert sum(discarded >> x & 1 for x in shown) <= max(0, len(shown) - k)
                            refreshes["4+ face down" if k >= 4 else "1-3 face down"] += 1
                        cur = None
                if r.reveal_pending == T["display_size"] and not r.modernisme_display:   # a refresh began
                    boards = sum(1 << t for p in r.players for t in p.modernisme if t is not None)
                    discarded = (b[1] | (1 << (a - A_REVEAL) if a >= A_REVEAL else 0)) & ~boards
                    cur = (discarded, mask(r.modernisme_stack), [])
    assert refreshes["4+ face down"] > 0 and refreshes["1-3 face down"] > 0, refreshes


def test_R73_take_refills_at_once_A32_short_display_when_nothing_left():
    def piles(stack, display):
        def f(doc):
            cerda_tiles(doc, ["SC15", "SC16", "SC17"])
            modernisme_piles(doc, stack, display)
        return f
    s = at_actions(game(4), 1, 0, fn=piles([12], [0, 1, 2, 3]))   # horizontal 0 = Take a Modernisme Project
    s.apply(C["A_MOD_TAKE"] + 0 * 5 + 0)
    assert s.legal_actions() == [A_REVEAL + 12]              # refilled at once (R73)
    s.apply(A_REVEAL + 12)
    assert masks(s)[1] == 0b1110 | 1 << 12 and pl(s, 0).modernisme[0] == 0

    s = at_actions(game(4), 1, 0, fn=piles([], [0, 1, 2, 3]))
    s.apply(C["A_MOD_TAKE"] + 2 * 5 + 0)
    assert not s.is_chance_node() and masks(s)[1] == 0b1011   # A32: 3 tiles shown

    s = at_actions(game(4), 1, 0, fn=piles([], []))
    assert not any(C["A_MOD_TAKE"] <= x < C["A_PS"] for x in s.legal_actions())   # empty display


# ---------------------------------------------------------------------------------------------------------
# R115, R116, A30: Cerdà track bounds


def test_A30_R116_level1_at_the_top_gives_2vp_instead_of_the_step():
    def f(doc):
        doc["players"][0]["cerda"] = 11
        all_bonus_rows_taken(doc)
    s = at_build(game(4), {(1, 0): W, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L1", [(1, 0), (2, 0)]))
    assert pl(s, 0).cerda == 11
    assert src(s, 0, "cerda_overflow") == 2 and pl(s, 0).score == 2 + 1


def test_R89_R116_cerda_action_overflow_at_the_top():
    s = at_actions(game(4), 0, 2, fn=lambda doc: doc["players"][0].update(cerda=10))   # horizontal 2 = Cerdà +2
    s.apply(C["A_CERDA"])
    assert pl(s, 0).cerda == 11 and src(s, 0, "cerda_overflow") == 2


def test_R115_R116_A44_steps_back_at_the_bottom_are_lost_then_later_steps_apply():
    def f(doc):
        doc["players"][0]["cerda"] = 0
    s = at_build(game(4), {(1, 0): M, (2, 0): W}, fn=f)
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (2, 0)]))
    s.apply(C["A_SAG_STOP"])
    assert pl(s, 0).cerda == 0

    def g(doc):
        doc["players"][0]["cerda"] = 0
        markers_placed(doc, 0, 1)                            # this marker empties a stack: +1 after the -1
    s = at_build(game(4), {(1, 0): M, (2, 0): W}, fn=g)
    s.apply(build_id("B(1,0)", "L2", [(1, 0), (2, 0)]))
    s.apply(C["A_SAG_STOP"])
    assert pl(s, 0).cerda == 1

    def h(doc):
        doc["players"][0]["cerda"] = 1
    s = at_build(game(4), {(1, 0): U, (2, 0): W, (1, 1): W}, fn=h)
    s.apply(build_id("B(1,0)", "L3", [(1, 0), (2, 0), (1, 1)]))
    s.apply(C["A_SAG_STOP"])
    assert pl(s, 0).cerda == 0


# ---------------------------------------------------------------------------------------------------------
# R117-R121, A36, A37, A38, A45: the Sagrada Família track (driven by the Museu, PS6, and Level-2/3)


def museum(sagrada, fn=None, coins=3, start=None):
    """Seat 0 builds the Museu del Modernisme (+2 Sagrada steps) from crossing (2,1) (vertical 2 = Public
    Service); returns the state at its first Sagrada decision (or wherever it settles)."""
    def f(doc):
        ps_in_play(doc, "MUSEU_MODERNISME")
        doc["players"][0].update(coins=coins, cloth=0, sagrada=sagrada)
        if fn:
            fn(doc)
    s = at_actions(start or game(4), 2, 1, fn=f)
    s.apply(C["A_PS"] + PS["MUSEU_MODERNISME"])
    return s


def test_R117_sagrada_starts_on_the_leftmost_space():
    s = game(4)
    assert [pl(s, p).sagrada for p in range(4)] == [0, 0, 0, 0]
    assert [pl(s, p).sagrada_tiles for p in range(4)] == [(None, None, None)] * 4


def test_R118_each_step_is_optional():
    s = museum(0)
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]
    s.apply(C["A_SAG_STOP"])
    assert pl(s, 0).sagrada == 0
    assert C["A_SAG_STEP"] not in s.legal_actions()          # stopping gives up the remaining step
    assert C["A_END_ACTIONS"] in s.legal_actions()


def test_R119_A45_passing_a_slot_choose_a_tile_of_its_level_before_the_next_step():
    s = museum(1)
    s.apply(C["A_SAG_STEP"])                                 # 1 -> 2 passes the Level-1 slot
    assert pl(s, 0).sagrada == 2
    assert s.legal_actions() == [C["A_SAG_TILE"] + i for i in range(16) if T["sag_level"][i] == 1]
    s.apply(C["A_SAG_TILE"] + T["sag_text"].index("VP6"))
    p = pl(s, 0)
    assert p.sagrada_tiles == (T["sag_text"].index("VP6"), None, None)
    assert src(s, 0, "sagrada") == 6
    assert T["sag_text"].index("VP6") not in s.view().sagrada_offer
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]   # then the second step
    s.apply(C["A_SAG_STEP"])
    assert pl(s, 0).sagrada == 3


def test_R119_level2_slot_offers_level2_tiles_and_RES_split_is_free():
    s = museum(3)
    s.apply(C["A_SAG_STEP"])                                 # 3 -> 4 passes the Level-2 slot
    assert s.legal_actions() == [C["A_SAG_TILE"] + i for i in range(16) if T["sag_level"][i] == 2]
    s.apply(C["A_SAG_TILE"] + T["sag_text"].index("RES4"))
    assert s.legal_actions() == [C["A_RES"] + k for k in range(5)]
    s.apply(C["A_RES"] + 1)                                  # 1 Coin, 3 Cloth
    p = pl(s, 0)
    assert (p.coins, p.cloth) == (1, 3)


def test_R119_RES_split_other_choices():
    for k in range(4):
        s = museum(1)
        s.apply(C["A_SAG_STEP"])
        s.apply(C["A_SAG_TILE"] + T["sag_text"].index("RES3"))
        s.apply(C["A_RES"] + k)
        assert (pl(s, 0).coins, pl(s, 0).cloth) == (k, 3 - k)


def test_A36_empty_level_leaves_the_slot_empty_but_the_marker_moves(tmp_path):
    """A36. The default game has more tiles of each level (6, 5, 5) than seats, so no level runs out: an edited
    edition has three Level-1 tiles (the other three are Level 2), and seats 1-3 have taken them."""
    ed = json.loads(json.dumps(ED.raw))
    level = ed["sagrada_tiles"]
    level["1"], level["2"] = level["1"][:3], level["2"] + level["1"][3:]     # still 16 tiles (R2)
    path = tmp_path / "three-level-1-tiles.json"
    path.write_text(json.dumps(ed))

    def f(doc):
        for p, tile in zip((1, 2, 3), ed["sagrada_tiles"]["1"]):   # every Level-1 tile taken
            doc["players"][p]["sagrada_tiles"][0] = tile
            doc["players"][p]["sagrada"] = 2
    s = museum(1, fn=f, start=new_game(4, seed=0, setup="printed", edition=str(path)))
    s.apply(C["A_SAG_STEP"])
    assert pl(s, 0).sagrada == 2 and pl(s, 0).sagrada_tiles == (None, None, None)
    assert s.legal_actions() == [C["A_SAG_STEP"], C["A_SAG_STOP"]]
    assert src(s, 0, "sagrada") == 0


def test_A36_steps_past_the_last_space_are_lost():
    s = museum(7)
    assert pl(s, 0).sagrada == 7 and C["A_SAG_STEP"] not in s.legal_actions()
    s = museum(6)
    s.apply(C["A_SAG_STEP"])                                 # 6 -> 7 passes the Level-3 slot
    assert s.legal_actions() == [C["A_SAG_TILE"] + i for i in range(16) if T["sag_level"][i] == 3]
    s.apply(C["A_SAG_TILE"] + T["sag_text"].index("VP15"))
    assert pl(s, 0).sagrada == 7 and src(s, 0, "sagrada") == 15
    assert C["A_SAG_STEP"] not in s.legal_actions()          # the second step is lost


def test_R119_tile_taken_leaves_the_shared_offer():
    s = museum(1)
    s.apply(C["A_SAG_STEP"])
    t = T["sag_text"].index("CERDA2")
    s.apply(C["A_SAG_TILE"] + t)
    assert pl(s, 0).cerda == START + 2 + 2                # PS +2, tile +2
    s.apply(C["A_SAG_STOP"])

    def f(doc):
        doc["players"][1].update(sagrada=1, coins=3)
    s = at_actions(s, 2, 1, player=1, fn=f)
    s.apply(C["A_PS"] + PS["MUSEU_MODERNISME"])
    s.apply(C["A_SAG_STEP"])
    assert C["A_SAG_TILE"] + t not in s.legal_actions()
    assert len(s.legal_actions()) == 5


# ---------------------------------------------------------------------------------------------------------
# R76-R79, R18: Public Services


def ps_ids(s):
    return {a - C["A_PS"] for a in s.legal_actions() if C["A_PS"] <= a < C["A_TRAM"]}


def test_R76_R77_costs_and_vp_in_stack_order_then_empty_R79():
    def f(doc):
        ps_in_play(doc, "SANT_ANTONI", "UNIVERSITAT")
        for p in range(4):
            doc["players"][p].update(coins=4, cloth=0)
    s = at_actions(game(4), 2, 1, fn=f)
    t = PS["SANT_ANTONI"]
    for p, (cost, vp) in enumerate([(3, 10), (2, 6), (1, 3)]):
        s = at_actions(s, 2, 1, player=p)
        assert t in ps_ids(s)
        s.apply(C["A_PS"] + t)
        q = pl(s, p)
        assert q.coins == 4 - cost and q.score == vp and q.cerda == START + 2
        assert src(s, p, "public_services") == vp
        assert q.public_services == (t,)
        assert s.view().public_services_left[t] == 2 - p
    s = at_actions(s, 2, 1, player=3)
    assert t not in ps_ids(s) and PS["UNIVERSITAT"] in ps_ids(s)   # R79: that stack is empty


def test_R76_same_type_never_twice_and_cost_must_be_paid():
    def f(doc):
        ps_in_play(doc, *T["ps_names"][:5])
        ps_built(doc, T["ps_names"][0], 0)
        ps_built(doc, T["ps_names"][1], 1)
        doc["players"][0]["coins"] = 2
    s = at_actions(game(4), 2, 1, fn=f)
    # type 0 built already; types 2-4 cost 3 (> 2 coins); type 1's top tile costs 2; 5, 6 not in play
    assert ps_ids(s) == {1}

    def g(doc):
        doc["players"][0]["coins"] = 3
    s = edit(s, g)
    assert ps_ids(s) == {1, 2, 3, 4}


def test_R18_two_players_only_the_3_and_2_coin_tiles():
    s = game(2)
    left = s.view().public_services_left
    assert left.count(None) == 2 and sorted(x for x in left if x is not None) == [2] * 5
    t = PS["SANT_ANTONI"]
    assert left[t] == 2                                      # in play with this seed

    def f(doc):
        doc["players"][0].update(coins=4, cloth=0)
        doc["players"][1].update(coins=4, cloth=0)
    s = at_actions(s, 2, 1, fn=f)
    s.apply(C["A_PS"] + t)
    assert pl(s, 0).score == 10 and pl(s, 0).coins == 1
    s = at_actions(s, 2, 1, player=1)
    s.apply(C["A_PS"] + t)
    assert pl(s, 1).score == 6 and pl(s, 1).coins == 2
    assert s.view().public_services_left[t] == 0               # the two tiles were all (R79: empty, gone)
    s = at_actions(s, 2, 1, player=0, fn=lambda doc: doc["players"][0].update(coins=4))
    assert t not in ps_ids(s)


def _ps(t, fn=None, coins=3, cloth=0):
    def f(doc):
        ps_in_play(doc, t)
        doc["players"][0].update(coins=coins, cloth=cloth)
        if fn:
            fn(doc)
    s = at_actions(game(4), 2, 1, fn=f)
    s.apply(C["A_PS"] + PS[t])
    return s


def _markers(doc, stacks):
    for name, stack in stacks.items():
        building(doc, name, 4 if name[0] in "NS" else len(stack), stack)


def test_PS1_A28_one_cloth_per_block_with_a_marker():
    s = _ps("SANT_ANTONI", fn=lambda doc: _markers(doc, {"NE(0)": [0], "SW(0)": [0], "B(1,0)": [0, 1],
                                                          "B(3,2)": [2]}))
    p = pl(s, 0)
    assert (p.coins, p.cloth) == (0, 2)               # block 0 once, block 1 (covered marker counts)
    assert p.score == 10 and p.cerda == START + 2


def test_PS1_A35_cloth_beyond_the_warehouse_returns_to_the_supply():
    s = _ps("SANT_ANTONI", cloth=1, fn=lambda doc: _markers(doc, {"B(1,0)": [0], "B(2,0)": [0], "B(3,0)": [0],
                                                                   "B(0,1)": [0]}))
    p = pl(s, 0)
    assert (p.coins, p.cloth) == (0, 4)               # capacity 4: 1 + 4 -> 4
    assert s.current_player() == 0 and C["A_END_ACTIONS"] in s.legal_actions()


def test_PS2_A20_tram_move_passenger_coin_cost_waived_cloth_still_due():
    s = _ps("ESTACIO_FRANCA", fn=lambda doc: passenger(doc, 0, "H(3,4)"))   # 2nd Passenger: 1 Coin
    acts = s.legal_actions()
    assert C["A_SKIP"] in acts and C["A_TRAM"] + space("V(3,2)") in acts
    s.apply(C["A_TRAM"] + space("V(3,2)"))
    assert pl(s, 0).coins == 0
    assert s.legal_actions() == [C["A_PASSENGER"], C["A_SKIP"]]
    s.apply(C["A_PASSENGER"])
    assert pl(s, 0).passengers == 2 and pl(s, 0).coins == 0
    assert s.view().passengers[space("V(3,2)")] == 0
    # 3rd Passenger costs 1 Coin + 1 Cloth: the Cloth is still due (A20)
    s = _ps("ESTACIO_FRANCA", fn=lambda doc: passenger(doc, 0, "H(3,4)", "H(2,4)"))
    s.apply(C["A_TRAM"] + space("V(3,2)"))
    assert C["A_PASSENGER"] not in s.legal_actions() and pl(s, 0).tram == space("V(3,2)")


def test_PS3_intersection_with_every_coin_cost_ignored():
    s = _ps("HOSPITAL_SANT_PAU", fn=lambda doc: (intersection(doc, 0, 4, 0), intersection(doc, 4, 0, 0)))
    #                                                                                  3rd slot costs 2
    assert C["A_INTERSECTION"] + cross(1, 1) in s.legal_actions()               # crossing costs 1 more
    s.apply(C["A_INTERSECTION"] + cross(1, 1))
    p = pl(s, 0)
    assert p.intersections == 3 and s.view().intersections[cross(1, 1)] == 0
    assert p.coins == 0 + 2                                # nothing paid; V(1,1) and D(0) give a Coin each
    assert p.cerda == START + 2 + 2                        # PS +2; H(0,1) and D(1) +1 each


def test_PS4_one_wide_or_two_narrow():
    s = _ps("LLUIS_COMPANYS")
    acts = set(s.legal_actions())
    assert C["A_STREET"] + space("V(2,0)") in acts and C["A_STREET"] + space("V(1,0)") in acts
    assert C["A_SKIP"] in acts
    s.apply(C["A_STREET"] + space("V(1,1)"))                 # narrow, COIN1: +1 coin, run 1
    assert s.legal_actions() == sorted(C["A_STREET"] + x for x in range(44)
                                       if not T["space_wide"][x] and x != space("V(1,1)"))
    s.apply(C["A_STREET"] + space("V(1,0)"))                 # run of 2: +2
    p = pl(s, 0)
    assert p.narrow_laid == 2 and p.score == 10 + 1 + 2 and p.coins == 1
    s = _ps("LLUIS_COMPANYS")
    s.apply(C["A_STREET"] + space("V(2,0)"))                 # wide, VP3: +3, run 1 x2
    p = pl(s, 0)
    assert p.wide_laid == 1 and p.narrow_laid == 0 and p.score == 10 + 3 + 2
    assert C["A_END_ACTIONS"] in s.legal_actions()


def test_PS5_cobblestone_anywhere_with_its_benefit():
    s = _ps("UNIVERSITAT")
    acts = set(s.legal_actions())
    assert C["A_COBBLE"] + 0 in acts                         # row 0 col 0: not adjacent to anything
    s.apply(C["A_COBBLE"] + 0)                               # VP5
    p = pl(s, 0)
    assert p.cobblestones == 1 and src(s, 0, "sidewalk") == 5 and p.score == 15


def test_PS6_two_sagrada_steps():
    s = museum(0)
    s.apply(C["A_SAG_STEP"])
    s.apply(C["A_SAG_STEP"])
    s.apply(C["A_SAG_TILE"] + T["sag_text"].index("VP6"))
    p = pl(s, 0)
    assert p.sagrada == 2 and p.score == 10 + 6 and p.cerda == START + 2
    assert C["A_SAG_STEP"] not in s.legal_actions()


def test_PS7_take_a_modernisme_tile_cloth_cost_ignored():
    s = _ps("PAVELLO_OPERACIONS")
    t = min(s.view().modernisme_display)
    assert C["A_MOD_TAKE"] + t * 5 + 4 in s.legal_actions()   # rightmost space costs 2 Cloth; we have 0
    s.apply(C["A_MOD_TAKE"] + t * 5 + 4)
    assert pl(s, 0).modernisme[4] == t and pl(s, 0).cloth == 0
    assert s.is_chance_node()                                # the display refills (R73)


def test_A34_public_service_with_an_unusable_benefit_is_still_built():
    s = _ps("UNIVERSITAT", fn=lambda doc: cobblestones(doc, 0, 6))
    p = pl(s, 0)
    assert p.score == 10 and p.cerda == START + 2 and p.coins == 0
    # nothing is granted, and with no Cobblestone the crossing's other action is impossible too: turn goes on
    six = sum(1 << (int(x[1]) * 6 + int(x[3])) for x in SPARE_SIDEWALK[:6])     # "r<row>c<col>"
    assert s.is_chance_node() and all(C["A_DRAW"] <= a < A_REVEAL for a in s.legal_actions())   # its draws
    chance_all(s)
    assert s.current_player() == 1 and mask(s.view().sidewalk) == T["side_pre"] | six

    def full_projects(doc):
        ps_in_play(doc, "PAVELLO_OPERACIONS")
        doc["players"][0]["coins"] = 3
        projects(doc, 0, ["SC01", "SC02", "SC03", "SC05", "SC07"])   # no empty project space
    s = at_actions(game(4), 2, 1, fn=full_projects)
    assert PS["PAVELLO_OPERACIONS"] in ps_ids(s)
    s.apply(C["A_PS"] + PS["PAVELLO_OPERACIONS"])
    assert pl(s, 0).score == 10 and C["A_END_ACTIONS"] in s.legal_actions()


# ---------------------------------------------------------------------------------------------------------
# SC01-SC19: the scoring conditions (condition_count), and how a Cerdà tile scores them


def board(fn):
    return edit(game(4), fn)


def test_SC01_block_line_longest_row_or_column():
    s = board(lambda doc: _markers(doc, {"NE(0)": [0], "B(1,0)": [1, 0], "B(2,0)": [0],
                                         "B(0,1)": [0], "B(0,2)": [0], "B(0,3)": [0]}))
    assert s.condition_count("SC01", 0) == 4                 # column 0: blocks (0,0)..(0,3)
    s = board(lambda doc: _markers(doc, {"NE(0)": [0], "B(1,0)": [1, 0], "B(2,0)": [0], "B(0,2)": [0]}))
    assert s.condition_count("SC01", 0) == 3                 # row 0
    s = board(lambda doc: _markers(doc, {"NE(0)": [0], "B(2,0)": [0], "NE(1)": [0]}))
    assert s.condition_count("SC01", 0) == 1                 # no two in a straight unbroken line
    assert s.condition_count("SC01", 1) == 0


def test_SC02_SC03_cloth_and_coins_max_5():
    s = board(lambda doc: (doc["players"][0].update(cloth=7, coins=3), warehouse_room(doc, 0)))
    assert s.condition_count("SC02", 0) == 5 and s.condition_count("SC03", 0) == 3
    s = board(lambda doc: (doc["players"][0].update(cloth=2, coins=6), warehouse_room(doc, 0)))
    assert s.condition_count("SC02", 0) == 2 and s.condition_count("SC03", 0) == 5


def _streets(doc, owners):
    for name, p in owners.items():
        own(doc, p, name)


def test_SC04_narrow_line_own_contiguous_on_one_orthogonal_street():
    s = board(lambda doc: _streets(doc, {"V(0,0)": 0, "V(0,1)": 0, "V(0,2)": 0, "H(0,0)": 0, "H(1,0)": 0}))
    assert s.condition_count("SC04", 0) == 3
    s = board(lambda doc: _streets(doc, {"V(0,0)": 0, "V(0,1)": 1, "V(0,2)": 0, "V(0,3)": 0, "H(0,0)": 0}))
    assert s.condition_count("SC04", 0) == 2 and s.condition_count("SC04", 1) == 1
    s = board(lambda doc: _streets(doc, {"V(2,0)": 0, "V(2,1)": 0}))   # wide tiles are not Narrow
    assert s.condition_count("SC04", 0) == 0


def test_SC05_own_intersections_touching_3_buildings():
    def f(doc):
        _markers(doc, {"B(1,0)": [1], "B(2,0)": [2], "B(2,1)": [3]})
        intersection(doc, 2, 1, 0)                           # touches B(1,0), B(2,0), NE(1), B(2,1)
        intersection(doc, 1, 0, 0)                           # touches NE(0), B(1,0)
        intersection(doc, 2, 0, 1)                           # touches B(1,0), B(2,0): 2 only
    s = board(f)
    assert s.condition_count("SC05", 0) == 1 and s.condition_count("SC05", 1) == 0


def test_SC06_cerda_multiplier_and_its_tile_scores_2_m_m():
    for idx in (1, 3, 7, 9, 11):
        s = board(lambda doc: doc["players"][0].update(cerda=idx))
        assert s.condition_count("SC06", 0) == MULT[idx]

    def f(doc):
        doc["players"][2]["cerda"] = 9
    s, a = scoring_turn(0, fn=f, tiles=["SC06", "SC03", "SC02"])
    s.apply(a)
    assert src(s, 2, "cerda_scoring") == 2 * 3 * 3
    assert src(s, 1, "cerda_scoring") == 2 * 1 * 1


def test_SC07_wide_line_diagonal_counts():
    s = board(lambda doc: _streets(doc, {"D(0)": 0, "D(1)": 0, "D(2)": 0, "V(2,0)": 0, "V(2,1)": 0}))
    assert s.condition_count("SC07", 0) == 3
    s = board(lambda doc: _streets(doc, {"V(1,0)": 0, "V(1,1)": 0, "H(0,2)": 0}))
    assert s.condition_count("SC07", 0) == 1


def test_SC08_SC09_SC11_SC13_SC14_SC15_SC18_simple_counts():
    def f(doc):
        ps_in_play(doc, *T["ps_names"][:5])
        for ty in (0, 1, 3):                                 # three Public Services
            ps_built(doc, T["ps_names"][ty], 0)
        own(doc, 0, "V(0,0)", "V(0,1)", "V(0,2)", "V(0,3)", "H(0,0)", "H(1,0)", "H(3,0)")   # 7 Narrow
        own(doc, 0, "V(2,0)", "V(2,1)", "D(3)")                                          # 3 Wide
        passenger(doc, 0, "H(0,4)", "H(1,4)", "H(2,4)", "H(3,4)")
        cobblestones(doc, 0, 5)
        intersection(doc, 0, 4, 0)
        intersection(doc, 4, 0, 0)
        projects(doc, 0, [None, "SC07", None, "SC10", "SC13"])
    s = board(f)
    assert (pl(s, 0).narrow_laid, pl(s, 0).wide_laid) == (7, 3)
    assert [s.condition_count(c, 0) for c in ("SC08", "SC09", "SC11", "SC13", "SC14", "SC15", "SC18")] == \
        [3, 7, 3, 4, 5, 2, 3]
    assert [s.condition_count(c, 1) for c in ("SC08", "SC09", "SC11", "SC13", "SC14", "SC15", "SC18")] == \
        [0] * 7


def test_SC10_own_passengers_on_spaces_touching_2_buildings():
    def f(doc):
        _markers(doc, {"NE(0)": [1], "SW(0)": [1], "B(1,0)": [2]})
        passenger(doc, 0, "D(0)")                            # between NE(0) and SW(0)
        passenger(doc, 0, "V(1,0)")                          # NE(0) and B(1,0)
        passenger(doc, 0, "H(0,1)")                          # SW(0) and B(0,1) (empty)
        passenger(doc, 1, "V(1,1)")                          # B(0,1) and SW(1), both empty
    s = board(f)
    assert s.condition_count("SC10", 0) == 2
    assert s.condition_count("SC10", 1) == 0


def test_SC12_modernisme_markers_at_the_top():
    s = board(lambda doc: projects(doc, 0, up=[1, 0, 1, 1, 0]))
    assert s.condition_count("SC12", 0) == 3 and s.condition_count("SC12", 1) == 0


@pytest.mark.parametrize("markers,empty", [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (6, 3), (7, 4), (8, 5)])
def test_SC16_empty_marker_stacks(markers, empty):
    s = board(lambda doc: markers_placed(doc, 0, markers))
    assert s.condition_count("SC16", 0) == empty


def test_SC17_own_corners_one_per_block():
    s = board(lambda doc: _markers(doc, {"NE(0)": [0], "SW(0)": [0], "NE(2)": [0], "SW(3)": [1],
                                         "B(1,0)": [0]}))
    assert s.condition_count("SC17", 0) == 2 and s.condition_count("SC17", 1) == 1


def test_SC19_own_bottom_markers_on_non_corner_buildings():
    s = board(lambda doc: _markers(doc, {"B(1,0)": [0, 1], "B(2,0)": [1, 0], "B(3,0)": [0],
                                         "NE(0)": [0]}))
    assert s.condition_count("SC19", 0) == 2 and s.condition_count("SC19", 1) == 1


@pytest.mark.parametrize("name", [n.split()[0] for n in T["cond_names"]])
def test_SC_values_match_the_appendix(name):
    vp = {"SC05": 3, "SC09": 1, "SC10": 3, "SC16": 3, "SC17": 3}.get(name, 2)
    assert T["cond_vp"][cond(name)] == vp


# ---------------------------------------------------------------------------------------------------------
# every condition, and every Cerdà Scoring, in random games against an independent implementation


def _geometry():
    """Building spaces and street spaces rebuilt from their names (rules-inventory §0, §4.1)."""
    def corners(name):
        kind, args = name.split("(")
        nums = [int(x) for x in args.rstrip(")").split(",")]
        if kind == "B":
            i, j = nums
            return (i, j), {(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)}
        k = nums[0]
        if kind == "NE":
            return (k, k), {(k, k), (k + 1, k), (k + 1, k + 1)}
        return (k, k), {(k, k), (k, k + 1), (k + 1, k + 1)}
    bspaces = [corners(n) for n in T["bs_names"]]
    streets = {}
    ends = {}
    for c in range(5):
        for r in range(4):
            streets.setdefault(("V", c), []).append(c * 4 + r)
            ends[c * 4 + r] = {(c, r), (c, r + 1)}
    for r in range(5):
        for c in range(4):
            streets.setdefault(("H", r), []).append(20 + r * 4 + c)
            ends[20 + r * 4 + c] = {(c, r), (c + 1, r)}
    for k in range(4):
        streets.setdefault(("D", 0), []).append(40 + k)
        ends[40 + k] = {(k, k), (k + 1, k + 1)}
    wide = {space(x) for x in ED_RAW["streets"]["wide"]}
    return bspaces, streets, ends, wide


ED_RAW = ED.raw


def oracle(v, p, name, geo):
    """How many times seat p fulfils condition `name` in the StateView v, counted independently of the core."""
    bspaces, streets, ends, wide = geo
    P = v.players[p]
    mult = ED_RAW["cerda_track"]["multiplier"][P.cerda]
    stacks = [list(v.building_markers[i]) for i in range(20)]
    built = [v.building_levels[i] > 0 for i in range(20)]

    def line(want_wide, diag):
        best = 0
        for key, sps in streets.items():
            if key[0] == "D" and not diag:
                continue
            run = 0
            for sp in sps:
                run = run + 1 if v.streets[sp] == p and (sp in wide) == want_wide else 0
                best = max(best, run)
        return best

    if name == "SC01":
        blocks = {bspaces[i][0] for i in range(20) if p in stacks[i]}
        best = 0
        for a in range(4):
            for horiz in (True, False):
                run = 0
                for b in range(4):
                    run = run + 1 if ((b, a) if horiz else (a, b)) in blocks else 0
                    best = max(best, run)
        return best
    if name == "SC02":
        return min(P.cloth, 5)
    if name == "SC03":
        return min(P.coins, 5)
    if name == "SC04":
        return line(False, False)
    if name == "SC05":
        return sum(1 for x in range(25) if v.intersections[x] == p
                   and sum(built[i] for i in range(20) if (x % 5, x // 5) in bspaces[i][1]) >= 3)
    if name == "SC06":
        return mult
    if name == "SC07":
        return line(True, True)
    if name == "SC08":
        return len(P.public_services)
    if name == "SC09":
        return sum(1 for sp in range(44) if v.streets[sp] == p and sp not in wide)
    if name == "SC10":
        return sum(1 for sp in range(44) if v.passengers[sp] == p
                   and sum(built[i] for i in range(20) if ends[sp] <= bspaces[i][1]) >= 2)
    if name == "SC11":
        return sum(1 for sp in range(44) if v.streets[sp] == p and sp in wide)
    if name == "SC12":
        return sum(P.modernisme_up)
    if name == "SC13":
        return sum(1 for sp in range(44) if v.passengers[sp] == p)
    if name == "SC14":
        return P.cobblestones
    if name == "SC15":
        return sum(1 for x in range(25) if v.intersections[x] == p)
    if name == "SC16":
        acc, n = 0, 0
        for size in ED_RAW["player_board"]["building_marker_stacks"]:
            acc += size
            n += P.markers_placed >= acc
        return n
    if name == "SC17":
        return len({bspaces[i][0] for i in range(20) if T["bs_names"][i][0] in "NS" and stacks[i][:1] == [p]})
    if name == "SC18":
        return sum(1 for t in P.modernisme if t is not None)
    if name == "SC19":
        return sum(1 for i in range(20) if T["bs_names"][i][0] == "B" and stacks[i][:1] == [p])
    raise KeyError(name)


NAMES = [n.split()[0] for n in T["cond_names"]]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_SC01_SC19_condition_counts_in_random_games(players):
    geo = _geometry()
    for seed in range(8):
        rng = random.Random(1000 + seed)
        s = new_game(players, seed=seed)
        i = 0
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            i += 1
            if i % 5 and not s.is_terminal():
                continue
            v = s.view()
            for p in range(players):
                for name in NAMES:
                    assert s.condition_count(name, p) == oracle(v, p, name, geo), (seed, i, p, name)


def _unscorable(s):
    """A copy of `s` on which no section can score: all three scored, a citizen track filled to its last mark
    (a scored section needs a reached mark, R109); None when the bag has too few citizens of every class.
    Nothing else changes, so the same action moves the same Cerdà markers."""
    v = s.view()
    for k in (U, W, M):
        occupied = sorted(set(v.tracks[k]) | set(range(T["track_mark"][k][2] + 1)))
        added = len(occupied) - len(v.tracks[k])
        if added <= v.bag[k]:
            break
    else:
        return None
    doc = s.to_json()                                        # the whole document: mid-turn counts stay exact
    track(doc, k, occupied, v.tracks_off_board[k])
    doc["bag"][CLASSES[k]] -= added
    scored(doc, 0, 1, 2)
    doc["cerda_scorings_done"] = 3
    doc["turn_state"]["end_triggered"] = True
    return State.from_json(doc)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R107_R108_R110_cerda_scorings_in_random_games(players):
    """Every Cerdà Scoring of a random game, for every player, the active one included: each gains tile VP x
    count x the multiplier of their Cerdà space when the section scores (R107, R108), the reset follows R110,
    two sections in one turn score in order with the reset between (A9). The count is the independent oracle
    above, on the board after the turn (the scoring changes only VP and Cerdà markers). The Cerdà spaces at
    scoring time come from replaying the same action on a copy where no section can score: the active player
    may move on the Cerdà track during that very action (streets, markers, benefits), before the scoring."""
    geo = _geometry()
    resets = T["cerda_reset_mask"]
    checked = active = 0
    for seed in range(10):
        rng = random.Random(2000 + seed)
        s = new_game(players, seed=seed)
        while not s.is_terminal():
            before = s.view()
            a = rng.choice(s.legal_actions())
            twin = _unscorable(s)
            s.apply(a)
            after = s.view()
            if after.cerda_scorings_done == before.cerda_scorings_done or twin is None:
                continue
            twin.apply(a)                                    # the same turn, without the scoring
            cerda = [pl(twin, p).cerda for p in range(players)]
            gained = [0] * players
            n_done = before.cerda_scorings_done
            for sec in range(3):
                if after.cerda_scored[sec] == before.cerda_scored[sec]:
                    continue
                cname = NAMES[after.cerda_tiles[sec]]
                vp = T["cond_vp"][after.cerda_tiles[sec]]
                n_done += 1
                for p in range(players):
                    m = MULT[cerda[p]]
                    n = m if cname == "SC06" else oracle(after, p, cname, geo)
                    gained[p] += vp * n * m
                    if resets >> (n_done - 1) & 1 and cerda[p] > START:
                        cerda[p] = START
            assert n_done == after.cerda_scorings_done
            for p in range(players):
                got = after.players[p].vp_sources[7] - before.players[p].vp_sources[7]      # "cerda_scoring"
                assert got == gained[p], (seed, p, before.turn_player, got, gained[p])
                assert after.players[p].cerda == cerda[p], (seed, p)
                checked += 1
                active += p == before.turn_player
    assert checked > 0 and active > 0
