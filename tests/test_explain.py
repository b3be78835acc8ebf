"""Why a move cannot be played and what a move will do (rules/explain.py), in the rules' words: a refused move
names its reason (a crossing's cost against the player's Coins, R38; a crossing's actions, R39-R40), and every
legal move has a preview whose VP figure is what applying it scores."""
from __future__ import annotations

import random

import pytest

from barcelona_ai import IllegalActionError, new_game
from barcelona_ai.core import CONSTANTS as C
from barcelona_ai.rules.explain import plan_effect, preview, why_illegal

from helpers import edit, game


def place(c: int, r: int, top: int = 0) -> int:
    return C["A_PLACE"] + (r * 5 + c) * 3 + top


def test_a_crossing_that_costs_more_than_the_player_has_says_so():
    """R38: the crossings with a printed cost ($1 on the board) cost a Coin to place on."""
    s = game(2, 1)
    t = s.game_data.edition.t
    c = next(i for i, cost in enumerate(t["cross_cost"]) if cost > 0)

    def broke(doc):
        doc["players"][0]["coins"] = 0
    s = edit(s, broke)
    a = next(a for a in range(place(c % 5, c // 5), place(c % 5, c // 5) + 3)
             if s.view().players[0].hand[a % 3] > 0)
    assert a not in s.legal_actions()
    reason = why_illegal(s, a)
    assert reason == f"crossing ({c % 5},{c // 5}) costs 1 Coin; P0 has 0"
    with pytest.raises(IllegalActionError, match=r"cannot be played now: crossing \(\d,\d\) costs 1 Coin; P0 has 0"):
        s.apply(a)


def test_a_taken_crossing_an_empty_class_and_a_wrong_moment_are_named():
    s = game(2, 1)
    hand = s.view().players[0].hand
    a = next(a for a in s.legal_actions() if a < C["A_INT_PICK"])
    missing = next(k for k in range(3) if hand[k] == 0)
    crossing = (a - C["A_PLACE"]) // 3
    assert why_illegal(s, C["A_PLACE"] + crossing * 3 + missing).startswith("P0 holds no ")
    assert why_illegal(s, C["A_GAIN_COINS"]).startswith("P0 must place 2 citizens on an empty crossing")
    gains = range(C["A_GAIN_COINS"], C["A_CERDA"] + 1)
    for a in (a for a in s.legal_actions() if a < C["A_INT_PICK"]):     # a crossing without one of the gains
        after = s.clone()
        after.apply(a)
        absent = [x for x in gains if x not in after.legal_actions()]
        if absent:
            c = (a - C["A_PLACE"]) // 3
            reason = why_illegal(after, absent[0])
            assert reason.startswith(f"crossing ({c % 5},{c // 5}) gives ") and "(or end actions)" in reason, reason
            assert why_illegal(after, a).startswith("P0 must take the actions of crossing")
            break
    else:
        raise AssertionError("every crossing gave every gain")


@pytest.mark.parametrize("players,seed", [(2, 3), (3, 4), (4, 5)])
def test_every_legal_move_has_a_preview_with_the_kernels_vp(players, seed):
    s = new_game(players=players, seed=seed)
    rng = random.Random(seed)
    checked = 0
    while not s.is_terminal() and checked < 400:
        if not s.is_chance_node():
            p = s.current_player()
            for a in s.legal_actions()[:12]:
                after = s.clone()
                after.apply(a)
                vp = after.scores()[p] - s.scores()[p]
                text = preview(s, a)
                assert plan_effect(s, [a]).vp == vp and text
                if vp:
                    assert f"now {vp:+d} VP" in text
                checked += 1
        s.apply(rng.choice(s.legal_actions()))


def test_a_placement_preview_lists_the_crossings_actions():
    s = game(2, 1)
    a = next(a for a in s.legal_actions() if a < C["A_INT_PICK"])
    assert "then the actions: " in preview(s, a)
