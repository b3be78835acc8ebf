"""barcelona-ai refit: the shipped models fitted anew for an edition from seeds, resumably, each file naming the
edition of its games; the engine then plays with them on that board (and only there)."""
from __future__ import annotations

import json

import pytest

from barcelona_ai import new_game
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.learned.models import edition_entry, fitted_edition
from barcelona_ai.rules.tables import load_edition
from barcelona_ai.search.engine import Engine, Limit

pytest.importorskip("sklearn")
from barcelona_ai.training import refit as R  # noqa: E402


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    doc = json.loads(json.dumps(load_edition().raw))
    doc["edition"], doc["building_bonus_vp"] = "my-board", 9
    path = tmp_path_factory.mktemp("board") / "my-board.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.fixture(scope="module")
def refitted(board, tmp_path_factory):
    out = tmp_path_factory.mktemp("refit") / "run"
    plan = R.RefitPlan(edition=board, scale=0.004, iterations=12, seed=7)
    lines: list[str] = []
    files = R.run(plan, out, log=lines.append)
    return plan, out, files, lines


def test_every_stage_runs_and_every_model_names_the_board(refitted, board):
    plan, out, files, lines = refitted
    assert sorted(files) == sorted(R.FILES)
    for path in files.values():
        assert fitted_edition(path) == edition_entry(load_edition(board))
    for stage in R.STAGE_GAMES:
        assert len(list((out / stage).glob("game-*.json"))) == plan.games(stage), stage
    assert (out / "data" / "default-2p-test").is_dir() and (out / "data" / "default-4p-test").is_dir()
    assert any(line.startswith("default-2p: ") and "model=" in line for line in lines)


def test_the_engine_plays_with_the_refitted_models_on_that_board_only(refitted, board):
    _plan, _out, files, _lines = refitted
    engine = Engine(seed=1, model=str(files["value-model-2p.json"]),
                    forecast_model=str(files["value-model-2p.json"]), policy=str(files["turn-policy.json"]))
    on_board = new_game(2, seed=3, edition=board)
    assert not engine.model_free(on_board) and engine.model_free(new_game(2, seed=3))
    assert engine.hints(on_board, Limit(iterations=50))


def test_a_finished_run_resumes_to_nothing_and_another_plan_is_refused(refitted, board):
    plan, out, files, _lines = refitted
    stamps = {name: p.stat().st_mtime_ns for name, p in files.items()}
    lines: list[str] = []
    R.run(plan, out, log=lines.append)
    assert {name: p.stat().st_mtime_ns for name, p in files.items()} == stamps      # nothing fitted again
    with pytest.raises(BarcelonaError, match="another refit"):
        R.run(R.RefitPlan(edition=board, scale=0.004, iterations=12, seed=8), out)
    with pytest.raises(BarcelonaError, match="scale must be"):
        R.check_plan(R.RefitPlan(edition=board, scale=0))


def test_install_copies_the_models_and_writes_the_manifest(refitted, tmp_path, monkeypatch):
    from barcelona_ai.learned import models
    _plan, out, _files, _lines = refitted
    monkeypatch.setattr(models, "DATA", tmp_path)
    monkeypatch.setattr(models, "MANIFEST", tmp_path / "models.json")
    monkeypatch.setattr(R, "DATA", tmp_path)
    monkeypatch.setattr(models, "_MANIFEST", [])
    R.install(out)
    man = json.loads((tmp_path / "models.json").read_text())
    assert set(man["files"]) == set(R.FILES)
    assert all(e["edition"]["name"] == "my-board" for e in man["files"].values())
    with pytest.raises(BarcelonaError, match="has not finished"):
        R.install(tmp_path / "nothing")
