"""apply/undo is exact: long seeded random walks with invariant checks, and a Hypothesis state machine.

The walk covers at least one million actions over many 2-, 3- and 4-player games (the floor it is held to); after
every action the components are checked (72 citizens, every tile and marker somewhere, nothing negative or over
capacity, what may be pending in each phase), and every game is undone back to its start, comparing the hash and
the full state at every depth. The million-action walk runs in C (State._walk_with_invariants, with the core's
C checker); a shorter walk drives the Python API (apply, undo, hash, view) with invariants.check_invariants
(the same C checker). The C checker and the Python reference (invariants.check_raw) are compared on random and
deliberately broken states in tests/test_raw_path.py, which also walks the Python API with the reference. CI
also runs the long walks (``-m slow``): ten times as many actions in C, and the million actions through the
Python API.
"""
import os
import random

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from barcelona_ai import BarcelonaError, IllegalActionError, new_game
from barcelona_ai.core import State
from invariants import check_invariants

WALK_ACTIONS = int(os.environ.get("BARCELONA_WALK_ACTIONS", "1000000"))
PY_WALK_ACTIONS = 20_000                 # the Python API, in the default run (CI: WALK_ACTIONS)


def play_and_unwind(players: int, seed: int, check_every: int = 1) -> int:
    """One seeded random game with a few undo/redo detours; then undo to the start. Returns actions applied."""
    rng = random.Random(seed * 7919 + players)
    s = new_game(players=players, seed=seed, setup="random" if seed % 2 else "printed")
    hashes = [s.hash()]
    views = [s.view()]                                        # every field of the state (tests/test_view.py)
    applied = 0
    while not s.is_terminal():
        acts = s.legal_actions()
        assert acts, "a non-terminal state must have a legal action"
        s.apply(rng.choice(acts))
        applied += 1
        if applied % check_every == 0:
            problems = check_invariants(s)
            assert not problems, (players, seed, applied, problems)
        hashes.append(s.hash())
        views.append(None if len(views) % 16 else s.view())
        if rng.random() < 0.03 and len(hashes) > 4:          # detour: undo a few, continue from there
            k = rng.randint(1, 3)
            for _ in range(k):
                s.undo()
                hashes.pop()
                views.pop()
            assert s.hash() == hashes[-1]
    assert len(s.history()) == len(hashes) - 1
    for depth in range(len(hashes) - 1, 0, -1):
        s.undo()
        assert s.hash() == hashes[depth - 1], (players, seed, depth)
        if views[depth - 1] is not None:
            assert s.view() == views[depth - 1]
    return applied


def python_walk(actions: int) -> int:
    total, seed = 0, 0
    while total < actions:
        total += play_and_unwind(2 + seed % 3, seed)
        seed += 1
    return total


def test_long_random_walk_with_invariants():
    """>= 1,000,000 actions (BARCELONA_WALK_ACTIONS overrides) across 2/3/4-player games (seeds 0, 1, ...: 2 + seed
    % 3 players, the printed setup for even seeds), in C: the invariants after every action, undo detours, and
    every game undone to its start with the hash and the bytes compared at every depth."""
    r = State._walk_with_invariants(WALK_ACTIONS, first_seed=0)
    assert r["actions"] >= WALK_ACTIONS and r["undos"] == r["actions"]
    assert r["games"] == r["next_seed"] and (WALK_ACTIONS < 10_000 or r["games"] > 1000)


@pytest.mark.slow
def test_ten_million_action_walk_in_c():
    """CI: ten times the walk, in C, over other games (seeds from 100,000)."""
    r = State._walk_with_invariants(10 * WALK_ACTIONS, first_seed=100_000)
    assert r["actions"] >= 10 * WALK_ACTIONS and r["undos"] == r["actions"]


def test_random_walk_through_the_python_api():
    """The walk through the Python API (apply, undo, hash, view) with invariants.check_invariants."""
    assert python_walk(PY_WALK_ACTIONS) >= PY_WALK_ACTIONS


@pytest.mark.slow
def test_long_random_walk_through_the_python_api():
    """CI: the million-action walk through the Python API (the Python reference checker walks in
    tests/test_raw_path.py)."""
    assert python_walk(WALK_ACTIONS) >= WALK_ACTIONS


def test_c_walk_reports_the_game_and_the_action():
    """The C walk stops at the first problem: a citizen slipped into the bag after the walk's 1,234th action."""
    with pytest.raises(BarcelonaError, match=r"walk: game seed \d+ \(\d players, (printed|random) setup\), action "
                                             r"\d+ of the game \(1234 of the walk\): class 0: 26 citizens"):
        State._walk_with_invariants(5000, corrupt_at=1234)
    assert State._walk_with_invariants(0) == {"games": 0, "actions": 0, "undos": 0, "longest_game": 0,
                                              "next_seed": 0}
    for bad in (-1, 1.5, True, "10"):
        with pytest.raises(BarcelonaError):
            State._walk_with_invariants(bad)


def test_undo_restores_bit_for_bit():
    s = new_game(3, seed=11)
    start = s.hash()
    rng = random.Random(3)
    for _ in range(150):
        s.apply(rng.choice(s.legal_actions()))
    for _ in range(150):
        s.undo()
    assert s.hash() == start
    with pytest.raises(ValueError):
        s.undo()


def test_clone_is_independent():
    s = new_game(4, seed=2)
    c = s.clone()
    c.apply(c.legal_actions()[0])
    assert c.hash() != s.hash()
    assert s.history() == [] and len(c.history()) == 1
    c.undo()
    assert c.hash() == s.hash()


def test_illegal_action_changes_nothing():
    s = new_game(2, seed=1)
    before = (s.hash(), s.view())
    for bad in (-1, 10_000, 331, s.legal_actions()[-1] + 1000, "5", 3.0, True):
        with pytest.raises(IllegalActionError):
            s.apply(bad)
    assert (s.hash(), s.view()) == before
    assert s.history() == []


class ApplyUndoMachine(RuleBasedStateMachine):
    """Hypothesis drives apply (by index into the legal list) and undo; the hash must retrace its steps."""

    @initialize(players=st.integers(2, 4), seed=st.integers(0, 10_000))
    def start(self, players, seed):
        self.s = new_game(players, seed=seed)
        self.hashes = [self.s.hash()]

    @precondition(lambda self: not self.s.is_terminal())
    @rule(i=st.integers(0, 10_000))
    def apply(self, i):
        acts = self.s.legal_actions()
        self.s.apply(acts[i % len(acts)])
        self.hashes.append(self.s.hash())

    @precondition(lambda self: len(self.hashes) > 1)
    @rule()
    def undo(self):
        self.s.undo()
        self.hashes.pop()

    @invariant()
    def consistent(self):
        if hasattr(self, "s"):
            assert self.s.hash() == self.hashes[-1]
            assert not check_invariants(self.s)


ApplyUndoMachine.TestCase.settings = ApplyUndoMachine.TestCase.settings
TestApplyUndo = ApplyUndoMachine.TestCase


def test_pickle_round_trip_keeps_state_and_history():
    import pickle
    s = new_game(3, seed=4)
    rng = random.Random(4)
    for _ in range(40):
        s.apply(rng.choice(s.legal_actions()))
    t = pickle.loads(pickle.dumps(s))
    assert t.hash() == s.hash() and t.history() == s.history()
    for _ in range(40):
        t.undo()
    assert t.hash() == new_game(3, seed=4).hash()
