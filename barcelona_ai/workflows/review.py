"""Review of a game record: every decision marked best, good, inaccuracy, mistake or blunder by the win
probability it lost against the engine's choice (``barcelona-ai review``; a web page calls the same function).

How a decision is measured (also printed in the review's header and in docs/records.md): the engine searches
the position before the decision (the same search as ``analyse --at INDEX``) and every root move gets its
visits and its win probability for the deciding player. The loss of the decision is

    loss = max(0, win_prob(engine's move) - win_prob(played move))

where the engine's move is the most visited root move. If the played move got fewer than ``MIN_VISITS`` visits
(a root statistic from a handful of playouts is noise), it is evaluated instead by applying it and searching
the resulting position with the same budget: the win probability of the deciding player is read from that
search's root statistics (whoever is to move there). When a chance outcome comes next (a draw, a reveal),
``CHANCE_SAMPLES`` outcomes are sampled with their probabilities (seeded) and the budget is split over them;
a game that ends scores the player's win share (R127). A played move equal to the engine's move has loss 0.
"""
from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from ..core import State
from ..search.engine import Engine, Limit
from ..search.running import mix_seed
from .playout import chance_outcome

# upper bounds on the loss of win probability (a loss above the last one is a blunder)
THRESHOLDS = (("best", 0.02), ("good", 0.05), ("inaccuracy", 0.10), ("mistake", 0.20))
MARKS = ("best", "good", "inaccuracy", "mistake", "blunder")
MIN_VISITS = 10            # fewer visits than this at the root: the played move is evaluated by its own search
CHANCE_SAMPLES = 4         # chance outcomes sampled when the played move leads to a chance node


def mark_of(loss: float, engine_move: bool = False) -> str:
    """The review category of a decision that lost `loss` win probability."""
    if engine_move:
        return "best"
    for name, bound in THRESHOLDS:
        if loss <= bound + 1e-12:
            return name
    return "blunder"


def thresholds_line() -> str:
    parts = [f"{name} <= {bound:.2f}" for name, bound in THRESHOLDS]
    return ("Marks by win probability lost against the engine's choice: best (the engine's move, or loss <= "
            f"{THRESHOLDS[0][1]:.2f}), " + ", ".join(parts[1:]) + f", blunder > {THRESHOLDS[-1][1]:.2f}")


def decides(s: State) -> bool:
    """Whether a player decides in `s` (the game is not over and no chance outcome is next)."""
    return not s.is_terminal() and not s.is_chance_node()


def _win_share(s: State, player: int) -> float:
    ret = s.returns()
    total = sum(x for x in ret if x > 0)
    return max(ret[player], 0.0) / total if total > 0 else 0.0


def value_after(engine: Engine, s: State, action: int, player: int, limit: Limit, seed: int) -> float:
    """Win probability of `player` after `action` is applied in `s`, from a search of the position it leads to
    (chance outcomes sampled with their probabilities when one comes next). See the module docstring."""
    after = s.clone()
    after.apply(action)
    if after.is_terminal():
        return _win_share(after, player)
    samples = 1 if decides(after) else CHANCE_SAMPLES
    if limit.iterations is not None:
        sub = Limit(iterations=max(1, limit.iterations // samples))
    else:
        sub = Limit(time=limit.time / samples)
    rng = random.Random(seed)
    values = []
    for _ in range(samples):
        t = after.clone()
        while t.is_chance_node():
            t.apply(chance_outcome(t, rng))
        if t.is_terminal():
            values.append(_win_share(t, player))
        else:
            values.append(engine.analyse(t, sub, top=1).players[player].win_prob)
    return sum(values) / len(values)


# ---------------------------------------------------------------------------------------------------------------
# results

@dataclass
class Decision:
    """One reviewed decision: entry `index` of the record, decided by `player`."""
    index: int
    player: int
    played: str                  # the move played, in notation
    played_id: int
    engine_move: str             # the engine's choice (its most visited root move)
    engine_id: int
    engine_win_prob: float
    played_win_prob: float
    played_visits: int           # the played move's visits in the engine's search (0: not searched)
    evaluated_by: str            # "engine" (it is the engine's move), "root" (its root statistics), "search"
    loss: float
    mark: str                    # one of MARKS


@dataclass
class PlayerSummary:
    """A player's reviewed decisions: how many got each mark, and the mean loss."""
    player: int
    decisions: int
    marks: dict[str, int]        # every one of MARKS -> count
    mean_loss: float

    def to_dict(self) -> dict:
        return {"player": self.player, "decisions": self.decisions, **self.marks, "mean_loss": self.mean_loss}


@dataclass
class Review:
    """The review of a record: its decisions in order and a summary per player reviewed."""
    decisions: list[Decision] = field(default_factory=list)
    summary: list[PlayerSummary] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """{"decisions": [...], "summary": [...]} (the JSON of ``review --json``)."""
        return {"decisions": [asdict(d) for d in self.decisions], "summary": [s.to_dict() for s in self.summary]}


# ---------------------------------------------------------------------------------------------------------------
# reviewing

def review_record(rec, limit: Limit, seed: int = 0, threads: int = 1,
                  progress: Callable[[int, int, int], None] | None = None,
                  on_decision: Callable[[Decision], None] | None = None,
                  stop: Callable[[], bool] | None = None) -> Review:
    """Review every decision with a choice in the GameRecord `rec` (see the module docstring); only the
    viewpoint player's for a table-mode record. `progress(k, i, n)` is called after each reviewed decision:
    k decisions so far, at entry i of n; `on_decision(d)` with each Decision as it is reviewed (the web board
    draws the graph as it grows); where `stop()` is true before a decision, the review ends there (its summary
    is that of the decisions reviewed)."""
    t0 = time.perf_counter()
    engine = Engine(seed=seed, threads=threads)
    review = Review()
    for i, s, entry in rec.steps(seed):
        if not _reviewed(rec, s, entry):
            continue
        if stop is not None and stop():
            break
        d = review_decision(engine, s, i, entry["id"], limit, seed)
        if d is None:                       # a time budget too short for a single iteration
            continue
        review.decisions.append(d)
        if on_decision:
            on_decision(d)
        if progress:
            progress(len(review.decisions), i, len(rec.actions))
    players = range(rec.players) if rec.viewpoint is None else [rec.viewpoint]
    review.summary = [summarize(review.decisions, p) for p in players]
    review.seconds = time.perf_counter() - t0
    return review


def _reviewed(rec, s: State, entry: dict | None) -> bool:
    """Whether the entry about to be applied at `s` is a decision the review marks: a player decides with a
    choice of moves, and (in a table-mode record) that player is the viewpoint."""
    if entry is None or not decides(s) or entry.get("id") is None:
        return False
    if rec.viewpoint is not None and s.current_player() != rec.viewpoint:
        return False
    return len(s.legal_actions()) >= 2


def review_decision(engine: Engine, s: State, index: int, played: int, limit: Limit,
                    seed: int) -> Decision | None:
    """Mark the move `played` at `s` (entry `index` of a record reviewed with `seed`); None when the search
    returned no move (a time budget too short for one iteration)."""
    player = s.current_player()
    a = engine.analyse(s, limit, top=len(s.legal_actions()))
    if not a.moves:
        return None
    best = a.moves[0]
    pm = next((m for m in a.moves if m.action == played), None)
    if played == best.action:
        wp_played, how = best.win_prob[player], "engine"
    elif pm is not None and pm.visits >= MIN_VISITS:
        wp_played, how = pm.win_prob[player], "root"
    else:
        wp_played = value_after(engine, s, played, player, limit, mix_seed(seed, index))
        how = "search"
    loss = 0.0 if played == best.action else max(0.0, best.win_prob[player] - wp_played)
    return Decision(index=index, player=player, played=s.action_to_string(played), played_id=played,
                    engine_move=best.moves[0], engine_id=best.action, engine_win_prob=best.win_prob[player],
                    played_win_prob=wp_played, played_visits=pm.visits if pm is not None else 0,
                    evaluated_by=how, loss=loss, mark=mark_of(loss, played == best.action))


def summarize(decisions: list[Decision], player: int) -> PlayerSummary:
    """The marks of `player`'s decisions among `decisions`."""
    mine = [d for d in decisions if d.player == player]
    marks = {m: sum(1 for d in mine if d.mark == m) for m in MARKS}
    mean = sum(d.loss for d in mine) / len(mine) if mine else 0.0
    return PlayerSummary(player, len(mine), marks, mean)


__all__ = ["THRESHOLDS", "MARKS", "MIN_VISITS", "CHANCE_SAMPLES", "Decision", "PlayerSummary", "Review",
           "mark_of", "thresholds_line", "decides", "value_after", "review_record", "review_decision",
           "summarize"]
