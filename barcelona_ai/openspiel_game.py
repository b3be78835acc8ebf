"""Barcelona as an OpenSpiel game (optional extra ``[openspiel]``): importing this module registers
``python_barcelona``, so that ``pyspiel.load_game("python_barcelona", {"players": 3})`` works.

The game is sequential with explicit stochastic chance (the citizen draws and the scoring-condition reveals are
chance nodes, ``chance_outcomes`` from State.chance_outcomes) and imperfect information: each seat sees its own
hand, not the others' (A6). Game parameters: ``players`` (2..4, default 4), ``seed`` (the seed of
``new_game``: the board setup and the opening hands, which are dealt before the first action and are hidden like
any hand; default 0) and ``edition`` ("default"). Action ids are the core's (0..NUM_ACTIONS-1); returns are the
core's win shares (constant sum 1).

Strings, not tensors:

- ``information_state_string(p)`` is p's observation history, so it has perfect recall and shows nothing p
  cannot see: a digest of p's observation of the opening position (the public setup and p's own hand), then
  every action in notation with who took it, where another seat's citizen draw appears only as
  ``draw (hidden)`` (as in the engine's main lines and in a player's game record, record.py).
- ``observation_string(p)`` is p's observation of the current position only (State.observation as JSON).
- ``resample_from_infostate(p, sampler)`` is State.determinize(p, seed) with a seed drawn from ``sampler``: the
  other hands resampled from the unseen citizens. The resampled state keeps the action history strings, so p's
  information state is unchanged; another seat's opening hand and past draws are not known there (they appear as
  hidden to every seat but the viewer, the hands they now hold being the resampled ones), so OpenSpiel's ISMCTS
  bot needs ``allow_inconsistent_action_sets=True`` (another seat's legal placements depend on its hand).
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pyspiel

from .core import CONSTANTS, State, action_id, new_game

GAME_NAME = "python_barcelona"
NUM_ACTIONS = CONSTANTS["NUM_ACTIONS"]
CHANCE = CONSTANTS["CHANCE"]
MAX_GAME_LENGTH = 1000                     # random games end within 300 actions (4 players)
_DEFAULTS = {"players": 4, "seed": 0, "edition": "default"}
_RESAMPLED = -2                            # a draw's drawer in a resampled state: hidden from all but the viewer

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Barcelona (barcelona_ai)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification=dict(_DEFAULTS))


class BarcelonaGame(pyspiel.Game):
    """The OpenSpiel game: `params` as in the module docstring."""

    def __init__(self, params: dict | None = None):
        p = {**_DEFAULTS, **(params or {})}
        self.players, self.seed, self.edition = int(p["players"]), int(p["seed"]), str(p["edition"])
        new_game(players=self.players, seed=self.seed, edition=self.edition)   # checks the parameters
        info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_ACTIONS,
                                num_players=self.players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
                                max_game_length=MAX_GAME_LENGTH)
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self) -> "BarcelonaState":
        return BarcelonaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "BarcelonaObserver":
        if params:
            raise ValueError(f"observation parameters are not supported, not {params!r}")
        return BarcelonaObserver(iig_obs_type is None or iig_obs_type.perfect_recall)


def _digest(doc: Any) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


class BarcelonaState(pyspiel.State):
    """An OpenSpiel state around a core State (`core`); `log` holds (text, mover, drawer) per action taken."""

    def __init__(self, game: BarcelonaGame, core: State | None = None):
        super().__init__(game)
        self.core = core if core is not None else new_game(game.players, seed=game.seed, edition=game.edition)
        self.opening = [_digest(self.core.observation(p)) for p in range(self.core.num_players)]
        self.log: list[tuple[str, int, int | None]] = []

    def current_player(self) -> int:
        if self.core.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        p = self.core.current_player()
        return pyspiel.PlayerId.CHANCE if p == CHANCE else p

    def _legal_actions(self, player: int) -> list[int]:
        return self.core.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.core.chance_outcomes()

    def _apply_action(self, action: Any) -> None:
        a = action_id(action)
        mover = self.core.current_player()
        self.log.append((self.core.action_to_string(a), mover, self.core.draws_for()))
        self.core.apply(a)

    def _action_to_string(self, player: int, action: Any) -> str:
        return self.core.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.core.is_terminal()

    def returns(self) -> list[float]:
        return list(self.core.returns())

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "BarcelonaState":
        seed = int(probability_sampler() * 2**63) if callable(probability_sampler) else 0
        out = self.clone()                  # OpenSpiel's own history stays (serialization replays the real game)
        out.core = self.core.determinize(player_id, seed)
        out.log = [(t, m, d if d in (None, player_id) else _RESAMPLED) for t, m, d in self.log]
        out.opening = [o if q == player_id else "resampled" for q, o in enumerate(self.opening)]
        return out

    def information_string(self, player: int) -> str:
        """`player`'s observation history (see the module docstring)."""
        lines = [f"P{player} opening {self.opening[player]}"]
        for text, mover, drawer in self.log:
            if mover == CHANCE and drawer is not None and drawer != player:
                lines.append("chance: draw (hidden)")
            else:
                lines.append(f"{'chance' if mover == CHANCE else 'P%d' % mover}: {text}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return str(self.core)


class BarcelonaObserver:
    """The PyObserver for the game: strings only (`tensor` is empty)."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict = {}

    def set_from(self, state: BarcelonaState, player: int) -> None:
        pass

    def string_from(self, state: BarcelonaState, player: int) -> str:
        if self.perfect_recall:
            return state.information_string(player)
        return json.dumps(state.core.observation(player), sort_keys=True, separators=(",", ":"))


pyspiel.register_game(_GAME_TYPE, BarcelonaGame)
