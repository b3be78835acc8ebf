"""One story per hint: the hints are shown best first by the number they show, the first is best_move's move,
and each says in a line what its plan does, with the VP the rules kernel awards for it (rules/explain.py)."""
from __future__ import annotations

import random

import pytest

from barcelona_ai import Engine, Limit, new_game
from barcelona_ai.rules.explain import plan_effect

LIMIT = Limit(iterations=400)


def positions() -> list:
    """20 fixed positions of 2, 3 and 4 players where a player decides, from seeded random play."""
    out = []
    for k in range(20):
        players = 2 + k % 3
        s = new_game(players=players, seed=500 + k)
        rng = random.Random(k)
        for _ in range(rng.randrange(0, 150)):
            if s.is_terminal():
                break
            s.apply(rng.choice(s.legal_actions()))
        while not s.is_terminal() and s.is_chance_node():
            s.apply(rng.choice(s.legal_actions()))
        if s.is_terminal():
            s = new_game(players=players, seed=500 + k)
        out.append(s)
    return out


POSITIONS = positions()


@pytest.mark.parametrize("k", range(len(POSITIONS)))
def test_first_hint_is_best_move_and_shows_the_highest_number(k):
    s = POSITIONS[k]
    me = s.current_player()
    hints = Engine(seed=3).hints(s, LIMIT, top=3)
    assert hints[0].action == Engine(seed=3).best_move(s, LIMIT)
    shown = [(h.win_prob[me], h.expected_score[me]) for h in hints]
    assert shown[0] == max(shown) and shown[1:] == sorted(shown[1:], reverse=True)


@pytest.mark.parametrize("k", range(0, len(POSITIONS), 2))
def test_every_hint_says_what_its_plan_scores_by_the_rules(k):
    s = POSITIONS[k]
    me = s.current_player()
    for h in Engine(seed=5).hints(s, LIMIT, top=3):
        after = s.clone()
        played = []
        for a in h.actions:                     # the plan's own decisions, legal on the real state too
            if a not in after.legal_actions():
                break
            after.apply(a)
            played.append(a)
        assert h.reason
        assert h.vp_now == after.scores()[me] - s.scores()[me] == plan_effect(s, played, me).vp
        if h.vp_now:
            assert f"now {h.vp_now:+d} VP" in h.reason


def test_a_reason_names_what_was_built_gained_and_taken():
    """A Street scores its VP (streets), an action tile its Coins; the crossing is taken from the others."""
    s = new_game(players=2, seed=1, setup="printed")
    place = next(a for a in s.legal_actions() if s.action_to_string(a).startswith("place (0,1)"))
    e = plan_effect(s, [place])
    assert "takes the crossing (0,1) from the others" in e.line and e.vp == 0
    after = s.clone()
    after.apply(place)
    for a in after.legal_actions():
        text = after.action_to_string(a)
        effect = plan_effect(after, [a])
        probe = after.clone()
        probe.apply(a)
        assert effect.vp == probe.scores()[0] - after.scores()[0], text
        if text.startswith("gain 2 coins"):
            assert "+2 Coins" in effect.line
