"""The search's settings: one SearchSettings per player count, the presets that ship, and the files they read.

A SearchSettings is complete: every field has a value and no value means "decide later". The presets are written
out in full in PRESETS, one per player count (like KataGo's config files or Stockfish's tuned constants):
``default`` is the engine players use, ``v0`` the first engine (rollouts to the end), kept as the arena's
baseline. An override changes exactly the fields it names (``preset_settings("default", rollout_depth=38)``),
so naming a preset's own value changes nothing. Every rule between fields is checked when settings are made.
What each preset's values measured is in docs/measurements/.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields, replace

from ..errors import BarcelonaError
from ..learned.evaluation import ValueModel
from ..learned.models import check_shipped, shipped_file
from ..learned.turn_policy import TurnPolicy
from .tree import CHOICES, MAX_NODES_LIMIT, PARAM_FIELDS

PLAYER_COUNTS = (2, 3, 4)
MAX_THREADS = 64
MAX_TOTAL_NODES = 100_000_000       # over all root-parallel trees: memory stays bounded (72 bytes a node)
MAX_PLAYOUTS = 100_000

MAX_ITERATIONS = 10**12             # a search budget must end: about a day of search on one core at 10^7/s
MAX_SECONDS = 1e6                   # about 11.6 days


@dataclass(frozen=True)
class Limit:
    """Search budget: iterations, time in seconds, or both (whichever is reached first). Both are finite; a
    search also ends early on Ctrl-C (SearchInterrupted) or Engine.stop()."""
    iterations: int | None = None
    time: float | None = None

    def __post_init__(self):
        if self.iterations is None and self.time is None:
            raise BarcelonaError("Limit needs iterations or time")
        if self.iterations is not None and (isinstance(self.iterations, bool) or
                                            not isinstance(self.iterations, int) or
                                            not 1 <= self.iterations <= MAX_ITERATIONS):
            raise BarcelonaError(f"Limit.iterations must be an integer from 1 to {MAX_ITERATIONS:.0e}, "
                                 f"not {self.iterations!r}")
        if self.time is not None and (isinstance(self.time, bool) or not isinstance(self.time, (int, float))
                                      or not 0 < self.time <= MAX_SECONDS):       # refuses NaN and infinity
            raise BarcelonaError(f"Limit.time must be a number of seconds in (0, {MAX_SECONDS:.0e}], "
                                 f"not {self.time!r}")


@dataclass(frozen=True)
class SearchSettings:
    """Every setting of the search for one player count (the per-call budget is a Limit). Frozen and checked
    when made: a field out of range or a combination the search cannot run raises BarcelonaError naming it."""
    c_uct: float                    # UCB1 exploration; rewards are in [0, 1]
    mix_weight: float               # the reward: this weight of the win share, the rest a logistic of the VP
    margin_scale: float             #   margin over the best other player, margin_scale VP giving 0.73
    expand_threshold: int           # visits a node below the root needs before it gets children (the rollout
                                    #   policy decides at nodes visited less)
    leaf: str                       # how a leaf is valued: "rollout" (played to the end by the heuristic policy:
                                    #   the game's result is the value and the numbers shown), "model" (the value
                                    #   network after rollout_depth policy actions and the rest of that turn) or
                                    #   "mix" (rollouts decide as with "rollout"; the numbers shown are the
                                    #   network's where the rollout ends the leaf's turn)
    rollout_depth: int              # leaf "model" or "mix": policy actions played before the network evaluates
    forecast_at: str                # the numbers shown: the evaluation that values the leaf ("value"), or the
                                    #   forecast network where the leaf's own turn ends on the way
                                    #   ("leaf_turn_end"; needs rollout_depth)
    turn_policy: str                # with forecast_at "leaf_turn_end": the leaf's own turn is played by the
                                    #   heuristic "rollout" policy or by the "learned" turn policy (`policy`)
    turn_temperature: float         # the learned turn policy's softmax temperature in the search (0: its best)
    root_halving: bool              # the root's budget is spread by sequential halving (best_move, hints,
                                    #   analyse) instead of UCB1; analysis streams use UCB1 (halving needs the
                                    #   whole budget up front)
    playouts: int                   # games played to their end by the learned turn policy in every seat after
                                    #   each move whose numbers are shown; their mean win shares are blended into
                                    #   the win probabilities shown (the moves never depend on them)
    playout_weight: float           # the playouts' share of the win probabilities shown
    model: str | None               # the value network file whose values the search maximises (None: leaf
                                    #   "rollout", which reads no network)
    forecast_model: str | None      # the value network file whose forecasts are the numbers shown
    policy: str | None              # the learned turn policy file (turn_policy "learned", playouts)
    max_nodes: int                  # nodes per tree (72 bytes each)
    threads: int                    # root-parallel trees, merged at the root
    reuse_tree: bool                # keep the subtree of the actions played since the engine's last search
                                    #   (answers then depend on earlier calls)

    def __post_init__(self):
        for f in fields(self):
            _check_field(f.name, getattr(self, f.name))
        for rule in _cross_field_errors(self):
            raise BarcelonaError(rule)

    def replace(self, **overrides) -> SearchSettings:
        """These settings with the fields named changed (checked as at construction)."""
        _check_names(overrides)
        return replace(self, **overrides)

    def params(self) -> dict:
        """The compiled search's parameters (ParamsC, search/tree.pxd), each field by its own name; choices as
        their ids (tree.CHOICES)."""
        return {name: CHOICES[name][value] if name in CHOICES else value
                for name, value in asdict(self).items() if name in PARAM_FIELDS}

    def value_model(self) -> ValueModel | None:
        """The value network the search evaluates leaves with (None for leaf "rollout")."""
        return None if self.model is None else load_model(self.model)

    def forecast_value_model(self) -> ValueModel | None:
        """The value network whose forecasts are the numbers shown (None for leaf "rollout")."""
        return None if self.forecast_model is None else load_model(self.forecast_model)

    def learned_turn_policy(self) -> TurnPolicy | None:
        """The learned turn policy the search plays a leaf's turn with (None unless turn_policy "learned")."""
        return load_policy(self.policy) if self.turn_policy == "learned" else None

    def playout_policy(self) -> TurnPolicy | None:
        """The learned turn policy that plays the playouts of the numbers shown (None without playouts)."""
        return load_policy(self.policy) if self.playouts else None


FIELD_NAMES = tuple(f.name for f in fields(SearchSettings))

# Each field's kind and range: (type, low, high) for numbers; the names it may take for a choice.
_NUMBERS = {"c_uct": (float, 0.0, 100.0), "mix_weight": (float, 0.0, 1.0), "margin_scale": (float, 1e-6, 1e6),
            "expand_threshold": (int, 0, 1_000_000), "rollout_depth": (int, 0, 10_000),
            "turn_temperature": (float, 0.0, 100.0), "playouts": (int, 0, MAX_PLAYOUTS),
            "playout_weight": (float, 0.0, 1.0), "max_nodes": (int, 16, MAX_NODES_LIMIT),
            "threads": (int, 1, MAX_THREADS)}
_FLAGS = ("root_halving", "reuse_tree")
FILE_FIELDS = ("model", "forecast_model", "policy")     # file paths, or None where nothing reads one


def _check_names(overrides: dict) -> None:
    unknown = sorted(set(overrides) - set(FIELD_NAMES))
    if unknown:
        raise BarcelonaError(f"unknown search setting {unknown[0]!r} (settings: {', '.join(FIELD_NAMES)})")


def _check_field(name: str, value) -> None:
    if name in CHOICES:
        if not isinstance(value, str) or value not in CHOICES[name]:
            raise BarcelonaError(f"search setting {name} must be one of {', '.join(CHOICES[name])}, not {value!r}")
    elif name in _FLAGS:
        if not isinstance(value, bool):
            raise BarcelonaError(f"search setting {name} must be true or false, not {value!r}")
    elif name in FILE_FIELDS:
        if value is not None and not isinstance(value, str):
            raise BarcelonaError(f"search setting {name} must be a file path or None, not {value!r}")
    else:
        kind, lo, hi = _NUMBERS[name]
        ok_type = isinstance(value, int) if kind is int else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok_type or not lo <= value <= hi:      # refuses NaN and infinities
            what = "an integer" if kind is int else "a number"
            raise BarcelonaError(f"search setting {name} must be {what} from {lo:g} to {hi:g}, not {value!r}")


def _cross_field_errors(s: SearchSettings):
    """The rules between fields that `s` breaks, each as a sentence naming the fields."""
    if s.leaf == "rollout":
        for name, fine in (("model", None), ("forecast_model", None), ("rollout_depth", 0), ("forecast_at", "value"),
                           ("turn_policy", "rollout")):
            if getattr(s, name) != fine:
                yield (f"search setting leaf 'rollout' reads no {name} ({name} must be {fine!r}, not "
                       f"{getattr(s, name)!r}); the v0 preset is this leaf's engine")
    else:
        for name in ("model", "forecast_model"):
            if getattr(s, name) is None:
                yield f"search setting leaf {s.leaf!r} needs a value network file ({name})"
    if s.forecast_at == "leaf_turn_end" and s.rollout_depth == 0:
        yield "search setting forecast_at 'leaf_turn_end' needs rollout_depth above 0 (the turn it ends is played)"
    if s.turn_policy == "learned" and s.forecast_at != "leaf_turn_end":
        yield "search setting turn_policy 'learned' plays the leaf's turn of forecast_at 'leaf_turn_end'"
    if (s.turn_policy == "learned" or s.playouts) and s.policy is None:
        yield "search settings turn_policy 'learned' and playouts need a turn policy file (policy)"
    if s.threads * s.max_nodes > MAX_TOTAL_NODES:
        yield (f"search settings threads x max_nodes ({s.threads} x {s.max_nodes}) exceed {MAX_TOTAL_NODES:,} "
               f"nodes")


# ---------------------------------------------------------------------------------------------------------------
# the presets

# The shipped files (data/models.json names the file of each role and player count).
GENERAL_MODEL = shipped_file(3, "value")                # fitted on 2-, 3- and 4-player games
MODEL_2P = shipped_file(2, "value")                     # refitted on the 2-player default's own games
FORECAST_4P = shipped_file(4, "forecast")               # fitted on the 4-player default's own games: its numbers
TURN_POLICY = shipped_file(2, "turn_policy")

PRESETS: dict[str, dict[int, SearchSettings]] = {
    # The engine players use. 2 and 4 players: the learned turn, a short rollout, the value network. 3 players:
    # rollouts decide, the network's numbers are shown. 4 players: sequential halving at the root, and the numbers
    # shown come from a network fitted on its own games, blended with playouts.
    "default": {
        2: SearchSettings(
            c_uct=0.7, mix_weight=0.7, margin_scale=15.0, expand_threshold=30,
            leaf="model", rollout_depth=30, forecast_at="leaf_turn_end", turn_policy="learned", turn_temperature=0.25,
            root_halving=False, playouts=0, playout_weight=0.5,
            model=shipped_file(2, "value"), forecast_model=shipped_file(2, "forecast"),
            policy=shipped_file(2, "turn_policy"),
            max_nodes=4_000_000, threads=1, reuse_tree=False),
        3: SearchSettings(
            c_uct=0.7, mix_weight=0.7, margin_scale=15.0, expand_threshold=30,
            leaf="mix", rollout_depth=0, forecast_at="value", turn_policy="rollout", turn_temperature=0.25,
            root_halving=False, playouts=0, playout_weight=0.5,
            model=shipped_file(3, "value"), forecast_model=shipped_file(3, "forecast"),
            policy=shipped_file(3, "turn_policy"),
            max_nodes=4_000_000, threads=1, reuse_tree=False),
        4: SearchSettings(
            c_uct=0.7, mix_weight=0.7, margin_scale=15.0, expand_threshold=30,
            leaf="model", rollout_depth=30, forecast_at="leaf_turn_end", turn_policy="learned", turn_temperature=0.25,
            root_halving=True, playouts=128, playout_weight=0.5,
            model=shipped_file(4, "value"), forecast_model=shipped_file(4, "forecast"),
            policy=shipped_file(4, "turn_policy"),
            max_nodes=4_000_000, threads=1, reuse_tree=False),
    },
    # The first engine: every leaf played to the end by the heuristic rollout policy (the arena's baseline).
    "v0": {
        2: SearchSettings(
            c_uct=0.7, mix_weight=0.7, margin_scale=15.0, expand_threshold=30,
            leaf="rollout", rollout_depth=0, forecast_at="value", turn_policy="rollout", turn_temperature=0.25,
            root_halving=False, playouts=0, playout_weight=0.5,
            model=None, forecast_model=None, policy=None,
            max_nodes=4_000_000, threads=1, reuse_tree=False),
        3: SearchSettings(
            c_uct=0.7, mix_weight=0.7, margin_scale=15.0, expand_threshold=30,
            leaf="rollout", rollout_depth=0, forecast_at="value", turn_policy="rollout", turn_temperature=0.25,
            root_halving=False, playouts=0, playout_weight=0.5,
            model=None, forecast_model=None, policy=None,
            max_nodes=4_000_000, threads=1, reuse_tree=False),
        4: SearchSettings(
            c_uct=0.7, mix_weight=0.7, margin_scale=15.0, expand_threshold=30,
            leaf="rollout", rollout_depth=0, forecast_at="value", turn_policy="rollout", turn_temperature=0.25,
            root_halving=True, playouts=0, playout_weight=0.5,
            model=None, forecast_model=None, policy=None,
            max_nodes=4_000_000, threads=1, reuse_tree=False),
    },
}


def preset_settings(preset: str = "default", **overrides) -> dict[int, SearchSettings]:
    """{players: SearchSettings} of a preset with `overrides` applied to every player count's settings; an
    override that breaks a rule for some player count is refused, naming it."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise BarcelonaError(f"unknown preset {preset!r} (presets: {', '.join(PRESETS)})")
    _check_names(overrides)
    out = {}
    for n, settings in PRESETS[preset].items():
        try:
            out[n] = settings.replace(**overrides)
        except BarcelonaError as exc:
            raise BarcelonaError(f"{exc} (the {preset} preset, {n} players)") from None
    return out


# ---------------------------------------------------------------------------------------------------------------
# the files settings name, each read once per process

_MODELS: dict[tuple, ValueModel] = {}
_POLICIES: dict[tuple, TurnPolicy] = {}


def _file_key(path: str) -> tuple:
    """A file as read now: its real path, modification time and size (a file written anew is read anew)."""
    try:
        st = os.stat(path)
    except OSError:
        return (path,)                      # the loader says why it cannot be read
    return (os.path.realpath(path), st.st_mtime_ns, st.st_size)


def load_model(path: str) -> ValueModel:
    """The value network of a file, read once per process."""
    key = _file_key(path)
    if key not in _MODELS:
        check_shipped(path)
        _MODELS[key] = ValueModel.load(path)
    return _MODELS[key]


def load_policy(path: str) -> TurnPolicy:
    """The learned turn policy of a file, read once per process."""
    key = _file_key(path)
    if key not in _POLICIES:
        check_shipped(path)
        _POLICIES[key] = TurnPolicy.load(path)
    return _POLICIES[key]
