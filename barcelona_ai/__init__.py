"""barcelona_ai: rules engine and ISMCTS player for the board game Barcelona (Dani Garcia, Board&Dice)."""
from .core import CONSTANTS, SOURCES, State, game_data
from .errors import (AmbiguousMoveError, BarcelonaError, DataFileError, IllegalActionError, InvalidMoveError,
                     InvalidPositionError, PlayerCountError)

__version__ = "0.1.0"
CHANCE = CONSTANTS["CHANCE"]
TERMINAL = CONSTANTS["TERMINAL"]
NUM_ACTIONS = CONSTANTS["NUM_ACTIONS"]


def new_game(players: int = 4, seed: int = 0, edition: str = "default", setup: str = "random") -> State:
    """A new game of Barcelona for 2-4 players; every random setup choice comes from `seed` (R10-R32)."""
    return State.new(players, seed, edition, setup)


__all__ = ["State", "new_game", "CHANCE", "TERMINAL", "NUM_ACTIONS", "SOURCES", "BarcelonaError",
           "IllegalActionError", "InvalidMoveError", "AmbiguousMoveError", "InvalidPositionError",
           "DataFileError", "PlayerCountError", "game_data", "__version__"]
