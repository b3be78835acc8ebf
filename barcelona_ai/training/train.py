"""Training the learned evaluation: a small network fitted to self-play datasets (datagen.py), written
as the model file that evaluation.ValueModel runs in C.

The fit uses scikit-learn's MLPRegressor (the [train] extra): a well-kept, CPU-only implementation of exactly
the network the C side evaluates (fully connected, ReLU, squared loss), deterministic for a seed, and a few MB
to install (PyTorch would be two orders of magnitude more for the same 15,000 weights). Squared loss on the
win share is the Brier score the calibration is judged by. Two outputs per seat: the win share and the VP still
to come (over to_come_scale).

Games are split, never positions: the positions of the held-out games (`valid_fraction` of the games,
chosen by the seed) are not in the fit. On them the L2 penalty is chosen (the network with the lowest held-out
loss of those fitted, one per `alphas`), and win_power is fitted per player count: the exponent that makes the
normalised win probabilities calibrated (see evaluation.net_evaluate).
"""
from __future__ import annotations

import random
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import BarcelonaError
from ..learned.evaluation import FEATURE_NAMES, MODEL_FORMAT, MODEL_VERSION, ValueModel
from ..learned.models import edition_entry
from ..rules.tables import load_edition

TO_COME_SCALE = 50.0
TURNS_SCALE = 30.0              # evaluation.player_features: turns / 30
POWERS = tuple(round(0.05 + 0.05 * i, 2) for i in range(100))      # win_power candidates: 0.05 .. 5.0


@dataclass(frozen=True)
class TrainSettings:
    hidden: tuple[int, ...] = (64, 32)
    seed: int = 0
    max_iter: int = 60              # epochs
    valid_fraction: float = 0.2     # games kept out of the fit: they choose alpha and calibrate win_power
    alphas: tuple[float, ...] = (1.0, 3.0, 10.0, 30.0)   # L2 penalties tried; the best on the held-out games
                                    # is kept. Strong: a game gives ~100 positions but only one outcome, and a
                                    # weakly penalised network learns the games instead of the positions
                                    # (docs/measurements/tried-and-dropped.md, "The value network")
    batch_size: int = 256
    learning_rate: float = 1e-3


@dataclass
class TrainReport:
    rows: int
    games: int
    valid_games: int
    epochs: int
    win_power: dict
    valid: dict = field(default_factory=dict)     # calibration metrics on the validation games


def _sklearn():
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise BarcelonaError("training needs scikit-learn: pip install 'barcelona_ai[train]'") from None
    return MLPRegressor


def split_games(data: dict, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row masks (fit, valid): a `fraction` of the games, drawn with `seed`, go to valid."""
    games = sorted(set(data["game"].tolist()))
    rng = random.Random(seed)
    valid = set(rng.sample(games, max(1, round(len(games) * fraction)))) if len(games) > 1 else set()
    mask = np.isin(data["game"], sorted(valid))
    return ~mask, mask


def targets(data: dict) -> np.ndarray:
    return np.stack([data["win"], (data["final_score"] - data["score"]) / TO_COME_SCALE], axis=1)


def train(data: dict, settings: TrainSettings = TrainSettings(), edition: dict | None = None
          ) -> tuple[dict, TrainReport]:
    """Fit a model to a dataset (datagen.load_dataset) of the games of `edition` (models.edition_entry, as
    datagen.dataset_edition gives it; None: the default's); returns the model document and a report."""
    if len(data["game"]) == 0:
        raise BarcelonaError("training needs a dataset with at least one game")
    fit, valid = split_games(data, settings.valid_fraction, settings.seed)
    x, y = data["features"], targets(data)
    mean = x[fit].mean(axis=0)
    scale = x[fit].std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0)
    fits = [(_fit(settings, alpha, (x[fit] - mean) / scale, y[fit]), alpha) for alpha in settings.alphas]
    losses = [float(((net.predict((x[valid] - mean) / scale) - y[valid]) ** 2).mean()) if valid.any() else 0.0
              for net, _ in fits]
    best = int(np.argmin(losses))
    net, alpha = fits[best]
    doc = model_document(net, mean, scale, 1.0, settings, data, fit)
    doc["edition"] = dict(edition) if edition is not None else edition_entry(load_edition("default"))
    doc["trained"]["alpha"] = alpha
    doc["trained"]["alpha_losses"] = {str(a): round(v, 5) for (_, a), v in zip(fits, losses)}
    raw = ValueModel(doc).raw_rows(x[valid]) if valid.any() else np.zeros((0, 2), np.float32)
    power = fit_win_power(raw[:, 0], _sub(data, valid))
    doc["win_power"] = power
    report = TrainReport(rows=int(fit.sum()), games=len(set(data["game"][fit].tolist())),
                         valid_games=len(set(data["game"][valid].tolist())), epochs=net.n_iter_,
                         win_power=power)
    if valid.any():
        doc["score_error"] = score_error_table(ValueModel(doc), _sub(data, valid))
        report.valid = calibration_metrics(ValueModel(doc), _sub(data, valid))
    doc["trained"]["valid"] = report.valid
    return doc, report


def _fit(settings: TrainSettings, alpha: float, x: np.ndarray, y: np.ndarray):
    net = _sklearn()(hidden_layer_sizes=settings.hidden, activation="relu", solver="adam", alpha=alpha,
                     batch_size=settings.batch_size, learning_rate_init=settings.learning_rate,
                     max_iter=settings.max_iter, random_state=settings.seed)
    with warnings.catch_warnings():            # a fit that ends at max_iter is the plan, not a warning
        warnings.simplefilter("ignore", category=UserWarning)
        net.fit(x, y)
    return net


def _sub(data: dict, mask: np.ndarray) -> dict:
    return {k: v[mask] for k, v in data.items()}


def without_dead_units(layers: list[dict]) -> list[dict]:
    """The same network without its dead hidden units: a unit whose incoming weights are all 0 and whose bias
    is <= 0 puts out 0 for every input (ReLU), so it and its outgoing weights go. The L2 penalty that training
    needs kills many (about half of the first layer's). Every output is bit for bit the one of the full
    network: the forward pass (evaluation.net_forward) skips zero inputs and adds nothing for them."""
    out = [dict(layer) for layer in layers]
    for k in range(len(out) - 1):
        alive = [j for j, (row, b) in enumerate(zip(out[k]["weight"], out[k]["bias"])) if any(row) or b > 0]
        if not alive:                  # keep one unit: a layer must have a width (it puts out 0 all the same)
            alive = [0]
        out[k] = {"weight": [out[k]["weight"][j] for j in alive], "bias": [out[k]["bias"][j] for j in alive]}
        out[k + 1] = {"weight": [[row[j] for j in alive] for row in out[k + 1]["weight"]],
                      "bias": out[k + 1]["bias"]}
    return out


def model_document(net, mean, scale, power: float, settings: TrainSettings, data: dict, fit) -> dict:
    import sklearn
    layers = without_dead_units([{"weight": np.asarray(w, dtype=np.float64).T.round(7).tolist(),
                                  "bias": np.asarray(b, dtype=np.float64).round(7).tolist()}
                                 for w, b in zip(net.coefs_, net.intercepts_)])
    return {"format": MODEL_FORMAT, "version": MODEL_VERSION, "features": FEATURE_NAMES,
            "mean": mean.astype(np.float64).round(7).tolist(), "scale": scale.astype(np.float64).round(7).tolist(),
            "layers": layers, "to_come_scale": TO_COME_SCALE, "win_power": power,
            "players": sorted({int(n) for n in data["players"][fit]}),     # win_power elsewhere is a placeholder
            "trained": {"library": f"scikit-learn {sklearn.__version__}", "hidden": list(settings.hidden),
                        "seed": settings.seed, "rows": int(fit.sum()),
                        "games": len(set(data["game"][fit].tolist())), "epochs": int(net.n_iter_),
                        "naive_to_come": naive_to_come(_sub(data, fit))}}


# ------------------------------------------------------------------------------------------------------------
# calibration
# ------------------------------------------------------------------------------------------------------------

def positions(data: dict) -> np.ndarray:
    """A position id per row: rows of one decision of one game share it."""
    key = data["game"].astype(np.int64) * 10_000 + data["decision"]
    _, ids = np.unique(key, return_inverse=True)
    return ids


def normalised_win(raw: np.ndarray, pos: np.ndarray, power) -> np.ndarray:
    """Win probabilities from raw win shares: max(raw, 1e-3) ** power (a number, or one per row), normalised
    over each position's seats (the formula of evaluation.net_evaluate)."""
    w = np.power(np.maximum(raw.astype(np.float64), 1e-3), power)
    total = np.bincount(pos, weights=w)
    return w / total[pos]


def brier(p: np.ndarray, won: np.ndarray, pos: np.ndarray) -> float:
    """Mean over positions of the sum over seats of (p - outcome)^2."""
    per_pos = np.bincount(pos, weights=(p - won) ** 2)
    return float(per_pos.mean()) if len(per_pos) else 0.0


def fit_win_power(raw: np.ndarray, data: dict) -> dict:
    """Per player count ("2", "3", "4"), the exponent in POWERS with the lowest Brier score on these rows (1.0
    for a count without rows)."""
    out = {}
    for n in (2, 3, 4):
        sel = data["players"] == n
        if not sel.any():
            out[str(n)] = 1.0
            continue
        sub = {k: v[sel] for k, v in data.items()}
        pos, won = positions(sub), sub["win"].astype(np.float64)
        out[str(n)] = min(POWERS, key=lambda a: brier(normalised_win(raw[sel], pos, a), won, pos))
    return out


def row_powers(model: ValueModel, data: dict) -> np.ndarray:
    powers = model.win_power
    return np.asarray([powers[int(n)] for n in data["players"]], dtype=np.float64)


NAIVE_TURNS = 40                # the naive table's turns (later turns use the last row)


def seat_turns(data: dict) -> np.ndarray:
    """Turns the row's seat has completed (its p0_turns feature), at most NAIVE_TURNS - 1."""
    col = FEATURE_NAMES.index("p0_turns")
    return np.minimum(np.rint(data["features"][:, col] * TURNS_SCALE).astype(int), NAIVE_TURNS - 1)


def naive_to_come(data: dict) -> dict:
    """The naive forecast's table: the mean VP still to come, by player count and by the turns the seat has
    completed (what anyone at the table can count), from these rows."""
    out = {}
    turns = seat_turns(data)
    come = (data["final_score"] - data["score"]).astype(np.float64)
    for n in (2, 3, 4):
        rows, last = [], None
        for t in range(NAIVE_TURNS):
            sel = (data["players"] == n) & (turns == t)
            last = round(float(come[sel].mean()), 2) if sel.sum() >= 5 else last
            rows.append(last)
        out[str(n)] = rows
    return out


def score_error_table(model: ValueModel, data: dict) -> dict:
    """The forecast's root-mean-square error of the final score, by player count and turns completed (rows
    with fewer than 20 samples take the previous turn's value; the overall error where there is none)."""
    pred = data["score"] + np.maximum(model.raw_rows(data["features"])[:, 1], 0.0) * model.to_come_scale
    sq = (pred - data["final_score"]) ** 2
    overall = float(np.sqrt(sq.mean()))
    turns = seat_turns(data)
    out = {}
    for n in (2, 3, 4):
        rows, last = [], overall
        for t in range(NAIVE_TURNS):
            sel = (data["players"] == n) & (turns == t)
            last = round(float(np.sqrt(sq[sel].mean())), 2) if sel.sum() >= 20 else last
            rows.append(last)
        out[str(n)] = rows
    return out


def naive_forecast(data: dict, table: dict) -> np.ndarray:
    """Current VP plus the table's mean VP still to come (0 where the table has nothing)."""
    turns = seat_turns(data)
    come = [table.get(str(n), [None] * NAIVE_TURNS)[t] for n, t in zip(data["players"], turns)]
    return data["score"] + np.asarray([c or 0.0 for c in come], dtype=np.float64)


def thirds(data: dict) -> np.ndarray:
    """0, 1, 2: the third of its game a row's decision falls in."""
    return np.minimum((data["decision"] * 3) // np.maximum(data["decisions"], 1), 2)


def model_forecasts(model: ValueModel, data: dict) -> tuple[np.ndarray, np.ndarray]:
    """The model's win probability and expected final score of every row."""
    raw = model.raw_rows(data["features"])
    p = normalised_win(raw[:, 0], positions(data), row_powers(model, data))
    pred_score = data["score"] + np.maximum(raw[:, 1].astype(np.float64), 0.0) * model.to_come_scale
    return p, pred_score


def calibration_metrics(model: ValueModel, data: dict, naive: dict | None = None) -> dict:
    """How well the model forecasts these rows (forecast_metrics of its win probabilities and expected final
    scores); the naive forecast's table is `naive`, by default the model's own training table."""
    p, pred_score = model_forecasts(model, data)
    return forecast_metrics(p, pred_score, data, naive or model.meta.get("naive_to_come") or naive_to_come(data))


def naive_tables(models: dict[int, ValueModel], data: dict) -> dict:
    """The naive forecast's table of rows of several player counts: each count's from the training games of the
    model that forecasts it (models[n]), where that model has one, else from these rows."""
    own = {str(n): m.meta["naive_to_come"][str(n)] for n, m in models.items()
           if str(n) in m.meta.get("naive_to_come", {})}
    return {**naive_to_come(data), **own}


def metrics_by_player_count(models: dict[int, ValueModel], data: dict) -> dict:
    """forecast_metrics of rows of one or more player counts, each count's rows forecast by its own model
    (models[n]: the default engine reads a model of its own in some player counts)."""
    p, pred_score = np.empty(len(data["players"])), np.empty(len(data["players"]))
    for n, model in models.items():
        sel = data["players"] == n
        p[sel], pred_score[sel] = model_forecasts(model, _sub(data, sel))
    return forecast_metrics(p, pred_score, data, naive_tables(models, data))


def forecast_metrics(p: np.ndarray, pred_score: np.ndarray, data: dict, naive: dict) -> dict:
    """Forecasts `p` (win probability) and `pred_score` (final VP) of these rows against what happened: Brier
    skill score against 1/n (overall and by third of the game), a 10-bin reliability table, and the
    expected-score mean absolute error against the naive forecast (current VP plus the mean VP still to come
    at the seat's turn count, `naive`)."""
    pos = positions(data)
    won = data["win"].astype(np.float64)
    uniform = 1.0 / data["players"].astype(np.float64)
    naive_score = naive_forecast(data, naive)
    err, naive_err = np.abs(pred_score - data["final_score"]), np.abs(naive_score - data["final_score"])
    third = thirds(data)
    out = {"positions": int(pos.max() + 1) if len(pos) else 0, "games": len(set(data["game"].tolist())),
           "brier": brier(p, won, pos), "brier_uniform": brier(uniform, won, pos)}
    out["brier_skill"] = 1.0 - out["brier"] / out["brier_uniform"] if out["brier_uniform"] else 0.0
    out["by_third"] = []
    for t in range(3):
        sel = third == t
        b, b0 = brier(p[sel], won[sel], pos[sel]), brier(uniform[sel], won[sel], pos[sel])
        out["by_third"].append({"third": t + 1, "rows": int(sel.sum()), "brier_skill": 1.0 - b / b0 if b0 else 0.0,
                                "score_mae": float(err[sel].mean()) if sel.any() else 0.0,
                                "naive_score_mae": float(naive_err[sel].mean()) if sel.any() else 0.0,
                                "score_mae_ratio": _ratio(err[sel].sum(), naive_err[sel].sum())})
    out["score_mae"] = float(err.mean()) if len(err) else 0.0
    out["naive_score_mae"] = float(naive_err.mean()) if len(err) else 0.0
    out["score_mae_ratio"] = _ratio(err.sum(), naive_err.sum())
    out["reliability"] = reliability(p, won)
    out["reliability_gap"] = reliability_gap(out["reliability"])
    out["intervals"] = game_intervals(p, won, uniform, err, naive_err, third, data["game"])
    return out


def _ratio(a: float, b: float) -> float:
    """a / b, 0.0 where b is 0 (no rows)."""
    return float(a / b) if b else 0.0


# The reliability floor (no bin's forecast more than 0.07 off its outcomes) reads only the bins with at least this
# many rows (seats of positions).
RELIABILITY_MIN_ROWS = 50
# Resamples of the games behind forecast_metrics' 95% intervals.
BOOTSTRAP_RESAMPLES = 1000


def reliability_gap(table: list[dict], min_rows: int = RELIABILITY_MIN_ROWS) -> float:
    """The largest |predicted - observed| of a reliability table's bins with at least `min_rows` rows (0.0 where
    none has)."""
    return max((abs(b["predicted"] - b["observed"]) for b in table if b["rows"] >= min_rows), default=0.0)


def game_intervals(p: np.ndarray, won: np.ndarray, uniform: np.ndarray, err: np.ndarray, naive_err: np.ndarray,
                   third: np.ndarray, game: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                   seed: int = 0) -> dict | None:
    """95% intervals of forecast_metrics' figures over the games the rows come from: a bootstrap that draws whole
    games with replacement (the rows of one game are not independent), `resamples` times from a seeded
    generator, and reads the 2.5th and 97.5th percentiles. Of the Brier skill (overall and by third), the VP
    error as a share of the naive forecast's (overall and by third) and the win share observed in each bin of the
    reliability table, each over the resamples that hold such rows (None where none does: an empty bin or third):
    the reliability floor is read bin by bin, and the largest gap of a
    resample is no interval of the gap (the maximum of noisy gaps sits above the gap, often above its point
    estimate). None with fewer than two games."""
    ids, gi = np.unique(game, return_inverse=True)
    g = len(ids)
    if g < 2:
        return None
    weights = np.random.default_rng(seed).multinomial(g, np.full(g, 1.0 / g), size=resamples).astype(np.float64)

    def per_game(values, groups=None, k=1):
        idx = gi if groups is None else gi * k + groups
        return np.bincount(idx, weights=values, minlength=g * k).reshape(g, k)

    def share(num, den):                            # nan where a resample has no such rows
        a, b = weights @ num, weights @ den
        return np.divide(a, b, out=np.full_like(a, np.nan), where=b > 0)

    sq, sq0 = per_game((p - won) ** 2, third, 3), per_game((uniform - won) ** 2, third, 3)
    e, e0 = per_game(err, third, 3), per_game(naive_err, third, 3)
    skill, ratio = 1.0 - share(sq, sq0), share(e, e0)
    skill_all = 1.0 - share(sq.sum(1, keepdims=True), sq0.sum(1, keepdims=True))[:, 0]
    ratio_all = share(e.sum(1, keepdims=True), e0.sum(1, keepdims=True))[:, 0]
    bins = np.minimum((p * 10).astype(int), 9)
    counts, wins = per_game(np.ones_like(p), bins, 10), per_game(won, bins, 10)
    observed = share(wins, counts)

    def interval(x):                                # over the resamples that have such rows; None if none has
        x = x[~np.isnan(x)]
        if not len(x):
            return None
        lo, hi = np.percentile(x, [2.5, 97.5])
        return [float(lo), float(hi)]
    return {"games": g, "resamples": resamples, "seed": seed,
            "brier_skill": interval(skill_all), "score_mae_ratio": interval(ratio_all),
            "by_third": [{"third": t + 1, "brier_skill": interval(skill[:, t]),
                          "score_mae_ratio": interval(ratio[:, t])} for t in range(3)],
            "reliability_observed": [interval(observed[:, b]) for b in range(10)]}


def search_forecasts(records: list, every: int, analyse, on_game=None, edition=None
                     ) -> tuple[np.ndarray, np.ndarray, dict]:
    """The forecasts a search makes: `analyse(state)` (returning an engine.Analysis) at every `every`-th
    decision of each finished game record (a path, or a GameRecord already loaded); returns (win probabilities,
    expected scores, the rows' columns as datagen writes them) for forecast_metrics. on_game() is called after
    each record."""
    from .datagen import concat, record_rows
    from ..rules.record import GameRecord
    p, sc, parts = [], [], []
    for g, record in enumerate(records):
        rec = record if isinstance(record, GameRecord) else GameRecord.load(record, edition)
        rows = record_rows(rec, g)
        keep = rows["decision"] % every == 0
        states = [s.clone() for d, s in rec.decisions() if d % every == 0]
        for state in states:
            a = analyse(state)
            p += [pl.win_prob for pl in a.players]
            sc += [pl.expected_score for pl in a.players]
        parts.append({k: v[keep] for k, v in rows.items()})
        if on_game is not None:
            on_game()
    return np.asarray(p), np.asarray(sc), concat(parts)


def best_possible(wins: np.ndarray, finals: np.ndarray) -> dict:
    """What the best forecast of one position could score, from m >= 2 playouts of it that differ only in chance
    and the bots' seeds: `wins` [m, n] the seats' win shares, `finals` [m, n] their final VP.

    best_brier: the Brier score of the position's true win probabilities, estimated without bias (per seat the
    outcomes' variance with m - 1 in the denominator: p(1 - p) for a 0/1 outcome), and uniform_brier 1/n's on
    the same outcomes, so that 1 - best / uniform summed over positions bounds the Brier skill of any forecast.
    best_mae_low and best_mae_high bracket the mean absolute error of the best expected score (the median of
    the final VP): the playouts' median scored on the playouts themselves (too low) and each playout against
    the median of the others (too high)."""
    wins, finals = np.asarray(wins, dtype=np.float64), np.asarray(finals, dtype=np.float64)
    m, n = wins.shape
    if m < 2 or finals.shape != (m, n):
        raise BarcelonaError(f"best_possible: wins {wins.shape} and finals {finals.shape} must be [m >= 2, seats]")
    others = np.array([np.median(np.delete(finals, i, axis=0), axis=0) for i in range(m)])
    return {"best_brier": float(wins.var(axis=0, ddof=1).sum()),
            "uniform_brier": float(((1.0 / n - wins) ** 2).sum(axis=1).mean()),
            "best_mae_low": float(np.abs(finals - np.median(finals, axis=0)).mean()),
            "best_mae_high": float(np.abs(finals - others).mean())}


def reliability(p: np.ndarray, won: np.ndarray, bins: int = 10) -> list[dict]:
    """Rows binned by predicted win probability: count, mean prediction, observed win share."""
    idx = np.minimum((p * bins).astype(int), bins - 1)
    table = []
    for b in range(bins):
        sel = idx == b
        table.append({"bin": f"{b / bins:.1f}-{(b + 1) / bins:.1f}", "rows": int(sel.sum()),
                      "predicted": float(p[sel].mean()) if sel.any() else None,
                      "observed": float(won[sel].mean()) if sel.any() else None})
    return table


__all__ = ["TrainSettings", "TrainReport", "train", "calibration_metrics", "metrics_by_player_count", "model_forecasts",
           "naive_tables", "forecast_metrics", "search_forecasts",
           "reliability", "reliability_gap", "game_intervals", "fit_win_power", "best_possible"]
