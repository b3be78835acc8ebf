"""Training data for the learned evaluation: datasets from bot games or saved records, seeded,
resumable, the same in parallel; training a tiny model in seconds; the generate/train/evaluate commands."""
import json

import numpy as np
import pytest

from barcelona_ai.cli.main import main
from barcelona_ai.training.datagen import COLUMNS, DataPlan, generate, load_dataset, record_rows, shard_path
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.search.settings import FORECAST_4P, GENERAL_MODEL, MODEL_2P
from barcelona_ai.learned.evaluation import FEATURE_NAMES, ValueModel, features
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.workflows.selfplay import play_game

BOTS = ("greedy", "random", "greedy")


def test_rows_of_one_game():
    game = play_game(list(BOTS), 4, 4)
    rec = GameRecord.from_json(game.record)
    rows = record_rows(rec, 7, 4)
    n = game.decisions * 3
    assert set(rows) == set(COLUMNS) and all(len(v) == n for v in rows.values())
    assert rows["features"].shape == (n, len(FEATURE_NAMES)) and rows["features"].dtype == np.float32
    assert (rows["game"] == 7).all() and (rows["setup_seed"] == 4).all() and (rows["players"] == 3).all()
    assert (rows["decisions"] == game.decisions).all()
    assert list(rows["seat"][:6]) == [0, 1, 2, 0, 1, 2]
    assert list(rows["final_score"][:3]) == game.scores
    assert (rows["final_by_source"].sum(axis=1) == rows["final_score"]).all()
    assert np.allclose(rows["win"][:3], game.returns)
    first = rec.initial_state()
    assert np.allclose(rows["features"][:3], features(first))             # the first decision is the setup's
    assert (rows["score"][:3] == 0).all()
    assert (record_rows(rec, 7)["setup_seed"] == 4).all()                 # the record's own seed by default


def test_search_forecast_rows_carry_the_records_seed(tmp_path):
    """evaluate --search writes its rows as datagen does: the setup seed is the record's, not a placeholder."""
    from barcelona_ai.search.engine import Engine, Limit
    from barcelona_ai.training.train import search_forecasts
    path = tmp_path / "game.json"
    GameRecord.from_json(play_game(["random", "random"], 9, 9).record).save(path)
    engine = Engine(seed=0)
    p, score, rows = search_forecasts([str(path)], 1000, lambda s: engine.analyse(s, Limit(iterations=20)))
    assert len(p) == len(score) == len(rows["seat"]) == 2           # the first decision only, both seats
    assert (rows["setup_seed"] == 9).all() and (rows["decision"] == 0).all()


def plan(games=5, per_shard=2, seed=10):
    return DataPlan(games=games, per_shard=per_shard, players=3, bots=BOTS, seed=seed)


def same(a, b):
    return set(a) == set(b) and all(np.array_equal(a[c], b[c]) for c in a)


def test_seeded_parallel_and_resumable(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    generate(plan(), one, workers=1)
    generate(plan(), two, workers=2)
    assert same(load_dataset(one), load_dataset(two))
    assert sorted(p.name for p in one.iterdir()) == ["dataset.json", "shard-00001.npz", "shard-00002.npz",
                                                    "shard-00003.npz"]
    shard_path(two, 1).unlink()                                  # an interrupted run: a shard is missing
    with pytest.raises(BarcelonaError, match="shard-00002.npz: missing"):
        load_dataset(two)
    kept = shard_path(two, 0).stat().st_mtime_ns
    done = []
    generate(plan(), two, workers=1, on_shard=lambda k, n: done.append((k, n)))
    assert done == [(1, 2)] and shard_path(two, 0).stat().st_mtime_ns == kept      # only the missing one
    assert same(load_dataset(one), load_dataset(two))


def test_a_folder_of_another_plan_is_refused(tmp_path):
    generate(plan(games=1), tmp_path)
    with pytest.raises(BarcelonaError, match="another dataset"):
        generate(plan(games=1, seed=11), tmp_path)


def test_records_give_the_same_rows_as_the_games(tmp_path):
    recs = []
    for g in range(3):
        game = play_game(list(BOTS), 10 + g, 10 + g)
        path = tmp_path / f"game-{g:04d}.json"
        GameRecord.from_json(game.record).save(path)
        recs.append(str(path))
    generate(plan(games=3), tmp_path / "bots")
    generate(DataPlan(games=3, per_shard=2, records=tuple(recs)), tmp_path / "recs")
    assert same(load_dataset(tmp_path / "bots"), load_dataset(tmp_path / "recs"))


def test_two_folders_keep_their_games_apart(tmp_path):
    generate(plan(games=2), tmp_path / "a")
    generate(plan(games=2, seed=30), tmp_path / "b")
    both = load_dataset(tmp_path / "a", tmp_path / "b")
    assert sorted(set(both["game"].tolist())) == [0, 1, 2, 3]


def test_a_tiny_model_trains_in_seconds_and_is_checked(tmp_path):
    pytest.importorskip("sklearn")
    from barcelona_ai.training.train import TrainSettings, train
    generate(plan(games=6, per_shard=3), tmp_path)
    doc, report = train(load_dataset(tmp_path), TrainSettings(hidden=(8,), max_iter=30, seed=1))
    assert report.games + report.valid_games == 6 and report.valid_games == 1
    m = ValueModel(json.loads(json.dumps(doc)))                   # the file form loads and runs
    assert m.meta["layers"] == [8, 2]
    assert doc["players"] == [3] and m.players == (3,)            # it says which player counts it was fitted on
    assert 0 <= report.valid["brier"] and len(report.valid["reliability"]) == 10
    again, _ = train(load_dataset(tmp_path), TrainSettings(hidden=(8,), max_iter=30, seed=1))
    assert again["layers"] == doc["layers"]                       # same seed, same model


def test_commands(tmp_path, capsys):
    pytest.importorskip("sklearn")
    data, model = tmp_path / "data", tmp_path / "m.json"
    assert main(["generate", "--out", str(data), "--games", "3", "--players", "2", "--bot", "greedy",
                 "--per-shard", "2"]) == 0
    assert "dataset written" in capsys.readouterr().out
    (data / "shard-00002.npz").unlink()                          # resumed: it says what it keeps and plays
    assert main(["generate", "--out", str(data), "--games", "3", "--players", "2", "--bot", "greedy",
                 "--per-shard", "2"]) == 0
    assert "2 games are in the shards written already; playing the other 1" in capsys.readouterr().out
    assert main(["train", str(data), "--out", str(model), "--hidden", "4", "--epochs", "5", "--alpha", "3",
                 "--alpha", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "L2 penalties 3, 0.5" in out and "model written" in out
    assert set(json.loads(model.read_text())["trained"]["alpha_losses"]) == {"3.0", "0.5"}
    assert main(["evaluate", str(data), "--model", str(model), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["games"] == 3 and set(metrics) >= {"brier_skill", "by_third", "reliability", "score_mae"}
    assert metrics["intervals"]["games"] == 3 and 0 <= metrics["reliability_gap"] <= 1
    assert main(["evaluate", str(data), "--model", str(model)]) == 0
    out = capsys.readouterr().out
    assert "in brackets 95% intervals over the games" in out and "reliability: largest gap" in out


@pytest.mark.parametrize("argv, words", [
    (["generate", "--out", "{tmp}/x"], "--games N"),
    (["generate", "--out", "{tmp}/x", "--games", "2", "--players", "3", "--bot", "greedy", "--bot", "random"],
     "one per seat"),
    (["generate", "--out", "{tmp}/x", "--games", "2", "--bot", "ismcts:abc"], "ismcts:abc"),
    (["generate", "--out", "{tmp}/x", "--records", "{tmp}"], "no game records"),
    (["train", "{tmp}", "--out", "{tmp}/m.json"], "not a dataset"),
    (["train", "{tmp}", "--out", "{tmp}/m.json", "--alpha", "nan"], "L2 penalty"),
    (["train", "{tmp}", "--out", "{tmp}/m.json", "--alpha", "0"], "L2 penalty"),
    (["evaluate", "{tmp}/nothing"], "dataset"),
])
def test_command_errors(tmp_path, capsys, argv, words):
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err


def test_evaluate_reads_the_player_counts_shipped_model(tmp_path, capsys):
    """Without --model the network measured is the one whose forecasts the default engine shows in the data's player
    count (2 players have one of their own, in 4 the numbers come from another: settings.PRESETS); data of 2 and 4
    players together: each count's rows by its own network."""
    two, four = tmp_path / "two", tmp_path / "four"
    generate(DataPlan(games=1, per_shard=1, players=2, bots=("greedy",) * 2, seed=10), two)
    generate(DataPlan(games=1, per_shard=1, players=4, bots=("greedy",) * 4, seed=10), four)
    assert main(["evaluate", str(two), "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main(["evaluate", str(two), "--json", "--model", MODEL_2P]) == 0
    assert json.loads(capsys.readouterr().out) == alone
    assert main(["evaluate", str(two), "--json", "--model", GENERAL_MODEL]) == 0
    assert json.loads(capsys.readouterr().out) != alone
    assert main(["evaluate", str(two), str(four), "--json"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert both["games"] == 2 and both["positions"] > alone["positions"]
    assert main(["evaluate", str(two), str(four), "--json", "--model", GENERAL_MODEL]) == 0
    assert json.loads(capsys.readouterr().out) != both                  # the 2-player rows by the general model
    assert main(["evaluate", str(four), "--json"]) == 0              # 4 players: the network of the numbers shown
    shown = json.loads(capsys.readouterr().out)
    assert main(["evaluate", str(four), "--json", "--model", FORECAST_4P]) == 0
    assert json.loads(capsys.readouterr().out) == shown
    assert main(["evaluate", str(four), "--model", MODEL_2P]) == 2   # fitted on 2 players only
    assert "was fitted on 2-player games only, not 4-player ones" in capsys.readouterr().err
    records = tmp_path / "records"                       # the engine's numbers: each player count's own engine
    records.mkdir()
    for i, players in enumerate((2, 4), 1):
        GameRecord.from_json(play_game(["random"] * players, 9, 9).record).save(records / f"game-{i:04d}.json")
    assert main(["evaluate", str(records), "--search", "20", "--every", "1000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2


def test_evaluate_names_a_missing_model(tmp_path, capsys):
    generate(plan(games=1), tmp_path)
    assert main(["evaluate", str(tmp_path), "--model", str(tmp_path / "nothing.json")]) == 2
    assert "nothing.json: value model cannot be read" in capsys.readouterr().err
