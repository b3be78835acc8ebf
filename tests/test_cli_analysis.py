"""hint, analyse, review and selfplay driven as a user would: in a subprocess. Budgets are tiny
(50-200 ISMCTS iterations): these tests check what the commands print and accept, not playing strength."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from barcelona_ai import BarcelonaError, CONSTANTS as C, new_game
from barcelona_ai.workflows.review import MARKS, THRESHOLDS, VP_BOUNDS, excess, mark_of, thresholds_line
from barcelona_ai.workflows.examples import example_position, list_examples
from barcelona_ai.rules.record import GameRecord, is_draw_for_other

EXAMPLES = ["midgame-3p", "start-2p", "start-3p", "start-4p"]


def run(*args, ok=True):
    p = subprocess.run([sys.executable, "-m", "barcelona_ai", *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def run_json(*args):
    return json.loads(run(*args, "--json").stdout)


def user_error(*args) -> str:
    """Run a command that must fail as a user error: exit code 2, one 'error: ...' line, no traceback."""
    p = run(*args, ok=False)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    return lines[0]


def assert_plan_legal(state, move: dict) -> None:
    """A move/plan of the JSON payload: its actions are legal one after the other and match its notation."""
    s = state.clone()
    assert move["actions"] and len(move["actions"]) == len(move["moves"])
    for a, text in zip(move["actions"], move["moves"]):
        assert not s.is_chance_node() and a in s.legal_actions()
        assert s.action_to_string(a) == text
        s.apply(a)


def check_payload(doc: dict, state, iterations: int) -> None:
    n = state.num_players
    assert doc["engine"].startswith("barcelona_ai ")
    assert doc["seed"] == 0 and doc["budget"] == {"iterations": iterations}
    assert doc["iterations"] == iterations
    assert doc["to_move"] == state.current_player()
    assert doc["moves"]
    for m in doc["moves"]:
        assert set(m) >= {"moves", "actions", "visits", "win_prob", "expected_score", "main_line"}
        assert len(m["win_prob"]) == n and len(m["expected_score"]) == n and m["visits"] >= 1
        assert all(0.0 <= w <= 1.0 for w in m["win_prob"])
        assert_plan_legal(state, m)
    assert [p["player"] for p in doc["players"]] == list(range(n))
    for p in doc["players"]:
        assert set(p) >= {"win_prob", "expected_score", "score_stdev", "current_score", "breakdown", "to_come"}
    assert sum(p["win_prob"] for p in doc["players"]) == pytest.approx(1.0, abs=1e-6)
    assert [p["current_score"] for p in doc["players"]] == state.scores()


# ---------------------------------------------------------------------------------------------------------------
# shipped example positions

def test_shipped_examples_load_and_are_what_they_claim():
    assert list_examples() == EXAMPLES
    for p in (2, 3, 4):                           # fresh setups R10-R32: new_game(p, seed=1, setup="random")
        s = example_position(f"start-{p}p")
        assert s.hash() == new_game(p, seed=1, setup="random").hash()
    mid = example_position("midgame-3p")
    assert mid.num_players == 3 and mid.phase == 0            # start of a turn: a placement (R33)
    assert not mid.is_chance_node() and min(mid.scores()) > 0
    with pytest.raises(BarcelonaError, match="start-2p"):
        example_position("endgame-5p")


# ---------------------------------------------------------------------------------------------------------------
# hint and analyse

@pytest.mark.parametrize("name", EXAMPLES)
def test_hint_human_output(name):
    out = run("hint", name, "--iterations", 100, "--top", 2).stdout
    s = example_position(name)
    me = s.current_player()
    assert f"player {me} to move" in out and f"Turn plans for player {me} (100 ISMCTS iterations" in out
    assert " 1. place (" in out and "searched" in out and "expected final VP" in out and "[all: P0 " in out
    assert "    why: " in out


@pytest.mark.parametrize("name", EXAMPLES)
def test_hint_json_payload(name):
    doc = run_json("hint", name, "--iterations", 100, "--top", 3)
    s = example_position(name)
    check_payload(doc, s, 100)
    assert 1 <= len(doc["moves"]) <= 3 and doc["kind"] == "hint"
    shown = [m["win_prob"][s.current_player()] for m in doc["moves"]]     # best first, by the number shown
    assert shown[0] == max(shown) and shown[1:] == sorted(shown[1:], reverse=True)
    assert all(m["reason"] for m in doc["moves"])


@pytest.mark.parametrize("name", EXAMPLES)
def test_analyse_human_output(name):
    out = run("analyse", name, "--iterations", 100).stdout
    s = example_position(name)
    assert f"Analysis for player {s.current_player()} to move: 100 iterations" in out
    for q in range(s.num_players):
        assert f"P{q} " in out
    assert "VP still to come" in out and "cobbles" in out and "Best moves (best first" in out and " 1. place (" in out
    assert " leads P" in out and "expected final VP: " in out and "    why: " in out


@pytest.mark.parametrize("name", EXAMPLES)
def test_analyse_json_payload(name):
    doc = run_json("analyse", name, "--iterations", 100)
    s = example_position(name)
    check_payload(doc, s, 100)
    assert doc["kind"] == "analysis" and all(len(m["actions"]) == 1 for m in doc["moves"])


def test_position_file_and_seed_reproducibility(tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(example_position("midgame-3p").to_json()))
    a = run_json("hint", path, "--iterations", 150, "--seed", 4)
    b = run_json("hint", "midgame-3p", "--iterations", 150, "--seed", 4)
    assert a["moves"] == b["moves"] and a["seed"] == 4


# ---------------------------------------------------------------------------------------------------------------
# selfplay, analyse of a record, review

@pytest.fixture(scope="module")
def games(tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    p = run("selfplay", "--games", 2, "--players", 2, "--out", out, "--bot", "ismcts:40", "--seed", 5,
            "--workers", 1)
    return out, p.stdout


def test_selfplay_writes_finished_records(games):
    out, stdout = games
    files = sorted(Path(out).glob("*.json"))
    assert [f.name for f in files] == ["game-0001.json", "game-0002.json"]
    for g, f in enumerate(files):
        line = next(x for x in stdout.splitlines() if x.startswith(f.name))
        assert "scores" in line and "winner P" in line
        rec = GameRecord.load(f)
        assert rec.players == 2 and rec.start == {"seed": 5 + g, "setup": "random"}
        end = rec.replay()
        assert end.is_terminal() and rec.result["scores"] == end.scores()
        assert {e["by"] for e in rec.actions} == {0, 1, "chance"}


def test_analyse_record_at(games):
    out, _ = games
    path = Path(out) / "game-0001.json"
    rec = GameRecord.load(path)
    at = next(i for i, s, _ in rec.steps() if i > 20 and not s.is_chance_node() and not s.is_terminal())
    doc = run_json("analyse", path, "--at", at, "--iterations", 100)
    s = rec.replay(at)
    assert doc["at"] == at and f"after {at} of {len(rec.actions)} entries" in doc["position"]
    check_payload(doc, s, 100)
    human = run("analyse", path, "--at", at, "--iterations", 50).stdout
    assert f"after {at} of {len(rec.actions)} entries" in human
    # default: the last position where someone decides (the record ends with the game over)
    last = max(i for i, s, _ in rec.steps() if not s.is_chance_node() and not s.is_terminal())
    assert run_json("analyse", path, "--iterations", 50)["at"] == last
    # a chance node: a clear error naming the nearest decisions
    chance = next(i for i, s, _ in rec.steps() if s.is_chance_node())
    assert "nobody decides" in user_error("hint", path, "--at", chance, "--iterations", 50)


def test_review_human_output(games):
    out, _ = games
    text = run("review", Path(out) / "game-0001.json", "--iterations", 60).stdout
    assert thresholds_line() in text and "Seats reviewed: P0, P1" in text and "Accuracy: " in text
    lines = text.splitlines()
    i = lines.index("Summary:")
    head = lines[i + 1].split()
    assert head[:2] == ["player", "decisions"] and head[2:7] == list(MARKS)
    for p in (0, 1):
        row = next(x for x in lines[i + 2:] if x.startswith(f"P{p} "))
        n, *counts = map(int, row.split()[1:7])
        assert sum(counts) == n > 0
    assert any(x.split()[-1] in MARKS for x in lines[:i] if x.strip()[:1].isdigit())


def test_review_json_marks_follow_the_thresholds(games):
    out, _ = games
    path = Path(out) / "game-0002.json"
    doc = run_json("review", path, "--iterations", 60)
    assert doc["thresholds"] == dict(THRESHOLDS) and doc["budget"] == {"iterations": 60}
    assert doc["vp_thresholds"] == dict(VP_BOUNDS) and len(doc["how"]) == 3
    assert [n["reviewed"] for n in doc["seats"]] == [n["decisions"] for n in doc["seats"]]
    rec = GameRecord.load(path)
    states = {i: s.clone() for i, s, e in rec.steps() if e is not None}
    for d in doc["decisions"]:
        s = states[d["index"]]
        assert not s.is_chance_node() and s.current_player() == d["player"]
        assert len(s.legal_actions()) >= 2 and d["played_id"] == rec.actions[d["index"]]["id"]
        assert d["engine_id"] in s.legal_actions() and d["loss"] >= 0 and d["vp_loss"] >= 0
        if d["played_id"] == d["engine_id"]:
            assert d["mark"] == "best" and d["loss"] == 0 and d["vp_loss"] == 0
        else:
            assert d["mark"] == mark_of(excess(d["loss"], d["win_prob_noise"]), False,
                                        excess(d["vp_loss"], d["vp_noise"]))
    for row in doc["summary"]:
        mine = [d for d in doc["decisions"] if d["player"] == row["player"]]
        assert row["decisions"] == len(mine) == sum(row[m] for m in MARKS)


def _table_record(tmp_path) -> Path:
    """A game kept in table mode from seat 0 (A6): the other player's draws are hidden entries."""
    s = new_game(2, seed=9)
    rec = GameRecord.for_position(s, viewpoint=0, seats=["me", "greedy"])
    from barcelona_ai.search.bots import GreedyBot
    bots = [GreedyBot(1), GreedyBot(2)]
    rng = random.Random(3)
    for _ in range(60):
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes())
            a = rng.choices(acts, probs)[0]
            rec.add(s, a, hidden=is_draw_for_other(s, 0))
        else:
            a = bots[s.current_player()].choose(s)
            rec.add(s, a)
        s.apply(a)
    path = tmp_path / "table.json"
    rec.save(path)
    return path


def test_table_mode_record_review_covers_every_seat_its_placements_show(tmp_path):
    """A table-mode record hides the other player's draws; their placements show the citizens held, so their
    decisions are reviewed too, except those made holding citizens no later placement shows."""
    path = _table_record(tmp_path)
    rec = GameRecord.load(path)
    assert any(e["id"] is None for e in rec.actions)
    for i, s, _ in rec.steps(seed=2):                 # the one-pass walk agrees with replay()
        assert s.hash() == rec.replay(i, seed=2).hash()
    doc = run_json("review", path, "--iterations", 50)
    assert doc["viewpoint"] == 0 and doc["decisions"]
    assert {d["player"] for d in doc["decisions"]} == {0, 1}
    assert [r["player"] for r in doc["summary"]] == [0, 1]
    seats = {n["player"]: n for n in doc["seats"]}
    assert seats[0]["reviewed"] == seats[0]["decisions"] and seats[0]["left_out"] == 0
    assert seats[1]["reviewed"] + seats[1]["left_out"] == seats[1]["decisions"] and seats[1]["reviewed"] > 0
    assert "kept from P0's seat" in run("review", path, "--iterations", 50).stdout


# ---------------------------------------------------------------------------------------------------------------
# bad input: one clear line, exit code 2

def test_malformed_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "barcelona-position", "version": 1,,}')
    assert "not valid JSON" in user_error("hint", bad, "--iterations", 50)
    assert "not valid JSON" in user_error("analyse", bad, "--iterations", 50)


def test_impossible_counts_extra_citizen(tmp_path):
    doc = example_position("start-3p").to_json()
    doc["bag"]["WORKING"] += 1                      # 26 working citizens: the game has 25 (R5)
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(doc))
    msg = user_error("hint", path, "--iterations", 50)
    assert "bag.WORKING" in msg and "WORKING citizens" in msg


def test_unknown_file_and_unknown_example():
    msg = user_error("analyse", "no/such/position.json")
    assert "no such file" in msg and "midgame-3p" in msg
    assert "start-4p" in user_error("hint", "endgame-5p")


def test_neither_position_nor_record_and_review_of_a_position(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"format": "something-else"}')
    assert "neither a position nor a game record" in user_error("analyse", path)
    assert "needs a game record" in user_error("review", "midgame-3p")
    assert "--at applies to a game record" in user_error("analyse", "start-2p", "--at", 3)


def test_at_beyond_the_record(games):
    out, _ = games
    path = Path(out) / "game-0001.json"
    n = len(GameRecord.load(path).actions)
    assert f"the record has {n} entries" in user_error("analyse", path, "--at", n + 5)
    assert "argument --at: expected an entry count from 0 to 10000, not '-1'" in user_error("analyse", path, "--at", -1)


def test_bad_record_entry_and_bad_selfplay_bot(tmp_path, games):
    out, _ = games
    doc = json.loads((Path(out) / "game-0001.json").read_text())
    doc["actions"][3]["id"] = C["NUM_ACTIONS"] + 7
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    assert "actions[3].id" in user_error("analyse", path)
    assert "unknown bot" in user_error("selfplay", "--games", 1, "--out", tmp_path / "x", "--bot", "alphazero")
