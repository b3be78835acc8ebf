"""The learned evaluation's C side: public features, the network, the model file's checks."""
import json
import math
import random

import numpy as np
import pytest

from barcelona_ai import new_game
from barcelona_ai.search.settings import GENERAL_MODEL, MODEL_2P
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.learned.evaluation import (FEATURE_NAMES, GLOBAL_NAMES, MODEL_FORMAT, MODEL_VERSION, PLAYER_NAMES,
                                     ValueModel, features, player_counts_text)
from barcelona_ai.training.train import normalised_win, without_dead_units

NF = len(FEATURE_NAMES)
P0 = len(GLOBAL_NAMES) + 6                   # first feature of the seat's own block


def walk(players, seed, plies):
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if s.is_terminal():
            break
        if s.current_player() >= 0:
            s.apply(rng.choice(s.legal_actions()))
        else:
            outcomes = s.chance_outcomes()
            s.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
    return s


def model_doc(layers, win_power=1.0, to_come_scale=50.0):
    return {"format": MODEL_FORMAT, "version": MODEL_VERSION, "features": FEATURE_NAMES, "mean": [0.0] * NF,
            "scale": [1.0] * NF, "layers": layers, "to_come_scale": to_come_scale, "win_power": win_power}


def random_doc(rng, widths=(NF, 8, 2)):
    layers = [{"weight": [[rng.uniform(-0.3, 0.3) for _ in range(widths[i])] for _ in range(widths[i + 1])],
               "bias": [rng.uniform(-0.1, 0.1) for _ in range(widths[i + 1])]} for i in range(len(widths) - 1)]
    doc = model_doc(layers, win_power=1.3)
    doc["mean"] = [rng.uniform(-0.5, 0.5) for _ in range(NF)]          # the standardisation is folded in C
    doc["scale"] = [rng.uniform(0.2, 2.0) for _ in range(NF)]
    return doc


def numpy_forward(doc, x):
    a = (np.asarray(x, dtype=np.float64) - doc["mean"]) / doc["scale"]
    for i, layer in enumerate(doc["layers"]):
        a = np.asarray(layer["weight"]) @ a + np.asarray(layer["bias"])
        if i < len(doc["layers"]) - 1:
            a = np.maximum(a, 0.0)
    return a


def test_features_shape_and_names():
    assert len(FEATURE_NAMES) == len(set(FEATURE_NAMES)) == 200
    for n in (2, 3, 4):
        rows = features(new_game(n, seed=1))
        assert len(rows) == n and all(len(r) == NF for r in rows)
        assert all(math.isfinite(v) for r in rows for v in r)


def test_features_read_the_seat_first_then_the_others_in_turn_order():
    s = walk(4, 3, 120)
    rows = features(s)
    scores = s.scores()
    for seat in range(4):
        x = rows[seat]
        assert x[FEATURE_NAMES.index(f"s_seat_{seat}")] == 1.0
        for k in range(4):                                     # block k is seat (seat + k) % 4
            assert x[FEATURE_NAMES.index(f"p{k}_score")] == pytest.approx(scores[(seat + k) % 4] / 100)
        best_other = max(scores[q] for q in range(4) if q != seat)
        assert x[FEATURE_NAMES.index("s_lead_vp")] == pytest.approx((scores[seat] - best_other) / 50)


def test_absent_seats_are_zero():
    x = features(walk(2, 5, 80))[0]
    assert not any(x[P0 + 2 * len(PLAYER_NAMES):])
    assert x[FEATURE_NAMES.index("g_players_2")] == 1.0


def test_features_are_public_twin_states_give_the_same_rows():
    """Hidden information is sacred: states that differ only in what some seat cannot see (other hands, the
    bag) have identical features, so no evaluation can depend on it (A6)."""
    for players, seed in ((2, 1), (3, 7), (4, 11)):
        s = walk(players, seed, 60 + 7 * seed)
        for viewpoint in range(players):
            for k in range(5):
                twin = s.determinize(viewpoint, 1000 + k)
                assert features(twin) == features(s)


def test_network_matches_a_numpy_forward_pass():
    rng = random.Random(4)
    for widths in ((NF, 8, 2), (NF, 16, 8, 2), (NF, 2)):
        doc = random_doc(rng, widths)
        m = ValueModel(doc)
        s = walk(3, 9, 90)
        for x, y in zip(features(s), m.raw_outputs(s)):
            assert np.allclose(numpy_forward(doc, x), y, atol=1e-4)


def test_predict_normalises_win_and_adds_vp_to_come():
    rng = random.Random(5)
    doc = random_doc(rng)
    m = ValueModel(doc)
    for players in (2, 3, 4):
        s = walk(players, 20 + players, 100)
        win, score = m.predict(s)
        raw = np.asarray(m.raw_outputs(s))
        assert sum(win) == pytest.approx(1.0)
        assert np.allclose(win, normalised_win(raw[:, 0], np.zeros(players, dtype=int), doc["win_power"]))
        expect = [sc + max(0.0, r1) * 50.0 for sc, r1 in zip(s.scores(), raw[:, 1])]
        assert np.allclose(score, expect, atol=1e-3)


def test_a_finished_game_is_its_result():
    """At the end the forecast is the result (R127 returns, final scores), whatever the network says."""
    s = walk(3, 2, 10_000)
    assert s.is_terminal()
    win, score = ValueModel(random_doc(random.Random(1))).predict(s)
    assert win == s.returns() and score == s.scores()


def test_constant_network():
    doc = model_doc([{"weight": [[0.0] * NF, [0.0] * NF], "bias": [0.4, 2.0]}])
    win, score = ValueModel(doc).predict(walk(4, 1, 30))
    assert win == pytest.approx([0.25] * 4)
    s = walk(4, 1, 30)
    assert score == pytest.approx([v + 100.0 for v in s.scores()])


@pytest.mark.parametrize("field, value, words", [
    ("format", "other", "format"),
    ("features", FEATURE_NAMES[:-1], "features"),
    ("mean", [0.0] * (NF - 1), "mean"),
    ("scale", [0.0] * NF, "scale"),
    ("mean", [float("nan")] * NF, "mean"),
    ("win_power", 0.0, "win_power"),
    ("win_power", {"2": 1.0, "3": 1.0}, "win_power"),
    ("score_error", {"5": [1.0]}, "score_error"),
    ("players", [], "players"),
    ("players", [2, 2], "players"),
    ("players", [5], "players"),
    ("players", ["2"], "players"),
    ("players", [True], "players"),
    ("players", 2, "players"),
    ("to_come_scale", True, "to_come_scale"),
    ("layers", [], "layers"),
    ("layers", [{"weight": [[0.0] * NF], "bias": [0.0]}], "widths"),
    ("layers", [{"weight": [[0.0] * NF, [0.0] * 3], "bias": [0.0, 0.0]}], "weight"),
    ("layers", [{"weight": [[0.0] * NF, [0.0] * NF], "bias": [0.0, "x"]}], "bias"),
])
def test_bad_model_documents_are_refused_naming_the_field(field, value, words):
    doc = model_doc([{"weight": [[0.0] * NF, [0.0] * NF], "bias": [0.5, 1.0]}])
    doc[field] = value
    with pytest.raises(BarcelonaError, match=words):
        ValueModel(doc)


def test_a_model_names_the_player_counts_it_was_fitted_on():
    """A model file's "players" lists the player counts whose games it was fitted on (their win_power and
    score_error are fitted, the others' placeholders); a file without it holds every count. require_players
    refuses the others, naming the model."""
    doc = model_doc([{"weight": [[0.0] * NF, [0.0] * NF], "bias": [0.5, 1.0]}])
    assert ValueModel(doc).players == (2, 3, 4)
    doc["players"] = [4, 2]
    m = ValueModel(doc)
    assert m.players == (2, 4)
    m.require_players(2)
    m.require_players(4)
    with pytest.raises(BarcelonaError, match="^m.json was fitted on 2- and 4-player games only, not 3-player ones"):
        m.require_players(3, "m.json")
    assert ValueModel.load(GENERAL_MODEL).players == (2, 3, 4)                       # the general model: every count
    assert ValueModel.load(MODEL_2P).players == (2,)          # the 2-player one: 2 players


@pytest.mark.parametrize("counts, text", [((2,), "2-player"), ((4, 2), "2- and 4-player"),
                                          ((2, 3, 4), "2-, 3- and 4-player")])
def test_player_counts_read_as_a_phrase(counts, text):
    assert player_counts_text(counts) == text


def test_model_file_round_trip(tmp_path):
    doc = random_doc(random.Random(8))
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    s = walk(2, 4, 50)
    assert ValueModel.load(path).predict(s) == ValueModel(doc).predict(s)
    path.write_text("[1, 2]")
    with pytest.raises(BarcelonaError, match="JSON object"):
        ValueModel.load(path)


def test_raw_rows_equals_raw_outputs():
    m = ValueModel(random_doc(random.Random(3)))
    s = walk(4, 6, 70)
    assert np.allclose(m.raw_rows(np.asarray(features(s), dtype=np.float32)), m.raw_outputs(s))


def test_win_power_per_player_count():
    doc = random_doc(random.Random(9))
    doc["win_power"] = {"2": 0.5, "3": 1.0, "4": 2.0}
    m = ValueModel(doc)
    assert m.win_power == {2: 0.5, 3: 1.0, 4: 2.0}
    for players in (2, 3, 4):
        s = walk(players, 40 + players, 90)
        raw = np.asarray(m.raw_outputs(s))
        expect = normalised_win(raw[:, 0], np.zeros(players, dtype=int), doc["win_power"][str(players)])
        assert np.allclose(m.predict(s)[0], expect)


def test_score_error_by_turns():
    doc = random_doc(random.Random(2))
    doc["score_error"] = {"2": [30.0, 20.0, 10.0]}
    m = ValueModel(doc)
    s = walk(2, 3, 400)
    assert m.score_error(s, 0) == 10.0 and m.score_error(new_game(2, seed=1), 1) == 30.0
    assert m.score_error(new_game(3, seed=1), 0) == 0.0          # no table for 3 players


def scalar_forward(doc, x):
    """The network as a scalar float32 loop: each unit's bias, then one multiply and one add for every non-zero
    input in order, ReLU between layers (doc without a standardisation: mean 0, scale 1)."""
    a = [np.float32(v) for v in x]
    for li, layer in enumerate(doc["layers"]):
        out = []
        for row, bias in zip(layer["weight"], layer["bias"]):
            acc = np.float32(bias)
            for w, v in zip(row, a):
                if v != 0:
                    acc = np.float32(acc + np.float32(np.float32(w) * v))
            out.append(acc)
        last = li == len(doc["layers"]) - 1
        a = [v if last or not v < 0 else np.float32(0.0) for v in out]
    return a


@pytest.mark.parametrize("widths", [(NF, 40, 2), (NF, 57, 24, 2), (NF, 16, 8, 2), (NF, 1, 2), (NF, 72, 2)])
def test_the_networks_sums_are_a_scalar_loops_bit_for_bit(widths):
    """net_forward sums the outputs of a layer in blocks of vector registers (up to 32 at a time, widths padded to
    a multiple of 8), each output still adding its terms in input order: the very floats of a scalar loop, at any
    width and whatever the vector width, so the engine's moves do not depend on the machine's vector unit."""
    doc = random_doc(random.Random(sum(widths)), widths)
    doc["mean"], doc["scale"] = [0.0] * NF, [1.0] * NF
    m = ValueModel(doc)
    rows = np.asarray(features(walk(4, 6, 100)) + features(walk(2, 7, 40)), dtype=np.float32)
    got = m.raw_rows(rows)
    for x, y in zip(rows, got):
        assert [float(v) for v in scalar_forward(doc, x)] == [float(v) for v in y]


def test_dead_units_are_dropped_and_every_output_stays_bit_for_bit():
    """train.without_dead_units: hidden units with no incoming weight and a bias <= 0 always put out 0; the
    network without them gives the very same floats (the L2 penalty kills about half of a trained first layer)."""
    doc = random_doc(random.Random(5), widths=(NF, 12, 6, 2))
    first, second = doc["layers"][0], doc["layers"][1]
    for j, bias in ((0, -0.2), (3, 0.0), (4, -0.0), (7, -1.0)):   # dead: zero weights, bias <= 0
        first["weight"][j] = [0.0] * NF
        first["bias"][j] = bias
    first["weight"][5] = [0.0] * NF            # a constant unit (bias > 0) stays
    first["bias"][5] = 0.4
    second["weight"][2] = [0.0] * 12           # dead in the second layer too
    second["bias"][2] = -0.1
    pruned = dict(doc, layers=without_dead_units(doc["layers"]))
    assert [len(layer["bias"]) for layer in pruned["layers"]] == [8, 5, 2]
    full, small = ValueModel(doc), ValueModel(pruned)
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        s = walk(players, seed, 60)
        assert small.raw_outputs(s) == full.raw_outputs(s)
        assert small.predict(s) == full.predict(s)
    rows = np.asarray(features(walk(4, 9, 120)), dtype=np.float32)
    assert np.array_equal(small.raw_rows(rows), full.raw_rows(rows))


def test_best_possible_estimates_the_true_probabilities_brier_without_bias():
    """Positions whose true win probabilities are known (seat 0 wins 70% of 2-player playouts): from 4 playouts
    each, the estimate is p(1 - p) per seat, so the best skill is 1 - 0.42 / 0.5 = 0.16, not the 1.0 that the
    playouts' own frequencies would claim."""
    from barcelona_ai.training.train import best_possible
    rng = np.random.default_rng(7)
    best = uniform = 0.0
    for _ in range(3000):
        w0 = (rng.random(4) < 0.7).astype(float)
        r = best_possible(np.stack([w0, 1 - w0], axis=1), np.ones((4, 2)))
        best += r["best_brier"]
        uniform += r["uniform_brier"]
    assert 1 - best / uniform == pytest.approx(0.16, abs=0.03)


def test_best_possible_scores_of_a_settled_position_and_the_median_bracket():
    from barcelona_ai.training.train import best_possible
    settled = best_possible([[1, 0, 0]] * 3, [[150, 120, 90]] * 3)
    assert settled["best_brier"] == 0 and settled["best_mae_low"] == settled["best_mae_high"] == 0
    assert settled["uniform_brier"] == pytest.approx((2 / 3) ** 2 + 2 * (1 / 3) ** 2)
    r = best_possible([[1, 0], [0, 1], [1, 0]], [[100, 90], [80, 110], [120, 60]])
    assert r["best_mae_low"] == pytest.approx((0 + 20 + 20 + 0 + 20 + 30) / 6)          # medians 100, 90
    assert r["best_mae_high"] == pytest.approx((0 + 30 + 30 + 5 + 35 + 40) / 6)        # medians of the others
    with pytest.raises(BarcelonaError, match="m >= 2"):
        best_possible([[1, 0]], [[100, 90]])
