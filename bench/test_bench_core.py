"""pytest-benchmark: the rules core. Run: python -m pytest bench --benchmark-only

The speed targets are checked in docs/measurements/speed.md, not here: timings on shared machines are noisy.
"""
import pytest
from _util import per_second

from barcelona_ai import new_game
from barcelona_ai.core import State

GAMES = 200


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games(benchmark, players):
    s = new_game(players, seed=1)
    actions = benchmark(s.random_games, GAMES, 1)
    assert actions > 40 * GAMES
    benchmark.extra_info["games_per_call"] = GAMES
    benchmark.extra_info["actions_per_game"] = actions / GAMES
    benchmark.extra_info["games_per_second"] = per_second(benchmark, GAMES)
    benchmark.extra_info["actions_per_second"] = per_second(benchmark, actions)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_apply_undo(benchmark, players):
    s = new_game(players, seed=1)
    n = benchmark(s.apply_undo_walk, 50_000, 1)
    assert n == 50_000 and s.raw() == new_game(players, seed=1).raw()          # every apply undone
    benchmark.extra_info["apply_undo_per_second"] = per_second(benchmark, n)


def test_legal_actions_python(benchmark):
    s = new_game(4, seed=1)
    acts = benchmark(s.legal_actions)
    assert acts


def test_checked_apply_undo_python(benchmark):
    s = new_game(4, seed=1)
    a = s.legal_actions()[0]

    def step():
        s.apply(a)
        s.undo()
    benchmark(step)
    assert s.history() == [] and s.raw() == new_game(4, seed=1).raw()


def test_invariant_walk(benchmark):
    """The C walk of tests/test_apply_undo.py: random actions with the invariants after each, undo detours,
    every game undone to its start and compared at every depth."""
    r = benchmark(State._walk_with_invariants, 50_000)
    assert r["actions"] >= 50_000 and r["games"] > 0
    benchmark.extra_info["walk_actions_per_second"] = per_second(benchmark, r["actions"])


def test_clone_midgame(benchmark):
    """State.clone() with 120 actions of history: the history is shared copy-on-write, not copied."""
    import random
    s = new_game(4, seed=1)
    rng = random.Random(7)
    while len(s.history()) < 120:
        s.apply(rng.choice(s.legal_actions()))
    c = benchmark(s.clone)
    assert c.history() == s.history()
