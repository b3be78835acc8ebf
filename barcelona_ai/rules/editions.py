"""Which edition a saved document (a position or a game record) belongs to, checked against the reader's choice.

Positions and records name the edition they were played under and the sha256 of its content
(tables.content_digest); this is the one rule every reader applies (docs/editions.md).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import DataFileError
from .jsonio import short_repr
from .tables import Edition, available_editions, edition_label, load_edition


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
    if chosen is not None:
        ed = load_edition(chosen)
        same = ed.sha256 == sha256 if sha256 is not None else written in (ed.name, ed.source)
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


__all__ = ["edition_of_document"]
