"""Training the learned turn policy: which action the engine's search takes at a decision, learned
from its game records, for the search to play the rest of a leaf's turn with (learned.turn_policy.TurnPolicy).

The policy is a conditional logit (McFadden's discrete choice): at a decision every legal action a gets a logit

    w . player(after a, decider) + group[a's group] + top_class[a placement's top class]
      + log_prior * log p(a)

where player is the deciding seat's own block of the value network's public inputs after the action (its 39
PLAYER_NAMES: evaluation.player_block_features; nothing any seat cannot see), the group is the action's kind of
decision (search.decision_group: a construction's building type), and p(a) the heuristic rollout policy's
probability (search.policy_distribution); the action is drawn from the softmax of the logits (at a
temperature, search setting turn_temperature). It is fitted by maximum likelihood to the actions the search
chose in game records, with an L2 penalty, by scipy's L-BFGS (the [train] extra: scipy comes with
scikit-learn); the columns are standardised for the fit and the weights written back on the raw scale, so the
C side reads the features as the network does.

Placements are left to the heuristic (search.turn_policy_choice): on held-out games the logit ranked them no
better than the heuristic's prior (the features do not say where a citizen stands) at 38 evaluations a
decision, so decisions whose actions are all placements are not training rows.

Games are split, never decisions: the decisions of the held-out games (`test_fraction`, chosen by the seed)
measure the fit: mean log-likelihood of the chosen action and its top-1 rate, beside the heuristic prior's.

The position's features and the seat's relative scores (the rest of the network's input before the other seats'
blocks) were the first version's inputs too; on held-out games they added almost nothing to the log-likelihood and
cost some of an iteration's time (docs/measurements/forecasts.md, "The learned turn policy's fit"); the other
seats' blocks added nothing.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from ..workflows.arena import run_jobs
from ..core import CONSTANTS, State
from ..errors import BarcelonaError
from ..learned.evaluation import player_block_features
from ..learned.models import edition_entry
from ..rules.record import GameRecord
from ..rules.tables import edition_label
from ..learned.turn_policy import (FEATURE_NAMES, GROUP_NAMES, NF_POLICY as NF, NGROUPS_PY as NGROUPS,
                                   TOP_CLASS_NAMES, TURN_POLICY_FORMAT, TURN_POLICY_VERSION)
from ..search.tree import decision_group, policy_distribution

A_INT_PICK = CONSTANTS["A_INT_PICK"]   # actions below it are placements (crossing * 3 + top class)
COLUMNS = NF + NGROUPS + 3 + 1    # features, group one-hot, top-class one-hot, log prior


def group_index(state: State, action: int) -> int:
    """search.action_group: the kind of decision, or after the kinds a construction's building type."""
    g = decision_group(state, action)
    return g if g < 100 else NGROUPS - 4 + (g - 100)


def is_placement_decision(actions: list[int]) -> bool:
    return all(a < A_INT_PICK for a in actions)


def action_inputs(state: State, actions: list[int]) -> np.ndarray:
    """float64 [len(actions), COLUMNS]: each action's inputs to the logit (the reference of the C logits)."""
    p = state.current_player()
    prior = policy_distribution(state)
    x = np.zeros((len(actions), COLUMNS))
    for i, a in enumerate(actions):
        state.apply(a)
        x[i, :NF] = player_block_features(state, p)
        state.undo()
        x[i, NF + group_index(state, a)] = 1.0
        if a < A_INT_PICK:
            x[i, NF + NGROUPS + a % 3] = 1.0
        x[i, -1] = math.log(max(prior[a], 1e-9))
    return x


def logits(doc: dict, x: np.ndarray) -> np.ndarray:
    """The logits a policy document gives to rows of action_inputs."""
    return x @ weight_vector(doc)


def weight_vector(doc: dict) -> np.ndarray:
    return np.array(list(doc["features"]) + list(doc["groups"]) + list(doc["top_class"]) + [doc["log_prior"]])


def record_decisions(job) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """The training rows of one game record (job: its path, or (path, edition) to read it under that edition):
    inputs [rows, COLUMNS] (float32), the chosen action's index within each decision, each decision's number of
    actions, and the edition the game was played on; decisions with one action, and placements, are left out."""
    path, edition = job if isinstance(job, tuple) else (job, None)
    rec = GameRecord.load(path, edition)
    xs, chosen, sizes = [], [], []
    for _i, s, entry in rec.steps():
        if entry is None or s.current_player() < 0:
            continue
        acts = s.legal_actions()
        if len(acts) < 2 or is_placement_decision(acts):
            continue
        xs.append(action_inputs(s, acts).astype(np.float32))
        chosen.append(acts.index(entry["id"]))
        sizes.append(len(acts))
    x = np.concatenate(xs) if xs else np.zeros((0, COLUMNS), np.float32)
    return x, np.array(chosen, dtype=np.int64), np.array(sizes, dtype=np.int64), edition_entry(rec.edition_data())


@dataclass
class Decisions:
    """Training rows of many games: x [rows, COLUMNS], chosen and size per decision, game per decision."""
    x: np.ndarray
    chosen: np.ndarray
    sizes: np.ndarray
    game: np.ndarray
    edition: dict | None = None         # models.edition_entry of the games' edition

    def subset(self, games: np.ndarray) -> "Decisions":
        keep = np.isin(self.game, games)
        rows = np.repeat(keep, self.sizes)
        return Decisions(self.x[rows], self.chosen[keep], self.sizes[keep], self.game[keep], self.edition)


def load_decisions(records: list[str], workers: int = 1, on_game=None, edition=None) -> Decisions:
    """The rows of every record, in the records' order (games numbered 0, 1, ...), each record read under
    `edition` (None: its own shipped edition); records of two editions are refused (one board, one policy)."""
    parts: list = [None] * len(records)
    for i, part in run_jobs(record_decisions, [(r, edition) for r in records], workers):
        parts[i] = part
        if on_game:
            on_game()
    editions = {ed["board_sha256"]: (ed, records[g]) for g, (*_rows, ed) in enumerate(parts)}
    if len(editions) > 1:
        (a, ra), (b, rb) = list(editions.values())[:2]
        raise BarcelonaError(f"{ra} was played on {edition_label(a['name'], a['sha256'])}, {rb} on "
                             f"{edition_label(b['name'], b['sha256'])}: a turn policy is fitted on one edition's "
                             "games")
    game = np.concatenate([np.full(len(c), g) for g, (_x, c, _s, _e) in enumerate(parts)]) if parts else np.zeros(0)
    return Decisions(np.concatenate([x for x, _c, _s, _e in parts]), np.concatenate([c for _x, c, _s, _e in parts]),
                     np.concatenate([s for _x, _c, s, _e in parts]), game.astype(np.int64),
                     next(iter(editions.values()))[0] if editions else None)


def _segments(z: np.ndarray, sizes: np.ndarray):
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    top = np.maximum.reduceat(z, starts)
    e = np.exp(z - np.repeat(top, sizes))
    total = np.add.reduceat(e, starts)
    return starts, top, e, total


def log_likelihood(z: np.ndarray, chosen: np.ndarray, sizes: np.ndarray) -> tuple[float, float]:
    """Mean log-probability of the chosen actions under the softmax of logits z, and the chosen action's share
    of the top logit (ties shared, so a flat prior scores 1/n)."""
    if len(sizes) == 0:
        return float("nan"), float("nan")
    starts, top, _e, total = _segments(z, sizes)
    at = starts + chosen
    ll = float(np.mean(z[at] - top - np.log(total)))
    ties = np.add.reduceat((z >= np.repeat(top, sizes) - 1e-12).astype(np.float64), starts)
    top1 = float(np.mean((z[at] >= top - 1e-12) / ties))
    return ll, top1


def _objective(w, x, chosen, sizes, l2):
    z = x @ w
    starts, top, e, total = _segments(z, sizes)
    at = starts + chosen
    n = len(sizes)
    loss = -np.sum(z[at] - top - np.log(total)) / n + l2 * float(w @ w)
    grad = (x.T @ (e / np.repeat(total, sizes)) - x[at].sum(0)) / n + 2 * l2 * w
    return loss, grad


def fit(data: Decisions, l2: float = 1e-4, max_iter: int = 400) -> np.ndarray:
    """The weights (raw scale, weight_vector's order) that maximise the penalised likelihood of the chosen
    actions; the fit starts from the heuristic prior (log_prior 1, the rest 0)."""
    try:
        from scipy.optimize import minimize
    except ImportError as exc:
        raise BarcelonaError("training the turn policy needs scipy: pip install 'barcelona_ai[train]'") from exc
    if len(data.sizes) == 0:
        raise BarcelonaError("no decisions to train the turn policy on (records with choices between actions "
                             "other than placements)")
    x = data.x.astype(np.float64)
    mean = x.mean(0)
    scale = x.std(0)
    scale[scale < 1e-6] = 1.0
    mean[-1], scale[-1] = 0.0, 1.0                  # the log prior stays as it is (its weight starts at 1)
    xs = (x - mean) / scale
    w0 = np.zeros(COLUMNS)
    w0[-1] = 1.0
    res = minimize(_objective, w0, args=(xs, data.chosen, data.sizes, l2), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter})
    return res.x / scale                            # the mean shifts every logit of a decision alike


def policy_document(w: np.ndarray, meta: dict) -> dict:
    return {"format": TURN_POLICY_FORMAT, "version": TURN_POLICY_VERSION,
            "feature_names": list(FEATURE_NAMES), "group_names": list(GROUP_NAMES),
            "top_class_names": list(TOP_CLASS_NAMES),
            "features": [float(v) for v in w[:NF]],
            "groups": [float(v) for v in w[NF:NF + NGROUPS]],
            "top_class": [float(v) for v in w[NF + NGROUPS:NF + NGROUPS + 3]],
            "log_prior": float(w[-1]), "training": meta}


def split_games(games: int, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    order = list(range(games))
    random.Random(seed).shuffle(order)
    k = int(round(games * test_fraction))
    return np.array(sorted(order[k:])), np.array(sorted(order[:k]))


def measures(data: Decisions, w: np.ndarray) -> dict:
    """The fit's log-likelihood and top-1 rate on some decisions, beside the heuristic prior's and uniform's."""
    ll, top1 = log_likelihood(data.x.astype(np.float64) @ w, data.chosen, data.sizes)
    hll, htop1 = log_likelihood(data.x[:, -1].astype(np.float64), data.chosen, data.sizes)
    return {"decisions": int(len(data.sizes)), "log_likelihood": round(ll, 4), "top1": round(top1, 4),
            "heuristic_log_likelihood": round(hll, 4), "heuristic_top1": round(htop1, 4),
            "uniform_log_likelihood": round(float(-np.mean(np.log(data.sizes))), 4) if len(data.sizes) else None}


def train_policy(records: list[str], l2: float = 1e-4, test_fraction: float = 0.1, seed: int = 0,
                 workers: int = 1, on_game=None, edition=None) -> dict:
    """Fit the turn policy to the records' decisions (read under `edition`, load_decisions): measured on the
    held-out games, then refitted on all of them; returns the policy document (its "training" part says how it
    was made and measured, its "edition" which board the games were played on)."""
    if not 0.0 <= test_fraction < 1.0:
        raise BarcelonaError(f"test fraction must be in [0, 1), not {test_fraction!r}")
    data = load_decisions(records, workers, on_game, edition)
    games = len(records)
    fit_games, test_games = split_games(games, test_fraction, seed)
    meta = {"records": games, "decisions": int(len(data.sizes)), "l2": l2, "seed": seed}
    if len(test_games):
        w = fit(data.subset(fit_games), l2)
        meta["held_out"] = {"games": int(len(test_games)), **measures(data.subset(test_games), w)}
    w = fit(data, l2)
    meta["fit"] = measures(data, w)
    doc = policy_document(w, meta)
    doc["edition"] = data.edition
    return doc
