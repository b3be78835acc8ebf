"""Game records: replay gives the same state; table-mode records with hidden draws agree with what the
viewpoint player saw; malformed records name the field."""
import json
import re
import random

import pytest

from barcelona_ai import new_game
from barcelona_ai.rules.record import GameRecord, InvalidRecordError, ensure_hand, is_draw_for_other


def played(players=3, seed=4, viewpoint=None, steps=None):
    s = new_game(players, seed=seed)
    rec = GameRecord.for_new_game(players, seed, viewpoint=viewpoint)
    rng = random.Random(seed)
    n = 0
    while not s.is_terminal() and (steps is None or n < steps):
        hidden = is_draw_for_other(s, viewpoint)
        a = rng.choice(s.legal_actions())
        rec.add(s, a, hidden=hidden)
        s.apply(a)
        n += 1
    rec.finish(s)
    return s, rec


@pytest.mark.parametrize("players", [2, 3, 4])
def test_replay_is_exact(players):
    s, rec = played(players, seed=players)
    back = GameRecord.from_json(rec.dumps())
    assert back.replay().hash() == s.hash()
    assert back.result == {"scores": s.scores(), "returns": s.returns()}
    mid = back.replay(upto=40)
    assert len(mid.history()) == 40


def test_decisions_walk_the_entries_where_a_player_decides():
    """decisions() yields (d, state) for every entry at which a seat decides, numbered from 0, in order; chance
    entries (draws) are skipped; the states are those steps() walks through."""
    s, rec = played(3, seed=5)
    expected = [(i, st.hash()) for i, st, entry in rec.steps() if entry is not None and st.current_player() >= 0]
    got = [(d, st.hash()) for d, st in rec.decisions()]
    assert [d for d, _ in got] == list(range(len(expected)))
    assert [h for _, h in got] == [h for _, h in expected]
    assert 0 < len(got) < len(rec.actions)            # some entries were chance outcomes


def test_table_mode_record_agrees_with_the_viewpoint():
    """A6: other players' draws are hidden entries; replay samples them and corrects hands at placements."""
    s, rec = played(3, seed=5, viewpoint=0)
    assert any(e["id"] is None for e in rec.actions)
    for seed in (1, 2, 3):
        t = GameRecord.from_json(rec.dumps()).replay(seed=seed)
        assert t.is_terminal() and t.scores() == s.scores()
        assert t.observation_hash(0) == s.observation_hash(0)


def test_record_from_a_position():
    s = new_game(2, seed=8)
    rng = random.Random(1)
    for _ in range(30):
        s.apply(rng.choice(s.legal_actions()))
    while s.is_chance_node():
        s.apply(s.legal_actions()[0])
    rec = GameRecord.for_position(s)
    a = s.legal_actions()[0]
    rec.add(s, a)
    s.apply(a)
    assert GameRecord.from_json(rec.dumps()).replay().hash() == s.hash()


def test_ensure_hand_swaps_with_the_bag_only():
    s = new_game(3, seed=2)
    before = s.view()
    ensure_hand(s, 1, [2, 2])
    after = s.view()
    assert after.players[1].hand == (0, 0, 2)
    for k in range(3):
        assert after.bag[k] + after.players[1].hand[k] == before.bag[k] + before.players[1].hand[k]
    assert after.players[0] == before.players[0] and after.players[2] == before.players[2]
    with pytest.raises(InvalidRecordError):
        ensure_hand(s, 1, [0, 0, 0])


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d.update(format="chess-pgn"), "format"),
    (lambda d: d.update(version=3), "version"),
    (lambda d: d.update(players=5), "players"),
    (lambda d: d.update(start={"seed": -4}), "start.seed"),
    (lambda d: d.update(viewpoint=9), "viewpoint"),
    (lambda d: d["actions"].__setitem__(3, {"id": "x"}), "actions[3].id"),
    (lambda d: d["actions"].__setitem__(5, {"id": 634}), "actions[5].id"),
    (lambda d: d.update(comment="hi"), "comment"),
])
def test_malformed_records_name_the_field(mutate, field):
    _, rec = played(2, seed=1, steps=20)
    doc = json.loads(rec.dumps())
    mutate(doc)
    with pytest.raises(InvalidRecordError, match="^" + re.escape(field)):
        GameRecord.from_json(doc)


def test_unreadable_records():
    with pytest.raises(InvalidRecordError, match="not valid JSON"):
        GameRecord.from_json("{oops")
    with pytest.raises(InvalidRecordError, match="cannot be read"):
        GameRecord.load("/no/such/record.json")
