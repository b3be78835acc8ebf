"""barcelona_ai: rules engine and ISMCTS player for the board game Barcelona (Dani Garcia, Board&Dice).

The public API is the names in ``__all__``: ``new_game``/``State`` (the rules, core.pyx), ``Engine``/``Limit``/
``SearchSettings`` and the analysis records (engine.py), the exceptions (errors.py) and a few constants.

Layers, lowest first; a module imports only modules of its own layer or below, without cycles
(tests/test_layers.py checks every import of every module, and gives each module its layer):

    errors, _version < jsonio                the exceptions, the version; safe reading of JSON files
    tables                                   the board data (editions)
    core                                     the compiled rules: State, new_game, game_data
    notation, position, render,              the Python layer on the state: text, documents, records
    record
    search                                   the compiled ISMCTS
    engine                                   the engine players use
    bots, playout, arena, bench, perft,      players, matches, tools
    examples
    selfplay, review, session                the workflows the command line drives
    cli_args < cli_analysis, play < cli      the command line

No module imports from this package ``__init__``; it only gathers the public names. It also imports notation,
position and render, which register the text services that ``State.action_to_string``, ``to_json``, ``render``
... delegate to (see the core's module docstring), so those methods work whatever a program imports.
"""
from ._version import __version__
from .core import CONSTANTS, SOURCES, State, game_data, new_game
from .errors import (AmbiguousMoveError, BarcelonaError, DataFileError, IllegalActionError, InvalidMoveError,
                     InvalidPositionError, InvalidRecordError, PlayerCountError, SearchError, SearchInterrupted)
from .rules import notation, position, render  # noqa: F401  (they register the State's text services)
from .search.engine import Analysis, AnalysisStream, Engine, Limit, MoveInfo, PlayerAnalysis, SearchSettings

CHANCE = CONSTANTS["CHANCE"]
TERMINAL = CONSTANTS["TERMINAL"]
NUM_ACTIONS = CONSTANTS["NUM_ACTIONS"]

__all__ = [
    # the rules
    "State", "new_game", "game_data", "CONSTANTS", "CHANCE", "TERMINAL", "NUM_ACTIONS", "SOURCES",
    # the engine
    "Engine", "Limit", "SearchSettings", "Analysis", "MoveInfo", "PlayerAnalysis", "AnalysisStream",
    # the exceptions
    "BarcelonaError", "IllegalActionError", "InvalidMoveError", "AmbiguousMoveError", "InvalidPositionError",
    "InvalidRecordError", "DataFileError", "PlayerCountError", "SearchError", "SearchInterrupted",
    "__version__",
]
