"""What one seat may see, as a fixed-size float32 vector: the one encoding of the framework adapters (the
PettingZoo environment's ``observation`` and the OpenSpiel game's ``observation_tensor``).

The vector has ``OBS_SIZE = NF + 3 + 1`` numbers (NF = len(evaluation.FEATURE_NAMES)), in these blocks
(``BLOCKS``: name, size):

- ``features`` (NF): the learned evaluation's public features of the position seen from the seat
  (``evaluation.features(state)[seat]``, FEATURE_NAMES order): the global block, the seat block (the seat's
  index one-hot, its lead over the best other seat in VP and in projected VP), then a block per seat with the
  observing seat first and the others in turn order after it (zeros for absent seats). Only public information
  is read: hand sizes, not classes; the pool of unseen citizens as a whole, not the bag (A6).
- ``hand`` (3): the seat's own citizens in hand by class (W, M, U), or the ``hand`` given by the caller (the
  OpenSpiel adapter's opening deal, while the hands are being dealt).
- ``to_move`` (1): 1.0 when the seat has a decision to take now (not at a chance node or the end).

Nothing here depends on another seat's hand or on the bag's order: twin states that differ only in what the seat
cannot see give the same vector (tests/test_pettingzoo.py, tests/test_openspiel.py). The vector is a summary for
learning, not a lossless record of the position (the board's exact layout is in ``State.observation``).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..core import State
from ..learned.evaluation import FEATURE_NAMES, features

NF = len(FEATURE_NAMES)
HAND_CLASSES = 3
BLOCKS = (("features", NF), ("hand", HAND_CLASSES), ("to_move", 1))
OBS_SIZE = sum(size for _, size in BLOCKS)


def write_observation(out: np.ndarray, state: State, seat: int, hand: Sequence[int] | None = None) -> None:
    """Fill `out` (float32[OBS_SIZE]) with what `seat` sees of `state` (blocks as in the module docstring);
    `hand` replaces the seat's hand in the core state when given."""
    out[:NF] = features(state)[seat]
    out[NF:NF + HAND_CLASSES] = state.hand(seat) if hand is None else hand
    out[NF + HAND_CLASSES] = float(not state.is_terminal() and not state.is_chance_node()
                                   and state.current_player() == seat)


def observation_vector(state: State, seat: int, hand: Sequence[int] | None = None) -> np.ndarray:
    """A new float32[OBS_SIZE] vector of what `seat` sees of `state` (see write_observation)."""
    out = np.zeros(OBS_SIZE, np.float32)
    write_observation(out, state, seat, hand)
    return out
