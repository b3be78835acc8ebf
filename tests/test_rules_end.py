"""Rule tests: game end, final scoring, winner and tie-breakers (R121-R127; rulings A2 stall rule, A11, A41-A43),
returns() and score_breakdown().

Default data (rules-inventory §4.8): Cobblestone end VP 1/3/5/7/10/14, Passenger end VP 2/5/10/16/23,
Modernisme project spaces bottom/top multipliers 1/2, 1/3, 2/3, 2/4, 3/4.
"""
import random

import pytest

from barcelona_ai import new_game
from helpers import C, ED, T, W, build_id, cross, edit, game

A_REVEAL = C["A_REVEAL"]
W_MARKS = T["track_mark"][0]
SOURCES = ("streets", "buildings", "actions", "intersections", "sidewalk", "sagrada", "public_services",
           "cerda_scoring", "cerda_overflow", "final_cobblestones", "final_passengers", "final_modernisme")


def bits(lo, hi):
    return ((1 << hi) - 1) & ~((1 << lo) - 1)


def cond(name):
    return [n.split()[0] for n in T["cond_names"]].index(name)


def mod_tile(name):
    return T["mod_cond"].index(cond(name))


def pl(s, p):
    return s.view().players[p]


def src(s, p, name):
    return s.score_breakdown()[p][name]


def set_vp(raw, p, vp):
    """Give player p `vp` VP so far (as building VP, keeping the breakdown consistent)."""
    raw["pl"][p]["score"] = vp
    raw["pl"][p]["vp_src"] = [0] * len(SOURCES)
    raw["pl"][p]["vp_src"][1] = vp


def last_turn(players=4, fn=None, seat=None):
    """The end was triggered earlier; seat `seat` (default: the last) finishes its turn now (nothing to build).
    Returns the settled state: terminal when that seat is the last one (R123)."""
    seat = players - 1 if seat is None else seat

    def f(raw):
        raw["cur"] = seat
        raw["phase"] = C["PH_BUILD"]
        raw["place_crossing"] = -1
        raw["end_triggered"] = 1
        raw["scored"] = 0b111
        raw["scorings"] = 3
        raw["activity"] = 1
        for p in range(players):
            raw["pl"][p]["turns"] = 5 if p < seat else 4
        if fn:
            fn(raw)
    return edit(game(players), f)


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
    def f(raw):
        raw["cur"] = seat
        raw["phase"] = C["PH_BUILD"]
        raw["place_crossing"] = cross(0, 0)
        raw["track"] = [bits(0, W_MARKS[2]), 0, 0]
        raw["scored"] = 0b011
        raw["scorings"] = 2
        raw["cerda_tile"] = [cond("SC15"), cond("SC15"), cond("SC03")]
        raw["cross_lo"][cross(0, 0)] = W
        raw["cross_lo"][cross(1, 0)] = W
        raw["activity"] = 1
        for p in range(players):
            raw["pl"][p]["turns"] = 3 if p < seat else 2
        if fn:
            fn(raw)
    return edit(game(players), f), build_id("NE(0)", "CORNER", [(0, 0), (1, 0)])


def test_R122_third_section_scores_and_triggers_the_end_without_reset():
    def f(raw):
        raw["pl"][1]["cerda"] = 9
        raw["pl"][1]["coins"] = 2
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
    def f(raw):
        p = raw["pl"][0]
        p.update(cobbles=2, passengers=1, cloth=3, coins=0)
        p["mod_tile"] = [mod_tile("SC14"), -1, mod_tile("SC13"), mod_tile("SC02"), -1]
        p["mod_up"] = [0, 1, 1, 0, 0]                        # space 1 is up but empty: nothing to score
        raw["pl"][1].update(cobbles=6, passengers=5)
    s = last_turn(fn=f)
    assert s.is_terminal()
    b = s.score_breakdown()
    assert b[0]["final_cobblestones"] == 3                   # 2 taken out: rightmost uncovered shows 3
    assert b[0]["final_passengers"] == 2
    assert b[0]["final_modernisme"] == 2 * 2 * 1 + 2 * 1 * 3 + 2 * 3 * 2   # bottom x1, top x3, bottom x2
    assert s.scores()[0] == 3 + 2 + 4 + 6 + 12
    assert (b[1]["final_cobblestones"], b[1]["final_passengers"], b[1]["final_modernisme"]) == (14, 23, 0)
    assert s.scores()[2] == 0 and s.scores()[3] == 0


def test_example_R125():
    """R125: 154 VP + 4 Cobblestones (7) + 4 Passengers (16) + tile "2 VP per Wide Street tile" on the rightmost
    project space with its marker up (x4) and 3 Wide tiles (24) = 201."""
    def f(raw):
        set_vp(raw, 0, 154)
        p = raw["pl"][0]
        p.update(cobbles=4, passengers=4, wide=3)
        p["mod_tile"] = [-1, -1, -1, -1, mod_tile("SC11")]
        p["mod_up"] = [0, 0, 0, 0, 1]
    s = last_turn(fn=f)
    assert s.is_terminal()
    b = s.score_breakdown()[0]
    assert (b["final_cobblestones"], b["final_passengers"], b["final_modernisme"]) == (7, 16, 24)
    assert s.scores()[0] == 201
    assert s.returns() == [1.0, 0.0, 0.0, 0.0]


def test_R121_sagrada_track_gives_no_end_game_vp():
    def f(raw):
        raw["pl"][0]["sagrada"] = 7
        raw["pl"][0]["sag_tile"] = [3, 8, 12]
    s = last_turn(fn=f)
    assert s.is_terminal() and s.scores()[0] == 0


def test_R124_modernisme_counts_use_the_final_state_A40():
    def f(raw):
        raw["pl"][0].update(coins=4, cloth=0)
        raw["pl"][0]["mod_tile"] = [mod_tile("SC03"), -1, -1, -1, -1]
    s = last_turn(fn=f)
    assert src(s, 0, "final_modernisme") == 2 * 4 * 1


def test_A43_score_is_unbounded():
    def f(raw):
        set_vp(raw, 0, 399)
        raw["pl"][0]["cobbles"] = 6
    s = last_turn(fn=f)
    assert s.scores()[0] == 413


# ---------------------------------------------------------------------------------------------------------
# R126, R127, A42: winner, tie-breakers, shared wins


def place_markers(raw, counts):
    """counts[p] markers of player p on the board (one on top of another player's at B(1,0), A42)."""
    names = [n for n in T["bs_names"] if n.startswith("B")]
    k = 0
    for p, n in enumerate(counts):
        raw["pl"][p]["markers"] = n
        for _ in range(n):
            bs = T["bs_names"].index(names[k % len(names)])
            raw["bld_mark"][bs * 3 + raw["bld_n"][bs]] = p
            raw["bld_n"][bs] += 1
            raw["bld_level"][bs] = raw["bld_n"][bs]
            k += 1


def ending(vp, cerda=None, sagrada=None, markers=None, players=4):
    def f(raw):
        for p in range(players):
            set_vp(raw, p, vp[p])
            if cerda:
                raw["pl"][p]["cerda"] = cerda[p]
            if sagrada:
                raw["pl"][p]["sagrada"] = sagrada[p]
        if markers:
            place_markers(raw, markers)
    s = last_turn(players=players, fn=f)
    assert s.is_terminal()
    return s.returns()


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


# ---------------------------------------------------------------------------------------------------------
# A2 stall rule: a full round with no placement, build or draw ends the game


def stalled(activity, fn=None):
    def f(raw):
        raw["bag"] = [0, 0, 0]
        raw["cur"] = 0
        raw["phase"] = C["PH_PLACE"]
        raw["activity"] = activity
        for p in range(4):
            raw["pl"][p]["hand"] = [0, 0, 0]
            raw["pl"][p]["turns"] = 6
        if fn:
            fn(raw)
    return edit(game(4), f)


def test_A2_stall_a_round_without_placement_build_or_draw_ends_the_game():
    s = stalled(0)
    assert s.is_terminal()
    assert [pl(s, p).turns for p in range(4)] == [7, 7, 7, 7]
    assert s.view().cerda_scorings_done == 0 and not s.view().end_triggered


def test_A2_stall_needs_a_whole_round_without_activity():
    s = stalled(1)                                           # something happened earlier in this round
    assert s.is_terminal()
    assert [pl(s, p).turns for p in range(4)] == [8, 8, 8, 8]


def test_A2_a_construction_keeps_the_game_going():
    def f(raw):
        raw["cross_lo"][cross(1, 0)] = W
        raw["cross_lo"][cross(2, 0)] = W
    s = stalled(0, fn=f)
    assert not s.is_terminal()
    assert s.current_player() == 0 and s.legal_actions() == [build_id("B(1,0)", "L1", [(1, 0), (2, 0)])]
    s.apply(s.legal_actions()[0])
    assert s.is_terminal()                                   # the next round was empty
    assert [pl(s, p).turns for p in range(4)] == [8, 8, 8, 8]


def test_A2_a_draw_is_activity():
    def f(raw):
        raw["bag"] = [0, 0, 1]
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
