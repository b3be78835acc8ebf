"""Nothing of a game of ``barcelona-ai play`` is lost: the file it is saved to as it goes, and Ctrl-C's question.

The file: ``--save FILE``, else the file the game was loaded from (``--load``) if it is one of play's saves
(its resume field continued the game: any other record stays as it is), else a new file in the current folder
named after the start time, ``barcelona-2025-01-31-143210.json`` (with ``-seed11`` before ``.json`` when
the seed is not secret; ``-2``, ``-3`` ... where that name is taken). Session.keep writes it after every entry.

Ctrl-C (SIGINT) during a game asks what to do instead of ending the program: while the engine thinks, ``m``
plays its best move so far (the search answers with it: SearchInterrupted); during the player's hints or eval,
``m`` stops them (the hints found so far are shown); at a prompt nothing is thinking, so there is no move to
hurry. ``s`` saves and quits, Enter goes on. A second Ctrl-C at the question saves and quits. CtrlC holds a
Ctrl-C back while an entry goes into the record and its save is written (Session.shield): it is asked about at
the next safe point (check), so the record and its file always agree.
"""
from __future__ import annotations

import argparse
import datetime
import os
import select
import signal
import sys
import threading
from contextlib import contextmanager

from ..errors import SearchInterrupted
from ..workflows.progress import SearchProgress
from ..workflows.session import Session

MOVE, SAVE, GO_ON, AGAIN, ENDED = "move now", "save and quit", "go on", "Ctrl-C again", "input ended"


class Stop(Exception):
    """Leave the game loop with an exit code."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class CtrlC:
    """SIGINT for the time of a game (a context manager; in the main thread only): KeyboardInterrupt as usual,
    but inside held() it waits until check()."""

    def __init__(self):
        self.depth = 0
        self.pending = False
        self._old = None

    def __enter__(self) -> "CtrlC":
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None

    def _handler(self, signum, frame) -> None:
        if self.depth:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def held(self):
        """A Ctrl-C inside waits for check()."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def check(self) -> None:
        """KeyboardInterrupt now if a Ctrl-C waited in held()."""
        if self.pending and not self.depth:
            self.pending = False
            raise KeyboardInterrupt


def read_line(prompt: str) -> str:
    """input(prompt), but on a terminal a Ctrl-C that comes just as the prompt is written still ends the wait
    (KeyboardInterrupt): input() would miss a signal that arrives before it blocks in its read, so the wait here
    is short selects, and Python's signal handler runs between them. EOFError when the input has ended."""
    if not sys.stdin.isatty():
        return input(prompt)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    while not select.select([sys.stdin], [], [], 0.2)[0]:
        pass
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def ask(kind: str, who: str, saving: bool, echo: bool) -> str:
    """The question after a Ctrl-C; returns MOVE, SAVE, GO_ON, AGAIN (a second Ctrl-C) or ENDED (no more input).
    `kind`: "engine" (`who` is thinking), "search" (`who` names the player's hints or eval) or "prompt"."""
    first = {"engine": f"m move now ({who} plays its best move so far), ",
             "search": f"m stop {who} now, "}.get(kind, "")
    leave = "s save and quit" if saving else "s quit (the game is not saved as it goes)"
    prompt = f"Ctrl-C: {first}{leave}, Enter go on: "
    while True:
        try:
            text = read_line(prompt)
        except KeyboardInterrupt:
            print()
            return AGAIN
        except EOFError:
            print()
            return ENDED
        if echo:
            print(text)
        low = text.strip().lower()
        if low in ("", "g", "go", "go on", "c", "continue"):
            return GO_ON
        if low in ("s", "save", "save and quit", "q", "quit", "exit"):
            return SAVE
        if low in ("m", "move", "move now", "now", "stop"):
            if first:
                return MOVE
            print("  Nothing is thinking now: there is no move to hurry.")
            continue
        print(f"  {text.strip()!r} is not an answer here: " + ("m, " if first else "") + "s or Enter.")


# ---------------------------------------------------------------------------------------------------------------
# the file

def default_save_path(seed: int | None, now: datetime.datetime | None = None, folder: str = ".") -> str:
    """A file name in `folder` not taken yet: barcelona-DATE-TIME[-seedN].json (`seed` None: a secret seed, not
    named)."""
    now = now or datetime.datetime.now()
    stem = f"barcelona-{now:%Y-%m-%d-%H%M%S}" + ("" if seed is None else f"-seed{seed}")
    n = 1
    while True:
        name = os.path.join(folder, stem + ("" if n == 1 else f"-{n}") + ".json")
        if not os.path.exists(name):
            return os.path.relpath(name) if folder == "." else name
        n += 1


def check_save_path(path: str, load: str | None) -> str | None:
    """Why `path` (--save) cannot take the game, or None: an existing file is another game's, unless it is the
    one loaded."""
    if os.path.isdir(path):
        return f"--save {path}: a folder, not a file"
    if os.path.exists(path) and not (load and os.path.exists(load) and os.path.samefile(path, load)):
        return (f"--save {path}: the file exists (continue its game with --load {path}, or name a new file)")
    return None


# ---------------------------------------------------------------------------------------------------------------
# the question's answers

def after_ctrl_c(con, kind: str, who: str = "") -> str:
    """Ctrl-C's question (ask) for the game of Console `con`; returns MOVE or GO_ON, and leaves the game (Stop)
    on save and quit."""
    sess = con.sess
    choice = ask(kind, who, sess.autosave is not None, con.echo)
    if choice == GO_ON:
        print("  Going on.")
        return choice
    if choice == MOVE:
        return choice
    if choice == ENDED:
        raise Stop(1)
    if choice == AGAIN:
        print("Ctrl-C again: " + ("saving and quitting." if sess.autosave else "quitting."))
    leave(sess, 130 if choice == AGAIN else 0)
    raise AssertionError("unreachable")


def leave(sess: Session, code: int) -> None:
    """Stop the game (play): it is saved first where it is saved as it goes."""
    print("Game stopped.")
    if sess.autosave is not None:
        sess.keep()
        if sess.autosaving:
            print(f"Saved in {sess.autosave}: continue it with {sess.continue_command(sess.autosave)}")
    raise Stop(code)


def stop_search(con, exc: SearchInterrupted, what: str) -> bool:
    """A Ctrl-C in the seat's own search: True to stop it now, False to search again (play's question); without
    the question (table), the KeyboardInterrupt goes on."""
    if con is None or con.sess is None:
        raise exc
    print()
    return after_ctrl_c(con, "search", what) == MOVE


def engine_decision(sess: Session, con, p: int) -> int:
    """The engine's move for player p. A Ctrl-C while it thinks asks: move now (its best move so far), save and
    quit, or go on (it searches again, after the searches of its turn so far: Session.take_up_turn)."""
    while True:
        try:
            with SearchProgress(sess.engine_player().engine, sess.limit, f"{sess.name(p)} is thinking"):
                return sess.engine_move()
        except SearchInterrupted as exc:
            print()
            if after_ctrl_c(con, "engine", sess.name(p)) == MOVE:
                if exc.result is not None:
                    print(f"  {sess.name(p)} plays its best move so far.")
                    return exc.result
                print(f"  {sess.name(p)} has not found a move yet: it goes on thinking.")
            sess.take_up_turn()


def start_saving(sess: Session, args: argparse.Namespace) -> None:
    """Save the game after every entry to --save, to the --load file where it is one of play's saves (its resume
    field continued the game), else to a new file (default_save_path); not with --no-save."""
    if args.no_save:
        print("The game is not saved as it goes (--no-save): 'save FILE' saves it.")
        return
    path = args.save or (args.load if sess.resumed else None) or default_save_path(
        None if sess.secret_seed else sess.seed)
    kept = f" ({args.load} stays as it was)" if args.load and path != args.load else ""
    sess.autosave, sess.warn = path, lambda line: print("  " + line)
    print(f"Saving as you go to {path}{kept}; continue it with: {sess.continue_command(path)}")
    print("  The file shows the game as you see it; its resume field holds, encoded, the engine's citizens and "
          "the chance seed, from which --load continues the very same game.")
    sess.keep()
