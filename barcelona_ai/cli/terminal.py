"""The terminal of ``barcelona-ai play`` and ``table``: reading the user (Console) and laying text out.

A Console of a game against the engine asks Ctrl-C's question at a prompt (play_guard.after_ctrl_c) and then
asks the prompt again; at a table a Ctrl-C is a KeyboardInterrupt.
"""
from __future__ import annotations

import re
import shutil
import sys

from ..core import State
from ..workflows.session import Session
from ..workflows.session import hand_size as _hand_size
from .play_guard import Stop, after_ctrl_c, read_line


class Undo(Exception):
    """The user asked to take back their last decision."""


def columns(items: list[str], width: int | None = None) -> str:
    """Numbered items '  1) text' in as many columns as fit, numbered down the columns (like ls)."""
    if width is None:
        width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 120))
    n = len(items)
    num_w = len(str(n))
    cells = [f"{i + 1:>{num_w}}) {t}" for i, t in enumerate(items)]
    cell_w = max(len(c) for c in cells) + 3
    ncol = max(1, min(n, (width - 2) // cell_w))
    if n <= 8:
        ncol = 1
    nrow = -(-n // ncol)
    lines = []
    for r in range(nrow):
        row = [cells[c * nrow + r] for c in range(ncol) if c * nrow + r < n]
        lines.append("  " + "".join(x.ljust(cell_w) for x in row).rstrip())
    return "\n".join(lines)


def mask_hands(text: str, state: State, viewer: int | None) -> str:
    """Replace the hand line of every player but `viewer` in a rendering by its size (rules A6)."""
    if viewer is None:
        return text
    out = []
    who = None
    for line in text.split("\n"):
        m = re.match(r"^-- Player (\d+)", line)
        if m:
            who = int(m.group(1))
        if who is not None and who != viewer and line.startswith(" hand: "):
            tail = re.search(r"(\s+turns played \d+)$", line)
            line = f" hand: {_hand_size(state, who)} hidden" + (tail.group(1) if tail else "")
        out.append(line)
    return "\n".join(out)


class Console:
    """Prompts on stdout, answers from stdin. When stdin is not a terminal the answer is echoed, so a scripted
    run reads like a typed one. With `sess` (play), a Ctrl-C asks what to do (after_ctrl_c) and the prompt comes
    again; without, it is a KeyboardInterrupt."""

    def __init__(self, sess: Session | None = None):
        self.echo = not sys.stdin.isatty()
        self.sess = sess

    def ask(self, prompt: str) -> str:
        while True:
            try:
                text = read_line(prompt)
                break
            except EOFError:
                print()
                raise Stop(1) from None
            except KeyboardInterrupt:
                if self.sess is None:
                    raise
                print()
                after_ctrl_c(self, "prompt")
        if self.echo:
            print(text)
        return text.strip()
