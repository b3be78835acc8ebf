"""The engine's levels (search.levels): ordered by iterations, each named and described as the README and the
measurement page show it; --level NAME on the command line (cli.args)."""
import re
from pathlib import Path

import pytest

from barcelona_ai.cli import args as A
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.search.levels import DEFAULT_LEVEL, LEVELS, level, level_names

ROOT = Path(__file__).resolve().parent.parent


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_levels_are_ordered_by_iterations_and_time():
    its = [lv.iterations for lv in LEVELS]
    assert len(LEVELS) >= 2 and its == sorted(set(its)) and its[0] >= 1
    secs = [lv.seconds for lv in LEVELS]
    assert secs == sorted(secs) and secs[0] > 0


def test_each_level_has_a_one_word_name_and_a_one_line_description():
    names = [lv.name for lv in LEVELS]
    assert len({n.lower() for n in names}) == len(names)
    for lv in LEVELS:
        assert re.fullmatch(r"[A-Z][a-z]+", lv.name), lv.name
        assert lv.description and "\n" not in lv.description and len(lv.description) <= 100, lv.description
        assert "TODO" not in lv.description and "ismcts" not in lv.description, lv.description
    assert level(DEFAULT_LEVEL).name == DEFAULT_LEVEL


def test_the_readme_and_the_measurements_show_every_level():
    readme = flat((ROOT / "README.md").read_text(encoding="utf-8"))
    page = flat((ROOT / "docs" / "measurements" / "levels.md").read_text(encoding="utf-8"))
    for lv in LEVELS:
        assert lv.name in readme and flat(lv.description) in readme, lv
        assert lv.name in page and f"{lv.iterations:,}" in page, lv


def test_a_level_is_found_by_its_name_in_any_case():
    for lv in LEVELS:
        assert level(lv.name.upper()) is lv and level(f" {lv.name.lower()} ") is lv
    with pytest.raises(BarcelonaError, match="no level 'grandmaster': the levels are " + level_names()):
        level("grandmaster")


def parser() -> A.Parser:
    p = A.Parser(prog="barcelona-ai play")
    p.add_argument("--iterations", type=A.iterations, default=None)
    A.add_level_option(p)
    return p


def test_level_gives_its_iterations():
    for lv in LEVELS:
        args = parser().parse_args(["--level", lv.name.lower()])
        assert args.level is lv and args.iterations == lv.iterations
    assert parser().parse_args([]).iterations is None and parser().parse_args([]).level is None


def test_an_unknown_level_is_an_error_naming_the_option(capsys):
    with pytest.raises(SystemExit) as exc:
        parser().parse_args(["--level", "grandmaster"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: argument --level: expected a level, ") and "'grandmaster'" in err
    assert all(lv.name in err for lv in LEVELS) and err.count("\n") == 1


def test_the_help_lists_the_levels(capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(["--help"])
    out = flat(capsys.readouterr().out)
    assert all(f"{lv.name} {lv.iterations:,}" in out for lv in LEVELS)
