"""Who is ahead, and by how much, at any moment of a game, from one seat's point of view: the engine's
analysis (Engine.analyse: win probability and expected final VP per player) wherever the position is.

* The seat decides: one search of the position (the engine reads only what the player to move sees).
* Another player decides, or a chance outcome is next (a draw, a reveal): the evaluation is averaged over
  `samples` positions, each the seat's determinization of the position (the other hands sampled from what the
  seat has not seen, State.determinize) with the chance outcomes due drawn by their probabilities, and each
  searched with an equal share of the budget. So nothing the seat cannot see is read (A6): twin positions,
  which differ only in the hands the seat does not see, get the same answer.
* The game is over: the result (final VP and win shares, R127), no search.

With ``viewpoint=None`` (a record where everything is known) nothing is determinized; chance points are still
averaged over sampled outcomes. Every sample is seeded from `seed` and the seat's observation.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from ..core import State
from ..search.engine import Engine, Limit
from ..search.running import mix_seed


@dataclass
class PlayerStanding:
    player: int
    current_score: int
    win_prob: float
    expected_score: float
    score_stdev: float


@dataclass
class Standing:
    """The evaluation of a position for every player."""
    viewpoint: int | None
    players: list[PlayerStanding]
    iterations: int = 0                  # search iterations in all (0: the game is over)
    samples: int = 1                     # positions searched (determinizations and chance outcomes)
    kind: str = "decision"               # "decision", "other" (another player decides), "chance", "final"
    notes: list[str] = field(default_factory=list)

    def leader(self) -> PlayerStanding:
        return max(self.players, key=lambda p: (p.win_prob, p.expected_score, -p.player))

    def to_dict(self) -> dict:
        return {"viewpoint": self.viewpoint, "kind": self.kind, "iterations": self.iterations,
                "samples": self.samples, "players": [vars(p) for p in self.players]}


def _observation_key(state: State, viewpoint: int | None) -> int:
    return state.hash() if viewpoint is None else state.observation_hash(viewpoint)


def _split(limit: Limit, n: int) -> Limit:
    its = None if limit.iterations is None else max(1, limit.iterations // n)
    secs = None if limit.time is None else limit.time / n
    return Limit(iterations=its, time=secs)


def _final(state: State, viewpoint: int | None) -> Standing:
    scores, ret = state.scores(), state.returns()
    players = [PlayerStanding(p, scores[p], ret[p], float(scores[p]), 0.0) for p in range(state.num_players)]
    return Standing(viewpoint, players, kind="final")


def _sample_position(state: State, viewpoint: int | None, seed: int) -> State:
    """The seat's determinization of `state` (a copy when viewpoint is None), with the chance outcomes due now
    drawn by their probabilities (seeded)."""
    s = state.clone() if viewpoint is None else state.determinize(viewpoint, seed)
    rng = random.Random(seed)
    while s.is_chance_node():
        acts, probs = zip(*s.chance_outcomes())
        s.apply(rng.choices(acts, probs)[0])
    return s


def _one(engine: Engine, state: State, limit: Limit, progress=None) -> tuple[list[PlayerStanding], int]:
    """(per player standing, iterations) of one position: its result if over, else one analyse()."""
    if state.is_terminal():
        return _final(state, None).players, 0
    a = engine.analyse(state, limit, top=1) if progress is None else progress(engine, state, limit)
    players = [PlayerStanding(p.player, p.current_score, p.win_prob, p.expected_score, p.score_stdev)
               for p in a.players]
    return players, a.iterations


def _average(samples: list[list[PlayerStanding]], now: list[int]) -> list[PlayerStanding]:
    """Mean win probability and expected score; the spread of the mixture (within and between samples)."""
    n = len(samples)
    out = []
    for p in range(len(now)):
        rows = [s[p] for s in samples]
        mu = sum(r.expected_score for r in rows) / n
        second = sum(r.score_stdev ** 2 + r.expected_score ** 2 for r in rows) / n
        out.append(PlayerStanding(p, now[p], sum(r.win_prob for r in rows) / n, mu,
                                  math.sqrt(max(0.0, second - mu * mu))))
    return out


def evaluate(state: State, engine: Engine, limit: Limit, viewpoint: int | None = None, samples: int = 4,
             seed: int = 0, progress=None) -> Standing:
    """Who is ahead in `state` as `viewpoint` sees it (None: everything is known); see the module docstring.
    `progress(engine, state, limit)`, if given, runs each search (e.g. with a progress bar) and returns its
    Analysis."""
    if state.is_terminal():
        return _final(state, viewpoint)
    if not state.is_chance_node() and (viewpoint is None or state.current_player() == viewpoint):
        players, its = _one(engine, state, limit, progress)
        return Standing(viewpoint, players, its, 1, "decision")
    kind = "chance" if state.is_chance_node() else "other"
    key = _observation_key(state, viewpoint)
    share = _split(limit, samples)
    results, total = [], 0
    for i in range(samples):
        s = _sample_position(state, viewpoint, mix_seed(mix_seed(seed, key), i) & (2 ** 63 - 1))
        players, its = _one(engine, s, share, progress)
        results.append(players)
        total += its
    return Standing(viewpoint, _average(results, state.scores()), total, samples, kind)


def standing_lines(st: Standing, name=lambda p: f"P{p}") -> list[str]:
    """The evaluation as text: one line a player, then who is ahead and by how much."""
    if st.kind == "final":
        head = "The game is over: the result (final VP, win share after the tie-breakers of R127)."
    else:
        how = {"decision": "one search of the position",
               "other": f"averaged over {st.samples} samples of the hands you cannot see",
               "chance": f"averaged over {st.samples} samples of the draw or reveal due now"}[st.kind]
        head = f"Evaluation ({st.iterations} iterations, {how}):"
    lines = [head, f"  {'player':<10} {'VP now':>6}  {'expected final VP':>17}  {'win':>5}"]
    for p in st.players:
        spread = f"{p.expected_score:6.1f} ± {p.score_stdev:4.1f}"
        lines.append(f"  {name(p.player):<10} {p.current_score:6d}  {spread:>17}  {p.win_prob:5.0%}")
    lines.append("  " + ahead_line(st, name))
    return lines


def ahead_line(st: Standing, name=lambda p: f"P{p}") -> str:
    lead = st.leader()
    rest = [p for p in st.players if p.player != lead.player]
    second = max(rest, key=lambda p: (p.win_prob, p.expected_score))
    gap = lead.expected_score - second.expected_score
    verb = "won" if st.kind == "final" else "is ahead"
    vp = f"{gap:+.0f} VP" if st.kind == "final" else f"{gap:+.1f} expected VP"
    return (f"{name(lead.player)} {verb}: win {lead.win_prob:.0%}, {vp} against {name(second.player)} "
            f"(win {second.win_prob:.0%}).")


__all__ = ["Standing", "PlayerStanding", "evaluate", "standing_lines", "ahead_line"]
