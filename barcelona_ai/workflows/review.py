"""Review of a game record: every decision marked best, good, inaccuracy, mistake or blunder against the engine's
choice, by the win probability and the expected final VP it lost (``barcelona-ai review``; a web page calls the
same function).

How a decision is measured (also printed in the review's header and in docs/records.md): the engine searches
the position before the decision (the search of ``analyse --at INDEX``) and its most visited root move is the
engine's move. The played move and the engine's move are compared on two scales, for the player deciding: the
win probability and the expected final score (VP),

    loss    = max(0, win_prob(engine's move) - win_prob(played move))
    vp_loss = max(0, expected_score(engine's move) - expected_score(played move))

both from the same estimates. Where the played move got at least ``MIN_VISITS`` visits and ``ROOT_SHARE`` of
the engine's move's, both are that search's root statistics ("root"). Otherwise the played move's numbers rest
on a handful of playouts, and both moves are evaluated alike ("search"): each is applied and the position it
leads to is searched with the same budget (the deciding player's numbers are the means over all of that
search's iterations, whoever is to move there); where a chance outcome comes next (a draw, a reveal),
``CHANCE_SAMPLES`` outcomes are drawn with their probabilities, the same random numbers for both moves, and the
budget is split over them (outcomes the player deciding next cannot tell apart share one search); a game that
ends scores the player's win share and final VP. A played move equal to the engine's move loses nothing.

Every estimate has a noise, and so has the engine's own choice at the review's budget. The first is the
standard error of the two estimates' difference: the spread of the final-VP forecasts over the square root of
the visits (for a win probability p, ``WIN_SD_SCALE`` * sqrt(p(1-p)) stands for the spread), plus, over sampled
chance outcomes, their spread. The second is the standard error of the difference of two root moves with the
engine's move's visits: what the engine cannot tell apart at this budget. A loss counts only beyond
``NOISE_Z`` times the two together (``excess``), so that a move the engine itself might play at this budget
(another seed) is not marked for it. The mark is the worse of the two scales' marks of the excess
(``WIN_BOUNDS``, ``VP_BOUNDS``), so a player far behind, whose win probability moves little, is still marked by
the VP lost. The bounds, WIN_SD_SCALE and NOISE_Z were chosen by bench/review_marks.py
(docs/measurements/review.md).

Accuracy (per decision and per player): 100 * 0.5 ** x, where x is the larger of excess / ``WIN_HALF`` and
excess VP / ``VP_HALF``; a player's accuracy is the mean over their decisions (100: every decision as good as the
engine's; a decision that lost WIN_HALF win probability or VP_HALF VP beyond the noise scores 50).

Every seat is reviewed where the record shows what the deciding player held. A record kept from one seat (table
mode, or a game saved from ``play`` before its end) hides the other players' draws: their placements show the
citizens placed (the replay gives those to the player first), and a decision made while holding citizens the
record does not show is left out (Review.seats says how many and why).
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from ..core import CONSTANTS, State
from ..errors import BarcelonaError
from ..rules.notation import parse_placement
from ..rules.record import give_hand
from ..search.engine import Engine, Limit
from ..search.results import analysis_of, shown_stats
from ..search.running import mix_seed
from .playout import chance_outcome

C = CONSTANTS
MARKS = ("best", "good", "inaccuracy", "mistake", "blunder")
# upper bounds of each mark on the loss beyond its noise (above the last: a blunder), per scale
WIN_BOUNDS = (("best", 0.02), ("good", 0.05), ("inaccuracy", 0.10), ("mistake", 0.20))
VP_BOUNDS = (("best", 1.5), ("good", 4.0), ("inaccuracy", 8.0), ("mistake", 16.0))
THRESHOLDS = WIN_BOUNDS            # the win-probability bounds (the JSON's "thresholds")
NOISE_Z = 2.0                      # standard errors of the difference a loss must exceed to count
WIN_HALF, VP_HALF = 0.10, 8.0      # the excess loss that halves a decision's accuracy
MIN_VISITS = 50                    # the played move's root numbers are used from this many visits ...
ROOT_SHARE = 0.25                  # ... and this share of the engine's move's; else both are searched alike
CHANCE_SAMPLES = 4                 # chance outcomes sampled when a move leads to a chance node
WIN_SD_SCALE = 0.25                # the spread of win forecasts assumed: this share of sqrt(p(1-p)), at least
MIN_WIN_SD = 0.05                  # ... of this (the forecasts are a network's, far smoother than win or loss)
SWINGS = 5                         # the biggest losses listed by the review


def _mark_on(bounds, loss: float) -> int:
    for k, (_name, bound) in enumerate(bounds):
        if loss <= bound + 1e-12:
            return k
    return len(MARKS) - 1


def mark_of(loss: float, engine_move: bool = False, vp_loss: float = 0.0) -> str:
    """The mark of a decision that lost `loss` win probability and `vp_loss` expected final VP beyond their noise:
    the worse of the two scales' marks (WIN_BOUNDS, VP_BOUNDS); "best" for the engine's own move."""
    if engine_move:
        return "best"
    return MARKS[max(_mark_on(WIN_BOUNDS, loss), _mark_on(VP_BOUNDS, vp_loss))]


def marked_by(loss: float, vp_loss: float) -> str:
    """Which scale gave the mark of mark_of(loss, vp_loss=vp_loss): "win probability", "final VP" or "both"."""
    w, v = _mark_on(WIN_BOUNDS, loss), _mark_on(VP_BOUNDS, vp_loss)
    return "both" if w == v else "win probability" if w > v else "final VP"


def accuracy_of(loss: float, vp_loss: float) -> float:
    """A decision's accuracy, 0-100, from its losses beyond the noise (see the module docstring)."""
    return 100.0 * 0.5 ** max(loss / WIN_HALF, vp_loss / VP_HALF)


def thresholds_line() -> str:
    def scale(bounds, fmt):
        parts = [f"{name} <= {fmt(bound)}" for name, bound in bounds[1:]]
        return ", ".join([f"best <= {fmt(bounds[0][1])}"] + parts) + f", blunder > {fmt(bounds[-1][1])}"
    return ("Marks by the loss beyond its noise against the engine's choice, the worse of two scales (the engine's "
            f"own move is best): win probability lost: {scale(WIN_BOUNDS, lambda b: f'{b:.2f}')}; "
            f"expected final VP lost: {scale(VP_BOUNDS, lambda b: f'{b:g}')}")


def noise_line() -> str:
    return (f"A loss counts only beyond its noise: {NOISE_Z:g} standard errors of the two estimates' difference and "
            "of the engine's own choice at this budget (the moves it cannot tell apart), so a move the engine "
            "itself might play here is not marked for it")


def accuracy_line() -> str:
    return (f"Accuracy: the mean over a player's decisions of 100 x 0.5^x, x the larger of the win probability "
            f"lost / {WIN_HALF:.2f} and the VP lost / {VP_HALF:g}, both beyond the noise (100: every decision as "
            "good as the engine's)")


def decides(s: State) -> bool:
    """Whether a player decides in `s` (the game is not over and no chance outcome is next)."""
    return not s.is_terminal() and not s.is_chance_node()


def _win_share(s: State, player: int) -> float:
    ret = s.returns()
    total = sum(x for x in ret if x > 0)
    return max(ret[player], 0.0) / total if total > 0 else 0.0


# ---------------------------------------------------------------------------------------------------------------
# estimates

@dataclass
class Estimate:
    """A move's numbers for one player: win probability and expected final VP, with their standard errors (for
    sampled chance outcomes `samples` holds each outcome's (win, score), whose spread adds to the error)."""
    win: float
    score: float
    win_se: float
    score_se: float
    samples: list[tuple[float, float]] = field(default_factory=list)
    line: list[str] = field(default_factory=list)     # the player's own plan on from there, where searched


def _root_estimate(win: float, score: float, visits: int, score_sd: float) -> Estimate:
    """Numbers that are means over `visits` iterations whose final-VP forecasts spread by `score_sd`."""
    n = max(visits, 1)
    win_sd = WIN_SD_SCALE * max(math.sqrt(max(win * (1.0 - win), 0.0)), MIN_WIN_SD)
    return Estimate(win, score, win_sd / math.sqrt(n), score_sd / math.sqrt(n))


def _root_sums(search, player: int) -> tuple[int, float, float, float]:
    """Over the search's trees: iterations, and `player`'s sums of win forecasts, final-VP forecasts and their
    squares at the end of the iterations."""
    its, win, score, sq = 0, 0.0, 0.0, 0.0
    for t in search.trees:
        rs = t.root_stats()
        its += rs["iterations"]
        win += rs["win_sum"][player]
        score += rs["score_sum"][player]
        sq += rs["score_sq"][player]
    return its, win, score, sq


def _spread(its: int, score: float, sq: float) -> float:
    """The standard deviation of the final-VP forecasts of `its` iterations with sum `score` and squares `sq`."""
    n = max(its, 1)
    return math.sqrt(max(0.0, sq / n - (score / n) ** 2))


def _position_estimate(engine: Engine, t: State, player: int, limit: Limit) -> Estimate:
    """`player`'s numbers in the position `t` (somebody decides there): the means over every iteration of a search
    of `t` (the root's statistics, over the searching player's replies as they were searched), as a root move's
    statistics in the search before are means over its iterations. Where `player` decides in `t` (the turn goes
    on), its `line` is the search's best move there and its main line (the numbers shown without playouts)."""
    def answer(search):
        its, win, score, sq = _root_sums(search, player)
        n = max(its, 1)
        est = _root_estimate(win / n, score / n, its, _spread(its, score, sq))
        if search.player == player:
            search.playouts = 0                 # the line only: no numbers of its are shown
            est.line = _line_of(analysis_of(search, 1), player)
        return est
    return engine.search_with(t, limit, answer)


def _line_of(a, player: int) -> list[str]:
    """The engine's move of the Analysis `a` (`player` to move) and its main line."""
    if not a.moves:
        return []
    return [f"P{player}: {a.moves[0].moves[0]}"] + list(a.moves[0].main_line)


def evaluate_after(engine: Engine, s: State, action: int, player: int, limit: Limit, seed: int) -> Estimate:
    """`player`'s numbers after `action` is applied in `s`, from a search of the position it leads to (chance
    outcomes sampled with their probabilities, from `seed`, when one comes next; outcomes that the player
    deciding next cannot tell apart give one search). See the module docstring."""
    after = s.clone()
    after.apply(action)
    if after.is_terminal():
        return Estimate(_win_share(after, player), float(after.scores()[player]), 0.0, 0.0)
    rng = random.Random(seed)
    outcomes: list[State] = []
    for _ in range(1 if decides(after) else CHANCE_SAMPLES):
        t = after.clone()
        while t.is_chance_node():
            t.apply(chance_outcome(t, rng))
        outcomes.append(t)
    keys = [("end", i) if t.is_terminal() else (t.current_player(), t.observation_hash(t.current_player()))
            for i, t in enumerate(outcomes)]
    distinct = {key: t for key, t in zip(keys, outcomes)}
    searched = sum(1 for t in distinct.values() if not t.is_terminal())
    sub = (Limit(iterations=max(1, limit.iterations // max(searched, 1))) if limit.iterations is not None else
           Limit(time=limit.time / max(searched, 1)))
    found = {key: (Estimate(_win_share(t, player), float(t.scores()[player]), 0.0, 0.0) if t.is_terminal() else
                   _position_estimate(engine, t, player, sub)) for key, t in distinct.items()}
    k = len(outcomes)
    parts = [found[key] for key in keys]
    counts = [keys.count(key) for key in found]
    win = sum(e.win for e in parts) / k
    score = sum(e.score for e in parts) / k
    win_se = math.sqrt(sum((c * e.win_se) ** 2 for c, e in zip(counts, found.values()))) / k
    score_se = math.sqrt(sum((c * e.score_se) ** 2 for c, e in zip(counts, found.values()))) / k
    return Estimate(win, score, win_se, score_se, [(e.win, e.score) for e in parts] if k > 1 else [],
                    parts[0].line if k == 1 else [])


def value_after(engine: Engine, s: State, action: int, player: int, limit: Limit, seed: int) -> float:
    """Win probability of `player` after `action` is applied in `s` (evaluate_after)."""
    return evaluate_after(engine, s, action, player, limit, seed).win


def _spread_var(xs: list[float]) -> float:
    """The variance of the mean of `xs` from their spread (0 for fewer than two)."""
    if len(xs) < 2:
        return 0.0
    m = sum(xs) / len(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs)


def difference_noise(best: Estimate, played: Estimate) -> tuple[float, float]:
    """The standard errors of (best - played) on both scales: the two estimates' own errors, and the spread of
    their sampled chance outcomes (paired outcome by outcome where both sampled alike)."""
    var_w = best.win_se ** 2 + played.win_se ** 2
    var_s = best.score_se ** 2 + played.score_se ** 2
    if best.samples and len(best.samples) == len(played.samples):
        var_w += _spread_var([b[0] - p[0] for b, p in zip(best.samples, played.samples)])
        var_s += _spread_var([b[1] - p[1] for b, p in zip(best.samples, played.samples)])
    else:
        for e in (best, played):
            var_w += _spread_var([x[0] for x in e.samples])
            var_s += _spread_var([x[1] for x in e.samples])
    return math.sqrt(var_w), math.sqrt(var_s)


def _root_search(engine: Engine, s: State, limit: Limit, played: int):
    """One search of `s` (analyse's, for the two moves compared only: analyse(top=every move) would play the
    numbers' playouts of every legal move): (the Analysis with the engine's move, the played move's
    (win_prob, expected_score, visits) or None when it is the engine's move or got no visit, the spread of the
    deciding player's final-VP forecasts over the iterations, the engine's main line after its move)."""
    def answer(search):
        a = analysis_of(search, 1)
        its, _win, score, sq = _root_sums(search, search.player)
        sd = _spread(its, score, sq)
        line = _line_of(a, search.player)[1:]
        st = search.merged().root_children().get(played)
        if not a.moves or played == a.moves[0].action or st is None or st["visits"] == 0:
            return a, None, sd, line
        win, expected = shown_stats(search, played, st)
        return a, (win, expected, st["visits"]), sd, line
    return engine.search_with(s, limit, answer, shown=2)


# ---------------------------------------------------------------------------------------------------------------
# results

@dataclass
class Decision:
    """One reviewed decision: entry `index` of the record, decided by `player`. `loss` and `vp_loss` are what the
    played move lost against the engine's move (engine_win_prob - played_win_prob, engine_score - played_score,
    at least 0); `win_prob_noise` and `vp_noise` what the estimates' noise allows (NOISE_Z standard errors); the
    mark and the accuracy count the losses beyond them."""
    index: int
    player: int
    played: str                  # the move played, in notation
    played_id: int
    engine_move: str             # the engine's choice (its most visited root move)
    engine_id: int
    engine_win_prob: float
    played_win_prob: float
    played_visits: int           # the played move's visits in the engine's search (0: not searched)
    evaluated_by: str            # "engine" (it is the engine's move), "root" (root statistics), "search"
    loss: float                  # win probability lost
    mark: str                    # one of MARKS
    engine_score: float = 0.0    # the deciding player's expected final VP after the engine's move
    played_score: float = 0.0    # ... after the move played
    vp_loss: float = 0.0         # expected final VP lost
    win_prob_noise: float = 0.0
    vp_noise: float = 0.0
    marked_by: str = ""          # "win probability", "final VP", "both" ("" for the engine's move)
    accuracy: float = 100.0
    engine_visits: int = 0
    engine_line: list[str] = field(default_factory=list)   # the engine's move and its main line after it
    round: int = 0               # the round of the game (from 1)

    @property
    def severity(self) -> float:
        """The loss beyond the noise in units of WIN_HALF / VP_HALF, the worse scale (accuracy_of's x)."""
        return max(excess(self.loss, self.win_prob_noise) / WIN_HALF, excess(self.vp_loss, self.vp_noise) / VP_HALF)


def excess(loss: float, noise: float) -> float:
    """The part of `loss` beyond `noise`."""
    return max(0.0, loss - noise)


@dataclass
class PlayerSummary:
    """A player's reviewed decisions: how many got each mark, the mean losses and the accuracy (0-100)."""
    player: int
    decisions: int
    marks: dict[str, int]        # every one of MARKS -> count
    mean_loss: float
    mean_vp_loss: float = 0.0
    accuracy: float = 100.0

    def to_dict(self) -> dict:
        return {"player": self.player, "decisions": self.decisions, **self.marks, "mean_loss": self.mean_loss,
                "mean_vp_loss": self.mean_vp_loss, "accuracy": self.accuracy}


@dataclass
class SeatNote:
    """Whether a seat's decisions were reviewed: `reviewed` of `decisions` with a choice; `left_out` were made
    while the seat held citizens the record does not show; `why` says so in words (empty if none)."""
    player: int
    decisions: int
    reviewed: int
    left_out: int
    why: str = ""


@dataclass
class Review:
    """The review of a record: its decisions in order, a summary per player reviewed, which seats were reviewed,
    and the biggest losses (indices of decisions, the worst first)."""
    decisions: list[Decision] = field(default_factory=list)
    summary: list[PlayerSummary] = field(default_factory=list)
    seconds: float = 0.0
    seats: list[SeatNote] = field(default_factory=list)
    swings: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        """{"decisions": [...], "summary": [...], "seats": [...], "swings": [...]} (the JSON of ``review --json``)."""
        return {"decisions": [asdict(d) for d in self.decisions], "summary": [s.to_dict() for s in self.summary],
                "seats": [asdict(n) for n in self.seats], "swings": list(self.swings)}

    def swing_decisions(self) -> list[Decision]:
        by_index = {d.index: d for d in self.decisions}
        return [by_index[i] for i in self.swings]


# ---------------------------------------------------------------------------------------------------------------
# reviewing

def evaluation_note(rec, seed: int = 0) -> str | None:
    """Where the reviewing engine's numbers on the record's board are not its learned models'
    (Engine.evaluation_note), the sentence that says so; None where they are."""
    return Engine(seed=seed).evaluation_note(rec.initial_state())


def review_record(rec, limit: Limit, seed: int = 0, threads: int = 1,
                  progress: Callable[[int, int, int], None] | None = None,
                  on_decision: Callable[[Decision], None] | None = None,
                  stop: Callable[[], bool] | None = None, players: list[int] | None = None) -> Review:
    """Review every decision with a choice in the GameRecord `rec` (see the module docstring), of every seat or
    of the seats `players`. `progress(k, i, n)` is called after each reviewed decision: k decisions so far, at
    entry i of n; `on_decision(d)` with each Decision as it is reviewed (the web board draws the graph as it
    grows); where `stop()` is true before a decision, the review ends there (its summary is that of the
    decisions reviewed)."""
    t0 = time.perf_counter()
    engine = Engine(seed=seed, threads=threads)
    review = Review()
    seats = list(range(rec.players)) if players is None else sorted(set(players))
    counts = {p: [0, 0] for p in range(rec.players)}          # decisions with a choice, left out
    draws = _draws(rec, seed)
    unseen = [0] * rec.players                                  # citizens held that the record does not show
    for i, s, entry in rec.steps(seed):
        if entry is None:
            break
        if i == 0 and rec.viewpoint is not None:
            unseen = [0 if p == rec.viewpoint else s.hand_size(p) for p in range(rec.players)]
        if not decides(s):
            if entry.get("id") is None and i in draws:
                unseen[draws[i]] += 1
            continue
        p = s.current_player()
        at: State | None = s
        if unseen[p]:
            at = _with_hand_shown(rec, s, i, p, draws)
            if _placement(entry):
                unseen[p] = 0
        if entry.get("id") is None or len((at or s).legal_actions()) < 2:
            continue
        counts[p][0] += 1
        if at is None:
            counts[p][1] += 1
            continue
        if p not in seats:
            continue
        if stop is not None and stop():
            break
        d = review_decision(engine, at, i, entry["id"], limit, seed)
        if d is None:                       # a time budget too short for a single iteration
            continue
        review.decisions.append(d)
        if on_decision:
            on_decision(d)
        if progress:
            progress(len(review.decisions), i, len(rec.actions))
    review.seats = [_seat_note(rec, p, *counts[p], p in seats) for p in range(rec.players)]
    review.summary = [summarize(review.decisions, p) for p in seats]
    review.swings = [d.index for d in biggest_swings(review.decisions)]
    review.seconds = time.perf_counter() - t0
    return review


def _draws(rec, seed: int) -> dict[int, int]:
    """{entry index: the player who draws} for the citizen draws of a record kept from one seat."""
    if rec.viewpoint is None:
        return {}
    return {i: s.draws_for() for i, s, entry in rec.steps(seed) if entry is not None and s.draws_for() is not None}


def _placement(entry: dict) -> bool:
    a = entry.get("id")
    return isinstance(a, int) and not isinstance(a, bool) and C["A_PLACE"] <= a < C["A_INT_PICK"]


def _with_hand_shown(rec, s: State, i: int, p: int, draws: dict[int, int]) -> State | None:
    """Before entry i of a record kept from one seat, where player p holds citizens the record did not show: a
    copy of `s` in which p holds what p's next placement shows (this entry or a later one, with no draw of p's
    between: the citizens placed are the hand held now; the replay gives them to p only as it applies that
    placement). None where no such placement follows."""
    for j in range(i, len(rec.actions)):
        e = rec.actions[j]
        if draws.get(j) == p:
            return None
        if e.get("by") == p and _placement(e):
            break
    else:
        return None
    a = e["id"]
    classes = [(a - C["A_PLACE"]) % 3]
    if s.hand_size(p) == 2:
        placed = parse_placement(e.get("move", ""))
        if placed is None or placed[3] is None:
            return None
        classes.append(placed[3])
    t = s.clone()
    try:
        give_hand(t, p, classes, rec.viewpoint)
    except BarcelonaError:                 # the replay of that entry says what is wrong with it
        return None
    return t


def _seat_note(rec, p: int, decisions: int, left_out: int, asked: bool) -> SeatNote:
    reviewed = decisions - left_out if asked else 0
    if not asked:
        why = "not asked for"
    elif left_out:
        keeper = f"P{rec.viewpoint}"
        why = (f"{left_out} of {decisions} decisions left out: made while P{p} held citizens this record does not "
               f"show (it was kept from {keeper}'s seat, who did not see P{p}'s draws)")
    else:
        why = ""
    return SeatNote(p, decisions, reviewed, left_out if asked else 0, why)


def review_decision(engine: Engine, s: State, index: int, played: int, limit: Limit,
                    seed: int) -> Decision | None:
    """Mark the move `played` at `s` (entry `index` of a record reviewed with `seed`); None when the search
    returned no move (a time budget too short for one iteration)."""
    player = s.current_player()
    a, pm, sd, line = _root_search(engine, s, limit, played)
    if not a.moves:
        return None
    best = a.moves[0]
    eng = _root_estimate(best.win_prob[player], best.expected_score[player], best.visits, sd)
    visits = pm[2] if pm is not None else (best.visits if played == best.action else 0)
    if played == best.action:
        how, mine = "engine", eng
    elif pm is not None and pm[2] >= max(MIN_VISITS, ROOT_SHARE * best.visits):
        how, mine = "root", _root_estimate(pm[0][player], pm[1][player], pm[2], sd)
    else:
        how, sub_seed = "search", mix_seed(seed, index)
        eng = evaluate_after(engine, s, best.action, player, limit, sub_seed)
        mine = evaluate_after(engine, s, played, player, limit, sub_seed)
    noise_w, noise_s = 0.0, 0.0
    if how != "engine":
        est_w, est_s = difference_noise(eng, mine)
        choice = _root_estimate(best.win_prob[player], best.expected_score[player], best.visits, sd)
        noise_w = NOISE_Z * math.hypot(est_w, math.sqrt(2) * choice.win_se)
        noise_s = NOISE_Z * math.hypot(est_s, math.sqrt(2) * choice.score_se)
    loss = 0.0 if how == "engine" else max(0.0, eng.win - mine.win)
    vp_loss = 0.0 if how == "engine" else max(0.0, eng.score - mine.score)
    ew, ev = excess(loss, noise_w), excess(vp_loss, noise_s)
    mark = mark_of(ew, how == "engine", ev)
    return Decision(index=index, player=player, played=s.action_to_string(played), played_id=played,
                    engine_move=best.moves[0], engine_id=best.action, engine_win_prob=eng.win,
                    played_win_prob=mine.win, played_visits=visits, evaluated_by=how, loss=loss, mark=mark,
                    engine_score=eng.score, played_score=mine.score, vp_loss=vp_loss, win_prob_noise=noise_w,
                    vp_noise=noise_s, marked_by="" if mark == "best" else marked_by(ew, ev),
                    accuracy=accuracy_of(ew, ev), engine_visits=best.visits,
                    engine_line=[best.moves[0]] + _longer(line, eng.line),
                    round=s.view().round_number)


def _longer(root_line: list[str], searched: list[str]) -> list[str]:
    """The engine's line after its move: the root search's, or that of the search of the position it leads to
    (where the engine's move was evaluated by one) when that one goes further."""
    return searched if len(searched) > len(root_line) else root_line


def biggest_swings(decisions: list[Decision], n: int = SWINGS) -> list[Decision]:
    """The `n` decisions that lost most beyond the noise (severity), marked inaccuracy or worse, the worst first."""
    bad = [d for d in decisions if MARKS.index(d.mark) >= MARKS.index("inaccuracy")]
    return sorted(bad, key=lambda d: (-d.severity, d.index))[:n]


def summarize(decisions: list[Decision], player: int) -> PlayerSummary:
    """The marks of `player`'s decisions among `decisions`."""
    mine = [d for d in decisions if d.player == player]
    marks = {m: sum(1 for d in mine if d.mark == m) for m in MARKS}
    if not mine:
        return PlayerSummary(player, 0, marks, 0.0, 0.0, 100.0)
    return PlayerSummary(player, len(mine), marks, sum(d.loss for d in mine) / len(mine),
                         sum(d.vp_loss for d in mine) / len(mine), sum(d.accuracy for d in mine) / len(mine))


__all__ = ["THRESHOLDS", "WIN_BOUNDS", "VP_BOUNDS", "MARKS", "MIN_VISITS", "ROOT_SHARE", "CHANCE_SAMPLES",
           "NOISE_Z", "WIN_HALF", "VP_HALF", "Decision", "PlayerSummary", "SeatNote", "Review", "Estimate",
           "mark_of", "marked_by", "accuracy_of", "excess", "thresholds_line", "noise_line", "accuracy_line",
           "decides", "evaluate_after", "value_after", "difference_noise", "review_record", "review_decision",
           "biggest_swings", "summarize"]
