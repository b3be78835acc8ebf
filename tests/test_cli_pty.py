"""`barcelona-ai play` in a terminal (a pseudo-terminal, as a person sees it): on the last screen before the
prompt of the player's turn stand the opponent's moves and the scorings since the player's last turn, though the
board printed above them is about 90 lines long."""
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

ROWS, COLS = 40, 110
PROMPT = re.compile(r"Your choice \[1-\d+, move, \? hint, help\]: $")


class Terminal:
    """A child process on a pseudo-terminal of ROWS x COLS: what it wrote, and a way to answer its prompts."""

    def __init__(self, args):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = dict(os.environ, COLUMNS=str(COLS), LINES=str(ROWS))
        self.proc = subprocess.Popen([sys.executable, "-m", "barcelona_ai", *args], stdin=slave, stdout=slave,
                                     stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.text = ""

    def read_until_prompt(self, timeout: float = 120) -> str:
        """Everything written up to the next prompt (the text since the last answer)."""
        start = len(self.text)
        end = time.monotonic() + timeout
        while not PROMPT.search(self.text[start:].replace("\r", "")):
            if time.monotonic() > end or self.proc.poll() is not None:
                raise AssertionError("no prompt: " + self.text[-2000:])
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    self.text += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:
                    break
        return self.text[start:]

    def answer(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        os.close(self.master)


def last_screen(chunk: str) -> list[str]:
    """The last ROWS lines on the screen when the prompt waits (carriage returns of progress bars resolved)."""
    lines = [ln.rsplit("\r", 1)[-1] for ln in chunk.replace("\r\n", "\n").split("\n")]
    return lines[-ROWS:]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals as on Linux")
def test_the_opponents_moves_and_the_scorings_are_on_the_last_screen_before_the_prompt():
    term = Terminal(["play", "--players", "2", "--seat", "1", "--seed", "1", "--iterations", "40"])
    try:
        turns, scorings = 0, 0
        for _ in range(400):
            chunk = term.read_until_prompt()
            if "=== Round" in chunk and "Since your last turn:" in chunk:
                screen = "\n".join(last_screen(chunk))
                turns += 1
                assert "Since your last turn:" in screen and re.search(r"^  P0: place \(\d,\d\) [WMU]/[WMU]", screen,
                                                                       re.M), screen
                summary = chunk[chunk.index("Since your last turn:"):]
                if "Cerdà Scoring of section" in summary:
                    scorings += 1
                    assert re.search(r"\* Cerdà Scoring of section \d \([\w ]+\): P0 [+-]\d+, "
                                     r"P1 \(you\) [+-]\d+", screen), screen
            if scorings >= 1 and turns >= 3:
                break
            term.answer("1")
        assert turns >= 3 and scorings >= 1
    finally:
        term.close()
