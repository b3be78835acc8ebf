"""The engine players use: best move, hints (turn plans) and position analysis, over the compiled ISMCTS.

Shaped after python-chess's ``engine`` module (``Limit``, ``analyse``) and KataGo's analysis engine (per-move
records with visits, win rate, expected score and main line). Every call searches for the player to move and
reads nothing that player cannot see: the search resamples the other hands at every iteration, and the seed
of a call is derived from the engine's seed and that player's observation, so two states that differ only in
hidden information give identical answers.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from ._version import __version__
from .calibration import CalibrationTable, ForecastCalibration
from .core import CONSTANTS, SOURCES, State
from .notation import describe_action_id
from .errors import BarcelonaError, PlayerCountError, SearchError, SearchInterrupted
from .evaluation import SHIPPED_MODEL, ValueModel
from .jsonio import load_json_file, show_path
from .search import HIDDEN_DRAW, SHIPPED_POLICY, Tree, TurnPolicy, make_params, policy_playouts

CHANCE = CONSTANTS["CHANCE"]
TERMINAL = CONSTANTS["TERMINAL"]


MAX_ITERATIONS = 10**12             # a search budget must end: about a day of search on one core at 10^7/s
MAX_SECONDS = 1e6                   # about 11.6 days
MAX_TOTAL_NODES = 100_000_000       # over all root-parallel trees: memory stays bounded (72 bytes a node)
PLAYER_COUNTS = (2, 3, 4)
# The default leaf evaluation of a 2- and a 4-player search (SearchSettings.leaf None): the network after a short
# rollout, its forecasts reported where the leaf's own turn ends, that turn played by the learned turn policy.
# Against v0 at equal time (0.25 s a decision, one thread): 2 players 0.630 [0.561, 0.694] over 200 games (its
# first version 0.570 on the same setups, and 0.580 [0.511, 0.646] against the same search with the heuristic
# finishing the turn); 1 s vs 0.25 s 0.490 of 100; 4 players, one seat against three of v0, win share 0.415
# [0.349, 0.484] over 200 games (0.25 equal; without the turn policy 0.208 of 48). In 3 players "mix" stays: with
# the turn policy, 0.417 [0.301, 0.543] of 60 games against it at equal iterations and 0.367 [0.256, 0.493] of 60
# against v0 at equal time (0.333 equal; README, Strength and What was measured).
SHORT_ROLLOUT = {"leaf": "model", "rollout_depth": 30, "forecast_at": "leaf_turn_end", "turn_policy": "learned"}
SHORT_ROLLOUT_PLAYERS = (2, 4)      # the player counts whose default is SHORT_ROLLOUT ("mix" in the others)
MIX = {"leaf": "mix", "rollout_depth": 0, "forecast_at": "value", "turn_policy": "rollout"}
# Playouts blended into the win probabilities shown (SearchSettings.playouts), by player count. On the first 30
# games of the 4-player test set te4 (README, Forecasts), every 10th decision, the search's forecasts at 2,000
# iterations alone: Brier skill 0.192; blended half and half with 32 / 128 / 512 playouts: 0.250 / 0.260 / 0.259;
# the playouts alone 0.225-0.252. They cost 30-50 ms a move shown from a 4-player setup, less later. In 2
# players the playouts alone forecast far worse (te2l 0.152 against the search's 0.300) and a blend at 0.2 helps on
# one test set and hurts on another (te2l 0.310, te2j 0.417 against 0.427); in 3 players no better (0.244 against
# 0.240): docs/learned-evaluation.md.
DEFAULT_PLAYOUTS = {4: 128}
MAX_PLAYOUTS = 100_000
PLAYOUT_TEMPERATURE = 0.5           # the turn policy's softmax temperature in them (0.25 and 1.0 forecast alike)
PLAYOUT_TRIAL = 8                   # games that time the playouts of a call under a time limit (their cost is
                                    #   taken out of the search's time: _Search.reserve_playout_time)


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
    """Every tunable of the search (the per-call budget is a Limit)."""
    c_uct: float = 0.7              # UCB1 exploration; rewards are in [0, 1]
    reward: str = "mix"             # "win" (win share), "margin" (logistic of the VP margin), "mix"
    mix_weight: float = 0.7         # weight of the win share in "mix"
    margin_scale: float = 15.0      # VP of margin that give a margin reward of 0.73
    rollout: str = "heuristic"      # "uniform", "heuristic" (kinds of decision weighted, doing > declining) or
                                    #   "greedy" (the heuristic's kind, then the best static value of that kind;
                                    #   no stronger at equal iterations and half as fast: README)
    bias_weight: float = 0.0        # progressive bias from the rollout policy's prior
    leaf_weight: float = 0.0        # weight of a static evaluation of the leaf, blended with the rollout
    turn_horizon: bool = False      # the tree holds only the searcher's current turn (rollouts from its end)
    widen_c: float = 0.0            # progressive widening: at most widen_c * visits^widen_alpha + 1 children,
    widen_alpha: float = 0.5        #   added in the rollout policy's order (0 = try every action first)
    expand_threshold: int = 30      # visits a node needs before it gets children (the rollout policy decides
                                    #   at nodes visited less)
    own_expand_threshold: int | None = None  # the same inside the searcher's own turn (a node where the
                                    #   searcher decides again after its own action); None: expand_threshold.
                                    #   1: the turn's decisions are searched from the first visit (README)
    root_halving: bool | None = None  # sequential halving over the root actions instead of UCB1 (best_move,
                                    #   hints, analyse: one root policy, so they agree); None = in 4-player
                                    #   games (arena vs flat MC: better in 4 players, worse in 2 and 3).
                                    #   Analysis streams use UCB1: halving needs the whole budget up front.
    max_nodes: int = 4_000_000      # nodes per tree (72 bytes each)
    threads: int = 1                # root-parallel trees, merged at the root
    reuse_tree: bool = False        # keep the subtree of the actions played since the engine's last search
                                    # (answers then depend on earlier calls; analysis leaves it off)
    leaf: str | None = None         # how a leaf is valued: "rollout" (play to the end: the v0 engine), "model"
                                    #   (the learned evaluation, evaluation.pyx), "mix" (both), "playout" (as
                                    #   "mix", the game played to its end by the learned turn policy in every
                                    #   seat; the other settings SHORT_ROLLOUT's where None). With "model", "mix"
                                    #   and "playout" the win probabilities and expected scores reported are the
                                    #   evaluation's forecasts at the leaves (calibrated: README, Measurements).
                                    #   None = by player count: SHORT_ROLLOUT in 2 and 4 players, "mix" in 3
    rollout_depth: int | None = None  # leaf="model"/"mix": rollout-policy actions played before the evaluation
                                    #   (then, with evaluate_at="turn_end", the rest of the turn they end in).
                                    #   leaf="model" with 30, 2 players, against v0: 0.58 at 2,000 equal
                                    #   iterations, 0.52 at 7,750, 0.552 at equal time (README, What was
                                    #   measured). None: 30 where leaf is None in 2 and 4 players or "playout",
                                    #   else 0
    model_weight: float = 0.0       # leaf="mix"/"playout": the evaluation's weight in the value the search
                                    #   maximises. 0: the tree is v0's (same moves at the same seed and
                                    #   iterations), only the numbers are forecasts; arena: 0.3 and leaf="model"
                                    #   played no better (README, What was measured)
    evaluate_at: str = "turn_end"   # leaf="model"/"mix": where the network evaluates: at the state the leaf (and
                                    #   rollout_depth) reach ("leaf"), or at the "turn_end" the rollout policy
                                    #   reaches from there (a state between turns)
    forecast_at: str | None = None  # leaf="model"/"mix": the numbers reported (win probabilities, expected
                                    #   scores) are the evaluation that values the leaf ("value"), or the network
                                    #   where the rollout policy ends the leaf's own turn ("leaf_turn_end"; with
                                    #   rollout_depth, a second evaluation on the way: the same moves, and
                                    #   forecasts the policy's further actions do not lower: README, Forecasts).
                                    #   None: "leaf_turn_end" where leaf is None in 2 and 4 players, else "value"
    turn_policy: str | None = None  # with forecast_at="leaf_turn_end": the leaf's own turn is played by the
                                    #   "rollout" policy or by the "learned" turn policy (data/turn-policy.json,
                                    #   policy_train.py; docs/learned-evaluation.md). None: "learned" where leaf
                                    #   is None in 2 and 4 players (SHORT_ROLLOUT), else "rollout"
    turn_temperature: float = 0.25  # the learned turn policy's softmax temperature (0: its best action)
    expand_order: str = "rollout"   # the untried action a node adds next: the rollout policy's choice among them
                                    #   ("rollout"), or the learned turn policy's ("learned": placements stay the
                                    #   heuristic's; needs turn_policy="learned")
    root_arms: int = 0              # with root_halving: sequential halving over only this many root actions, the
                                    #   priors' best (placements: the heuristic's; other decisions: the learned
                                    #   turn policy's where turn_policy="learned"); 0: every root action. A root
                                    #   searched by UCB1 (2 and 3 players, analysis streams) reads every action
    policy: str | None = None       # turn policy file for turn_policy="learned" (None: the shipped one)
    model: str | None = None        # value model file for leaf="model"/"mix" (None: the shipped one of the
                                    #   player count: SHIPPED_MODEL_FILES, else evaluation.SHIPPED_MODEL); a
                                    #   search in a player count the file was not fitted on is refused
    forecast_model: str | None = None   # value model file whose forecasts are the numbers shown (hints, analyse),
                                    #   where model's values are those the search maximises: the same moves.
                                    #   None: the player count's shipped forecast model where model is None too
                                    #   (SHIPPED_FORECAST_FILES: 4 players), else the model's own forecasts
    choose: str = "visits"          # the move chosen among the root actions: "visits" (the halving survivor,
                                    #   else the most visited), "win" (the highest win probability among the
                                    #   actions with at least CLOSE_SHARE of the most visited one's visits), or
                                    #   "forecast" (the highest reported win probability among the actions that
                                    #   pass the hints' visits rule)
    calibration: str | None = None  # the forecast calibration of the numbers shown (calibration.py): a file, None
                                    #   for the shipped one, or "off" (the search's own forecasts). A table
                                    #   applies only to the settings it was fitted for (calibration_key); the
                                    #   moves never depend on it
    playouts: int | None = None     # games played out to the end by the learned turn policy (every seat, at
                                    #   PLAYOUT_TEMPERATURE; the `policy` file) after each move whose numbers are
                                    #   shown, from determinizations of what the searcher sees: their mean win
                                    #   shares are blended into the win probabilities shown (playout_weight).
                                    #   The moves never depend on them. None: DEFAULT_PLAYOUTS by player count
                                    #   (4 players; in 2 and 3 they did not help: README, What was measured); 0: none
    playout_weight: float = 0.5     # the playouts' share of the win probabilities shown

    def for_players(self, players: int) -> SearchSettings:
        """The settings a search of a `players`-player game runs with: every None made the player count's
        default (leaf, rollout_depth, forecast_at and turn_policy: SHORT_ROLLOUT in 2 and 4 players where leaf is
        None and with leaf "playout", else MIX's; root_halving in 4 players; model: the player count's file in
        SHIPPED_MODEL_FILES; forecast_model: its file in SHIPPED_FORECAST_FILES where model is None too; playouts:
        DEFAULT_PLAYOUTS)."""
        if self.leaf == "playout":
            bundle = {**SHORT_ROLLOUT, "leaf": "playout"}
        elif players in SHORT_ROLLOUT_PLAYERS and self.leaf is None:
            bundle = SHORT_ROLLOUT
        else:
            bundle = MIX
        shipped = self.model is None
        return replace(self, **{k: bundle[k] if getattr(self, k) is None else getattr(self, k) for k in bundle},
                       root_halving=players == 4 if self.root_halving is None else self.root_halving,
                       playouts=DEFAULT_PLAYOUTS.get(players, 0) if self.playouts is None else self.playouts,
                       model=str(SHIPPED_MODEL_FILES[players]) if shipped and players in SHIPPED_MODEL_FILES
                       else self.model,
                       forecast_model=str(SHIPPED_FORECAST_FILES[players])
                       if shipped and self.forecast_model is None and players in SHIPPED_FORECAST_FILES
                       else self.forecast_model)

    def params(self) -> dict:
        """The settings the compiled search reads (validated by search.make_params), of settings for_players
        has made whole."""
        return make_params(**{k: v for k, v in asdict(self).items()
                              if k not in ("threads", "reuse_tree", "root_halving", "model", "forecast_model",
                                           "choose", "policy", "calibration", "playouts", "playout_weight")})

    def calibration_key(self) -> dict:
        """What a forecast calibration is fitted for, of settings for_players has made whole: every setting that
        changes the search's forecasts (threads, tree reuse, the node cap, the choice rule and the calibration
        itself aside), with the value model and the turn policy named by their files' contents (None where the
        search does not read them), so that a new model or policy file never takes an old table."""
        key = {k: v for k, v in asdict(self).items()
               if k not in ("threads", "reuse_tree", "max_nodes", "choose", "calibration")}
        key["model"] = None if self.leaf == "rollout" else _fingerprint(self.model, SHIPPED_MODEL, "model")
        key["forecast_model"] = key["model"] if self.leaf == "rollout" or self.forecast_model is None else \
            _fingerprint(self.forecast_model, SHIPPED_MODEL, "forecast_model")
        key["policy"] = (_fingerprint(self.policy, SHIPPED_POLICY, "policy")
                         if self.turn_policy == "learned" or self.playouts else None)
        if not self.playouts:
            key["playout_weight"] = None                # no playouts: their weight changes nothing
        return key

    def learned_turn_policy(self) -> TurnPolicy | None:
        """The learned turn policy the search plays a leaf's turn with (None unless turn_policy="learned")."""
        return self._policy_file() if self.turn_policy == "learned" else None

    def playout_policy(self) -> TurnPolicy | None:
        """The learned turn policy that plays the playouts of the numbers shown (None without playouts)."""
        return self._policy_file() if self.playouts else None

    def _policy_file(self) -> TurnPolicy:
        if self.policy is None:
            return _shipped_turn_policy()
        if not isinstance(self.policy, str):
            raise BarcelonaError(f"search setting policy must be a file path or None, not {self.policy!r}")
        return TurnPolicy.load(self.policy)

    def value_model(self) -> ValueModel | None:
        """The value network the search evaluates leaves with (None for leaf="rollout")."""
        if self.leaf == "rollout":
            return None
        return _model_file(self.model, "model")

    def forecast_value_model(self) -> ValueModel | None:
        """The value network whose forecasts the search reports (value_model()'s where forecast_model is None)."""
        if self.leaf == "rollout" or self.forecast_model is None:
            return self.value_model()
        return _model_file(self.forecast_model, "forecast_model")


def _model_file(path: str | None, setting: str) -> ValueModel:
    """The value model a search setting names (None: SHIPPED_MODEL); the package's files are loaded once."""
    if path is None:
        return _shipped_model(str(SHIPPED_MODEL))
    if not isinstance(path, str):
        raise BarcelonaError(f"search setting {setting} must be a file path or None, not {path!r}")
    return _shipped_model(path) if path in _SHIPPED_MODEL_PATHS else ValueModel.load(path)


SHIPPED_MODEL_FILES = {2: SHIPPED_MODEL.with_name("value-model-2p.json")}
"""The player counts whose default engine (model None) maximises the values of a model of its own: in 2 players the
network refitted on the 2-player default's self-play; 3 and 4 players read SHIPPED_MODEL (a 4-player refit forecast
4-player games better, but the default played no better with it: docs/learned-evaluation.md, README What was
measured)."""
SHIPPED_FORECAST_FILES = {4: SHIPPED_MODEL.with_name("value-model-4p.json")}
"""The player counts whose default engine shows the forecasts of another model than the one whose values it
maximises: in 4 players the network fitted to the 4-player default's own games (the numbers shown are about how its
games end), while its moves keep SHIPPED_MODEL's values (docs/learned-evaluation.md, "The 4-player forecasts")."""
_SHIPPED_MODEL_PATHS = {str(path) for path in (SHIPPED_MODEL, *SHIPPED_MODEL_FILES.values(),
                                               *SHIPPED_FORECAST_FILES.values())}   # loaded once
_SHIPPED: dict = {}                  # file path -> the shipped ValueModel loaded from it
_SHIPPED_POLICY: list = []
_SHIPPED_CALIBRATION: list = []
_FINGERPRINTS: dict = {}             # (real path, mtime, size) -> the file's fingerprint (_fingerprint)


def shipped_model_file(players: int) -> Path:
    """The value model file whose values the default engine maximises in `players`-player games."""
    return SHIPPED_MODEL_FILES.get(players, SHIPPED_MODEL)


def shipped_forecast_file(players: int) -> Path:
    """The value model file whose forecasts the default engine shows in `players`-player games."""
    return SHIPPED_FORECAST_FILES.get(players, shipped_model_file(players))


def _fingerprint(path: str | None, shipped: Path, setting: str) -> str:
    """Which JSON file a search setting names, by its contents: "sha256:" and the first 16 hex digits of the
    SHA-256 of the document written compactly with sorted keys (so neither layout nor line endings count;
    `shipped` where the setting is None). Errors name the setting."""
    if path is None:
        path = shipped
    elif not isinstance(path, str):
        raise BarcelonaError(f"search setting {setting} must be a file path or None, not {path!r}")
    try:
        stat = os.stat(path)
        seen = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
    except OSError:
        seen = None                                   # load_json_file says why
    if seen in _FINGERPRINTS:
        return _FINGERPRINTS[seen]
    try:
        doc = load_json_file(path, f"search setting {setting}")
    except BarcelonaError as exc:
        raise BarcelonaError(f"{path}: {exc}") from None
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    fingerprint = "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]
    if seen is not None:
        _FINGERPRINTS[seen] = fingerprint
    return fingerprint


def _calibration_tables(settings: SearchSettings) -> dict[int, CalibrationTable | None]:
    """Per player count, the forecast calibration table of the numbers shown (None where the file has none for
    the settings the player count resolves to, or settings.calibration is "off")."""
    if settings.calibration == "off":
        return {n: None for n in PLAYER_COUNTS}
    if settings.calibration is None:
        if not _SHIPPED_CALIBRATION:
            _SHIPPED_CALIBRATION.append(ForecastCalibration.default())
        calibration = _SHIPPED_CALIBRATION[0]
    elif isinstance(settings.calibration, str):
        calibration = ForecastCalibration.load(settings.calibration)
    else:
        raise BarcelonaError(f'search setting calibration must be a file path, "off" or None, not '
                             f'{settings.calibration!r}')
    return {n: calibration.table(n, settings.for_players(n).calibration_key()) for n in PLAYER_COUNTS}


def _shipped_turn_policy() -> TurnPolicy:
    """The package's turn policy, loaded once per process."""
    if not _SHIPPED_POLICY:
        _SHIPPED_POLICY.append(TurnPolicy.load(SHIPPED_POLICY))     # the file calibration_key fingerprints
    return _SHIPPED_POLICY[0]


def _shipped_model(path: str) -> ValueModel:
    """One of the package's value models (SHIPPED_MODEL or SHIPPED_MODEL_FILES), loaded once per process."""
    if path not in _SHIPPED:
        _SHIPPED[path] = ValueModel.load(path)
    return _SHIPPED[path]


@dataclass
class MoveInfo:
    """One candidate at the root: an action, or a whole turn plan (hints)."""
    actions: list[int]
    moves: list[str]
    visits: int
    win_prob: list[float]            # per player
    expected_score: list[float]      # per player, final VP
    main_line: list[str] = field(default_factory=list)

    @property
    def action(self) -> int:
        return self.actions[0]

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class PlayerAnalysis:
    player: int
    win_prob: float
    expected_score: float
    score_stdev: float
    current_score: int
    breakdown: dict[str, float]      # expected final VP by source (see SOURCES)
    to_come: dict[str, float]        # expected VP still to come, by group

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Analysis:
    player: int                      # who is to move (the searching player)
    iterations: int
    actions_applied: int
    nodes: int
    bytes_per_node: int
    seed: int
    moves: list[MoveInfo]
    players: list[PlayerAnalysis]
    version: str = __version__

    @property
    def best(self) -> MoveInfo:
        return self.moves[0]

    def to_dict(self) -> dict:
        return asdict(self)


def _check_playout_settings(settings: SearchSettings) -> None:
    n, w = settings.playouts, settings.playout_weight
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_PLAYOUTS):
        raise BarcelonaError(f"search setting playouts must be None or an integer from 0 to {MAX_PLAYOUTS:,}, "
                             f"not {n!r}")
    if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
        raise BarcelonaError(f"search setting playout_weight must be a number from 0 to 1, not {w!r}")


def _mix_seed(a: int, b: int) -> int:
    x = (a * 0x9E3779B97F4A7C15 + b + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    x = (x * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 29)


class _Merged:
    """Root-parallel trees seen as one: children of the root merged by action."""

    def __init__(self, trees: list[Tree]):
        self.trees = trees

    def root_children(self) -> dict[int, dict]:
        out: dict[int, dict] = {}
        for t in self.trees:
            for c in t.children(0):
                nd = t.node(c)
                m = out.setdefault(nd["key"], {"visits": 0, "value": None, "win": None, "score": None,
                                               "refs": []})
                m["visits"] += nd["visits"]
                for k in ("value", "win", "score"):
                    m[k] = nd[k] if m[k] is None else [x + y for x, y in zip(m[k], nd[k])]
                m["refs"].append((t, c))
        return out


class _LastSearch(NamedTuple):
    """An engine's last search, kept for tree reuse (SearchSettings.reuse_tree)."""
    player: int
    history: tuple
    state: State                    # its root position
    trees: list
    forecasts: bool                 # every iteration of the trees evaluated the numbers shown (Tree.forecasts)


class _Search:
    """One call's search: the trees (root-parallel), whose player and seed, and the budget left.

    The trees run in worker threads while the calling thread waits in short joins, so that Ctrl-C reaches it at
    once: it then asks every tree to stop (they return within one iteration) and raises SearchInterrupted.
    run() can be called repeatedly with a slice of time: an iteration budget gives the same trees however it
    is sliced (analysis streams)."""

    def __init__(self, state: State, player: int, call_seed: int, trees: list[Tree], limit: Limit,
                 halving: bool, choose: str = "visits"):
        self.state = state
        self.player = player
        self.call_seed = call_seed
        self.trees = trees
        self.halving = halving
        self.choose = choose                        # SearchSettings.choose
        n = len(trees)
        its = limit.iterations or 0
        self.left = [its // n + (1 if i < its % n else 0) for i in range(n)] if its else None
        self.deadline = time.monotonic() + limit.time if limit.time else None
        self.stopped = False
        self.forecast_model: ValueModel | None = None   # the network whose forecasts are shown (their error)
        self.calibration: CalibrationTable | None = None    # of the numbers shown, if one fits the settings
        self.playouts = 0                           # SearchSettings.playouts, playout_weight and their policy
        self.playout_weight = 0.0
        self.playout_policy: TurnPolicy | None = None
        self._playout_wins: dict[int, list[float]] = {}     # root action -> its playouts' mean win shares
        self._start_iterations = self._root_iterations()   # a reused tree has run some already
        self.counted = 0                            # iterations already added to the engine's count

    def _root_iterations(self) -> int:
        return sum(t.root_stats()["iterations"] for t in self.trees)

    def shown(self, win: list[float], expected: list[float]) -> tuple[list[float], list[float]]:
        """The numbers a person reads of the search's forecasts (win probabilities, expected final scores):
        calibrated where a calibration fits the settings."""
        if self.calibration is None:
            return win, expected
        return self.calibration.apply(self.state.round_number, self.state.scores(), win, expected)

    def blended(self, key: int, win: list[float]) -> list[float]:
        """The win probabilities shown of root action `key`: the search's forecasts `win`, blended with the mean
        win shares of the settings' playouts after the action (SearchSettings.playouts; as they are without).
        The playouts start from the real position after the searcher's own action but each from a
        determinization of what the searcher sees, with a seed of this call's and the action's, so they depend
        on nothing the searcher cannot see (A6); they are played once per action and call."""
        if not self.playouts:
            return win
        if key not in self._playout_wins:
            after = self.state.clone()
            after.apply(key)
            self._playout_wins[key] = policy_playouts(self.playout_policy, after, self.player, self.playouts,
                                                      PLAYOUT_TEMPERATURE, _mix_seed(self.call_seed, key))[0]
        lam = self.playout_weight
        return [(1.0 - lam) * w + lam * p for w, p in zip(win, self._playout_wins[key])]

    def reserve_playout_time(self, moves: int) -> None:
        """Take the time of the playouts of `moves` moves shown out of a time limit, so that the call, playouts
        included, keeps to it: their cost is timed on PLAYOUT_TRIAL games from the position (each move's are
        played after the search), and at most half of the limit is given to them. Nothing changes without a
        time limit or playouts."""
        if self.deadline is None or not self.playouts or moves <= 0:
            return
        start = time.monotonic()
        policy_playouts(self.playout_policy, self.state, self.player, PLAYOUT_TRIAL, PLAYOUT_TEMPERATURE,
                        self.call_seed)
        now = time.monotonic()
        each = (now - start) / PLAYOUT_TRIAL
        self.deadline -= min(each * self.playouts * moves, (self.deadline - now) / 2)

    def iterations(self) -> int:
        """Iterations this call has run so far."""
        return self._root_iterations() - self._start_iterations

    def done(self) -> bool:
        if self.stopped:
            return True
        if self.left is not None and not any(self.left):
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def stop(self) -> None:
        """Ask the running trees to return (thread-safe: a web request or a signal handler may call it)."""
        self.stopped = True
        for t in self.trees:
            t.request_stop()

    def run(self, slice_seconds: float | None = None) -> None:
        """Search until the budget is spent, stop() is called, or `slice_seconds` pass (then run() again)."""
        if self.done():
            return
        secs = 0.0
        if self.deadline is not None:
            secs = max(self.deadline - time.monotonic(), 1e-6)
        if slice_seconds is not None:
            secs = min(secs, slice_seconds) if secs else slice_seconds
        budgets = self.left if self.left is not None else [0] * len(self.trees)     # 0: until the time is up
        jobs = [(i, t, k) for i, (t, k) in enumerate(zip(self.trees, budgets)) if k or self.left is None]
        done = [0] * len(self.trees)
        errors: list[BaseException] = []

        def work(i: int, tree: Tree, k: int) -> None:
            try:
                done[i] = tree.run(k, secs, self.halving)
            except BaseException as exc:           # re-raised in the calling thread
                errors.append(exc)

        workers = [threading.Thread(target=work, args=job, daemon=True) for job in jobs]
        for w in workers:
            w.start()
        try:
            for w in workers:
                while w.is_alive():
                    w.join(0.05)
        except KeyboardInterrupt:
            self.stop()
            for w in workers:
                w.join()
            raise SearchInterrupted() from None
        finally:
            if self.left is not None:
                self.left = [max(0, k - d) for k, d in zip(self.left, done)]
        if errors:
            raise errors[0]

    def merged(self) -> "_Merged":
        return _Merged(self.trees)


class Engine:
    """ISMCTS engine. ``Engine(seed=1, threads=2, reward="win")``; the settings are SearchSettings fields.

    Every answer for player p is computed from p's observation only (A6): the search determinizes from it, the
    call's seed is drawn from it, and moves and main lines are written on a determinization of it, with other
    players' placements written without the citizens p cannot see. Ctrl-C during a call stops the search within
    a fraction of a second and raises SearchInterrupted (a KeyboardInterrupt) carrying the answer so far."""

    def __init__(self, seed: int = 0, settings: SearchSettings | None = None, **overrides):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise BarcelonaError(f"seed must be a non-negative integer, not {seed!r}")
        if settings is not None and not isinstance(settings, SearchSettings):
            raise BarcelonaError(f"settings must be a SearchSettings, not {type(settings).__name__}")
        unknown = sorted(set(overrides) - set(SearchSettings.__dataclass_fields__))
        if unknown:
            raise BarcelonaError(f"unknown search setting {unknown[0]!r}")
        self.seed = seed
        self.settings = SearchSettings(**{**asdict(settings or SearchSettings()), **overrides})
        if isinstance(self.settings.threads, bool) or not isinstance(self.settings.threads, int) or \
                not 1 <= self.settings.threads <= 64:
            raise BarcelonaError(f"search setting threads must be 1..64, not {self.settings.threads!r}")
        if self.settings.choose not in CHOICE_RULES:
            raise BarcelonaError(f"search setting choose must be one of {', '.join(CHOICE_RULES)}, not "
                                 f"{self.settings.choose!r}")
        _check_playout_settings(self.settings)
        if self.settings.root_halving not in (None, True, False):
            raise BarcelonaError(f"search setting root_halving must be true, false or None, not "
                                 f"{self.settings.root_halving!r}")
        resolved = {n: self.settings.for_players(n) for n in PLAYER_COUNTS}
        self._params = {n: r.params() for n, r in resolved.items()}
        self._model = {n: r.value_model() for n, r in resolved.items()}
        self._forecast_model = {n: r.forecast_value_model() for n, r in resolved.items()}
        self._turn_policy = {n: r.learned_turn_policy() for n, r in resolved.items()}
        self._playouts = {n: (r.playouts, r.playout_weight, r.playout_policy()) for n, r in resolved.items()}
        self._calibration = _calibration_tables(self.settings)
        if self.settings.threads * self.settings.max_nodes > MAX_TOTAL_NODES:
            raise BarcelonaError(f"search settings threads x max_nodes ({self.settings.threads} x "
                                 f"{self.settings.max_nodes}) exceed {MAX_TOTAL_NODES:,} nodes "
                                 f"({MAX_TOTAL_NODES * Tree.node_bytes() / 2**30:.1f} GiB)")
        self._last: _LastSearch | None = None  # the last search, whose trees a continuation may reuse
        self._running: _Search | None = None
        self._iterations_done = 0               # iterations of the searches run so far (the running one's not)
        self._count_lock = threading.Lock()

    @property
    def iterations_searched(self) -> int:
        """Iterations this engine's calls have run so far, the running call's included: read it from any
        thread to show progress (progress.SearchProgress); nothing is decided by it."""
        with self._count_lock:
            running = self._running
            return self._iterations_done + (running.iterations() - running.counted if running else 0)

    def _run(self, search: _Search, slice_seconds: float | None = None) -> None:
        """search.run(slice_seconds), visible meanwhile to stop() and iterations_searched."""
        self._running = search
        try:
            search.run(slice_seconds)
        finally:
            with self._count_lock:
                self._running = None
                now = search.iterations()
                self._iterations_done += now - search.counted
                search.counted = now

    def stop(self) -> None:
        """Stop the search running now (from another thread): the call returns the answer of the work done."""
        running = self._running
        if running is not None:
            running.stop()

    # -- running the search -------------------------------------------------------------------------------
    def _check(self, state: State, viewpoint: int | None) -> int:
        if not isinstance(state, State):
            raise SearchError(f"expected a barcelona_ai State, not {type(state).__name__}")
        if state.is_terminal():
            raise SearchError("the game is over: there is no move to search")
        if state.is_chance_node():
            raise SearchError("a chance node (a draw or a reveal) is next: apply its outcome, nobody decides")
        player = state.current_player()
        if viewpoint is not None:
            if isinstance(viewpoint, bool) or not isinstance(viewpoint, int) or \
                    not 0 <= viewpoint < state.num_players:
                raise PlayerCountError(f"no seat {viewpoint!r} in a {state.num_players}-player game")
            if viewpoint != player:
                raise SearchError(f"player {viewpoint} is not to move (player {player} is): the engine searches "
                                  "for the player who decides")
        return player

    def _check_model(self, players: int) -> None:
        """BarcelonaError where a value model the search would read was not fitted on `players`-player games
        (a model file's "players"): its forecasts there would be uncalibrated."""
        resolved = self.settings.for_players(players)
        value, forecast = self._model[players], self._forecast_model[players]
        for setting, model in (("model", value), ("forecast_model", None if forecast is value else forecast)):
            if model is not None:
                path = getattr(resolved, setting) or resolved.model or SHIPPED_MODEL
                model.require_players(players, f"search setting {setting} {show_path(path)}")

    def _halving(self, state: State) -> bool:
        """Whether choosing a move spreads the root budget by sequential halving (see SearchSettings)."""
        return bool(self.settings.for_players(state.num_players).root_halving)

    def _start(self, state: State, limit: Limit, viewpoint: int | None, choosing: bool = True,
               forecasts: bool = True, shown: int = 0) -> _Search:
        """A search for the player to move. best_move, hints and analyse search alike (`choosing`: sequential
        halving where the settings ask for it), so they name the same move with the same numbers; an analysis
        stream, which runs in slices, searches with UCB1 (choosing=False). forecasts=False: the caller wants
        the move only, and the trees skip the evaluations that serve only the numbers shown (Tree.forecasts):
        the same move, sooner. `shown`: the moves whose numbers the call shows (their playouts' time is taken out
        of a time limit)."""
        if not isinstance(limit, Limit):
            raise BarcelonaError(f"expected a Limit, not {limit!r}")
        player = self._check(state, viewpoint)
        self._check_model(state.num_players)
        halving = choosing and self._halving(state)
        call_seed = _mix_seed(self.seed, state.observation_hash(player))
        trees = self._reused_trees(state, player, forecasts) if self.settings.reuse_tree else None
        if trees is None:
            n = state.num_players
            trees = [Tree(state, player, self._params[n], _mix_seed(call_seed, i), self._model[n],
                          self._turn_policy[n], self._forecast_model[n]) for i in range(self.settings.threads)]
        if self.settings.reuse_tree:
            self._last = _LastSearch(player, tuple(state.history()), state.clone(), trees, forecasts)
        for t in trees:
            t.forecasts = forecasts
            t.clear_stop()                      # a reused tree may carry the stop of an interrupted call
        search = _Search(state, player, call_seed, trees, limit, halving, self.settings.choose)
        search.forecast_model = self._forecast_model[state.num_players]
        search.calibration = self._calibration[state.num_players]
        search.playouts, search.playout_weight, search.playout_policy = self._playouts[state.num_players]
        search.reserve_playout_time(min(shown, len(state.legal_actions())))
        return search

    def _finish(self, search: _Search, answer):
        """Run `search` to its end and return answer(search); on Ctrl-C, SearchInterrupted with the answer so
        far (None if there is none yet)."""
        try:
            self._run(search)
        except SearchInterrupted:
            raise SearchInterrupted(_answer_or_none(answer, search)) from None
        return answer(search)

    def _reused_trees(self, state: State, player: int, forecasts: bool) -> list[Tree] | None:
        """The last search's trees re-rooted at `state`, if `state` continues that search's root position (and,
        for a call that shows numbers, every iteration of those trees evaluated them: forecasts). Draws of
        other players map to the one hidden edge: the searcher does not see them (A6)."""
        if self._last is None or self._last.player != player or (forecasts and not self._last.forecasts):
            return None
        old_hist, trees = self._last.history, self._last.trees
        hist = state.history()
        if len(hist) <= len(old_hist) or tuple(hist[:len(old_hist)]) != old_hist:
            return None
        replay = self._last.state.clone()
        keys = []
        for a in hist[len(old_hist):]:
            keys.append(HIDDEN_DRAW if replay.is_hidden_draw(player) else a)
            replay.apply(a)
        if not all(t.reroot(state, keys) for t in trees):
            return None
        return trees

    # -- the calls ----------------------------------------------------------------------------------------
    def best_move(self, state: State, limit: Limit, viewpoint: int | None = None) -> int:
        """The action id to play: the sequential-halving survivor (the one with most visits among the threads'
        survivors), else the most visited root action; ties go to the lower id (_root_order). With
        choose="visits" (the default) no move depends on the numbers shown, and the search skips what serves
        only them (Tree.forecasts): the move hints and analyse name at the same seed and budget, sooner."""
        search = self._start(state, limit, viewpoint, forecasts=self.settings.choose != "visits")
        return self._finish(search, _best_action)

    def hints(self, state: State, limit: Limit, top: int = 3, viewpoint: int | None = None) -> list[MoveInfo]:
        """The `top` best first moves, each as a turn plan: this player's decisions until another player or
        chance is next (_hints)."""
        _check_top(top)
        search = self._start(state, limit, viewpoint, shown=top)
        return self._finish(search, lambda sr: _hints(sr, top))

    def analyse(self, state: State, limit: Limit, top: int = 5, viewpoint: int | None = None) -> Analysis:
        """Who is ahead and by how much: per player win probability, expected final score and its spread,
        the expected score by source, and the best moves with their main lines."""
        _check_top(top)
        search = self._start(state, limit, viewpoint, shown=top)
        return self._finish(search, lambda sr: _analysis(sr, top))

    def analysis(self, state: State, limit: Limit, top: int = 5, viewpoint: int | None = None,
                 interval: float = 0.5) -> "AnalysisStream":
        """A streaming analyse(): an iterator of interim Analysis reports, one every `interval` seconds of
        search, the last one at the end of the budget (with an iteration limit it equals analyse()'s answer, except
        where analyse spreads the root budget by sequential halving, which a stream in slices cannot: 4 players
        by default).
        Stop it at any moment: leave the loop, or call stop() (from any thread) to end with a final report.
        Like python-chess's ``engine.analysis()`` and KataGo's ``reportDuringSearchEvery``."""
        _check_top(top)
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0.01 <= interval <= 3600:
            raise BarcelonaError(f"interval must be 0.01 to 3600 seconds, not {interval!r}")
        return AnalysisStream(self, self._start(state, limit, viewpoint, choosing=False, shown=top), top,
                              float(interval))


class AnalysisStream:
    """Interim analysis reports of one running search (Engine.analysis). Iterate over it; ``stop()`` ends it
    (the next report is the last); ``latest`` is the last report given. Also a context manager."""

    def __init__(self, engine: Engine, search: _Search, top: int, interval: float):
        self._engine = engine
        self._search = search
        self._top = top
        self._interval = interval
        self.latest: Analysis | None = None

    def __iter__(self):
        return self

    def __next__(self) -> Analysis:
        sr = self._search
        if sr.done() and self.latest is not None:
            raise StopIteration
        try:
            self._engine._run(sr, self._interval)
        except SearchInterrupted:
            raise SearchInterrupted(_answer_or_none(lambda x: _analysis(x, self._top), sr)) from None
        self.latest = _analysis(sr, self._top)
        return self.latest

    def stop(self) -> None:
        self._search.stop()

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# ---------------------------------------------------------------------------------------------------------------
# answers from the trees

def _check_top(top) -> None:
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= 1000:
        raise BarcelonaError(f"top must be an integer from 1 to 1000, not {top!r}")


def _answer_or_none(answer, search: _Search):
    """The answer from the trees as they are (after an interruption); None when no iteration has run yet."""
    if not any(t.root_stats()["iterations"] for t in search.trees):
        return None
    return answer(search)


def _view(search: _Search) -> State:
    """The state answers are written on: a determinization of the searching player's observation, with a seed
    drawn from that observation, so that nothing written depends on what the player cannot see (A6)."""
    return search.state.determinize(search.player, search.call_seed)


def _best_action(search: _Search) -> int:
    order = _root_order(search)
    return order[0] if order else search.state.legal_actions()[0]


def _move_info(search: _Search, view: State, keys: list[int], stats: dict, main: list[str]) -> MoveInfo:
    win, expected = _shown_stats(search, keys[0], stats)
    return MoveInfo(actions=list(keys), moves=_notation(view, keys), visits=stats["visits"], win_prob=win,
                    expected_score=expected, main_line=main)


def _shown_stats(search: _Search, key: int, stats: dict) -> tuple[list[float], list[float]]:
    """Root action `key`'s numbers (win probabilities, expected final scores) as shown: the mean forecasts of
    its statistics `stats`, blended with its playouts (_Search.blended), calibrated (_Search.shown)."""
    v = max(stats["visits"], 1)
    return search.shown(search.blended(key, [x / v for x in stats["win"]]), [x / v for x in stats["score"]])


# A hint after the first is shown only when its numbers rest on this share of the search's iterations (and on at
# least HINT_MIN_VISITS visits): rarer plans are the search's exploration, not its opinion.
HINT_MIN_SHARE = 0.01
HINT_MIN_VISITS = 10
CHOICE_RULES = ("visits", "win", "forecast")
# choose="win": the actions whose visits are at least this share of the most visited one's are the search's close
# candidates; the one with the highest win probability among them is chosen (the search's visits follow its
# reward, which mixes win and margin; between close candidates they also follow the seed). A setting the arena
# rejected (README, What was measured), kept for the stable-hints row it reproduces.
CLOSE_SHARE = 0.5


def _visits_floor(kids: dict) -> float:
    """The visits a root action's numbers must rest on to be shown after the first hint (or chosen by
    choose="forecast")."""
    return max(HINT_MIN_VISITS, HINT_MIN_SHARE * sum(st["visits"] for st in kids.values()))


def _hints(search: _Search, top: int) -> list[MoveInfo]:
    """The `top` best first moves in the engine's order (the first is best_move's move), each with its main
    plan (_main_plan) and its statistics over every thread: analyse's numbers for that move, the first hint's
    being the root value (_root_value). The visits rule: a move after the first is listed only when its
    numbers rest on enough visits (_visits_floor)."""
    merged, player, view = search.merged(), search.player, _view(search)
    kids = merged.root_children()
    floor = _visits_floor(kids)
    shown: list[MoveInfo] = []
    for key in _root_order(search):
        st = kids[key]
        if shown and st["visits"] < floor:
            continue
        tree, node = _busiest_ref(st)
        keys, end = _main_plan(tree, node, player, [key], search.choose, floor)
        shown.append(_move_info(search, view, keys, st, _main_line(view, player, keys, tree, end)))
        if len(shown) == top:
            break
    return shown


def _busiest_ref(st: dict) -> tuple[Tree, int]:
    """(tree, node) of a merged root child's copy with the most visits: the thread whose subtree shows its plan."""
    return max(st["refs"], key=lambda r: r[0].node(r[1])["visits"])


def _candidates(search: _Search, view: State, top: int) -> list[MoveInfo]:
    merged = search.merged()
    kids = merged.root_children()
    out = []
    for key in _root_order(search)[:top]:
        st = kids[key]
        tree, node = _busiest_ref(st)
        out.append(_move_info(search, view, [key], st, _main_line(view, search.player, [key], tree, node)))
    return out


def _root_sums(trees: list[Tree], k: int) -> tuple[int, list[float], list[float], list[list[float]]]:
    """Over every tree's root statistics: iterations, and per player the sums of scores, of squared scores and
    of VP by source at the end of the iterations."""
    its, score_sum, score_sq = 0, [0.0] * k, [0.0] * k
    src_sum = [[0.0] * len(SOURCES) for _ in range(k)]
    for t in trees:
        rs = t.root_stats()
        its += rs["iterations"]
        for q in range(k):
            score_sum[q] += rs["score_sum"][q]
            score_sq[q] += rs["score_sq"][q]
            for j in range(len(SOURCES)):
                src_sum[q][j] += rs["src_sum"][q][j]
    return its, score_sum, score_sq, src_sum


def _root_value(search: _Search) -> tuple[list[float], list[float]]:
    """The position's value with best play (KataGo's rootInfo): every player's win probability and expected
    final score at the engine's best move (the first in _root_order), so that analyse, hints and best_move
    agree; as shown (_Search.shown)."""
    best = _root_order(search)[0]
    return _shown_stats(search, best, search.merged().root_children()[best])


def _split_by_source(now: dict, played: dict, current: float, expected: float) -> dict:
    """Expected final VP by source: VP now, plus the VP still to come (expected - current) split in the
    proportions the search's playouts scored them (exact for the v0 engine, whose expected score is theirs)."""
    come = {src: played[src] - now[src] for src in SOURCES}
    total = sum(come.values())
    if total > 0.5:
        return {src: now[src] + come[src] * (expected - current) / total for src in SOURCES}
    out = dict(now)                                  # nothing scored in the playouts (the end is reached)
    top = max(SOURCES, key=lambda src: now[src])
    out[top] += expected - current
    return out


def _to_come(exp_src: dict, now: dict) -> dict:
    finals = ("final_cobblestones", "final_passengers", "final_modernisme")
    return {"cobblestones": exp_src["final_cobblestones"], "passengers": exp_src["final_passengers"],
            "modernisme_tiles": exp_src["final_modernisme"],
            "cerda_scorings": exp_src["cerda_scoring"] - now["cerda_scoring"],
            "other_play": sum(exp_src[s] - now[s] for s in SOURCES if s not in finals + ("cerda_scoring",))}


def _analysis(search: _Search, top: int) -> Analysis:
    state, trees = search.state, search.trees
    k = state.num_players
    its, score_sum, score_sq, src_sum = _root_sums(trees, k)
    acts = sum(t.root_stats()["actions"] for t in trees)
    now, scores = state.score_breakdown(), state.scores()
    win, expected = _root_value(search)
    n = max(its, 1)
    players = []
    for q in range(k):
        mean = score_sum[q] / n
        var = max(0.0, score_sq[q] / n - mean * mean)
        if search.forecast_model is not None:        # forecasts at the leaves: add the forecast's own error
            var += search.forecast_model.score_error(state, q) ** 2
        played = {SOURCES[j]: src_sum[q][j] / n for j in range(len(SOURCES))}
        exp_src = _split_by_source(now[q], played, scores[q], expected[q])
        players.append(PlayerAnalysis(player=q, win_prob=win[q], expected_score=expected[q],
                                      score_stdev=math.sqrt(var), current_score=scores[q],
                                      breakdown=exp_src, to_come=_to_come(exp_src, now[q])))
    nodes = sum(t.num_nodes for t in trees)
    return Analysis(player=search.player, iterations=its, actions_applied=acts, nodes=nodes,
                    bytes_per_node=Tree.node_bytes(), seed=search.call_seed,
                    moves=_candidates(search, _view(search), top), players=players)


# ---------------------------------------------------------------------------------------------------------------
# tree walking helpers

def _root_order(search: _Search) -> list[int]:
    """Root actions in the engine's order of preference. choose="visits": the sequential-halving survivors first
    (if it ran), then by visits. choose="forecast": the actions whose numbers pass the hints' visits rule
    (_visits_floor) by their reported win probability for the searching player (then expected score), then the
    others by visits. choose="win": the visits order with _best_close's action first. Ties go to the lower id."""
    merged = search.merged()
    kids = merged.root_children()
    if search.choose == "forecast":
        floor = _visits_floor(kids)
        return sorted(kids, key=lambda k: _preference({**kids[k], "key": k}, search.player, "forecast", floor),
                      reverse=True)
    survivors = {t.survivor for t in merged.trees} - {None}
    order = sorted(kids, key=lambda k: (k not in survivors, -kids[k]["visits"], k))
    if search.choose == "win":
        best = _best_close(kids, search.player)
        order.remove(best)
        order.insert(0, best)
    return order


def _close_floor(visits) -> float:
    """choose="win": the visits an action needs to be one of the search's close candidates (CLOSE_SHARE of the
    most visited one's, at least 1)."""
    return max(1.0, CLOSE_SHARE * max(visits))


def _best_close(kids: dict, player: int) -> int:
    """choose="win": of {key: statistics} at one of `player`'s decisions, the close candidate (_close_floor) with
    the highest win probability for `player`, ranked as choose="forecast" ranks (_preference: then expected
    score, visits, the lower id); with nothing visited, the lowest id."""
    floor = _close_floor(st["visits"] for st in kids.values())
    return max(kids, key=lambda k: _preference({**kids[k], "key": k}, player, "forecast", floor))


def _notation(state: State, keys: list[int]) -> list[str]:
    s = state.clone()
    out = []
    for a in keys:
        if a == HIDDEN_DRAW or a not in s.legal_actions():
            out.append("draw (hidden)" if a == HIDDEN_DRAW else f"#{a}")
            break
        out.append(s.action_to_string(a))
        s.apply(a)
    return out


def _main_plan(tree: Tree, node: int, player: int, keys: list[int], choose: str, floor: float):
    """A first move's turn plan: the player's own decisions below `node` until someone else or chance decides,
    each the one the engine prefers there (choose="visits": the most visited; "forecast": the highest win
    probability among those visited at least `floor` times, else the most visited; "win": the same among the
    close candidates, _close_floor, as _best_close). Returns (keys, end node)."""
    rule = "forecast" if choose == "win" else choose            # "win": the forecast's ranking, close candidates
    while tree.node(node)["to_move"] == player:
        kids = {c: nd for c in tree.children(node) if (nd := tree.node(c))["visits"] > 0}
        if not kids:
            break
        at_least = _close_floor(nd["visits"] for nd in kids.values()) if choose == "win" else floor
        node = max(kids, key=lambda c: _preference(kids[c], player, rule, at_least))
        keys = keys + [kids[node]["key"]]
    return keys, node


def _preference(nd: dict, player: int, choose: str, floor: float) -> tuple:
    """Sort key of a child at one of the player's own decisions (larger is preferred; ties: lower id)."""
    v = nd["visits"]
    if choose == "forecast" and v >= floor:
        return (1, nd["win"][player] / v, nd["score"][player] / v, v, -nd["key"])
    return (0, 0.0, 0.0, v, -nd["key"])


def _main_line(view: State, player: int, keys: list[int], tree: Tree, node: int, length: int = 12) -> list[str]:
    """The most visited continuation after `keys` (stops at hidden draws or after `length` steps), written on
    `view` (see _view). Another player's placement is written with its top citizen only ("place (2,3) W on
    top"): the tree chose that class over many determinizations, the one beneath is unknown to `player`."""
    line_keys = list(keys)
    while len(line_keys) < len(keys) + length:
        kids = tree.children(node)
        if not kids:
            break
        node = max(kids, key=lambda c: _preference(tree.node(c), player, "visits", 0.0))
        if tree.node(node)["visits"] == 0:
            break
        line_keys.append(tree.node(node)["key"])
    s = view.clone()
    out = []
    for i, a in enumerate(line_keys):
        if a == HIDDEN_DRAW:
            out.append(f"P{s.draws_for()} draws (hidden)")
            break
        mover = s.current_player()
        others_placement = mover >= 0 and mover != player and a < CONSTANTS["A_INT_PICK"]
        if others_placement:
            try:
                s._hold(mover, [a % 3])             # the view's sample may lack the class the tree chose
            except BarcelonaError:
                break                               # no such citizen unseen: the line ends here
        if a not in s.legal_actions():
            break
        who = "chance" if mover == CHANCE else f"P{mover}"
        if i >= len(keys):
            text = describe_action_id(a, s.game_data.edition) if others_placement else s.action_to_string(a)
            out.append(f"{who}: {text}")
        s.apply(a)
    return out
