"""Table mode from the real table: the setup typed from the components (table_setup.py), checked
field by field, then a whole game typed in from one seat, with `eval` and `?` on the way."""
import json
import random
import re
import subprocess
from pathlib import Path
import sys

import pytest

from barcelona_ai import State, new_game
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.rules.table_setup import (FIELDS, SetupError, TableSetup, check_setup, format_field, parse_field,
                                      read_setup_file, set_field, setup_document, setup_from_document)

from helpers import transcribe

SETUP = {"players": "2", "seat": "1", "actions": "COB INT CER WID IMP / CLO PS TAK COI NAR / TRM",
         "cerda": "SC01 SC03 SC14", "display": "SC08 SC09 SC12 SC18",
         "services": "antoni pau universitat museu pavello", "hand": "W M"}


def cli(args, lines, timeout=600):
    text = "".join(line + "\n" for line in lines)
    return subprocess.run([sys.executable, "-m", "barcelona_ai", *args], input=text, capture_output=True,
                          text=True, timeout=timeout)


def make_setup(**changes) -> TableSetup:
    setup = TableSetup()
    for name in FIELDS:
        set_field(setup, name, changes.get(name, SETUP[name]))
    return setup


# ---------------------------------------------------------------------------------------------------------------
# the fields

def test_every_field_parses_and_prints_back():
    setup = make_setup()
    assert setup.missing() == [] and setup.players == 2 and setup.seat == 1
    assert setup.actions == {"vertical": ["PLACE_COBBLESTONE", "BUILD_INTERSECTION", "CERDA_PLUS_2", "BUILD_1_WIDE",
                                          "IMPROVE_MODERNISME"],
                             "horizontal": ["GAIN_CLOTH_3VP", "BUILD_PUBLIC_SERVICE", "TAKE_MODERNISME",
                                            "GAIN_2_COINS", "BUILD_2_NARROW"], "diagonal": "MOVE_TRAM"}
    assert setup.services == ["SANT_ANTONI", "HOSPITAL_SANT_PAU", "UNIVERSITAT", "MUSEU_MODERNISME",
                              "PAVELLO_OPERACIONS"]
    assert setup.hand == [0, 1]
    for name in FIELDS:
        value = getattr(setup, name)
        assert parse_field(name, format_field(name, value), 2) == value
    assert parse_field("cerda", "1, 3, 14") == ["SC01", "SC03", "SC14"]
    assert parse_field("hand", "mw") == [0, 1] and parse_field("hand", "upper/Upper") == [2, 2]
    assert parse_field("services", "SANT_ANTONI estacio HOSPITAL lluis Universitat")[1] == "ESTACIO_FRANCA"
    assert parse_field("cerda", "line of b, Coins in warehouse; COBBLE") == ["SC01", "SC03", "SC14"]   # names
    assert parse_field("services", "Sant, Estació, Hosp, Passeig, Universitat")[:2] == ["SANT_ANTONI",
                                                                                            "ESTACIO_FRANCA"]
    printed = parse_field("actions", "printed")
    assert printed["diagonal"] == "MOVE_TRAM" and len(set(printed["vertical"] + printed["horizontal"])) == 10


@pytest.mark.parametrize("name,text,needle", [
    ("players", "5", "players: expected an integer from 2 to 4, not 5"),
    ("players", "two", "players: expected an integer"),
    ("actions", "COB INT", "actions: expected 11 action tiles"),
    ("actions", "COB INT CER WID IMP CLO PS TAK COI NAR XYZ", "actions[11]: 'XYZ' is not an action tile (COI Gain 2"),
    ("actions", "COB COB CER WID IMP CLO PS TAK COI NAR TRM", "actions: COB (Place Cobblestone) is given twice"),
    ("cerda", "SC01 SC03", "cerda: expected 3 Cerdà Scoring tiles"),
    ("cerda", "SC05 SC01 SC02", "cerda[1]: 'SC05' (Intersections by 3 Buildings) is not a Cerdà Scoring tile"),
    ("cerda", "SC01 SC01 SC02", "cerda: Line of blocks is given twice"),
    ("display", "SC06 SC09 SC12 SC18", "display[1]: 'SC06' (Cerdà multiplier) is not a Modernisme tile"),
    ("display", "SC08 SC09 SC12", "display: expected 4 Modernisme tiles"),
    ("services", "st pau universitat museu pavello", "services[1]: 'st' is not a Public Service type (antoni,"),
    ("display", "passengers, SC09, SC12, SC18", "display[1]: 'passengers' could be Passengers by 2 Buildings or "
                                                "Passengers placed"),
    ("services", "antoni antoni universitat museu pavello", "services: Sant Antoni Market is given twice"),
    ("hand", "W", "hand: expected 2 citizens"),
    ("hand", "W Q", "hand: 'Q' is not a citizen class"),
    ("seat", "4", "seat: expected an integer from 0 to 3"),
])
def test_bad_fields_name_the_field(name, text, needle):
    with pytest.raises(SetupError) as exc:
        parse_field(name, text)
    assert needle in str(exc.value)


def test_checks_across_fields():
    with pytest.raises(SetupError, match=r"display: Coins in Warehouse is also a Cerdà Scoring tile in play"):
        check_setup(make_setup(display="SC03 SC09 SC12 SC18"))
    setup = make_setup()
    with pytest.raises(SetupError, match="seat: no seat 3 in a 2-player game"):
        set_field(TableSetup(seat=3), "players", "2")
    with pytest.raises(SetupError, match="players: given as '2' and as '3'"):
        set_field(setup, "players", "3")
    with pytest.raises(SetupError, match="the setup lacks hand"):
        check_setup(TableSetup(**{**vars(setup), "hand": None}))


def test_the_setup_is_a_viewpoint_position_that_loads():
    setup = make_setup()
    doc = setup_document(setup)
    assert doc["viewpoint"] == 1 and doc["players"][0]["hand"] == {"hidden": 2}
    s = State.from_json(doc, seed=3)
    v = s.view(viewpoint=1)
    assert v.players[1].hand == (1, 1, 0) and s.current_player() == 0
    assert setup_from_document(s.to_json(viewpoint=1)) == setup
    assert "CER" in s.render() and "Cobblestones placed: Gain 2 VP per Cobblestone" in " ".join(s.render().split())
    for seed in range(5):           # the other hand is a sample; what seat 1 sees is the same
        assert State.from_json(doc, seed=seed).observation_hash(1) == s.observation_hash(1)


def test_setup_file(tmp_path):
    f = tmp_path / "table.txt"
    f.write_text("# our game\n" + "\n".join(f"{k}: {v}" for k, v in SETUP.items()) + "\n\n")
    assert read_setup_file(str(f)) == make_setup()
    f.write_text("players: 2\ncolour: red\n")
    with pytest.raises(SetupError, match=r"line 2: expected 'field: value'"):
        read_setup_file(str(f))
    f.write_text("players: 2\nhand: W Z\n")
    with pytest.raises(SetupError, match=r"line 2: hand: 'Z' is not a citizen class"):
        read_setup_file(str(f))
    with pytest.raises(SetupError, match="cannot be read"):
        read_setup_file(str(tmp_path / "missing.txt"))


# ---------------------------------------------------------------------------------------------------------------
# the command line

def test_setup_options_and_file_start_the_game_and_errors_name_the_option(tmp_path):
    f = tmp_path / "table.txt"
    f.write_text("\n".join(f"{k}: {v}" for k, v in SETUP.items() if k != "hand") + "\n")
    p = cli(["table", "--setup-file", str(f), "--hand", "U/W", "--iterations", "20"], ["eval", "quit"])
    assert p.returncode == 0, p.stderr
    assert "the table's setup; you are P1" in p.stdout and "  hand: W U" in p.stdout
    assert "P1 (you) is ahead" in p.stdout or "P0 is ahead" in p.stdout
    p = cli(["table", "--setup-file", str(f), "--seat", "0", "--hand", "W W"], [])
    assert p.returncode == 2 and p.stderr.startswith("error: --seat: seat: given as '1' and as '0'")
    p = cli(["table", "--players", "2", "--cerda", "SC01 SC05 SC02"], [])
    assert p.returncode == 2
    assert "error: --cerda: cerda[2]: 'SC05' (Intersections by 3 Buildings) is not a Cerdà" in p.stderr
    p = cli(["table", "--seed", "3", "--hand", "W M"], [])
    assert p.returncode == 2 and "error: --hand: the setup options describe a new game" in p.stderr


def test_a_viewpoint_document_is_checked_against_the_seat(tmp_path):
    pos = tmp_path / "seat1.json"
    pos.write_text(json.dumps(new_game(players=2, seed=2).to_json(viewpoint=1)))
    p = cli(["table", "--position", str(pos), "--seat", "0"], [])
    assert p.returncode == 2 and "is written from seat 1's point of view" in p.stderr and "--seat 1" in p.stderr
    p = cli(["table", "--position", str(pos), "--iterations", "10"], ["quit"])
    assert p.returncode == 0 and "you are P1" in p.stdout
    p = cli(["table", "--load", str(pos)], [])
    assert p.returncode == 2 and "is a position, not a game record" in p.stderr and "table --position" in p.stderr




def test_a_table_game_from_a_typed_real_setup_to_its_end(tmp_path):
    """The setup typed at the prompts (not a seed), a whole game typed in from seat 1 with
    `eval` on another player's turn and `?` on our own, then saved; the final scores are the game's and equal
    a replay of the saved record."""
    truth = State.from_json(setup_document(make_setup()), seed=11)       # the real hands of the others
    moves, scores = transcribe(truth, 1, random.Random(5), own_mark="!")
    first_own = next(i for i, m in enumerate(moves) if m.startswith("!"))
    moves = [m.lstrip("!") for m in moves]
    moves[first_own:first_own] = ["?", "eval"]
    saved = tmp_path / "game.json"
    typed = [SETUP[f] for f in FIELDS]
    lines = ["help"] + typed[:2] + ["SC01 SC99"] + typed[2:] + ["eval"] + moves + [f"save {saved}"]
    p = cli(["table", "--iterations", "12"], lines)
    out = p.stdout
    assert p.returncode == 0, (out[-3000:], p.stderr)
    assert "Setting up from the table" in out and "The setup as it lies on the table" in out
    assert "actions: expected 11 action tiles" in out                  # a bad answer, asked again
    assert "you are P1" in out and "practice" not in out
    assert out.count("Evaluation (") >= 2 and "averaged over 4 samples of the hands you cannot see" in out
    assert re.search(r"Hints for P1 \(you\) \(12 iterations; h1(\.\.h[23] plays one| plays it)\):", out)
    final = out[out.index("Final scores (VP by source):"):]
    for i, v in enumerate(scores):
        assert re.search(rf"  P{i}( \(you\))?\s+{v} VP  \(", final), (i, v, final)
    rec = GameRecord.load(saved)
    assert rec.viewpoint == 1 and rec.start["position"]["viewpoint"] == 1
    assert rec.result["scores"] == scores
    for seed in (0, 7):
        assert rec.replay(seed=seed).scores() == scores


def test_the_readme_setup_file_reads(tmp_path):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\w*\n(players:.*?)```", readme, re.S).group(1)
    f = tmp_path / "table.txt"
    f.write_text(block)
    assert read_setup_file(str(f)) == make_setup()
