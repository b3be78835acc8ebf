"""Move notation: readable text for every action id, and parsing text back to an id.

Every decision of a turn is one action id (see ``core.pxd``). This module writes each id as a short phrase a
board-game player can read and type, and parses such phrases back. The notation is *context-free* wherever
possible: the same id gives the same text in every state. Board coordinates follow rules-inventory §0 (all
0-based); slots on a player board (project spaces, Intersection slots) are numbered 1..5 from the left, as a
player counts them.

==========================  ==========================================  =============================================
id range                    written as (example)                        also accepted when parsing
==========================  ==========================================  =============================================
A_PLACE + (c,r)*3 + top     ``place (2,3) W/M``  top W over bottom M,    ``place (2,3) W`` (top class only),
                            from the hand; ``place (2,3) W`` when        ``place (2,3)`` (if only one top is legal),
                            only one citizen is held (R37, A2);          ``place (2,3) W on top``,
                            ``place (2,3) W on top`` without a hand      ``place (2,3) top W bottom M``,
                                                                         ``place (2,3) bottom M top W``
A_INT_PICK + slot           ``pick slot 2 (2 VP)`` (Intersection slot,   ``pick slot 2``, ``pick 2``, ``pick 2 VP``,
                            its printed benefit; R62-R65)                ``pick VP2`` (the data file's code)
A_INT_DONE                  ``pick done``                                ``stop picking``
A_GAIN_COINS                ``gain 2 coins`` (R42)                       ``gain coins``
A_GAIN_CLOTH                ``gain 1 cloth + 3 VP`` (R42)                ``gain cloth``
A_CERDA                     ``Cerdà +2`` (R89)                           ``cerda``
A_COBBLE + side             ``cobble r2c5`` (Sidewalk row 2, col 5;      ``sidewalk r2c5``, ``r2c5``, ``c5r2``
                            R46)                                         (the letters name the axes)
A_STREET + space            ``narrow V(0,1)`` / ``wide H(1,2)`` /        ``street V(0,1)``, ``V(0,1)``
                            ``wide D(2)`` (R50-R55)
A_INTERSECTION + crossing   ``intersection (1,1)`` (R57)                 ``int (1,1)``
A_MOD_IMPROVE + project     ``improve project 3`` (R66)                  ``improve 3``, ``raise project 3``
A_MOD_TAKE + tile, project  ``take Intersections by 3 Buildings ->       ``take Intersections by 3 Buildings 3``,
                            project 3`` (the tile named by its           ``take inter by 3``, ``take SC05 3`` (the
                            condition, words.py; R71)                    beginning of a name, the data file's code)
A_PS + type                 ``public service Sant Antoni Market`` (R76)  ``ps Sant Antoni``, ``Sant Antoni Market``
A_TRAM + space              ``tram -> H(1,2)`` (R81, R82)                ``tram H(1,2)``, ``move tram H(1,2)``,
                                                                         ``H(1,2)``
A_PASSENGER                 ``passenger`` (R83)                          ``place passenger``
A_SKIP                      ``skip``                                     ``pass``, ``decline``
A_END_ACTIONS               ``end actions``                              ``end``
A_SAG_STEP / A_SAG_STOP     ``sagrada step`` / ``sagrada stop`` (R118)   ``step`` / ``stop``
A_SAG_TILE + tile           ``sagrada level 1: 2 resources + 2 VP``      ``sagrada 2 resources + 2 VP``,
                            (level and the tile's benefit; R119)         ``sagrada L1 RES2+VP2``, ``RES2+VP2``
A_RES + coins               ``take 2 coins + 1 cloth`` (split of the     ``take 2 coins``, ``take 2 coins, rest cloth``
                            free resources; context gives the total)
A_DISCARD_COIN / _CLOTH     ``discard coin`` / ``discard cloth`` (A39)   ``discard coins`` / ``discard cloth``
A_BUILD + option            ``build L2 B(1,0) using (1,0),(2,1)``;       crossings in any order;
                            ``build corner NE(0) using (0,0),(1,0)``     ``build L2 B(1,0)`` (if only one is legal)
                            (R90-R103; the top citizens used)
A_DRAW + class (chance)     ``draw W`` (R32)                             ``draw working``
A_REVEAL + tile (chance)    ``reveal Line of Wide Streets`` (R73, R111)  ``reveal line of w``, ``reveal SC07``
any legal id                                                             the bare integer, e.g. ``114``
==========================  ==========================================  =============================================

Citizen classes: ``W`` Working, ``M`` Middle, ``U`` Upper. Two citizens on a crossing are written top first,
``W/M`` (W on top of M), in the move notation and on the text board alike; a position document names them by
place (``"citizens": {"bottom": "MIDDLE", "top": "WORKING"}``, docs/positions.md), and where the order could be
mistaken in a move it can be named too: ``place (2,3) top W bottom M``. Coordinates: a crossing is ``(c,r)``,
column then row, as the board's ``c0..c4`` and ``r0..r4``; a Sidewalk space names its axes, ``r2c5`` (or
``c5r2``). Modernisme tiles and Public Services are named in the game's words (words.py); should an edition
print two tiles with one condition, the later ones get ``#2``, ``#3``...

Only two forms depend on the state: the bottom citizen of ``place`` (taken from the hand of the player to move)
and the Cloth part of a resource split (from the decision's total). Both have a context-free form that is also
accepted, and :func:`describe_action_id` always gives a context-free text.

Parsing (python-chess / OpenSpiel style): :func:`string_to_action` formats every currently legal action and
matches the text against those strings, so formatting and parsing cannot drift. Matching ignores case,
whitespace, underscores, accents and the arrow ``->``. The written form of an action wins over the extra forms,
and both over the beginning of a form (``take inter by 3 2``, ``ps sant``), which names a move when it fits only
one; a text that fits several legal actions raises :class:`AmbiguousMoveError`; text that fits no legal action
raises :class:`InvalidMoveError`, which says whether the text names a real move that is illegal now or is not
notation at all. Guarantees (tested): within one state the strings of the legal actions are pairwise distinct,
and ``string_to_action(s, action_to_string(s, a)) == a`` for every legal ``a``.
"""
from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from typing import Any

from ..core import CONSTANTS as C
from ..core import action_id, integer_value, register_text_services
from ..errors import AmbiguousMoveError, InvalidMoveError
from .tables import load_edition, space_name
from .words import effect_words, public_service_name, tile_names

NUM_ACTIONS = C["NUM_ACTIONS"]
CLASS_LETTERS = ("W", "M", "U")
CLASS_WORDS = ("working", "middle", "upper")
BUILDING_WORDS = ("corner", "L1", "L2", "L3")

__all__ = ["action_to_string", "string_to_action", "describe_action_id", "normalize", "legal_strings",
           "parse_placement", "kind_of"]


# ---------------------------------------------------------------------------------------------------------------
# small helpers

def normalize(text: str) -> str:
    """The matching key of a move text: lower case, no accents, no whitespace, no '_' and no arrow."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.replace("->", "").replace("\u2192", "").replace("_", "")
    return re.sub(r"\s+", "", text).lower()


def _crossing(c: int) -> str:
    return f"({c % 5},{c // 5})"


_space = space_name                    # "V(c,r)", "H(c,r)", "D(k)" (tables.py)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 or word == "cloth" else f"{n} {word}s"


_WORDS = {"COIN": "coin", "CLOTH": "cloth"}


def _effect_words(text: str) -> str:
    """'COIN2' -> '2 coins', 'CLOTH1+VP3' -> '1 cloth + 3 VP', 'CERDA2' -> 'Cerdà +2' (else as words.py)."""
    out = []
    for part in text.split("+"):
        m = re.fullmatch(r"([A-Z]+)(-?\d+)", part)
        if m and m.group(1) in _WORDS:
            out.append(_plural(int(m.group(2)), _WORDS[m.group(1)]))
        elif m and m.group(1) == "VP":
            out.append(f"{m.group(2)} VP")
        elif m and m.group(1) == "CERDA":
            n = int(m.group(2))
            out.append(f"Cerdà {'+' if n >= 0 else ''}{n}")
        else:
            out.append(effect_words(part, brief=True))
    return " + ".join(out)


def _title(name: str) -> str:
    """'SANT_ANTONI' -> 'Sant Antoni'."""
    return " ".join(w.capitalize() for w in name.split("_"))


class _Names:
    """Per-edition names used by the notation (built once per edition), in the game's words (words.py)."""

    def __init__(self, edition: Any):
        t = edition.t
        raw = edition.raw
        self.t = t
        cond_ids = [n.split()[0] for n in t["cond_names"]]
        self.mod = tile_names(t)   # 'Intersections by 3 Buildings'
        self.mod_codes = []        # the data file's code, 'SC05' (also read)
        seen: dict[str, int] = {}
        for cond in t["mod_cond"]:
            base = cond_ids[cond]
            seen[base] = seen.get(base, 0) + 1
            self.mod_codes.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
        self.sag = []              # 'level 1: 2 resources + 2 VP'
        self.sag_codes = []        # 'L1 RES2+VP2' (also read)
        seen = {}
        for i, txt in enumerate(t["sag_text"]):
            key = f"L{t['sag_level'][i]} {txt}"
            seen[key] = seen.get(key, 0) + 1
            tag = "" if seen[key] == 1 else f" #{seen[key]}"
            self.sag_codes.append(key if not tag else f"{key}#{seen[key]}")
            self.sag.append(f"level {t['sag_level'][i]}: {effect_words(txt, brief=True)}{tag}")
        self.ps = [public_service_name(n) for n in t["ps_names"]]
        self.ps_codes = [_title(n) for n in t["ps_names"]]
        try:
            self.inter = list(raw["player_board"]["intersections"]["benefit"])
        except (KeyError, TypeError):
            self.inter = ["?"] * 5
        try:
            aeff = raw["action_effects"]
            self.coins_text = _effect_words(aeff["GAIN_2_COINS"])
            self.cloth_text = _effect_words(aeff["GAIN_CLOTH_3VP"])
            self.cerda_text = _effect_words(aeff["CERDA_PLUS_2"])
        except (KeyError, TypeError):
            self.coins_text, self.cloth_text, self.cerda_text = "2 coins", "1 cloth + 3 VP", "Cerdà +2"
        self.bs_names = list(t["bs_names"])
        self.static: dict[str, set[int]] | None = None


_NAMES: dict[int, tuple[Any, _Names]] = {}


def _names(edition: Any) -> _Names:
    key = id(edition)
    hit = _NAMES.get(key)
    if hit is None or hit[0] is not edition:
        hit = (edition, _Names(edition))
        _NAMES[key] = hit
    return hit[1]


def _edition_of(state: Any) -> Any:
    return state.game_data.edition


class _Context:
    """What the state-dependent forms need: the mover's hand and the top frame."""

    def __init__(self, state: Any):
        view = state.view()
        self.hand = None
        self.res_total = None
        cur = view.turn_player
        if view.current_player >= 0 and 0 <= cur < view.num_players:
            hand = view.players[cur].hand
            self.hand = list(hand) if hand is not None else [view.players[cur].hand_size, -1, -1]
        top = view.top_frame
        if top is not None and top.kind == C["FR_RES"]:
            self.res_total = top.a


# ---------------------------------------------------------------------------------------------------------------
# formatting: (written form, extra accepted forms)

# Each function below gives the texts of one kind of action: (written form, extra accepted forms) of the id at
# offset `i` from the first id of its kind. _forms picks the kind from the id ranges (_KINDS, in id order).

def _place_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    c, top = i // 3, i % 3
    xy = _crossing(c)
    short = f"place {xy} {CLASS_LETTERS[top]}"
    named = f"place {xy} top {CLASS_LETTERS[top]}"
    extra = [short, f"place {xy}", f"{short} on top", named]
    if ctx is not None and ctx.hand is not None and all(h >= 0 for h in ctx.hand) and ctx.hand[top] > 0:
        rest = list(ctx.hand)
        rest[top] -= 1
        if sum(rest) > 0:
            bottom = CLASS_LETTERS[next(k for k in range(3) if rest[k] > 0)]
            extra += [f"{named} bottom {bottom}", f"place {xy} bottom {bottom} top {CLASS_LETTERS[top]}"]
            return f"{short}/{bottom}", extra
        return short, extra
    return f"{short} on top", extra


def _pick_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    code = names.inter[i] if i < len(names.inter) else "?"
    ben = _effect_words(code)
    return (f"pick slot {i + 1} ({ben})",
            [f"pick slot {i + 1}", f"pick {i + 1}", f"pick {ben}", f"pick {code}", f"pick slot {i + 1} {code}"])


def _gain_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    """A_GAIN_COINS, A_GAIN_CLOTH, A_CERDA (consecutive ids)."""
    if i == 0:
        return f"gain {names.coins_text}", ["gain coins"]
    if i == 1:
        return f"gain {names.cloth_text}", ["gain cloth"]
    return names.cerda_text, ["cerda", "advance cerda", "Cerda +2"]


def _cobble_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    rc, cr = f"r{i // 6}c{i % 6}", f"c{i % 6}r{i // 6}"         # the letters name the axes: either order
    return f"cobble {rc}", [f"sidewalk {rc}", rc, f"cobblestone {rc}", f"cobble {cr}", f"sidewalk {cr}", cr]


def _street_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    name = _space(i)
    kind = "wide" if names.t["space_wide"][i] else "narrow"
    return f"{kind} {name}", [f"street {name}", name]


def _intersection_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    xy = _crossing(i)
    return f"intersection {xy}", [f"int {xy}"]


def _improve_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    k = i + 1
    return f"improve project {k}", [f"improve {k}", f"raise project {k}"]


def _mod_take_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    tile, k = i // 5, i % 5 + 1
    nm, code = names.mod[tile], names.mod_codes[tile]
    return f"take {nm} -> project {k}", [f"take {nm} {k}", f"take {nm}", f"take {code} -> project {k}",
                                         f"take {code} {k}", f"take {code}"]


def _ps_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    nm, code = names.ps[i], names.ps_codes[i]
    return f"public service {nm}", [f"ps {nm}", nm, f"build {nm}", f"public service {code}", f"ps {code}", code]


def _tram_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    name = _space(i)
    return f"tram -> {name}", [f"move tram {name}", name]


def _sag_tile_forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
    full, code = names.sag[i], names.sag_codes[i]
    text, code_text = full.split(": ", 1)[1], code.split(" ", 1)[1]
    return f"sagrada {full}", [f"sagrada {text}", text, f"sagrada {code}", f"sagrada {code_text}", code_text]


def _res_forms(names: _Names, n: int, ctx: _Context | None) -> tuple[str, list[str]]:
    coins = f"take {_plural(n, 'coin')}"
    extra = [coins, f"take {n} coins", f"{coins}, rest cloth"]
    if ctx is not None and ctx.res_total is not None and ctx.res_total >= n:
        return f"{coins} + {ctx.res_total - n} cloth", extra
    return f"{coins}, rest cloth", extra


def _build_forms(names: _Names, o: int, ctx: _Context | None) -> tuple[str, list[str]]:
    t = names.t
    if o >= len(t["opt_space"]):
        return f"unused build id {o}", []
    bs, ty, mask = t["opt_space"][o], t["opt_type"][o], t["opt_mask"][o]
    around = t["bs_cross"][bs * 4: bs * 4 + t["bs_ncross"][bs]]
    used = [_crossing(c) for i, c in enumerate(around) if (mask >> i) & 1]
    head = f"build {BUILDING_WORDS[ty]} {names.bs_names[bs]}"
    extra = [head] + [f"{head} using {','.join(p)}" for p in itertools.permutations(used)]
    return f"{head} using {','.join(used)}", extra


def _draw_forms(names: _Names, k: int, ctx: _Context | None) -> tuple[str, list[str]]:
    return f"draw {CLASS_LETTERS[k]}", [f"draw {CLASS_WORDS[k]}"]


def _reveal_forms(names: _Names, tile: int, ctx: _Context | None) -> tuple[str, list[str]]:
    if tile >= len(names.mod):
        return "unknown id", []
    return f"reveal {names.mod[tile]}", [f"reveal {names.mod_codes[tile]}"]


def _fixed(text: str, *extra: str):
    """The forms of a single id whose text never changes."""
    def forms(names: _Names, i: int, ctx: _Context | None) -> tuple[str, list[str]]:
        return text, list(extra)
    return forms


_KINDS = (                                   # (first id of a kind, its forms); in id order, each up to the next
    ("A_PLACE", _place_forms),
    ("A_INT_PICK", _pick_forms),
    ("A_INT_DONE", _fixed("pick done", "stop picking", "done picking")),
    ("A_GAIN_COINS", _gain_forms),           # A_GAIN_COINS, A_GAIN_CLOTH, A_CERDA
    ("A_COBBLE", _cobble_forms),
    ("A_STREET", _street_forms),
    ("A_INTERSECTION", _intersection_forms),
    ("A_MOD_IMPROVE", _improve_forms),
    ("A_MOD_TAKE", _mod_take_forms),
    ("A_PS", _ps_forms),
    ("A_TRAM", _tram_forms),
    ("A_PASSENGER", _fixed("passenger", "place passenger")),
    ("A_SKIP", _fixed("skip", "pass", "decline")),
    ("A_END_ACTIONS", _fixed("end actions", "end")),
    ("A_SAG_STEP", _fixed("sagrada step", "step")),
    ("A_SAG_STOP", _fixed("sagrada stop", "stop")),
    ("A_SAG_TILE", _sag_tile_forms),
    ("A_RES", _res_forms),
    ("A_DISCARD_COIN", _fixed("discard coin", "discard coins")),
    ("A_DISCARD_CLOTH", _fixed("discard cloth", "discard cloths")),
    ("A_BUILD", _build_forms),
    ("A_DRAW", _draw_forms),
    ("A_REVEAL", _reveal_forms),             # the last kind runs on to the end (ids past it: 'unknown id')
)
_KIND_STARTS = [C[key] for key, _ in _KINDS]
assert _KIND_STARTS == sorted(_KIND_STARTS) and C["A_CERDA"] == C["A_GAIN_COINS"] + 2 == C["A_COBBLE"] - 1


def kind_of(a: int) -> str:
    """The kind of action id `a` (0 <= a < NUM_ACTIONS): the core constant its range starts at ('A_PLACE',
    'A_MOD_TAKE'; 'A_GAIN_COINS' for the three gains)."""
    return _KINDS[max(bisect.bisect_right(_KIND_STARTS, a) - 1, 0)][0]


def _forms(names: _Names, a: int, ctx: _Context | None) -> tuple[str, list[str]]:
    """(written form, extra accepted forms) of action id `a`; `ctx` (or None) gives the state-dependent forms."""
    k = max(bisect.bisect_right(_KIND_STARTS, a) - 1, 0)
    return _KINDS[k][1](names, a - _KIND_STARTS[k], ctx)


def _valid_id(action: Any) -> bool:
    a = integer_value(action)
    return a is not None and 0 <= a < NUM_ACTIONS


def describe_action_id(action: Any, edition: Any = "default") -> str:
    """Context-free short text of any action id (used by error messages); 'unknown id' outside [0, NUM_ACTIONS)."""
    if not _valid_id(action):
        return "unknown id"
    ed = load_edition(edition) if isinstance(edition, str) else edition
    return _forms(_names(ed), int(action), None)[0]


def action_to_string(state: Any, action: Any) -> str:
    """The notation of `action` in `state` (see the module docstring); any id in range gets a text."""
    return _forms(_names(_edition_of(state)), action_id(action), _Context(state))[0]


# ---------------------------------------------------------------------------------------------------------------
# parsing

_TABLES: dict[tuple[int, int], tuple[list[int], list[str], dict[str, list[int]], dict[str, list[int]]]] = {}
_TABLE_LIMIT = 256


def _legal_table(state: Any):
    """(legal ids, their strings, primary key -> ids, extra key -> ids); cached by edition and state hash."""
    ed = _edition_of(state)
    key = (id(ed), state.hash())
    hit = _TABLES.get(key)
    if hit is not None:
        return hit
    names = _names(ed)
    ctx = _Context(state)
    legal = state.legal_actions()
    strings: list[str] = []
    primary: dict[str, list[int]] = {}
    extra: dict[str, list[int]] = {}
    for a in legal:
        text, more = _forms(names, a, ctx)
        strings.append(text)
        primary.setdefault(normalize(text), []).append(a)
        for m in more:
            ids = extra.setdefault(normalize(m), [])
            if a not in ids:
                ids.append(a)
    hit = (legal, strings, primary, extra)
    if len(_TABLES) >= _TABLE_LIMIT:
        _TABLES.clear()
    _TABLES[key] = hit
    return hit


def legal_strings(state: Any) -> dict[int, str]:
    """{legal action id: its notation} for the state."""
    legal, strings, _, _ = _legal_table(state)
    return dict(zip(legal, strings))


def _static_table(ed: Any) -> dict[str, set[int]]:
    """Every form of every id (all hands, all totals): to tell an illegal move from a text that is no move."""
    names = _names(ed)
    if names.static is not None:
        return names.static
    table: dict[str, set[int]] = {}

    def add(text: str, a: int) -> None:
        table.setdefault(normalize(text), set()).add(a)

    for a in range(NUM_ACTIONS):
        text, more = _forms(names, a, None)
        for m in [text] + more:
            add(m, a)
        if a < C["A_INT_PICK"]:
            x = a - C["A_PLACE"]
            for b in CLASS_LETTERS:
                add(f"place {_crossing(x // 3)} {CLASS_LETTERS[x % 3]}/{b}", a)
        elif C["A_RES"] <= a < C["A_DISCARD_COIN"]:
            n = a - C["A_RES"]
            for total in range(n, 6):
                add(f"take {_plural(n, 'coin')} + {total - n} cloth", a)
                add(f"take {n} coins + {total - n} cloth", a)
    names.static = table
    return table


def _some_legal(legal: list[int], strings: list[str], k: int = 8) -> str:
    shown = ", ".join(f"'{s}'" for s in strings[:k])
    more = f" ... ({len(legal)} in all)" if len(legal) > k else ""
    return shown + more


_PLACEMENT = re.compile(r"^\s*(?:place\s*)?\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*([wmu])(?:\s*/\s*([wmu]))?\s*$", re.I)
_NAMED_PLACEMENT = re.compile(r"^\s*(?:place\s*)?\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*"
                              r"(?:top\s*([wmu])(?:\s*,?\s*bottom\s*([wmu]))?|bottom\s*([wmu])\s*,?\s*top\s*([wmu]))"
                              r"\s*$", re.I)


def parse_placement(text: Any) -> tuple[int, int, int, int | None] | None:
    """A placement written with the citizens placed, as read at a real table where the hand is not known:
    ``place (c,r) T/B`` (top over bottom, as the board writes a crossing), ``place (c,r) T`` (one citizen), or
    with the order named, ``place (c,r) top T bottom B`` / ``place (c,r) bottom B top T``; ``place`` may be
    left out, case and spacing do not matter. Returns (column, row, top class, bottom class or None), classes
    0..2 for W, M, U; None when the text is not of that form. The crossing is not checked (the board's are
    0..4)."""
    if not isinstance(text, str):
        return None
    m = _PLACEMENT.match(text)
    if m:
        c, r, top, bottom = m.groups()
    else:
        m = _NAMED_PLACEMENT.match(text)
        if not m:
            return None
        c, r, top1, bottom1, bottom2, top2 = m.groups()
        top, bottom = (top1, bottom1) if top1 else (top2, bottom2)
    bottom = CLASS_LETTERS.index(bottom.upper()) if bottom else None
    return int(c), int(r), CLASS_LETTERS.index(top.upper()), bottom


def _prefix_ids(key: str, primary: dict[str, list[int]], extra: dict[str, list[int]]) -> list[int]:
    """The legal ids one of whose forms begins with `key` (an unambiguous beginning names a move)."""
    ids: set[int] = set()
    for table in (primary, extra):
        for form, found in table.items():
            if form.startswith(key):
                ids.update(found)
    return sorted(ids)


_TILE_MOVE = re.compile(r"^\s*(take|reveal)\s+(.+?)\s*$", re.I)
_PROJECT_TAIL = re.compile(r"^(.+?)\s*(?:->|\u2192)?\s*(?:project\s*)?([1-5])$", re.I)


def _tile_prefix_ids(state: Any, text: str, legal: list[int]) -> list[int]:
    """`take`/`reveal` with the beginning of a Modernisme tile's name (or its code), and for `take` the project
    (`take inter by 3 -> project 2`, `take line of b 4`): the legal ids it can mean, every reading tried."""
    m = _TILE_MOVE.match(text)
    if not m:
        return []
    verb, rest = m.group(1).lower(), m.group(2)
    names = _names(_edition_of(state))
    readings = [(rest, None)]
    tail = _PROJECT_TAIL.match(rest)
    if tail and verb == "take":
        readings.append((tail.group(1), int(tail.group(2))))
    ids: set[int] = set()
    for fragment, project in readings:
        frag = normalize(fragment)
        tiles = [k for k, (nm, code) in enumerate(zip(names.mod, names.mod_codes))
                 if frag and (normalize(nm).startswith(frag) or normalize(code) == frag)]
        for k in tiles:
            if verb == "reveal":
                ids.add(C["A_REVEAL"] + k)
            else:
                projects = [project] if project else range(1, 6)
                ids.update(C["A_MOD_TAKE"] + k * 5 + j - 1 for j in projects)
    return sorted(ids & set(legal))


def string_to_action(state: Any, text: Any) -> int:
    """The legal action id that `text` names in `state` (see the module docstring for the forms)."""
    if integer_value(text) is not None:
        text = str(integer_value(text))
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move is written as text, not {text!r}")
    if state.is_terminal():
        raise InvalidMoveError(f"'{text}' cannot be played: the game is over")
    legal, strings, primary, extra = _legal_table(state)
    key = normalize(text)
    if not key:
        raise InvalidMoveError(f"empty move text; legal moves: {_some_legal(legal, strings)}")
    if re.fullmatch(r"[+-]?\d+", key):                           # a bare id
        a = int(key)
        if a in legal:
            return a
        if 0 <= a < NUM_ACTIONS:
            raise InvalidMoveError(f"action id {a} ({describe_action_id(a, _edition_of(state))}) is not legal "
                                   f"now; legal moves: {_some_legal(legal, strings)}")
        raise InvalidMoveError(f"{a} is not an action id (ids are 0..{NUM_ACTIONS - 1})")
    for table in (primary, extra):
        ids = table.get(key)
        if ids:
            if len(ids) == 1:
                return ids[0]
            shown = "; ".join(f"'{strings[legal.index(a)]}'" for a in ids[:10])
            raise AmbiguousMoveError(f"'{text}' fits {len(ids)} legal moves: {shown}; write one of them in full")
    known = _static_table(_edition_of(state)).get(key)
    if known:
        ed = _edition_of(state)
        what = "; ".join(f"'{describe_action_id(a, ed)}'" for a in sorted(known)[:4])
        raise InvalidMoveError(f"'{text}' is a well-formed move ({what}) but is not legal now; "
                               f"legal moves: {_some_legal(legal, strings)}")
    ids = _tile_prefix_ids(state, text, legal) or _prefix_ids(key, primary, extra)
    if len(ids) == 1:
        return ids[0]
    if ids:
        shown = "; ".join(f"'{strings[legal.index(a)]}'" for a in ids[:10])
        raise AmbiguousMoveError(f"'{text}' fits {len(ids)} legal moves: {shown}; write one of them in full")
    raise InvalidMoveError(f"'{text}' is not a move in Barcelona notation; legal moves: "
                           f"{_some_legal(legal, strings)}")


# State.action_to_string / string_to_action and the illegal-action message use these (core.pyx, "Layers").
register_text_services(describe_action_id=describe_action_id, action_to_string=action_to_string,
                       string_to_action=string_to_action)
