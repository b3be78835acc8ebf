"""The figures `barcelona-ai evaluate` reports of a forecast (the calibration floors) and their 95% intervals
over the games (train.forecast_metrics, game_intervals, reliability_gap)."""
import numpy as np
import pytest

from barcelona_ai.training.train import game_intervals, reliability, reliability_gap


def rows_of_games(games: int, per_game: int, seed: int = 0) -> dict:
    """Synthetic rows of 2-player positions: a forecast p that knows something of the outcome, its VP error and
    the naive one's, the third of the game and the game of each row."""
    rng = np.random.default_rng(seed)
    n = games * per_game
    won = rng.integers(0, 2, n).astype(np.float64)
    p = np.clip(0.5 + 0.3 * (won - 0.5) + rng.normal(0, 0.2, n), 0.01, 0.99)
    return {"p": p, "won": won, "uniform": np.full(n, 0.5), "err": rng.gamma(2.0, 10.0, n),
            "naive_err": rng.gamma(2.0, 13.0, n), "third": rng.integers(0, 3, n),
            "game": np.repeat(np.arange(games), per_game)}


def intervals(r: dict, **kw) -> dict:
    return game_intervals(r["p"], r["won"], r["uniform"], r["err"], r["naive_err"], r["third"], r["game"], **kw)


def point_skill(r: dict) -> float:
    return 1.0 - ((r["p"] - r["won"]) ** 2).sum() / ((r["uniform"] - r["won"]) ** 2).sum()


def test_the_intervals_resample_whole_games():
    """A game's rows are not independent draws: the same games with every row written ten times carry no more
    information, so the intervals are the same (a bootstrap over rows would narrow them)."""
    r = rows_of_games(40, 3)
    tenfold = {k: np.repeat(v, 10) for k, v in r.items()}
    a, b = intervals(r), intervals(tenfold)
    for key in ("brier_skill", "score_mae_ratio"):
        assert b[key] == pytest.approx(a[key], abs=1e-12)
        for ta, tb in zip(a["by_third"], b["by_third"]):
            assert tb[key] == pytest.approx(ta[key], abs=1e-12)


def test_the_intervals_are_seeded_and_hold_the_point_estimate():
    r = rows_of_games(60, 8)
    a = intervals(r)
    assert a == intervals(r) and a != intervals(r, seed=1)
    assert a["games"] == 60 and a["resamples"] == 1000
    lo, hi = a["brier_skill"]
    assert lo < point_skill(r) < hi and hi - lo < 0.5
    lo, hi = a["score_mae_ratio"]
    assert lo < r["err"].sum() / r["naive_err"].sum() < hi
    table = reliability(r["p"], r["won"])
    for b, won in zip(table, a["reliability_observed"]):          # each bin: the share won, and how sure it is
        assert (won is None) == (b["rows"] == 0)
        assert won is None or won[0] <= b["observed"] <= won[1]


def test_a_perfect_forecast_has_a_point_interval_and_one_game_none():
    r = rows_of_games(10, 4)
    r["p"] = r["won"].copy()
    assert intervals(r)["brier_skill"] == [1.0, 1.0]
    one = {k: v[:4] for k, v in r.items()}
    assert intervals(one) is None
    r["third"] = np.zeros_like(r["third"])          # rows of the first third only: nothing to say of the others
    thirds = intervals(r)["by_third"]
    assert thirds[0]["brier_skill"] == [1.0, 1.0]
    assert thirds[1]["brier_skill"] is None and thirds[2]["score_mae_ratio"] is None


def test_the_reliability_gap_reads_the_bins_of_fifty_rows_or_more():
    """The reliability floor: no bin with >= 50 samples off by more than 0.07."""
    p = np.concatenate([np.full(60, 0.35), np.full(49, 0.95)])
    won = np.concatenate([np.r_[np.ones(24), np.zeros(36)], np.zeros(49)])     # 0.40 won; 0.00 won
    table = reliability(p, won)
    assert reliability_gap(table) == pytest.approx(0.05)                       # the 49-row bin is left out
    assert reliability_gap(table, min_rows=49) == pytest.approx(0.95)
    assert reliability_gap(reliability(p[:0], won[:0])) == 0.0
