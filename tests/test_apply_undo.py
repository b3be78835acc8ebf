"""apply/undo is exact: long seeded random walks with invariant checks, and a Hypothesis state machine.

The walk covers at least one million actions over many 2-, 3- and 4-player games (the issue's floor); after
every action the components are checked (invariants.check_invariants: 72 citizens, every tile and marker
somewhere, nothing negative or over capacity), and every game is undone back to its start, comparing the hash
and the full serialisation at every depth.
"""
import os
import random

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from barcelona_ai import IllegalActionError, new_game
from barcelona_ai.core import State
from barcelona_ai.invariants import check_invariants

WALK_ACTIONS = int(os.environ.get("BARCELONA_WALK_ACTIONS", "1000000"))


def play_and_unwind(players: int, seed: int, check_every: int = 1) -> int:
    """One seeded random game with a few undo/redo detours; then undo to the start. Returns actions applied."""
    rng = random.Random(seed * 7919 + players)
    s = new_game(players=players, seed=seed, setup="random" if seed % 2 else "printed")
    hashes = [s.hash()]
    raws = [s.raw()]
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
        raws.append(None if len(raws) % 16 else s.raw())
        if rng.random() < 0.03 and len(hashes) > 4:          # detour: undo a few, continue from there
            k = rng.randint(1, 3)
            for _ in range(k):
                s.undo()
                hashes.pop()
                raws.pop()
            assert s.hash() == hashes[-1]
    assert len(s.history()) == len(hashes) - 1
    for depth in range(len(hashes) - 1, 0, -1):
        s.undo()
        assert s.hash() == hashes[depth - 1], (players, seed, depth)
        if raws[depth - 1] is not None:
            assert s.raw() == raws[depth - 1]
    return applied


def test_long_random_walk_with_invariants():
    """>= 1,000,000 actions (BARCELONA_WALK_ACTIONS overrides) across 2/3/4-player games."""
    total, seed = 0, 0
    while total < WALK_ACTIONS:
        total += play_and_unwind(2 + seed % 3, seed)
        seed += 1
    assert total >= WALK_ACTIONS


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


def test_raw_round_trip_keeps_hash():
    """_set_raw(raw()) is exact: the structs have no padding bytes the hash could see."""
    rng = random.Random(5)
    s = new_game(4, seed=5)
    for _ in range(300):
        if s.is_terminal():
            break
        assert State._from_raw(s.raw()).hash() == s.hash()
        s.apply(rng.choice(s.legal_actions()))


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
    before = (s.hash(), s.raw())
    for bad in (-1, 10_000, 331, s.legal_actions()[-1] + 1000, "5", 3.0, True):
        with pytest.raises(IllegalActionError):
            s.apply(bad)
    assert (s.hash(), s.raw()) == before
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
