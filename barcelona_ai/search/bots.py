"""Baseline players for the arena: random, greedy (one decision ahead with a simple evaluation), flat Monte
Carlo, and the ISMCTS engine. Every bot decides for the player to move and sees only that player's
information (bots that look ahead work on determinizations)."""
from __future__ import annotations

import math
import random

from ..core import State
from .engine import Engine, Limit
from .running import mix_seed
from ..errors import BarcelonaError
from .tree import flat_mc, static_value_of
from .settings import FIELD_NAMES, FILE_FIELDS, PRESETS


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
    to be scored at the end (cobblestones, passengers, Modernisme tiles and raised markers). The search's own
    static value (search.pyx static_value), one formula for the greedy bot and the search's leaves."""
    return static_value_of(state, p)


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
        self.params = {n: s.params() for n, s in Engine(seed, **settings).settings.items()}
        self.name = f"flatmc{iterations}"

    def choose(self, state: State) -> int:
        p = state.current_player()
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        stats = flat_mc(state, p, self.iterations, mix_seed(self.seed, state.observation_hash(p)),
                        self.params[state.num_players])
        return max(sorted(stats), key=lambda a: stats[a][1] / max(1, stats[a][0]))


class ISMCTSBot(Bot):
    """The engine as a player, with tree reuse between its decisions (docs/measurements/strength.md)."""

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


MAX_BOT_ITERATIONS = 10 ** 7       # a decision of flatmc:N or ismcts:N (ismcts:100000 takes seconds)
MAX_BOT_SECONDS = 3600.0           # a decision of ismcts:Ns
MAX_SPEC = 200                     # characters of a bot spec
_BOOLS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
BOT_NAMES = ("random, greedy, flatmc:N, ismcts:N or ismcts:Ns (N iterations or seconds a decision; 10k = "
             "10000)")


def _spec_error(spec: str, msg: str) -> BarcelonaError:
    shown = spec if len(spec) <= 60 else spec[:57] + "..."
    return BarcelonaError(f"bad bot spec {shown!r}: {msg}")


_SUFFIXES = {"k": 1000, "m": 1_000_000}


def _number(text: str) -> float:
    """'300', '10k' (10,000), '1.5k', '2m' (2,000,000), '1e4': a number, or ValueError."""
    t = text.strip().lower()
    scale = _SUFFIXES.get(t[-1:], 1)
    if scale != 1:
        t = t[:-1]
    return float(t) * scale if ("." in t or "e" in t or scale != 1) else int(t)


def _count(spec: str, text: str, lo: int, hi: int, what: str) -> int:
    """A count such as 1000, 10k or 1.5k, in lo..hi."""
    try:
        v = _number(text)
    except ValueError:
        raise _spec_error(spec, f"{what} must be a whole number such as 1000 or 10k, not {text[:30]!r}") from None
    if isinstance(v, float):
        if not math.isfinite(v) or not v.is_integer():
            raise _spec_error(spec, f"{what} must be a whole number such as 1000 or 10k, not {text[:30]!r}")
        v = int(v)
    if not lo <= v <= hi:
        raise _spec_error(spec, f"{what} must be {lo}..{hi}, not {text[:30]}")
    return v


def _settings(spec: str, parts: list[str]) -> dict:
    """'key=value' search settings (SearchSettings fields, or preset=NAME), each parsed to its field's type;
    the engine checks their ranges."""
    kinds = {name: _field_kind(name) for name in FIELD_NAMES}
    out: dict = {}
    for kv in parts:
        k, eq, v = (x.strip() for x in kv.partition("="))
        if not eq or not k:
            raise _spec_error(spec, f"expected setting=value after the budget, not {kv[:30]!r}")
        if k != "preset" and k not in kinds:
            raise _spec_error(spec, f"unknown search setting {k[:30]!r} (settings: preset, {', '.join(FIELD_NAMES)})")
        if k in out:
            raise _spec_error(spec, f"search setting {k} given twice")
        if k == "preset":
            if v not in PRESETS:
                raise _spec_error(spec, f"unknown preset {v[:30]!r} (presets: {', '.join(PRESETS)})")
            out[k] = v
        elif kinds[k] is bool:
            if v.lower() not in _BOOLS:
                raise _spec_error(spec, f"{k} must be true or false, not {v[:30]!r}")
            out[k] = _BOOLS[v.lower()]
        elif kinds[k] is int:
            out[k] = _count(spec, v, -2 ** 63, 2 ** 63 - 1, k)
        elif kinds[k] is float:
            try:
                out[k] = float(v)
            except ValueError:
                raise _spec_error(spec, f"{k} must be a number, not {v[:30]!r}") from None
            if not math.isfinite(out[k]):
                raise _spec_error(spec, f"{k} must be a finite number, not {v[:30]!r}")
        else:
            out[k] = None if k in FILE_FIELDS and v.lower() == "none" else v
    return out


def _field_kind(name: str) -> type:
    """The type a SearchSettings field's value is parsed to: its type in the default preset (a file field is
    text; "none" names no file)."""
    return str if name in FILE_FIELDS else type(getattr(PRESETS["default"][2], name))


def make_bot(spec: str, seed: int = 0) -> Bot:
    """'random', 'greedy', 'flatmc:N', 'ismcts:N' (iterations) or 'ismcts:Ns' (seconds); extra settings after
    commas, e.g. 'ismcts:10000,preset=v0' or 'ismcts:10000,rollout_depth=38'. A malformed spec raises
    BarcelonaError naming it."""
    if not isinstance(spec, str):
        raise BarcelonaError(f"bad bot spec: a bot spec is a text ({BOT_NAMES}), not {type(spec).__name__}")
    if not spec or len(spec) > MAX_SPEC:
        raise _spec_error(spec, f"a bot spec has 1..{MAX_SPEC} characters ({BOT_NAMES})")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BarcelonaError(f"bot seed must be a non-negative integer, not {seed!r}")
    name, colon, rest = spec.partition(":")
    parts = rest.split(",") if colon else []
    budget = parts[0].strip() if parts else ""
    if name in ("random", "greedy"):
        if colon:
            raise _spec_error(spec, f"{name} takes no budget or settings")
        return RandomBot(seed) if name == "random" else GreedyBot(seed)
    if name not in ("flatmc", "ismcts"):
        raise _spec_error(spec, f"unknown bot {name[:30]!r}; the bots are {BOT_NAMES}")
    settings = _settings(spec, parts[1:])
    try:
        if name == "flatmc":
            bot = FlatMCBot(_count(spec, budget, 1, MAX_BOT_ITERATIONS, "iterations") if budget else 1000,
                            seed, **settings)
        elif budget.endswith("s"):
            try:
                secs = float(budget[:-1])
            except ValueError:
                raise _spec_error(spec, f"seconds must be a number, not {budget[:30]!r}") from None
            if not math.isfinite(secs) or not 0 < secs <= MAX_BOT_SECONDS:
                raise _spec_error(spec, f"seconds must be more than 0 and at most {MAX_BOT_SECONDS:g}")
            bot = ISMCTSBot(time=secs, seed=seed, **settings)
        else:
            its = _count(spec, budget, 1, MAX_BOT_ITERATIONS, "iterations") if budget else 1000
            bot = ISMCTSBot(iterations=its, seed=seed, **settings)
    except BarcelonaError as exc:
        if str(exc).startswith("bad bot spec "):
            raise
        raise _spec_error(spec, str(exc)) from None
    bot.name = spec
    return bot


def check_bot_spec(spec: str, what: str = "bot") -> None:
    """Raise BarcelonaError ('bad bot spec ...', naming `what` at the end) if make_bot(spec) would fail."""
    try:
        make_bot(spec)
    except BarcelonaError as exc:
        raise BarcelonaError(str(exc) if what == "bot" else f"{exc} (the {what})") from None
