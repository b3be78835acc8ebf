"""One way into the rules core: the raw StateC dicts stay behind the position loader.

The core (core.pyx) turns raw dicts of StateC fields into states and back (State.raw(), State._set_raw(),
State._from_raw()); the position loader (barcelona_ai/rules/position.py) is the one module that hands it such a dict,
after checking every field of a position document. Everything else reads a state through State.view() and
builds one through the loader (State.from_json, tests/helpers.py edit()), so a change to core.pxd breaks nothing
above the loader. This test finds every use of the raw path in the package and the tests.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW_PATH = re.compile(r"\.raw\(|\b_?set_raw\b|\b_?from_raw\b")

ALLOWED = {
    "barcelona_ai/core.pyx",          # the core: builds states from raw dicts, writes them
    "barcelona_ai/rules/position.py",       # the position loader: the validated way in
    # tests of the raw path itself:
    "tests/test_raw_path.py",         # the core's memory guard on raw dicts, _set_raw(raw()) exact, the Python
    #                                   reference checker (invariants.check_raw, on raw dicts) against the C one,
    #                                   a state built from an observation
    "tests/test_view.py",             # State.view() checked field by field against raw(), its oracle
    "tests/test_boundary.py",         # this file (the pattern above)
}


def _sources():
    for pattern in ("barcelona_ai/*.py", "barcelona_ai/*.pyx", "barcelona_ai/*.pxd", "tests/*.py"):
        yield from sorted(ROOT.glob(pattern))


def test_the_raw_path_is_used_only_by_the_core_the_loader_and_its_own_tests():
    found = {}
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        hits = [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if RAW_PATH.search(line)]
        if hits and rel not in ALLOWED:
            found[rel] = hits
    assert not found, f"raw()/_set_raw()/_from_raw() outside the core and the position loader: {found}"


def test_the_pattern_finds_what_it_is_for():
    for line in ("s.raw()", "t._set_raw(r)", "State._from_raw(r, ed)", "hasattr(State, 'set_raw')"):
        assert RAW_PATH.search(line), line
    for line in ('ED.raw["citizens"]', "hidden_draw(s, a)", "s.draw()", "raw = 1", "load_edition(x).raw"):
        assert not RAW_PATH.search(line), line
