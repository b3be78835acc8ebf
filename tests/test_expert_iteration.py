"""Expert iteration: generations of self-play with the latest model, a model fitted to them
and arenas against the previous engine and v0; seeded, resumable, refusing plans that cannot iterate."""
import json

import pytest

from barcelona_ai.cli.main import main
from barcelona_ai.search.settings import MODEL_2P
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.training.expert_iteration import IterationPlan, check_plan, read_generations, run, training_folders
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.training.train import TrainSettings

TINY = ["--engine", "ismcts:20,rollout_depth=5", "--games", "2", "--arena-games", "2", "--hidden", "4",
        "--epochs", "3", "--alpha", "1", "--seed", "40"]


def test_two_generations_play_with_the_model_they_accepted_and_resume(tmp_path, capsys):
    pytest.importorskip("sklearn")
    out = tmp_path / "run"
    assert main(["iterate", "--out", str(out), "--generations", "2", "--gate", "0", *TINY]) == 0
    printed = capsys.readouterr().out
    assert "generation 2: model accepted" in printed and "vs baseline" in printed
    gens = read_generations(out)
    assert [g.generation for g in gens] == [1, 2] and all(g.accepted for g in gens)
    first, second = gens
    assert second.played_with == first.model                     # gate 0: generation 2 plays with model 1
    seats = GameRecord.load(out / "gen-02" / "games" / "game-0001.json").seats
    assert seats == [f"ismcts:20,rollout_depth=5,model={first.model}"] * 2
    assert GameRecord.load(out / "gen-01" / "games" / "game-0001.json").start["seed"] == 40
    assert GameRecord.load(out / "gen-02" / "games" / "game-0001.json").start["seed"] == 42
    assert second.vs_previous["opponent"] == seats[0] and second.vs_baseline["opponent"] == "ismcts:20,preset=v0"
    assert second.train["games"] > first.train["games"]          # generation 2 is fitted on both generations
    assert json.loads((out / "gen-02" / "model.json").read_text())["format"]
    stamp = (out / "gen-02" / "model.json").stat().st_mtime_ns
    assert main(["iterate", "--out", str(out), "--generations", "2", "--gate", "0", *TINY]) == 0
    assert "generation 1:" not in capsys.readouterr().out        # finished generations are read back
    assert (out / "gen-02" / "model.json").stat().st_mtime_ns == stamp
    assert read_generations(out) == gens


def test_an_interrupted_generation_resumes_from_its_model(tmp_path, capsys):
    pytest.importorskip("sklearn")
    out = tmp_path / "run"
    assert main(["iterate", "--out", str(out), "--generations", "1", *TINY]) == 0
    before = read_generations(out)[0]
    (out / "generations.jsonl").unlink()                         # as if stopped during its arenas
    for name in ("vs-previous", "vs-baseline"):
        (out / "gen-01" / name / "game-0002.json").unlink()
    stamp = (out / "gen-01" / "model.json").stat().st_mtime_ns
    capsys.readouterr()
    assert main(["iterate", "--out", str(out), "--generations", "1", *TINY]) == 0
    assert "fitting a model" not in capsys.readouterr().out
    assert (out / "gen-01" / "model.json").stat().st_mtime_ns == stamp
    assert read_generations(out) == [before]                     # the same games, the same figures


def test_a_folder_of_another_run_is_refused(tmp_path, capsys):
    pytest.importorskip("sklearn")
    out = tmp_path / "run"
    assert main(["iterate", "--out", str(out), "--generations", "1", *TINY]) == 0
    capsys.readouterr()
    assert main(["iterate", "--out", str(out), "--generations", "1", *TINY[:-1], "41"]) == 2
    assert "holds another run" in capsys.readouterr().err


@pytest.mark.parametrize("change, field", [
    ({"engine": "ismcts:20,preset=v0"}, "does not use the model"),         # v0 plays the same games each time
    ({"engine": "ismcts:20", "players": 3, "arena_games": 3}, "does not use the model"),  # the 3p default: mix,
                                                                              # rollouts decide: the same games
    ({"engine": "ismcts:20,model=x.json"}, "must not name a model"),
    ({"engine": "greedy"}, "engine must be an ismcts"),
    ({"arena_games": 3}, "arena_games must be a multiple"),
    ({"games": 0}, "games must be a positive"),
    ({"gate": 1.5}, "gate must be"),
    ({"gate": "high"}, "gate must be"),
    ({"window": 0}, "window must be"),
    ({"baseline": "ismcts:x"}, "(the baseline)"),
    ({"model": "no-such-model.json"}, "no-such-model.json"),
    ({"model": MODEL_2P, "players": 4, "arena_games": 4}, "fitted on 2-player games only"),
])
def test_plans_that_cannot_iterate_are_refused_naming_the_field(tmp_path, change, field):
    plan = IterationPlan(**{"engine": "ismcts:20", **change})
    with pytest.raises(BarcelonaError, match=field.replace("(", r"\(").replace(")", r"\)")):
        check_plan(plan)
    with pytest.raises(BarcelonaError):
        run(plan, tmp_path / "run", 1)
    assert not (tmp_path / "run").exists()                        # nothing written


def test_the_default_engine_iterates_in_2_and_4_players():
    """The 2- and 4-player default searches with the network after a short rollout (its moves depend on the
    model); the 3-player default (mix: rollouts decide) plays v0's moves whatever the model."""
    check_plan(IterationPlan(engine="ismcts:20"))
    check_plan(IterationPlan(engine="ismcts:20", players=4, arena_games=4))
    with pytest.raises(BarcelonaError, match="does not use the model"):
        check_plan(IterationPlan(engine="ismcts:20", players=3, arena_games=3))


def test_the_window_keeps_the_last_generations_datasets(tmp_path):
    plan = IterationPlan(engine="ismcts:20", base=("b1", "b2"), window=2, train=TrainSettings())
    names = [str(p.relative_to(tmp_path)) if p.is_absolute() else str(p)
             for p in training_folders(plan, tmp_path, 4)]
    assert names == ["b1", "b2", "gen-03/data", "gen-04/data"]
    everything = IterationPlan(engine="ismcts:20")
    assert len(training_folders(everything, tmp_path, 4)) == 4
