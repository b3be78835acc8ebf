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
from barcelona_ai.workflows.review import (MARKS, THRESHOLDS, VP_BOUNDS, Decision, PlayerSummary, Review, accuracy_of,
                                           excess, mark_of, marked_by, review_record, summarize, thresholds_line)
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
    assert [name for name, _ in THRESHOLDS] == list(MARKS[:-1]) == [name for name, _ in VP_BOUNDS]
    assert mark_of(0.3, engine_move=True, vp_loss=50) == "best"
    for name, bound in THRESHOLDS:
        assert mark_of(bound) == name
    for name, bound in VP_BOUNDS:
        assert mark_of(0.0, vp_loss=bound) == name
    assert [mark_of(x) for x in (0.0, 0.03, 0.07, 0.15, 0.2000001, 0.9)] == \
        ["best", "good", "inaccuracy", "mistake", "blunder", "blunder"]
    assert "mistake <= 0.20, blunder > 0.20" in thresholds_line()
    assert "mistake <= 16, blunder > 16" in thresholds_line()


def test_marks_combine_both_scales():
    """The mark is the worse of the win-probability mark and the VP mark: a player far behind, whose win
    probability hardly moves, is marked by the VP lost; one whose VP hardly moves, by the win probability."""
    assert mark_of(0.0, vp_loss=10.0) == "mistake" and marked_by(0.0, 10.0) == "final VP"
    assert mark_of(0.15, vp_loss=0.0) == "mistake" and marked_by(0.15, 0.0) == "win probability"
    assert mark_of(0.07, vp_loss=20.0) == "blunder" and mark_of(0.25, vp_loss=5.0) == "blunder"
    assert mark_of(0.04, vp_loss=3.0) == "good" and marked_by(0.04, 3.0) == "both"
    assert excess(5.0, 2.0) == 3.0 and excess(1.0, 2.0) == 0.0
    assert accuracy_of(0.0, 0.0) == 100.0 and accuracy_of(0.10, 0.0) == pytest.approx(50.0)
    assert accuracy_of(0.0, 8.0) == pytest.approx(50.0) and 0.0 < accuracy_of(1.0, 100.0) < 1.0


@pytest.fixture(scope="module")
def short_record():
    g = play_game(["random", "random"], setup_seed=7, bot_seed=7)
    rec = GameRecord.from_json(g.record)
    rec.actions = rec.actions[:40]
    rec.result = None
    return rec


DECISION_FIELDS = ["index", "player", "played", "played_id", "engine_move", "engine_id", "engine_win_prob",
                   "played_win_prob", "played_visits", "evaluated_by", "loss", "mark", "engine_score",
                   "played_score", "vp_loss", "win_prob_noise", "vp_noise", "marked_by", "accuracy", "engine_visits",
                   "engine_line", "round"]


def test_review_returns_data_and_reports_progress(short_record):
    calls = []
    r = review_record(short_record, Limit(iterations=8), seed=1, progress=lambda k, i, n: calls.append((k, i, n)))
    assert isinstance(r, Review) and r.decisions and all(isinstance(d, Decision) for d in r.decisions)
    assert [k for k, _, _ in calls] == list(range(1, len(r.decisions) + 1))
    assert [i for _, i, _ in calls] == [d.index for d in r.decisions] and {n for _, _, n in calls} == {40}
    for d in r.decisions:
        assert d.mark == mark_of(excess(d.loss, d.win_prob_noise), d.played_id == d.engine_id,
                                 excess(d.vp_loss, d.vp_noise))
        assert d.loss >= 0 and d.vp_loss >= 0 and d.win_prob_noise >= 0 and d.vp_noise >= 0
        assert d.evaluated_by in ("engine", "root", "search")
    assert [s.player for s in r.summary] == [0, 1]
    assert all(isinstance(s, PlayerSummary) and s.decisions == sum(s.marks.values()) for s in r.summary)
    assert sum(s.decisions for s in r.summary) == len(r.decisions)
    doc = r.to_dict()
    assert list(doc) == ["decisions", "summary", "seats", "swings"]
    assert list(doc["decisions"][0]) == DECISION_FIELDS
    assert list(doc["summary"][0]) == ["player", "decisions", *MARKS, "mean_loss", "mean_vp_loss", "accuracy"]
    assert json.loads(json.dumps(doc)) == doc            # plain JSON, as the web server sends it
    again = review_record(short_record, Limit(iterations=8), seed=1)
    assert again.to_dict() == doc                       # same seed, same review


def test_vp_loss_beside_win_probability_lost(short_record):
    """Both losses are the engine's move's number minus the played move's, from the same estimates; the engine's
    own move loses nothing and scores 100."""
    r = review_record(short_record, Limit(iterations=30), seed=2)
    assert any(d.played_id == d.engine_id for d in r.decisions) and any(d.vp_loss > 0 for d in r.decisions)
    for d in r.decisions:
        assert d.loss == pytest.approx(max(0.0, d.engine_win_prob - d.played_win_prob))
        assert d.vp_loss == pytest.approx(max(0.0, d.engine_score - d.played_score))
        assert 0 <= d.played_score <= 400 and 0 <= d.engine_score <= 400 and d.round >= 1
        assert 0.0 <= d.accuracy <= 100.0
        if d.played_id == d.engine_id:
            assert (d.loss, d.vp_loss, d.mark, d.accuracy, d.evaluated_by) == (0.0, 0.0, "best", 100.0, "engine")
            assert d.played_score == d.engine_score
    for row in r.summary:
        mine = [d for d in r.decisions if d.player == row.player]
        assert 0.0 <= row.accuracy <= 100.0
        assert row.accuracy == pytest.approx(sum(d.accuracy for d in mine) / len(mine))
        assert row.mean_vp_loss == pytest.approx(sum(d.vp_loss for d in mine) / len(mine))


def test_biggest_swings_come_with_the_engines_line():
    g = play_game(["random", "greedy"], setup_seed=3, bot_seed=3)
    rec = GameRecord.from_json(g.record)
    rec.actions, rec.result = rec.actions[:60], None
    r = review_record(rec, Limit(iterations=40), seed=0)
    swings = r.swing_decisions()
    assert swings and [d.index for d in swings] == r.swings and len(swings) <= 5
    assert [d.severity for d in swings] == sorted((d.severity for d in swings), reverse=True)
    worst = max(d.severity for d in r.decisions if MARKS.index(d.mark) >= 2)
    assert swings[0].severity == worst
    for d in swings:
        assert MARKS.index(d.mark) >= MARKS.index("inaccuracy") and d.played_id != d.engine_id
        assert d.engine_line[0] == d.engine_move and d.marked_by in ("win probability", "final VP", "both")


def _play_saved_record(players: int, entries: int) -> GameRecord:
    """A game against the engine saved before its end, as `play` saves it (Session.record_to_save: the seat's
    view, the engine's draws hidden), read back from its JSON."""
    from barcelona_ai.workflows.session import play_session
    sess = play_session(0, Limit(iterations=10), players=players, seed=3)
    bot = GreedyBot(1)
    while len(sess.record.actions) < entries:
        s = sess.state
        a = sess.chance_outcome() if s.is_chance_node() else \
            bot.choose(s) if s.current_player() == 0 else sess.engine_move()
        sess.push(sess.entry(a), not s.is_chance_node() and s.current_player() == 0)
    return GameRecord.from_json(sess.record_to_save().to_json())


def test_every_seat_of_a_play_saved_record_is_reviewed():
    rec = _play_saved_record(3, 70)
    assert rec.viewpoint == 0 and any(e["id"] is None for e in rec.actions)
    r = review_record(rec, Limit(iterations=8), seed=0)
    assert [s.player for s in r.summary] == [0, 1, 2]
    assert {d.player for d in r.decisions} == {0, 1, 2}
    for note in r.seats:
        assert note.reviewed + note.left_out == note.decisions > 0
    assert sum(n.reviewed for n in r.seats) == len(r.decisions) >= sum(n.decisions for n in r.seats) - 3


def test_decisions_made_holding_unseen_citizens_are_left_out_and_said_why():
    """Cut a record kept from seat 0 before P1's placement shows what P1 held at decisions in P0's turn: those
    decisions cannot be reviewed, and the review says so."""
    from barcelona_ai.workflows.session import seen_by
    g = play_game(["greedy"] * 3, setup_seed=5, bot_seed=5)
    rec = GameRecord.from_json(seen_by(GameRecord.from_json(g.record), 0, 0).to_json())
    cut = next(i for i, e in enumerate(rec.actions) if i > 60 and e.get("by") == 1 and e["move"].startswith("place"))
    rec.actions = rec.actions[:cut]
    r = review_record(rec, Limit(iterations=8), seed=0)
    note = r.seats[1]
    assert note.left_out >= 1 and note.reviewed + note.left_out == note.decisions
    assert "held citizens this record does not show" in note.why and "P0's seat" in note.why
    assert r.seats[0].left_out == 0 and r.seats[0].why == ""


def test_printed_review_is_in_player_words(short_record, capsys):
    """What `review` prints: no internal names (FOO_BAR), no action ids, no rule numbers."""
    import re
    from barcelona_ai.cli.analysis import _print_review
    r = review_record(short_record, Limit(iterations=30), seed=2)
    _print_review(short_record, "game.json", Limit(iterations=30), 2, r)
    text = capsys.readouterr().out
    assert "Biggest swings" in text and "Accuracy: " in text and "VP lost" in text
    assert not re.search(r"\b[A-Z]+_[A-Z_]+\b", text)                  # enum names
    assert not re.search(r"\b[RA]\d+\b", text)                         # rule numbers
    assert not re.search(r"#\d|\bid\b|_id\b|evaluated_by|engine_|played_", text)   # ids and field names
    for d in r.decisions:
        assert str(d.played) in text


def test_summarize_counts_one_players_marks():
    ds = [Decision(i, i % 2, "x", 0, "y", 1, 0.5, 0.5 - loss, 0, "root", loss, mark_of(loss),
                   vp_loss=10 * loss, accuracy=accuracy_of(loss, 0.0))
          for i, loss in enumerate([0.0, 0.3, 0.04, 0.01, 0.08])]
    s = summarize(ds, 0)
    assert s.decisions == 3 and s.marks == {"best": 1, "good": 1, "inaccuracy": 1, "mistake": 0, "blunder": 0}
    assert s.mean_loss == pytest.approx((0.0 + 0.04 + 0.08) / 3)
    assert s.mean_vp_loss == pytest.approx((0.0 + 0.4 + 0.8) / 3)
    assert s.accuracy == pytest.approx(sum(accuracy_of(x, 0.0) for x in (0.0, 0.04, 0.08)) / 3)
    assert summarize(ds, 3).decisions == 0 and summarize(ds, 3).mean_loss == 0.0
