"""Fuzz over the Python API's arguments: every call with a wrong argument raises a BarcelonaError (a ValueError
naming the argument) and leaves the state as it was; nothing else escapes (no TypeError, OverflowError,
AttributeError, crash). Every combination of a list of awkward values is tried for each argument slot."""
import itertools

import pytest

from barcelona_ai import BarcelonaError, State, new_game
from barcelona_ai.search.engine import Engine, Limit, SearchSettings

AWKWARD = [None, -1, 0, 1, 3, 10**7, 10**30, -10**30, 2.5, float("nan"), float("inf"), True, "x", "", "SC05", "W",
           [], {}, b"x"]

STATE_METHODS = [("apply", 1), ("observation_hash", 1), ("determinize", 2), ("observation", 1),
                 ("condition_count", 2), ("playout", 1), ("random_games", 2), ("apply_undo_walk", 2), ("perft", 1),
                 ("action_to_string", 1), ("string_to_action", 1), ("to_json", 1), ("_hold", 2), ("is_hidden_draw", 1),
                 ("unseen_pool", 1), ("_make_drawable", 2), ("_give_hand", 3), ("places", 0), ("draws_for", 0)]
TOO_LONG = {"perft": 3, "random_games": 50, "apply_undo_walk": 10_000}    # valid but slow: keep the run short


def outcome(fn):
    """'ok', 'refused' (a BarcelonaError) or the name of any other exception."""
    try:
        fn()
    except BarcelonaError:
        return "refused"
    except Exception as exc:        # noqa: BLE001 - anything else is the defect this test looks for
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def counts_line(name, results):
    return f"{name}: tried {len(results)}, refused {results.count('refused')}, accepted {results.count('ok')}"


@pytest.mark.parametrize("method,arity", STATE_METHODS)
def test_state_methods_refuse_bad_arguments_cleanly(method, arity):
    s = new_game(3, seed=1)
    s.apply(s.legal_actions()[0])
    before = (s.hash(), s.history())
    results = []
    for args in itertools.product(AWKWARD, repeat=arity):
        if args and isinstance(args[0], int) and args[0] > TOO_LONG.get(method, 10**40):
            continue
        t = s.clone()
        results.append(outcome(lambda: getattr(t, method)(*args)))
        if results[-1] == "refused":
            assert (t.hash(), t.history()) == before, (method, args)      # a failed call changes nothing
    print(counts_line(method, results))
    assert all(r in ("ok", "refused") for r in results), sorted(set(results) - {"ok", "refused"})


def test_new_game_refuses_bad_arguments_cleanly():
    bad = [(3, "x"), (3, 1, 5), (3, 1, "x" * 5000), (3, 1, "default", "x"), (3, 10**30), (9, 1), ("3", 1),
           (3, -1), (3, 1, "../../etc/passwd"), (3, 1, "default\x00")]
    results = [outcome(lambda: State.new(*a)) for a in bad]
    assert results == ["refused"] * len(bad), results


def test_engine_calls_refuse_bad_arguments_cleanly():
    s = new_game(2, seed=1)
    before = s.hash()
    slots = [None, -1, 0, 1, 3, 10**30, 2.5, float("nan"), float("inf"), True, "x", [], s]
    limit = Limit(iterations=40)
    results = []
    for a, b in itertools.product(slots, repeat=2):
        results.append(outcome(lambda: Limit(a, b)))
        results.append(outcome(lambda: Engine(a)))
        results.append(outcome(lambda: Engine(0, a)))
        e = Engine(1)
        results.append(outcome(lambda: e.best_move(a, limit, b)))
        results.append(outcome(lambda: e.best_move(s, a, b)))
        results.append(outcome(lambda: e.hints(s, limit, a, b)))
        results.append(outcome(lambda: e.analyse(s, limit, a, b)))
        results.append(outcome(lambda: list(e.analysis(s, limit, 3, a, b))))
    for name in SearchSettings.__dataclass_fields__:
        for a in slots:
            results.append(outcome(lambda: Engine(**{name: a}).best_move(s, limit)))
    print(counts_line("engine", results))
    assert all(r in ("ok", "refused") for r in results), sorted(set(results) - {"ok", "refused"})
    assert s.hash() == before
