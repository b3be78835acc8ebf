"""The shipped model files and their manifest (data/models.json): roles by player count, contents pinned by
SHA-256, inputs named; every file read once per process."""
import json
import shutil

import pytest

from barcelona_ai import BarcelonaError, Engine
from barcelona_ai.learned import models
from barcelona_ai.search import settings
from barcelona_ai.learned.evaluation import FEATURE_NAMES, ValueModel
from barcelona_ai.search.settings import PLAYER_COUNTS, PRESETS


def test_the_manifest_describes_the_shipped_files_as_they_are():
    on_disk = json.loads(models.MANIFEST.read_text())
    assert on_disk == models.manifest_document()                   # sha256, inputs and players of every file


def test_the_default_presets_read_the_manifests_files():
    for n in PLAYER_COUNTS:
        s = PRESETS["default"][n]
        assert (s.model, s.forecast_model, s.policy) == tuple(models.shipped_file(n, r) for r in models.ROLES)
    files = models.manifest()["files"]
    assert files["value-model-2p.json"]["players"] == [2]
    assert files["turn-policy.json"]["inputs"] == "turn policy inputs"
    assert models.manifest()["inputs"]["network inputs"] == list(FEATURE_NAMES)
    with pytest.raises(BarcelonaError, match="model role"):
        models.shipped_file(2, "prior")
    with pytest.raises(BarcelonaError, match="no files for 5-player games"):
        models.shipped_file(5, "value")


def test_a_shipped_file_that_is_not_the_one_described_is_refused(tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(models.DATA, data, ignore=shutil.ignore_patterns("positions", "web"))
    monkeypatch.setattr(models, "DATA", data)
    doc = json.loads((data / "value-model-2p.json").read_text())
    doc["to_come_scale"] = 49.0
    (data / "value-model-2p.json").write_text(json.dumps(doc))
    with pytest.raises(BarcelonaError, match="value-model-2p.json: its contents are not the shipped model's"):
        settings.load_model(str(data / "value-model-2p.json"))
    settings.load_model(str(data / "value-model.json"))           # the others are as described


def test_a_model_whose_inputs_are_reordered_is_refused(tmp_path):
    doc = json.loads((models.DATA / "value-model.json").read_text())
    doc["features"] = doc["features"][1:] + doc["features"][:1]
    path = tmp_path / "reordered.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BarcelonaError, match="features"):
        Engine(model=str(path))
    with pytest.raises(BarcelonaError, match="inputs are not this engine's"):
        models.file_entry(path)


def test_a_model_file_is_read_once_per_process(tmp_path, monkeypatch):
    path = tmp_path / "copy.json"
    shutil.copy(models.DATA / "value-model.json", path)
    loads = []

    class Counting:
        @staticmethod
        def load(p):
            loads.append(p)
            return ValueModel.load(p)
    monkeypatch.setattr(settings, "ValueModel", Counting)
    Engine(model=str(path), forecast_model=str(path))
    Engine(model=str(path))
    assert loads.count(str(path)) == 1
    path.write_text(path.read_text() + "\n")                       # a file written anew is read anew
    Engine(model=str(path))
    assert loads.count(str(path)) == 2
