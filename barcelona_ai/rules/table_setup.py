"""The setup of a game at a real table, typed from what lies on it (rules R10-R32): the player count, your seat,
the action tiles on the 11 action spaces (R11), the 3 Cerdà Scoring tiles (R14), the 4 Modernisme tiles on the
display (R16), the 5 Public Service types in play (R17) and your own two citizens (R32).

Each field has a short text form, the same on the command line (``table --actions ... --cerda ...``), in a
setup file (one ``field: value`` a line) and at the setup prompts:

    players:  2                                   # 2..4
    seat:     1                                   # yours; seat 0 is the first player (R31)
    actions:  COB INT CER WID IMP / CLO PS TAK COI NAR / TRM     # or: printed
    cerda:    Line of blocks, Coins in Warehouse, Cobblestones placed      # sections 1, 2, 3
    display:  Public Services built, Narrow Streets placed, Markers in top position, Modernisme tiles
    services: antoni pau universitat museu pavello
    hand:     W M

``actions`` lists the tiles as the board shows them: the 5 at the foot of the vertical streets c0..c4 (left to
right), the 5 at the end of the horizontal streets r0..r4 (top to bottom), then the diagonal's; each tile by
the board's 3-letter code (``COI`` Gain 2 Coins ...) or its full name, each once (R11). ``printed`` takes the
actions printed under the spaces (R11's first-game option). Cerdà and Modernisme tiles are named by their
condition (words.py: ``Line of blocks``), or the beginning of it that no other tile shares (``line of b``),
separated by commas; or by their number in the prompt's list, or the data file's code (``SC05``), separated by
spaces. The display never holds the twin of a Cerdà tile (R15, those went back to the box). A Public Service is
named by any word of its name no other type has (``antoni``, ``pau``, ``museu`` ...) or its full name. Citizens
are ``W``, ``M``, ``U`` (Working, Middle, Upper class).

Every check names the field and says what it expected; the whole setup becomes a position document in the
viewpoint form (docs/positions.md), which the position reader checks once more.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidPositionError
from .jsonio import read_bytes, short_repr, show_path
from .render import ACTION_CODES
from .tables import ACTION_KINDS, CLASSES, CONDITIONS, load_edition
from .words import condition_name, condition_text, public_service_name

FIELDS = ("players", "seat", "actions", "cerda", "display", "services", "hand")
COMPONENT_FIELDS = FIELDS[2:]         # what lies on the table (not players, seat): table's options, the web form
CLASS_LETTERS = ("W", "M", "U")


# A setup field that does not describe the components on the table: its message names the field. A setup is the
# start position typed in short, so its errors are the position reader's (errors.py holds every exception).
SetupError = InvalidPositionError


@dataclass
class TableSetup:
    """What lies on the table at the start; a field left None is still to be given."""
    players: int | None = None
    seat: int | None = None
    actions: dict | None = None          # {"vertical": [5 names], "horizontal": [5 names], "diagonal": name}
    cerda: list[str] | None = None       # 3 tile ids, sections 1..3
    display: list[str] | None = None     # 4 tile ids
    services: list[str] | None = None    # 5 type names
    hand: list[int] | None = None        # 2 class ids
    texts: dict = field(default_factory=dict, compare=False)   # the text each field was given as
    edition: Any = field(default="default", compare=False)      # the board: a name, a data-file path, an Edition

    def missing(self) -> list[str]:
        return [f for f in FIELDS if getattr(self, f) is None]

    def summary(self) -> list[str]:
        """The setup in its text form, one field a line (what a setup file holds)."""
        return [f"{f}: {format_field(f, getattr(self, f), self.edition)}" for f in FIELDS
                if getattr(self, f) is not None]


# ---------------------------------------------------------------------------------------------------------------
# names

class _Names:
    """The component names of one edition, and their short forms."""

    def __init__(self, edition="default"):
        t = load_edition(edition).t
        ids = [name.split()[0] for name in t["cond_names"]]
        self.codes = ids                                           # every condition, in the data file's order
        kinds = [CONDITIONS[k] for k in t["cond_kind"]]
        self.tile_name = {ids[i]: condition_name(kinds[i]) for i in range(len(ids))}
        self.tile_text = {ids[i]: condition_text(kinds[i], t["cond_vp"][i]) for i in range(len(ids))}
        self.cerda = [ids[i] for i in t["cerda_cond"]]
        self.modernisme = [ids[i] for i in t["mod_cond"]]
        self.display_size = t["display_size"]
        self.services = list(t["ps_names"])
        self.in_play = t["ps_in_play"]
        self.printed = t["printed_setup"]
        self.action_titles = dict(zip(ACTION_KINDS, t["action_titles"]))
        self.service_words = _unique_words(self.services)

    def action(self, text: str, where: str) -> str:
        up = text.upper()
        for name, code in ACTION_CODES.items():
            if up in (name, code):
                return name
        known = ", ".join(f"{code} {self.action_titles[name]}" for name, code in ACTION_CODES.items())
        raise SetupError(f"{where}: {short_repr(text)} is not an action tile ({known})")

    def tile(self, text: str, where: str, allowed: list[str], what: str) -> str:
        """A tile of `allowed` by its number in the list (the data file's code's, 5 for SC05), that code or
        (the beginning of) its name."""
        text = text.strip()
        m = re.fullmatch(r"(?:SC)?0*(\d{1,2})", text, re.I)
        if m:
            code = f"SC{int(m.group(1)):02d}"
            if code in allowed:
                return code
            named = f" ({self.tile_name[code]})" if code in self.tile_name else ""
            raise SetupError(f"{where}: {short_repr(text)}{named} is not a {what}; the {what}s are numbers "
                             f"{', '.join(str(_number(c)) for c in allowed)} of the list")
        key = _key(text)
        exact = [c for c in allowed if _key(self.tile_name[c]) == key]
        found = exact or [c for c in allowed if key and _key(self.tile_name[c]).startswith(key)]
        if len(found) == 1:
            return found[0]
        if found:
            raise SetupError(f"{where}: {short_repr(text)} could be {' or '.join(self.tile_name[c] for c in found)}"
                             "; write more of the name")
        raise SetupError(f"{where}: {short_repr(text)} is not a {what} (one of "
                         f"{', '.join(self.tile_name[c] for c in allowed)})")

    def tile_list(self, allowed: list[str]) -> str:
        """The numbered tiles of `allowed` with their text, one a line (what a tile prompt shows)."""
        return "\n".join(f"  {_number(c):2d}. {self.tile_name[c]}: {self.tile_text[c]}" for c in allowed)

    def service(self, text: str, where: str) -> str:
        up = text.strip().upper().replace(" ", "_")
        if up in self.services:
            return up
        if up in self.service_words:
            return self.service_words[up]
        key = _key(text)
        found = [s for s in self.services if key and _key(public_service_name(s)).startswith(key)]
        if len(found) == 1:
            return found[0]
        words = ", ".join(service_short(s) for s in self.services)
        raise SetupError(f"{where}: {short_repr(text)} is not a Public Service type ({words})")


def _number(code: str) -> int:
    """A tile's number in the lists: its code's ('SC05' -> 5)."""
    return int(code[2:])


def _unique_words(names: list[str]) -> dict[str, str]:
    """Each word of a name that no other name has -> that name ('ANTONI' -> 'SANT_ANTONI')."""
    count: dict[str, int] = {}
    for n in names:
        for w in set(n.split("_")):
            count[w] = count.get(w, 0) + 1
    return {w: n for n in names for w in n.split("_") if count[w] == 1}


_NAMES: dict[str, _Names] = {}


def names(edition="default") -> _Names:
    """The names of `edition`'s components (a name, a data-file path or a tables.Edition), built once each."""
    ed = load_edition(edition)
    if ed.sha256 not in _NAMES:
        _NAMES[ed.sha256] = _Names(ed)
    return _NAMES[ed.sha256]


def service_short(name: str) -> str:
    """The short name of a Public Service type: its first word no other type has ('HOSPITAL_SANT_PAU' ->
    'hospital')."""
    words = names().service_words
    return next((w for w in name.split("_") if words.get(w) == name), name).lower()


# ---------------------------------------------------------------------------------------------------------------
# parsing one field

def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,;/]+", str(text).strip()) if t]


def _tile_tokens(text: str) -> list[str]:
    """Tile names separated by commas or semicolons; numbers and codes may be separated by spaces too."""
    text = str(text).strip()
    if re.search(r"[,;]", text):
        return [t.strip() for t in re.split(r"[,;]", text) if t.strip()]
    toks = text.split()
    if all(re.fullmatch(r"(?:SC)?\d{1,2}", t, re.I) for t in toks):
        return toks
    return [text] if text else []


def _key(text: str) -> str:
    """The matching key of a name: lower case, letters and digits only, no accents."""
    import unicodedata
    text = unicodedata.normalize("NFKD", str(text))
    return "".join(ch for ch in text.lower() if ch.isalnum() and not unicodedata.combining(ch))


def _distinct(values: list[str], where: str, show) -> None:
    """No value twice (`show` writes a value for the message)."""
    seen = set()
    for v in values:
        if v in seen:
            raise SetupError(f"{where}: {show(v)} is given twice; each tile is on the table once")
        seen.add(v)


def _count(tokens: list[str], n: int, where: str, what: str, example: str) -> None:
    if len(tokens) != n:
        raise SetupError(f"{where}: expected {n} {what}, got {len(tokens)} (e.g. {example!r})")


def _int_field(text: str, where: str, lo: int, hi: int) -> int:
    try:
        v = int(str(text).strip())
    except ValueError:
        raise SetupError(f"{where}: expected an integer from {lo} to {hi}, not {short_repr(text)}") from None
    if not lo <= v <= hi:
        raise SetupError(f"{where}: expected an integer from {lo} to {hi}, not {v}")
    return v


def parse_actions(text: str, edition="default") -> dict:
    """'printed' or 11 tiles: vertical streets c0..c4, horizontal streets r0..r4, the diagonal (R11)."""
    nm = names(edition)
    toks = _tokens(text)
    if [t.lower() for t in toks] == ["printed"]:
        tiles = [ACTION_KINDS[k] for k in nm.printed]          # the edition's printed_setup, in space order
        return {"vertical": tiles[:5], "horizontal": tiles[5:10], "diagonal": tiles[10]}
    _count(toks, 11, "actions", "action tiles (5 at the foot of the columns c0..c4, 5 at the end of the rows "
                                "r0..r4, then the diagonal's) or 'printed'",
           "COB INT CER WID IMP / CLO PS TAK COI NAR / TRM")
    tiles = [nm.action(t, f"actions[{i + 1}]") for i, t in enumerate(toks)]
    _distinct(tiles, "actions", lambda k: f"{ACTION_CODES[k]} ({nm.action_titles[k]})")
    return {"vertical": tiles[:5], "horizontal": tiles[5:10], "diagonal": tiles[10]}


def _parse_tiles(text: str, field: str, count: int, what: str, example: str, pool, kind: str, nm: _Names):
    """`count` distinct tiles of `pool` named in `text` (the field `field` of the setup)."""
    toks = _tile_tokens(text)
    _count(toks, count, field, f"{what}, separated by commas", example)
    tiles = [nm.tile(t, f"{field}[{i + 1}]", pool, kind) for i, t in enumerate(toks)]
    _distinct(tiles, field, lambda c: nm.tile_name[c])
    return tiles


def parse_cerda(text: str, edition="default") -> list[str]:
    """The Cerdà Scoring tiles of sections 1-3 (R14)."""
    nm = names(edition)
    return _parse_tiles(text, "cerda", 3, "Cerdà Scoring tiles, sections 1 to 3",
                        "Line of blocks, Coins in Warehouse, Cobblestones placed", nm.cerda,
                        "Cerdà Scoring tile", nm)


def parse_display(text: str, edition="default") -> list[str]:
    """The Modernisme tiles on the display (R16)."""
    nm = names(edition)
    return _parse_tiles(text, "display", nm.display_size, "Modernisme tiles on the display",
                        "Public Services built, Narrow Streets placed, Markers in top position, Modernisme tiles",
                        nm.modernisme, "Modernisme tile", nm)


def parse_services(text: str, edition="default") -> list[str]:
    nm = names(edition)
    toks = [t.strip() for t in re.split(r"[,;]", text) if t.strip()] if re.search(r"[,;]", text) else _tokens(text)
    _count(toks, nm.in_play, "services", "Public Service types in play",
           " ".join(service_short(s) for s in nm.services[:nm.in_play]))
    types = [nm.service(t, f"services[{i + 1}]") for i, t in enumerate(toks)]
    _distinct(types, "services", public_service_name)
    return types


def parse_hand(text: str, edition="default") -> list[int]:
    """Two citizens: 'W M', 'WM', 'W/M', 'working middle' (R32)."""
    toks = _tokens(text)
    if len(toks) == 1 and re.fullmatch(r"[wmu]{2}", toks[0], re.I):
        toks = list(toks[0])
    _count(toks, 2, "hand", "citizens, your two from the bag", "W M")
    out = []
    for t in toks:
        k = next((i for i, c in enumerate(CLASSES) if t.upper() in (c, CLASS_LETTERS[i])), None)
        if k is None:
            raise SetupError(f"hand: {short_repr(t)} is not a citizen class (W Working, M Middle, U Upper)")
        out.append(k)
    return sorted(out)


PARSERS = {"players": lambda t, _ed: _int_field(t, "players", 2, 4), "actions": parse_actions,
           "cerda": parse_cerda, "display": parse_display, "services": parse_services, "hand": parse_hand}


def parse_field(name: str, text: str, players: int | None = None, edition="default") -> object:
    """One field from its text form, in `edition`'s names; SetupError names the field."""
    if name == "seat":
        hi = 3 if players is None else players - 1
        return _int_field(text, "seat", 0, hi)
    if name not in PARSERS:
        raise SetupError(f"{short_repr(name)} is not a setup field ({', '.join(FIELDS)})")
    return PARSERS[name](text, edition)


def format_field(name: str, value, edition="default") -> str:
    """The text form of a parsed field (parse_field(name, format_field(name, v)) == v)."""
    if name in ("players", "seat"):
        return str(value)
    if name == "actions":
        codes = [ACTION_CODES[a] for a in value["vertical"] + value["horizontal"] + [value["diagonal"]]]
        return f"{' '.join(codes[:5])} / {' '.join(codes[5:10])} / {codes[10]}"
    if name == "services":
        return " ".join(service_short(s) for s in value)
    if name == "hand":
        return " ".join(CLASS_LETTERS[k] for k in value)
    return ", ".join(names(edition).tile_name[t] for t in value)


# ---------------------------------------------------------------------------------------------------------------
# a whole setup

def set_field(setup: TableSetup, name: str, text: str) -> None:
    """Parse `text` into `setup`'s field `name` (a seat is checked against the player count when known); a
    field given twice must agree."""
    value = parse_field(name, text, setup.players, setup.edition)
    old = getattr(setup, name)
    if old is not None and old != value:
        raise SetupError(f"{name}: given as {format_field(name, old, setup.edition)!r} and as "
                         f"{format_field(name, value, setup.edition)!r}")
    if name == "players" and setup.seat is not None and setup.seat >= value:
        raise SetupError(f"seat: no seat {setup.seat} in a {value}-player game (seats are 0..{value - 1})")
    setattr(setup, name, value)
    setup.texts[name] = str(text)


def read_setup_file(path: str, setup: TableSetup | None = None) -> TableSetup:
    """A setup file: 'field: value' lines (FIELDS), '#' starts a comment, blank lines are skipped. Errors name
    the file and the line."""
    setup = setup or TableSetup()
    name = show_path(path)
    data = read_bytes(path, name, SetupError)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SetupError(f"{name}: not a UTF-8 text file") from None
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, colon, value = line.partition(":")
        key = key.strip().lower()
        if not colon or key not in FIELDS:
            raise SetupError(f"{name} line {i}: expected 'field: value' with a field of {', '.join(FIELDS)}, "
                             f"not {short_repr(line)}")
        try:
            set_field(setup, key, value)
        except SetupError as exc:
            raise SetupError(f"{name} line {i}: {exc}") from None
    return setup


def check_setup(setup: TableSetup) -> None:
    """The checks across fields: every field given, the seat in the game, no display tile that is a Cerdà
    tile's twin (R15)."""
    if setup.missing():
        raise SetupError(f"the setup lacks {', '.join(setup.missing())}")
    if setup.seat >= setup.players:
        raise SetupError(f"seat: no seat {setup.seat} in a {setup.players}-player game "
                         f"(seats are 0..{setup.players - 1})")
    twins = [t for t in setup.display if t in setup.cerda]
    if twins:
        raise SetupError(f"display: {names(setup.edition).tile_name[twins[0]]} is also a Cerdà Scoring tile in "
                         "play; its Modernisme twin went back to the box at the setup, so it cannot be on the display")


def setup_document(setup: TableSetup) -> dict:
    """The start of the game as a position document in the viewpoint form of your seat (docs/positions.md):
    the other hands hidden, the unseen citizens and the Modernisme stack what is nowhere else."""
    from ..core import new_game
    check_setup(setup)
    doc = new_game(setup.players, seed=0, setup="printed", edition=setup.edition).to_json(viewpoint=setup.seat)
    doc["action_tiles"] = {k: (list(v) if isinstance(v, list) else v) for k, v in setup.actions.items()}
    doc["cerda_tiles"] = [{"tile": t, "scored": False} for t in setup.cerda]
    doc["modernisme"] = {"display": list(setup.display), "discard": []}
    per_stack = next(iter(doc["public_services"].values()))
    doc["public_services"] = {s: per_stack for s in setup.services}
    hand = [0, 0, 0]
    for k in setup.hand:
        hand[k] += 1
    doc["players"][setup.seat]["hand"] = {CLASSES[k]: hand[k] for k in range(3)}
    doc.pop("unseen_pool", None)
    return doc


def setup_from_document(doc: dict) -> TableSetup:
    """The setup fields a position document shows (the start of a game written by setup_document)."""
    vp = doc.get("viewpoint")
    hand = doc["players"][vp]["hand"] if vp is not None else None
    return TableSetup(players=len(doc["players"]), seat=vp, actions=doc["action_tiles"],
                      cerda=[c["tile"] for c in doc["cerda_tiles"]], display=list(doc["modernisme"]["display"]),
                      services=list(doc["public_services"]),
                      hand=sorted(k for k in range(3) for _ in range(hand.get(CLASSES[k], 0))) if hand else None)


PROMPTS = {
    "players": "Players at the table [2-4]",
    "seat": "Your seat (0 = the first player)",
    "actions": "Action tiles: columns c0-c4 / rows r0-r4 / diagonal (e.g. COB INT CER WID IMP / CLO PS TAK "
               "COI NAR / TRM, or printed)",
    "cerda": "{tiles}\nCerdà Scoring tiles of sections 1, 2, 3: names or numbers from the list, separated by commas",
    "display": "{tiles}\nThe 4 Modernisme tiles on the display: names or numbers from the list, separated by commas",
    "services": "The 5 Public Service types in play (short names: {services})",
    "hand": "Your two citizens (W, M or U; e.g. W M)",
}


def prompt(name: str, setup: TableSetup) -> str:
    text = PROMPTS[name]
    if name == "seat" and setup.players:
        text = f"Your seat (0 = the first player) [0-{setup.players - 1}]"
    nm = names(setup.edition)
    pool = nm.cerda if name == "cerda" else nm.modernisme
    return text.format(services=", ".join(service_short(s) for s in nm.services), tiles=nm.tile_list(pool))


def choices(name: str, edition="default") -> list[dict] | None:
    """What a picker offers for setup field `name` (the web board's form): [{"value", "name", "text"}] for the
    tile and Public Service fields of `edition`, in the prompt's order; None for the others."""
    nm = names(edition)
    if name in ("cerda", "display"):
        pool = nm.cerda if name == "cerda" else nm.modernisme
        return [{"value": str(_number(c)), "code": c, "name": nm.tile_name[c], "text": nm.tile_text[c]}
                for c in pool]
    if name == "services":
        return [{"value": service_short(s), "code": s, "name": public_service_name(s), "text": ""}
                for s in nm.services]
    return None


__all__ = ["TableSetup", "SetupError", "FIELDS", "COMPONENT_FIELDS", "parse_field", "format_field", "set_field",
           "read_setup_file", "check_setup", "setup_document", "setup_from_document", "prompt", "service_short",
           "choices"]
