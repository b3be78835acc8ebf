"""Every code block of the README is run, with small search budgets substituted: each ```python block is executed,
each ```bash block's `barcelona-ai ...` commands are run in a fresh folder, and each ```console block (commands that
run long or wait for a person: play, table, serve, bench, training) is checked against the command's --help. The
first block is the two install lines, which are checked as text. The README and the docs keep their shape."""
import contextlib
import io
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
INSTALL = """# install and run the demo
python3 -m venv .venv && . .venv/bin/activate && pip install . && barcelona-ai demo
# install and run the tests
python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && python -m pytest -q
"""


def blocks(lang: str | None = None) -> list[tuple[str, str]]:
    """The README's fenced code blocks as (language, text), in order; only those of `lang` when given."""
    found = re.findall(r"^```(\w*)\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    return [(tag, text) for tag, text in found if lang is None or tag == lang]


def small(code: str) -> str:
    """The same code with small search budgets, so that a block runs in about a second."""
    return re.sub(r"Limit\([^)]*\)", "Limit(iterations=200)", code)


def small_command(words: list[str]) -> list[str]:
    """A command line's words with small budgets: iterations, seconds, bot budgets and game counts."""
    out, it = [], iter(words)
    for w in it:
        if w in ("--iterations", "--time"):
            next(it)
            out += ["--iterations", "200"]
        elif w == "--games":
            out += [w, str(min(int(next(it)), 4))]
        else:
            out.append(re.sub(r"^ismcts:[0-9.]+[ks]?", "ismcts:50", w))
    return out


def commands(text: str, prompt: str = "") -> list[list[str]]:
    """The command lines of a shell block (continuation lines joined, comments dropped), each as its words;
    with a prompt, only the lines that start with it."""
    lines = text.replace("\\\n", " ").splitlines()
    if prompt:
        lines = [line[len(prompt):] for line in lines if line.startswith(prompt)]
    return [words for line in lines if (words := shlex.split(line, comments=True))]


def test_the_readme_starts_with_the_two_install_lines():
    tag, text = blocks()[0]
    assert (tag, text) == ("bash", INSTALL)


def test_every_block_is_one_the_tests_run_or_check():
    tags = [tag for tag, _ in blocks()]
    assert set(tags) <= {"python", "bash", "console", "text"}, tags
    assert tags.count("python") >= 3 and tags.count("bash") >= 3 and "console" in tags


PYTHON = blocks("python")


@pytest.mark.parametrize("i", range(len(PYTHON)))
def test_readme_python_block_runs(i, tmp_path, monkeypatch):
    code = PYTHON[i][1]
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
    if "pettingzoo" in code:
        pytest.importorskip("pettingzoo")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(small(code), f"README.md python block {i + 1}", "exec"), {})
    if i == 0:
        assert "Player 0" in out.getvalue()


BASH = blocks("bash")[1:]                       # the first is the install lines


@pytest.mark.parametrize("i", range(len(BASH)))
def test_readme_bash_block_runs(i, tmp_path):
    lines = commands(BASH[i][1])
    assert lines
    for words in lines:
        assert words[0] == "barcelona-ai", words
        args = small_command(words[1:])
        p = subprocess.run([sys.executable, "-m", "barcelona_ai", *args], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, (args, p.stdout[-2000:], p.stderr[-2000:])
        assert "Traceback" not in p.stderr


@cache
def help_text(command: str) -> str:
    p = subprocess.run([sys.executable, "-m", "barcelona_ai", command, "--help"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, (command, p.stderr)
    return p.stdout


CONSOLE = [words for _, text in blocks("console") for words in commands(text, prompt="$ ")]


def test_the_console_blocks_show_only_our_commands_and_ray_s():
    assert CONSOLE and {words[0] for words in CONSOLE} <= {"barcelona-ai", "ray"}


@pytest.mark.parametrize("words", [w for w in CONSOLE if w[0] == "barcelona-ai"], ids=" ".join)
def test_readme_console_command_exists(words):
    text = help_text(words[1])
    for option in (w for w in words[2:] if w.startswith("--")):
        assert re.search(rf"(^|[\s\[]){re.escape(option)}\b", text), (words[1], option)


def test_the_readme_is_short_and_narrow():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 350
    assert [n for n, line in enumerate(lines, 1) if len(line) > 120] == []


DOCS = [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "docs" / "measurements").glob("*.md"))]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_speak_to_their_readers(path):
    """No work-log words: the docs say what is, with dates and commits, not who did what when."""
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"session", text, re.I)
    assert not re.search(r"issue #\d+", text, re.I)


@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "measurements").glob("*.md")), ids=lambda p: p.name)
def test_the_measurement_pages_are_narrow(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [n for n, line in enumerate(lines, 1) if len(line) > 120] == []
