"""Baseline players for the arena: random, greedy (one decision ahead with a simple evaluation), flat Monte
Carlo, and the ISMCTS engine. Every bot decides for the player to move and sees only that player's
information (bots that look ahead work on determinizations)."""
from __future__ import annotations

import random

from .core import State
from .engine import Engine, Limit, _mix_seed
from .search import flat_mc


class Bot:
    name = "bot"

    def choose(self, state: State) -> int:
        raise NotImplementedError


class RandomBot(Bot):
    """Uniformly random legal decisions."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.name = "random"

    def choose(self, state: State) -> int:
        return self.rng.choice(state.legal_actions())


def evaluate(state: State, p: int) -> float:
    """A cheap position value for player p: VP, plus rough worth of resources, track positions, pieces still
    to be scored at the end (cobblestones, passengers, Modernisme tiles and raised markers)."""
    r = state.raw()
    pl = r["pl"][p]
    t = state.game_data.edition.t
    v = float(pl["score"])
    v += 0.7 * (pl["coins"] + pl["cloth"])
    v += 3.0 * t["cerda_mult"][pl["cerda"]] + 0.4 * pl["cerda"]
    v += 1.2 * pl["sagrada"]
    if pl["cobbles"]:
        v += t["cobble_vp"][pl["cobbles"] - 1]
    if pl["passengers"]:
        v += t["pass_vp"][pl["passengers"] - 1]
    v += 5.0 * sum(1 for x in pl["mod_tile"] if x >= 0) + 2.0 * sum(pl["mod_up"])
    return v


class GreedyBot(Bot):
    """Best immediate value: applies each legal decision and keeps the one with the best evaluate() for the
    decider (ties broken at random with its seed). Works on a determinization so it reads no hidden hand."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.name = "greedy"

    def choose(self, state: State) -> int:
        p = state.current_player()
        s = state.determinize(p, self.rng.getrandbits(63))
        best, best_v = [], -1e18
        for a in s.legal_actions():
            s.apply(a)
            v = evaluate(s, p)
            s.undo()
            if v > best_v + 1e-9:
                best, best_v = [a], v
            elif abs(v - best_v) <= 1e-9:
                best.append(a)
        return self.rng.choice(best)


class FlatMCBot(Bot):
    """Flat Monte Carlo with `iterations` determinized rollouts per decision, spread evenly over the actions."""

    def __init__(self, iterations: int, seed: int = 0, **settings):
        self.iterations = iterations
        self.seed = seed
        self.params = Engine(seed, **settings).settings.params()
        self.name = f"flatmc{iterations}"

    def choose(self, state: State) -> int:
        p = state.current_player()
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        stats = flat_mc(state, p, self.iterations, _mix_seed(self.seed, state.observation_hash(p)), self.params)
        return max(sorted(stats), key=lambda a: stats[a][1] / max(1, stats[a][0]))


class ISMCTSBot(Bot):
    """The engine as a player. Tree reuse between its decisions is on by default: in the arena it won 0.406
    [0.295, 0.529] of 4-player games against three copies without it (0.25 at equal strength) and was level in
    2 players (README, "Measurements")."""

    def __init__(self, iterations: int | None = None, time: float | None = None, seed: int = 0, **settings):
        settings.setdefault("reuse_tree", True)
        self.engine = Engine(seed, **settings)
        self.limit = Limit(iterations=iterations, time=time)
        self.name = f"ismcts{iterations or ''}{'t%g' % time if time else ''}"

    def choose(self, state: State) -> int:
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        return self.engine.best_move(state, self.limit)


def make_bot(spec: str, seed: int = 0) -> Bot:
    """'random', 'greedy', 'flatmc:N', 'ismcts:N' (iterations) or 'ismcts:Ns' (seconds); extra settings after
    commas, e.g. 'ismcts:10000,reward=win,rollout=uniform'."""
    name, _, rest = spec.partition(":")
    parts = rest.split(",") if rest else []
    budget = parts[0] if parts else ""
    settings = {}
    for kv in parts[1:]:
        k, _, v = kv.partition("=")
        try:
            settings[k] = float(v) if k not in ("reward", "rollout") else v
        except ValueError:
            settings[k] = v
        if k in ("threads", "max_nodes", "expand_threshold"):
            settings[k] = int(float(v))
        if k in ("reuse_tree", "turn_horizon", "root_halving"):
            settings[k] = v.lower() in ("1", "true", "yes", "on")
        if k == "root_halving" and v.lower() in ("auto", "none"):
            settings[k] = None
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    if name == "flatmc":
        bot = FlatMCBot(int(budget or 1000), seed, **settings)
    elif name == "ismcts":
        if budget.endswith("s"):
            bot = ISMCTSBot(time=float(budget[:-1]), seed=seed, **settings)
        else:
            bot = ISMCTSBot(iterations=int(budget or 1000), seed=seed, **settings)
    else:
        from .errors import BarcelonaError
        raise BarcelonaError(f"unknown bot {spec!r}: random, greedy, flatmc:N, ismcts:N or ismcts:Ns")
    bot.name = spec
    return bot
