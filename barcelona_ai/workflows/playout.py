"""Playing a game out: bots decide, chance outcomes are drawn from a seeded random generator, until the game ends.

One loop for every caller that lets bots play (the demo, arena games, self-play records, the shipped mid-game
example): the random numbers are drawn in one order, so a seed gives one game wherever it is played out.
"""
from __future__ import annotations

import random
from typing import Callable, Sequence

from ..core import State


def chance_outcome(state: State, rng: random.Random) -> int:
    """A chance outcome of `state` (a chance node) drawn from `rng` with its probability."""
    acts, probs = zip(*state.chance_outcomes())
    return rng.choices(acts, probs)[0]


def play_out(state: State, bots: Sequence, chance: random.Random,
             on_step: Callable[[State, int], None] | None = None,
             stop: Callable[[State], bool] | None = None) -> int:
    """Play `state` on until the game ends: `bots[p].choose(state)` decides for player p, chance outcomes are
    drawn from `chance` (chance_outcome). `on_step(state, action)` is called before each action is applied (a
    game record notes it there); `stop(state)`, asked before each decision, ends the play early when true.
    Changes `state` in place; returns the number of decisions the bots made."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            a = chance_outcome(state, chance)
        else:
            if stop is not None and stop(state):
                break
            a = bots[state.current_player()].choose(state)
            decisions += 1
        if on_step is not None:
            on_step(state, a)
        state.apply(a)
    return decisions


__all__ = ["chance_outcome", "play_out"]
