"""apply/undo is exact: long seeded random walks with invariant checks, and a Hypothesis state machine.

The walk covers at least one million actions over many 2-, 3- and 4-player games (the issue's floor); after
every action the components are checked (72 citizens, every tile and marker somewhere, nothing negative or over
capacity, what may be pending in each phase), and every game is undone back to its start, comparing the hash and
the full state at every depth. The million-action walk runs in C (State._walk_with_invariants, with the core's
C twin of invariants.check_invariants); a shorter walk drives the Python API with the Python checker, and the two
checkers are compared on random and deliberately broken states. CI also runs the long walks (``-m slow``): ten
times as many actions in C, and the million actions through the Python API and checker.
"""
import copy
import os
import random
import re

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from barcelona_ai import BarcelonaError, IllegalActionError, new_game
from barcelona_ai.core import State
from barcelona_ai.invariants import check_invariants

WALK_ACTIONS = int(os.environ.get("BARCELONA_WALK_ACTIONS", "1000000"))
PY_WALK_ACTIONS = 20_000                 # the Python API and checker, in the default run (CI: WALK_ACTIONS)


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
            assert s._invariant_problem() is None, (players, seed, applied)      # the C checker agrees
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
    """The walk through the Python API (apply, undo, hash, raw) with the Python checker (invariants.py)."""
    assert python_walk(PY_WALK_ACTIONS) >= PY_WALK_ACTIONS


@pytest.mark.slow
def test_long_random_walk_through_the_python_api():
    """CI: the million-action walk through the Python API and the Python checker (about 2 minutes)."""
    assert python_walk(WALK_ACTIONS) >= WALK_ACTIONS


# ---- the C checker (core.pyx state_invariant_problem) is invariants.py's --------------------------------------

def _leaves(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _leaves(v, path + (i,))
    else:
        yield path


def _get(raw, path):
    for k in path:
        raw = raw[k]
    return raw


def _put(raw, path, value):
    _get(raw, path[:-1])[path[-1]] = value


MASKS = {"track", "mod_stack", "mod_display", "mod_discard", "sag_offer", "sidewalk", "scored", "ps_built"}


def _mutate(raw, rng):
    """A copy of `raw` with one small change: a field +-1 (a bit of a mask flipped), two fields swapped, or one
    unit moved from a field to another (which keeps totals such as the 72 citizens)."""
    r = copy.deepcopy(raw)
    paths = list(_leaves(r))
    kind = rng.randrange(3)
    p, q = rng.sample(paths, 2)
    if kind == 0:
        v = _get(r, p)
        _put(r, p, v ^ (1 << rng.randrange(20)) if MASKS & set(p) else v + rng.choice((-1, 1)))
    elif kind == 1:
        a, b = _get(r, p), _get(r, q)
        _put(r, p, b)
        _put(r, q, a)
    else:
        _put(r, p, _get(r, p) + 1)
        _put(r, q, _get(r, q) - 1)
    return r


def _both(state):
    """The Python checker's first problem and the C checker's (None: consistent)."""
    py = check_invariants(state)
    return (py[0] if py else None), state._invariant_problem()


def test_c_checker_agrees_with_the_python_checker():
    """On states of random games and on mutations of them that pass the core's memory guard, the C checker
    finds a problem exactly when invariants.py does, and the same first problem in the same words."""
    rng = random.Random(9)
    kinds, compared = set(), 0
    for g in range(30):
        s = new_game(2 + g % 3, seed=g, setup="random" if g % 2 else "printed")
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            if rng.random() < 0.9:
                continue
            assert _both(s) == (None, None)
            raw = s.raw()
            for _ in range(8):
                try:
                    t = State._from_raw(_mutate(raw, rng))
                except BarcelonaError:                    # refused by the memory guard: never reaches a checker
                    continue
                py, c = _both(t)
                assert py == c, (g, py, c)
                compared += 1
                kinds.add(c and re.sub(r"-?\d+|\[.*?\]", "#", c))
    assert compared > 1000 and len(kinds) >= 20            # about 2,000 compared: 880 broken, 25 kinds


def _mid_game(players=3, seed=4, steps=150):
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        s.apply(rng.choice(s.legal_actions()))
    return s


def _broken(raw, expect):
    """`raw` passes the memory guard, and both checkers report `expect` first."""
    py, c = _both(State._from_raw(raw))
    assert py == c and expect in c, (py, c)


def test_c_checker_on_deliberately_broken_states():
    s = _mid_game()
    raw = s.raw()
    r = copy.deepcopy(raw)                                       # a citizen too many
    r["bag"][0] += 1
    _broken(r, f"class 0: {26} citizens accounted for")
    r = copy.deepcopy(raw)                                       # a citizen swapped for one of another class
    k = next(k for k in range(3) if r["bag"][k])
    r["bag"][k] -= 1
    r["bag"][(k + 1) % 3] += 1
    _broken(r, f"class {k}: ")
    r = copy.deepcopy(raw)                                       # a hand of -1 (the bag keeps the count)
    r["bag"][2] += r["pl"][1]["hand"][2] + 1
    r["pl"][1]["hand"][2] = -1
    _broken(r, "player 1 hand [")
    r = copy.deepcopy(raw)                                       # a Modernisme tile in two places
    tile = next(m for m in range(18) if r["mod_display"] >> m & 1)
    r["mod_stack"] |= 1 << tile
    _broken(r, "a Modernisme tile is in two places")
    r = copy.deepcopy(raw)                                       # a tile missing
    r["mod_display"] &= ~(1 << tile)
    _broken(r, "a Modernisme tile is missing")
    r = copy.deepcopy(raw)                                       # a fifth tile on the display
    assert bin(raw["mod_display"]).count("1") == 4
    m = next(m for m in range(18) if r["mod_stack"] >> m & 1)
    r["mod_stack"] &= ~(1 << m)
    r["mod_display"] |= 1 << m
    _broken(r, "the Modernisme display holds too many tiles")
    r = copy.deepcopy(raw)                                       # discards beside an empty stack (R73)
    r["mod_discard"] |= r["mod_stack"]
    r["mod_stack"] = 0
    _broken(r, "not reshuffled into it (R73)")
    r = copy.deepcopy(raw)                                       # score != its sources
    r["pl"][0]["score"] += 1
    _broken(r, "player 0 score ")
    r = copy.deepcopy(raw)                                       # a Street tile the player board does not count
    r["street_owner"][r["street_owner"].index(-1)] = 2
    _broken(r, "player 2: street tiles on the board")
    r = copy.deepcopy(raw)                                       # two Trams on one space
    r["pl"][0]["tram"] = r["pl"][1]["tram"] = 7
    _broken(r, "two Trams on one street space")
    r = copy.deepcopy(raw)                                       # a Sagrada tile both taken and offered
    r["pl"][0]["sagrada"] = 7
    r["pl"][0]["sag_tile"][2] = next(t for t in range(16) if raw["sag_offer"] >> t & 1)
    _broken(r, "Sagrada tiles are not each in exactly one place")
    r = copy.deepcopy(raw)                                       # a Public Service tile that came from nowhere
    ty = next(t for t in range(7) if r["ps_left"][t] > 0)
    r["ps_left"][ty] -= 1
    _broken(r, f"Public Service {ty}: ")
    r = copy.deepcopy(raw)                                       # section 0 scored or not, unlike the count
    r["scored"] ^= 1
    _broken(r, "scored sections != scorings done")
    r = copy.deepcopy(raw)                                       # one Cerdà tile in two sections
    gone = r["cerda_tile"][1]
    r["cerda_tile"][1] = r["cerda_tile"][0]
    mod_cond = s.game_data.edition.t["mod_cond"]
    r["mod_stack"] |= sum(1 << m for m in range(18) if mod_cond[m] == gone)       # its Modernisme twin is back
    _broken(r, "the three Cerdà tiles must be distinct Cerdà tiles of the edition")
    r = copy.deepcopy(raw)                                       # draws owed outside the draw step
    r["draws_left"] = 1
    r["phase"] = 0
    _broken(r, "draws left for a hand of")
    assert _both(State._from_raw(raw)) == (None, None)


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
