"""Command line of the board editor: ``barcelona-ai edition new | check | show``.

    barcelona-ai edition new [--from NAME|FILE] [--name NAME] [--out FILE] [--force]
    barcelona-ai edition check FILE
    barcelona-ai edition show [NAME|FILE]

``new`` goes through the parts of the box in the order a person reads them (workflows/board_editor.py): each part
is drawn as the edition it starts from has it; Enter keeps it, ``n`` asks for each of its values, Enter keeping
each one. Only the values the rules inventory marks RECONSTRUCTED are asked. The board-data file written is
checked whole (a value that contradicts another sends you back to its part) and played with ``--edition FILE``.
"""
from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

from . import args as A
from .analysis import CommandError
from ..errors import BarcelonaError
from ..rules.jsonio import show_path

INTRO = ("About a third of the printed board could not be read from the rulebook and was reconstructed. Each part "
         "of the box is drawn below as this edition has it: press Enter where yours shows the same, or type n to go "
         "through its values (Enter keeps each one; q stops without writing anything).")


class Stopped(Exception):
    """The person typed q (or the input ended): nothing is written."""


def _ask(prompt: str) -> str:
    try:
        text = input(prompt)
    except EOFError:
        raise Stopped from None
    if text.strip().lower() in ("q", "quit"):
        raise Stopped
    return text.strip()


def cmd_new(args: argparse.Namespace) -> int:
    from ..workflows import board_editor as E
    source = args.source
    doc = copy.deepcopy(source.raw)
    name = args.name
    out = Path(args.out) if args.out else None
    try:
        print(INTRO)
        if name is None:
            name = _ask_name()
        out = out or Path(f"{name}.json")
        if out.exists() and not args.force:
            raise CommandError(f"--out: {show_path(out)} exists (--force writes over it)")
        answers: dict[str, str] = {}
        for k, part in enumerate(E.PARTS, 1):
            _go_through(E, doc, part, k, answers)
        while True:
            try:
                final = E.edit(source, answers, name)
                break
            except BarcelonaError as exc:            # a value contradicts another: back to its part
                print(f"  {exc}")
                part = E.part_of_field(str(exc)) or E.PARTS[0]
                _go_through(E, doc, part, E.PARTS.index(part) + 1, answers, force=True)
    except Stopped:
        print("\nstopped: nothing was written")
        return 1
    return _write(final, out, source, len(answers))


def _ask_name() -> str:
    from ..workflows.board_editor import check_name
    while True:
        name = _ask("The name of your board (letters, digits, - or _; saved games name it) [my-board]: ") or "my-board"
        try:
            return check_name(name)
        except BarcelonaError as exc:
            print(f"  {exc}")


def _go_through(E, doc: dict, part: str, k: int, answers: dict[str, str], force: bool = False) -> None:
    """Draw one part; unless the person keeps it, ask each of its values (into `answers` and `doc`)."""
    print(f"\n{k}/{len(E.PARTS)}. {part}")
    for line in E.draw(doc, part):
        print("   " + line)
    if not force and _ask("Same as your box? [Y/n] ").lower() not in ("n", "no"):
        return
    for q in E.questions(part):
        while True:
            now = q.answer(doc)
            text = _ask(f"  {q.label} [{now}]: ")
            if not text:
                break
            try:
                value = q.parse(text)
                q.apply(doc, value)
            except BarcelonaError as exc:
                print(f"    {exc}")
                continue
            if q.parse(now) != value:
                answers[q.key] = text
            break


def _write(doc: dict, out: Path, source, changed: int) -> int:
    from ..rules.tables import load_edition
    from ..rules.words import edition_words
    try:
        out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"--out {show_path(out)}: cannot write ({exc.strerror or exc})") from None
    ed = load_edition(str(out))
    print(f"\n{ed.label} written to {show_path(out)}: {changed} value{'s' if changed != 1 else ''} changed from "
          f"{edition_words(source)}.")
    print(f"Play on it: barcelona-ai table --edition {show_path(out)} (check it again: barcelona-ai edition check "
          f"{show_path(out)})")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Load and check a board-data file; list the values that differ from the default edition."""
    from ..rules.tables import available_editions, load_edition
    from ..rules.words import edition_words
    from ..workflows import board_editor as E
    try:
        ed = load_edition(args.file)
    except BarcelonaError as exc:
        text = str(exc)
        part = E.part_of_field(text)
        raise CommandError(f"{part}: {text}" if part else text) from None
    print(f"{edition_words(ed)}: a playable board (board data sha256 {ed.sha256})")
    diffs = E.differences(ed.raw)
    if not diffs:
        print('Its reconstructed values are those of edition "default".')
    else:
        print(f'{len(diffs)} reconstructed value{"s" if len(diffs) != 1 else ""} differ from edition "default":')
        for q, base, mine in diffs:
            print(f"  {q.part}: {q.label}: {mine} (default: {base})")
    shipped = [n for n in available_editions() if load_edition(n).sha256 == ed.sha256]
    if not shipped:
        print("No learned model was fitted on it: the engine plays its model-free search on this board "
              "(docs/editions.md).")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from ..rules.words import edition_words
    from ..workflows import board_editor as E
    ed = args.edition_shown
    print(f"{edition_words(ed)}: the values the rulebook does not give (reconstructed), part by part")
    for k, part in enumerate(E.PARTS, 1):
        print(f"\n{k}. {part}")
        for line in E.draw(ed.raw, part):
            print("   " + line)
    return 0


def register(sub) -> None:
    """Add `edition new|check|show` to the barcelona-ai parser."""
    ed = sub.add_parser("edition", help="your own board: a guided editor of the reconstructed values, check, show",
                        description="About a third of the board data was reconstructed (the rulebook's pictures "
                                    "were lost). `edition new` asks for those values off your box, part by part; "
                                    "`check` checks a board-data file; `show` draws an edition's values.")
    sub2 = ed.add_subparsers(dest="edition_command", metavar="new|check|show", required=True,
                             help="new: answer off your box; check: check a file; show: draw an edition")
    n = sub2.add_parser("new", help="answer off your box; writes a board-data file",
                        description="Goes through the box part by part (main board, side board, player board, "
                                    "tiles), each drawn as the edition it starts from has it, and asks for the "
                                    "reconstructed values where yours differ; writes the board-data file.")
    n.add_argument("--from", dest="source", type=A.edition, default="default", metavar="NAME|FILE",
                   help="the edition whose values are the default answers (default: default)")
    n.add_argument("--name", default=None, help="the new edition's name (asked if not given)")
    n.add_argument("--out", default=None, metavar="FILE", help="the file to write (default: NAME.json here)")
    n.add_argument("--force", action="store_true", help="write over an existing --out file")
    n.set_defaults(func=cmd_new, command="edition new")
    c = sub2.add_parser("check", help="check a board-data file and list what differs from the default",
                        description="Loads a board-data file as the engine does; a wrong value is refused naming "
                                    "its field and the part of the box; lists the reconstructed values that differ "
                                    "from the default edition.")
    c.add_argument("file", metavar="FILE", help="a board-data file (.json)")
    c.set_defaults(func=cmd_check, command="edition check")
    s = sub2.add_parser("show", help="draw an edition's reconstructed values part by part")
    s.add_argument("edition_shown", nargs="?", type=A.edition, default="default", metavar="NAME|FILE",
                   help="a shipped edition or a board-data file (default: default)")
    s.set_defaults(func=cmd_show, command="edition show")


__all__ = ["register", "cmd_new", "cmd_check", "cmd_show"]
