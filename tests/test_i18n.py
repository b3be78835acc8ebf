"""The message catalogs (barcelona_ai/i18n): every message marked in the code is in the French and the Japanese
catalog, translated and not fuzzy, and their compiled files are up to date; the marks translate in the language of
their context, which never leaks into another context and is refused by name when the board does not speak it.
The game terms translated are those of the glossary (each language's rulebook)."""
import json
import threading
from pathlib import Path

import pytest

from barcelona_ai.errors import BarcelonaError
from barcelona_ai.i18n.messages import LANGUAGES, check_language, current_language, language, ntr, tr, use_language
from barcelona_ai.rules.words import CLASS_WORDS, CONDITION_WORDS, GRANT_WORDS, PUBLIC_SERVICE_WORDS, SOURCE_WORDS

catalogs = pytest.importorskip("barcelona_ai.i18n.catalogs", reason="needs Babel (the [i18n] extra)")
pytest.importorskip("babel")

I18N = Path(catalogs.HERE)


def test_every_marked_message_is_translated_in_every_language_and_compiled():
    assert catalogs.problems() == []


def test_the_catalogs_hold_the_words_of_the_game():
    """The names of words.py are marked: the template holds each of them."""
    template = {m.id for m in catalogs.extract_template() if m.id}
    names = ({name for name, _ in CONDITION_WORDS.values()} | {name for name, _ in PUBLIC_SERVICE_WORDS.values()}
             | set(GRANT_WORDS.values()) | set(SOURCE_WORDS.values()) | set(CLASS_WORDS))
    assert names <= template, sorted(names - template)


def test_a_mark_speaks_the_language_of_its_context_only():
    assert tr("Place Cobblestone") == "Place Cobblestone"
    with language("fr"):
        assert current_language() == "fr"
        french = tr("Place Cobblestone")
        assert french != "Place Cobblestone" and french == catalogs.compiled("fr")["messages"]["Place Cobblestone"]
        seen = []
        t = threading.Thread(target=lambda: seen.append(tr("Place Cobblestone")))
        t.start()
        t.join()
        assert seen == ["Place Cobblestone"]                  # another thread speaks its own language (English)
    assert current_language() == "en" and tr("Place Cobblestone") == "Place Cobblestone"
    assert tr("a sentence no catalog holds") == "a sentence no catalog holds"


def test_a_count_takes_the_languages_own_plural():
    assert [ntr("{n} step", "{n} steps", n) for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]
    with language("fr"):                                       # no catalog entry: the English forms, French rule
        assert ntr("{n} step", "{n} steps", 1) == "1 step"


@pytest.mark.parametrize("code, read", [("fr", "fr"), ("fr_FR.UTF-8", "fr"), ("ja-JP", "ja"), ("EN", "en")])
def test_a_language_is_read_from_its_code_or_locale(code, read):
    assert check_language(code) == read


def test_a_language_the_board_does_not_speak_is_refused_by_name_and_changes_nothing():
    with pytest.raises(BarcelonaError, match=r"^--lang: the board speaks en \(English\), fr \(Français\), ja "
                                             r"\(日本語\), not 'de'$"):
        use_language("de")
    assert current_language() == "en"
    with pytest.raises(BarcelonaError, match="^lang: "):
        check_language("xx", field="lang")


def test_each_compiled_catalog_is_its_language_with_its_plural_rule():
    for code in LANGUAGES:
        if code != "en":
            doc = json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))
            assert doc["format"] == "barcelona-catalog" and doc["language"] == code and doc["messages"]
    assert json.loads((I18N / "ja.json").read_text(encoding="utf-8"))["plural"].strip("() ") == "0"


def _glossary() -> dict:
    return json.loads((I18N / "glossary.json").read_text(encoding="utf-8"))


def test_the_glossary_cites_the_rulebook_of_each_language_for_every_term():
    doc = _glossary()
    assert doc["format"] == "barcelona-glossary" and set(doc["sources"]) == set(LANGUAGES)
    kinds = {"action", "building", "component", "other", "resource", "scoring", "track"}
    for term in doc["terms"]:
        assert term["kind"] in kinds, term
        for code in LANGUAGES:
            assert term[code].strip() and term["cite"][code].strip() and term["section"][code].strip(), term
    names = [term["en"] for term in doc["terms"]]
    assert len(names) == len(set(names))


def test_the_catalogs_use_the_glossarys_terms():
    """A message that is a glossary term (its name, or the short name the board shows) translates as the glossary
    says, in every language: the catalogs and the glossary never disagree."""
    messages = {code: catalogs.compiled(code)["messages"] for code in LANGUAGES if code != "en"}
    checked = 0
    for term in _glossary()["terms"]:
        for names in (term, term.get("short")):
            if names and names["en"] in messages["fr"]:
                checked += 1
                assert all(messages[code][names["en"]] == names[code] for code in messages), names
    assert checked >= 15
