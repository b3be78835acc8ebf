"""The examples of docs/records.md and docs/positions.md run as written (docs that match the files), and
a table-mode record is written as docs/records.md says."""
import contextlib
import io
import json
import random
import re
from pathlib import Path

from barcelona_ai import new_game
from barcelona_ai.cli import main as cli
from barcelona_ai.workflows.examples import example_position
from barcelona_ai.rules.position import dump_position

DOCS = Path(__file__).resolve().parent.parent / "docs"


def blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(encoding="utf-8"), re.S)


def run(code: str, env: dict | None = None) -> str:
    out = io.StringIO()
    code = re.sub(r"Limit\(iterations=\d+\)", "Limit(iterations=200)", code)
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs", "exec"), dict(env or {}))
    return out.getvalue()


def test_records_md_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write, replay, examples = blocks("records.md")
    s = new_game(players=2, seed=3)
    rng = random.Random(1)
    actions = []
    for _ in range(40):
        a = rng.choice(s.legal_actions())
        actions.append(a)
        s.apply(a)
    run(write, {"my_actions": actions})
    assert json.loads(Path("game.json").read_text())["actions"][0]["id"] == actions[0]
    assert cli.main(["selfplay", "--games", "1", "--players", "2", "--out", "games", "--bot", "greedy",
                     "--seed", "3"]) == 0
    assert "Player" in run(replay)
    folder = tmp_path / "positions"
    folder.mkdir()
    run(examples.replace("barcelona_ai/data/positions/", f"{folder}/"))
    for name in ("start-2p", "start-3p", "start-4p", "midgame-3p"):          # the shipped files, remade
        made = json.loads((folder / f"{name}.json").read_text())
        assert made == example_position(name).to_json(), name


def test_records_md_worked_example_is_what_selfplay_writes(tmp_path):
    assert cli.main(["selfplay", "--games", "1", "--players", "2", "--out", str(tmp_path), "--bot", "greedy",
                     "--seed", "3"]) == 0
    rec = json.loads((tmp_path / "game-0001.json").read_text())
    text = (DOCS / "records.md").read_text(encoding="utf-8")
    assert f"({len(rec['actions'])} entries)" in text
    for entry in rec["actions"][:14]:
        assert json.dumps(entry) in text, entry
    assert json.dumps(rec["result"]["scores"]) in text


def test_positions_md_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, second = blocks("positions.md")[:2]
    state = new_game(players=3, seed=3)
    Path("game.json").write_text(dump_position(state))
    run(first, {"state": state})
    assert '"viewpoint": 1' in run(second)


def test_a_table_mode_record_is_written_as_records_md_says(tmp_path):
    """The table-mode fields of docs/records.md: viewpoint, a start position in the viewpoint form, hidden
    draws as null entries, another player's placement with both citizens."""
    from test_table_setup import SETUP, cli as run_cli
    saved = tmp_path / "t.json"
    lines = ["1", "place (0,0) W/M"] + ["1"] * 12 + [f"save {saved}", "quit"]
    args = ["table", "--iterations", "5"] + [x for k, v in SETUP.items() for x in (f"--{k}", v)]
    p = run_cli(args, lines)
    assert p.returncode == 0, p.stderr
    rec = json.loads(saved.read_text())
    assert rec["viewpoint"] == 1 and rec["start"]["position"]["viewpoint"] == 1
    assert rec["start"]["position"]["players"][0]["hand"] == {"hidden": 2}
    assert "unseen_pool" in rec["start"]["position"] and rec["seats"] == ["table", "you"]
    assert {"id": None, "move": "draw (hidden)", "by": "chance"} in rec["actions"]
    assert rec["actions"][0]["move"] == "place (0,0) W/M" and rec["actions"][0]["by"] == 0
    text = (DOCS / "records.md").read_text(encoding="utf-8")
    for needle in ('"viewpoint": p', '{"id": null, "move": "draw (hidden)", "by": "chance"}', '"seats"',
                   "--setup-file"):
        assert needle in text, needle
