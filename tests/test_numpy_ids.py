"""Action ids may be numpy integers (what numpy-based code such as OpenSpiel's bots and most RL code return):
State.apply and every API that takes an action id accept them as the equal Python int, and still refuse bools,
floats (numpy floats included) and ids out of range with an error that names the value."""
import json
import re

import numpy as np
import pytest

from barcelona_ai import BarcelonaError, IllegalActionError, new_game
from barcelona_ai.core import action_id, integer_value
from barcelona_ai.rules.notation import describe_action_id
from barcelona_ai.rules.record import GameRecord

NUMPY_INTS = (np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64, np.intp)
NOT_INTEGERS = (True, False, np.bool_(True), 3.0, np.float64(3.0), np.float32(3.0), "3", None, [3], 3 + 0j)


def _played(actions) -> list:
    """The states along a seeded game played with `actions(legal)` choosing each id."""
    s = new_game(players=3, seed=7)
    hashes = []
    k = 0
    while not s.is_terminal() and k < 200:
        legal = s.legal_actions()
        s.apply(actions(legal[k % len(legal)]))
        hashes.append(s.hash())
        k += 1
    return hashes


@pytest.mark.parametrize("kind", NUMPY_INTS)
def test_apply_accepts_numpy_integers_as_the_same_id(kind):
    assert _played(kind) == _played(int)


def test_a_numpy_id_is_stored_in_history_as_a_python_int():
    s = new_game(players=2, seed=1)
    s.apply(np.int64(s.legal_actions()[0]))
    assert all(type(a) is int for a in s.history())


@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_apply_refuses_bools_and_floats_naming_the_value(bad):
    s = new_game(players=2, seed=1)
    before = s.hash()
    with pytest.raises(IllegalActionError) as err:
        s.apply(bad)
    assert repr(bad) in str(err.value)
    assert s.hash() == before and s.history() == []


@pytest.mark.parametrize("bad", [np.int64(-1), np.int32(10**6), np.uint64(2**63), -1, 10**6])
def test_out_of_range_ids_are_refused_naming_the_value(bad):
    s = new_game(players=2, seed=1)
    with pytest.raises(IllegalActionError, match=str(int(bad))):
        s.apply(bad)
    with pytest.raises(IllegalActionError, match=str(int(bad))):
        s.action_to_string(bad)
    with pytest.raises(IllegalActionError, match=str(int(bad))):
        action_id(bad)
    assert describe_action_id(bad) == "unknown id"


def test_an_illegal_numpy_id_is_refused_and_changes_nothing():
    s = new_game(players=2, seed=1)
    legal = set(s.legal_actions())
    illegal = next(a for a in range(1000) if a not in legal)
    with pytest.raises(IllegalActionError, match=f"^'{re.escape(s.action_to_string(illegal))}' cannot be played now: "):
        s.apply(np.int64(illegal))
    assert s.history() == []


def test_notation_takes_numpy_ids():
    s = new_game(players=2, seed=3)
    for a in s.legal_actions():
        assert s.action_to_string(np.int64(a)) == s.action_to_string(a)
        assert describe_action_id(np.int32(a)) == describe_action_id(a)
        assert s.string_to_action(s.action_to_string(np.int16(a))) == a
    a = s.legal_actions()[0]
    assert s.string_to_action(np.int64(a)) == s.string_to_action(a)


@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_notation_refuses_bools_and_floats(bad):
    s = new_game(players=2, seed=3)
    with pytest.raises(BarcelonaError, match="action id"):
        s.action_to_string(bad)
    with pytest.raises(IllegalActionError, match="action id"):
        action_id(bad)
    assert describe_action_id(bad) == "unknown id"


def test_a_record_takes_numpy_ids_and_stays_json():
    s = new_game(players=2, seed=5)
    rec = GameRecord.for_new_game(2, seed=5)
    for _ in range(30):
        a = np.int64(s.legal_actions()[-1])
        rec.add(s, a)
        s.apply(a)
    doc = json.loads(rec.dumps())
    assert [e["id"] for e in doc["actions"]] == s.history()
    with pytest.raises(IllegalActionError, match="2.0"):
        rec.add(s, np.float64(2.0))


def test_integer_value():
    assert integer_value(np.uint8(7)) == 7 and type(integer_value(np.uint8(7))) is int
    assert integer_value(7) == 7
    for bad in NOT_INTEGERS:
        assert integer_value(bad) is None
