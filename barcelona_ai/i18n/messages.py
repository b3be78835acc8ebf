"""The words a player reads, in the player's language: English (the source), French and Japanese.

A sentence a player reads is written in English in the code and marked: ``tr("Place Cobblestone")`` where it is
shown, ``ntr("{n} Coin", "{n} Coins", n)`` where it depends on a count, and ``N_("...")`` where a table holds it
before it is shown (``N_`` only marks it for the catalogs; ``tr`` of the table's value translates it). The
catalogs beside this module hold the translations: ``fr.po`` and ``ja.po`` (gettext catalogs, the form
translators edit with any PO editor; ``python -m barcelona_ai.i18n.catalogs`` builds them from the code) and
their compiled form ``fr.json`` and ``ja.json``, which this module reads and the web page can read too. The game
terms in them are those of each language's rulebook (``glossary.json``).

The language is chosen for a context (a ``contextvars`` variable: a thread, a web request), English unless set:
``use_language("fr")`` or ``with language("ja"):``. It never changes a move, a number or a saved file: moves,
coordinates and files are the same in every language.
"""
from __future__ import annotations

import contextvars
import gettext
import json
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator

from ..errors import BarcelonaError

HERE = Path(__file__).resolve().parent
SOURCE_LANGUAGE = "en"
LANGUAGES = {"en": "English", "fr": "Français", "ja": "日本語"}     # code -> the language's own name
CATALOG_FORMAT = "barcelona-catalog"

_current: contextvars.ContextVar[str] = contextvars.ContextVar("barcelona_language", default=SOURCE_LANGUAGE)


class Catalog:
    """One language's compiled catalog: messages by English text, and its plural rule."""

    def __init__(self, code: str, messages: dict[str, "str | list[str]"], plural: str):
        self.code, self.messages, self.plural_rule = code, messages, plural
        self._plural: Callable[[int], int] = gettext.c2py(plural)

    def text(self, message: str) -> str:
        found = self.messages.get(message)
        return found if isinstance(found, str) and found else message

    def plural(self, singular: str, plural: str, n: int) -> str:
        forms = self.messages.get(singular)
        if isinstance(forms, list) and forms:
            return forms[min(self._plural(n), len(forms) - 1)] or (singular if n == 1 else plural)
        return singular if n == 1 else plural


def check_language(code: str, field: str = "--lang") -> str:
    """`code` if it names a language the board speaks ('en', 'fr', 'ja'; 'fr_FR.UTF-8' and 'ja-JP' read as
    'fr' and 'ja'), else a BarcelonaError naming `field` and the choices."""
    short = str(code).replace("-", "_").split(".")[0].split("_")[0].lower()
    if short not in LANGUAGES:
        choices = ", ".join(f"{c} ({name})" for c, name in LANGUAGES.items())
        raise BarcelonaError(f"{field}: the board speaks {choices}, not {str(code)[:40]!r}")
    return short


@lru_cache(maxsize=None)
def catalog(code: str) -> Catalog:
    """The compiled catalog of language `code` (English: the identity)."""
    code = check_language(code)
    if code == SOURCE_LANGUAGE:
        return Catalog(code, {}, "n != 1")
    path = HERE / f"{code}.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("format") != CATALOG_FORMAT or doc.get("language") != code:
        raise BarcelonaError(f"{path}: not the compiled {code} catalog")
    return Catalog(code, doc["messages"], doc["plural"])


def current_language() -> str:
    return _current.get()


def use_language(code: str) -> str:
    """Speak language `code` in this context from now on; returns the code read ('fr' for 'fr_FR.UTF-8')."""
    code = check_language(code)
    catalog(code)
    _current.set(code)
    return code


@contextmanager
def language(code: str) -> Iterator[str]:
    """Speak language `code` for the ``with`` body."""
    token = _current.set(check_language(code))
    try:
        catalog(_current.get())
        yield _current.get()
    finally:
        _current.reset(token)


def tr(message: str) -> str:
    """`message` (its English text) in the current language."""
    return catalog(_current.get()).text(message)


def ntr(singular: str, plural: str, n: int) -> str:
    """The form for count `n` of a message whose English has a singular and a plural, in the current language,
    with ``{n}`` filled in."""
    return catalog(_current.get()).plural(singular, plural, n).replace("{n}", str(n))


def N_(message: str) -> str:
    """Mark `message` for the catalogs where a table holds it; ``tr`` translates it where it is shown."""
    return message


__all__ = ["LANGUAGES", "SOURCE_LANGUAGE", "Catalog", "catalog", "check_language", "current_language",
           "use_language", "language", "tr", "ntr", "N_"]
