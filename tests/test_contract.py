"""OpenSpiel-style contract tests over seeded random games (api_test.py in spirit)."""
import math
import random

import pytest

from barcelona_ai import CHANCE, TERMINAL, PlayerCountError, new_game


def random_states(players, seed, every=7):
    rng = random.Random(seed)
    s = new_game(players, seed=seed)
    i = 0
    while not s.is_terminal():
        if i % every == 0:
            yield s
        s.apply(rng.choice(s.legal_actions()))
        i += 1
    yield s


@pytest.mark.parametrize("players", [2, 3, 4])
def test_contract(players):
    for seed in range(4):
        for s in random_states(players, seed):
            cp = s.current_player()
            acts = s.legal_actions()
            assert acts == sorted(set(acts))
            if s.is_terminal():
                assert cp == TERMINAL and acts == []
                r = s.returns()
                assert math.isclose(sum(r), 1.0) and all(0 <= x <= 1 for x in r)
                assert all(sum(s.score_breakdown()[p].values()) == s.scores()[p] for p in range(players))
            elif cp == CHANCE:
                outs = s.chance_outcomes()
                assert [a for a, _ in outs] == acts
                assert math.isclose(sum(p for _, p in outs), 1.0)
            else:
                assert 0 <= cp < players and acts
                assert s.chance_outcomes() == []
                assert s.returns() == [0.0] * players


def test_same_seed_same_game_and_playout():
    a, b = new_game(4, seed=9), new_game(4, seed=9)
    assert a.hash() == b.hash()
    assert a.playout(3) == b.playout(3)
    assert a.hash() == b.hash()          # playout works on a copy
    assert new_game(4, seed=10).hash() != a.hash()


@pytest.mark.parametrize("bad", [1, 5, 0, "4", 2.0, None, True])
def test_wrong_player_count(bad):
    with pytest.raises(PlayerCountError):
        new_game(players=bad)


def test_bad_setup_and_seed():
    with pytest.raises(ValueError):
        new_game(4, setup="first-game")
    with pytest.raises(ValueError):
        new_game(4, seed=-1)


def test_games_end():
    """Random games end in a bounded number of actions (A2 stall rule included)."""
    for players in (2, 3, 4):
        s = new_game(players, seed=1)
        total = s.random_games(300, seed=4)
        assert 40 * 300 < total < 600 * 300
