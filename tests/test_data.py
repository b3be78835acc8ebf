"""The board-data file: loaded, validated, errors name the field; no printed number lives in code."""
import copy
import hashlib
import io
import json
import re
import tokenize
from importlib import resources
from pathlib import Path

import pytest

from barcelona_ai import DataFileError, new_game
from barcelona_ai.rules.tables import build_edition, load_edition

DOC = json.loads((resources.files("barcelona_ai") / "data" / "default.json").read_text())


def broken(path, value):
    doc = copy.deepcopy(DOC)
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


def test_default_edition_summary_is_pinned():
    """An edit of the data file is a deliberate change: update this checksum in the same commit."""
    ed = load_edition("default")
    assert ed.name == "default"
    assert len(ed.t["opt_space"]) == 216           # construction options: 12*(6+6+4) + 8*3
    assert sum(ed.t["citizens"]) == 72
    digest = hashlib.sha256(json.dumps(DOC, sort_keys=True).encode()).hexdigest()[:16]
    assert digest == PINNED_DIGEST, digest


PINNED_DIGEST = "44da932618b114ec"


@pytest.mark.parametrize("path,value,field", [
    (["citizens", "UPPER"], 22, "citizens"),
    (["public_services", "benefits", "UNIVERSITAT"], "GOLD1", "public_services.benefits.UNIVERSITAT"),
    (["public_services", "benefits", "UNIVERSITAT"], KeyError, "public_services.benefits"),
    (["streets", "benefits", "V(0,0)"], "GOLD1", "streets.benefits.V(0,0)"),
    (["streets", "benefits", "V(0,1)"], KeyError, "streets.benefits.V(0,1)"),
    (["streets", "wide"], ["V(2,0)", "X(9,9)"], "streets.wide"),
    (["crossing_cost_coins", "(2,2)"], "one", "crossing_cost_coins.(2,2)"),
    (["action_tiles"], ["GAIN_2_COINS"] * 11, "action_tiles"),
    (["citizen_tracks", "UPPER", "marks"], [3, 8], "citizen_tracks.UPPER.marks"),
    (["citizen_tracks", "WORKING", "marks"], [4, 10, 40], "citizen_tracks.WORKING.marks"),
    (["cerda_track", "multiplier"], [0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 2], "cerda_track.multiplier"),
    (["sidewalk", "rows"], [["VP5"] * 6] * 5, "sidewalk.rows"),
    (["player_board", "building_marker_stacks"], [2, 2, 2, 2, 1], "player_board.building_marker_stacks"),
    (["player_board", "modernisme_spaces", 2, "top"], 1, "player_board.modernisme_spaces[2]"),
    (["modernisme_tiles"], DOC["modernisme_tiles"][:17], "modernisme_tiles"),
    (["cerda_tiles", 0], "SC99", "cerda_tiles"),
    (["conditions", "SC05", "name"], "ADJACENT", "conditions.SC05.name"),
    (["sagrada_tiles", "1", 0], "RES9", "sagrada_tiles.1[0]"),
    (["buildings", "L3", "count"], 6, "buildings"),
    (["public_services", "types", 0], "OPERA", "public_services.types"),
    (["grid", "size"], 6, "grid.size"),
    (["citizen_tracks", "MIDDLE", "vp"], [1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10, 9],
     "citizen_tracks.MIDDLE.vp"),
    (["player_board", "intersections", "benefit", 0], "SAGRADA1", "player_board.intersections.benefit[0]"),
    (["action_titles"], KeyError, "action_titles"),
    (["action_titles"], ["Gain 2 Coins"] * 11, "action_titles"),
    (["action_titles", "MOVE_TRAM"], KeyError, "action_titles.MOVE_TRAM"),
    (["action_titles", "MOVE_TRAM"], 7, "action_titles.MOVE_TRAM"),
    (["action_titles", "MOVE_TRAM"], "", "action_titles.MOVE_TRAM"),
    (["action_titles", "MOVE_TRAM"], "   ", "action_titles.MOVE_TRAM"),
    (["action_titles", "MOVE_TRAM"], "Move your\nTram", "action_titles.MOVE_TRAM"),
    (["action_titles", "MOVE_TRAM"], "x" * 41, "action_titles.MOVE_TRAM"),
    (["action_titles", "FLY"], "Fly", "action_titles.'FLY'"),
])
def test_bad_data_names_the_field(path, value, field):
    with pytest.raises(DataFileError, match=re.escape(f"field '{field}'")):
        build_edition(broken(path, value), source="test.json")


def test_unknown_edition_and_missing_file(tmp_path):
    with pytest.raises(DataFileError, match="unknown edition"):
        load_edition("deluxe")
    with pytest.raises(DataFileError, match="unknown edition"):
        new_game(4, edition="../etc/passwd")
    with pytest.raises(DataFileError, match="does not exist"):
        load_edition(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(DataFileError, match="not valid JSON"):
        load_edition(str(bad))


def test_an_edited_edition_changes_the_game(tmp_path):
    """A user who owns the printed game corrects a value in a copy of the data file; the engine follows it."""
    doc = copy.deepcopy(DOC)
    doc["edition"] = "corrected"
    doc["building_bonus_vp"] = 9
    f = tmp_path / "corrected.json"
    f.write_text(json.dumps(doc))
    s = new_game(4, seed=1, edition=str(f))
    assert s.edition == "corrected"
    assert s.game_data.edition.t["bonus_vp"] == 9


# ---------------------------------------------------------------------------------------------------------------
# No printed number in code: costs, VP, track values and their sequences come from the data file.

PKG = Path(str(resources.files("barcelona_ai")))
_INT = r"(?<![\w.])-?\d+(?![\w.])"                  # an integer literal (not in a name, a float, 0xFF or 10_000)
_RUN = re.compile(rf"{_INT}(?:\s*,\s*{_INT})+")     # several: a literal list, tuple or set, or arguments
_QUANTITY = r"(?:vp|score|cost|coin|cloth|cerda|sagrada|mult|bonus|cobble|passenger|points|reward)"
_NAME = rf"[\w.]*{_QUANTITY}[\w.]*(?:\[[^\]\n]*\])?"      # pl.score, vp_src[k], COBBLE_VP, cost
_OP = r"(?:[-+*/%]?=|[<>=!]=|[<>+\-*])"
_USES = (re.compile(rf"(?i){_NAME}\s*{_OP}\s*\(?\s*({_INT}(?:\s*,\s*{_INT})*)"),   # score += 5; vp = 7; a, b = 9, 6
         re.compile(rf"(?i)({_INT})\s*{_OP}\s*{_NAME}"),                         # 10 + pl.score; 4 <= pl.cerda
         re.compile(rf"(?i)\b\w*{_QUANTITY}\w*\s*\(([^()\n]*)\)"))               # add_vp(s, p, 10)
_CYTHON_SKIP = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|#[^\n]*')

# The only places where such a number may stand in code, each with its reason (file, regex on the source line).
ALLOWED = [
    ("position_fields.py", r"^(E|GK)_\w+(, (E|GK)_\w+)* = \d",
     "ids of effect codes and granted actions (tables.EFFECT_CODES / GRANT_KINDS order), not amounts"),
    ("tables.py", r"^NUM_SAGRADA = 16\b", "how many Sagrada tiles the box holds: an array size (core.pxd NSAG)"),
    ("tables.py", r"\[\"bld_count\"\] != \[8, 12, 8, 7\]",
     "the box's Building tile counts (R3) are checked against the file, not read from code"),
    ("core.pyx", r"^INV_\w+ = \d+\b", "invariant codes (ids of invariants.py messages), not amounts"),
]


def _walk(node):
    yield node
    for child in node.values() if isinstance(node, dict) else node if isinstance(node, list) else ():
        yield from _walk(child)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def printed_sequences(doc) -> dict[str, tuple[int, ...]]:
    """The distinctive sequences of numbers printed in the data file: every list of integers (track VP, Cerdà
    multipliers, Cerdà marks, cobblestone and passenger VP ...) and every column of a list or table of records
    (Public Service VP, Modernisme space costs, Building tile counts ...). Not distinctive: fewer than 3 numbers,
    constant or counting by one (anyone writes 0, 1, 2), or short (< 5) runs of numbers below 4."""
    def walk(node, path):
        if isinstance(node, list) and len(node) >= 3 and all(_is_int(x) for x in node):
            yield path, tuple(node)
        rows = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else []
        if len(rows) >= 3 and all(isinstance(r, dict) for r in rows):
            for key in rows[0]:
                column = [r.get(key) for r in rows]
                if all(_is_int(x) for x in column):
                    yield f"{path}[*].{key}", tuple(column)
        for key, child in node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) \
                else ():
            yield from walk(child, f"{path}.{key}" if path else str(key))

    def distinctive(seq):
        steps = {b - a for a, b in zip(seq, seq[1:])}
        return steps not in ({0}, {1}, {-1}) and (len(seq) >= 5 or max(seq) >= 4)
    return {path: seq for path, seq in walk(doc, "") if distinctive(seq)}


def printed_values(doc) -> set[int]:
    """The distinctive numbers printed in the data file: every integer >= 4 it holds (VP, costs, track spaces and
    values, counts), amounts in effect strings included (VP7, RES4 ...)."""
    out = set()
    for node in _walk(doc):
        if _is_int(node):
            out.add(node)
        elif isinstance(node, str):
            out.update(abs(int(m)) for m in re.findall(r"[A-Z](-?\d+)", node))
    return {v for v in out if v >= 4}


def code_text(src: str, suffix: str) -> str:
    """`src` with comments, docstrings and other strings blanked (lines and columns kept): ``tokenize`` for
    Python, a regex for Cython (.pyx, .pxd)."""
    if suffix != ".py":
        return _CYTHON_SKIP.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), src)
    lines = [list(line) for line in src.splitlines(keepends=True)]
    skip = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in skip:
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                line = lines[r - 1]
                for c in range(c0 if r == r0 else 0, c1 if r == r1 else len(line)):
                    if line[c] != "\n":
                        line[c] = " "
    return "".join("".join(line) for line in lines)


def printed_numbers(src: str, suffix: str, sequences: dict, values: set[int]) -> list[tuple[int, str]]:
    """(line, what) for each printed sequence written as a literal run of numbers in code, and, in .py and .pyx
    code, each printed value used with a game quantity (assigned to it, added to it, compared with it, passed to a
    function named after it)."""
    text = code_text(src, suffix)
    out = []
    for m in _RUN.finditer(text):
        nums = tuple(int(x) for x in re.findall(_INT, m.group(0)))
        for path, seq in sequences.items():
            if any(nums[i:i + len(seq)] == seq for i in range(len(nums) - len(seq) + 1)):
                out.append((text.count("\n", 0, m.start()) + 1, f"the sequence {path} {list(seq)}"))
    if suffix in (".py", ".pyx"):
        for i, line in enumerate(text.splitlines(), 1):
            for pattern in _USES:
                for m in pattern.finditer(line):
                    for x in re.findall(_INT, m.group(1)):
                        if abs(int(x)) in values:
                            out.append((i, f"the value {x} with a game quantity"))
    return sorted(set(out))


SEQUENCES = printed_sequences(DOC)
VALUES = printed_values(DOC)


def test_the_printed_numbers_are_collected():
    assert SEQUENCES["cerda_track.multiplier"] == (0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 4)
    for path in ("citizen_tracks.UPPER.vp", "player_board.warehouse.cobblestone_end_vp",
                 "player_board.passengers.end_vp", "public_services.stack[*].vp", "citizen_tracks.WORKING.marks",
                 "player_board.intersections.cost_coins", "player_board.modernisme_spaces[*].top"):
        assert path in SEQUENCES, path
    assert "player_board.sagrada_track.slots[*].level" not in SEQUENCES          # 1, 2, 3: not distinctive
    assert {5, 7, 10, 14, 15, 23} <= VALUES and not VALUES & {0, 1, 2, 3}


def test_no_printed_numbers_in_code():
    """No cost, VP or track value of the data file, and none of its sequences, is written in the package's code
    (barcelona_ai/**/*.py, *.pyx; sequences in *.pxd too), comments and docstrings aside, except where ALLOWED says
    why. Structural sizes (array lengths, ids) live in core.pxd enums and are not printed values."""
    found, used = [], set()
    files = sorted(PKG.rglob("*.py")) + sorted(PKG.rglob("*.pyx")) + sorted(PKG.rglob("*.pxd"))
    assert len(files) > 20 and {"core.pyx", "tree.pyx", "tables.py", "render.py"} <= {f.name for f in files}
    for path in files:
        src = path.read_text(encoding="utf-8")
        lines = src.splitlines()
        for lineno, what in printed_numbers(src, path.suffix, SEQUENCES, VALUES):
            line = lines[lineno - 1].strip()
            allowed = [k for k, (name, pattern, _) in enumerate(ALLOWED)
                       if name == path.name and re.search(pattern, line)]
            used.update(allowed)
            if not allowed:
                found.append(f"{path.name}:{lineno}: {what}: {line}")
    assert not found, "printed numbers in code (read them from the data file):\n" + "\n".join(found)
    unused = [ALLOWED[k][:2] for k in range(len(ALLOWED)) if k not in used]
    assert not unused, f"ALLOWED entries that allow nothing any more (remove them): {unused}"


@pytest.mark.parametrize("suffix,src,expect", [
    (".py", "COBBLE_VP = [1, 3, 5, 7, 10, 14]\n", "sequence player_board.warehouse.cobblestone_end_vp"),
    (".py", "def f(s):\n    return s.mult((0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 4))\n", "sequence cerda_track.multiplier"),
    (".py", "PS = {'vp': (10, 6, 3)}\n", "sequence public_services.stack[*].vp"),
    (".py", "pl.score += 7\n", "value 7"),
    (".py", "if pl.cerda >= 11:\n    pass\n", "value 11"),
    (".py", "add_vp(s, p, 15)\n", "value 15"),
    (".pyx", "cdef int PASS_VP[5]\nPASS_VP[:] = [2, 5, 10,\n              16, 23]\n",
     "sequence player_board.passengers.end_vp"),
    (".pyx", "    s.pl[p].vp_src[SRC_BONUS] += 5\n", "value 5"),
    (".pyx", "        cost = 10  # Public Service\n", "value 10"),
    (".py", '"""The track: [1, 3, 5, 7, 10, 14]; score += 7."""\nx = 1  # [2, 5, 10, 16, 23], vp = 7\n', None),
    (".pyx", '# cobbles [1, 3, 5, 7, 10, 14]\ncdef str s = "score += 7, [0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 4]"\n', None),
    (".py", "for i in range(5):\n    x = [0, 1, 2, 3]\n    y = (i + 4) * 16\n", None),
])
def test_the_printed_number_search_can_fail(suffix, src, expect):
    """The search finds a printed list or value planted in code, and nothing in comments, docstrings, strings or
    structural numbers."""
    hits = printed_numbers(src, suffix, SEQUENCES, VALUES)
    if expect is None:
        assert hits == []
    else:                                   # a planted sequence may also hold shorter printed ones
        assert any(expect in what for _, what in hits), hits
        assert all(what.startswith("the sequence") for _, what in hits) if "sequence" in expect else len(hits) == 1
