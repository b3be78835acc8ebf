"""Learned models belong to the edition whose games they were fitted on: model files, datasets and the fit name
it (name and board-data digest), the engine uses a model only on that edition's board, and elsewhere plays the
model-free preset (v0) and says so where its numbers are shown."""
from __future__ import annotations

import json

import pytest

from barcelona_ai import new_game
from barcelona_ai.cli.main import main
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.learned.models import UNNAMED_EDITION, edition_entry, fitted_edition, manifest, shipped_file
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.rules.tables import load_edition
from barcelona_ai.search.engine import Engine, Limit
from barcelona_ai.training.datagen import DataPlan, dataset_edition, generate, load_dataset
from barcelona_ai.workflows.selfplay import play_game

ROLES = ("value", "forecast", "turn_policy")


def _board(tmp_path, name="my-board"):
    """The default's board data with the Building bonus at 9 VP: another edition."""
    doc = json.loads(json.dumps(load_edition("default").raw))
    doc["edition"], doc["building_bonus_vp"] = name, 9
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return load_edition(str(path))


def _refitted(tmp_path, role_file: str, edition) -> str:
    """A shipped model file relabelled as fitted on `edition` (its weights unchanged)."""
    doc = json.loads(open(role_file).read())
    doc["edition"] = edition_entry(edition)
    path = tmp_path / f"on-{edition.name}-{role_file.rsplit('/', 1)[-1]}"
    path.write_text(json.dumps(doc))
    return str(path)


def test_every_shipped_model_was_fitted_on_the_default_edition():
    default = load_edition("default").sha256
    for players in (2, 3, 4):
        for role in ROLES:
            assert fitted_edition(shipped_file(players, role))["sha256"] == default, (players, role)
    for name, entry in manifest()["files"].items():
        assert entry["edition"] == edition_entry(load_edition("default")), name


def test_a_copy_of_a_board_under_another_name_is_the_same_board_for_the_models(tmp_path):
    """The learned models apply to a board, not to its name: a shipped board saved under a name of its own (the
    guided editor with every value kept) plays with them; one changed value does not."""
    from barcelona_ai.workflows.board_editor import edit
    same = tmp_path / "my-copy.json"
    same.write_text(json.dumps(edit("default", {}, "my-copy")))
    copy = load_edition(str(same))
    assert copy.sha256 != load_edition().sha256 and copy.board_sha256 == load_edition().board_sha256
    assert not Engine(seed=1).model_free(new_game(2, seed=1, edition=copy))
    assert Engine(seed=1).evaluation_note(new_game(2, seed=1, edition=copy)) is None
    other = tmp_path / "other.json"
    other.write_text(json.dumps(edit("default", {"crossing (1,0)": "1"}, "other")))
    assert Engine(seed=1).model_free(new_game(2, seed=1, edition=str(other)))


def test_an_entry_without_a_board_digest_fits_its_own_edition_only():
    from barcelona_ai.learned.models import fits
    ed = load_edition()
    assert fits({"name": "default", "sha256": ed.sha256}, ed)
    assert not fits({"name": "default", "sha256": "0" * 64}, ed)
    assert fits({"name": "x", "sha256": "0" * 64, "board_sha256": ed.board_sha256}, ed)


def test_a_model_file_names_its_edition_or_is_of_the_first_default(tmp_path):
    doc = json.loads(open(shipped_file(2, "value")).read())
    del doc["edition"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    assert fitted_edition(old) == UNNAMED_EDITION
    doc["edition"] = {"name": "x", "sha256": "not hex"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(BarcelonaError, match="edition must be"):
        fitted_edition(bad)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_on_an_edition_without_models_the_engine_plays_the_model_free_preset(tmp_path, players):
    board = _board(tmp_path)
    s = new_game(players, seed=4, edition=board)
    engine = Engine(seed=3)
    assert engine.model_free(s)
    assert not engine.model_free(new_game(players, seed=4))
    limit = Limit(iterations=150)
    assert [h.to_dict() for h in engine.hints(s, limit, top=2)] == \
        [h.to_dict() for h in Engine(seed=3, preset="v0").hints(s, limit, top=2)]
    assert engine.best_move(s, limit) == Engine(seed=3, preset="v0").best_move(s, limit)
    note = engine.evaluation_note(s)
    assert 'edition "my-board" (board data ' in note and "model-free" in note
    assert engine.evaluation_note(new_game(players, seed=4)) is None
    assert Engine(seed=3, preset="v0").evaluation_note(s) is None          # it reads no model anywhere


def test_models_fitted_on_an_edition_are_used_there_and_only_there(tmp_path):
    board = _board(tmp_path)
    files = {"model": _refitted(tmp_path, shipped_file(2, "value"), board),
             "forecast_model": _refitted(tmp_path, shipped_file(2, "forecast"), board),
             "policy": _refitted(tmp_path, shipped_file(2, "turn_policy"), board)}
    engine = Engine(seed=1, **files)
    on_board, on_default = new_game(2, seed=2, edition=board), new_game(2, seed=2)
    assert not engine.model_free(on_board) and engine.evaluation_note(on_board) is None
    assert engine.model_free(on_default)
    limit = Limit(iterations=200)
    learned = engine.analyse(on_board, limit).players[0].win_prob
    rollouts = Engine(seed=1, preset="v0").analyse(on_board, limit).players[0].win_prob
    assert learned != rollouts                         # the network's forecast, not the rollouts' share
    one_off = Engine(seed=1, model=files["model"])         # its turn policy, which plays, is the default's
    assert one_off.model_free(on_board)
    deciding = Engine(seed=1, model=files["model"], policy=files["policy"])     # forecasts: the default's
    assert not deciding.model_free(on_board)               # the numbers then come from the value network
    assert deciding.analyse(on_board, limit).to_dict() == \
        Engine(seed=1, model=files["model"], forecast_model=files["model"], policy=files["policy"]).analyse(
            on_board, limit).to_dict()


def test_the_same_hidden_information_gives_the_same_model_free_answer(tmp_path):
    """Twin states of a board without models (they differ only in what the player to move cannot see, A6) get
    byte-identical answers from the model-free search."""
    board = _board(tmp_path)
    s = new_game(3, seed=8, edition=board)
    for _ in range(30):
        s.apply(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[-1])
    while s.is_chance_node():
        s.apply(s.chance_outcomes()[0][0])
    p = s.current_player()
    twins = [s.determinize(p, 1000 + i) for i in range(3)]
    assert len({tuple(t.hand(q) for q in range(3) if q != p) for t in twins + [s]}) > 1
    limit = Limit(iterations=150)

    def said(state) -> str:
        e = Engine(seed=5)
        assert e.model_free(state)
        return json.dumps({"hints": [h.to_dict() for h in e.hints(state, limit)],
                           "analyse": e.analyse(state, limit).to_dict(), "note": e.evaluation_note(state)})
    first = said(s)
    assert all(said(t) == first for t in twins)


def test_datasets_name_their_edition_and_are_not_mixed(tmp_path):
    board = _board(tmp_path)
    generate(DataPlan(games=1, per_shard=1, players=2, bots=("greedy", "random"), seed=3, edition=board),
             tmp_path / "mine")
    generate(DataPlan(games=1, per_shard=1, players=2, bots=("greedy", "random"), seed=3), tmp_path / "plain")
    man = json.loads((tmp_path / "mine" / "dataset.json").read_text())
    assert man["edition"] == edition_entry(board)
    assert dataset_edition(tmp_path / "mine") == edition_entry(board)
    assert dataset_edition(tmp_path / "plain") == edition_entry(load_edition("default"))
    with pytest.raises(BarcelonaError, match='edition "my-board".*edition "default"|edition "default".*my-board'):
        dataset_edition(tmp_path / "mine", tmp_path / "plain")
    assert len(load_dataset(tmp_path / "mine")["game"]) > 0


def test_records_of_another_edition_are_refused_by_the_dataset(tmp_path):
    board = _board(tmp_path)
    path = tmp_path / "game.json"
    GameRecord.from_json(play_game(["random", "random"], 2, 2, edition=board).record, board).save(path)
    with pytest.raises(BarcelonaError, match="not under edition"):
        generate(DataPlan(games=1, per_shard=1, records=(str(path),)), tmp_path / "d")
    generate(DataPlan(games=1, per_shard=1, records=(str(path),), edition=board), tmp_path / "ok")
    assert dataset_edition(tmp_path / "ok")["name"] == "my-board"


def test_the_fit_and_the_turn_policy_name_the_edition_of_their_games(tmp_path):
    pytest.importorskip("sklearn")
    from barcelona_ai.training.policy_train import train_policy
    from barcelona_ai.training.train import TrainSettings, train
    board = _board(tmp_path)
    generate(DataPlan(games=4, per_shard=2, players=2, bots=("greedy", "greedy"), seed=5, edition=board),
             tmp_path / "d")
    doc, _ = train(load_dataset(tmp_path / "d"), TrainSettings(hidden=(4,), max_iter=5, seed=1),
                   edition=dataset_edition(tmp_path / "d"))
    assert doc["edition"] == edition_entry(board)
    model = tmp_path / "m.json"
    model.write_text(json.dumps(doc))
    assert fitted_edition(model) == edition_entry(board)
    recs = []
    for g in range(2):
        path = tmp_path / f"g{g}.json"
        GameRecord.from_json(play_game(["greedy", "greedy"], 10 + g, 10 + g, edition=board).record, board).save(path)
        recs.append(str(path))
    policy = train_policy(recs, test_fraction=0.0, edition=board)
    assert policy["edition"] == edition_entry(board)
    plain = tmp_path / "plain.json"
    GameRecord.from_json(play_game(["greedy", "greedy"], 12, 12).record).save(plain)
    from barcelona_ai.training.policy_train import load_decisions
    with pytest.raises(BarcelonaError, match="not under edition"):
        load_decisions(recs + [str(plain)], edition=board)


def test_the_command_line_says_where_the_numbers_are_model_free(tmp_path, capsys):
    board = _board(tmp_path)
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(new_game(2, seed=3, edition=board).to_json()))
    assert main(["hint", str(pos), "--edition", board.source, "--iterations", "40", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "No learned model was fitted on" in out and 'edition "my-board"' in out
    assert main(["hint", str(pos), "--edition", board.source, "--iterations", "40", "--json"]) == 0
    assert "model-free" in json.loads(capsys.readouterr().out)["evaluation_note"]
    assert main(["hint", "start-2p", "--iterations", "40", "--top", "1"]) == 0
    assert "No learned model" not in capsys.readouterr().out
    data = tmp_path / "data"
    assert main(["generate", "--out", str(data), "--games", "1", "--players", "2", "--bot", "greedy",
                 "--edition", board.source]) == 0
    assert 'on edition "my-board"' in capsys.readouterr().out
    assert main(["evaluate", str(data)]) == 2
    assert "no shipped model was fitted on edition \"my-board\"" in capsys.readouterr().err
    assert main(["evaluate", str(data), "--edition", "default"]) == 2
    assert 'the datasets hold games of edition "my-board"' in capsys.readouterr().err


def test_a_web_game_on_an_edition_without_models_says_so(tmp_path):
    from starlette.testclient import TestClient
    from barcelona_ai.web.api import Editions, Games
    from barcelona_ai.web.server import create_app
    board = _board(tmp_path)
    app = create_app(games=Games(editions=Editions(board.source)), token="t")
    client = TestClient(app, base_url="http://127.0.0.1:8000", headers={"X-Barcelona-Token": "t"})
    g = client.post("/api/games", json={"players": 2, "seed": 1, "iterations": 20, "hint_iterations": 20}).json()
    assert "No learned model was fitted on" in g["engine_note"]
    plain = client.post("/api/games", json={"players": 2, "seed": 1, "edition": "default"}).json()
    assert plain["engine_note"] is None
