"""The library behind `review`, `selfplay` and the bots' games (review.py, selfplay.py, playout.py), called
directly as a web page would: data objects back, progress through callbacks, nothing printed."""
import json
import random

import pytest

from barcelona_ai import new_game
from barcelona_ai.workflows.arena import play_game as arena_game
from barcelona_ai.search.bots import GreedyBot, RandomBot
from barcelona_ai.search.engine import Limit
from barcelona_ai.workflows.playout import chance_outcome, play_out
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.workflows.review import (MARKS, THRESHOLDS, Decision, PlayerSummary, Review, mark_of, review_record,
                                 summarize, thresholds_line)
from barcelona_ai.workflows.selfplay import SelfplayGame, play_game, run_selfplay


# ---------------------------------------------------------------------------------------------------------------
# playout: the one loop of bots and seeded chance

def test_play_out_draws_chance_in_one_order_and_counts_decisions():
    s = new_game(3, seed=2)
    steps = []
    decisions = play_out(s, [GreedyBot(p) for p in range(3)], random.Random(9),
                         on_step=lambda st, a: steps.append((st.is_chance_node(), a)))
    assert s.is_terminal() and s.history() == [a for _, a in steps]
    assert decisions == sum(1 for chance, _ in steps if not chance)

    t = new_game(3, seed=2)                             # the same loop written out: the same game
    bots, rng = [GreedyBot(p) for p in range(3)], random.Random(9)
    while not t.is_terminal():
        if t.is_chance_node():
            acts, probs = zip(*t.chance_outcomes())
            t.apply(rng.choices(acts, probs)[0])
        else:
            t.apply(bots[t.current_player()].choose(t))
    assert t.history() == s.history() and t.scores() == s.scores()


def test_play_out_stops_before_a_decision():
    s = new_game(2, seed=1)
    asked = []

    def stop(st):
        asked.append(st.is_chance_node())
        return len(asked) == 5
    n = play_out(s, [RandomBot(0), RandomBot(1)], random.Random(0), stop=stop)
    assert n == 4 and not any(asked) and not s.is_terminal() and not s.is_chance_node()


def test_chance_outcome_is_a_legal_outcome():
    s = new_game(2, seed=3)
    while not s.is_chance_node():
        s.apply(s.legal_actions()[0])
    assert chance_outcome(s, random.Random(1)) in [a for a, _ in s.chance_outcomes()]


# ---------------------------------------------------------------------------------------------------------------
# selfplay

def test_selfplay_game_is_the_arena_game_of_the_same_seeds():
    g = play_game(["greedy", "random"], setup_seed=3, bot_seed=3)
    a = arena_game(["greedy", "random"], 3, 3)
    assert isinstance(g, SelfplayGame) and g.setup_seed == 3
    assert g.scores == a["scores"] and g.returns == a["returns"] and g.decisions == a["decisions"]
    rec = GameRecord.from_json(g.record)                # the record replays to the same end
    assert rec.replay().scores() == g.scores and rec.result["scores"] == g.scores
    assert g.winners == [p for p in range(2) if g.returns[p] > 0]


def test_run_selfplay_writes_records_and_reports_each_game(tmp_path):
    seen = []
    run = run_selfplay(["random", "greedy"], 2, 5, tmp_path, on_game=lambda g, game, path: seen.append((g, path)))
    assert [g for g, _ in seen] == [1, 2] and run.paths == [p for _, p in seen]
    assert [p.name for p in run.paths] == ["game-0001.json", "game-0002.json"]
    for game, path in zip(run.games, run.paths):
        assert json.loads(path.read_text()) == game.record
    assert [g.setup_seed for g in run.games] == [5, 6]
    again = play_game(["random", "greedy"], 6, 6)
    assert again.record == run.games[1].record          # a game depends only on its seed


def test_run_selfplay_names_the_file_it_cannot_write(tmp_path):
    (tmp_path / "game-0001.json").mkdir()
    with pytest.raises(OSError) as exc:
        run_selfplay(["random", "random"], 1, 0, tmp_path)
    assert exc.value.filename == str(tmp_path / "game-0001.json") and exc.value.strerror


# ---------------------------------------------------------------------------------------------------------------
# review

def test_marks_follow_the_thresholds():
    assert [name for name, _ in THRESHOLDS] == list(MARKS[:-1])
    assert mark_of(0.3, engine_move=True) == "best"
    for name, bound in THRESHOLDS:
        assert mark_of(bound) == name
    assert [mark_of(x) for x in (0.0, 0.03, 0.07, 0.15, 0.2000001, 0.9)] == \
        ["best", "good", "inaccuracy", "mistake", "blunder", "blunder"]
    assert thresholds_line().endswith("mistake <= 0.20, blunder > 0.20")


@pytest.fixture(scope="module")
def short_record():
    g = play_game(["random", "random"], setup_seed=7, bot_seed=7)
    rec = GameRecord.from_json(g.record)
    rec.actions = rec.actions[:40]
    rec.result = None
    return rec


def test_review_returns_data_and_reports_progress(short_record):
    calls = []
    r = review_record(short_record, Limit(iterations=8), seed=1, progress=lambda k, i, n: calls.append((k, i, n)))
    assert isinstance(r, Review) and r.decisions and all(isinstance(d, Decision) for d in r.decisions)
    assert [k for k, _, _ in calls] == list(range(1, len(r.decisions) + 1))
    assert [i for _, i, _ in calls] == [d.index for d in r.decisions] and {n for _, _, n in calls} == {40}
    for d in r.decisions:
        assert d.mark == mark_of(d.loss, d.played_id == d.engine_id) and d.loss >= 0
        assert d.evaluated_by in ("engine", "root", "search")
    assert [s.player for s in r.summary] == [0, 1]
    assert all(isinstance(s, PlayerSummary) and s.decisions == sum(s.marks.values()) for s in r.summary)
    assert sum(s.decisions for s in r.summary) == len(r.decisions)
    doc = r.to_dict()
    assert list(doc) == ["decisions", "summary"]
    assert list(doc["decisions"][0]) == ["index", "player", "played", "played_id", "engine_move", "engine_id",
                                         "engine_win_prob", "played_win_prob", "played_visits", "evaluated_by",
                                         "loss", "mark"]
    assert list(doc["summary"][0]) == ["player", "decisions", *MARKS, "mean_loss"]
    again = review_record(short_record, Limit(iterations=8), seed=1)
    assert again.to_dict() == doc                       # same seed, same review


def test_summarize_counts_one_players_marks():
    ds = [Decision(i, i % 2, "x", 0, "y", 1, 0.5, 0.5 - loss, 0, "root", loss, mark_of(loss))
          for i, loss in enumerate([0.0, 0.3, 0.04, 0.01, 0.08])]
    s = summarize(ds, 0)
    assert s.decisions == 3 and s.marks == {"best": 1, "good": 1, "inaccuracy": 1, "mistake": 0, "blunder": 0}
    assert s.mean_loss == pytest.approx((0.0 + 0.04 + 0.08) / 3)
    assert summarize(ds, 3).decisions == 0 and summarize(ds, 3).mean_loss == 0.0
