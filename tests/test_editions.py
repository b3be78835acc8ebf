"""Editions in documents: positions and records name the edition they were played under and its content
(sha256 of the board data), and a reader refuses one written under another edition, naming both."""
from __future__ import annotations

import json
import pickle

import pytest

from barcelona_ai import new_game
from barcelona_ai.core import State
from barcelona_ai.errors import DataFileError, InvalidRecordError
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.rules.editions import RENAMED, edition_of_document
from barcelona_ai.rules.tables import available_editions, content_digest, load_edition


def _edited(tmp_path, name="my-board", bonus=9):
    """A data file: the default edition with the Building bonus at `bonus` VP, named `name`."""
    doc = json.loads(json.dumps(load_edition("default").raw))
    doc["edition"] = name
    doc["building_bonus_vp"] = bonus
    path = tmp_path / f"{name}-{bonus}.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


def _played(edition, players=3, plies=40):
    s = new_game(players, seed=5, edition=edition)
    rec = GameRecord.for_new_game(players, 5, edition=edition)
    for _ in range(plies):
        a = s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0]
        rec.add(s, a)
        s.apply(a)
    return s, rec


def test_the_digest_is_of_the_content_not_the_layout(tmp_path):
    raw = load_edition("default").raw
    assert content_digest(json.loads(json.dumps(raw, indent=4))) == load_edition("default").sha256
    edited = load_edition(str(_edited(tmp_path, name="default")))
    assert edited.name == "default" and edited.sha256 != load_edition("default").sha256


def test_documents_carry_the_name_and_the_digest(tmp_path):
    ed = load_edition(str(_edited(tmp_path)))
    s, rec = _played(ed)
    doc = s.to_json()
    assert (doc["edition"], doc["edition_sha256"]) == ("my-board", ed.sha256)      # the name, never the path
    rdoc = rec.to_json()
    assert (rdoc["edition"], rdoc["edition_sha256"]) == ("my-board", ed.sha256)


def test_a_position_of_another_edition_is_refused_naming_both(tmp_path):
    path = _edited(tmp_path)
    s, _ = _played(str(path))
    doc = s.to_json()
    assert State.from_json(doc, edition=str(path)).hash() == s.hash()
    with pytest.raises(DataFileError, match=r'edition: the game was played under edition "my-board" '
                                            r'\(board data [0-9a-f]{8}\), not under edition "default"'):
        State.from_json(doc, edition="default")
    with pytest.raises(DataFileError, match=r'"my-board" .* which is not shipped'):
        State.from_json(doc)                                    # its own name: not a shipped edition
    default_doc = new_game(3, seed=5).to_json()
    with pytest.raises(DataFileError, match=r'played under edition "default" .*not under edition "my-board"'):
        State.from_json(default_doc, edition=str(path))


def test_an_edited_file_under_a_shipped_name_is_refused(tmp_path):
    """An edited copy that keeps the name "default" is not the shipped default: its documents say so."""
    path = _edited(tmp_path, name="default")
    s, rec = _played(str(path))
    with pytest.raises(DataFileError, match=r'shipped edition "default" \(board data [0-9a-f]{8}\) differs'):
        State.from_json(s.to_json())
    with pytest.raises(InvalidRecordError, match=r"^edition: the game was played under"):
        GameRecord.from_json(rec.to_json())
    assert GameRecord.from_json(rec.to_json(), edition=str(path)).replay().hash() == s.hash()


def test_a_record_of_another_edition_is_refused_naming_both(tmp_path):
    path = _edited(tmp_path)
    s, rec = _played(str(path))
    doc = rec.to_json()
    back = GameRecord.from_json(doc, edition=str(path))
    assert back.replay().hash() == s.hash()
    with pytest.raises(InvalidRecordError, match=r'^edition: the game was played under edition "my-board" '
                                                 r'\(board data [0-9a-f]{8}\), not under edition "default"'):
        GameRecord.from_json(doc, edition="default")
    other = load_edition(str(_edited(tmp_path, bonus=8)))       # the same name, other numbers
    with pytest.raises(InvalidRecordError, match=r"not under edition \"my-board\" \(board data"):
        GameRecord.from_json(doc, edition=other)


def test_a_record_from_a_position_checks_the_position_edition_too(tmp_path):
    path = _edited(tmp_path)
    s, _ = _played(str(path))
    rec = GameRecord.for_position(s)
    assert GameRecord.from_json(rec.to_json(), edition=str(path)).replay().hash() == s.hash()
    doc = rec.to_json()
    doc["edition"], doc["edition_sha256"] = "default", load_edition("default").sha256
    with pytest.raises(InvalidRecordError, match=r"^start\.position: edition: the game was played under "
                                                 r"edition \"my-board\""):
        GameRecord.from_json(doc)


def test_older_documents_without_a_digest_still_read(tmp_path):
    """Documents written before editions carried a digest: a shipped name, or the path of a data file."""
    s, rec = _played("default")
    doc = s.to_json()
    del doc["edition_sha256"]
    assert State.from_json(doc).hash() == s.hash()
    rdoc = rec.to_json()
    del rdoc["edition_sha256"]
    assert GameRecord.from_json(rdoc).replay().hash() == s.hash()
    path = _edited(tmp_path)
    t, _ = _played(str(path))
    old = t.to_json()
    old["edition"] = str(path)
    del old["edition_sha256"]
    assert State.from_json(old).hash() == t.hash()


def test_the_first_reconstruction_is_the_board_the_first_models_were_fitted_on():
    """Today's data before the default's citizen tracks changed, kept under a name of its own (inventory §4.5):
    the board of every model file written before models named their edition."""
    from barcelona_ai.learned.models import UNNAMED_EDITION
    first = load_edition("first-reconstruction")
    assert first.board_sha256 == UNNAMED_EDITION["board_sha256"]
    assert RENAMED[("default", UNNAMED_EDITION["sha256"])] == "first-reconstruction"


def test_a_document_of_a_former_default_reads_under_the_edition_that_holds_it_now(monkeypatch):
    """A document naming a shipped edition with the digest of a content that name had before (RENAMED) is read
    under the edition that holds that content now; told to read it under the name's new content, the reader
    refuses it naming the edition to use. Before digests, documents carried the name alone: one read with
    --edition NAME of the edition that holds the former content is read so."""
    s, rec = _played("first-reconstruction")
    doc, rdoc = s.to_json(), rec.to_json()
    former = "0" * 64                                     # what "default" held before, in this test
    monkeypatch.setitem(RENAMED, ("default", former), "first-reconstruction")
    for d in (doc, rdoc):
        d["edition"], d["edition_sha256"] = "default", former
    assert State.from_json(doc).hash() == s.hash()
    assert State.from_json(doc).game_data.edition.name == "first-reconstruction"
    assert GameRecord.from_json(rdoc).replay().hash() == s.hash()
    assert State.from_json(doc, edition="first-reconstruction").hash() == s.hash()
    with pytest.raises(DataFileError, match='^edition: the game was played under edition "first-reconstruction"'
                                            r" \(board data [0-9a-f]{8}\), not under edition \"default\""):
        State.from_json(doc, edition="default")
    del doc["edition_sha256"]                             # written before digests: the name alone
    assert State.from_json(doc, edition="first-reconstruction").hash() == s.hash()


def test_bad_digests_are_refused_by_field():
    for bad in ("", "0" * 63, "G" * 64, 7):
        with pytest.raises(DataFileError, match="^edition_sha256: "):
            edition_of_document("default", bad)
    with pytest.raises(DataFileError, match='^edition: the game was played under edition "my-board"'):
        edition_of_document("my-board", "0" * 64, chosen="default")
    with pytest.raises(DataFileError, match="^edition: unknown edition"):
        edition_of_document("no-such-board")


def test_a_state_of_a_file_edition_pickles(tmp_path):
    s, _ = _played(str(_edited(tmp_path)))
    t = pickle.loads(pickle.dumps(s))
    assert t.hash() == s.hash() and t.game_data.edition.sha256 == s.game_data.edition.sha256


# ---------------------------------------------------------------------------------------------------------------
# end to end: the command line and the web board on a data file

def _cli(args, lines=()):
    import subprocess
    import sys
    text = "".join(line + "\n" for line in lines)
    return subprocess.run([sys.executable, "-m", "barcelona_ai", *args], input=text, capture_output=True,
                          text=True, timeout=300)


def test_the_command_line_plays_reads_and_refuses_by_edition(tmp_path):
    board = _edited(tmp_path)
    digest = load_edition(str(board)).sha256[:8]
    p = _cli(["table", "--edition", str(board), "--seed", "3", "--players", "2", "--seat", "0",
              "--iterations", "30"], ["?", "quit"])
    assert p.returncode == 0, p.stderr
    assert f'barcelona-ai table: 2 players, edition "my-board" (board data {digest})' in p.stdout
    assert "Turn plans" in p.stdout or "1." in p.stdout
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(new_game(2, seed=3, edition=str(board)).to_json()))
    p = _cli(["hint", "--edition", str(board), str(pos), "--iterations", "30", "--top", "1"])
    assert p.returncode == 0, p.stderr
    assert f'edition "my-board" (board data {digest})' in p.stdout
    p = _cli(["hint", str(pos), "--iterations", "30"])               # its own edition is not shipped
    assert p.returncode == 2 and 'edition "my-board"' in p.stderr and "--edition FILE" in p.stderr
    p = _cli(["show", str(pos), "--edition", "default"])
    assert p.returncode == 2
    assert f'played under edition "my-board" (board data {digest}), not under edition "default"' in p.stderr
    p = _cli(["show", str(pos), "--edition", str(board)])
    assert p.returncode == 0 and f'Barcelona, 2 players, edition "my-board" (board data {digest})' in p.stdout
    p = _cli(["hint", "start-2p", "--edition", str(board), "--iterations", "20", "--top", "1"])
    assert p.returncode == 0, p.stderr                              # a shipped example, played on that board
    p = _cli(["hint", "start-2p", "--edition", str(tmp_path / "missing.json")])
    assert p.returncode == 2 and "argument --edition" in p.stderr and "does not exist" in p.stderr


def test_selfplay_and_arena_play_on_the_edition_and_their_records_name_it(tmp_path):
    board = _edited(tmp_path)
    out = tmp_path / "games"
    p = _cli(["selfplay", "--games", "1", "--players", "2", "--bot", "random", "--out", str(out), "--edition",
              str(board)])
    assert p.returncode == 0, p.stderr
    doc = json.loads((out / "game-0001.json").read_text())
    assert (doc["edition"], doc["edition_sha256"]) == ("my-board", load_edition(str(board)).sha256)
    p = _cli(["review", str(out / "game-0001.json"), "--iterations", "10"])
    assert p.returncode == 2 and 'edition "my-board"' in p.stderr
    from barcelona_ai.workflows.arena import match
    (tmp_path / "a").mkdir()
    r = match("greedy", "random", players=2, games=2, seed=1, workers=1, progress=False, save=str(tmp_path / "a"),
              edition=str(board))
    assert r.games == 2
    saved = json.loads((tmp_path / "a" / "game-0001.json").read_text())
    assert saved["edition"] == "my-board"


def test_a_web_game_on_the_server_edition(tmp_path):
    from starlette.testclient import TestClient
    from barcelona_ai.web.api import Editions, Games
    from barcelona_ai.web.server import create_app
    board = _edited(tmp_path)
    app = create_app(games=Games(editions=Editions(str(board))), token="t")
    client = TestClient(app, base_url="http://127.0.0.1:8000", headers={"X-Barcelona-Token": "t"})
    setup = client.get("/api/table-setup").json()
    assert setup["default"] == "my-board"
    assert {e["name"] for e in setup["editions"]} == {*available_editions(), "my-board"}
    g = client.post("/api/games", json={"players": 2, "seed": 1, "iterations": 20, "hint_iterations": 20}).json()
    assert g["edition"]["name"] == "my-board" and "Board: edition &quot;my-board&quot;" in g["svg"]
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["edition"] == "my-board"
    r = client.post("/api/games", json={"players": 2, "edition": str(board)})       # a path: refused
    assert r.status_code == 400 and "edition" in r.json()["error"]
    r = client.post("/api/games", json={"players": 2, "seed": 1, "edition": "default", "record": record})
    assert r.status_code == 400 and "not under edition" in r.json()["error"]
    g2 = client.post("/api/games", json={"players": 2, "seed": 1, "edition": "default"}).json()
    assert g2["edition"]["name"] == "default"
