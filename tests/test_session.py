"""The session behind `play` and `table` (session.py), driven directly as a web page would, and the one parser of
a placement typed with its citizens (notation.parse_placement) that the table and game records share."""
import json

import pytest

from barcelona_ai import CONSTANTS as C
from barcelona_ai.search.engine import Limit
from barcelona_ai.errors import InvalidMoveError, InvalidRecordError, PlayerCountError
from barcelona_ai.rules.notation import parse_placement
from barcelona_ai.rules.record import GameRecord, is_draw_for_other, place_with_known_citizens
from barcelona_ai.workflows.session import (draw_entry, other_placement, own_draw, play_session, reveal_action,
                                            table_session, write_atomically)

LIMIT = Limit(iterations=5)


# ---------------------------------------------------------------------------------------------------------------
# notation.parse_placement

def test_parse_placement_forms():
    assert parse_placement("place (1,2) W/M") == (1, 2, 0, 1)
    assert parse_placement("  PLACE ( 3 , 0 )  u / w ") == (3, 0, 2, 0)
    assert parse_placement("place(4,4)M") == (4, 4, 1, None)
    assert parse_placement("(0,1) U/U") == (0, 1, 2, 2)
    assert parse_placement("place (7,1) W/M") == (7, 1, 0, 1)          # the crossing is the caller's to check
    for text in ("", "place", "place (1,2)", "place (1,2) X/M", "place (1,2) W/M/U", "1,2 W/M", "end actions",
                 "place (1,2) W on top", None, 12):
        assert parse_placement(text) is None, text


# ---------------------------------------------------------------------------------------------------------------
# play mode

def _decide(sess):
    """The next entry: a seeded chance outcome or the first legal move (never marked as typed)."""
    s = sess.state
    sess.push(sess.entry(sess.chance_outcome() if s.is_chance_node() else s.legal_actions()[0]), False)


def _human_choice(sess):
    s = sess.state
    return not s.is_chance_node() and s.current_player() == sess.seat and len(s.legal_actions()) > 1


def test_play_session_undo_is_exact_and_chance_follows_the_seed():
    sess = play_session(0, LIMIT, players=2, seed=4)
    assert not sess.secret_seed and sess.seed == 4 and sess.record.seats == ["human", "ismcts:5"]
    assert sess.names == ["P0 (you)", "P1"] and sess.new_turn() and not sess.new_turn()
    while not _human_choice(sess):
        _decide(sess)
    h, n = sess.state.hash(), len(sess.record.actions)
    move = sess.state.action_to_string(sess.state.legal_actions()[1])
    sess.push(sess.entry(sess.state.legal_actions()[1]), True)
    for _ in range(12):
        _decide(sess)
    assert sess.undo() == f"Took back P0 (you): {move} and the 12 entries after it."
    assert len(sess.record.actions) == n and sess.state.hash() == h          # undo replays the record: exact
    assert sess.undo() == "Nothing to undo."
    other = play_session(0, LIMIT, players=2, seed=4)
    while not other.state.is_chance_node():
        _decide(other)
    twin = play_session(0, LIMIT, players=2, seed=4)
    for e in other.record.actions:
        twin.push(dict(e), False)
    assert twin.chance_outcome() == other.chance_outcome()     # from the seed and the number of entries


def test_play_session_secret_seed_and_a_save_that_hides_the_engine(tmp_path):
    sess = play_session(1, LIMIT, players=2)
    assert sess.secret_seed and 0 <= sess.seed < 2 ** 63
    for _ in range(30):
        _decide(sess)
    path = tmp_path / "game.json"
    assert sess.save(str(path)).startswith("Saved the game record (30 entries)")
    rec = GameRecord.load(path)
    assert rec.viewpoint == 1 and "seed" not in rec.start
    assert all(e["id"] is not None or e["move"] == "draw (hidden)" for e in rec.actions)
    again = play_session(1, LIMIT, load=str(path))
    assert again.secret_seed and len(again.record.actions) == 30
    with pytest.raises(InvalidRecordError, match="kept by seat 1"):
        play_session(0, LIMIT, load=str(path))
    with pytest.raises(PlayerCountError, match="no seat 2"):
        play_session(2, LIMIT, players=2, seed=1)


# ---------------------------------------------------------------------------------------------------------------
# table mode

def _until_another_places(sess):
    """Enter the game as the table would until another player is to place citizens."""
    while not other_placement(sess.state, sess.seat):
        s = sess.state
        if is_draw_for_other(s, sess.seat):
            sess.push_hidden_draw()
        elif own_draw(s, sess.seat):
            pool, offered = sess.draw_choices()
            assert offered == [k for k in range(3) if pool[k] > 0]
            sess.push(draw_entry(offered[-1]), True)
        else:
            sess.push(sess.entry(s.legal_actions()[0]), True)


def test_table_session_entries_of_another_players_placement():
    sess = table_session(0, LIMIT, players=2, seed=5)
    assert sess.record.viewpoint == 0 and sess.record.seats == ["you", "table"]
    _until_another_places(sess)
    s = sess.state
    p = s.current_player()
    c = (next(a for a in s.legal_actions() if a < C["A_INT_PICK"]) - C["A_PLACE"]) // 3
    xy = f"({c % 5},{c // 5})"
    with pytest.raises(InvalidMoveError, match=r"\(7,1\) is not a crossing"):
        sess.other_placement_entry("place (7,1) W/M")
    with pytest.raises(InvalidMoveError, match="places 2 citizens: name both"):
        sess.other_placement_entry(f"place {xy} U")
    with pytest.raises(InvalidMoveError, match="'end actions' is not a placement"):
        sess.other_placement_entry("end actions")
    with pytest.raises(InvalidMoveError, match="name the crossing and the citizens"):
        sess.other_placement_entry("place somewhere")
    entry = sess.other_placement_entry(f"place {xy} u/w")
    assert entry == {"id": C["A_PLACE"] + c * 3 + 2, "move": f"place {xy} U/W", "by": p}
    sess.push(entry, True)
    assert sess.state.view().crossings[c] == (0, 2)
    assert sess.undo() == f"Took back P{p}: place {xy} U/W."
    assert other_placement(sess.state, 0)


def test_table_session_own_draw_and_reveal_entries():
    sess = table_session(0, LIMIT, players=2, seed=5)
    with pytest.raises(InvalidMoveError, match="is not a draw"):
        sess.own_draw_entry("draw X", [0, 1, 2])
    with pytest.raises(InvalidMoveError, match="no Upper citizen is left unseen"):
        sess.own_draw_entry("upper", [0, 1])
    assert sess.own_draw_entry("Draw m", [0, 1]) == draw_entry(1) == {"id": C["A_DRAW"] + 1, "move": "draw M",
                                                                       "by": "chance"}
    s = sess.state
    with pytest.raises(InvalidMoveError):
        reveal_action(s, "SC99")


def test_a_record_reads_the_bottom_citizen_with_the_same_parser():
    sess = table_session(0, LIMIT, players=2, seed=5)
    _until_another_places(sess)
    s = sess.state.clone()
    a = next(a for a in s.legal_actions() if a < C["A_INT_PICK"])
    c = (a - C["A_PLACE"]) // 3
    for bad in (f"place ({c % 5},{c // 5}) W", "W/M/U", ""):
        with pytest.raises(InvalidRecordError, match="needs both citizens"):
            place_with_known_citizens(s.clone(), a, bad, 0)
    place_with_known_citizens(s, a, f"PLACE ({c % 5},{c // 5}) {'WMU'[(a - C['A_PLACE']) % 3]}/m", 0)
    assert s.view().crossings[c][0] == 1


# ---------------------------------------------------------------------------------------------------------------
# play mode: saving as it goes, and continuing the very same game

def _next(sess):
    """The next entry as play makes it: a seeded chance outcome, the engine's move, or the seat's first choice."""
    s = sess.state
    if s.is_chance_node():
        a = sess.chance_outcome()
    elif s.current_player() != sess.seat and len(s.legal_actions()) > 1:
        a = sess.engine_move()
    else:
        a = s.legal_actions()[0]
    sess.push(sess.entry(a), _human_choice(sess))


def _mid_engine_turn(sess):
    """Play on until the engine is to decide again in its turn, after a decision of its own in that turn."""
    while True:
        s = sess.state
        last = sess.record.actions[-1] if sess.record.actions else None
        if not s.is_chance_node() and s.current_player() != sess.seat and len(s.legal_actions()) > 1 \
                and last is not None and last["by"] == s.current_player():
            return
        _next(sess)


def test_a_save_continues_the_very_same_game_with_a_secret_seed(tmp_path):
    """The save of a game with a secret seed holds the seat's view in its moves (no seed, the engine's draws
    hidden) and, encoded in its resume field, the game itself: loaded, it has the same state, the same seed, the
    same chance outcomes and the same engine moves as the game that went on."""
    path = tmp_path / "game.json"
    sess = play_session(None, LIMIT, players=2)
    sess.autosave = str(path)
    while sess.state.view().players[1].turns < 1:          # both players have drawn citizens
        _next(sess)
    _mid_engine_turn(sess)                      # stopped in the middle of the engine's turn
    doc = json.loads(path.read_text())
    assert doc["viewpoint"] == 0 and "seed" not in json.dumps(doc["start"]) and len(doc["actions"]) == \
        len(sess.record.actions)
    assert str(sess.seed) not in path.read_text()
    drawn = [e for e in doc["actions"] if e["by"] == "chance" and e["move"].startswith("draw")]
    assert any(e["id"] is None for e in drawn) and any(e["id"] is not None for e in drawn)
    assert isinstance(doc["resume"], str) and "draw" not in doc["resume"]
    again = play_session(None, LIMIT, load=str(path))
    assert again.resumed and again.load_note is None and again.seat == 0
    assert again.secret_seed and again.seed == sess.seed
    assert again.state.hash() == sess.state.hash() and again.record.actions == sess.record.actions
    for _ in range(40):                         # the engine's next moves too: its turn's searches were run again
        _next(sess)
        _next(again)
    assert again.record.actions == sess.record.actions and again.state.hash() == sess.state.hash()
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]          # written whole: no temporary file left


def test_a_save_whose_resume_field_does_not_fit_is_continued_from_the_seats_view(tmp_path):
    sess = play_session(0, LIMIT, players=2, seed=8)
    for _ in range(30):
        _next(sess)
    path = tmp_path / "game.json"
    assert sess.save(str(path)).startswith("Saved the game record (30 entries)")
    doc = json.loads(path.read_text())
    short = dict(doc, actions=doc["actions"][:20])          # cut short by hand: the resume field still fits
    assert play_session(0, LIMIT, load=GameRecord.from_json(short)).resumed
    for bad, why in ((dict(doc, resume="bm90IGEgZ2FtZQ=="), "not a continuation written by barcelona-ai play"),
                     (dict(doc, resume=_other_resume()), "does not continue the record's moves")):
        other = play_session(0, LIMIT, load=GameRecord.from_json(bad))
        assert not other.resumed and why in other.load_note and len(other.record.actions) == 30
        assert other.record.viewpoint == 0 and other.secret_seed           # the engine's citizens drawn again


def _other_resume():
    sess = play_session(0, LIMIT, players=2, seed=9)
    for _ in range(30):
        _next(sess)
    return sess.record_to_keep().resume


def test_saving_as_it_goes_tells_a_failure_once_and_a_finished_game_is_its_whole_record(tmp_path):
    warned = []
    sess = play_session(0, LIMIT, players=2, seed=3)
    sess.autosave, sess.warn = str(tmp_path / "missing" / "game.json"), warned.append
    for _ in range(5):
        _next(sess)
    assert len(warned) == 1 and "cannot save to" in warned[0] and not sess.autosaving
    sess.autosave = str(tmp_path / "game.json")
    while not sess.state.is_terminal():
        _next(sess)
    assert sess.autosaving
    rec = GameRecord.load(tmp_path / "game.json")
    assert rec.viewpoint is None and rec.start["seed"] == 3 and rec.resume is None and rec.result is not None
    assert all(e["id"] is not None for e in rec.actions)
    assert play_session(None, LIMIT, load=str(tmp_path / "game.json")).state.is_terminal()


def test_write_atomically_replaces_the_file_whole(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("old")
    path.chmod(0o640)
    write_atomically(str(path), "new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
