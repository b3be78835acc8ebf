"""Setup rules R10-R32 (rules-inventory §1.2), with the board data of §4 (data/default.json).

Every test names the rules it checks; each one fails if the engine's setup breaks that rule.
"""
from __future__ import annotations

import pytest

from barcelona_ai import IllegalActionError, PlayerCountError, new_game
from barcelona_ai.rules.tables import ACTION_KINDS

from helpers import (C, ED, T, W, M, U, at_build, build_id, building, citizens, cobblestones, edit, game, hand, mask,
                     markers_placed, place_id, ps_built, ps_in_play)

SEEDS = range(40)
CLASSES = (W, M, U)


def cond_id(name: str) -> int:
    return [n.split()[0] for n in T["cond_names"]].index(name)


def prefill_mask(k: int, players: int) -> int:
    if players == 4:
        return 0
    return T["prefill3"][k] if players == 3 else T["prefill2"][k]


# ---- R10, R19, R20, R21 -------------------------------------------------------------------------------

ROW_BUILDS = {0: ("B(1,0)", [(1, 0), (2, 0)]), 1: ("B(0,1)", [(0, 1), (1, 1)]),
              2: ("B(0,2)", [(0, 2), (1, 2)]), 3: ("B(0,3)", [(0, 3), (1, 3)])}
ROW_ELSEWHERE = {0: "B(3,0)", 1: "B(3,1)", 2: "B(3,2)", 3: "B(2,3)"}      # another block of the row, away


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R10_a_building_bonus_tile_on_each_of_the_4_block_rows(players):
    """R10: "a Building Bonus tile on each of its 4 bonus spaces (one per row of blocks)", 5 VP each (§2.14),
    taken by the first building of its row (R93 step 2). For several seeds and both setups, in each row: a
    Level-1 building earns exactly 5 VP more from the setup as dealt than from the same setup with that row's
    tile gone (taken by an earlier, unmarked building of the row, A25), and the building takes that row's tile
    and no other."""
    assert T["bonus_vp"] == 5 and sorted(set(T["bs_row"])) == [0, 1, 2, 3]
    for seed in (0, 1, 2):
        for setup in ("printed", "random"):
            for row, (name, crossings) in ROW_BUILDS.items():
                gained = []
                for gone in (False, True):
                    def f(doc):
                        if gone:
                            building(doc, ROW_ELSEWHERE[row], "L1")
                    s = at_build(game(players, seed, setup), {c: W for c in crossings}, fn=f)
                    before = s.score_breakdown()[0]["buildings"]
                    s.apply(build_id(name, "L1", crossings))
                    gained.append(s.score_breakdown()[0]["buildings"] - before)
                    assert s.view().bonus_rows_taken == (row,), (seed, setup, row)
                assert gained[0] - gained[1] == T["bonus_vp"], (seed, setup, row, gained)


def test_R10_first_building_in_a_block_row_flips_its_bonus_tile():
    """R10 (R93 step 2): the 4 Building Bonus tiles are in place: the first building of block row 2 takes its
    5 VP (plus the lowest visible track VP, 1)."""
    def f(doc):
        doc["players"][0]["hand"] = hand(2)
        citizens(doc, 0, 2, W)
    s = edit(game(4), f)
    s.apply(place_id(1, 2, W))
    s.apply(C["A_END_ACTIONS"])
    s.apply(build_id("B(0,2)", "L1", [(0, 2), (1, 2)]))
    assert s.view().bonus_rows_taken == (2,)
    assert s.score_breakdown()[0]["buildings"] == 5 + 1


def test_R19_building_tile_stacks_full():
    """R19 (R3): four stacks by type: 8 Corner, 12 Level-1, 8 Level-2, 7 Level-3; the board is empty."""
    v = game(4).view()
    assert v.building_tiles_left == (8, 12, 8, 7)
    assert v.building_levels == (0,) * 20 and v.building_markers == ((),) * 20


def test_R20_sagrada_offer_holds_all_16_tiles():
    """R20: the 16 Sagrada Familia tiles form the shared face-up offer."""
    assert game(4).view().sagrada_offer == tuple(range(16))
    assert sorted(T["sag_level"]) == [1] * 6 + [2] * 5 + [3] * 5


def test_R21_R6_supply_is_unlimited():
    """R21, R6: Coins come from an unlimited general supply: although the other three players already hold 30
    Coins between them, player 0 still gains 2 Coins from Gain 2 Coins."""
    s = game(4)

    def f(doc):
        for p in range(4):
            cobblestones(doc, p, 6)            # Warehouse of 10 spaces
            doc["players"][p].update(cloth=0, coins=10)
        doc["players"][0].update(coins=8, hand=hand(2))
    s = edit(s, f)
    s.apply(place_id(0, 1, W))             # printed vertical 0: Gain 2 Coins
    s.apply(C["A_GAIN_COINS"])
    assert s.view().players[0].coins == 10
    assert sum(pl.coins for pl in s.view().players) == 40


# ---- R11 action tiles ---------------------------------------------------------------------------------

def test_R11_printed_setup_uses_the_printed_actions():
    """R11: in a first game the actions printed under the 11 spaces are used (§4.4)."""
    printed = T["printed_setup"]
    assert [ACTION_KINDS[k] for k in printed] == [
        "GAIN_2_COINS", "BUILD_2_NARROW", "BUILD_PUBLIC_SERVICE", "BUILD_1_WIDE", "GAIN_CLOTH_3VP",
        "TAKE_MODERNISME", "PLACE_COBBLESTONE", "CERDA_PLUS_2", "BUILD_INTERSECTION", "IMPROVE_MODERNISME",
        "MOVE_TRAM"]
    for seed in (0, 1, 17):
        assert list(game(4, seed=seed, setup="printed").view().action_tiles) == printed


def test_R11_random_setup_shuffles_the_11_action_tiles():
    """R11: otherwise the 11 Action tiles are shuffled, one per space: every tile exactly once, and the
    layout depends on the seed (not always the printed one)."""
    layouts = set()
    for seed in SEEDS:
        sa = new_game(4, seed=seed, setup="random").view().action_tiles
        assert sorted(sa) == list(range(11))
        layouts.add(tuple(sa))
    assert len(layouts) > 30


def test_R11_random_setup_actions_are_the_ones_offered():
    """R11: the shuffled tile on a street is the action the crossing offers: a crossing whose vertical
    street carries Gain 2 Coins offers A_GAIN_COINS."""
    for seed in range(10):
        s = new_game(4, seed=seed, setup="random")
        st = s.view().action_tiles.index(0)               # the street carrying GAIN_2_COINS
        if st < 5:
            c, r = st, (st + 1) % 5
        elif st < 10:
            c, r = (st - 5 + 1) % 5, st - 5
        else:
            c, r = 2, 2                                      # diagonal crossing, costs the 1 starting Coin
        hand = s.hand(0)
        s.apply(place_id(c, r, [k for k in CLASSES if hand[k]][0]))
        assert s.current_player() == 0
        assert C["A_GAIN_COINS"] in s.legal_actions()


def test_R11_setup_argument_is_checked():
    with pytest.raises(ValueError):
        new_game(4, seed=0, setup="shuffled")


# ---- R12, R13 citizens -------------------------------------------------------------------------------

@pytest.mark.parametrize("players,per_class", [(4, 0), (3, 3), (2, 6)])
def test_R12_track_prefill_per_player_count(players, per_class):
    """R12: 3 players: a citizen on every space marked 3 (3 per class); 2 players: on every space marked 3 or
    2 (6 per class); 4 players: none. The prefilled spaces are the §4.5 ones."""
    s = game(players, seed=5)
    tracks = s.view().tracks
    for k in CLASSES:
        assert len(tracks[k]) == per_class
        assert mask(tracks[k]) == prefill_mask(k, players)
    firsts = [[first for first, _ in ED.raw["citizen_tracks"][c]["sections"]] for c in ("WORKING", "MIDDLE", "UPPER")]
    if players == 3:                                     # the "3" on each section's first space
        assert tracks[W] == tuple(firsts[W]) and tracks[U] == tuple(firsts[U])
    if players == 2:                                     # and the "2" on its second
        assert tracks[M] == tuple(sorted(firsts[M] + [f + 1 for f in firsts[M]]))
        assert tracks[U] == tuple(sorted(firsts[U] + [f + 1 for f in firsts[U]]))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R12_R13_R5_72_citizens_conserved_and_bag_counts(players):
    """R5, R12, R13: 25/24/23 citizens; the prefilled ones come out of the 72, every other one goes into the
    bag, and 2 per player are drawn into hands (R32)."""
    for seed in range(10):
        v = game(players, seed=seed).view()
        for k, total in zip(CLASSES, (25, 24, 23)):
            hands = sum(v.players[p].hand[k] for p in range(players))
            pre = len(v.tracks[k])
            assert v.bag[k] + hands + pre == total
            assert v.tracks_off_board[k] == 0
        assert sum(v.bag) == 72 - 2 * players - {4: 0, 3: 9, 2: 18}[players]
        assert all(x == () for x in v.crossings)


# ---- R14, R15, R16 Cerdà and Modernisme tiles --------------------------------------------------------

def test_R14_three_distinct_cerda_tiles_drawn_at_random():
    """R14: 3 distinct Cerdà Scoring tiles out of the 14; which ones depends on the seed."""
    seen = set()
    for seed in SEEDS:
        ct = game(4, seed=seed).view().cerda_tiles
        assert len(set(ct)) == 3
        assert all(c in T["cerda_cond"] for c in ct)
        seen.update(ct)
    assert len(seen) >= 10


def test_R15_twins_of_the_cerda_tiles_go_back_to_the_box():
    """R15: the Modernisme tiles matching the 3 Cerdà tiles are in neither stack, display nor discard; all
    other Modernisme tiles are."""
    for seed in SEEDS:
        v = game(4, seed=seed).view()
        in_game = set(v.modernisme_stack) | set(v.modernisme_display) | set(v.modernisme_discard)
        assert v.modernisme_discard == ()
        for t in range(18):
            twin = T["mod_cond"][t] in v.cerda_tiles
            assert (t in in_game) == (not twin), (seed, t)


def test_A33_R15_cerda_tile_SC06_removes_no_modernisme_tile():
    """A33 (R15): SC06 has no Modernisme twin: when it is drawn only 2 tiles are removed (16 remain)."""
    sc06 = cond_id("SC06")
    found = 0
    for seed in range(200):
        v = game(4, seed=seed).view()
        n = len(set(v.modernisme_stack) | set(v.modernisme_display))
        if sc06 in v.cerda_tiles:
            assert n == 16
            found += 1
        else:
            assert n == 15
    assert found > 0


def test_R16_display_of_four_face_up():
    """R16: 4 Modernisme tiles revealed onto the display, the rest stays face down in the stack."""
    for seed in SEEDS:
        v = game(4, seed=seed).view()
        assert len(v.modernisme_display) == 4
        assert not set(v.modernisme_display) & set(v.modernisme_stack)
    displays = {game(4, seed=seed).view().modernisme_display for seed in SEEDS}
    assert len(displays) > 10


# ---- R17, R18 Public Services -----------------------------------------------------------------------

@pytest.mark.parametrize("players,tiles", [(4, 3), (3, 3), (2, 2)])
def test_R17_R18_five_public_service_types_in_play(players, tiles):
    """R17: 5 of the 7 types at random, 3 tiles each (R18: 2 in a 2-player game); the other 2 out of play."""
    chosen = set()
    for seed in SEEDS:
        left = game(players, seed=seed).view().public_services_left
        assert left.count(None) == 2 and sorted(x for x in left if x is not None) == [tiles] * 5
        chosen.add(tuple(i for i in range(7) if left[i] is not None and left[i] > 0))
    assert len(chosen) > 5


def _ps_player(players, ps_type, coins, built_by=()):
    """A game where ps_type is in play, built by the seats `built_by`, and player 0 can build it from crossing
    (2,1) (printed: vertical 2 = Build a Public Service)."""
    s = game(players, seed=1)

    def f(doc):
        name = T["ps_names"][ps_type]
        ps_in_play(doc, name)
        ps_built(doc, name, *built_by)
        doc["players"][0].update(coins=coins, cloth=0, hand=hand(2))
    return edit(s, f)


@pytest.mark.parametrize("players,costs", [(4, [3, 2, 1]), (2, [3, 2])])
def test_R17_R18_stack_order_3_2_1_and_2p_without_cheapest(players, costs):
    """R17: every stack is ordered 3/2/1 coins (10/6/3 VP); R18: in 2p the 1-coin tile is not used, so the
    type runs out after two builds (R79)."""
    t = 0   # SANT_ANTONI (its main benefit gives nothing without markers)
    seen = []
    for i in range(len(costs) + 1):
        builders = list(range(1, players))[:i] + [0] * max(0, i - players + 1)   # 2p: seat 0 is the 2nd
        s = _ps_player(players, t, 4, builders)
        assert s.view().public_services_left[t] == (T["ps_tiles_2p"] if players == 2 else 3) - i
        s.apply(place_id(2, 1, W))
        legal = s.legal_actions()
        if i == len(costs):
            assert C["A_PS"] + t not in legal
            continue
        before = s.view().players[0]
        s.apply(C["A_PS"] + t)
        after = s.view().players[0]
        seen.append((before.coins - after.coins, after.score - before.score))
    assert seen == [(c, {3: 10, 2: 6, 1: 3}[c]) for c in costs]


# ---- R22-R30 player boards ---------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_R22_to_R30_player_boards(players):
    """R22 Sagrada disk leftmost; R23 Modernisme markers at the bottom, no tiles; R24 Tram and 5 Passengers on
    the board; R25 street tiles all on the board; R26 5 Intersections on their slots; R27 1 Coin and 1 Cloth;
    R28 6 Cobblestones in the Warehouse; R29 8 Building markers on the board; R30 score 0, Cerdà marker on
    the start space (index 4, multiplier x1)."""
    v = game(players, seed=2).view()
    for p in range(players):
        pl = v.players[p]
        assert pl.sagrada == 0 and pl.sagrada_tiles == (None,) * 3                 # R22
        assert pl.modernisme_up == (False,) * 5 and pl.modernisme == (None,) * 5    # R23
        assert pl.tram is None and pl.passengers == 0                              # R24
        assert pl.narrow_laid == 0 and pl.wide_laid == 0                           # R25
        assert pl.intersections == 0                                               # R26
        assert (pl.coins, pl.cloth) == (1, 1)                                      # R27
        assert pl.cobblestones == 0                                                # R28
        assert pl.markers_placed == 0                                              # R29
        assert pl.score == 0 and pl.vp_sources == (0,) * 12                        # R30
        assert pl.cerda == 4 and T["cerda_mult"][pl.cerda] == 1                    # R30, §4.6
        assert pl.public_services == () and pl.turns == 0
    assert all(x is None for x in v.passengers + v.streets + v.intersections)
    assert mask(v.sidewalk) == T["side_pre"]


def test_R27_R28_start_warehouse_has_room_for_two_more_tokens():
    """R27, R28 (R45): 1 Coin + 1 Cloth in a Warehouse of 4 free spaces (the 6 others hold Cobblestones):
    Gain 2 Coins fits exactly, a further Coin would overflow."""
    s = edit(game(4), lambda doc: doc["players"][0].update(hand=hand(2)))
    s.apply(place_id(0, 1, W))          # vertical 0: Gain 2 Coins
    s.apply(C["A_GAIN_COINS"])
    pl = s.view().players[0]
    assert (pl.coins, pl.cloth) == (3, 1)
    assert s.view().discard_player is None


def test_R25_street_stacks_4_6_and_5():
    """R25 (R55): the Narrow tiles sit in stacks of 4 and 6 and the Wide ones in one stack of 5: the Cerdà
    bonuses come at the 4th and 10th Narrow tile and at the 5th Wide tile."""
    assert T["narrow_empty_at"][:2] == [4, 10] and T["wide_empty_at"][0] == 5


def test_R29_marker_stacks_2_2_2_1_1():
    """R29: 8 Building markers in stacks of 2, 2, 2, 1, 1 (a stack empties after 2, 4, 6, 7, 8 markers)."""
    assert T["marker_empty_at"] == [2, 4, 6, 7, 8]


@pytest.mark.parametrize("placed,extra", [(0, 0), (1, 1), (2, 0), (5, 1), (6, 1), (7, 1)])
def test_R29_first_marker_stack_holds_two(placed, extra):
    """R29 (R93 step 6): the leftmost stack holds 2 markers: the 2nd marker placed empties it (+1 Cerdà on top
    of the Level-1's own +1), the 1st does not; the single stacks empty with the 7th and 8th marker."""
    def f(doc):
        doc["players"][0]["hand"] = hand(2)
        markers_placed(doc, 0, placed)                       # on Level 3 buildings of block row 3
        citizens(doc, 0, 2, W)
    s = edit(game(4), f)
    s.apply(place_id(1, 2, W))
    s.apply(C["A_END_ACTIONS"])
    s.apply(build_id("B(0,2)", "L1", [(0, 2), (1, 2)]))
    assert s.view().players[0].cerda == 4 + 1 + extra
    assert s.view().players[0].markers_placed == placed + 1


# ---- R31, R32 -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_R31_first_player_is_seat_0(players):
    """R31: the first player (seat 0) decides first."""
    s = game(players, seed=4)
    assert s.current_player() == 0 and s.turn_player == 0
    assert all(a < C["A_INT_PICK"] for a in s.legal_actions())       # a placement (R34 step 1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R32_everyone_draws_two_hidden_citizens(players):
    """R32: each player holds 2 citizens; the owner sees them, the others only see how many (A6)."""
    for seed in range(8):
        s = game(players, seed=seed)
        for p in range(players):
            assert sum(s.hand(p)) == 2
        for viewer in range(players):
            obs = s.observation(viewer)
            for p in range(players):
                if p == viewer:
                    assert obs["pl"][p]["hand"] == list(s.hand(p))
                else:
                    assert obs["pl"][p]["hand"] == [2, -1, -1]


def test_R32_other_hands_do_not_change_what_a_player_observes():
    """R32: swapping player 1's hidden citizens with bag citizens leaves player 0's observation unchanged."""
    s = game(4, seed=9)

    def f(doc):
        h = list(s.hand(1))
        k = h.index(max(h))
        o = next(x for x in CLASSES if x != k and s.view().bag[x] > 0)
        h[k] -= 1                                            # the bag takes the other one back
        h[o] += 1
        doc["players"][1]["hand"] = hand(*h)
    t = edit(s, f)
    assert t.hash() != s.hash()
    assert t.observation_hash(0) == s.observation_hash(0)
    assert t.observation_hash(1) != s.observation_hash(1)


# ---- determinism, player count -----------------------------------------------------------------------

@pytest.mark.parametrize("setup", ["random", "printed"])
def test_setup_is_determined_by_the_seed(setup):
    """R10-R32: every random setup choice comes from the seed: same seed, same state; other seeds differ."""
    for n in (2, 3, 4):
        a = new_game(n, seed=123, setup=setup)
        b = new_game(n, seed=123, setup=setup)
        assert a.hash() == b.hash() and a.view() == b.view()
        hashes = {new_game(n, seed=sd, setup=setup).hash() for sd in range(20)}
        assert len(hashes) == 20


@pytest.mark.parametrize("bad", [1, 5, 0, -2, "4", 4.0, None, True])
def test_player_count_error(bad):
    """R1-R4 / scope: 2 to 4 players; anything else raises PlayerCountError (a ValueError)."""
    with pytest.raises(PlayerCountError):
        new_game(players=bad, seed=0)
    assert issubclass(PlayerCountError, ValueError)


def test_setup_then_illegal_action_leaves_state_unchanged():
    """The first decision is a placement: an action id of another step is refused, state unchanged."""
    s = game(4)
    h = s.hash()
    for a in (C["A_END_ACTIONS"], C["A_GAIN_COINS"], C["A_SKIP"], C["A_DRAW"], -1, C["NUM_ACTIONS"]):
        with pytest.raises(IllegalActionError):
            s.apply(a)
        assert s.hash() == h
