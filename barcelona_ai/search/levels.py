"""The engine's playing levels: a name a player reads, the ISMCTS iterations a decision, and what the level was
measured to do (docs/measurements/levels.md: 2-player arena games against the level below and the greedy bot).

The command line's ``--level NAME`` (cli.args.level) and the web board's engine menu read LEVELS.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import BarcelonaError


@dataclass(frozen=True)
class Level:
    name: str               # what a player calls it: one word, the command line's --level NAME (any case)
    iterations: int         # ISMCTS iterations a decision
    description: str        # one line: what it was measured to do, in 2 players
    seconds: float          # its mean seconds a turn of its own, as measured (one thread, a 2-core machine)


LEVELS = (
    Level("Beginner", 20, "loses 4 games in 10 to a simple greedy player; beats random moves 9 in 10", 0.002),
    Level("Casual", 200, "never lost: 200 games against a greedy player, 400 against Beginner", 0.014),
    Level("Club", 1000, "wins 85 games in 100 against Casual; never lost to a greedy player", 0.066),
    Level("Expert", 5000, "wins 65 games in 100 against Club", 0.34),
    Level("Master", 20000, "wins 58 games in 100 against Expert (of 120: a small edge, not a sure one)", 1.3),
)
DEFAULT_LEVEL = "Club"       # the web board's engine as it starts


def level(name: str) -> Level:
    """The level named `name` (any case); an unknown name is refused (BarcelonaError) with the names there are."""
    for lv in LEVELS:
        if lv.name.lower() == str(name).strip().lower():
            return lv
    raise BarcelonaError(f"no level {str(name)[:40]!r}: the levels are {level_names()}")


def level_names() -> str:
    """The names, weakest first, as a list to read: 'Beginner, Casual, Club, Expert or Master'."""
    names = [lv.name for lv in LEVELS]
    return ", ".join(names[:-1]) + " or " + names[-1]


__all__ = ["Level", "LEVELS", "DEFAULT_LEVEL", "level", "level_names"]
