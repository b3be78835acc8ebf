"""pytest-benchmark: the ISMCTS search. Run: python -m pytest bench --benchmark-only"""
import pytest
from _util import per_second

from barcelona_ai import new_game
from barcelona_ai.engine import Engine, Limit
from barcelona_ai.search import Tree

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
    benchmark.extra_info["iterations_per_second"] = per_second(benchmark, a.iterations)


def test_random_games_reference(benchmark):
    """The core's random 4-player games in the same run, for the search/core ratio."""
    s = new_game(4, seed=1)
    benchmark(s.random_games, 200, 1)
    benchmark.extra_info["games_per_second"] = per_second(benchmark, 200)
