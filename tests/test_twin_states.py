"""Hidden information is sacred (A6): nothing the engine computes for player p may depend on what p cannot see.

Twin states differ only in hidden information (the other players' citizens in hand and, with them, the bag):
every answer for the player to move -- best_move, hints, analyse, the streaming analysis and the command line's
``hint --json`` -- must be identical, byte for byte."""
import json
import random

import pytest

from barcelona_ai import BarcelonaError, new_game
from barcelona_ai.cli import main as cli
from barcelona_ai.search.engine import Engine, Limit


def decision_positions(players: int, seed: int, count: int, spacing: int = 23):
    """`count` decisions of a seeded random game, `spacing` actions apart (chance outcomes drawn by the seed)."""
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    out = []
    steps = 0
    while len(out) < count and not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
        steps += 1
        if steps % spacing == 0 and not s.is_chance_node() and not s.is_terminal():
            out.append(s.clone())
    return out


def twins(s, k: int = 3):
    """The state and k others that differ from it only in what the player to move cannot see."""
    p = s.current_player()
    others = [s.determinize(p, 1000 + i) for i in range(k)]
    hidden = [tuple(o.hand(q) for q in range(s.num_players) if q != p) for o in others]
    return [s] + others, len(set(hidden)) > 1


def twin_groups(players: int, seed: int, count: int) -> list[list]:
    """At `count` decisions of a seeded game (decision_positions), each state with its twins (twins); fails unless
    the twins of some position really differ in hidden hands."""
    groups, varied = [], 0
    for s in decision_positions(players, seed=seed, count=count):
        group, differ = twins(s)
        groups.append(group)
        varied += differ
    assert varied, "the twins must really differ in hidden hands"
    return groups


def answers(s, iterations: int, threads: int = 1) -> str:
    """Everything the engine says about s, as one JSON text."""
    e = Engine(seed=11, threads=threads)
    limit = Limit(iterations=iterations)
    stream = [r.to_dict() for r in Engine(seed=11, threads=threads).analysis(s, limit, top=3, interval=0.05)]
    return json.dumps({"best": e.best_move(s, limit),
                       "hints": [h.to_dict() for h in e.hints(s, limit, top=4)],
                       "analyse": e.analyse(s, limit, top=4).to_dict(),
                       "stream_last": stream[-1]}, sort_keys=True)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_twin_states_get_identical_answers(players):
    for s, *others in twin_groups(players, seed=40 + players, count=4):
        first = answers(s, 700)
        for t in others:
            assert t.observation_hash(s.current_player()) == s.observation_hash(s.current_player())
            assert answers(t, 700) == first


def test_twin_states_with_two_threads():
    s = decision_positions(4, seed=8, count=2)[-1]
    group, differ = twins(s, 2)
    assert differ
    assert len({answers(t, 800, threads=2) for t in group}) == 1


def test_main_lines_write_other_placements_without_hidden_citizens():
    """Another player's placement in a main line names only the citizen on top (the one the search chose);
    the one beneath would be a guess at a hidden hand (A6). Every player count: which main lines reach another
    player's placement depends on the model each count reads."""
    seen = 0
    positions = [p for n in (2, 3, 4) for p in decision_positions(n, seed=5, count=6)]
    for s in positions:
        me = s.current_player()
        for h in Engine(seed=2).hints(s, Limit(iterations=1500), top=3):
            for step in h.main_line:
                who, _, text = step.partition(": ")
                if who not in ("chance", f"P{me}") and text.startswith("place "):
                    seen += 1
                    assert text.endswith(" on top") and "/" not in text
    assert seen, "some main line should reach another player's placement"


def test_cli_hint_json_is_identical_for_twin_position_files(tmp_path, monkeypatch, capsys):
    s = decision_positions(3, seed=21, count=2)[-1]
    group, differ = twins(s, 2)
    assert differ
    outputs = []
    for i, t in enumerate(group):
        folder = tmp_path / f"twin{i}"
        folder.mkdir()
        (folder / "position.json").write_text(json.dumps(t.to_json()))
        monkeypatch.chdir(folder)
        assert cli.main(["hint", "position.json", "--json", "--iterations", "600", "--top", "3"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] and all(o == outputs[0] for o in outputs)


def test_determinize_has_no_real_history():
    s = decision_positions(3, seed=4, count=1)[0]
    assert s.history()
    d = s.determinize(s.current_player(), 5)
    assert d.history() == []
    with pytest.raises(BarcelonaError):
        d.undo()
    assert d.observation_hash(s.current_player()) == s.observation_hash(s.current_player())


def test_determinize_depends_only_on_the_observation():
    s = decision_positions(4, seed=6, count=1)[0]
    p = s.current_player()
    group, differ = twins(s)
    assert differ
    assert len({t.determinize(p, 77).hash() for t in group}) == 1


def test_a_saved_game_is_the_players_view_and_replays_to_it():
    """play's save before the end (session.seen_by): no seed, other players' draws hidden; replayed with any seed it
    gives a state that seat 0 cannot tell from the real one (A6)."""
    from barcelona_ai.workflows.session import seen_by
    from barcelona_ai.rules.record import GameRecord, is_draw_for_other
    rng = random.Random(9)
    rec = GameRecord.for_new_game(3, 12345)
    s = rec.initial_state()
    hidden = 0
    for _ in range(150):
        a = rng.choice(s.legal_actions())
        hidden += is_draw_for_other(s, 0)
        rec.add(s, a)
        s.apply(a)
    seen = seen_by(rec, 0, 12345)
    text = json.dumps(seen.to_json())
    assert "12345" not in text and seen.viewpoint == 0
    assert sum(e["id"] is None for e in seen.actions) == hidden > 0
    for seed in range(5):
        assert seen.replay(seed=seed).observation_hash(0) == s.observation_hash(0)
    assert json.dumps(seen_by(seen, 0, 777).to_json()) == text          # seeing it again changes nothing
