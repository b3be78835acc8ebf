"""Argument types of the command line: every number is parsed, finite and inside a stated range before a
command runs, so that no argument can hang a command, overflow a C integer or divide by zero.

A bad value is an argparse error, printed by :class:`Parser` as every other input error is: one line
``error: argument --time: ...`` on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import math

from ..errors import BarcelonaError
from ..search.levels import LEVELS, level_names
from ..search.levels import level as find_level

# Upper bounds. Each is far beyond any useful value; the point is that every count is finite and checked.
MAX_SEED = 2 ** 64 - 1          # the core uses 64 bits of a seed: larger ones would alias smaller ones
MAX_ITERATIONS = 10 ** 9        # ISMCTS iterations for one search: hours on one core
MAX_SECONDS = 86_400.0          # one day for one search
MAX_THREADS = 64                # engine.Engine's own bound
MAX_TOP = 100                   # turn plans or moves listed
MAX_GAMES = 100_000             # games of arena, selfplay, bench
MAX_WORKERS = 64                # processes of arena and selfplay
MAX_PERFT_DEPTH = 10            # perft 6 from a 4-player setup counts 3.4e7 sequences (2.5 s); 10 takes a day
MAX_WALK = 100_000              # random plies before perft (a game ends after a few hundred)


def _text(s: str) -> str:
    s = str(s)
    return repr(s if len(s) <= 40 else s[:37] + "...")


def _ranged(convert, lo, hi, what: str, name: str):
    """An argparse type: convert(s), finite and in lo..hi, else an error that states the range."""
    def parse(s: str):
        try:
            v = convert(s)
        except (ValueError, TypeError, OverflowError):
            v = None
        if v is None or (isinstance(v, float) and not math.isfinite(v)) or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"expected {what} from {lo:g} to {hi:g}, not {_text(s)}"
                                             if isinstance(lo, float) else
                                             f"expected {what} from {lo} to {hi}, not {_text(s)}")
        return v
    parse.__name__ = name
    return parse


def int_range(lo: int, hi: int, what: str = "an integer"):
    """An argparse type: an integer in lo..hi."""
    return _ranged(int, lo, hi, what, "integer")


def number_range(lo: float, hi: float, what: str = "a number"):
    """An argparse type: a finite number in [lo, hi]."""
    return _ranged(float, float(lo), float(hi), what, "number")


def seconds(hi: float = MAX_SECONDS):
    """An argparse type: a finite number of seconds in (0, hi]."""
    def parse(s: str) -> float:
        try:
            v = float(s)
        except (ValueError, TypeError):
            raise argparse.ArgumentTypeError(f"expected a number of seconds, more than 0 and at most {hi:g}, "
                                             f"not {_text(s)}") from None
        if not math.isfinite(v) or not 0 < v <= hi:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, more than 0 and at most {hi:g}, "
                                             f"not {_text(s)}")
        return v
    parse.__name__ = "seconds"
    return parse


seed = int_range(0, MAX_SEED, "a seed")
iterations = int_range(1, MAX_ITERATIONS, "a number of iterations")
players = int_range(2, 4, "a player count")
seat = int_range(0, 3, "a seat")
threads = int_range(1, MAX_THREADS, "a thread count")
top = int_range(1, MAX_TOP, "a count")
games = int_range(1, MAX_GAMES, "a number of games")
workers = int_range(1, MAX_WORKERS, "a number of processes")
perft_depth = int_range(0, MAX_PERFT_DEPTH, "a depth")
walk = int_range(0, MAX_WALK, "a number of plies")
port = int_range(1, 65535, "a port")
search_seconds = seconds()


def level(s: str):
    """An argparse type: a level's name (search.levels.LEVELS, any case), as its Level."""
    try:
        return find_level(s)
    except BarcelonaError:
        raise argparse.ArgumentTypeError(f"expected a level, {level_names()}, not {_text(s)}") from None


level.__name__ = "level"


class _LevelIterations(argparse.Action):
    """--level NAME: the level in `level`, its iterations a decision in `iterations`."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.iterations = values.iterations


def add_level_option(parser: argparse.ArgumentParser, who: str = "the engine") -> None:
    """A --level NAME option: the level's iterations a decision become --iterations (the later of the two wins)."""
    names = "; ".join(f"{lv.name} {lv.iterations:,}" for lv in LEVELS)
    parser.add_argument("--level", type=level, action=_LevelIterations, default=None, metavar="NAME",
                        help=f"{who}'s level, as iterations a decision ({names}; docs/measurements/levels.md), "
                             "instead of --iterations (default: none)")


def edition(s: str):
    """An argparse type: a shipped edition's name or a data file's path, loaded and checked (tables.Edition)."""
    from ..rules.tables import load_edition
    try:
        return load_edition(s)
    except BarcelonaError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


edition.__name__ = "edition"


def add_edition_option(parser: argparse.ArgumentParser, reads: bool = False, games: bool = False) -> None:
    """--edition NAME|FILE: the board the game is played on. For a command that reads positions or records
    (`reads`), a document written under another edition is refused; by default it is read under its own. For a
    command that reads the games of datasets or records (`games`: train, evaluate), those of another board are
    refused; by default the board they name."""
    from ..rules.tables import available_editions
    try:
        shipped = ", ".join(available_editions())
    except Exception:           # the parser must build even without the data files
        shipped = "default"
    if games:
        text = (f"the board the games were played on: a shipped edition ({shipped}) or a board-data file; "
                "datasets or records of another one are refused (default: the one they name)")
    else:
        default = ("default: the edition the position or record names" if reads else "default: default")
        text = (f"the board: a shipped edition ({shipped}) or a board-data file, a copy of a shipped one with your "
                f"board's values (docs/editions.md; {default})")
    parser.add_argument("--edition", type=edition, default=None, metavar="NAME|FILE", help=text)


class DefaultsFormatter(argparse.HelpFormatter):
    """--help shows every option's default: ' (default: X)' after a help text that does not say it already
    (nothing for options without a value, whose default is off)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text.lower() or action.default is False or action.default == argparse.SUPPRESS or \
                action.required or not (action.option_strings or action.nargs in ("?", "*")):
            return text
        shown = "none" if action.default is None else "%(default)s"
        return f"{text} (default: {shown})" if text else f"(default: {shown})"


class Parser(argparse.ArgumentParser):
    """argparse with the command line's error format: one line ``error: ...`` on stderr, exit code 2 (the
    subcommand parsers are of this class too: add_subparsers uses the parent's class), and every default
    shown in --help (DefaultsFormatter)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, printable(f"error: {message} (see: {self.prog} --help)\n"))


def printable(text: str) -> str:
    """`text` with what no stream can encode (lone surrogates: undecodable bytes of a file name in argv)
    written as backslash escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


__all__ = ["Parser", "printable", "level", "add_level_option", "edition", "add_edition_option",
           "int_range", "seconds", "seed", "iterations", "players", "seat", "threads", "top",
           "games", "workers", "perft_depth", "walk", "search_seconds"]
