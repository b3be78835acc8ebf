"""The game log (gamelog.py): one line a move with the VP it gave, one line a scoring (R107-R108) with what every
player got, the refresh of the Modernisme display explained (R111), the final scoring (R124); the 'since your
last turn' summary and the board's last-move markers. What a seat's log says depends only on what that seat
saw (A6): twin games, which differ only in the hands the seat did not see, give the same log."""
import random

from barcelona_ai import Engine, Limit
from barcelona_ai.rules.gamelog import changes, entry_lines, events, move_gain, summary
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.rules.render import render_state
from barcelona_ai.workflows.session import Session, seen_by


def random_game(players: int, seed: int):
    """A seeded random game as a full record, and its states (before each entry, then the end)."""
    rec = GameRecord.for_new_game(players, seed)
    s = rec.initial_state()
    rng = random.Random(seed)
    states = [s.clone()]
    while not s.is_terminal():
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes())
            a = rng.choices(acts, probs)[0]
        else:
            a = rng.choice(s.legal_actions())
        rec.add(s, a)
        s.apply(a)
        states.append(s.clone())
    rec.finish(s)
    return rec, states


def test_scorings_are_event_lines_and_not_credited_to_the_move():
    rec, states = random_game(2, 3)
    lines = []
    for i, entry in enumerate(rec.actions):
        lines += entry_lines(states[i], entry, states[i + 1], i, 0)
    scorings = [ln for ln in lines if ln.event and ln.text.startswith("Cerdà Scoring of section")]     # R107-R108
    assert [ln.text.split(" (")[0] for ln in scorings] == [f"Cerdà Scoring of section {k}" for k in (1, 2, 3)]
    for ln in scorings:
        i = ln.index
        b, a = states[i], states[i + 1]
        p = b.current_player()
        gains = [a.scores()[q] - b.scores()[q] for q in range(2)]
        scored = [a.score_breakdown()[q]["cerda_scoring"] - b.score_breakdown()[q]["cerda_scoring"] for q in range(2)]
        assert ln.text.endswith(f"P0 {scored[0]:+d}, P1 {scored[1]:+d}")
        assert move_gain(b, a, p) == gains[p] - scored[p]
        move = next(x for x in lines if x.index == i and not x.event)
        assert (f"({gains[p] - scored[p]:+d} VP)" in move.text) == (gains[p] != scored[p])
    refresh = [ln.text for ln in lines if "new tiles revealed after the scoring" in ln.text]        # R111
    assert len(refresh) == 3 and all("on display are discarded (" in t for t in refresh)
    final = [ln.text for ln in lines if ln.text.startswith("Final scoring:")]                     # R124
    assert len(final) == 1 and lines[-1].event
    assert events(states[0], states[0]) == []


def test_summary_groups_a_players_turn_and_hides_other_draws():
    rec, states = random_game(3, 5)
    lines = []
    for i, entry in enumerate(rec.actions[:60]):
        lines += entry_lines(states[i], entry, states[i + 1], i, 1)
    text = "\n".join(summary(lines))
    assert "P1: " in text and "draws a citizen" in text
    for draw in (ln for ln in lines if ln.text.startswith("draws ") and ln.player != 1):
        assert draw.text == "draws a citizen"                       # another player's draw: not its citizen
    assert any(ln.text in ("draws W", "draws M", "draws U") for ln in lines if ln.player == 1)


def test_board_markers_show_what_changed():
    rec, states = random_game(2, 8)
    i = next(i for i, e in enumerate(rec.actions) if e["move"].startswith("build "))
    marks = changes(states[i], states[i + 1])
    assert marks["buildings"] and marks["crossings"]
    text = render_state(states[i + 1], marks)
    assert "<" in text and "changed since your last turn" in text
    assert render_state(states[i + 1]) == states[i + 1].render()      # no markers unless asked


def _session(rec, seat, seed, mode="table"):
    return Session(mode, rec, seat, seed, Limit(iterations=5), Engine(seed=0), [f"P{p}" for p in range(rec.players)])


def _said(sess):
    """Everything the session tells its seat about the game so far."""
    return summary(sess.since_last_turn()), [ln.text for ln in sess.log], sess.board_marks()


def test_twin_games_give_the_same_log_and_summary():
    """A table-mode record replayed with other seeds (other samples of the hands seat 0 did not see) and a
    played game against its view from seat 0 (session.seen_by): the same log, summary and board markers."""
    rec, states = random_game(3, 12)
    differ = 0
    for cut in (40, 77, 150, len(rec.actions)):
        part = GameRecord(players=3, start=rec.start, actions=[dict(e) for e in rec.actions[:cut]])
        full = _session(part, 0, 0, mode="play")
        view = GameRecord.from_json(seen_by(part, 0, 0).to_json())
        twins = [_session(view, 0, seed) for seed in (0, 1, 2, 99)]
        hands = {tuple(t.state.hand(q) for q in (1, 2)) for t in twins + [full]}
        differ += len(hands) > 1
        for t in twins:
            assert _said(t) == _said(full), cut
    assert differ >= 2, "the twins must differ in the hands seat 0 did not see"
