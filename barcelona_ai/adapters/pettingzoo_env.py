"""Barcelona as a PettingZoo AEC environment (optional extra ``[pettingzoo]``): ``env(players=3)``.

Agents are ``player_0`` .. ``player_{n-1}`` (the seats); the one to act is ``agent_selection``. Chance (the
citizen draws, the scoring-condition reveals) is resolved inside ``step``, each outcome drawn with its
probability from the environment's generator, which ``reset(seed=...)`` seeds; the same seed also picks the
``new_game`` seed (board setup and opening hands), so a seed replays the same game for the same actions.

Actions are the core's action ids, ``Discrete(NUM_ACTIONS)``; ``action_mask`` marks the legal ones of the agent
to act (all zeros for the others). Observations are a dict ``{"observation": float32[OBS_SIZE], "action_mask":
int8[NUM_ACTIONS]}``; the observation vector is ``observation.observation_vector(state, seat)``, the encoding
shared with the OpenSpiel adapter (barcelona_ai/adapters/observation.py documents its blocks): the learned evaluation's
public features seen from the agent's seat (NF numbers), the agent's own hand by class (3), and 1.0 when it is the
agent's turn (1); OBS_SIZE numbers in all. It holds only what the agent may see.

Rewards are zero until the end, then each seat's return (its win share; ties split the win, the sum is 1). There
is no truncation. ``render()`` gives the text board (``str(state)``): returned for ``render_mode="ansi"``,
printed for ``"human"``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from ..core import CONSTANTS, action_id, new_game
from .observation import NF, OBS_SIZE, observation_vector

NUM_ACTIONS = CONSTANTS["NUM_ACTIONS"]
__all__ = ["BarcelonaEnv", "NF", "NUM_ACTIONS", "OBS_SIZE", "env"]


def env(**kwargs) -> "BarcelonaEnv":
    """The environment (PettingZoo's usual constructor name)."""
    return BarcelonaEnv(**kwargs)


class BarcelonaEnv(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "barcelona_v0", "is_parallelizable": False}

    def __init__(self, players: int = 4, render_mode: str | None = None, edition: str = "default"):
        super().__init__()
        new_game(players=players, edition=edition)                  # checks the arguments
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.players, self.edition, self.render_mode = players, edition, render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
        self._act_space = spaces.Discrete(NUM_ACTIONS)
        self.state = None
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self.state is None:
            self.np_random, _ = seeding.np_random(seed)
        game_seed = int(self.np_random.integers(2**63))
        self.state = new_game(players=self.players, seed=game_seed, edition=self.edition)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._resolve_chance()
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def _resolve_chance(self) -> None:
        s = self.state
        while s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes())
            s.apply(acts[int(self.np_random.choice(len(acts), p=np.asarray(probs) / sum(probs)))])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.state.apply(action_id(action))
        self._resolve_chance()
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_terminal():
            returns = self.state.returns()
            for i, a in enumerate(self.agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict:
        seat = self.possible_agents.index(agent)
        s = self.state
        obs = observation_vector(s, seat)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if obs[-1]:
            mask[s.legal_actions()] = 1
        return {"observation": obs, "action_mask": mask}

    def render(self) -> str | None:
        if self.state is None:
            return None
        text = str(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
