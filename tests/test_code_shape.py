"""The code stays readable. The rules live in ruff's configuration (pyproject.toml, [tool.ruff]), which
CI runs as `ruff check .`: no line wider than 120 columns (E501) and no function with too many statements
(PLR0915, the former 80-line limit) in the Python sources: the package, the tests and bench/.

Ruff does not read Cython: the width of the .pyx/.pxd sources is checked here, against ruff's line-length, so that
there is one number."""
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
