"""No crash through the engine's API: one engine called from several threads, budgets that end before the first
iteration, and the tree's accessors given any index."""
import threading
import time

import pytest

from barcelona_ai import BarcelonaError, Engine, Limit, new_game
from barcelona_ai.search.tree import Tree

from test_twin_states import decision_positions


def _next_decision(state):
    """The state after the first legal action of the player to move and everyone else's, until that player decides
    again (a continuation of the position: what a reused tree is re-rooted at)."""
    later = state.clone()
    player = later.current_player()
    later.apply(later.legal_actions()[0])
    while later.current_player() != player:
        later.apply(later.legal_actions()[0])
    return later


@pytest.mark.parametrize("players", [2, 4])
def test_one_engine_called_from_two_threads_runs_the_calls_one_after_the_other(players):
    """Calls on one engine (tree reuse on, as the arena's player has it) from two threads on consecutive positions:
    the second waits for the first (so it never re-roots or reads trees the first is searching), and each
    answers for its own position."""
    first = decision_positions(players, seed=31, count=1)[0]
    positions = [first, _next_decision(first)]
    engine = Engine(seed=2, reuse_tree=True)
    ended: dict[str, float] = {}
    answers: dict[str, int] = {}
    errors: list[BaseException] = []

    def call(name, state, limit):
        try:
            answers[name] = engine.best_move(state, limit)
            ended[name] = time.monotonic()
        except BaseException as exc:              # re-raised below
            errors.append(exc)

    long = threading.Thread(target=call, args=("long", positions[0], Limit(time=0.6)))
    long.start()
    time.sleep(0.1)                               # the long call is searching
    short = threading.Thread(target=call, args=("short", positions[1], Limit(iterations=50)))
    short.start()
    for t in (long, short):
        t.join(60)
    assert not errors and set(ended) == {"long", "short"}
    assert ended["short"] >= ended["long"]        # it waited: alone it takes a few milliseconds
    assert answers["long"] in positions[0].legal_actions() and answers["short"] in positions[1].legal_actions()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_budget_spent_before_the_first_iteration_still_answers(players):
    s = decision_positions(players, seed=32, count=1)[0]
    tiny = Limit(time=1e-6)
    report = Engine(seed=1).analyse(s, tiny)
    assert report.iterations >= 1 and report.moves and report.players
    hints = Engine(seed=1).hints(s, tiny)
    assert hints and hints[0].actions[0] in s.legal_actions()
    assert Engine(seed=1).best_move(s, tiny) in s.legal_actions()
    with Engine(seed=1).analysis(s, tiny, interval=0.01) as stream:
        reports = list(stream)
    assert reports and reports[-1].iterations >= 1


def test_a_stream_keeps_its_trees_from_later_calls():
    """A stream's trees are its own: a call on a continuation between two of its slices searches fresh trees."""
    s = decision_positions(2, seed=33, count=1)[0]
    engine = Engine(seed=3, reuse_tree=True)
    stream = engine.analysis(s, Limit(iterations=3000), interval=0.01)
    first = next(stream)
    later = _next_decision(s)
    assert engine.best_move(later, Limit(iterations=500)) == \
        Engine(seed=3, reuse_tree=True).best_move(later, Limit(iterations=500))
    for report in stream:
        assert report.iterations >= first.iterations
    assert stream.latest.iterations == 3000


def test_tree_accessors_check_their_index():
    s = new_game(2, seed=1)
    engine = Engine(seed=1, preset="v0")
    t = Tree(s, s.current_player(), engine.settings[2].params(), 1)
    t.run(iterations=50)
    assert t.node(0)["visits"] == 50 and t.children(0)
    for bad in (-1, t.num_nodes, 10 ** 6):
        with pytest.raises(BarcelonaError, match=f"no node {bad}"):
            t.node(bad)
        with pytest.raises(BarcelonaError, match=f"no node {bad}"):
            t.children(bad)
