"""Example positions shipped with the package (``barcelona_ai/data/positions/*.json``).

``list_examples()`` names them; ``example_position(name)`` loads one as a State. The command line accepts the
name wherever it takes a position file (``barcelona-ai hint midgame-3p``). The files are of the default edition;
under another edition (``example_text(name, edition)``) the same recipe is played on that edition's board.

    start-2p, start-3p, start-4p   fresh setups: new_game(players, seed=1, setup="random") (R10-R32)
    midgame-3p                      a 3-player game between greedy bots (setup seed 10) at the start of
                                    its 11th turn of 18: player 1 to place, VP 36 / 32 / 42 (MIDGAME below)

The files are position documents (docs/positions.md) written by :func:`write_examples`; regenerate them with

    python -c "from barcelona_ai.workflows.examples import write_examples as w; w('barcelona_ai/data/positions')"

(docs/records.md repeats the recipe). They depend on the rules core and on the greedy bot, so a change to
either may change ``midgame-3p.json``.
"""
from __future__ import annotations

import random
from importlib import resources
from pathlib import Path

from ..core import State, new_game
from ..errors import BarcelonaError

__all__ = ["list_examples", "example_position", "example_text", "write_examples", "example_states"]

START_SEED = 1
MIDGAME = {"players": 3, "seed": 10, "bot_seed": 100, "chance_seed": 10, "turns_played": 10}
PH_PLACE = 0                                # core.pxd PH_PLACE


def _dir():
    return resources.files("barcelona_ai").joinpath("data", "positions")


def list_examples() -> list[str]:
    """Names of the shipped example positions, sorted (e.g. ``['midgame-3p', 'start-2p', ...]``)."""
    try:
        entries = list(_dir().iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(e.name[:-5] for e in entries if e.name.endswith(".json"))


def example_text(name: str, edition=None) -> str:
    """The JSON text of a shipped example position; an unknown name raises BarcelonaError naming them all.
    Under an `edition` (a name, a data-file path or a tables.Edition) whose board is not the file's, the
    example's recipe played on that edition's board."""
    from ..rules.position import dump_position
    from ..rules.tables import load_edition
    names = list_examples()
    if name not in names:
        raise BarcelonaError(f"no example position {name!r}: the shipped examples are {', '.join(names)}")
    text = _dir().joinpath(f"{name}.json").read_text(encoding="utf-8")
    if edition is None or load_edition(edition).sha256 == _file_digest(text):
        return text
    return dump_position(example_states(edition, [name])[name])


def _file_digest(text: str) -> str | None:
    import json
    return json.loads(text).get("edition_sha256")


def example_position(name: str, seed: int = 0, edition=None) -> State:
    """A shipped example position as a State (`seed` samples hidden hands, should a document have any)."""
    return State.from_json(example_text(name, edition), seed=seed, edition=edition)


# ---------------------------------------------------------------------------------------------------------------
# generating the files

def midgame_state(players: int = MIDGAME["players"], seed: int = MIDGAME["seed"],
                  bot_seed: int = MIDGAME["bot_seed"], chance_seed: int = MIDGAME["chance_seed"],
                  turns_played: int = MIDGAME["turns_played"], edition="default") -> State:
    """A seeded game between greedy bots, stopped at the start of a turn (a placement is the next decision)
    after `turns_played` turns."""
    from ..search.bots import GreedyBot
    from .playout import play_out
    s = new_game(players, seed=seed, setup="random", edition=edition)
    bots = [GreedyBot(bot_seed + i) for i in range(players)]
    turns = 0

    def turn_reached(state: State) -> bool:          # asked before every decision; a turn starts with PH_PLACE
        nonlocal turns
        if state.phase != PH_PLACE:
            return False
        if turns == turns_played:
            return True
        turns += 1
        return False

    play_out(s, bots, random.Random(chance_seed), stop=turn_reached)
    if s.is_terminal():
        raise BarcelonaError(f"the game ended before turn {turns_played + 1}")
    return s


def example_states(edition="default", names: list[str] | None = None) -> dict[str, State]:
    """The example positions (all, or those `names`) played on `edition`'s board."""
    out = {}
    for name in names or ["start-2p", "start-3p", "start-4p", "midgame-3p"]:
        out[name] = (midgame_state(edition=edition) if name == "midgame-3p" else
                     new_game(int(name[6]), seed=START_SEED, setup="random", edition=edition))
    return out


def write_examples(directory: str | Path) -> list[Path]:
    """Write the example position files into `directory` (the package's data/positions when regenerating)."""
    from ..rules.position import dump_position
    states = example_states()
    written = []
    try:
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        for name, s in states.items():
            assert not s.is_chance_node() and not s.is_terminal()
            path = out / f"{name}.json"
            path.write_text(dump_position(s), encoding="utf-8")       # dump_position = indented state.to_json()
            written.append(path)
    except (OSError, ValueError, TypeError) as exc:
        raise BarcelonaError(f"cannot write the example positions to {str(directory)[:80]!r}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None
    return written

