"""The guided editor of an edition (workflows/board_editor.py, ``barcelona-ai edition``): it asks exactly the
values docs/rules-inventory.md §4 marks RECONSTRUCTED, in reading order, each with the edition's value as the
default answer; answers in words parse back; the file it writes is checked whole and plays."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from barcelona_ai import new_game
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.rules.tables import available_editions, content_digest, load_edition
from barcelona_ai.workflows import board_editor as E


@pytest.mark.parametrize("name", available_editions())
def test_every_answer_reads_back_as_the_value_it_shows(name):
    doc = load_edition(name).raw
    for q in E.QUESTIONS:
        value = q.get(doc)
        assert q.parse(q.answer(doc)) == ("-" if q.kind == "effect" and value == "" else value), q.key


def test_the_questions_follow_the_box_in_reading_order():
    assert [q.part for q in E.QUESTIONS] == sorted((q.part for q in E.QUESTIONS), key=E.PARTS.index)
    assert {q.part for q in E.QUESTIONS} == set(E.PARTS)
    assert len({q.key for q in E.QUESTIONS}) == len(E.QUESTIONS)
    assert E.QUESTIONS[0].part == "Main board: street types" and E.QUESTIONS[-1].key == "corner effect"


def test_values_the_rulebook_or_a_source_gives_are_not_asked():
    keys = {q.key for q in E.QUESTIONS}
    for given in ("crossing (0,0)", "crossing (2,2)", "crossing (4,4)",   # diagonal crossings: 1 Coin (sourced)
                  "printed diagonal 0",                                  # the diagonal's tile (sourced)
                  "intersection cost 3",                                 # R61: the 3rd costs 2 Coins
                  "passenger cost 1",                                    # R87: the first costs 1 Cloth
                  "passenger vp 4", "warehouse vp 4",                    # R125: 4 Passengers 16, 4 Cobblestones 7
                  "project 3 raise", "project 5 top"):                   # R69: 2 Cloth; R125: x4
        assert given not in keys
    fields = {q.field.split(".")[0] for q in E.QUESTIONS}
    for text_only in ("citizens", "conditions", "public_services", "building_bonus_vp", "grid"):
        assert text_only not in fields                                    # counts and tiles the rulebook prints
    assert len([q for q in E.QUESTIONS if q.part == "Main board: street spaces"]) == 44
    assert len([q for q in E.QUESTIONS if q.part == "Side board: Sidewalk"]) == 30


@pytest.mark.parametrize("words, code", [
    ("1 Coin + 1 Cloth", "COIN1+CLOTH1"), ("2 coins", "COIN2"), ("3 VP", "VP3"), ("Cerdà 2", "CERDA2"),
    ("cerda +1", "CERDA1"), ("1 step on the Cerdà track", "CERDA1"), ("Sagrada +1", "SAGRADA1"),
    ("nothing", "-"), ("-", "-"), ("", "-"), ("Wide Street", "ACT_BUILD_WIDE"),
    ("Improve a Modernisme Project for free + 2 VP", "ACT_IMPROVE_MODERNISME_FREE+VP2"),
    ("printed cobblestone", "PRE"), ("COIN1+CLOTH1", "COIN1+CLOTH1"), ("2 resources + 2 VP", "RES2+VP2")])
def test_benefits_are_read_in_words_or_codes(words, code):
    assert E.parse_effect(words) == code


def test_an_answer_that_is_no_value_is_refused_naming_the_question():
    q = E.BY_KEY["space V(0,0)"]
    with pytest.raises(BarcelonaError, match=r"Street space V\(0,0\).*is not a benefit printed in the game"):
        q.parse("a banana")
    with pytest.raises(BarcelonaError, match="Coins printed on crossing .1,0.: expected a whole number from 0 to 5"):
        E.BY_KEY["crossing (1,0)"].parse("9")
    with pytest.raises(BarcelonaError, match="narrow or wide.*expected one of narrow, wide"):
        E.BY_KEY["street V0"].parse("medium")


def test_answers_that_keep_every_value_keep_the_board_data():
    doc = E.edit("default", {q.key: q.answer(load_edition().raw) for q in E.QUESTIONS}, "default")
    assert content_digest(doc) == load_edition().sha256          # the same content: the same digest


def test_an_edited_board_plays_and_a_contradiction_is_refused_by_part(tmp_path):
    doc = E.edit("default", {"UPPER marks": "5, 10, 15", "crossing (1,0)": "2", "space V(0,0)": "2 VP"},
                 "my-board")
    path = tmp_path / "my-board.json"
    path.write_text(json.dumps(doc))
    ed = load_edition(str(path))
    assert ed.raw["citizen_tracks"]["UPPER"]["marks"] == [4, 9, 14]
    assert ed.raw["crossing_cost_coins"]["(1,0)"] == 2 and ed.raw["streets"]["benefits"]["V(0,0)"] == "VP2"
    s = new_game(3, seed=1, edition=ed)
    for _ in range(60):
        s.apply(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0])
    assert [d for d in E.differences(ed.raw)][0][0].key == "space V(0,0)"
    with pytest.raises(BarcelonaError, match="^Main board: citizen tracks: .*citizen_tracks.UPPER"):
        E.edit("default", {"UPPER sections": "4, 4, 4"}, "x")          # the VP row no longer fits
    with pytest.raises(BarcelonaError, match="name: 1 to 64 letters"):
        E.edit("default", {}, "my board!")
    with pytest.raises(BarcelonaError, match="no question"):
        E.edit("default", {"citizens": "72"}, "x")


def _cli(args, lines, cwd):
    return subprocess.run([sys.executable, "-m", "barcelona_ai", *args], input="".join(x + "\n" for x in lines),
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def test_edition_new_asks_part_by_part_and_writes_a_board(tmp_path):
    parts = len(E.PARTS)
    crossings = [q for q in E.QUESTIONS if q.part == "Main board: crossing costs"]
    answers = ["my-box", "", "", "n"] + ["1" if q.key == "crossing (1,0)" else "" for q in crossings] \
        + [""] * (parts - 3)
    p = _cli(["edition", "new"], answers, tmp_path)
    assert p.returncode == 0, p.stderr
    assert "1/15. Main board: street types" in p.stdout and "15/15. Tiles: Corner Building" in p.stdout
    assert "Coins printed on crossing (1,0) [0]: " in p.stdout                 # today's value, the default answer
    assert 'edition "my-box"' in p.stdout and "1 value changed" in p.stdout
    doc = json.loads((tmp_path / "my-box.json").read_text())
    assert doc["edition"] == "my-box" and doc["crossing_cost_coins"]["(1,0)"] == 1
    p = _cli(["edition", "check", "my-box.json"], [], tmp_path)
    assert p.returncode == 0 and "Coins printed on crossing (1,0): 1 (default: 0)" in p.stdout
    assert "No learned model was fitted on it" in p.stdout
    p = _cli(["edition", "new", "--name", "my-box"], [], tmp_path)             # the file is there already
    assert p.returncode == 2 and "exists (--force writes over it)" in p.stderr
    p = _cli(["edition", "new", "--name", "other"], ["", "q"], tmp_path)
    assert p.returncode == 1 and "nothing was written" in p.stdout and not (tmp_path / "other.json").exists()


def test_edition_check_and_show(tmp_path):
    doc = json.loads(json.dumps(load_edition().raw))
    doc["edition"] = "broken"
    doc["cerda_track"]["start"] = 40
    (tmp_path / "broken.json").write_text(json.dumps(doc))
    p = _cli(["edition", "check", "broken.json"], [], tmp_path)
    assert p.returncode == 2 and p.stderr.startswith("error: Main board: Cerdà track: ")
    assert "cerda_track.start" in p.stderr
    p = _cli(["edition", "show"], [], tmp_path)
    assert p.returncode == 0 and "15. Tiles: Corner Building" in p.stdout and "Sidewalk" in p.stdout


def test_the_web_form_makes_a_board_the_server_then_plays():
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient
    from barcelona_ai.web.api import Games
    from barcelona_ai.web.board_form import MAX_MADE
    from barcelona_ai.web.server import create_app
    client = TestClient(create_app(games=Games(), token="t"), base_url="http://127.0.0.1:8000",
                        headers={"X-Barcelona-Token": "t"})
    form = client.get("/api/board-form").json()
    assert [p["part"] for p in form["parts"]] == list(E.PARTS)
    asked = [q for p in form["parts"] for q in p["questions"]]
    assert [q["key"] for q in asked] == [q.key for q in E.QUESTIONS]
    crossing = next(q for q in asked if q["key"] == "crossing (1,0)")
    assert crossing["answer"] == "0" and form["parts"][2]["drawing"][1].startswith("r0")
    made = client.post("/api/editions", json={"name": "my-box", "answers": {"crossing (1,0)": "2",
                                                                            "street V0": "wide"}}).json()
    assert made["name"] == "my-box" and 'edition "my-box" (board data ' in made["words"]
    assert made["document"]["crossing_cost_coins"]["(1,0)"] == 2
    assert {c["label"] for c in made["changed"]} == {"Coins printed on crossing (1,0)",
                                                    "Vertical street c0 (down from crossing (0,0)): narrow or wide?"}
    assert "my-box" in {e["name"] for e in client.get("/api/table-setup").json()["editions"]}
    g = client.post("/api/games", json={"players": 2, "seed": 1, "edition": "my-box", "iterations": 20,
                                        "hint_iterations": 20}).json()
    assert g["edition"]["name"] == "my-box" and "No learned model was fitted on" in g["engine_note"]
    again = client.post("/api/editions", json={"name": "my-box", "answers": {"crossing (1,0)": "2",
                                                                             "street V0": "wide"}})
    assert again.status_code == 200                                  # the same board: nothing new
    for body, words in (({"name": "my-box", "answers": {"crossing (1,0)": "3"}}, "already plays a board named"),
                        ({"name": "default"}, "a shipped edition's name"),
                        ({"name": "x", "answers": {"crossing (1,0)": "lots"}}, "Coins printed on crossing (1,0)"),
                        ({"name": "x", "answers": {"UPPER sections": "4,4,4"}}, "Main board: citizen tracks"),
                        ({"name": "x", "from": "../default.json"}, "from: the web board plays"),
                        ({"name": "x", "path": "/etc"}, "path: unknown field")):
        r = client.post("/api/editions", json=body)
        assert r.status_code == 400 and words in r.json()["error"], (body, r.json())
    for k in range(MAX_MADE):
        r = client.post("/api/editions", json={"name": f"b{k}", "answers": {"crossing (1,0)": str(k % 5)}})
    assert r.status_code == 400 and "boards made here already" in r.json()["error"]
