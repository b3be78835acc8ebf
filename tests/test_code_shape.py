"""The code stays readable. The rules live in ruff's configuration (pyproject.toml, [tool.ruff]), which
CI runs as `ruff check .`: no line wider than 120 columns (E501) and no function with too many statements
(PLR0915, the former 80-line limit) in the Python sources: the package, the tests and bench/.

Ruff does not read Cython: the width of the .pyx/.pxd sources is checked here, against ruff's line-length, so that
there is one number. Checked here too, as ruff has no rule for them: no module of the package above 800 lines, and
comments and docstrings that explain the code as it is, without the number of the issue that asked for it."""
import re
import tomllib
from pathlib import Path

import barcelona_ai

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(barcelona_ai.__file__).parent


def ruff_settings() -> dict:
    return tomllib.loads(ROOT.joinpath("pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]


def cython_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.pyx")) + sorted(PACKAGE.rglob("*.pxd"))


def wide_lines(paths, columns: int):
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if len(line) > columns:
                yield f"{path.name}:{n} ({len(line)} columns)"


def test_ruff_checks_the_width_and_the_length_of_functions():
    ruff = ruff_settings()
    assert ruff["line-length"] == 120
    selected = ruff["lint"]["select"]
    assert "E" in selected or "E501" in selected
    assert "PLR0915" in selected and ruff["lint"]["pylint"]["max-statements"] <= 75


def test_no_cython_line_wider_than_ruffs_line_length():
    assert list(wide_lines(cython_files(), ruff_settings()["line-length"])) == []


def test_the_cython_width_check_reads_the_cython_sources(tmp_path):
    names = {p.name for p in cython_files()}
    assert {"core.pyx", "core.pxd", "tree.pyx", "tree.pxd", "evaluation.pyx", "evaluation.pxd"} <= names
    probe = tmp_path / "probe.pyx"
    probe.write_text("cdef int x = 1\n" + "# " + "x" * 119 + "\n", encoding="utf-8")
    assert list(wide_lines([probe], 120)) == ["probe.pyx:2 (121 columns)"]


MAX_MODULE_LINES = 800
# "issue" and a number, written so that this file does not match itself
ISSUE_NUMBER = re.compile(r"(?<![a-z])issue" + r"[ _#]*#?\d+", re.I)


def sources() -> list[Path]:
    return [p for folder in (PACKAGE, ROOT / "tests", ROOT / "bench") for p in sorted(folder.rglob("*"))
            if p.suffix in (".py", ".pyx", ".pxd")]


def test_no_module_above_800_lines():
    long = [f"{p.relative_to(ROOT)} ({n} lines)" for p in sorted(PACKAGE.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert long == []


def test_no_issue_numbers_in_the_sources():
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sources()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if ISSUE_NUMBER.search(line)]
    assert found == []


def test_the_issue_number_check_sees_them():
    assert ISSUE_NUMBER.search("a reader (issue" + " #8): one boundary")
    assert ISSUE_NUMBER.search("def test_issue" + "8_refresh():")
    assert not ISSUE_NUMBER.search("an issue with the file")
