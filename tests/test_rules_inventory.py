"""The rules inventory (docs/rules-inventory.md) is the project's own rules reference: it numbers every rule
(R1-R128) and ruling (A1-A48) once, and every number or section the code, the tests and the docs cite exists in
it. The package and the tests read only the repository's copy."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INVENTORY = ROOT / "docs" / "rules-inventory.md"
SOURCES = (".py", ".pyx", ".pxd", ".md")

# An item is defined by a list line that starts with its bold number: "- **R12** ..." or "- **A1 Title.** ...".
_DEFINED = re.compile(r"^- \*\*([RA]\d{1,3})\b", re.M)
# A citation: R or A and a number, not inside a longer word or number (so A_ACTIONS, 0xA1, PR12 are not
# citations) but allowed next to an underscore (test_R127_...). Ranges (R10-R32, A13–A20) cite both ends.
_CITED = re.compile(r"(?<![A-Za-z0-9])([RA]\d{1,3})(?![A-Za-z0-9])")
_HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.?\s", re.M)
_SECTION_CITED = re.compile(r"rules-inventory(?:\.md)?\)?[ \t]+(?:section[ \t]+|§)(\d+(?:\.\d+)?)")


def _files():
    for top in ("barcelona_ai", "tests", "docs"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in SOURCES and path != INVENTORY:
                yield path
    yield ROOT / "README.md"


def _defined() -> list[str]:
    return _DEFINED.findall(INVENTORY.read_text(encoding="utf-8"))


def test_every_rule_and_ruling_is_numbered_once_without_gaps():
    ids = _defined()
    assert len(ids) == len(set(ids)), sorted(i for i in set(ids) if ids.count(i) > 1)
    rules = sorted(int(i[1:]) for i in ids if i[0] == "R")
    rulings = sorted(int(i[1:]) for i in ids if i[0] == "A")
    assert rules == list(range(1, 129))
    assert rulings == list(range(1, 49))


def test_every_cited_number_exists_in_the_inventory():
    defined = set(_defined())
    unknown = {}
    for path in _files():
        for cited in _CITED.findall(path.read_text(encoding="utf-8", errors="replace")):
            if cited not in defined:
                unknown.setdefault(cited, set()).add(str(path.relative_to(ROOT)))
    assert not unknown, f"cited but not in docs/rules-inventory.md: {unknown}"


def test_the_citation_pattern():
    text = "R10-R32, A13–A20, test_R127_shared, A_ACTIONS, 0xA1, PR12, R1000, (A6), R73."
    assert _CITED.findall(text) == ["R10", "R32", "A13", "A20", "R127", "A6", "R73"]


def test_every_cited_section_exists_in_the_inventory():
    sections = set(_HEADING.findall(INVENTORY.read_text(encoding="utf-8")))
    assert {"0", "1.12", "4.13", "5", "6"} <= sections
    unknown = {}
    for path in _files():
        for cited in _SECTION_CITED.findall(path.read_text(encoding="utf-8", errors="replace")):
            if cited not in sections:
                unknown.setdefault(cited, set()).add(str(path.relative_to(ROOT)))
    assert not unknown, f"sections cited but not in docs/rules-inventory.md: {unknown}"


def test_the_readme_links_the_inventory():
    assert "(docs/rules-inventory.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_nothing_reads_material_outside_the_repository():
    """The inventory is the repository's own document: no module or test points at a folder outside it."""
    outside = ("../" + "shared", "shared/" + "rules", "/work/" + "shared")
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        hits = [needle for needle in outside if needle in text]
        assert not hits, f"{path.relative_to(ROOT)} names {hits}"
