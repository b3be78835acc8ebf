"""Playouts of the learned turn policy blended into the win probabilities shown (SearchSettings.playouts): they
depend only on what the searcher sees (A6), they are seeded, and they change the numbers shown, never
the moves."""
import math
import time

import pytest

from barcelona_ai import BarcelonaError, new_game
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.search.running import MIN_TIMED_PLAYOUTS
from barcelona_ai.search.settings import MAX_PLAYOUTS, PRESETS, TURN_POLICY, load_policy
from barcelona_ai.search.tree import policy_playouts

from test_twin_states import decision_positions, twin_groups

POLICY = load_policy(TURN_POLICY)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_depend_only_on_what_the_viewpoint_sees(players):
    for s, *others in twin_groups(players, seed=70 + players, count=3):
        p = s.current_player()
        first = policy_playouts(POLICY, s, p, 24, 0.5, 5)
        for t in others:
            assert policy_playouts(POLICY, t, p, 24, 0.5, 5) == first


def test_playouts_are_seeded_whole_games_that_leave_the_state_as_it_was():
    s = decision_positions(4, seed=3, count=1)[0]
    before = s.hash()
    win, score = policy_playouts(POLICY, s, s.current_player(), 50, 0.5, 8)
    assert s.hash() == before
    assert math.isclose(sum(win), 1.0)                      # each game's win shares sum to 1 (ties shared, R127)
    assert all(f >= now for f, now in zip(score, s.scores()))   # VP are never lost
    assert policy_playouts(POLICY, s, s.current_player(), 50, 0.5, 8) == (win, score)
    assert policy_playouts(POLICY, s, s.current_player(), 50, 0.5, 9) != (win, score)


@pytest.mark.parametrize("viewpoint, count, temperature", [(4, 10, 0.5), (-1, 10, 0.5), (0, 0, 0.5),
                                                          (0, 2_000_000, 0.5), (0, 10, -1.0), (0, 10, float("nan"))])
def test_playouts_refuse_bad_arguments(viewpoint, count, temperature):
    with pytest.raises(BarcelonaError):
        policy_playouts(POLICY, new_game(4, seed=1), viewpoint, count, temperature, 1)


def test_playouts_refuse_a_missing_policy_or_state():
    with pytest.raises(TypeError):
        policy_playouts(None, new_game(4, seed=1), 0, 10, 0.5, 1)
    with pytest.raises(TypeError):
        policy_playouts(POLICY, None, 0, 10, 0.5, 1)


def test_the_blend_moves_the_win_probabilities_shown_and_nothing_else():
    s = decision_positions(4, seed=12, count=2)[1]
    limit = Limit(iterations=1200)
    shown = {w: Engine(seed=4, playouts=64, playout_weight=w).hints(s, limit, top=3) for w in (0.0, 0.25, 1.0)}
    alone = Engine(seed=4, playouts=0).hints(s, limit, top=3)
    assert [h.to_dict() for h in shown[0.0]] == [h.to_dict() for h in alone]
    for quarter, none, only in zip(shown[0.25], shown[0.0], shown[1.0]):
        assert quarter.actions == none.actions == only.actions and quarter.visits == none.visits
        assert quarter.expected_score == none.expected_score == only.expected_score
        for q in range(4):                                  # a linear blend of the search's and the playouts'
            assert math.isclose(quarter.win_prob[q], 0.75 * none.win_prob[q] + 0.25 * only.win_prob[q])
    assert any(a.win_prob != b.win_prob for a, b in zip(shown[1.0], shown[0.0]))
    shorter = Engine(seed=4, playouts=64, playout_weight=1.0).hints(s, Limit(iterations=500), top=3)
    by_move = {h.actions[0]: h.win_prob for h in shown[1.0]}
    common = [h for h in shorter if h.actions[0] in by_move]
    assert common and all(h.win_prob == by_move[h.actions[0]] for h in common)    # the playouts' alone
    assert Engine(seed=4).best_move(s, limit) == Engine(seed=4, playouts=0).best_move(s, limit)
    report = Engine(seed=4, playouts=64, playout_weight=1.0).analyse(s, limit, top=1)
    assert [pl.win_prob for pl in report.players] == shown[1.0][0].win_prob          # the root value's too


def test_the_default_blends_playouts_in_four_players_only():
    assert {n: PRESETS["default"][n].playouts for n in (2, 3, 4)} == {2: 0, 3: 0, 4: 128}
    assert all(s.playouts == 0 for s in PRESETS["v0"].values())


@pytest.mark.parametrize("setting, value", [("playouts", -1), ("playouts", True), ("playouts", 1.5),
                                            ("playouts", 10**6), ("playout_weight", 1.5), ("playout_weight", "0.5"),
                                            ("playout_weight", float("nan"))])
def test_bad_playout_settings_are_refused_by_name(setting, value):
    with pytest.raises(BarcelonaError, match=setting):
        Engine(**{setting: value})


def test_a_time_limit_keeps_the_playouts_in():
    """Under a time limit the playouts fit into at most half of it (timed on PLAYOUT_TRIAL games): each move shown
    gets as many as fit, none below MIN_TIMED_PLAYOUTS, and their time is taken out of the search's, for the calls
    that show numbers; nothing changes for best_move, an iteration limit, or without playouts."""
    s = decision_positions(4, seed=3, count=1)[0]

    def started(engine, limit, **call):
        t0 = time.monotonic()
        search = engine._start(s, limit, None, **call)
        return t0, search, time.monotonic()

    t0, search, t1 = started(Engine(playouts=MAX_PLAYOUTS), Limit(time=1.0), shown=3)
    assert MIN_TIMED_PLAYOUTS <= search.playouts < MAX_PLAYOUTS          # far more playouts than the time
    assert t0 + 0.5 <= search.deadline <= t1 + 0.5 + 0.05                # about half of it is theirs
    t0, search, t1 = started(Engine(playouts=128), Limit(time=0.002), shown=5)
    assert search.playouts == 0 and t0 + 0.002 <= search.deadline <= t1 + 0.002    # none fit: none played
    t0, search, t1 = started(Engine(playouts=128), Limit(time=100.0), shown=3)
    assert search.playouts == 128 and t0 + 50 < search.deadline < t0 + 100
    for engine, call in ((Engine(playouts=MAX_PLAYOUTS), {}), (Engine(playouts=0), {"shown": 3})):
        t0, search, t1 = started(engine, Limit(time=1.0), **call)
        assert t0 + 1.0 <= search.deadline <= t1 + 1.0
    assert started(Engine(playouts=MAX_PLAYOUTS), Limit(iterations=100), shown=3)[1].deadline is None
