"""ISMCTS engine: determinism, hidden information, budgets, errors, results' shape."""
import random
import time

import pytest

from barcelona_ai import BarcelonaError, PlayerCountError, new_game
from barcelona_ai.arena import match, wilson
from barcelona_ai.bots import FlatMCBot, GreedyBot, RandomBot, make_bot
from barcelona_ai.engine import Engine, Limit, SearchError
from barcelona_ai.search import Tree


def mid_game(players=4, seed=3, steps=60):
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        s.apply(rng.choice(s.legal_actions()))
    while s.is_chance_node():
        s.apply(s.legal_actions()[0])
    return s


def test_same_seed_same_answer_even_after_another_search():
    s = mid_game()
    e = Engine(seed=5)
    first = e.analyse(s, Limit(iterations=1500)).to_dict()
    e.best_move(mid_game(3, seed=9), Limit(iterations=500))          # unrelated search in between
    assert e.analyse(s, Limit(iterations=1500)).to_dict() == first
    assert Engine(seed=5).analyse(s, Limit(iterations=1500)).to_dict() == first
    assert Engine(seed=6).analyse(s, Limit(iterations=1500)).to_dict() != first


def test_hidden_information_is_not_read():
    """Two states that differ only in what the player to move cannot see give identical answers."""
    s = mid_game(4, seed=4)
    me = s.current_player()
    raw = s.raw()
    other = next(q for q in range(4) if q != me and sum(raw["pl"][q]["hand"]) > 0)
    h = raw["pl"][other]["hand"]
    k_from = next(k for k in range(3) if h[k] > 0)
    k_to = next(k for k in range(3) if k != k_from and raw["bag"][k] > 0)
    raw["pl"][other]["hand"][k_from] -= 1
    raw["pl"][other]["hand"][k_to] += 1
    raw["bag"][k_from] += 1
    raw["bag"][k_to] -= 1
    t = s.clone()
    t.set_raw(raw)
    assert t.hash() != s.hash() and t.observation_hash(me) == s.observation_hash(me)
    for fn in ("analyse", "hints"):
        a = getattr(Engine(seed=2), fn)(s, Limit(iterations=1200))
        b = getattr(Engine(seed=2), fn)(t, Limit(iterations=1200))
        as_dict = (lambda x: x.to_dict()) if fn == "analyse" else (lambda x: [m.to_dict() for m in x])
        assert as_dict(a) == as_dict(b)
    assert Engine(seed=2).best_move(s, Limit(iterations=800)) == Engine(seed=2).best_move(t, Limit(iterations=800))


def test_iteration_budget_is_exact_and_threads_merge():
    s = mid_game(2, seed=1)
    one = Engine(seed=1).analyse(s, Limit(iterations=999))
    assert one.iterations == 999 and sum(m.visits for m in one.moves) <= 999
    two = Engine(seed=1, threads=2).analyse(s, Limit(iterations=999))
    assert two.iterations == 999
    assert Engine(seed=1, threads=2).analyse(s, Limit(iterations=999)).to_dict() == two.to_dict()


def test_time_limit_overshoot_under_ten_percent():
    s = new_game(4, seed=2)
    e = Engine(seed=1)
    e.best_move(s, Limit(iterations=200))                            # warm up
    t0 = time.perf_counter()
    e.best_move(s, Limit(time=0.5))
    assert time.perf_counter() - t0 < 0.55


def test_errors():
    e = Engine(seed=0)
    s = new_game(2, seed=1)
    with pytest.raises(SearchError):
        e.best_move(s, Limit(iterations=10), viewpoint=1)            # not to move
    with pytest.raises(PlayerCountError):
        e.best_move(s, Limit(iterations=10), viewpoint=7)
    c = s.clone()
    while not c.is_chance_node():
        c.apply(c.legal_actions()[-1])
    with pytest.raises(SearchError, match="chance"):
        e.analyse(c, Limit(iterations=10))
    t = s.clone()
    t.playout(1)
    rng = random.Random(0)
    while not t.is_terminal():
        t.apply(rng.choice(t.legal_actions()))
    with pytest.raises(SearchError, match="over"):
        e.hints(t, Limit(iterations=10))
    for bad in (dict(), dict(iterations=0), dict(time=-1), dict(iterations=2.5)):
        with pytest.raises(BarcelonaError):
            Limit(**bad)
    with pytest.raises(BarcelonaError):
        Engine(seed=0, reward="money")
    with pytest.raises(BarcelonaError):
        e.hints(s, Limit(iterations=10), top=0)
    with pytest.raises(BarcelonaError):
        make_bot("alphazero")


def test_hints_are_playable_turn_plans():
    s = mid_game(3, seed=2)
    me = s.current_player()
    hints = Engine(seed=3).hints(s, Limit(iterations=3000), top=4)
    assert 1 <= len(hints) <= 4
    assert [h.visits for h in hints] == sorted((h.visits for h in hints), reverse=True)
    for h in hints:
        c = s.clone()
        for a, text in zip(h.actions, h.moves):
            assert c.current_player() == me and a in c.legal_actions()
            assert c.action_to_string(a) == text
            c.apply(a)
        assert abs(sum(h.win_prob) - 1) < 1e-3
        assert len(h.expected_score) == 3


def test_analysis_is_consistent():
    s = mid_game(4, seed=6)
    a = Engine(seed=1).analyse(s, Limit(iterations=2000))
    assert abs(sum(p.win_prob for p in a.players) - 1) < 1e-6
    for p in a.players:
        assert abs(sum(p.breakdown.values()) - p.expected_score) < 1e-6
        assert p.expected_score >= p.current_score and p.score_stdev >= 0
    assert a.bytes_per_node == Tree.node_bytes() and a.nodes > 1
    assert a.moves[0].action in s.legal_actions()


def test_bots_play_legal_moves():
    s = mid_game(2, seed=5)
    for bot in (RandomBot(1), GreedyBot(1), FlatMCBot(200, 1), make_bot("ismcts:200", 1)):
        assert bot.choose(s) in s.legal_actions()


def test_arena_small_match_and_interval():
    r = match("greedy", "random", players=2, games=4, seed=3, workers=1, progress=False)
    assert r.games == 4 and 0 <= r.low <= r.share <= r.high <= 1
    lo, hi = wilson(45, 50)
    assert 0.78 < lo < 0.9 < hi < 0.97


def test_policy_duel_and_policy_weights():
    """The heuristic rollout policy beats uniform play (README measurements); its knobs validate input."""
    from barcelona_ai.arena import policy_duel
    from barcelona_ai.search import kind_weights, set_build_type_weights, set_kind_weights, set_place_build_weight
    share, low, high = policy_duel(2, 300, seed=1)
    assert low > 0.6
    for bad in (lambda: set_kind_weights([1] * 3), lambda: set_build_type_weights([0, 0, 0, 0]),
                lambda: set_place_build_weight(0)):
        with pytest.raises(BarcelonaError):
            bad()
    assert len(kind_weights()) == 19
