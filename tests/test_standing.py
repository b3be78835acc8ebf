"""`eval` (standing.evaluate): who is ahead as one seat sees it, at any moment: its own decision, another
player's, a chance point, the end. Hidden information is sacred (A6): twin positions, which differ only in the
hands the seat cannot see, get identical evaluations."""
import json
import random

from barcelona_ai import new_game
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.workflows.standing import evaluate, standing_lines

LIMIT = Limit(iterations=200)


def walk(players: int, seed: int, stop):
    """A seeded random game up to the first state where stop(state) holds."""
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    while not stop(s):
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes())
            s.apply(rng.choices(acts, probs)[0])
        else:
            s.apply(rng.choice(s.legal_actions()))
    return s


def twins_for(s, seat: int, k: int = 3):
    """s and k states that differ from it only in what `seat` cannot see."""
    group = [s] + [s.determinize(seat, 500 + i) for i in range(k)]
    hidden = {tuple(t.hand(q) for q in range(s.num_players) if q != seat) for t in group}
    assert all(t.observation_hash(seat) == s.observation_hash(seat) for t in group)
    return group, len(hidden) > 1


def answer(s, seat):
    return json.dumps(evaluate(s, Engine(seed=3), LIMIT, viewpoint=seat, seed=1).to_dict(), sort_keys=True)


def test_eval_on_another_players_turn_reads_no_hidden_hand():
    s = walk(3, 4, lambda s: len(s.history()) > 60 and not s.is_chance_node() and s.current_player() == 2)
    group, differ = twins_for(s, 0)
    assert differ
    first = answer(s, 0)
    assert all(answer(t, 0) == first for t in group[1:])
    st = evaluate(s, Engine(seed=3), LIMIT, viewpoint=0)
    assert st.kind == "other" and st.samples == 4 and abs(sum(p.win_prob for p in st.players) - 1) < 1e-6


def test_eval_at_a_chance_point_averages_over_the_draw_and_reads_no_hidden_hand():
    s = walk(2, 6, lambda s: len(s.history()) > 40 and s.is_chance_node())
    group, differ = twins_for(s, 0)
    assert differ
    first = answer(s, 0)
    assert all(answer(t, 0) == first for t in group[1:])
    st = evaluate(s, Engine(seed=3), LIMIT, viewpoint=0)
    assert st.kind == "chance" and "samples of the draw or reveal" in standing_lines(st)[0]


def test_eval_on_the_seats_own_decision_is_one_search():
    s = walk(2, 8, lambda s: len(s.history()) > 30 and not s.is_chance_node() and s.current_player() == 1)
    st = evaluate(s, Engine(seed=3), LIMIT, viewpoint=1)
    a = Engine(seed=3).analyse(s, LIMIT, top=1)
    assert st.kind == "decision" and st.iterations == a.iterations
    assert [p.win_prob for p in st.players] == [p.win_prob for p in a.players]
    group, _ = twins_for(s, 1)
    assert len({answer(t, 1) for t in group}) == 1


def test_eval_at_the_end_is_the_result():
    s = walk(2, 9, lambda s: s.is_terminal())
    st = evaluate(s, Engine(), LIMIT, viewpoint=0)
    assert st.kind == "final" and st.iterations == 0
    assert [p.expected_score for p in st.players] == s.scores() and [p.win_prob for p in st.players] == s.returns()
    text = "\n".join(standing_lines(st))
    assert "The game is over" in text and " won: " in text
