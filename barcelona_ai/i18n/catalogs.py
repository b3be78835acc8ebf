"""The message catalogs built from the code and compiled for reading, with Babel (the ``[i18n]`` extra, for
translators and the tests; the board itself reads only the compiled files).

    python -m barcelona_ai.i18n.catalogs update    # the marked messages of the code -> messages.pot, fr.po, ja.po
    python -m barcelona_ai.i18n.catalogs compile   # fr.po, ja.po -> fr.json, ja.json (what messages.py reads)
    python -m barcelona_ai.i18n.catalogs check     # every message translated, every compiled file up to date

``update`` reads the Python modules of the package (the marks ``tr``, ``ntr`` and ``N_`` of messages.py) and
keeps the translations already made; a message whose English changed comes back marked fuzzy, which ``check``
refuses until a translator has looked at it.
"""
from __future__ import annotations

import io
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..errors import BarcelonaError
from .messages import CATALOG_FORMAT, HERE, LANGUAGES, SOURCE_LANGUAGE

PACKAGE = HERE.parent
DOMAIN = "barcelona_ai"
TEMPLATE = HERE / "messages.pot"
KEYWORDS = {"tr": None, "ntr": (1, 2), "N_": None}
TRANSLATED = [code for code in LANGUAGES if code != SOURCE_LANGUAGE]
HEADER = {"project": DOMAIN, "version": "0.1.0", "copyright_holder": "the barcelona_ai authors",
          "msgid_bugs_address": "the project's issues", "last_translator": "the barcelona_ai authors",
          "language_team": "the barcelona_ai authors", "charset": "utf-8", "fuzzy": False}


def _header_comment(code: str) -> str:
    name = LANGUAGES.get(code, "the messages")
    return (f"# {name}: the words a player of barcelona_ai reads" + (" (the template: English)" if code == "" else "")
            + ".\n# Game terms as the rulebook of the language has them: glossary.json beside this file.\n"
            "# Built from the code by python -m barcelona_ai.i18n.catalogs update.")


def _babel():
    try:
        from babel.messages import catalog, extract, pofile
    except ImportError:
        raise BarcelonaError("the message catalogs are built with Babel: pip install 'barcelona_ai[i18n]'") from None
    return catalog, extract, pofile


def extract_template():
    """The catalog of every message marked in the package's Python modules (Babel's Catalog)."""
    catalog, extract, _ = _babel()
    template = catalog.Catalog(domain=DOMAIN, header_comment=_header_comment(""), **HEADER)
    for path in sorted(PACKAGE.rglob("*.py")):
        with path.open("rb") as f:
            for line, message, comments, _context in extract.extract("python", f, keywords=KEYWORDS,
                                                                      comment_tags=("Translators:",)):
                where = (path.relative_to(PACKAGE.parent).as_posix(), line)
                template.add(message, locations=[where], auto_comments=comments)
    return template


def read_catalog(code: str):
    _, _, pofile = _babel()
    path = HERE / f"{code}.po"
    with path.open("rb") as f:
        return pofile.read_po(f, locale=code, domain=DOMAIN)


def _write_po(cat, path: Path, **options) -> None:
    _, _, pofile = _babel()
    out = io.BytesIO()
    pofile.write_po(out, cat, width=116, omit_header=False, sort_output=True, include_lineno=False, **options)
    path.write_bytes(out.getvalue())


def update() -> None:
    """messages.pot from the code, and each language's .po brought up to it (translations kept)."""
    template = extract_template()
    _write_po(template, TEMPLATE)
    catalog, _, _ = _babel()
    for code in TRANSLATED:
        if (HERE / f"{code}.po").exists():
            cat = read_catalog(code)
        else:
            cat = catalog.Catalog(locale=code, domain=DOMAIN, header_comment=_header_comment(code), **HEADER)
        cat.update(template, update_header_comment=False)
        cat.revision_date = datetime.now(timezone.utc)
        _write_po(cat, HERE / f"{code}.po", ignore_obsolete=True)


def compiled(code: str) -> dict:
    """The compiled form of language `code`'s catalog: its translated messages by English text (a plural
    message: its forms in the order of the catalog's plural rule) and that rule."""
    cat = read_catalog(code)
    messages: dict[str, str | list[str]] = {}
    for m in cat:
        if not m.id or m.fuzzy:
            continue
        if m.pluralizable:
            forms = list(m.string)
            if all(forms):
                messages[m.id[0]] = forms
        elif m.string:
            messages[m.id] = m.string
    plural = cat.plural_expr
    return {"format": CATALOG_FORMAT, "language": code, "plural": plural, "messages": dict(sorted(messages.items()))}


def compile_catalogs() -> None:
    for code in TRANSLATED:
        (HERE / f"{code}.json").write_text(json.dumps(compiled(code), ensure_ascii=False, indent=0) + "\n",
                                           encoding="utf-8")


def problems() -> list[str]:
    """What keeps the catalogs from being whole: a message of the code missing from a language or left
    untranslated or fuzzy there, and a compiled file that is not its catalog's compiled form."""
    out = []
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in extract_template() if m.id}
    for code in TRANSLATED:
        cat = read_catalog(code)
        done = {m.id if isinstance(m.id, str) else m.id[0]: m for m in cat if m.id}
        for message in sorted(wanted):
            m = done.get(message)
            if m is None:
                out.append(f"{code}.po: missing {message!r} (run update)")
            elif m.fuzzy or not (all(m.string) if m.pluralizable else m.string):
                out.append(f"{code}.po: {message!r} is {'fuzzy' if m.fuzzy else 'not translated'}")
        path = HERE / f"{code}.json"
        if not path.exists() or json.loads(path.read_text(encoding="utf-8")) != compiled(code):
            out.append(f"{path.name}: not the compiled form of {code}.po (run compile)")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commands = {"update": update, "compile": compile_catalogs}
    if argv in (["update"], ["compile"]):
        commands[argv[0]]()
        return 0
    if argv == ["check"]:
        found = problems()
        print("\n".join(found) if found else "the catalogs are whole")
        return 1 if found else 0
    print("usage: python -m barcelona_ai.i18n.catalogs update|compile|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
