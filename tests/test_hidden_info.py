"""Hidden information (A6): only other players' hands are hidden; determinize keeps what a player knows."""
import random

from barcelona_ai import new_game

from helpers import swap_with_the_bag


def mid_game(players=4, seed=3, steps=120):
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    return s


def test_determinize_keeps_observation_and_pool():
    for players in (2, 3, 4):
        s = mid_game(players)
        for p in range(players):
            seen = set()
            for seed in range(20):
                d = s.determinize(p, seed)
                assert d.observation_hash(p) == s.observation_hash(p)
                assert d.hand(p) == s.hand(p)
                for q in range(players):
                    assert sum(d.hand(q)) == sum(s.hand(q))
                seen.add(d.hash())
            hidden = sum(sum(s.hand(q)) for q in range(players) if q != p)
            if hidden:
                assert len(seen) > 1, "determinizations should vary the unseen hands"


def test_observation_hides_only_other_hands():
    s = mid_game(4)
    # Swap citizens between player 1's hand and the bag: only players other than 1 cannot tell.
    t = swap_with_the_bag(s, 1)
    assert t.hash() != s.hash()
    for p in (0, 2, 3):
        assert t.observation_hash(p) == s.observation_hash(p)
    assert t.observation_hash(1) != s.observation_hash(1)


def test_observation_dict_has_no_hidden_hand():
    s = mid_game(3)
    obs = s.observation(0)
    for q in (1, 2):
        size = sum(s.hand(q))
        assert obs["pl"][q]["hand"] == [size, -1, -1]
    assert sum(obs["bag"]) == sum(s.view().bag) + sum(sum(s.hand(q)) for q in (1, 2))
