"""The learned turn policy: the C logits equal the Python reference the fit uses, its file is checked
field by field, a tiny fit learns the actions of a few records in seconds, and a search that plays a leaf's turn
with it is as deterministic and as blind to hidden information as any other."""
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

import barcelona_ai
from barcelona_ai import Engine, Limit, new_game
from barcelona_ai.search.settings import PRESETS, TURN_POLICY, load_policy
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.training.policy_train import (COLUMNS, action_inputs, is_placement_decision, log_likelihood, logits,
                                       policy_document, train_policy)
from barcelona_ai.rules.record import GameRecord
from barcelona_ai.learned.turn_policy import FEATURE_NAMES, GROUP_NAMES, TURN_POLICY_FORMAT, TurnPolicy
from barcelona_ai.search.tree import Tree, policy_logits
from barcelona_ai.workflows.selfplay import play_game


def walk(players, seed, steps):
    """States at the player decisions of a seeded random walk."""
    s = new_game(players, seed)
    rng = random.Random(seed)
    out = []
    while not s.is_terminal() and len(out) < steps:
        if s.is_chance_node():
            outcomes = s.chance_outcomes()
            s.apply(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
            continue
        out.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
    return out


def shipped_document():
    return json.loads((Path(barcelona_ai.__file__).parent / "data" / "turn-policy.json").read_text())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_c_logits_equal_the_python_reference(players):
    policy = load_policy(TURN_POLICY)
    doc = shipped_document()
    checked = 0
    for s in walk(players, 30 + players, 60):
        acts = s.legal_actions()
        c = policy_logits(policy, s)
        ref = logits(doc, action_inputs(s, acts))
        assert sorted(c) == sorted(acts)
        assert max(abs(c[a] - r) for a, r in zip(acts, ref)) < 1e-4
        checked += len(acts)
    assert checked > 300


@pytest.mark.parametrize("field, value, words", [
    ("format", "barcelona-model", "format"),
    ("version", 2, "version 2"),                     # weights named by position only: refused, not misread
    ("feature_names", list(reversed(FEATURE_NAMES)), "feature_names"),   # a reorder is refused
    ("feature_names", None, "feature_names"),
    ("group_names", list(GROUP_NAMES[1:]) + [GROUP_NAMES[0]], "group_names"),
    ("top_class_names", ["middle", "working", "upper"], "top_class_names"),
    ("features", [0.0] * 3, "features"),
    ("groups", "x", "groups"),
    ("top_class", [0.0, float("nan"), 0.0], "top_class"),
    ("log_prior", True, "log_prior"),
    ("log_prior", 1e9, "log_prior"),
])
def test_bad_turn_policy_files_are_refused_naming_the_field(field, value, words):
    doc = shipped_document()
    doc[field] = value
    with pytest.raises(BarcelonaError, match=words):
        TurnPolicy(doc)


def test_the_shipped_policy_says_how_it_was_made():
    meta = load_policy(TURN_POLICY).meta
    assert meta["records"] > 0 and meta["decisions"] > 0
    held = meta["held_out"]
    assert held["log_likelihood"] > held["heuristic_log_likelihood"]     # it predicts the search better


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    for g in range(4):
        game = play_game(["ismcts:30,preset=v0", "ismcts:30,preset=v0"], 70 + g, 70 + g)
        GameRecord.from_json(game.record).save(folder / f"game-{g:04d}.json")
    return sorted(str(p) for p in folder.glob("*.json"))


def test_a_tiny_fit_learns_the_records_actions(records):
    pytest.importorskip("scipy")                                 # the train extra
    doc = train_policy(records, test_fraction=0.25, seed=1)
    policy = TurnPolicy(doc)                                     # a file the search loads
    assert doc["format"] == TURN_POLICY_FORMAT
    fit = doc["training"]["fit"]
    assert fit["decisions"] > 100
    assert fit["log_likelihood"] > max(fit["heuristic_log_likelihood"], fit["uniform_log_likelihood"])
    assert doc["training"]["held_out"]["games"] == 1
    assert train_policy(records, test_fraction=0.25, seed=1) == doc      # deterministic
    s = walk(2, 5, 40)[-1]
    assert set(policy_logits(policy, s)) == set(s.legal_actions())


def test_placement_decisions_are_left_to_the_heuristic(records):
    rec = GameRecord.load(records[0])
    seen = False
    for _d, s in rec.decisions():
        acts = s.legal_actions()
        if is_placement_decision(acts):
            seen = True
            assert all(a < 75 for a in acts)
    assert seen


def test_log_likelihood_of_flat_and_sharp_logits():
    sizes = np.array([2, 4])
    chosen = np.array([0, 3])
    ll, top1 = log_likelihood(np.zeros(6), chosen, sizes)
    assert ll == pytest.approx(-(math.log(2) + math.log(4)) / 2)
    assert top1 == pytest.approx((1 / 2 + 1 / 4) / 2)                  # ties share the top
    ll, top1 = log_likelihood(np.array([50.0, 0, 0, 0, 0, 50.0]), chosen, sizes)
    assert ll == pytest.approx(0.0, abs=1e-9) and top1 == 1.0


def test_policy_document_round_trip():
    w = np.arange(COLUMNS, dtype=float) / 1000
    doc = policy_document(w, {"records": 1})
    assert np.allclose(np.array(doc["features"] + doc["groups"] + doc["top_class"] + [doc["log_prior"]]), w)
    TurnPolicy(doc)


def test_search_with_the_learned_turn_is_deterministic():
    s = walk(2, 8, 30)[-1]
    assert PRESETS["default"][2].turn_policy == "learned"
    moves = {Engine(seed=3).best_move(s, Limit(iterations=400)) for _ in range(2)}
    assert len(moves) == 1
    greedy = Engine(seed=3, turn_temperature=0.0).analyse(s, Limit(iterations=300))
    assert greedy.iterations == 300


def test_turn_policy_settings_are_checked():
    with pytest.raises(BarcelonaError, match="turn_policy"):
        Engine(turn_policy="clever")
    with pytest.raises(BarcelonaError, match="turn_temperature"):
        Engine(turn_temperature=-1.0)
    with pytest.raises(BarcelonaError, match="policy"):
        Engine(policy=3)
    with pytest.raises(BarcelonaError, match="3 players"):      # the 3-player default reports the network's value
        Engine(turn_policy="learned")
    two = PRESETS["default"][2]
    with pytest.raises(BarcelonaError, match="turn policy"):
        Tree(new_game(2, 1), 0, two.params(), 1, two.value_model())


@pytest.mark.parametrize("players", [2, 4])
def test_player_block_features_are_the_seats_block_of_the_network_inputs(players):
    """The turn policy reads the deciding seat's own block of the value network's row for that seat (after the
    position's and the seat's entries), computed alone."""
    from barcelona_ai.learned.evaluation import FEATURE_NAMES, PLAYER_NAMES, features, player_block_features
    first = FEATURE_NAMES.index(f"p0_{PLAYER_NAMES[0]}")
    for s in walk(players, 50 + players, 40):
        rows = features(s)
        for seat in range(players):
            assert player_block_features(s, seat) == rows[seat][first:first + len(PLAYER_NAMES)]
    with pytest.raises(BarcelonaError, match="seat"):
        player_block_features(s, players)
