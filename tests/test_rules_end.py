"""Rule tests: game end, final scoring, winner and tie-breakers (R121-R127; rulings A2 stall rule, A11, A41-A43),
returns() and score_breakdown().

Default data (rules-inventory §4.8): Cobblestone end VP 1/3/5/7/10/14, Passenger end VP 2/5/10/16/23,
Modernisme project spaces bottom/top multipliers 1/2, 1/3, 2/3, 2/4, 3/4.
"""
import random

import pytest

from barcelona_ai import new_game
from helpers import (C, ED, T, W, M, U, WORKED_EXAMPLE_EDITIONS, bits, build_id, building, citizens, cobblestones,
                     edit, edition_id, end_triggered, every_block_built, fill_crossings, game, hand, own, passenger,
                     pl, projects, scored, src, tables, track, turn)

A_REVEAL = C["A_REVEAL"]
W_MARKS = T["track_mark"][0]
SOURCES = ("streets", "buildings", "actions", "intersections", "sidewalk", "sagrada", "public_services",
           "cerda_scoring", "cerda_overflow", "final_cobblestones", "final_passengers", "final_modernisme")


def set_vp(doc, p, vp):
    """Give player p `vp` VP so far (as building VP, keeping the breakdown consistent)."""
    doc["players"][p].update(score=vp, vp_by_source={"buildings": vp})


def set_turns(doc, seat, before, after):
    """`seat` to move: the seats before it have completed `before` turns, the others `after` (R123)."""
    for p, player in enumerate(doc["players"]):
        player["turns"] = before if p < seat else after


def last_turn(players=4, fn=None, seat=None, edition="default"):
    """The end was triggered earlier; seat `seat` (default: the last) finishes its turn now (nothing to build).
    Returns the settled state: terminal when that seat is the last one (R123)."""
    seat = players - 1 if seat is None else seat

    def f(doc):
        turn(doc, seat, "BUILD")
        end_triggered(doc, tables(edition))
        doc["turn_state"]["activity"] = True
        set_turns(doc, seat, 5, 4)
        if fn:
            fn(doc)
    return edit(game(players, edition=edition), f)


def play_out(s, log=None):
    """Finish the game with simple choices (end actions at once, decline optional things); log the seats
    whose turn it was at each player decision."""
    prefer = (C["A_END_ACTIONS"], C["A_SKIP"], C["A_SAG_STOP"], C["A_INT_DONE"])
    steps = 0
    while not s.is_terminal():
        acts = s.legal_actions()
        if not s.is_chance_node() and log is not None:
            log.append(s.turn_player)
        a = next((x for x in prefer if x in acts), acts[0])
        s.apply(a)
        steps += 1
        assert steps < 5000
    return s


# ---------------------------------------------------------------------------------------------------------
# R122, R123, A11, A41: the end trigger and equal turns


def trigger_state(seat, players=4, fn=None):
    """Seat `seat` builds a Corner that puts a Working citizen on the 3rd section's mark."""
    def f(doc):
        turn(doc, seat, "BUILD", (0, 0))
        track(doc, W, bits(0, W_MARKS[2]))
        scored(doc, 0, 1)
        for sec, name in enumerate(("SC15", "SC16", "SC03")):
            doc["cerda_tiles"][sec]["tile"] = name
        citizens(doc, 0, 0, W)
        citizens(doc, 1, 0, W)
        doc["turn_state"]["activity"] = True
        set_turns(doc, seat, 3, 2)
        if fn:
            fn(doc)
    return edit(game(players), f), build_id("NE(0)", "CORNER", [(0, 0), (1, 0)])


def test_R122_third_section_scores_and_triggers_the_end_without_reset():
    def f(doc):
        doc["players"][1].update(cerda=9, coins=2)
    s, a = trigger_state(0, fn=f)
    s.apply(a)
    v = s.view()
    assert v.end_triggered and v.cerda_scored == (True, True, True) and v.cerda_scorings_done == 3
    assert src(s, 1, "cerda_scoring") == 2 * 2 * 3
    assert pl(s, 1).cerda == 9                            # no reset after the 3rd scoring (R110)
    assert not s.is_terminal()


def test_A11_display_still_refreshed_after_the_third_scoring():
    s, a = trigger_state(0)
    old = s.view().modernisme_display
    s.apply(a)
    assert s.is_chance_node() and all(x >= A_REVEAL for x in s.legal_actions())
    assert s.view().modernisme_discard == old


@pytest.mark.parametrize("players,seat", [(4, 0), (4, 1), (4, 2), (3, 0), (2, 0)])
def test_R123_A41_play_on_until_all_have_had_the_same_number_of_turns(players, seat):
    s, a = trigger_state(seat, players=players)
    s.apply(a)
    log = []
    play_out(s, log)
    turns = [x for i, x in enumerate(log) if i == 0 or log[i - 1] != x]
    assert turns == list(range(seat + 1, players))          # the later seats, one turn each, in order
    assert [pl(s, p).turns for p in range(players)] == [3] * players
    assert s.view().cerda_scorings_done == 3                           # no further Cerdà Scoring (A11)


def test_A41_trigger_on_the_last_seat_ends_the_game_after_that_turn():
    s, a = trigger_state(3)
    s.apply(a)
    assert s.is_chance_node()                                # the 3rd scoring's display refresh first
    log = []
    play_out(s, log)
    assert log == []                                         # nobody plays again
    assert [pl(s, p).turns for p in range(4)] == [3, 3, 3, 3]


def test_R123_not_over_before_the_last_seat():
    s = last_turn(seat=1)
    assert not s.is_terminal() and s.current_player() == 2
    s = last_turn()
    assert s.is_terminal()


# ---------------------------------------------------------------------------------------------------------
# R124, R125, R121: final scoring


def test_R124_final_scoring_cobblestones_passengers_modernisme():
    def f(doc):
        doc["players"][0].update(cloth=3, coins=0)
        cobblestones(doc, 0, 2)
        passenger(doc, 0, "H(3,4)")
        doc["modernisme"]["display"] = ["SC08", "SC09", "SC12", "SC10"]     # SC14 goes on a board instead
        projects(doc, 0, ["SC14", None, "SC13", "SC02", None], [0, 1, 1, 0, 0])   # space 1 is up but empty:
        cobblestones(doc, 1, 6)                                                  # nothing to score
        passenger(doc, 1, "H(0,4)", "H(1,4)", "H(2,4)", "V(4,3)", "V(4,2)")
    s = last_turn(fn=f)
    assert s.is_terminal()
    b = s.score_breakdown()
    assert b[0]["final_cobblestones"] == 3                   # 2 taken out: rightmost uncovered shows 3
    assert b[0]["final_passengers"] == 2
    assert b[0]["final_modernisme"] == 2 * 2 * 1 + 2 * 1 * 3 + 2 * 3 * 2   # bottom x1, top x3, bottom x2
    assert s.scores()[0] == 3 + 2 + 4 + 6 + 12
    assert (b[1]["final_cobblestones"], b[1]["final_passengers"], b[1]["final_modernisme"]) == (14, 23, 0)
    assert s.scores()[2] == 0 and s.scores()[3] == 0


@pytest.mark.parametrize("edition", WORKED_EXAMPLE_EDITIONS, ids=edition_id)
def test_example_R125(edition):
    """R125: 154 VP + 4 Cobblestones (7) + 4 Passengers (16) + tile "2 VP per Wide Street tile" on the rightmost
    project space with its marker up (x4) and 3 Wide tiles (24) = 201."""
    def f(doc):
        set_vp(doc, 0, 154)
        cobblestones(doc, 0, 4)
        passenger(doc, 0, "H(0,4)", "H(1,4)", "H(2,4)", "H(3,4)")
        own(doc, 0, "V(2,0)", "V(2,1)", "D(3)")                         # 3 Wide tiles
        doc["cerda_tiles"][2]["tile"] = "SC13"                          # SC11's twin would be in the box (R15)
        projects(doc, 0, [None, None, None, None, "SC11"], [0, 0, 0, 0, 1])
    s = last_turn(fn=f, edition=edition)
    assert s.is_terminal()
    b = s.score_breakdown()[0]
    assert (b["final_cobblestones"], b["final_passengers"], b["final_modernisme"]) == (7, 16, 24)
    assert s.scores()[0] == 201
    assert s.returns() == [1.0, 0.0, 0.0, 0.0]


def test_R121_sagrada_track_gives_no_end_game_vp():
    def f(doc):
        doc["players"][0].update(sagrada=7, sagrada_tiles=[T["sag_text"][i] for i in (3, 8, 12)])
    s = last_turn(fn=f)
    assert s.is_terminal() and s.scores()[0] == 0


def test_R124_modernisme_counts_use_the_final_state_A40():
    def f(doc):
        doc["players"][0].update(coins=4, cloth=0)
        projects(doc, 0, ["SC03", None, None, None, None])
    s = last_turn(fn=f)
    assert src(s, 0, "final_modernisme") == 2 * 4 * 1


def test_A43_score_is_unbounded():
    def f(doc):
        set_vp(doc, 0, 399)
        cobblestones(doc, 0, 6)
    s = last_turn(fn=f)
    assert s.scores()[0] == 413


# ---------------------------------------------------------------------------------------------------------
# R126, R127, A42: winner, tie-breakers, shared wins


def place_markers(doc, counts):
    """counts[p] markers of player p on the board, in stacks of three (Level 3 buildings; the last stack may be
    lower): markers cover other players' markers (A42)."""
    names = [n for n in T["bs_names"] if n.startswith("B")]
    seats = [p for p, n in enumerate(counts) for _ in range(n)]
    for i, name in zip(range(0, len(seats), 3), names):
        stack = seats[i:i + 3]
        building(doc, name, len(stack), stack)


def ending(vp, cerda=None, sagrada=None, markers=None, players=4):
    return ended(vp, cerda, sagrada, markers, players).returns()


def ended(vp, cerda=None, sagrada=None, markers=None, players=4):
    """The finished game of the last turn with these VP (and tie-breaker counts)."""
    def f(doc):
        for p in range(players):
            set_vp(doc, p, vp[p])
            if cerda:
                doc["players"][p]["cerda"] = cerda[p]
            if sagrada:
                doc["players"][p]["sagrada"] = sagrada[p]
        if markers:
            place_markers(doc, markers)
    s = last_turn(players=players, fn=f)
    assert s.is_terminal()
    return s


def test_R126_most_vp_wins():
    assert ending([50, 60, 40, 59]) == [0.0, 1.0, 0.0, 0.0]


def test_R127_A42_first_tiebreak_cerda_index():
    assert ending([60, 60, 40, 59], cerda=[5, 6, 11, 0]) == [0.0, 1.0, 0.0, 0.0]


def test_R127_A42_second_tiebreak_sagrada_index():
    assert ending([60, 60, 60, 59], cerda=[6, 6, 5, 11], sagrada=[3, 2, 7, 7]) == [1.0, 0.0, 0.0, 0.0]


def test_R127_A42_third_tiebreak_markers_on_the_board_covered_ones_included():
    r = ending([60, 60, 60, 10], cerda=[6, 6, 6, 6], sagrada=[2, 2, 2, 2], markers=[4, 5, 3, 8])
    assert r == [0.0, 1.0, 0.0, 0.0]


def test_R127_shared_victory_when_everything_ties():
    r = ending([60, 60, 59, 60], cerda=[6, 6, 6, 6], sagrada=[2, 2, 2, 2], markers=[3, 3, 3, 3])
    assert r == pytest.approx([1 / 3, 1 / 3, 0.0, 1 / 3])
    assert ending([7, 7], players=2) == [0.5, 0.5]


def test_returns_are_zero_before_the_end():
    s = last_turn(seat=1)
    assert s.returns() == [0.0] * 4
    assert s.winners() == []


def test_R126_R127_winners_are_the_seats_with_the_best_return():
    assert ended([50, 60, 40, 59]).winners() == [1]
    assert ended([60, 60, 60, 10], cerda=[6, 6, 6, 6], sagrada=[2, 2, 2, 2], markers=[4, 5, 3, 8]).winners() == [1]
    assert ended([60, 60, 59, 60], cerda=[6, 6, 6, 6], sagrada=[2, 2, 2, 2],
                 markers=[3, 3, 3, 3]).winners() == [0, 1, 3]                  # a shared victory


# ---------------------------------------------------------------------------------------------------------
# A2 stall rule: a full round with no placement, build or draw ends the game


STALL_CROSSINGS = [(c, r) for r in range(5) for c in range(5) if (c, r) not in ((2, 0), (1, 1), (2, 1))]


def stall_board(doc):
    """A table where nothing can happen: the bag and the hands empty, so no placement and no draw (A1); every
    block built so that no construction is possible (helpers.every_block_built) but B(1,0), with one crossing
    around it occupied. The 72 citizens: the tracks (sections 1 and 2 scored, section 3 not reached) and 29 on
    the other crossings: W W on (0,0) and (1,0) first, ..., a lone U on STALL_CROSSINGS[14]."""
    every_block_built(doc, spare=["B(1,0)"])
    track(doc, W, bits(0, 14))                               # marks 4 and 10 reached, 16 not
    track(doc, M, bits(0, 16))
    track(doc, U, bits(0, 13))                               # marks 3 and 8 reached, 13 not
    scored(doc, 0, 1)
    for p in doc["players"]:
        p["hand"] = hand()
    fill_crossings(doc, STALL_CROSSINGS)


def stalled(activity, fn=None):
    """stall_board() with seat 0 to move at the start of a round (activity 0), or seat 1 later in a round in
    which something happened (activity 1)."""
    def f(doc):
        stall_board(doc)
        seat = 1 if activity else 0
        turn(doc, seat, "PLACE")
        set_turns(doc, seat, 7, 6)
        doc["turn_state"]["activity"] = bool(activity)
        if fn:
            fn(doc)
    return edit(game(4), f)


def test_A2_stall_a_round_without_placement_build_or_draw_ends_the_game():
    s = stalled(0)
    assert s.is_terminal()
    assert [pl(s, p).turns for p in range(4)] == [7, 7, 7, 7]
    assert s.view().cerda_scorings_done == 2 and not s.view().end_triggered     # as loaded: no scoring


def test_A2_stall_needs_a_whole_round_without_activity():
    s = stalled(1)                                           # something happened earlier in this round
    assert s.is_terminal()
    assert [pl(s, p).turns for p in range(4)] == [8, 8, 8, 8]


def test_A2_a_construction_keeps_the_game_going():
    def f(doc):
        citizens(doc, 2, 0, W)                               # a Working citizen of (0,0) moved to (2,0)
        citizens(doc, 0, 0, W)
        assert doc["crossings"]["(1,0)"]["citizens"][-1] == "WORKING"
    s = stalled(0, fn=f)
    assert not s.is_terminal()
    assert s.current_player() == 0 and s.legal_actions() == [build_id("B(1,0)", "L1", [(1, 0), (2, 0)])]
    s.apply(s.legal_actions()[0])
    assert s.is_terminal()                                   # the next round was empty
    assert [pl(s, p).turns for p in range(4)] == [8, 8, 8, 8]


def test_A2_a_draw_is_activity():
    def f(doc):
        citizens(doc, *STALL_CROSSINGS[14])                  # its one Upper citizen back in the bag
    s = stalled(0, fn=f)
    assert s.is_chance_node() and s.legal_actions() == [C["A_DRAW"] + 2]
    s.apply(C["A_DRAW"] + 2)
    assert not s.is_terminal()


# ---------------------------------------------------------------------------------------------------------
# score_breakdown and final scoring in whole games, against an independent count


def _oracle_count(v, p, name):
    """Independent count of the simple Modernisme conditions used below (rules-inventory §1.12), in the
    StateView v."""
    P = v.players[p]
    return {"SC02": min(P.cloth, 5), "SC03": min(P.coins, 5), "SC08": len(P.public_services),
            "SC09": P.narrow_laid, "SC11": P.wide_laid, "SC12": sum(P.modernisme_up), "SC13": P.passengers,
            "SC14": P.cobblestones, "SC15": P.intersections,
            "SC18": sum(1 for t in P.modernisme if t is not None)}.get(name)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_breakdown_sums_to_score_and_final_parts_match_R124(players):
    data = ED.raw["player_board"]
    conds = ED.raw["conditions"]
    mods = ED.raw["modernisme_tiles"]
    for seed in range(12):
        rng = random.Random(seed)
        s = new_game(players, seed=seed)
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            for p in range(players):
                assert sum(s.score_breakdown()[p].values()) == s.scores()[p]
        v = s.view()
        for p in range(players):
            P = v.players[p]
            b = s.score_breakdown()[p]
            cob = data["warehouse"]["cobblestone_end_vp"][P.cobblestones - 1] if P.cobblestones else 0
            pas = data["passengers"]["end_vp"][P.passengers - 1] if P.passengers else 0
            assert b["final_cobblestones"] == cob and b["final_passengers"] == pas
            total = 0
            for k, t in enumerate(P.modernisme):
                if t is None:
                    continue
                sp = data["modernisme_spaces"][k]
                mult = sp["top"] if P.modernisme_up[k] else sp["bottom"]
                n = s.condition_count(mods[t], p)
                own = _oracle_count(v, p, mods[t])
                if own is not None:
                    assert n == own, (mods[t], p)
                total += conds[mods[t]]["vp"] * n * mult
            assert b["final_modernisme"] == total
