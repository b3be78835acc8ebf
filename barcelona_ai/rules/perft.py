"""perft: counts of action sequences from seeded positions (Stockfish/python-chess style golden numbers).

A perft position is a seed, a player count, a setup and a number of seeded random plies played from the setup
(``walk``), so that positions deep in a game can be named in one line.
"""
from __future__ import annotations

import random

from ..core import State
from ..errors import BarcelonaError


def perft_position(players: int, seed: int, walk: int = 0, setup: str = "random", edition="default") -> State:
    """The setup new_game(players, seed, edition, setup), then `walk` random actions (seeded by `seed`)."""
    if isinstance(walk, bool) or not isinstance(walk, int) or walk < 0:
        raise BarcelonaError(f"walk must be a non-negative integer, not {walk!r}")
    s = State.new(players, seed, edition, setup)
    rng = random.Random(seed)
    for _ in range(walk):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    return s


C_DEPTH = 5             # State.perft runs in C without a break: about 0.4 s at depth 5 from a 4-player setup


def perft(state: State, depth: int) -> int:
    """state.perft(depth), split into C calls of depth <= C_DEPTH so that Ctrl-C (KeyboardInterrupt) is
    answered within a second or so at any depth."""
    if depth <= C_DEPTH:
        return state.perft(depth)
    total = 0
    for a in state.legal_actions():
        state.apply(a)
        try:
            total += perft(state, depth - 1)
        finally:
            state.undo()
    return total


def divide(state: State, depth: int) -> dict[int, int]:
    """perft(depth - 1) below each legal action."""
    out = {}
    for a in state.legal_actions():
        state.apply(a)
        try:
            out[a] = perft(state, depth - 1)
        finally:
            state.undo()
    return out
