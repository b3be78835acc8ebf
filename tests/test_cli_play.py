"""`barcelona-ai play` and `barcelona-ai table`, driven as a user would: a subprocess fed typed lines on stdin.

Scripts answer "1" (the first listed legal choice) where the exact decision does not matter: numbered choices
are always legal, so enough "1" lines finish any game. Search budgets are tiny (30 iterations a decision).
Hidden information follows rules A6: the other players' hands are never shown and, at a real table, their draws
are sampled and corrected when they place (record.place_with_known_citizens / ensure_hand).
"""
import io
import json
import random
import re
import subprocess
import sys

import pytest

from barcelona_ai import CONSTANTS as C
from barcelona_ai import new_game
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.cli.play import columns, mask_hands
from barcelona_ai.workflows.progress import SearchProgress
from barcelona_ai.rules.record import give_hand, make_drawable, unseen_pool
from barcelona_ai.rules.record import GameRecord, place_with_known_citizens
from barcelona_ai.workflows.session import Session

from helpers import transcribe


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    """play saves as it goes into the current folder: each test runs in its own."""
    monkeypatch.chdir(tmp_path)


def cli(args, lines, timeout=240):
    text = "".join(line + "\n" for line in lines)
    return subprocess.run([sys.executable, "-m", "barcelona_ai", *args], input=text, capture_output=True,
                          text=True, timeout=timeout)


# ---------------------------------------------------------------------------------------------------------------
# play

def test_play_whole_game_with_hint_bad_input_undo_save_and_reload(tmp_path):
    saved = tmp_path / "game.json"
    first = ["?",                      # hint: the engine's top turn plans
             "hello there",            # not notation
             "99",                     # no such choice number
             "gain 2 coins",           # a real move, illegal during placement (R37: place first)
             "1",                      # place
             "undo",                   # take the placement back
             "show 1", "board", "help",
             "1", "1", "1", "1", "1", "1",
             f"save {saved}", "quit"]
    p = cli(["play", "--players", "2", "--seat", "0", "--seed", "11", "--iterations", "30"], first)
    out = p.stdout
    assert p.returncode == 0, p.stderr
    assert "Seed 11" in out
    assert re.search(r"Hints for P0 \(you\) \(30 iterations; h1(\.\.h[23] plays one| plays it)\):", out)
    assert re.search(r"win \d+%, expected final VP \d+", out)
    assert "'hello there' is not a move in Barcelona notation" in out
    assert "There is no choice 99" in out
    assert "'gain 2 coins' is a well-formed move" in out and "not legal now" in out
    assert re.search(r"Took back P0 \(you\): place \(\d,\d\) [WMU]/[WMU]", out)
    assert " hand: 2 hidden" in out                       # the computer's hand is not shown (A6)
    assert "Commands (at any prompt)" in out
    assert "Saved the game record" in out and "Game stopped." in out
    assert re.search(r"Saving as you go to barcelona-\d{4}-\d\d-\d\d-\d{6}-seed11\.json; continue it with: "
                     r"barcelona-ai play --load ", out)
    # the game went on after every bad entry: a placement was played after them
    assert out.index("There is no choice 99") < out.rindex("P0 (you): place (")

    rec = GameRecord.load(saved)
    assert rec.players == 2 and rec.seats == ["human", "ismcts:30"]
    assert rec.result is None
    # a save before the end is P0's view (A6): no seed, the computer's draws hidden, P0's own draws shown
    assert rec.viewpoint == 0 and "seed" not in rec.start and "position" in rec.start
    assert rec.start["position"]["viewpoint"] == 0
    hidden = [e for e in rec.actions if e["id"] is None]
    assert hidden and all(e["move"] == "draw (hidden)" for e in hidden)
    assert any(e["by"] == 0 for e in rec.actions) and any(e["by"] == 1 for e in rec.actions)
    assert '"seed"' not in json.dumps(rec.start)
    assert rec.resume and "draw" not in rec.resume        # the game itself, encoded (session.encode_resume)
    n_saved = len(rec.actions)

    p = cli(["play", "--load", str(saved), "--iterations", "30"], ["?"] + ["1"] * 400)
    out = p.stdout
    assert p.returncode == 0, p.stderr
    assert f"Loaded {saved}: {n_saved} entries replayed (the same game goes on" in out
    assert "Seed 11" in out and "Replay key" not in out   # the seed it was played with, not a secret one
    assert f"Saving as you go to {saved};" in out          # play's own save goes on in place
    assert re.search(r"  P1: .+   \([+-]\d+ VP\)", out)                # a computer move and its VP
    assert not re.search(r"  P1: .+ win \d+%", out)          # not its win estimate: that reads its hand (A6)
    assert "=== Game over ===" in out and "Final scores (VP by source):" in out
    assert re.search(r"P0 \(you\)\s+\d+ VP  \(", out) and re.search(r"P1\s+\d+ VP  \(", out)
    assert re.search(r"Winner: P[01]( \(you\))?", out) and "a tie goes to the furthest on the Cerdà track" in out
    assert f"The game's record is saved in {saved}" in out


def test_play_load_of_a_save_without_its_resume_field_draws_the_engines_citizens_again(tmp_path):
    saved = tmp_path / "game.json"
    p = cli(["play", "--seed", "11", "--iterations", "30", "--no-save"], ["1"] * 6 + [f"save {saved}", "quit"])
    assert p.returncode == 0 and "not saved as it goes (--no-save)" in p.stdout
    doc = json.loads(saved.read_text())
    del doc["resume"]
    saved.write_text(json.dumps(doc))
    p = cli(["play", "--load", str(saved), "--iterations", "30"], ["1"] * 400)
    out = p.stdout
    assert p.returncode == 0, p.stderr
    assert f"Loaded {saved}: {len(doc['actions'])} entries replayed (the engine's hidden citizens were drawn again " \
           "from those you have not seen)" in out
    assert "Seed" not in out and "secret seed" in out     # chance goes on from a new secret seed
    assert re.search(r"Replay key: --seed \d+", out)      # shown once the game is over
    assert f"({saved} stays as it was)" in out and json.loads(saved.read_text()) == doc
    assert len(list(tmp_path.glob("barcelona-*.json"))) == 1          # the game went on in a new file


def test_play_a_finished_game_is_saved_whole_and_reads_as_finished(tmp_path):
    p = cli(["play", "--seed", "2", "--iterations", "10"], ["1"] * 800)
    assert p.returncode == 0, p.stderr
    (path,) = tmp_path.glob("barcelona-*-seed2.json")
    assert f"The game's record is saved in {path.name} (barcelona-ai review {path.name}" in p.stdout
    rec = GameRecord.load(path)                # the whole game: every draw, the seed, the result
    assert rec.viewpoint is None and rec.start == {"seed": 2, "setup": "random"} and rec.resume is None
    assert rec.result is not None and all(e["id"] is not None for e in rec.actions)
    p = cli(["play", "--load", str(path)], [])
    out = p.stdout
    assert p.returncode == 0, p.stderr
    assert f"{path} holds a finished game ({len(rec.actions)} entries): the game is over." in out
    assert "Final scores (VP by source):" in out and "Winner:" in out
    assert "Your choice" not in out and "save FILE" not in out and "Replay key" not in out
    p = cli(["review", str(path), "--iterations", "5"], [])
    assert p.returncode == 0, p.stderr
    assert "Seats reviewed: P0, P1" in p.stdout, p.stdout[:2000]


def test_play_save_options(tmp_path):
    other = tmp_path / "other.json"
    other.write_text("{}")
    p = cli(["play", "--seed", "3", "--iterations", "10", "--save", str(other)], [])
    assert p.returncode == 2 and "the file exists" in p.stderr and other.read_text() == "{}"
    p = cli(["play", "--seed", "3", "--iterations", "10", "--save", "mine.json"], ["1"])
    assert p.returncode == 1 and "Input ended before the game was over: it is saved in mine.json; continue it " \
        "with barcelona-ai play --load mine.json" in p.stdout
    assert GameRecord.load(tmp_path / "mine.json").resume
    p = cli(["play", "--seed", "3", "--iterations", "10", "--no-save"], ["1", "quit", ""])
    assert p.returncode == 0 and "Type 'save FILE' to keep the game record" in p.stdout
    assert sorted(f.name for f in tmp_path.iterdir()) == ["mine.json", "other.json"]


def test_play_same_seed_and_answers_replay_the_same_game():
    args = ["play", "--players", "2", "--seed", "4", "--iterations", "30", "--seat", "1", "--no-save"]
    a = cli(args, ["1"] * 12 + ["quit"]).stdout
    b = cli(args, ["1"] * 12 + ["quit"]).stdout
    assert a == b and "P0: place (" in a


def test_play_input_ending_mid_game_stops_cleanly_with_exit_1():
    p = cli(["play", "--players", "2", "--seed", "3", "--iterations", "30", "--no-save"], ["1"])
    assert p.returncode == 1
    assert "Input ended before the game was over: the game stops here" in p.stdout
    assert "Traceback" not in p.stderr


def test_play_bad_arguments_are_clear_errors(tmp_path):
    p = cli(["play", "--players", "2", "--seat", "2", "--iterations", "30"], [])
    assert p.returncode == 2 and "no seat 2" in p.stderr
    p = cli(["play", "--load", str(tmp_path / "missing.json")], [])
    assert p.returncode == 2 and "cannot be read" in p.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "barcelona-record", "version": 1, "players": 9}')
    p = cli(["play", "--load", str(bad)], [])
    assert p.returncode == 2 and "players" in p.stderr


# ---------------------------------------------------------------------------------------------------------------
# table

def _first_turn_script(seed):
    """Seat 0's first turn of a fresh 2-player game typed in notation, with its own draws (R32) and any
    Modernisme reveal (R73) typed too; returns the lines and the state where seat 1 is to place."""
    s = new_game(players=2, seed=seed)
    lines = []
    while True:
        if s.is_chance_node():
            acts = s.legal_actions()
            assert s.turn_player == 0 or acts[0] >= C["A_REVEAL"]
            if acts[0] >= C["A_REVEAL"]:
                a = acts[-1]
                if len(acts) > 1:
                    lines.append(s.action_to_string(a))
            else:
                a = C["A_DRAW"] + 1 if C["A_DRAW"] + 1 in acts else acts[0]
                lines.append(s.action_to_string(a))            # 'draw M'
            s.apply(a)
            continue
        if s.current_player() != 0:
            return lines, s
        legal = s.legal_actions()
        if len(legal) > 1:
            lines.append(s.action_to_string(legal[0]))
        s.apply(legal[0])


def test_table_mode_entries_hint_hidden_draws_and_bad_input(tmp_path):
    seed = 5
    own, s = _first_turn_script(seed)
    assert s.current_player() == 1 and s.phase == C["PH_PLACE"]
    crossing = (s.legal_actions()[-1] - C["A_PLACE"]) // 3
    placement = f"place ({crossing % 5},{crossing // 5}) U/W"
    saved = tmp_path / "table.json"
    lines = (["?", "1"] + own[1:] +           # a hint on seat 0's turn, then its turn as typed
             ["1",                          # placements of another player are not numbered
              "place (7,1) W/M",            # no such crossing
              f"place ({crossing % 5},{crossing // 5}) U",      # seat 1 places two citizens: both are named
              "end actions",                # not a placement
              placement] +
             ["1"] * 20 + ["?", f"save {saved}", "undo", "quit"])
    p = cli(["table", "--players", "2", "--seat", "0", "--seed", str(seed), "--iterations", "30"], lines)
    out = p.stdout
    assert p.returncode == 0, p.stderr
    assert "Hints for P0 (you) (30 iterations;" in out
    assert "You: draw M" in out
    assert "hand is not known, so placements are not numbered" in out
    assert "(7,1) is not a crossing" in out
    assert "P1 places 2 citizens: name both" in out
    assert "'end actions' is not a placement" in out
    assert f"P1: {placement}" in out
    assert "P1 draws a citizen: hidden from you" in out
    assert " hand: 2 hidden" in out
    assert "Took back" in out and "Game stopped." in out

    rec = GameRecord.load(saved)            # replays: the hidden draws are resampled, the hand corrected
    assert rec.viewpoint == 0
    assert {"id": None, "move": "draw (hidden)", "by": "chance"} in rec.actions
    assert any(e["by"] == 1 and e["move"] == placement for e in rec.actions)
    assert any(e["by"] == "chance" and e["move"] == "draw M" for e in rec.actions)
    state = rec.replay(seed=3)
    assert not state.is_terminal()

    # and the record continues in table mode
    p = cli(["table", "--load", str(saved), "--seat", "0", "--iterations", "30"], ["board", "quit"])
    assert p.returncode == 0, p.stderr
    assert "barcelona-ai table: 2 players, edition \"default\", record" in p.stdout


def _transcribe(players, seed, seat=0):
    """A seeded random game, as the player in `seat` would type it at the table (helpers.transcribe)."""
    return transcribe(new_game(players=players, seed=seed), seat, random.Random(seed + 100))


def test_table_mode_whole_games_typed_from_one_seat_reach_the_true_scores():
    """A whole 3- and 4-player game entered at the table from seat 0 ends with the scores of the game that was
    really played, though seat 0 never saw the other hands: the sampled hands are corrected at every placement
    (also when a citizen has to come from a third player's sampled hand)."""
    for players, seed in ((3, 1), (4, 59)):
        lines, scores = _transcribe(players, seed)
        p = cli(["table", "--players", str(players), "--seed", str(seed), "--iterations", "10"], lines)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr)
        final = p.stdout[p.stdout.index("Final scores (VP by source):"):]
        for i, v in enumerate(scores):
            assert re.search(rf"  P{i}( \(you\))?\s+{v} VP  \(", final), (i, v, final)
        assert "draws a citizen: hidden from you" in p.stdout


def test_table_mode_from_a_viewpoint_position(tmp_path):
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(new_game(players=3, seed=2).to_json(viewpoint=0)))
    p = cli(["table", "--position", str(pos), "--seat", "0", "--iterations", "30"],
            ["show 2", "show 7", "?", "quit"])
    out = p.stdout
    assert p.returncode == 0, p.stderr
    assert "barcelona-ai table: 3 players, edition \"default\", position" in out
    assert out.count(" hand: 2 hidden") >= 3             # two hidden hands on the board, one from 'show 2'
    assert "No player '7'" in out
    assert "Hints for P0 (you)" in out
    p = cli(["table", "--position", str(pos), "--players", "4"], [])
    assert p.returncode == 2 and "the position has 3 players" in p.stderr


# ---------------------------------------------------------------------------------------------------------------
# pieces

class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_search_progress_draws_only_on_a_terminal_and_only_after_a_second():
    s = new_game(players=2, seed=1)
    engine = Engine(seed=0)
    tty = _Tty()
    limit = Limit(time=1.6)
    with SearchProgress(engine, limit, "thinking", stream=tty, interval=0.05):
        engine.analyse(s, limit)
    text = tty.getvalue()
    assert "thinking" in text and "iterations" in text and "<" in text      # iterations, elapsed<left
    quick = _Tty()
    with SearchProgress(engine, Limit(iterations=200), "thinking", stream=quick, interval=0.05):
        engine.analyse(s, Limit(iterations=200))
    assert quick.getvalue() == ""                                            # under a second: nothing
    pipe = io.StringIO()
    with SearchProgress(engine, Limit(time=1.2), "thinking", stream=pipe, interval=0.05):
        engine.analyse(s, Limit(time=1.2))
    assert pipe.getvalue() == ""                                             # not a terminal: nothing
    counted = _Tty()
    with SearchProgress(engine, Limit(iterations=10 ** 9), "n", stream=counted, delay=0.0, interval=0.05):
        engine.analyse(s, Limit(time=0.5))
    assert re.search(r"\d+(\.\d+)?k?/1\.00G", counted.getvalue()), counted.getvalue()[-300:]


def test_columns_and_hand_masking():
    text = columns([f"move {i}" for i in range(30)], width=60)
    assert " 1) move 0" in text and "30) move 29" in text and len(text.splitlines()) < 30
    s = new_game(players=2, seed=1)
    masked = mask_hands(s.render(), s, 0)
    assert masked.count(" hand: 2 hidden") == 1 and " hand: 2 hidden" not in s.render()


# ---------------------------------------------------------------------------------------------------------------
# table mode when the sampled hidden hands hold what the viewpoint player then sees (A6)

def _random_walk_until(players, found, games=2000):
    """The first state of seeded random games where found(state) gives a class id (or None)."""
    for g in range(games):
        s = new_game(players=players, seed=g)
        rng = random.Random(g)
        while not s.is_terminal():
            k = found(s)
            if k is not None:
                return s, k
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes())
                s.apply(rng.choices(acts, probs)[0])
            else:
                s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("no such state in the sampled games")


def _own_draw_of_a_class_held_by_the_other_hand():
    """2 players, seat 0 about to draw (R32): the bag has no citizen of class k, the opponent's hand has one."""
    def found(s):
        v = s.view()
        if s.is_chance_node() and s.legal_actions()[0] < C["A_REVEAL"] and v.turn_player == 0:
            return next((k for k in range(3) if v.bag[k] == 0 and v.players[1].hand[k] > 0), None)
        return None
    s, k = _random_walk_until(2, found)
    rec = GameRecord(players=2, start={"position": s.to_json(viewpoint=0)}, viewpoint=0,
                     actions=[{"id": C["A_DRAW"] + k, "move": f"draw {'WMU'[k]}", "by": "chance"}])
    return s, k, rec


def test_table_own_draw_of_a_class_the_sampled_hands_hold():
    s, k, rec = _own_draw_of_a_class_held_by_the_other_hand()
    assert unseen_pool(s, 0)[k] > 0 and C["A_DRAW"] + k not in s.legal_actions()
    make_drawable(s, k, 0)                      # the sampled split changes; nothing seat 0 sees does
    s.apply(C["A_DRAW"] + k)
    for seed in range(30):                      # every resampling of the hidden hand replays
        sess = Session("table", rec, 0, seed, Limit(iterations=10), Engine(), ["P0 (you)", "P1"])
        assert len(sess.record.actions) == 1 and sess.typed == [True]


def test_record_replay_of_own_draw_held_by_a_sampled_hand():
    """A6: the table player's own draw replays whatever the resampled hidden hands hold."""
    _, _, rec = _own_draw_of_a_class_held_by_the_other_hand()
    for seed in range(30):
        rec.replay(seed=seed)


def _placement_needing_a_third_hand():
    """3 players, seat 1 to place two citizens: class k is in nobody's reach but seat 2's sampled hand."""
    def found(s):
        v = s.view()
        if s.is_chance_node() or v.phase != C["PH_PLACE"] or s.current_player() != 1 or \
                sum(v.players[1].hand) != 2:
            return None
        return next((k for k in range(3) if v.bag[k] == 0 and v.players[2].hand[k] > 0
                     and v.players[1].hand[k] == 0), None)
    s, k = _random_walk_until(3, found)
    place = next(a for a in s.legal_actions() if a < C["A_INT_PICK"])
    c = (place - C["A_PLACE"]) // 3
    a = C["A_PLACE"] + c * 3 + k
    return s, k, a, f"place ({c % 5},{c // 5}) {'WMU'[k]}/{'WMU'[k]}" if unseen_pool(s, 0)[k] > 1 else \
        f"place ({c % 5},{c // 5}) {'WMU'[k]}/{'WMU'[(k + 1) % 3]}"


def test_table_placement_of_a_citizen_only_a_third_sampled_hand_holds():
    s, k, a, move = _placement_needing_a_third_hand()
    bottom = "WMU".index(move[-1])
    give_hand(s, 1, [k, bottom], 0)
    s.apply(a)
    assert s.view().crossings[(a - C["A_PLACE"]) // 3][1] == k


def test_record_placement_of_a_citizen_only_a_third_sampled_hand_holds():
    """A6 (3-4 players): a citizen another player visibly placed may sit in a third player's sampled hand."""
    s, k, a, move = _placement_needing_a_third_hand()
    place_with_known_citizens(s, a, move, 0)
    c = (a - C["A_PLACE"]) // 3
    assert s.view().crossings[c] == ("WMU".index(move[-1]), k)
