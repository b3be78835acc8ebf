"""Exceptions of barcelona_ai. Every error is a ValueError subclass that says what was wrong.

This is the bottom layer of the package (it imports nothing of it): every library exception is defined here, and
the modules that raise them import them from here (engine.SearchError and record.InvalidRecordError are the same
classes, re-exported for old imports). SearchInterrupted is the one KeyboardInterrupt subclass: Ctrl-C semantics.
"""


class BarcelonaError(ValueError):
    """Base class of every error the package raises for bad input."""


class IllegalActionError(BarcelonaError):
    """An action id that is not legal in the current state (the state is unchanged)."""


class InvalidMoveError(BarcelonaError):
    """A move written in notation that does not parse."""


class AmbiguousMoveError(BarcelonaError):
    """A move written in notation that matches several legal actions."""


class InvalidPositionError(BarcelonaError):
    """A malformed position document, or one whose counts are impossible."""


class DataFileError(BarcelonaError):
    """A board-data file (edition) that is missing, unknown or inconsistent."""


class PlayerCountError(BarcelonaError):
    """A player count outside 2..4, or a seat that does not exist."""


class InvalidRecordError(BarcelonaError):
    """A malformed game record (the message names the first wrong field)."""


class SearchError(BarcelonaError):
    """A search asked of a state where nobody decides (terminal, chance) or for the wrong player."""


class WebRequestError(BarcelonaError):
    """A request to the web board the server cannot do as asked (HTTP 400); the message names the field."""


class GameNotFound(BarcelonaError):
    """No web game (or review) with that id (HTTP 404)."""


class NotNow(BarcelonaError):
    """A request the web game cannot take at this moment, e.g. a move while the engine is to move (HTTP 409)."""


class ServerBusy(NotNow):
    """The web server runs as many searches as it takes and its queue for more is full (HTTP 503)."""


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C (or Engine.stop()) ended a search early. The search stopped cleanly; `result` holds the answer
    the call would have returned from the work done so far (an action id, hints or an Analysis), or None."""

    def __init__(self, result=None):
        super().__init__("search interrupted")
        self.result = result
