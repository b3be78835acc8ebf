"""perft: counts of action sequences from seeded positions (Stockfish/python-chess style golden numbers).

A perft position is a seed, a player count, a setup and a number of seeded random plies played from the setup
(``walk``), so that positions deep in a game can be named in one line.
"""
from __future__ import annotations

import random

from .core import State


def perft_position(players: int, seed: int, walk: int = 0, setup: str = "random") -> State:
    s = State.new(players, seed, "default", setup)
    rng = random.Random(seed)
    for _ in range(walk):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    return s


def divide(state: State, depth: int) -> dict[int, int]:
    """perft(depth - 1) below each legal action."""
    out = {}
    for a in state.legal_actions():
        state.apply(a)
        out[a] = state.perft(depth - 1)
        state.undo()
    return out
