"""The private raw path into the rules core, and the tests that need it.

Everything else in the package and the tests reads a state through State.view() and builds one through the
position loader (docs/positions.md, barcelona_ai/rules/position.py), the validated way in. The raw dicts of StateC
fields (State.raw(), State._set_raw(), State._from_raw()) are what that loader hands the core, and these tests
are about that path itself, so they use it (tests/test_boundary.py allows them here, and nowhere else but the
core, the loader and tests/test_view.py, whose oracle is raw()):

* the core's memory-safety guard refuses a raw dict with a value C would use out of bounds, as unpickling does;
* _set_raw(raw()) is exact;
* the Python reference checker (invariants.check_raw, which the loader runs on every raw dict it builds) agrees
  with the C checker (core.pyx state_invariant_problem, invariants.check_invariants) on random states, on
  mutated raw dicts and on deliberately broken ones, and finds nothing on a walk through the Python API;
* a state built from an observation (other hands unknown: no document builds one) renders them as hidden.
"""
import copy
import os
import random
import re

import pytest

from barcelona_ai import BarcelonaError, new_game
from barcelona_ai.core import State
from invariants import check_raw
from barcelona_ai.rules.render import render_player

WALK_ACTIONS = int(os.environ.get("BARCELONA_WALK_ACTIONS", "1000000"))
PY_WALK_ACTIONS = 20_000                 # the default run; CI (-m slow) walks WALK_ACTIONS


# ---- the memory-safety guard ---------------------------------------------------------------------------------

def test_raw_state_access_is_private_and_guarded():
    """set_raw / from_raw took any dict: they are internals now (_set_raw, _from_raw), and even they refuse a value
    C would use out of bounds (core.pyx raw_bounds_problem), as does unpickling."""
    from barcelona_ai import core
    assert callable(core._state_from_pickle)                        # unpickling goes through the guard too
    assert not hasattr(State, "set_raw") and not hasattr(State, "from_raw")
    s = new_game(3, seed=2)
    for field, value, message in (("nframes", 25, "nframes"), ("cur", 3, "cur"), ("mod_stack", 1 << 20, "mask"),
                                  ("phase", 9, "phase")):
        r = s.raw()
        r[field] = value
        with pytest.raises(BarcelonaError, match=message):
            State._from_raw(r)
    r = s.raw()
    r["nframes"] = 1
    r["frames"][0] = dict(kind=1, player=0, a=0, b=120, src=1, lst=34)     # MARKER on building space 120
    with pytest.raises(BarcelonaError, match="building space 120"):
        s.clone()._set_raw(r)
    fn, args = s.__reduce__()
    with pytest.raises(BarcelonaError, match="building space 120"):
        fn(args[0], r, [], [])
    with pytest.raises(BarcelonaError, match="history action"):
        fn(args[0], args[1], [args[1]], [10 ** 6])


def test_raw_round_trip_keeps_hash():
    """_set_raw(raw()) is exact: the structs have no padding bytes the hash could see."""
    rng = random.Random(5)
    s = new_game(4, seed=5)
    for _ in range(300):
        if s.is_terminal():
            break
        assert State._from_raw(s.raw()).hash() == s.hash()
        s.apply(rng.choice(s.legal_actions()))


# ---- the C checker (core.pyx state_invariant_problem) is the Python reference's (invariants.check_raw) -------

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
    """The Python checker's first problem (invariants.check_raw on the raw dict) and the C checker's (None:
    consistent). The states compared here passed the core's memory guard (_from_raw), so the C checker's
    first step, that guard, finds nothing."""
    py = check_raw(state.raw(), state.game_data.edition)
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


# ---- the Python reference checker on a walk through the Python API -------------------------------------------

def reference_walk(actions: int) -> int:
    """Seeded random games (2 + seed % 3 players, the printed setup for even seeds) until `actions` actions: after
    every action the Python reference checker finds nothing, nor does the C checker."""
    total, seed = 0, 0
    while total < actions:
        rng = random.Random(seed * 7919 + 2 + seed % 3)
        s = new_game(2 + seed % 3, seed=seed, setup="random" if seed % 2 else "printed")
        ed = s.game_data.edition
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            total += 1
            problems = check_raw(s.raw(), ed)
            assert not problems, (seed, total, problems)
            assert s._invariant_problem() is None, (seed, total)
        seed += 1
    return total


def test_python_reference_checker_on_a_walk():
    assert reference_walk(PY_WALK_ACTIONS) >= PY_WALK_ACTIONS


@pytest.mark.slow
def test_python_reference_checker_on_a_long_walk():
    """CI: the million-action walk through the Python API with the Python reference checker."""
    assert reference_walk(WALK_ACTIONS) >= WALK_ACTIONS


# ---- a state built from an observation -----------------------------------------------------------------------

def test_hidden_hand_is_shown_as_a_count():
    """A6: an observation hides other hands as [size, -1, -1]; a state built from it renders them hidden."""
    s = new_game(4, seed=1, setup="printed")
    obs = State._from_raw(s.observation(0))
    assert "hidden" in render_player(obs, 1)
    assert "hand: " in render_player(obs, 0) and "hidden" not in render_player(obs, 0)
