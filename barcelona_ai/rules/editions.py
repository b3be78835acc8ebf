"""Which edition a saved document (a position or a game record) belongs to, checked against the reader's choice.

Positions and records name the edition they were played under and the sha256 of its content
(tables.content_digest); this is the one rule every reader applies (docs/editions.md). A shipped edition whose
content changed keeps its former content under a name of its own (RENAMED): a document naming the old content is
read under that edition.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import DataFileError
from .jsonio import short_repr
from .tables import Edition, available_editions, edition_label, load_edition

# (the name a document carries, the digest of the content that name had) -> the shipped edition holding it now
RENAMED = {("default", "d3f002e85ad0814245d9f97eb23299bcb6e13d65d6b685a2953cdbef078cf60c"): "first-reconstruction"}


def edition_of_document(written: Any, sha256: Any = None, chosen: "str | Path | Edition | None" = None) -> Edition:
    """The edition a position or record document was written under, checked against the reader's choice.

    `written` is the document's "edition" (a name; documents written before editions carried a digest may hold
    a data-file path instead), `sha256` its "edition_sha256" (None in those older documents). With `chosen`
    (what the reader was told to play: a name, a data-file path or an Edition) the document must have been
    written under that edition: the same content when it names a digest, the same name otherwise. Without, the
    document's own edition is loaded: a shipped one, whose content must match the digest. Anything else raises
    DataFileError naming the field ("edition: ..." or "edition_sha256: ...") and both editions."""
    try:
        return _edition_of_document(written, sha256, chosen)
    except DataFileError as exc:
        text = str(exc)
        raise DataFileError(text if text.startswith("edition") else f"edition: {text}") from None


def _edition_of_document(written: Any, sha256: Any, chosen: "str | Path | Edition | None") -> Edition:
    if not isinstance(written, str) or not 1 <= len(written) <= 4096 or "\x00" in written:
        raise DataFileError(f"{short_repr(written)} is not an edition name")
    if sha256 is not None and (not isinstance(sha256, str) or not re.fullmatch(r"[0-9a-f]{64}", sha256)):
        raise DataFileError(f"edition_sha256: {short_repr(sha256)} is not a sha256 digest (64 hex digits)")
    written, sha256 = now_named(written, sha256)
    if chosen is not None:
        ed = load_edition(chosen)
        same = ed.sha256 == sha256 if sha256 is not None else written in (ed.name, ed.source, *former_names(ed))
        if not same:
            raise DataFileError(f"the game was played under {edition_label(written, sha256)}, not under "
                                f"{ed.label}")
        return ed
    if sha256 is None:
        return load_edition(written)
    shipped = available_editions()
    if written not in shipped:
        raise DataFileError(f"the game was played under {edition_label(written, sha256)}, which is not shipped "
                            f"(shipped: {', '.join(shipped)}): read it with that edition's data file "
                            "(--edition FILE)")
    ed = load_edition(written)
    if ed.sha256 != sha256:
        raise DataFileError(f"the game was played under {edition_label(written, sha256)}, and the shipped "
                            f"{ed.label} differs from it: read it with the data file it was played with "
                            "(--edition FILE)")
    return ed


def now_named(written: str, sha256: "str | None") -> "tuple[str, str | None]":
    """The (name, digest) under which a document's edition is shipped now: a former content of a shipped name
    (RENAMED) is read as the edition that holds it, while the name's own file holds something else."""
    now = RENAMED.get((written, sha256))
    if now is None or now not in available_editions() or load_edition(written).sha256 == sha256:
        return written, sha256
    return now, load_edition(now).sha256


def former_names(ed: Edition) -> tuple[str, ...]:
    """The names under which documents written before digests may carry edition `ed` (its former names)."""
    return tuple(name for (name, _), now in RENAMED.items() if now == ed.name and ed.source == now)


__all__ = ["RENAMED", "edition_of_document", "former_names", "now_named"]
