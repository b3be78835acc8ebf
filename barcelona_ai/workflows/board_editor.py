"""The guided editor of an edition: the questions a player answers off their own box, and the board data they make.

About a third of the board data was reconstructed because the rulebook's pictures were lost
(docs/rules-inventory.md §4 marks each value RECONSTRUCTED). A player with the printed game in front of them can
read those values off it. QUESTIONS lists exactly those values, in the order a person reads them: the main board
(street types, street spaces, crossing costs, the action tiles printed beside the streets, the citizen tracks,
the Cerdà track), the side board (the Sidewalk), the player board (Warehouse, Intersections, Passengers,
Modernisme project spaces, Sagrada Família track), then the tiles (which conditions exist as Cerdà Scoring and
as Modernisme tiles, the Sagrada Família tiles, the Corner Building). The values the rulebook or a public source
gives stay out of it.

Each question reads its answer from a board-data document (``answer``: the value in words, the default a person
keeps by pressing Enter), parses what a person types (``parse``: words or the data file's codes; a
BarcelonaError naming the question for anything else) and writes it into a document (``apply``). ``edit`` applies
a set of answers to a copy of an edition's document and checks the result whole (tables.build_edition), so a value
that contradicts another is refused naming its part. ``draw`` shows a part as it is printed, to compare with the
box. ``barcelona-ai edition new|check|show`` (cli/edition.py) and the web board's form (web/api.py) both use it.
"""
from __future__ import annotations

import copy
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import BarcelonaError, DataFileError
from ..rules.tables import CLASSES, CONDITIONS, GRANT_KINDS, build_edition, load_edition
from ..rules.words import CLASS_WORDS, condition_name, effect_short, effect_words, grant_words

PARTS = ("Main board: street types", "Main board: street spaces", "Main board: crossing costs",
         "Main board: printed action tiles", "Main board: citizen tracks", "Main board: Cerdà track",
         "Side board: Sidewalk", "Player board: Warehouse", "Player board: Intersections",
         "Player board: Passengers", "Player board: Modernisme project spaces",
         "Player board: Sagrada Família track", "Tiles: Cerdà Scoring and Modernisme tiles",
         "Tiles: Sagrada Família tiles", "Tiles: Corner Building")
GRID = 5
ROW_NAMES = dict(zip(CLASSES, CLASS_WORDS))
PRINTED_COBBLESTONE = "PRE"


@dataclass(frozen=True)
class Question:
    """One value to read off the box. `kind`: "effect" (a printed benefit), "int", "ints" (numbers in order),
    "choice" (one of `choices`), "conditions" (tile conditions by name) or "effects" (benefits in order, split
    by ';'). `field`: the board-data field it sets, as the loader names it in a refusal."""
    key: str
    part: str
    label: str
    kind: str
    field: str
    get: Callable[[dict], Any]
    put: Callable[[dict, Any], None]
    choices: tuple[str, ...] = ()
    lo: int = 0
    hi: int = 99

    def answer(self, doc: dict) -> str:
        """The value `doc` holds, written as a person types it (the default answer)."""
        v = self.get(doc)
        if self.kind == "effect":
            return effect_answer(v)
        if self.kind == "ints":
            return ", ".join(str(x) for x in v)
        if self.kind == "choice":
            return self.choices[0] if v is None else choice_words(v)
        if self.kind == "conditions":
            return "; ".join(condition_name(condition_kinds()[c]) for c in v)
        if self.kind == "effects":
            return "; ".join(effect_answer(x) for x in v)
        return str(v)

    def parse(self, text: str) -> Any:
        """The value a person's answer names (BarcelonaError naming this question otherwise)."""
        text = str(text).strip()
        try:
            if self.kind == "effect":
                return parse_effect(text)
            if self.kind == "int":
                return _int(text, self.lo, self.hi)
            if self.kind == "ints":
                return [_int(x, self.lo, self.hi) for x in re.split(r"[,\s]+", text) if x]
            if self.kind == "choice":
                return _choice(text, self.choices)
            if self.kind == "conditions":
                return [_condition(x) for x in text.split(";") if x.strip()]
            return [parse_effect(x) for x in text.split(";") if x.strip()]
        except BarcelonaError as exc:
            raise BarcelonaError(f"{self.label}: {exc}") from None

    def apply(self, doc: dict, value: Any) -> None:
        self.put(doc, value)


# ---------------------------------------------------------------------------------------------------------------
# answers in words

def _fold(text: str) -> str:
    """Lower case, accents and repeated spaces gone: 'Cerdà  +1' -> 'cerda +1'."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return re.sub(r"\s+", " ", text.strip().lower())


def _atoms() -> dict[str, str]:
    """Every way a person may write one printed benefit, folded, -> its data code (the first code met wins)."""
    codes = ([f"{c}{n}" for c in ("COIN", "CLOTH") for n in range(1, 6)] + [f"RES{n}" for n in range(1, 6)]
             + [f"VP{n}" for n in range(1, 31)] + [f"CERDA{n}" for n in range(-3, 6) if n]
             + [f"SAGRADA{n}" for n in range(1, 6)] + ["CLOTH_PER_BLOCK"]
             + ["ACT_BUILD_WIDE", "ACT_BUILD_NARROW", "ACT_BUILD_INTERSECTION", "ACT_TAKE_MODERNISME",
                "ACT_IMPROVE_MODERNISME", "ACT_MOVE_TRAM", "ACT_TAKE_MODERNISME_FREE",
                "ACT_IMPROVE_MODERNISME_FREE"] + [f"ACT_{k}" for k in GRANT_KINDS])
    out: dict[str, str] = {}
    for code in codes:
        for form in (code, effect_words(code), effect_words(code, brief=True), effect_short(code)):
            out.setdefault(_fold(form), code)
    for code in codes:                                     # '2 Cerdà' / 'Cerdà 2' / 'sagrada 1'
        m = re.fullmatch(r"(CERDA|SAGRADA)(-?\d+)", code)
        if m:
            word = "cerda" if m.group(1) == "CERDA" else "sagrada"
            for form in (f"{word} {m.group(2)}", f"{m.group(2)} {word}"):
                out.setdefault(form, code)
    return out


_ATOMS = _atoms()
_NOTHING = {"", "-", "nothing", "none", "blank", "empty"}


def parse_effect(text: str) -> str:
    """A printed benefit from a person's words or the data file's code: '1 Coin + 1 Cloth' -> 'COIN1+CLOTH1',
    'nothing' or '-' -> '-', 'Wide Street' -> 'ACT_BUILD_WIDE', 'printed cobblestone' -> 'PRE'."""
    folded = _fold(text)
    if folded in _NOTHING:
        return "-"
    if folded in ("pre", "printed cobblestone", "cobblestone", "##"):
        return PRINTED_COBBLESTONE
    folded = re.sub(r"\b(cerda|sagrada) ?\+ ?(\d)", r"\1 \2", folded)       # 'Sagrada +1' as drawn
    parts = []
    for piece in re.split(r"\s*\+\s*|\s*,\s*", folded):
        code = _ATOMS.get(piece)
        if code is None:
            raise BarcelonaError(f"{str(text)[:60]!r} is not a benefit printed in the game (write it like "
                                 "'1 Coin', '2 VP', '1 Coin + 1 Cloth', 'Cerdà 1', 'Sagrada 1', 'Wide Street' or "
                                 "'nothing')")
        parts.append(code)
    return "+".join(parts)


def effect_answer(code: str) -> str:
    """A benefit code as a person types it back: 'COIN1+CLOTH1' -> '1 Coin + 1 Cloth', 'PRE' -> 'printed
    cobblestone', '' or '-' -> 'nothing'."""
    if code == PRINTED_COBBLESTONE:
        return "printed cobblestone"
    return effect_words(code, brief=True)


def choice_words(value: str) -> str:
    return {"narrow": "narrow", "wide": "wide"}.get(value) or grant_words(value)


def _int(text: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r"-?\d{1,4}", str(text).strip()):
        raise BarcelonaError(f"expected a whole number from {lo} to {hi}, not {str(text)[:40]!r}")
    n = int(text)
    if not lo <= n <= hi:
        raise BarcelonaError(f"expected a whole number from {lo} to {hi}, not {n}")
    return n


def _choice(text: str, choices: tuple[str, ...]) -> str:
    folded = _fold(text)
    for c in choices:
        if folded in (_fold(c), _fold(choice_words(c))):
            return c
    raise BarcelonaError(f"expected one of {', '.join(choice_words(c) for c in choices)}, not {str(text)[:40]!r}")


_CONDITION_KINDS: dict[str, str] = {}


def condition_kinds() -> dict[str, str]:
    """The tile conditions by code, "SC05" -> "INTERSECTION_ADJ3" (the appendix's list, as the default edition
    holds it; read on first use)."""
    if not _CONDITION_KINDS:
        for code, c in load_edition("default").raw["conditions"].items():
            if c["name"] in CONDITIONS:
                _CONDITION_KINDS[code] = c["name"]
    return _CONDITION_KINDS


def _condition(text: str) -> str:
    """A Cerdà Scoring / Modernisme tile condition by its name or code ('Intersections by 3 Buildings', 'SC05')."""
    folded = _fold(text)
    for code, kind in condition_kinds().items():
        if folded in (_fold(code), _fold(condition_name(kind)), _fold(kind)):
            return code
    raise BarcelonaError(f"{str(text)[:60]!r} is not a tile condition of the game (names: "
                         f"{'; '.join(condition_name(k) for k in condition_kinds().values())})")


# ---------------------------------------------------------------------------------------------------------------
# the questions

def _at(*path) -> tuple[Callable, Callable]:
    """get/put of the value at a path of keys and indices in a document."""
    def get(doc):
        for p in path:
            doc = doc[p]
        return doc

    def put(doc, value):
        for p in path[:-1]:
            doc = doc[p]
        doc[path[-1]] = value
    return get, put


def _street_spaces(street: str) -> list[str]:
    kind, n = street[0], int(street[1:]) if street[1:] else 0
    if kind == "V":
        return [f"V({n},{r})" for r in range(GRID - 1)]
    if kind == "H":
        return [f"H({c},{n})" for c in range(GRID - 1)]
    return [f"D({k})" for k in range(GRID - 1)]


def _street_type(street: str) -> tuple[Callable, Callable]:
    spaces = _street_spaces(street)

    def get(doc):
        return "wide" if any(s in doc["streets"]["wide"] for s in spaces) else "narrow"

    def put(doc, value):
        wide = [s for s in doc["streets"]["wide"] if s not in spaces]
        doc["streets"]["wide"] = wide + (spaces if value == "wide" else [])
    return get, put


def _street_label(street: str) -> str:
    if street[0] == "V":
        return f"Vertical street c{street[1:]} (down from crossing ({street[1:]},0))"
    if street[0] == "H":
        return f"Horizontal street r{street[1:]} (across from crossing (0,{street[1:]}))"
    return "The diagonal street (from crossing (0,0) to (4,4))"


def _space_label(space: str) -> str:
    m = re.fullmatch(r"([VHD])\((\d)(?:,(\d))?\)", space)
    kind, a, b = m.group(1), int(m.group(2)), m.group(3)
    if kind == "V":
        return f"Street space {space}: vertical street c{a}, from crossing ({a},{b}) down to ({a},{int(b) + 1})"
    if kind == "H":
        return f"Street space {space}: horizontal street r{b}, from crossing ({a},{b}) to ({a + 1},{b})"
    return f"Street space {space}: the diagonal, from crossing ({a},{a}) to ({a + 1},{a + 1})"


def _row_positions(row: str, key: str) -> tuple[Callable, Callable]:
    """A citizen row's spaces of one kind (marks, prefilled), 1-based along the row as a person counts them."""
    def get(doc):
        return [i + 1 for i in doc["citizen_tracks"][row][key]]

    def put(doc, value):
        doc["citizen_tracks"][row][key] = [i - 1 for i in value]
    return get, put


def _row_two_player(row: str) -> tuple[Callable, Callable]:
    """The spaces printed "2" (pre-filled in 2 players only): the 2-player spaces that are not 3-player ones."""
    def get(doc):
        t = doc["citizen_tracks"][row]
        return [i + 1 for i in t["prefill_2p"] if i not in t["prefill_3p"]]

    def put(doc, value):
        t = doc["citizen_tracks"][row]
        t["prefill_2p"] = sorted(set(t["prefill_3p"]) | {i - 1 for i in value})
    return get, put


def _row_sections(row: str) -> tuple[Callable, Callable]:
    def get(doc):
        return [b - a + 1 for a, b in doc["citizen_tracks"][row]["sections"]]

    def put(doc, value):
        spans, start = [], 0
        for n in value:
            spans.append([start, start + n - 1])
            start += n
        doc["citizen_tracks"][row]["sections"] = spans
    return get, put


def _row_three_player(row: str) -> tuple[Callable, Callable]:
    """The spaces printed "3": pre-filled in 3 and in 2 players (the 2-player list keeps them)."""
    def get(doc):
        return [i + 1 for i in doc["citizen_tracks"][row]["prefill_3p"]]

    def put(doc, value):
        t = doc["citizen_tracks"][row]
        old_two = [i for i in t["prefill_2p"] if i not in t["prefill_3p"]]
        t["prefill_3p"] = [i - 1 for i in value]
        t["prefill_2p"] = sorted(set(t["prefill_3p"]) | set(old_two))
    return get, put


def _cerda_start() -> tuple[Callable, Callable]:
    def get(doc):
        return doc["cerda_track"]["start"] + 1

    def put(doc, value):
        doc["cerda_track"]["start"] = value - 1
    return get, put


def _passenger_cost(i: int) -> tuple[Callable, Callable]:
    def get(doc):
        c = doc["player_board"]["passengers"]["cost"][i]
        return "+".join(p for p in (f"COIN{c['coins']}" if c["coins"] else "",
                                    f"CLOTH{c['cloth']}" if c["cloth"] else "") if p) or "-"

    def put(doc, value):
        coins = cloth = 0
        for part in value.split("+"):
            m = re.fullmatch(r"(COIN|CLOTH)(\d+)", part)
            if part == "-":
                continue
            if not m:
                raise BarcelonaError(f"Passenger {i + 1}'s cost: Coins and Cloth only, not {effect_answer(value)}")
            if m.group(1) == "COIN":
                coins += int(m.group(2))
            else:
                cloth += int(m.group(2))
        doc["player_board"]["passengers"]["cost"][i] = {"coins": coins, "cloth": cloth}
    return get, put


def _sagrada_slots() -> tuple[Callable, Callable]:
    """The spaces after which the level 1, 2 and 3 tile slots lie (1-based, from the start space)."""
    def get(doc):
        slots = sorted(doc["player_board"]["sagrada_track"]["slots"], key=lambda s: s["level"])
        return [s["after_space"] + 1 for s in slots]

    def put(doc, value):
        if len(value) != 3:
            raise BarcelonaError("Sagrada Família tile slots: expected 3 spaces, one per level")
        doc["player_board"]["sagrada_track"]["slots"] = [{"after_space": v - 1, "level": lv}
                                                          for lv, v in enumerate(value, 1)]
    return get, put


def _questions() -> list[Question]:
    q: list[Question] = []

    def ask(key, part, label, kind, field, getput, **kw):
        q.append(Question(key, part, label, kind, field, getput[0], getput[1], **kw))
    part = PARTS[0]
    for street in [f"V{c}" for c in range(GRID)] + [f"H{r}" for r in range(GRID)] + ["D"]:
        ask(f"street {street}", part, _street_label(street) + ": narrow or wide?", "choice", "streets.wide",
            _street_type(street), choices=("narrow", "wide"))
    part = PARTS[1]
    for r in range(GRID):                                       # top to bottom, left to right
        for c in range(GRID - 1):
            ask(f"space H({c},{r})", part, _space_label(f"H({c},{r})"), "effect", "streets.benefits",
                _at("streets", "benefits", f"H({c},{r})"))
        if r < GRID - 1:
            for c in range(GRID):
                ask(f"space V({c},{r})", part, _space_label(f"V({c},{r})"), "effect", "streets.benefits",
                    _at("streets", "benefits", f"V({c},{r})"))
            ask(f"space D({r})", part, _space_label(f"D({r})"), "effect", "streets.benefits",
                _at("streets", "benefits", f"D({r})"))
    part = PARTS[2]
    for r in range(GRID):
        for c in range(GRID):
            if c != r:                                          # the diagonal's 1 Coin is sourced
                ask(f"crossing ({c},{r})", part, f"Coins printed on crossing ({c},{r})", "int",
                    "crossing_cost_coins", _at("crossing_cost_coins", f"({c},{r})"), hi=5)
    part = PARTS[3]
    for direction, letter in (("vertical", "c"), ("horizontal", "r")):
        for i in range(GRID):
            ask(f"printed {direction} {i}", part, f"The action tile printed at the end of {direction} street "
                f"{letter}{i}", "choice", "printed_setup", _at("printed_setup", direction, i),
                choices=PRINTED_ACTIONS)
    part = PARTS[4]
    for row in CLASSES:
        words = f"{ROW_NAMES[row]} class row"
        ask(f"{row} sections", part, f"{words}: spaces in each of its 3 sections, left to right", "ints",
            f"citizen_tracks.{row}.sections", _row_sections(row), lo=1, hi=20)
        ask(f"{row} vp", part, f"{words}: the VP printed on each space, left to right", "ints",
            f"citizen_tracks.{row}.vp", _at("citizen_tracks", row, "vp"), hi=99)
        ask(f"{row} marks", part, f"{words}: the marked Cerdà Scoring space of each section, counted from the "
            "row's left end", "ints", f"citizen_tracks.{row}.marks", _row_positions(row, "marks"), lo=1, hi=60)
        ask(f"{row} threes", part, f"{words}: the spaces printed \"3\" (pre-filled in 2 and 3 players), counted "
            "from the left end", "ints", f"citizen_tracks.{row}.prefill_3p", _row_three_player(row), lo=1, hi=60)
        ask(f"{row} twos", part, f"{words}: the spaces printed \"2\" (pre-filled in 2 players), counted from the "
            "left end", "ints", f"citizen_tracks.{row}.prefill_2p", _row_two_player(row), lo=1, hi=60)
    part = PARTS[5]
    ask("cerda multipliers", part, "Cerdà track: the multiplier reached at each space, bottom to top (x0 below the "
        "x1 mark)", "ints", "cerda_track.multiplier", _at("cerda_track", "multiplier"), hi=4)
    ask("cerda start", part, "Cerdà track: the starting space, counted from the bottom", "int", "cerda_track.start",
        _cerda_start(), lo=1, hi=16)
    part = PARTS[6]
    for r in range(5):
        for c in range(6):
            ask(f"sidewalk r{r}c{c}", part, f"Sidewalk row r{r}, column c{c} (a benefit, or 'printed cobblestone')",
                "effect", "sidewalk", _at("sidewalk", "rows", r, c))
    part = PARTS[7]
    ask("warehouse free", part, "Warehouse: the free spaces (no cobblestone printed on them)", "int",
        "player_board.warehouse", _at("player_board", "warehouse", "free_spaces"), lo=2, hi=10)
    for i in (0, 1, 2, 4, 5):                                   # 4 cobblestones taken out: 7 VP (TEXT)
        ask(f"warehouse vp {i + 1}", part, f"Warehouse: the VP uncovered when {i + 1} cobblestone"
            f"{'s are' if i else ' is'} taken out", "int", "player_board.warehouse.cobblestone_end_vp",
            _at("player_board", "warehouse", "cobblestone_end_vp", i), hi=40)
    part = PARTS[8]
    for i in (0, 1, 3, 4):                                      # the 3rd costs 2 Coins (TEXT)
        ask(f"intersection cost {i + 1}", part, f"Intersection {i + 1} (from the left): its cost in Coins", "int",
            "player_board.intersections.cost_coins", _at("player_board", "intersections", "cost_coins", i), hi=9)
    for i in range(5):
        ask(f"intersection benefit {i + 1}", part, f"Intersection {i + 1}: the benefit printed under it", "effect",
            "player_board.intersections.benefit", _at("player_board", "intersections", "benefit", i))
    part = PARTS[9]
    for i in range(1, 5):                                       # the first costs 1 Cloth (TEXT)
        ask(f"passenger cost {i + 1}", part, f"Passenger {i + 1} (from the left): its cost in Coins and Cloth",
            "effect", "player_board.passengers.cost", _passenger_cost(i))
    for i in (0, 1, 2, 4):                                      # 4 Passengers: 16 VP (TEXT)
        ask(f"passenger vp {i + 1}", part, f"Passengers: the VP at the game's end with {i + 1} placed", "int",
            "player_board.passengers.end_vp", _at("player_board", "passengers", "end_vp", i), hi=60)
    part = PARTS[10]
    for i in range(5):
        pos = f"Project space {i + 1} (from the left)"
        ask(f"project {i + 1} take", part, f"{pos}: Cloth to place a tile", "int",
            "player_board.modernisme_spaces", _at("player_board", "modernisme_spaces", i, "take_cost_cloth"), hi=5)
        if i != 2:                                              # the middle one's raise costs 2 Cloth (TEXT)
            ask(f"project {i + 1} raise", part, f"{pos}: Cloth to raise its marker", "int",
                "player_board.modernisme_spaces", _at("player_board", "modernisme_spaces", i, "raise_cost_cloth"),
                hi=5)
        ask(f"project {i + 1} bottom", part, f"{pos}: the multiplier at the bottom", "int",
            "player_board.modernisme_spaces", _at("player_board", "modernisme_spaces", i, "bottom"), hi=9)
        if i != 4:                                              # the rightmost's top is x4 (TEXT)
            ask(f"project {i + 1} top", part, f"{pos}: the multiplier at the top", "int",
                "player_board.modernisme_spaces", _at("player_board", "modernisme_spaces", i, "top"), hi=9)
    part = PARTS[11]
    ask("sagrada spaces", part, "Sagrada Família track: its spaces, the start included", "int",
        "player_board.sagrada_track", _at("player_board", "sagrada_track", "spaces"), lo=2, hi=30)
    ask("sagrada slots", part, "Sagrada Família track: the space after which the level 1, 2 and 3 tile slots "
        "lie, counted from the start", "ints", "player_board.sagrada_track.slots", _sagrada_slots(), lo=1, hi=30)
    part = PARTS[12]
    ask("cerda tiles", part, "The conditions of the Cerdà Scoring tiles (separated by ';')", "conditions",
        "cerda_tiles", _at("cerda_tiles"))
    ask("modernisme tiles", part, "The conditions of the Modernisme tiles (separated by ';')", "conditions",
        "modernisme_tiles", _at("modernisme_tiles"))
    part = PARTS[13]
    for level in ("1", "2", "3"):
        ask(f"sagrada level {level}", part, f"Sagrada Família tiles of level {level}: each one's benefit "
            "(separated by ';')", "effects", "sagrada_tiles", _at("sagrada_tiles", level))
    part = PARTS[14]
    ask("corner effect", part, "Corner Building: what it gives when built, besides its marker", "effect",
        "buildings.CORNER", _at("buildings", "CORNER", "effects"))
    return q


PRINTED_ACTIONS = ("GAIN_2_COINS", "GAIN_CLOTH_3VP", "PLACE_COBBLESTONE", "BUILD_1_WIDE", "BUILD_2_NARROW",
                   "BUILD_INTERSECTION", "IMPROVE_MODERNISME", "TAKE_MODERNISME", "BUILD_PUBLIC_SERVICE",
                   "MOVE_TRAM", "CERDA_PLUS_2")


QUESTIONS = _questions()
BY_KEY = {x.key: x for x in QUESTIONS}


def questions(part: str | None = None) -> list[Question]:
    """The questions of one part (all of them without one), in reading order."""
    return [x for x in QUESTIONS if part is None or x.part == part]


# ---------------------------------------------------------------------------------------------------------------
# making an edition

def edit(source: Any, answers: dict[str, str], name: str, description: str | None = None) -> dict:
    """The board-data document of edition `source` (a name, a path or an Edition) with the answers applied
    ({question key: what a person typed}) and the name `name`, checked whole: BarcelonaError naming the question
    for an answer that does not parse, naming the part for a value that contradicts another."""
    doc = copy.deepcopy(load_edition(source).raw)
    doc["edition"] = check_name(name)
    if description is not None:
        doc["description"] = str(description)[:500]
    for key, text in answers.items():
        q = BY_KEY.get(key)
        if q is None:
            raise BarcelonaError(f"no question {str(key)[:60]!r} (the board editor asks about the reconstructed "
                                 "values only)")
        value = q.parse(text)
        if value != q.parse(q.answer(doc)):         # an answer that keeps the value leaves the file as it was
            q.apply(doc, value)
    check(doc)
    return doc


def check_name(name: Any) -> str:
    """A new board's name (BarcelonaError unless 1 to 64 letters, digits, '-' or '_')."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_\-]{1,64}", name):
        raise BarcelonaError("name: 1 to 64 letters, digits, '-' or '_' (it names the board in saved games)")
    return name


def check(doc: dict) -> None:
    """BarcelonaError where the document is no playable board: the loader's refusal, with the part of the box
    whose values it concerns."""
    try:
        build_edition(doc, source="your board")
    except DataFileError as exc:
        text = str(exc).removeprefix("your board: ")
        part = part_of_field(text)
        raise BarcelonaError(f"{part}: {text}" if part else text) from None


def part_of_field(message: str) -> str | None:
    """The part of the box a loader refusal ("field 'citizen_tracks.WORKING.marks': ...") is about."""
    m = re.search(r"field '([^']*)'", message)
    if not m:
        return None
    field = m.group(1)
    best = max((x for x in QUESTIONS if field.startswith(x.field) or x.field.startswith(field.split("[")[0])),
               key=lambda x: len(x.field), default=None)
    return best.part if best else None


def differences(doc: dict, base: Any = "default") -> list[tuple[Question, str, str]]:
    """The questions whose answer in `doc` differs from edition `base`'s: (question, base's, doc's)."""
    ref = load_edition(base).raw
    out = []
    for q in QUESTIONS:
        try:
            a, b = q.answer(ref), q.answer(doc)
        except (KeyError, IndexError, TypeError):
            a, b = "?", "(not readable)"
        if a != b:
            out.append((q, a, b))
    return out


# ---------------------------------------------------------------------------------------------------------------
# drawing a part as it is printed

def draw(doc: dict, part: str) -> list[str]:
    """A part of the box as the board data has it, in lines of text to compare with the printed one."""
    if part in (PARTS[0], PARTS[1]):
        return _draw_streets(doc, benefits=part == PARTS[1])
    if part == PARTS[2]:
        costs = doc["crossing_cost_coins"]
        return ["      " + "".join(f"c{c:<5}" for c in range(GRID))] + \
            [f"r{r}    " + "".join(f"{('$' + str(costs[f'({c},{r})'])) if costs[f'({c},{r})'] else '.':<6}"
                                   for c in range(GRID)) for r in range(GRID)] + ["($n: n Coins to place there)"]
    if part == PARTS[3]:
        ps = doc["printed_setup"]
        return ([f"end of vertical street c{i}: {grant_words(a)}" for i, a in enumerate(ps["vertical"])]
                + [f"end of horizontal street r{i}: {grant_words(a)}" for i, a in enumerate(ps["horizontal"])]
                + [f"end of the diagonal: {grant_words(ps['diagonal'])} (sourced)"])
    if part == PARTS[4]:
        return _draw_tracks(doc)
    if part == PARTS[5]:
        ct = doc["cerda_track"]
        n = ct["spaces"]
        return ["space " + "".join(f"{i + 1:>4}" for i in range(n)),
                "mult  " + "".join(f"{'x' + str(m):>4}" for m in ct["multiplier"]),
                "      " + "".join(f"{'S' if i == ct['start'] else '':>4}" for i in range(n)),
                "(bottom to top; S: the starting space)"]
    if part == PARTS[6]:
        rows = doc["sidewalk"]["rows"]
        return ["     " + "".join(f"c{c:<16}" for c in range(6))] + \
            [f"r{r}   " + "".join(f"{('##' if x == PRINTED_COBBLESTONE else effect_short(x)):<17}" for x in row)
             for r, row in enumerate(rows)] + ["(##: a printed cobblestone)"]
    return [f"{q.label}: {q.answer(doc)}" for q in questions(part)]


def _draw_streets(doc: dict, benefits: bool) -> list[str]:
    """The 5x5 crossings and the streets between them: '=' wide, '-' narrow (each space's benefit with
    `benefits`)."""
    wide = set(doc["streets"]["wide"])
    ben = doc["streets"]["benefits"]
    w = 11

    def cell(space: str, across: bool) -> str:
        mark = ("=" if space in wide else "-") if across else ("||" if space in wide else "|")
        if not benefits:
            return mark * (w // len(mark)) if across else mark
        text = effect_short(ben[space])
        return f"{mark}{text}{mark}" if across else f"{mark} {text}"
    lines = ["    " + "".join(f"c{c:<{w + 1}}" for c in range(GRID))]
    for r in range(GRID):
        lines.append(f"r{r}  " + "".join("." + (f"{cell(f'H({c},{r})', True):^{w}}" if c < GRID - 1 else "")
                                         for c in range(GRID)))
        if r < GRID - 1:
            lines.append("    " + "".join(f"{cell(f'V({c},{r})', False):<{w + 1}}" for c in range(GRID))
                         + f"  \\ D({r}) {cell(f'D({r})', False).strip('|')}" if benefits else
                         "    " + "".join(f"{cell(f'V({c},{r})', False):<{w + 1}}" for c in range(GRID))
                         + f"  \\ D({r}) {'wide' if f'D({r})' in wide else 'narrow'}")
    lines.append("(= and || wide, - and | narrow; V(c,r) runs down from crossing (c,r), H(c,r) across, D(k) on "
                 "the diagonal)")
    return lines


def _draw_tracks(doc: dict) -> list[str]:
    """Each citizen row with its sections, the VP of each space, the marks (*) and the printed 3s and 2s."""
    out = []
    for row in CLASSES:
        t = doc["citizen_tracks"][row]
        cells = []
        for i, vp in enumerate(t["vp"]):
            tag = "3" if i in t["prefill_3p"] else "2" if i in t["prefill_2p"] else ""
            cells.append(f"{'*' if i in t['marks'] else ''}{vp}{'/' + tag if tag else ''}")
        starts = {a for a, _b in t["sections"]}
        line = "".join(("| " if i in starts else "") + f"{c:>6}" for i, c in enumerate(cells)) + " |"
        out.append(f"{ROW_NAMES[row][0]} {line}")
    out.append("(each space's VP; * the section's Cerdà Scoring mark; /3 printed \"3\", /2 printed \"2\")")
    return out


__all__ = ["PARTS", "Question", "QUESTIONS", "questions", "edit", "check", "check_name", "differences", "draw",
           "parse_effect", "effect_answer", "part_of_field"]
