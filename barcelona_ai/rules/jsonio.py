"""Reading JSON documents from files and strings without surprises: every failure is the caller's
BarcelonaError subclass, naming the file (or what the text was) and what is wrong.

What can go wrong and is turned into that error: a path that is not a regular file (a folder, a device such
as /dev/zero, a pipe that would never end), a name too long or holding a NUL byte, no permission, a file larger
than MAX_JSON_BYTES, bytes that are not UTF-8, text that is not JSON, JSON's NaN/Infinity extensions, an
integer literal longer than Python converts (4300 digits), and nesting deeper than MAX_JSON_DEPTH (which would
otherwise end in a RecursionError in the parser or in any code walking the document).

Writing: write_atomically puts a text file in place whole or not at all (a game's save, a model file).
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from ..errors import BarcelonaError

MAX_JSON_BYTES = 16 * 1024 * 1024      # a game record is ~30 KB, a position ~10 KB, a data file ~10 KB
MAX_JSON_DEPTH = 64                    # the deepest shipped document (a position) nests 6 levels


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _too_deep(doc: Any, limit: int) -> bool:
    """True when `doc` nests containers deeper than `limit` (iterative: no recursion)."""
    stack = [(doc, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            if d > limit:
                return True
            stack.extend((v, d + 1) for v in x.values())
        elif isinstance(x, list):
            if d > limit:
                return True
            stack.extend((v, d + 1) for v in x)
    return False


def check_depth(doc: Any, what: str, error: type[BarcelonaError] = BarcelonaError,
                limit: int = MAX_JSON_DEPTH) -> Any:
    """`doc` itself, if it nests at most `limit` levels; else `error`."""
    if _too_deep(doc, limit):
        raise error(f"{what}: nested deeper than {limit} levels")
    return doc


def _unique_keys(error: type[BarcelonaError], what: str):
    def hook(pairs: list) -> dict:
        out: dict = {}
        for k, v in pairs:
            if k in out:
                raise error(f"{what}: the key {json.dumps(k)} appears twice in one object")
            out[k] = v
        return out
    return hook


def parse_json(text: str | bytes, what: str, error: type[BarcelonaError] = BarcelonaError,
               unique_keys: bool = False) -> Any:
    """The document in `text` (a str, or UTF-8 bytes); `what` names it in the error ("position file 'x.json'").
    unique_keys: a key given twice in one object is an error (else the last one counts, as in json.loads)."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_JSON_BYTES:
            raise error(f"{what}: larger than {MAX_JSON_BYTES // (1024 * 1024)} MiB")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{what}: not UTF-8 text (byte {exc.start})") from None
    if not isinstance(text, str):
        raise error(f"{what}: expected JSON text, got {type(text).__name__}")
    if len(text) > MAX_JSON_BYTES:
        raise error(f"{what}: larger than {MAX_JSON_BYTES // (1024 * 1024)} MiB")
    try:
        doc = json.loads(text, parse_constant=_reject_constant,
                         object_pairs_hook=_unique_keys(error, what) if unique_keys else None)
    except BarcelonaError:
        raise
    except json.JSONDecodeError as exc:
        raise error(f"{what}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise error(f"{what}: nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:                       # NaN/Infinity, an integer of more than 4300 digits
        why = "an integer of more than 4300 digits" if "digits" in str(exc) else str(exc)
        raise error(f"{what}: not valid JSON ({why})") from None
    return check_depth(doc, what, error)


def read_bytes(path: str | os.PathLike, what: str, error: type[BarcelonaError] = BarcelonaError) -> bytes:
    """The bytes of a regular file of at most MAX_JSON_BYTES; `what` names it in the error
    ("{what} cannot be read: {why}")."""
    try:
        p = Path(path)
        st = os.stat(p)
        if stat.S_ISDIR(st.st_mode):
            raise error(f"{what} cannot be read: it is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{what} cannot be read: not a regular file")
        if st.st_size > MAX_JSON_BYTES:
            raise error(f"{what} cannot be read: larger than {MAX_JSON_BYTES // (1024 * 1024)} MiB")
        with open(p, "rb") as f:
            data = f.read(MAX_JSON_BYTES + 1)
    except BarcelonaError:
        raise
    except OSError as exc:                          # no such file, no permission, a name too long ...
        raise error(f"{what} cannot be read: {exc.strerror or exc}") from None
    except (ValueError, TypeError) as exc:          # a NUL byte in the name, a path that is not text
        raise error(f"{what} cannot be read: not a usable file name ({exc})") from None
    if len(data) > MAX_JSON_BYTES:
        raise error(f"{what} cannot be read: larger than {MAX_JSON_BYTES // (1024 * 1024)} MiB")
    return data


def load_json_file(path: str | os.PathLike, what: str, error: type[BarcelonaError] = BarcelonaError) -> Any:
    """read_bytes + parse_json."""
    return parse_json(read_bytes(path, what, error), what, error)


def short_repr(x: Any, limit: int = 60) -> str:
    """repr(x) for an error message, cut when long (and safe for values whose repr fails)."""
    try:
        r = repr(x)
    except (RecursionError, ValueError):
        r = f"<{type(x).__name__}>"
    return r if len(r) <= limit else r[:limit - 3] + "..."


def show_path(path: Any, limit: int = 80) -> str:
    """A path for an error message: repr'd, and shortened when very long."""
    s = str(path)
    if len(s) > limit:
        s = s[:limit // 2] + "..." + s[-(limit // 2):]
    return repr(s)


__all__ = ["MAX_JSON_BYTES", "MAX_JSON_DEPTH", "parse_json", "read_bytes", "load_json_file", "check_depth",
           "short_repr", "show_path", "write_atomically"]


def write_atomically(path: str, text: str) -> None:
    """Write `text` to `path` whole: into a temporary file in the same folder, then renamed over `path` (an
    interruption leaves the old file as it was). The file keeps the mode of the one it replaces."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = os.stat(path).st_mode & 0o777
        except OSError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
