"""barcelona_ai: rules engine and ISMCTS player for the board game Barcelona (Dani Garcia, Board&Dice).

The public API is the names in ``__all__``: ``new_game``/``State`` (the rules, core.pyx), ``Engine``/``Limit``/
``SearchSettings`` and the analysis records (search/), the exceptions (errors.py) and a few constants.

The top level holds the entry points (this file, ``__main__``), the exceptions and version, and the rules kernel
(core.pyx/.pxd). The rest is in subpackages, lowest first; each imports only the top level and the packages
before it (its docstring says which; tests/test_layers.py checks every import of every module):

    rules       the board data the kernel reads (tables, jsonio, view) and the text and documents around it
                (notation, position, record, render, gamelog, table_setup, perft)
    learned     the learned evaluation: features, the value network (evaluation.pyx), the shipped model files
                and their manifest (models)
    search      the compiled ISMCTS (tree.pyx), its settings and presets, the engine players use, bots
    workflows   what the command line and the web page both call: matches, self-play, reviews, a game in
                progress, examples, the benchmark
    training    datasets, fitting the network and the turn policy, expert iteration (the [train] extra)
    adapters    OpenSpiel and PettingZoo
    web         the web board (the [web] extra)
    cli         the command line

No module imports from this package ``__init__``; it only gathers the public names. It also imports notation,
position, render and explain, which register the text services that ``State.action_to_string``, ``to_json``,
``render`` ... delegate to (see the core's module docstring), so those methods work whatever a program imports.
"""
from ._version import __version__
from .core import CONSTANTS, SOURCES, State, game_data, new_game
from .errors import (AmbiguousMoveError, BarcelonaError, DataFileError, IllegalActionError, InvalidMoveError,
                     InvalidPositionError, InvalidRecordError, PlayerCountError, SearchError, SearchInterrupted)
from .rules import explain, notation, position, render  # noqa: F401  (they register the State's text services)
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
