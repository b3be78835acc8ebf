"""The web board's form of the guided editor (workflows/board_editor.py): the questions of each part of the box
with their default answers and the part drawn, and the edition a filled form makes, kept by the server under
its name for the games it then plays (a request names an edition, never a path)."""
from __future__ import annotations

from typing import Any

from ..errors import BarcelonaError
from ..rules.tables import build_edition
from ..rules.words import edition_words
from ..workflows import board_editor as E
from .api import Editions, WebRequestError, _check_keys

MAX_MADE = 16                      # editions made on one server (each one's games name it)
FORM_FIELDS = {"from", "name", "answers"}


def form_document(editions: Editions, source: Any) -> dict:
    """The form for a board made from edition `source` (a name the server plays; None: its default): every
    part's drawing and questions, each with the answer the edition gives."""
    ed = editions.named(source, "from")
    doc = ed.raw
    return {"from": {"name": ed.name, "words": edition_words(ed)}, **editions.listing(),
            "parts": [{"part": part, "drawing": E.draw(doc, part),
                       "questions": [{"key": q.key, "label": q.label, "kind": q.kind, "answer": q.answer(doc),
                                      "choices": [E.choice_words(c) for c in q.choices]}
                                     for q in E.questions(part)]}
                      for part in E.PARTS]}


def make_edition(editions: Editions, body: dict) -> dict:
    """The edition a filled form makes ({"from", "name", "answers": {key: text}}), checked whole and added to
    the editions the server plays: its name, how a player reads it, its digest and its board-data document (to
    download and play elsewhere with --edition FILE)."""
    _check_keys(body, FORM_FIELDS, "the board form")
    source = editions.named(body.get("from"), "from")
    answers = body.get("answers") or {}
    if not isinstance(answers, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in answers.items()):
        raise WebRequestError("answers: expected an object of question key -> answer text")
    name = body.get("name")
    if not isinstance(name, str):
        raise WebRequestError("name: expected the new board's name")
    if name in editions.shipped:
        raise WebRequestError(f"name: {name!r} is a shipped edition's name; give your board its own")
    try:
        doc = E.edit(source, answers, name)
    except BarcelonaError as exc:
        raise WebRequestError(str(exc)) from None
    ed = build_edition(doc, source=name)
    have = editions.by_name.get(name)
    if have is not None and have.sha256 != ed.sha256:
        raise WebRequestError(f"name: this server already plays a board named {name!r} with other values; "
                              "give this one another name")
    if have is None and len(editions.by_name) - len(editions.shipped) >= MAX_MADE:
        raise WebRequestError(f"name: this server plays {MAX_MADE} boards made here already (restart it to "
                              "make more)")
    editions.by_name.setdefault(name, ed)
    ed = editions.by_name[name]
    return {"name": ed.name, "words": edition_words(ed), "sha256": ed.sha256, "document": ed.raw,
            "changed": [{"part": q.part, "label": q.label, "answer": mine, "default": base}
                        for q, base, mine in E.differences(ed.raw, source)], **editions.listing()}


__all__ = ["form_document", "make_edition", "MAX_MADE"]
