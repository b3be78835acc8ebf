"""The game's words: what a player reads for every tile, benefit, action, Public Service and source of VP.

Everything a person sees (the text board, the move notation, hints, reviews, the web board, error messages) names
components through this module, in the rulebook's terms (its Appendix for the Modernisme and Cerdà Scoring tiles
and the Public Services, its action and icon pages for the rest). The data files keep their codes ("SC05",
"INTERSECTION_ADJ3", "ACT_BUILD_WIDE"); they are read here and never shown.

A Modernisme or Cerdà Scoring tile prints no title, only its condition and VP: its name here is a short phrase of
that condition ("Intersections by 3 Buildings"), unique within an edition, and its text the Appendix's sentence.

The names are English, the words of moves and records in every language; each is marked (``N_``) for the message
catalogs (barcelona_ai/i18n), and what shows a name to a person translates it there.
"""
from __future__ import annotations

import re

from ..i18n.messages import N_
from .tables import CONDITIONS, available_editions, edition_label, load_edition

__all__ = ["CONDITION_WORDS", "PUBLIC_SERVICE_WORDS", "GRANT_WORDS", "SOURCE_WORDS", "TO_COME_WORDS", "CLASS_WORDS",
           "breakdown_words", "COORDINATES", "amount",
           "condition_name", "condition_text", "tile_names", "public_service_name", "public_service_text",
           "effect_words", "effect_short", "grant_words", "source_words", "edition_words"]

# condition -> (name, the Appendix's text with {vp} for its VP)
CONDITION_WORDS = {
    "BLOCK_LINE": (N_("Line of blocks"), "{vp} VP per block in your longest uninterrupted vertical or horizontal line "
                   "of blocks (you are present in a block with at least 1 Building marker in it)"),
    "CLOTH_5": (N_("Cloth in Warehouse"), "{vp} VP per Cloth in your Warehouse, up to 5 Cloths"),
    "COIN_5": (N_("Coins in Warehouse"), "{vp} VP per Coin in your Warehouse, up to 5 Coins"),
    "NARROW_LINE": (N_("Line of Narrow Streets"), "{vp} VP per Narrow Street tile in your longest uninterrupted line "
                    "of Narrow Street tiles on one street"),
    "INTERSECTION_ADJ3": (N_("Intersections by 3 Buildings"), "{vp} VP per Intersection of yours adjacent to 3 or "
                          "more Buildings"),
    "CERDA_MULT": (N_("Cerdà multiplier"), "{vp} VP times your multiplier on the Cerdà track (0x to 4x)"),
    "WIDE_LINE": (N_("Line of Wide Streets"), "{vp} VP per Wide Street tile in your longest uninterrupted line "
                  "(vertical, horizontal or diagonal) of Wide Street tiles on one street"),
    "PUBLIC_SERVICES": (N_("Public Services built"), "{vp} VP per Public Service you have built"),
    "NARROW_TILES": (N_("Narrow Streets placed"), "{vp} VP per Narrow Street tile you have placed"),
    "PASSENGER_ADJ2": (N_("Passengers by 2 Buildings"), "{vp} VP per Passenger of yours adjacent to at least 2 "
                       "Buildings"),
    "WIDE_TILES": (N_("Wide Streets placed"), "{vp} VP per Wide Street tile you have placed"),
    "MOD_TOP": (N_("Markers in top position"), "{vp} VP per Modernisme marker of yours moved to its top position"),
    "PASSENGERS": (N_("Passengers placed"), "{vp} VP per Passenger you have placed"),
    "COBBLESTONES": (N_("Cobblestones placed"), "{vp} VP per Cobblestone tile you have placed on the Sidewalk"),
    "INTERSECTIONS": (N_("Intersections placed"), "{vp} VP per Intersection you have placed"),
    "EMPTY_MARKER_STACKS": (N_("Empty marker stacks"), "{vp} VP per empty stack of Building markers on your player "
                            "board"),
    "CORNER_BLOCKS": (N_("Corner Buildings"), "{vp} VP per Corner Building of yours, each on a different block"),
    "MOD_TILES": (N_("Modernisme tiles"), "{vp} VP per Modernisme tile on your player board"),
    "BOTTOM_MARKERS": (N_("Bottom markers"), "{vp} VP per Building marker of yours at the bottom of its stack on a "
                       "non-Corner Building"),
}

# Public Service type -> (name on the tile, what building it gives besides its cost, 2 Cerdà steps and VP)
PUBLIC_SERVICE_WORDS = {
    "SANT_ANTONI": (N_("Sant Antoni Market"), "1 Cloth for every block with at least one of your Building markers"),
    "ESTACIO_FRANCA": (N_("Estació de França"), "a Move Your Tram action (the Passenger costs no Coins)"),
    "HOSPITAL_SANT_PAU": (N_("Hospital de Sant Pau"), "a Build an Intersection action, free of any Coin cost"),
    "LLUIS_COMPANYS": (N_("Passeig de Lluís Companys"), "a Build Wide Street/Narrow Streets action"),
    "UNIVERSITAT": (N_("Universitat de Barcelona"), "a Place Cobblestone action anywhere on the Sidewalk"),
    "MUSEU_MODERNISME": (N_("Museu del Modernisme Català"), "2 steps on your Sagrada Família track"),
    "PAVELLO_OPERACIONS": (N_("Pavelló d'Operacions"), "a Take a Modernisme Project action, free of the Cloth cost"),
}

# granted action (an action tile, a Sidewalk space, a Sagrada tile, a Public Service) -> what it lets you do
GRANT_WORDS = {
    "GAIN_2_COINS": N_("Gain 2 Coins"), "GAIN_CLOTH_3VP": N_("Gain 1 Cloth and 3 VP"),
    "PLACE_COBBLESTONE": N_("Place Cobblestone"), "BUILD_1_WIDE": N_("Build 1 Wide Street"),
    "BUILD_2_NARROW": N_("Build 2 Narrow Streets"), "BUILD_INTERSECTION": N_("Build an Intersection"),
    "IMPROVE_MODERNISME": N_("Improve a Modernisme Project"), "TAKE_MODERNISME": N_("Take a Modernisme Project"),
    "BUILD_PUBLIC_SERVICE": N_("Build a Public Service"), "MOVE_TRAM": N_("Move Your Tram"),
    "CERDA_PLUS_2": N_("Advance 2 on the Cerdà track"), "BUILD_STREETS": N_("Build Wide Street/Narrow Streets"),
    "BUILD_INTERSECTION_FREE": N_("Build an Intersection for free"),
    "IMPROVE_MODERNISME_FREE": N_("Improve a Modernisme Project for free"),
    "TAKE_MODERNISME_FREE": N_("Take a Modernisme Project for free"),
    "PLACE_COBBLESTONE_ANYWHERE": N_("Place Cobblestone anywhere"),
    "MOVE_TRAM_COIN_FREE": N_("Move Your Tram, the Passenger free of Coins"),
    # the names the data files give the granted actions of Sidewalk spaces and Sagrada tiles
    "BUILD_WIDE": N_("Build 1 Wide Street"), "BUILD_NARROW": N_("Build 2 Narrow Streets"),
}

# score source (core.SOURCES) -> words
SOURCE_WORDS = {
    "streets": N_("streets"), "buildings": N_("buildings"), "actions": N_("action tiles"),
    "intersections": N_("Intersections"),
    "sidewalk": N_("Sidewalk"), "sagrada": N_("Sagrada Família"), "public_services": N_("Public Services"),
    "cerda_scoring": N_("Cerdà Scorings"), "cerda_overflow": N_("Cerdà track beyond its end"),
    "final_cobblestones": N_("Cobblestones (game end)"), "final_passengers": N_("Passengers (game end)"),
    "final_modernisme": N_("Modernisme tiles (game end)"),
}
# groups of the VP still to come (search.results.PlayerAnalysis.to_come) -> words
TO_COME_WORDS = {"cobblestones": N_("Cobblestones"), "passengers": N_("Passengers"),
                 "modernisme_tiles": N_("Modernisme tiles"), "cerda_scorings": N_("Cerdà Scorings"),
                 "other_play": N_("the rest of play")}
CLASS_WORDS = (N_("Working"), N_("Middle"), N_("Upper"))
# How every coordinate a player reads is written (the text board's c0..c4 / r0..r4 and the notation).
COORDINATES = ("coordinates: a crossing is (column,row), 0-4 from the top left; a street V(c,r) runs down and "
               "H(c,r) across from crossing (c,r), D(k) on the diagonal; a Sidewalk space is r(row)c(column)")


def edition_words(state_or_edition) -> str:
    """The board a game is played on, as a person reads it: 'edition "default"' for a shipped edition, and for a
    data file also the start of its content digest, which tells two files of one name apart."""
    ed = getattr(getattr(state_or_edition, "game_data", None), "edition", state_or_edition)
    shipped = ed.name in available_editions() and load_edition(ed.name).sha256 == ed.sha256
    return edition_label(ed.name, None if shipped else ed.sha256)


def condition_name(kind: str) -> str:
    """A tile's name from its condition ('INTERSECTION_ADJ3' -> 'Intersections by 3 Buildings')."""
    return CONDITION_WORDS.get(kind, (kind.replace("_", " ").capitalize(), ""))[0]


def condition_text(kind: str, vp: int) -> str:
    """The tile's printed condition: 'Gain 3 VP per Intersection of yours adjacent to 3 or more Buildings'."""
    text = CONDITION_WORDS.get(kind, ("", "{vp} VP per " + kind.replace("_", " ").lower()))[1]
    return "Gain " + text.format(vp=vp)


def tile_names(t: dict) -> list[str]:
    """The names of an edition's Modernisme tiles (tables `mod_cond`, `cond_kind`), a second tile of one
    condition named '... #2'."""
    seen: dict[str, int] = {}
    out = []
    for cond in t["mod_cond"]:
        base = condition_name(CONDITIONS[t["cond_kind"][cond]])
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base} #{seen[base]}")
    return out


def public_service_name(kind: str) -> str:
    return PUBLIC_SERVICE_WORDS.get(kind, (kind.replace("_", " ").title(), ""))[0]


def public_service_text(kind: str, benefit: str = "") -> str:
    """What a Public Service gives besides its cost, the 2 Cerdà steps and its VP: the rulebook's words for the
    shipped types, else the data file's benefit in words."""
    if kind in PUBLIC_SERVICE_WORDS:
        return PUBLIC_SERVICE_WORDS[kind][1]
    return effect_words(benefit)


def grant_words(kind: str) -> str:
    return GRANT_WORDS.get(kind, kind.replace("_", " ").capitalize())


def source_words(source: str) -> str:
    return SOURCE_WORDS.get(source, source.replace("_", " "))


def breakdown_words(parts: dict, digits: int = 0) -> str:
    """VP by source in words, the sources that gave something: 'streets 53, Cerdà Scorings 20' ('-' if none);
    the keys may be score sources or groups of VP to come."""
    words = [f"{SOURCE_WORDS.get(k) or TO_COME_WORDS.get(k) or k.replace('_', ' ')} {v:.{digits}f}"
             for k, v in parts.items() if round(v, digits)]
    return ", ".join(words) or "-"


def amount(n: int, one: str, many: str) -> str:
    """'1 Coin', '2 Coins'."""
    return f"{n} {one if n == 1 else many}"


def _effect_part(code: str, n: int | None) -> str:
    if code == "COIN":
        return amount(n, "Coin", "Coins")
    if code == "CLOTH":
        return amount(n, "Cloth", "Cloths")
    if code == "RES":
        return amount(n, "resource", "resources") + " (Coins or Cloths, your choice)"
    if code == "VP":
        return f"{n} VP"
    if code == "CERDA":
        return (f"{amount(n, 'step', 'steps')} on the Cerdà track" if n >= 0
                else f"{amount(-n, 'step', 'steps')} back on the Cerdà track")
    if code == "SAGRADA":
        return f"{amount(n, 'step', 'steps')} on your Sagrada Família track"
    if code == "CLOTH_PER_BLOCK":
        return "1 Cloth per block with your Building marker"
    if code.startswith("ACT_"):
        return grant_words(code[4:])
    return code.replace("_", " ").lower()


_PART = re.compile(r"([A-Z_]+?)(-?\d+)?")


def _parts(text: str) -> list[tuple[str, int | None]]:
    out = []
    for part in str(text).split("+"):
        m = _PART.fullmatch(part.strip())
        if m:
            out.append((m.group(1), int(m.group(2)) if m.group(2) is not None else None))
        elif part.strip():
            out.append((part.strip(), None))
    return out


def effect_words(text: str, brief: bool = False) -> str:
    """A printed benefit in words: 'CLOTH1+VP3' -> '1 Cloth + 3 VP', 'ACT_IMPROVE_MODERNISME_FREE+VP2' ->
    'Improve a Modernisme Project for free + 2 VP', '' -> 'nothing'; `brief` leaves out the explanations in
    brackets ('3 resources' for 'RES3')."""
    parts = [_effect_part(code, n) for code, n in _parts(text) if code not in ("", "-")]
    words = " + ".join(parts) if parts else "nothing"
    return re.sub(r" \([^)]*\)", "", words) if brief else words


_SHORT = {"COIN": "Coin", "CLOTH": "Cloth", "VP": "VP", "CERDA": "Cerdà", "SAGRADA": "Sagrada", "RES": "res."}
_SHORT_ACTS = {"BUILD_WIDE": "Wide Street", "BUILD_NARROW": "2 Narrow", "BUILD_INTERSECTION": "Intersection",
               "IMPROVE_MODERNISME": "Improve", "TAKE_MODERNISME": "Take tile", "MOVE_TRAM": "Tram",
               "IMPROVE_MODERNISME_FREE": "free Improve", "TAKE_MODERNISME_FREE": "free Take tile"}


def effect_short(text: str) -> str:
    """A printed benefit in a few characters, for a space on a drawn board: 'COIN1+CLOTH1' -> '1 Coin 1 Cloth',
    'CERDA1+RES1' -> 'Cerdà 1, 1 res.', 'ACT_BUILD_WIDE' -> 'Wide Street'."""
    out = []
    for code, n in _parts(text):
        if code.startswith("ACT_"):
            out.append(_SHORT_ACTS.get(code[4:], grant_words(code[4:])))
        elif code in ("CERDA", "SAGRADA"):
            out.append(f"{_SHORT[code]} {n:+d}" if n is not None else _SHORT[code])
        elif code in _SHORT:
            out.append(f"{n} {_SHORT[code]}" if n is not None else _SHORT[code])
        elif code == "CLOTH_PER_BLOCK":
            out.append("Cloth/block")
        elif code not in ("", "-"):
            out.append(code.replace("_", " ").lower())
    return ", ".join(out) if out else "-"
