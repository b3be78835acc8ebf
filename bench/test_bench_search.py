"""pytest-benchmark: the ISMCTS search. Run: python -m pytest bench --benchmark-only"""
import pytest
from _util import per_second

from barcelona_ai import new_game
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.search.tree import Tree

ITERATIONS = 3000


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ismcts_iterations(benchmark, players):
    s = new_game(players, seed=1)
    e = Engine(seed=1)
    a = benchmark(e.analyse, s, Limit(iterations=ITERATIONS))
    assert a.iterations == ITERATIONS
    benchmark.extra_info["iterations_per_second"] = per_second(benchmark, ITERATIONS)
    benchmark.extra_info["nodes"] = a.nodes
    benchmark.extra_info["bytes_per_node"] = Tree.node_bytes()


@pytest.mark.parametrize("threads", [1, 2])
def test_ismcts_threads(benchmark, threads):
    s = new_game(4, seed=1)
    e = Engine(seed=1, threads=threads)
    a = benchmark(e.analyse, s, Limit(iterations=4000))
    assert a.iterations >= 4000 and a.best.actions[0] in s.legal_actions()
    benchmark.extra_info["iterations_per_second"] = per_second(benchmark, a.iterations)


def test_random_games_reference(benchmark):
    """The core's random 4-player games in the same run, for the search/core ratio."""
    s = new_game(4, seed=1)
    actions = benchmark(s.random_games, 200, 1)
    assert actions > 40 * 200
    benchmark.extra_info["games_per_second"] = per_second(benchmark, 200)


@pytest.mark.parametrize("root_halving", [True, False])
def test_time_limit_overshoot(benchmark, root_halving):
    """Wall time of a 0.5 s best_move from the 4-player setup (sequential halving, the default, and UCB1);
    extra_info["overshoot"]: the worst round past the limit, as a fraction of it.
    Measured here, not asserted in tests/: timings on a shared machine are noisy."""
    s = new_game(4, seed=2)
    e = Engine(seed=1, root_halving=root_halving)
    e.best_move(s, Limit(iterations=200))                            # warm up
    move = benchmark.pedantic(e.best_move, args=(s, Limit(time=0.5)), rounds=3, iterations=1)
    assert move in s.legal_actions()
    stats = getattr(benchmark, "stats", None)
    if stats:
        benchmark.extra_info["overshoot"] = stats.stats.max / 0.5 - 1
