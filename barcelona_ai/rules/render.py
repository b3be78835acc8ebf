"""Plain-text rendering of a game state for people (no colour codes, about 70 columns).

:func:`render_state` draws, from top to bottom: the 5x5 street grid (crossings with their citizens and
Intersections, street spaces with tiles, Passengers and Trams, blocks with buildings and marker stacks, and the
action tile at the end of each street), the three citizen tracks, the Cerdà Scoring tiles, the Cerdà track, the
Modernisme tiles, the Public Service stacks, the Sagrada offer, the Sidewalk, one block per player board
(:func:`render_player`) and a last line saying whose decision it is. Coordinates are those of rules-inventory
§0 and of the move notation (:mod:`barcelona_ai.rules.notation`).
"""
from __future__ import annotations

import textwrap
from typing import Any

from ..core import CONSTANTS as C
from ..core import SOURCES, register_text_services
from .tables import ACTION_KINDS, CONDITIONS, GRANT_KINDS, space_name
from .words import (condition_name, condition_text, edition_words, effect_words, grant_words, public_service_name,
                    source_words, tile_names)

CLASS_LETTERS = ("W", "M", "U")
WIDTH = 70
ACTION_CODES = {
    "GAIN_2_COINS": "COI", "GAIN_CLOTH_3VP": "CLO", "PLACE_COBBLESTONE": "COB", "BUILD_1_WIDE": "WID",
    "BUILD_2_NARROW": "NAR", "BUILD_INTERSECTION": "INT", "IMPROVE_MODERNISME": "IMP",
    "TAKE_MODERNISME": "TAK", "BUILD_PUBLIC_SERVICE": "PS", "MOVE_TRAM": "TRM", "CERDA_PLUS_2": "CER",
}
__all__ = ["render_state", "render_player", "decision_words", "section_ends", "ACTION_CODES",
           "CLASS_LETTERS"]


# ---------------------------------------------------------------------------------------------------------------
# helpers

_space_name = space_name                    # "V(c,r)", "H(c,r)", "D(k)" (tables.py)


def _cond(t: dict, cond: int) -> str:
    """A Cerdà Scoring tile's name and printed condition: 'Line of Wide Streets (Gain 2 VP per ...)'."""
    kind = CONDITIONS[t["cond_kind"][cond]]
    return f"{condition_name(kind)}: {condition_text(kind, t['cond_vp'][cond])}"


def _short_benefit(text: str) -> str:
    """Sidewalk benefit in at most ~8 characters: 'COIN1+CLOTH1' -> 'Co1+Cl1', 'ACT_BUILD_WIDE' -> 'aWide'."""
    acts = {"BUILD_WIDE": "aWide", "BUILD_NARROW": "aNarr", "BUILD_INTERSECTION": "aInter",
            "IMPROVE_MODERNISME": "aImpr", "TAKE_MODERNISME": "aTake", "MOVE_TRAM": "aTram"}
    out = []
    for part in text.split("+"):
        if part.startswith("ACT_"):
            core = part[4:]
            free = core.endswith("_FREE")
            core = core[:-5] if free else core
            out.append(acts.get(core, "a" + core.title().replace("_", "")[:5]) + ("!" if free else ""))
        else:
            for long, short in (("COIN", "Co"), ("CLOTH", "Cl"), ("CERDA", "Ce"), ("SAGRADA", "Sa"),
                                ("RES", "Re")):
                if part.startswith(long):
                    part = short + part[len(long):]
                    break
            out.append(part)
    return "+".join(out)


def _wrap(head: str, items: list[str], sep: str = ", ") -> list[str]:
    text = head + (sep.join(items) if items else "-")
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_on_hyphens=False) or [head]


class _View:
    """The state's view (State.view(), view.StateView) plus the edition tables, read once per rendering."""

    def __init__(self, state: Any, marks: dict | None = None):
        self.state = state
        self.marks = marks or {}                # last-move markers: {"crossings"|"spaces"|"buildings": set}
        self.sv = state.view()
        self.ed = state.game_data.edition
        self.t = self.ed.t
        self.n = self.sv.num_players
        self.tram_at: dict[int, list[int]] = {}
        for pl in self.sv.players:
            if pl.tram is not None:
                self.tram_at.setdefault(pl.tram, []).append(pl.seat)
        self.bs_index = {name: i for i, name in enumerate(self.t["bs_names"])}
        self.mod_name = tile_names(self.t)


# ---------------------------------------------------------------------------------------------------------------
# the street grid

def _cross_cell(v: _View, c: int) -> str:
    cits = v.sv.crossings[c]
    if len(cits) == 2:
        cit = f"{CLASS_LETTERS[cits[1]]}/{CLASS_LETTERS[cits[0]]}"
    elif cits:
        cit = f" {CLASS_LETTERS[cits[0]]} "
    else:
        cit = " . "
    owner = v.sv.intersections[c]
    cost = v.t["cross_cost"][c]
    if owner is not None:
        tag = f"*{owner}"
    elif cost > 0:
        tag = f"${cost}"
    else:
        tag = "  "
    return cit + tag


def _space_parts(v: _View, sp: int) -> tuple[str, str]:
    """(tile part, passenger/tram part) of a street space."""
    owner = v.sv.streets[sp]
    tile = f"{owner}{'W' if v.t['space_wide'][sp] else 'N'}" if owner is not None else ""
    extra = ""
    if v.sv.passengers[sp] is not None:
        extra += f"p{v.sv.passengers[sp]}"
    for p in v.tram_at.get(sp, []):
        extra += f"T{p}"
    return tile, extra


def _corner_token(v: _View, bs: int) -> str:
    if v.sv.building_levels[bs] == 0:
        return ""
    marks = "".join(str(m) for m in v.sv.building_markers[bs])
    token = "C" + (marks or "-")
    return f"<{token}>" if _is_marked(v, "buildings", bs) and len(token) <= 2 else token


def _block_lines(v: _View, i: int, j: int) -> tuple[str, str]:
    if i == j:
        ne, sw = v.bs_index[f"NE({i})"], v.bs_index[f"SW({i})"]
        tile, extra = _space_parts(v, 40 + i)
        if not tile and not extra:
            tile = "="
        elif tile and _is_marked(v, "spaces", 40 + i):
            tile = f"<{tile}>"
        a = "\\" + f"{tile:<4}" + f"{_corner_token(v, ne):>4}"
        b = f"{_corner_token(v, sw):<4}" + f"{extra:>4}" + "\\"
        return a, b
    bs = v.bs_index[f"B({i},{j})"]
    lvl = v.sv.building_levels[bs]
    if lvl == 0:
        return " " * 9, " " * 9
    name = "C" if lvl == 4 else f"L{lvl}"
    marks = "".join(str(m) for m in v.sv.building_markers[bs])
    return f"{_marked(v, 'buildings', bs, name, ''):^9}", f"{'[' + (marks or '-') + ']':^9}"


def _is_marked(v: _View, kind: str, i: int) -> bool:
    return i in v.marks.get(kind, ())


def _marked(v: _View, kind: str, i: int, text: str, pad: str) -> str:
    """`text` in <angle brackets> when the last moves changed it, else padded with `pad` on both sides."""
    return f"<{text}>" if _is_marked(v, kind, i) else f"{pad}{text}{pad}"


def _grid(v: _View) -> list[str]:
    codes = [ACTION_CODES.get(ACTION_KINDS[k], "?") if 0 <= k < len(ACTION_KINDS) else "?"
             for k in v.sv.action_tiles]
    out = ["   " + (" " * 9).join(f"c{c}".center(5) for c in range(5))]
    for row in range(5):
        line = f"r{row} "
        for c in range(5):
            line += _cross_cell(v, row * 5 + c)
            if c < 4:
                sp = 20 + row * 4 + c
                tile, extra = _space_parts(v, sp)
                fill = "=" if v.t["space_wide"][sp] else "-"
                body = tile + extra
                cell = (_marked(v, "spaces", sp, body, " ") if body else "").center(9, fill)
                if _is_marked(v, "crossings", row * 5 + c):
                    cell = "<" + cell[1:]              # the crossing to the left changed
                line += cell
        out.append(line + ("<" if _is_marked(v, "crossings", row * 5 + 4) else " ") + codes[5 + row])
        if row == 4:
            break
        line_a, line_b = "   ", "   "
        for c in range(5):
            sp = c * 4 + row
            tile, extra = _space_parts(v, sp)
            glyph = "||" if v.t["space_wide"][sp] else "|"
            line_a += (_marked(v, "spaces", sp, tile, "") if tile else glyph).center(5)
            line_b += (extra or glyph).center(5)
            if c < 4:
                a, b = _block_lines(v, c, row)
                line_a += a
                line_b += b
        out.append(line_a.rstrip())
        out.append(line_b.rstrip())
    out.append("   " + (" " * 9).join(codes[c].center(5) for c in range(5)) + " \\" + codes[10])
    return out


def _grid_legend(v: _View) -> list[str]:
    lines = ["crossing: top/bottom citizen, *n Intersection of player n, $n cost",
             "street: - narrow, = wide (| and || vertical); nN/nW tile of",
             "  player n, pn Passenger, Tn Tram; \\ diagonal D(k)",
             "block: L1-L3 or C corner, [markers bottom..top]"]
    if v.marks:
        lines.append(f"<...> and < after a crossing: {v.marks.get('label', 'changed by the last moves')}")
    items = []
    for k in sorted(set(v.sv.action_tiles)):
        if 0 <= k < len(ACTION_KINDS):
            items.append(f"{ACTION_CODES[ACTION_KINDS[k]]} {grant_words(ACTION_KINDS[k])}")
    return lines + _wrap("actions: ", items, "; ")


# ---------------------------------------------------------------------------------------------------------------
# shared boards

def _tracks(v: _View) -> list[str]:
    sv, t = v.sv, v.t
    out = ["Citizen tracks (# filled, number = VP of an empty space, * mark):"]
    lowest = None
    for k in range(3):
        n = t["track_len"][k]
        marks = set(t["track_mark"][k])
        occupied = set(sv.tracks[k])
        cells = []
        for i in range(n):
            filled = i in occupied
            vp = t["track_vp"][k][i]
            if filled:
                cells.append(" *#" if i in marks else "  #")
            else:
                cells.append(f"{'*' + str(vp):>3}" if i in marks else f"{vp:>3}")
        line = f"{CLASS_LETTERS[k]} |"                    # rows of 21 spaces fit 70 columns
        ends = section_ends(v.ed, k)
        for i, cell in enumerate(cells):
            line += cell
            if i in ends:
                line += "|"
        if sv.tracks_off_board[k]:
            line += f" +{sv.tracks_off_board[k]}"
        out.append(line)
        free = [i for i in range(n) if i not in occupied]
        if free:
            vp = t["track_vp"][k][free[0]]
            lowest = vp if lowest is None else min(lowest, vp)
    out.append(f"  building VP now (lowest visible): {lowest if lowest is not None else 0}")
    return out


def section_ends(edition: Any, k: int) -> set[int]:
    """Last index of each section of citizen track k (from the data file); also board_svg's."""
    try:
        return {int(sec[1]) for sec in edition.raw["citizen_tracks"][("WORKING", "MIDDLE", "UPPER")[k]]["sections"]}
    except (KeyError, TypeError, IndexError, ValueError):
        return set()


def _cerda(v: _View) -> list[str]:
    sv, t = v.sv, v.t
    out = ["Cerdà Scoring tiles:"]
    for sec in range(3):
        cond = sv.cerda_tiles[sec]
        state = "scored" if sv.cerda_scored[sec] else "still to score"
        out += _wrap(f"  section {sec + 1} ({state}): ", [_cond(t, cond)])
    mult = t["cerda_mult"]
    w = max(3, v.n + 1)
    idx = "".join(f"{i:>{w}}" for i in range(len(mult)))
    mul = "".join(f"{'x' + str(m):>{w}}" for m in mult)
    who = ""
    for i in range(len(mult)):
        here = "".join(str(pl.seat) for pl in sv.players if pl.cerda == i)
        who += f"{here or '.':>{w}}"
    out.append(f"Cerdà track (start at {t['cerda_start']}):")
    out.append(f"  space {idx}")
    out.append(f"  mult  {mul}")
    out.append(f"  who   {who}")
    return out


def _modernisme(v: _View) -> list[str]:
    sv, t = v.sv, v.t
    out = ["Modernisme tiles on display (scored at the game end):"]
    for i in sv.modernisme_display:
        out += _wrap("  ", [_cond(t, t["mod_cond"][i])])
    discard = [v.mod_name[i] for i in sv.modernisme_discard]
    out += _wrap(f"  stack {len(sv.modernisme_stack)} face down; discard {len(discard)}: ", discard, "; ")
    return out


def _public_services(v: _View) -> list[str]:
    sv, t = v.sv, v.t
    out = ["Public Services:"]
    per_stack = t["ps_tiles_2p"] if v.n == 2 else 3
    for k, name in enumerate(t["ps_names"]):
        left = sv.public_services_left[k]
        if left is None:
            continue
        title = public_service_name(name)
        if left > 0:
            idx = per_stack - left
            what = f"{left} left, next costs {t['ps_cost'][idx]} Coins, gives {t['ps_vp'][idx]} VP"
        else:
            what = "none left"
        built = [f"P{pl.seat}" for pl in sv.players if k in pl.public_services]
        out += _wrap(f"  {title:<28} ", [what + (f"; built by {', '.join(built)}" if built else "")])
    return out


def _sagrada_offer(v: _View) -> list[str]:
    t = v.t
    out = []
    for lvl in (1, 2, 3):
        items = [effect_words(t["sag_text"][i], brief=True) for i in v.sv.sagrada_offer if t["sag_level"][i] == lvl]
        out += _wrap(f"Sagrada Família tiles, level {lvl}: ", items, "; ")
    return out


def _sidewalk(v: _View) -> list[str]:
    occupied = set(v.sv.sidewalk)
    rows = v.ed.raw.get("sidewalk", {}).get("rows") if isinstance(v.ed.raw, dict) else None
    out = ["Sidewalk (## = cobblestone; otherwise the space's benefit):",
           "    " + "".join(f"c{c}".ljust(9) for c in range(6))]
    for row in range(5):
        line = f"r{row}  "
        for col in range(6):
            i = row * 6 + col
            if i in occupied:
                cell = "##"
            else:
                try:
                    cell = _short_benefit(rows[row][col])
                except (TypeError, IndexError, KeyError):
                    cell = "?"
            line += cell.ljust(9)
        out.append(line.rstrip())
    out += _wrap("  ", ["Co Coins", "Cl Cloths", "Ce Cerdà track steps", "Sa Sagrada Família steps",
                        "Re resources", "aWide Build 1 Wide Street", "aNarr Build 2 Narrow Streets",
                        "aInter Build an Intersection", "aImpr Improve a Modernisme Project",
                        "aTake Take a Modernisme Project", "aTram Move Your Tram"], "; ")
    return out


# ---------------------------------------------------------------------------------------------------------------
# player boards

def _player_lines(v: _View, p: int) -> list[str]:
    sv, t = v.sv, v.t
    pl = sv.players[p]
    mover = sv.current_player
    tag = []
    if p == mover:
        tag.append("to move")
    if p == sv.turn_player and sv.phase != C["PH_OVER"]:
        tag.append("turn")
    head = f"-- Player {p}" + (f" ({', '.join(tag)})" if tag else "") + " "
    out = [head.ljust(WIDTH - 2, "-")]
    src = [f"{source_words(SOURCES[k])} {pl.vp_sources[k]}" for k in range(len(SOURCES)) if pl.vp_sources[k]]
    out += _wrap(f" score {pl.score} VP: ", src) if src else [f" score {pl.score} VP"]
    cap = t["wh_free"] + pl.cobblestones
    cob_vp = t["cobble_vp"][pl.cobblestones - 1] if pl.cobblestones > 0 else 0
    out.append(f" coins {pl.coins}, cloth {pl.cloth} (warehouse {pl.coins + pl.cloth}/{cap})"
               f"   cobblestones out {pl.cobblestones}/6 (end {cob_vp} VP)")
    nxt = f"next costs {t['inter_cost'][pl.intersections]}" if pl.intersections < 5 else "all built"
    out.append(f" Intersections {pl.intersections}/5 ({nxt})   streets left: narrow "
               f"{t['narrow_total'] - pl.narrow_laid}, wide {t['wide_total'] - pl.wide_laid}")
    pas_vp = t["pass_vp"][pl.passengers - 1] if pl.passengers > 0 else 0
    tram = _space_name(pl.tram) if pl.tram is not None else "not placed"
    out.append(f" passengers {pl.passengers}/5 (end {pas_vp} VP)   tram {tram}   markers placed {pl.markers_placed}/8")
    mult = t["cerda_mult"][pl.cerda] if 0 <= pl.cerda < len(t["cerda_mult"]) else "?"
    tiles = [effect_words(t["sag_text"][x], brief=True) if x is not None else "-" for x in pl.sagrada_tiles]
    out += _wrap(f" Cerdà track {pl.cerda} (x{mult})   Sagrada Família {pl.sagrada}/{t['sag_spaces'] - 1}: ",
                 tiles, " | ")
    mods = []
    for k in range(5):
        tile = pl.modernisme[k]
        name = v.mod_name[tile] if tile is not None else "-"
        mods.append(f"{k + 1}: {name} ({'marker up' if pl.modernisme_up[k] else 'marker down'})")
    out += _wrap(" Modernisme projects: ", mods, "; ")
    built = [public_service_name(t["ps_names"][k]) for k in range(len(t["ps_names"]))
             if k in pl.public_services]
    out += _wrap(" Public Services: ", built)
    hand = pl.hand
    if hand is None:
        hand_text = f"{pl.hand_size} hidden"
    else:
        letters = [CLASS_LETTERS[k] for k in range(3) for _ in range(hand[k])]
        hand_text = " ".join(letters) if letters else "empty"
    out.append(f" hand: {hand_text}   turns played {pl.turns}")
    return out


def render_player(state: Any, p: int) -> str:
    """The board of player `p` as text."""
    v = _View(state)
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < v.n:
        from ..errors import PlayerCountError
        raise PlayerCountError(f"no seat {p!r} in a {v.n}-player game")
    return "\n".join(line.rstrip() for line in _player_lines(v, p))


# ---------------------------------------------------------------------------------------------------------------
# whose decision

def _frame_words(sv: Any) -> str:
    """What the player to move decides inside a piece of a turn (the top of the decision stack)."""
    top = sv.top_frame
    kind = top.kind
    if kind == C["FR_GRANT"]:
        gk = top.a
        name = grant_words(GRANT_KINDS[gk]) if 0 <= gk < len(GRANT_KINDS) else "an action"
        return f"you may {name[0].lower() + name[1:]} (or skip)"
    if kind == C["FR_NARROW2"]:
        return "lay the second Narrow Street tile"
    if kind == C["FR_PASSENGER"]:
        return f"place a Passenger on {_space_name(top.a)}? (or skip)"
    if kind == C["FR_SAGRADA"]:
        return f"Sagrada Família track: {top.a} steps left, step or stop"
    if kind == C["FR_SAG_TILE"]:
        return f"choose a level {top.a} Sagrada Família tile for slot {top.b + 1}"
    if kind == C["FR_RES"]:
        return f"split {top.a} resources between Coins and Cloths"
    if kind == C["FR_INT_PICK"]:
        return f"pick Intersection benefits ({top.a} left; player {sv.turn_player}'s turn)"
    return "decide"


def decision_words(state: Any) -> str:
    """What the player to move decides now, in the rulebook's words ('place 2 citizens on an empty crossing
    (turn step 1)'); for a chance node, what is drawn or revealed; '' once the game is over."""
    sv = state.view()
    if state.is_terminal():
        return ""
    if sv.current_player == C["CHANCE"]:
        if sv.reveal_pending > 0:
            return (f"reveal a Modernisme tile ({len(sv.modernisme_stack)} in the stack, "
                    f"{sv.reveal_pending} to reveal)")
        bag = ", ".join(f"{CLASS_LETTERS[k]} {sv.bag[k]}" for k in range(3))
        return f"player {sv.turn_player} draws a citizen (bag: {bag}; {sv.draws_left} to draw)"
    if sv.discard_player is not None:
        return "Warehouse overflow: discard a Coin or a Cloth"
    if sv.top_frame is not None:
        return _frame_words(sv)
    if sv.phase == C["PH_PLACE"]:
        return "place 2 citizens on an empty crossing (turn step 1)"
    if sv.phase == C["PH_ACTIONS"]:
        c = sv.place_crossing
        return f"take the actions of crossing ({c % 5},{c // 5}), or end actions"
    if sv.phase == C["PH_BUILD"]:
        return "construct a Building (turn step 2, compulsory)"
    return "decide"


def _status(v: _View) -> str:
    state = v.state
    if state.is_terminal():
        scores = state.scores()
        winners = [str(p) for p in state.winners()]
        return (f"Game over. Scores: {', '.join(f'P{p} {s}' for p, s in enumerate(scores))}. "
                f"Winner: player {' and '.join(winners)}.")
    if v.sv.current_player == C["CHANCE"]:
        return f"Chance: {decision_words(state)}"
    n = len(state.legal_actions())
    return (f"Player {v.sv.current_player} to move: {decision_words(state)}\n"
            f"  ({n} possible {'move' if n == 1 else 'moves'})")


def render_state(state: Any, marks: dict | None = None) -> str:
    """The whole table as plain text (see the module docstring). `marks` (gamelog.changes) puts last-move
    markers on the grid: <...> around a street tile or a building, '<' right of a crossing, that changed."""
    v = _View(state, marks)
    sv = v.sv
    head = (f"Barcelona, {v.n} players, {edition_words(state)}; round {sv.round_number}"
            + ("; END TRIGGERED" if sv.end_triggered else ""))
    out = [head, ""]
    out += _grid(v)
    out += _grid_legend(v)
    out.append("")
    out += _tracks(v)
    out += _cerda(v)
    out.append("")
    out += _modernisme(v)
    out += _public_services(v)
    out += _sagrada_offer(v)
    left = [f"{k} {sv.building_tiles_left[i]}" for i, k in enumerate(("corner", "L1", "L2", "L3"))]
    out.append("Buildings left: " + ", ".join(left) + "; bonus rows taken: "
               + (" ".join(str(j) for j in range(4) if j in sv.bonus_rows_taken) or "none"))
    out.append("")
    out += _sidewalk(v)
    for p in range(v.n):
        out.append("")
        out += _player_lines(v, p)
    out.append("")
    out += _status(v).split("\n")
    return "\n".join(line.rstrip() for line in out)


# State.render and str(state) use this (core.pyx, "Layers").
register_text_services(render_state=render_state)
