"""The model files the package ships, described by data/models.json (the manifest).

For each player count the manifest names the file of each role: ``value`` (the network that values the search's
leaves: what the search maximises where its leaf is "model"; with leaf "mix", rollouts decide and the value
network's forecasts are the numbers shown), ``forecast`` (the network whose forecasts are the numbers shown where
it is another file) and ``turn_policy`` (the learned turn policy: the leaf's turn, the playouts). For each file
it gives its kind, the game edition (name and board-data digest) and the player counts it was fitted on, the
names of the inputs its weights belong to, and the SHA-256 of its bytes. A shipped file is checked against its entry
when it is read (once per process): a file that is not the one described is refused.
After fitting a new model, ``write_manifest()`` writes the entries anew from the files.

Every model file names the edition whose games it was fitted on (``"edition": {"name", "sha256", "board_sha256"}``,
written by ``train``, ``train-policy``, ``iterate`` and ``refit``): the engine uses a model only on that board
(search/engine.py, ``fits``), since its forecasts were measured there and nowhere else. The board is its data
without its name (tables.board_digest): a copy of a board under another name is the same board.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from ..errors import BarcelonaError
from .evaluation import FEATURE_NAMES as NETWORK_INPUTS
from .turn_policy import FEATURE_NAMES as TURN_POLICY_INPUTS
from ..rules.jsonio import load_json_file

DATA = Path(__file__).parent.parent / "data"
MANIFEST = DATA / "models.json"
FORMAT = "barcelona-model-manifest"
VERSION = 2
ROLES = ("value", "forecast", "turn_policy")
KINDS = {"value network": "network inputs", "turn policy": "turn policy inputs"}    # kind -> its inputs' names
INPUTS = {"network inputs": list(NETWORK_INPUTS), "turn policy inputs": list(TURN_POLICY_INPUTS)}
# The roles of each player count: which file each reads. Writing the manifest anew keeps these.
SHIPPED_ROLES = {
    2: {"value": "value-model-2p.json", "forecast": "value-model-2p.json", "turn_policy": "turn-policy.json"},
    3: {"value": "value-model.json", "forecast": "value-model.json", "turn_policy": "turn-policy.json"},
    4: {"value": "value-model.json", "forecast": "value-model-4p.json", "turn_policy": "turn-policy.json"},
}

# The board data every model file written before models named their edition was fitted on (the first default).
UNNAMED_EDITION = {"name": "default", "sha256": "d3f002e85ad0814245d9f97eb23299bcb6e13d65d6b685a2953cdbef078cf60c",
                   "board_sha256": "a8be46b072d73ab1074c95725b45430ed6b9ea827ce826064c3b155c54a976a5"}

_MANIFEST: list[dict] = []
_FITTED: dict[tuple, dict] = {}


def manifest() -> dict:
    """The manifest document, read and checked once per process."""
    if not _MANIFEST:
        doc = load_json_file(MANIFEST, "model manifest")
        _check_manifest(doc)
        _MANIFEST.append(doc)
    return _MANIFEST[0]


def shipped_file(players: int, role: str) -> str:
    """The path of the file the package ships for `role` in `players`-player games."""
    if role not in ROLES:
        raise BarcelonaError(f"model role must be one of {', '.join(ROLES)}, not {role!r}")
    roles = manifest()["roles"].get(str(players))
    if roles is None:
        raise BarcelonaError(f"the model manifest has no files for {players}-player games")
    return str(DATA / roles[role])


def check_shipped(path: str) -> None:
    """Refuse a file of the package's data folder that the manifest describes otherwise (its bytes changed)."""
    p = Path(path)
    if p.parent.resolve() != DATA.resolve():
        return
    entry = manifest()["files"].get(p.name)
    if entry is None:
        return
    digest = file_sha256(p)
    if digest != entry["sha256"]:
        raise BarcelonaError(f"{p.name}: its contents are not the shipped model's (sha256 {digest[:12]}..., the "
                             f"manifest says {entry['sha256'][:12]}...): reinstall the package, or write the manifest "
                             f"anew after fitting it (models.write_manifest)")


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def edition_entry(edition) -> dict:
    """What a model file writes of the edition its games were played on (a tables.Edition)."""
    return {"name": edition.name, "sha256": edition.sha256, "board_sha256": edition.board_sha256}


def fits(entry: dict, edition) -> bool:
    """Whether a model fitted on the games of `entry` (edition_entry) applies on `edition`'s board: the same
    board data whatever its name (an entry without a board digest: the same edition)."""
    board = entry.get("board_sha256")
    return board == edition.board_sha256 if board else entry["sha256"] == edition.sha256


def as_written_now(have: dict, want: dict) -> dict:
    """A manifest or plan document `have` read back, with its "edition" entry completed as `want`'s where it
    names the same edition without a board digest (written before entries carried one)."""
    ed, new = have.get("edition"), want.get("edition")
    if isinstance(ed, dict) and isinstance(new, dict) and "board_sha256" not in ed and \
            ed.get("sha256") == new.get("sha256") and ed.get("name") == new.get("name"):
        return {**have, "edition": new}
    return have


def same_board(a: dict, b: dict) -> bool:
    """Whether two edition entries are of one board (both digests of the board where both have one)."""
    if a.get("board_sha256") and b.get("board_sha256"):
        return a["board_sha256"] == b["board_sha256"]
    return a["sha256"] == b["sha256"]


def fitted_edition(path: str | Path) -> dict:
    """The edition a model file was fitted on (edition_entry): its "edition" field (UNNAMED_EDITION for a file
    written before models named one). Read once per process per version of the file."""
    try:
        st = os.stat(path)
        key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = (str(path),)                  # the loader says why it cannot be read
    if key not in _FITTED:
        doc = load_json_file(path, "model file")
        _FITTED[key] = edition_of_model(doc, Path(path).name)
    return _FITTED[key]


def edition_of_model(doc, name: str) -> dict:
    """The "edition" field of a model document, checked (UNNAMED_EDITION where it has none)."""
    ed = doc.get("edition") if isinstance(doc, dict) else None
    if ed is None:
        return dict(UNNAMED_EDITION)
    digest = re.compile(r"[0-9a-f]{64}")
    if (not isinstance(ed, dict) or not isinstance(ed.get("name"), str) or not ed["name"]
            or not isinstance(ed.get("sha256"), str) or not digest.fullmatch(ed["sha256"])
            or not (ed.get("board_sha256") is None or isinstance(ed["board_sha256"], str)
                    and digest.fullmatch(ed["board_sha256"]))):
        raise BarcelonaError(f"{name}: edition must be {{\"name\": NAME, \"sha256\": the board data's 64 hex "
                             f"digits, \"board_sha256\": its board's}}, not {str(ed)[:60]}")
    out = {"name": ed["name"], "sha256": ed["sha256"]}
    if ed.get("board_sha256"):
        out["board_sha256"] = ed["board_sha256"]
    return out


def _check_manifest(doc: dict) -> None:
    """The manifest's shape, and that its roles name files it describes."""
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise BarcelonaError(f"model manifest: format {FORMAT!r} version {VERSION} expected")
    files, roles = doc.get("files"), doc.get("roles")
    if not isinstance(files, dict) or not isinstance(roles, dict):
        raise BarcelonaError("model manifest: 'files' and 'roles' must be objects")
    for players, named in roles.items():
        if not isinstance(named, dict) or set(named) != set(ROLES):
            raise BarcelonaError(f"model manifest: roles of {players} players must be {', '.join(ROLES)}")
        for role, name in named.items():
            if name not in files:
                raise BarcelonaError(f"model manifest: {players} players' {role} names {name!r}, a file it does "
                                     f"not describe")


def file_entry(path: Path) -> dict:
    """A file's manifest entry, read from the file itself."""
    doc = load_json_file(path, "model file")
    if doc.get("format") == "barcelona-value-model":
        kind, names = "value network", doc.get("features")
        players = doc.get("players") or [2, 3, 4]
    elif doc.get("format") == "barcelona-turn-policy":
        kind, names, players = "turn policy", doc.get("feature_names"), [2, 3, 4]
    else:
        raise BarcelonaError(f"{path.name}: not a value network or a turn policy (format {doc.get('format')!r})")
    if names != INPUTS[KINDS[kind]]:
        raise BarcelonaError(f"{path.name}: its inputs are not this engine's {KINDS[kind]}")
    return {"kind": kind, "edition": edition_of_model(doc, path.name), "players": players, "inputs": KINDS[kind],
            "sha256": file_sha256(path)}


def manifest_document(roles: dict[int, dict[str, str]] = SHIPPED_ROLES) -> dict:
    """The manifest of the files `roles` name, read from the data folder."""
    names = sorted({name for named in roles.values() for name in named.values()})
    return {"format": FORMAT, "version": VERSION,
            "roles": {str(n): dict(named) for n, named in sorted(roles.items())},
            "files": {name: file_entry(DATA / name) for name in names},
            "inputs": INPUTS}


def write_manifest(roles: dict[int, dict[str, str]] = SHIPPED_ROLES) -> None:
    """Write data/models.json anew from the files (after fitting and placing a model to ship)."""
    MANIFEST.write_text(json.dumps(manifest_document(roles), indent=1) + "\n", encoding="utf-8")
    _MANIFEST.clear()
