"""`barcelona-ai play` in a terminal (a pseudo-terminal, as a person sees it): on the last screen before the
prompt of the player's turn stand the opponent's moves and the scorings since the player's last turn, though the
board printed above them is about 90 lines long; Ctrl-C asks what to do and loses nothing (the game is saved as
it goes, and `play --load` continues the very same game)."""
import fcntl
import json
import os
import pty
import re
import select
import signal
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

    def __init__(self, args, cwd=None):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = dict(os.environ, COLUMNS=str(COLS), LINES=str(ROWS))
        self.proc = subprocess.Popen([sys.executable, "-m", "barcelona_ai", *args], stdin=slave, stdout=slave,
                                     stderr=slave, env=env, close_fds=True, cwd=cwd,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        os.close(slave)
        self.text = ""
        self.seen = 0                 # how much of the text read_until has looked at

    def read_until(self, pattern: re.Pattern | str, timeout: float = 120) -> str:
        """Everything written from where the last read_until stopped up to the end of `pattern`'s first match."""
        pattern = re.compile(pattern) if isinstance(pattern, str) else pattern
        start = self.seen
        end = time.monotonic() + timeout
        while not (m := pattern.search(self.text, start)):
            if time.monotonic() > end:
                raise AssertionError(f"no {pattern.pattern!r}: " + self.text[-2000:])
            if not self._read() and self.proc.poll() is not None:
                raise AssertionError(f"no {pattern.pattern!r} before the end: " + self.text[-2000:])
        self.seen = m.end()
        return self.text[start:m.end()]

    def read_until_prompt(self, timeout: float = 120) -> str:
        """Everything written up to the next prompt (the text since the last answer)."""
        return self.read_until(PROMPT, timeout)

    def _read(self) -> bool:
        ready, _, _ = select.select([self.master], [], [], 0.5)
        if ready:
            try:
                self.text += os.read(self.master, 65536).decode("utf-8", "replace")
                return True
            except OSError:
                pass
        return False

    def read_to_end(self, timeout: float = 60) -> str:
        """Everything left until the program ends; its exit code is self.proc.returncode then."""
        end = time.monotonic() + timeout
        while (self.proc.poll() is None or self._read()) and time.monotonic() < end:
            self._read()
        self.proc.wait(timeout=5)
        start, self.seen = self.seen, len(self.text)
        return self.text[start:]

    def answer(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def ctrl_c(self) -> None:
        os.kill(self.proc.pid, signal.SIGINT)

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
def test_the_opponents_moves_and_the_scorings_are_on_the_last_screen_before_the_prompt(tmp_path):
    term = Terminal(["play", "--players", "2", "--seat", "1", "--seed", "1", "--iterations", "40"], cwd=tmp_path)
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


PLAY = ["play", "--players", "2", "--seat", "0", "--seed", "7", "--iterations", "30"]


def _play(args, lines, cwd):
    return subprocess.run([sys.executable, "-m", "barcelona_ai", *args], input="".join(f"{x}\n" for x in lines),
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def _engine_lines(chunks):
    return [ln for c in chunks for ln in c.splitlines() if ln.startswith("  P1: ")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals as on Linux")
def test_ctrl_c_at_a_prompt_saves_and_load_continues_the_very_same_game(tmp_path):
    """Ctrl-C at the player's prompt, then save and quit: `play --load` of that file goes on with the same
    board, hands, chance and engine moves as the game played without a stop (the same seed, the same answers):
    the files written at the same point are the same, and so are the engine's moves after it."""
    k, m = 5, 10
    whole = _play(PLAY + ["--save", "whole.json"], ["1"] * (k + m) + ["quit"], tmp_path)
    assert whole.returncode == 0, whole.stderr
    term = Terminal(PLAY + ["--save", "stopped.json"], cwd=tmp_path)
    try:
        for _ in range(k):
            term.read_until_prompt()
            term.answer("1")
        term.read_until_prompt()
        term.ctrl_c()
        term.read_until(r"Ctrl-C: s save and quit, Enter go on: $")
        term.answer("m")                                   # nothing is thinking at a prompt
        term.read_until(r"Nothing is thinking now: there is no move to hurry\.")
        term.read_until(r"Enter go on: $")
        term.answer("s")
        rest = term.read_to_end()
    finally:
        term.close()
    assert term.proc.returncode == 0 and "Traceback" not in term.text
    assert "Game stopped." in rest and "Saved in stopped.json: continue it with barcelona-ai play --load " \
        "stopped.json" in rest
    go_on = _play(["play", "--load", "stopped.json", "--iterations", "30"], ["1"] * m + ["quit"], tmp_path)
    assert go_on.returncode == 0, go_on.stderr
    assert "Loaded stopped.json: " in go_on.stdout and "(the same game goes on" in go_on.stdout
    assert json.loads((tmp_path / "stopped.json").read_text()) == json.loads((tmp_path / "whole.json").read_text())
    after = _engine_lines(whole.stdout.split("Your choice [")[k + 1:])
    assert after and _engine_lines(go_on.stdout.split("Your choice [")[1:]) == after


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals as on Linux")
def test_ctrl_c_while_the_engine_thinks(tmp_path):
    """While the engine thinks (20 s a decision), Ctrl-C asks: m plays its best move so far; Enter goes on (it
    thinks again); a second Ctrl-C at the question saves and quits (exit 130), never a traceback."""
    term = Terminal(["play", "--seat", "1", "--seed", "5", "--time", "20", "--save", "game.json"], cwd=tmp_path)
    try:
        term.read_until(r"P0 is thinking")
        term.ctrl_c()
        term.read_until(r"Ctrl-C: m move now \(P0 plays its best move so far\), s save and quit, Enter go on: $")
        term.answer("m")
        moved = term.read_until(r"  P0: [^\r\n]+")
        assert "P0 plays its best move so far." in moved
        term.read_until(r"P0 is thinking")
        term.ctrl_c()
        term.read_until(r"Enter go on: $")
        term.answer("")
        term.read_until(r"Going on\.")
        term.read_until(r"P0 is thinking")
        term.ctrl_c()
        term.read_until(r"Enter go on: $")
        term.ctrl_c()
        rest = term.read_to_end()
    finally:
        term.close()
    assert term.proc.returncode == 130 and "Traceback" not in term.text
    assert "Ctrl-C again: saving and quitting." in rest and "Saved in game.json" in rest
    first = re.search(r"  P0: ([^\r\n]+)", moved).group(1).split("   (")[0]
    doc = json.loads((tmp_path / "game.json").read_text())
    assert [e["move"] for e in doc["actions"] if e["by"] == 0][:1] == [first]
    go_on = _play(["play", "--load", "game.json", "--iterations", "30"], ["quit"], tmp_path)
    assert go_on.returncode == 0 and "(the same game goes on" in go_on.stdout, go_on.stdout[-2000:]
