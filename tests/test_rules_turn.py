"""Turn structure and placing citizens: R33-R41 and rulings A1-A3, A7, A21-A24, A46 (rules-inventory §1.3,
§1.4, §5). Positions are printed-setup games (§4.4) edited as position documents (tests/helpers.py), then played
with real actions.

Printed action tiles: vertical 0 Gain 2 Coins, 1 Build 2 Narrow, 2 Public Service, 3 Build 1 Wide,
4 Gain Cloth+3VP; horizontal 0 Take Modernisme, 1 Cobblestone, 2 Cerdà +2, 3 Intersection, 4 Improve
Modernisme; diagonal Move Tram. Crossing costs: 1 Coin on the diagonal, 0 elsewhere (§4.2).
"""
from __future__ import annotations

import pytest


from helpers import (C, T, W, M, U, build_id, citizens, cross, edit, every_block_built, fill_crossings, game, hand,
                     intersection, legal, mask, pl, place_id, refused, scored, space, street_id, track)

A_END = C["A_END_ACTIONS"]
A_SKIP = C["A_SKIP"]
A_DONE = C["A_INT_DONE"]
PICK = C["A_INT_PICK"]
CHANCE = C["CHANCE"]






def frames(s):
    return list(s.view().frames)


def start(players=4, fn=None, seed=0):
    s = game(players, seed=seed, setup="printed")
    if fn is not None:
        s = edit(s, fn)
    return s


def set_hand(doc, p, classes):
    h = [0, 0, 0]
    for k in classes:
        h[k] += 1
    doc["players"][p]["hand"] = hand(*h)


NO_TILES = {"CORNER": 8, "L1": 0, "L2": 0, "L3": 0}    # no Level tile left; the Corners need two citizens of
#                                                        a corner triangle, which these tests never place


def draw_chance(s):
    """Resolve chance nodes with their first outcome."""
    while s.is_chance_node():
        s.apply(s.legal_actions()[0])


def is_place(a):
    return C["A_PLACE"] <= a < C["A_INT_PICK"]


def is_build(a):
    return C["A_BUILD"] <= a < C["A_DRAW"]


def play_quiet_turn(s, c, r):
    """Place on (c,r) (top = lowest class held), take no action, no construction, draw."""
    p = s.current_player()
    top = next(k for k in (W, M, U) if pl(s, p).hand[k])
    s.apply(place_id(c, r, top))
    if A_END in legal(s):
        s.apply(A_END)
    assert not any(is_build(a) for a in s.legal_actions())
    draw_chance(s)


# ---- R33 rounds --------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_R33_turns_go_clockwise_from_the_first_player(players):
    """R33: one turn per player, clockwise (seat order) from the first player, round after round."""
    s = start(players, lambda d: d.update(building_tiles_left=NO_TILES))   # no construction possible
    spots = [(0, 3), (2, 3), (4, 3), (2, 0), (0, 1), (4, 1), (1, 4), (3, 4)]
    seats = []
    for i in range(2 * players):
        seats.append(s.current_player())
        play_quiet_turn(s, *spots[i])
    assert seats == [i % players for i in range(2 * players)]
    assert [pl(s, p).turns for p in range(players)] == [2] * players


# ---- R34 step order, A7 ------------------------------------------------------------------------------

def _build_ready():
    """Player 0 holds W,W; (0,2) already holds a Working citizen, so placing on (1,2) allows a Level-1 on
    B(0,2) or B(0,1) (R95)."""
    def f(d):
        set_hand(d, 0, [W, W])
        citizens(d, 0, 2, W)
    return start(4, f)


def test_R34_A7_step_order_place_actions_build_check_draw():
    """R34: (1) place, actions optional; (2) construct (compulsory, A4); (3) Cerdà check; (4) draw 2.
    A7: ending the actions at once (0 actions) is legal; construction is then compulsory."""
    s = _build_ready()
    s.apply(place_id(1, 2, W))
    assert s.phase == C["PH_ACTIONS"] and s.current_player() == 0
    la = legal(s)
    assert A_END in la and C["A_GAIN_COINS"] not in la          # (1,2): vertical 1 Narrow, horizontal 2 Cerdà
    assert C["A_CERDA"] in la and street_id("V(1,0)") in la
    s.apply(A_END)                                               # A7: no action at all
    assert s.phase == C["PH_BUILD"] and s.current_player() == 0
    la = s.legal_actions()
    assert la and all(is_build(a) for a in la)                   # compulsory: no skip, no end
    refused(s, A_END)
    refused(s, A_SKIP)
    assert pl(s, 0).hand == (0, 0, 0)                         # nothing drawn before the construction
    s.apply(build_id("B(0,2)", "L1", [(0, 2), (1, 2)]))
    assert 0 in s.view().tracks[W]                              # citizen moved to its track in step 2
    assert s.is_chance_node() and s.phase == C["PH_DRAW"]
    draw_chance(s)
    assert sum(pl(s, 0).hand) == 2 and s.current_player() == 1


def test_A7_end_actions_without_construction_passes_the_turn():
    """A7: a turn with no action and no possible construction: END goes straight to the draws."""
    s = start(4, lambda d: set_hand(d, 0, [M, U]))
    s.apply(place_id(3, 0, U))
    s.apply(A_END)
    assert s.is_chance_node()
    draw_chance(s)
    assert s.current_player() == 1 and pl(s, 0).turns == 1


# ---- R35, R36 ----------------------------------------------------------------------------------------

def test_R35_action_that_cannot_be_paid_is_not_offered():
    """R35: with 0 Coins a Public Service (vertical 2) is not offered, nor is a costly crossing."""
    def f(d):
        set_hand(d, 0, [W, W])
        d["players"][0]["coins"] = 0
    s = start(4, f)
    assert place_id(1, 1, W) not in legal(s)
    s.apply(place_id(2, 1, W))                     # vertical 2: Public Service, horizontal 1: Cobblestone
    assert not any(C["A_PS"] <= a < C["A_TRAM"] for a in s.legal_actions())
    assert any(C["A_COBBLE"] <= a < C["A_STREET"] for a in s.legal_actions())
    refused(s, C["A_PS"] + next(t for t, n in enumerate(s.view().public_services_left) if n is not None and n > 0))


def test_R36_finish_one_action_before_starting_another():
    """R36: between the two Narrow tiles of Build 2 Narrow no other action (and no END) can start."""
    s = start(4, lambda d: set_hand(d, 0, [W, W]))
    s.apply(place_id(1, 2, W))                     # vertical 1: Build 2 Narrow; horizontal 2: Cerdà +2
    s.apply(street_id("V(1,0)"))
    la = legal(s)
    assert la and all(C["A_STREET"] <= a < C["A_INTERSECTION"] for a in la)
    assert all(not T["space_wide"][a - C["A_STREET"]] for a in la)
    refused(s, C["A_CERDA"])
    refused(s, A_END)
    s.apply(street_id("V(1,3)"))
    assert C["A_CERDA"] in legal(s)


# ---- R37-R40 placing -----------------------------------------------------------------------------------

def test_R37_only_empty_crossings_and_stacking_order_chosen():
    """R37: both citizens go on one crossing without citizens, in the order the player chooses (top one
    named by the id); a crossing holding citizens is refused."""
    def f(d):
        set_hand(d, 0, [W, U])
        citizens(d, 2, 0, M)
        citizens(d, 3, 0, M, W)
    s = start(4, f)
    la = legal(s)
    for c in range(25):
        occupied = c in (cross(2, 0), cross(3, 0))
        for k in (W, U):
            assert (C["A_PLACE"] + c * 3 + k in la) == (not occupied)
        assert C["A_PLACE"] + c * 3 + M not in la                  # not held
    refused(s, place_id(2, 0, W))
    refused(s, place_id(3, 0, U))
    t = s.clone()
    s.apply(place_id(4, 1, U))
    assert s.view().crossings[cross(4, 1)] == (W, U)
    t.apply(place_id(4, 1, W))
    assert t.view().crossings[cross(4, 1)] == (U, W)
    assert pl(s, 0).hand == (0, 0, 0)


def test_R38_printed_cost_paid_first_and_income_cannot_fund_it():
    """R38: the diagonal crossings cost 1 Coin, paid on placement; with 0 Coins they cannot be chosen even
    though (0,0) would offer Gain 2 Coins."""
    s = start(4, lambda d: set_hand(d, 0, [W, W]))
    assert pl(s, 0).coins == 1
    s.apply(place_id(0, 0, W))
    assert pl(s, 0).coins == 0
    s2 = start(4, lambda d: (set_hand(d, 0, [W, W]), d["players"][0].update(coins=0)))
    la = legal(s2)
    for k in range(5):
        assert place_id(k, k, W) not in la
        refused(s2, place_id(k, k, W))
    assert place_id(1, 0, W) in la and place_id(0, 1, W) in la


def test_R39_only_the_crossings_streets_each_at_most_once():
    """R39: a crossing offers its vertical and horizontal street's actions, plus the diagonal's on the
    diagonal; each at most once, in any order."""
    def f(d):
        set_hand(d, 0, [W, W])
        d["players"][0]["coins"] = 2
    s = start(4, f)
    s.apply(place_id(1, 1, W))                  # vertical 1 Narrow, horizontal 1 Cobblestone, diagonal Tram
    la = legal(s)
    kinds = {"narrow": any(C["A_STREET"] <= a < C["A_INTERSECTION"] for a in la),
             "cobble": any(C["A_COBBLE"] <= a < C["A_STREET"] for a in la),
             "tram": any(C["A_TRAM"] <= a < C["A_PASSENGER"] for a in la)}
    assert all(kinds.values())
    assert C["A_GAIN_COINS"] not in la and C["A_CERDA"] not in la
    assert not any(C["A_INTERSECTION"] <= a < C["A_MOD_IMPROVE"] for a in la)
    assert not any(C["A_STREET"] + sp in la for sp in range(44) if T["space_wide"][sp])   # not Build Wide
    s.apply(C["A_COBBLE"] + 9)                  # Sidewalk row 1 col 3, next to the printed ones
    la = legal(s)
    assert not any(C["A_COBBLE"] <= a < C["A_STREET"] for a in la)
    refused(s, C["A_COBBLE"] + 8)
    s.apply(C["A_TRAM"] + space("V(4,3)"))     # first placement anywhere
    assert legal(s) == {C["A_PASSENGER"], A_SKIP}
    s.apply(A_SKIP)
    la = legal(s)
    assert not any(C["A_TRAM"] <= a < C["A_PASSENGER"] for a in la)
    assert A_END in la
    s.apply(street_id("V(1,0)"))
    s.apply(street_id("V(1,3)"))
    # all three streets used: the actions step is over by itself; no construction -> draws
    assert s.phase == C["PH_DRAW"] and s.is_chance_node()
    # a non-diagonal crossing: no Tram
    s2 = start(4, lambda d: set_hand(d, 0, [W, W]))
    s2.apply(place_id(1, 2, W))
    assert not any(C["A_TRAM"] <= a < C["A_PASSENGER"] for a in s2.legal_actions())


def test_R40_A24_intersection_waives_the_crossing_cost():
    """R40, A24: on a crossing covered by anyone's Intersection the placer pays no printed cost; with 0 Coins
    that crossing becomes legal."""
    def f(d):
        set_hand(d, 0, [W, W])
        d["players"][0]["coins"] = 0
        intersection(d, 3, 3, 2)
    s = start(4, f)
    la = legal(s)
    assert place_id(3, 3, W) in la
    assert place_id(2, 2, W) not in la
    s.apply(place_id(3, 3, W))
    assert pl(s, 0).coins == 0


def test_A24_waiver_on_own_intersection_too():
    """A24: the waiver applies to the placer's own Intersection as well."""
    def f(d):
        set_hand(d, 0, [W, W])
        d["players"][0]["coins"] = 1
        intersection(d, 4, 4, 0)
    s = start(4, f)
    s.apply(place_id(4, 4, W))
    assert s.current_player() == 0 and frames(s)[-1].kind == C["FR_INT_PICK"]
    s.apply(A_DONE)
    assert pl(s, 0).coins == 1


# ---- R41, A21, A23 Intersection triggers --------------------------------------------------------------

def _on_intersection(owner, inters, placer=0):
    def f(d):
        set_hand(d, placer, [W, M])
        intersection(d, 3, 1, owner)
        for c, r in [(0, 4), (1, 4), (2, 4), (3, 4)][:inters - 1]:
            intersection(d, c, r, owner)
    return start(4, f)


def test_R41_A23_owner_decides_before_the_placers_actions():
    """R41, A23: placing on another player's Intersection hands the decision to its owner at once, before
    the placer's actions; the placer's ids are refused meanwhile."""
    s = _on_intersection(owner=2, inters=1)
    s.apply(place_id(3, 1, M))
    assert s.current_player() == 2
    assert legal(s) == {PICK + 0, A_DONE}
    refused(s, A_END)
    refused(s, C["A_COBBLE"] + 9)
    s.apply(PICK + 0)                              # slot 1: 1 Coin
    assert pl(s, 2).coins == 2
    assert s.current_player() == 0 and A_END in legal(s)


def test_A21_own_intersection_triggers():
    """A21: placing on one's own Intersection triggers its benefits too."""
    s = _on_intersection(owner=0, inters=2)
    s.apply(place_id(3, 1, W))
    assert s.current_player() == 0
    assert legal(s) == {PICK + 0, PICK + 1, A_DONE}
    s.apply(PICK + 1)                              # 2 VP
    assert pl(s, 0).score == 2
    assert s.phase == C["PH_ACTIONS"] and A_END in legal(s)


def test_A23_owner_may_take_fewer_and_slots_are_different():
    """A23: the owner may stop early (A_INT_DONE); each slot only once ("different" benefits)."""
    s = _on_intersection(owner=1, inters=3)
    s.apply(place_id(3, 1, W))
    assert s.current_player() == 1
    s.apply(PICK + 2)                              # 1 Cloth
    assert legal(s) == {PICK + 0, PICK + 1, A_DONE}
    refused(s, PICK + 2)
    t = s.clone()
    t.apply(A_DONE)                                # fewer than allowed
    assert t.current_player() == 0 and pl(t, 1).cloth == 2 and pl(t, 1).score == 0


def test_A23_no_trigger_without_intersection():
    """R41 only for crossings carrying an Intersection: no owner frame elsewhere."""
    s = start(4, lambda d: set_hand(d, 0, [W, W]))
    s.apply(place_id(3, 1, W))
    assert s.current_player() == 0 and not any(f.kind == C["FR_INT_PICK"] for f in frames(s))


# ---- A22, A46: triggers only from placement -------------------------------------------------------------

def test_A22_R59_intersection_built_under_citizens_triggers_nothing():
    """A22, R59: an Intersection built on the crossing the player stands on goes under the citizens and
    triggers no benefit; the citizens stay."""
    def f(d):
        set_hand(d, 0, [W, U])
        intersection(d, 0, 4, 0)
        intersection(d, 1, 4, 0)
        d["players"][0]["coins"] = 3
    s = start(4, f)
    s.apply(place_id(1, 3, U))                     # horizontal 3: Build an Intersection
    s.apply(C["A_INTERSECTION"] + cross(1, 3))
    v = s.view()
    assert v.intersections[cross(1, 3)] == 0
    assert v.crossings[cross(1, 3)] == (W, U)
    assert not any(f.kind == C["FR_INT_PICK"] for f in frames(s))
    assert s.current_player() == 0
    # 3rd slot costs 2, (1,3) costs 0; the uncovered adjacent spaces give V(1,2) CLOTH1, V(1,3) CERDA1,
    # H(0,3) COIN1, H(1,3) VP2 (R60) -- and no Intersection pick on top
    assert (pl(s, 0).coins, pl(s, 0).cloth, pl(s, 0).cerda, pl(s, 0).score) == (2, 2, 5, 2)


def test_A22_intersection_under_other_players_citizens_triggers_nothing():
    """A22: building under another player's citizens does not trigger the builder's (or anyone's) picks."""
    def f(d):
        set_hand(d, 0, [W, W])
        citizens(d, 4, 2, M, U)
    s = start(4, f)
    s.apply(place_id(0, 3, W))                     # horizontal 3: Build an Intersection
    s.apply(C["A_INTERSECTION"] + cross(4, 2))
    assert s.current_player() == 0 and s.phase == C["PH_ACTIONS"]
    assert not any(f.kind == C["FR_INT_PICK"] for f in frames(s))


def test_A46_construction_using_an_intersection_crossing_triggers_nothing():
    """A46: only turn step 1 triggers Intersections: a construction that takes the top citizen of a crossing
    carrying player 1's Intersection gives player 1 nothing."""
    def f(d):
        set_hand(d, 0, [W, W])
        citizens(d, 0, 2, W)
        intersection(d, 0, 2, 1)
    s = start(4, f)
    before = pl(s, 1)
    s.apply(place_id(1, 2, W))
    s.apply(A_END)
    s.apply(build_id("B(0,2)", "L1", [(0, 2), (1, 2)]))
    assert pl(s, 1).coins == before.coins and pl(s, 1).score == before.score
    assert s.is_chance_node()


# ---- A1, A2, A3 ------------------------------------------------------------------------------------------

def test_A3_placement_is_compulsory_when_possible():
    """A3: if a legal crossing exists the player must place: only placement ids are legal."""
    s = start(4)
    la = s.legal_actions()
    assert la and all(is_place(a) for a in la)
    for a in (A_END, A_SKIP, C["A_GAIN_COINS"], C["A_BUILD"]):
        refused(s, a)


def test_A1_no_affordable_free_crossing_skips_placement_but_builds():
    """A1: every free crossing costs a Coin the player lacks -> step 1 is skipped (both citizens kept), the
    construction still happens if possible, and nothing is drawn."""
    def f(d):
        set_hand(d, 0, [U, M])
        d["players"][0]["coins"] = 0
        for c in range(5):
            for rr in range(5):
                if c != rr:
                    citizens(d, c, rr, W)
    s = start(4, f)
    assert s.current_player() == 0
    la = s.legal_actions()
    assert la and all(is_build(a) for a in la)           # straight to the compulsory construction
    assert s.view().place_crossing is None
    s.apply(la[0])
    assert not s.is_chance_node()                       # hand stays at 2: no draws
    assert pl(s, 0).hand == (0, 1, 1)
    assert s.current_player() == 1 and pl(s, 0).turns == 1


def test_A1_skipped_player_keeps_hand_next_player_places():
    """A1: no affordable free crossing and no construction -> the turn passes at once (no draws, hand kept);
    the next player, who has a Coin, can place on the free diagonal crossings."""
    def f(d):
        set_hand(d, 0, [W, W])
        d["players"][0]["coins"] = 0
        for c in range(5):
            for rr in range(5):
                if c != rr:
                    citizens(d, c, rr, U)
        d["building_tiles_left"] = NO_TILES        # nothing can be constructed (no two citizens of a corner
        #                                            triangle: its diagonal crossings are free)
    s = start(4, f)
    assert s.current_player() == 1 and s.phase == C["PH_PLACE"]
    assert pl(s, 0).turns == 1 and pl(s, 0).hand == (2, 0, 0)
    assert {a for a in s.legal_actions()} == {place_id(k, k, c) for k in range(5) for c in (W, M, U)
                                              if pl(s, 1).hand[c]}


def test_A1_dead_board_ends_the_game():
    """A1/A2 engine safety rule: when no seat can place, build or draw in a whole round, the game ends
    instead of looping."""
    def f(d):
        for c in range(25):                        # nowhere to place; the hands are full: nothing to draw
            citizens(d, c % 5, c // 5, c % 3)
        every_block_built(d)                       # nothing to construct
    s = start(4, f)
    assert s.is_terminal()


def test_A2_short_bag_single_citizen_and_empty_hand():
    """A2: draw what is left; one citizen is placed alone; with none, step 1 is skipped; a round without any
    placement, construction or draw ends the game (engine safety rule)."""
    def f(d):
        """One Working citizen left in the bag: the others are on the tracks (section 1 scored), and on the
        crossings but the three the turns below use; no construction is possible."""
        for k, n in ((W, 10), (M, 10), (U, 8)):
            track(d, k, mask(range(n)) | T["prefill2"][k])   # the printed "2" spaces too
        scored(d, 0)
        fill_crossings(d, [(c, r) for r in range(5) for c in range(5) if (c, r) not in ((0, 3), (2, 3), (4, 3))],
                       bag=(1, 0, 0))
        every_block_built(d)
    s = start(2, f)
    play_quiet_turn(s, 0, 3)                       # player 0 draws the last citizen only
    assert sum(pl(s, 0).hand) == 1 and s.view().bag == (0, 0, 0)
    play_quiet_turn(s, 2, 3)                       # player 1 draws nothing
    assert sum(pl(s, 1).hand) == 0
    assert s.current_player() == 0
    s.apply(place_id(4, 3, W))                     # a lone citizen
    assert s.view().crossings[cross(4, 3)] == (W,)
    s.apply(A_END)
    assert not s.is_chance_node()                  # nothing to draw
    # player 1 holds nothing: skipped; next round nobody can do anything -> game over
    assert s.is_terminal()
