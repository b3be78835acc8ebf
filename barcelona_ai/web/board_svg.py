"""The board as a picture (SVG) for the web board (``barcelona-ai serve``), drawn from one seat's view.

:func:`board_svg` draws what :func:`render.render_state` writes as text: the 5x5 street grid (crossings with their
citizens, Intersections and costs; street spaces with tiles, Passengers and Trams; blocks with buildings and marker
stacks; the action tile at the end of each street), the citizen tracks with the Cerda Scoring tiles, the Cerda
track, the side board (Modernisme display, Public Services, Sagrada offer, Sidewalk) and every player board.

It reads only ``state.view(viewpoint)`` (view.StateView), so a picture for seat p cannot show what p may not see
(A6): the other hands are drawn as their sizes and the bag as its size. Everything a move can point at carries a
``data-target`` attribute (``crossing:12``, ``space:40``, ``building:3``, ``sidewalk:7``, ``modernisme:5``,
``service:2``, ``sagrada:9``, ``project:P:K``); webapi.action_target names the target of a legal action in the same
words, and the page highlights and clicks them.
"""
from __future__ import annotations

from html import escape
from typing import Any

import textwrap

from ..core import SOURCES
from ..rules.render import ACTION_CODES, CLASS_LETTERS, section_ends
from ..rules.tables import ACTION_KINDS, CONDITIONS, space_name
from ..rules.words import (condition_name, condition_text, edition_words, effect_short, effect_words, grant_words,
                           public_service_name, public_service_text, source_words, tile_names)

__all__ = ["board_svg", "PLAYER_COLOURS", "CLASS_COLOURS", "WIDTH", "HEIGHT"]

WIDTH, HEIGHT = 1200, 900
PLAYER_COLOURS = ("#d1495b", "#2e86ab", "#3f9e4d", "#e08e0b")
CLASS_COLOURS = ("#f4f1e8", "#e3b23c", "#7b4fa0")          # Working, Middle, Upper citizens
GRID_X, GRID_Y, STEP = 70, 80, 116             # crossing (c, r) is at (GRID_X + c*STEP, GRID_Y + r*STEP)
SIDE_X = 660                                   # the left edge of the tracks and the side board
PLAYERS_Y = 660                                # the top of the player boards
GAP = 6                                        # pixels between parts of the side board


def crossing_xy(c: int) -> tuple[float, float]:
    return GRID_X + (c % 5) * STEP, GRID_Y + (c // 5) * STEP


def _text(x: float, y: float, s: str, size: int = 12, anchor: str = "start", weight: str = "normal",
          fill: str = "#222", cls: str = "") -> str:
    extra = f' class="{cls}"' if cls else ""
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}"{extra}>{escape(s)}</text>')


def _wrapped(x: float, y: float, s: str, size: int, chars: int, **style) -> str:
    """`s` as lines of at most `chars` characters (words are never cut), the first at baseline `y`."""
    lines = textwrap.wrap(s, chars, break_long_words=False) or [""]
    return "".join(_text(x, y + i * (size + 2), line, size, **style) for i, line in enumerate(lines))


def _target(kind: str, *ids: int) -> str:
    return f'class="target" data-target="{kind}:{":".join(str(i) for i in ids)}"'


def _title(s: str) -> str:
    return f"<title>{escape(s)}</title>"


class _Picture:
    """The view, the edition tables and the SVG parts being drawn."""

    def __init__(self, state: Any, viewpoint: int | None, marks: dict | None, you: int | None):
        self.sv = state.view(viewpoint=viewpoint)
        self.you = viewpoint if you is None else you
        self.ed = state.game_data.edition
        self.t = self.ed.t
        self.n = self.sv.num_players
        self.marks = marks or {}
        self.out: list[str] = []
        self.mod_names = tile_names(self.t)
        self.mod_texts = [condition_text(CONDITIONS[self.t["cond_kind"][c]], self.t["cond_vp"][c])
                          for c in self.t["mod_cond"]]

    def add(self, *parts: str) -> None:
        self.out.extend(parts)

    def marked(self, kind: str, i: int) -> bool:
        return i in self.marks.get(kind, ())


# ---------------------------------------------------------------------------------------------------------------
# the street grid

def _blocks(pic: _Picture) -> None:
    index = {name: i for i, name in enumerate(pic.t["bs_names"])}
    inset = 16
    for j in range(4):
        for i in range(4):
            x0, y0 = crossing_xy(j * 5 + i)
            x1, y1 = x0 + STEP, y0 + STEP
            if i == j:
                ne = [(x0 + inset + 8, y0 + inset), (x1 - inset, y0 + inset), (x1 - inset, y1 - inset - 8)]
                sw = [(x0 + inset, y0 + inset + 8), (x0 + inset, y1 - inset), (x1 - inset - 8, y1 - inset)]
                _building(pic, index[f"NE({i})"], ne)
                _building(pic, index[f"SW({i})"], sw)
            else:
                box = [(x0 + inset, y0 + inset), (x1 - inset, y0 + inset), (x1 - inset, y1 - inset),
                       (x0 + inset, y1 - inset)]
                _building(pic, index[f"B({i},{j})"], box)


def _building(pic: _Picture, bs: int, points: list[tuple[float, float]]) -> None:
    sv, t = pic.sv, pic.t
    level = sv.building_levels[bs]
    fill = "#efe6d8" if level == 0 else ("#c9b79c" if level < 4 else "#b8a07e")
    stroke = "#111" if pic.marked("buildings", bs) else "#a89a86"
    pts = " ".join(f"{x:.0f},{y:.0f}" for x, y in points)
    cx = sum(x for x, _ in points) / len(points)
    cy = sum(y for _, y in points) / len(points)
    name = t["bs_names"][bs]
    what = "empty" if level == 0 else ("Corner building" if level == 4 else f"Level {level} building")
    owners = sv.building_markers[bs]
    tip = f"{name}: {what}" + (f", markers (bottom first) {', '.join(f'P{m}' for m in owners)}" if owners else "")
    pic.add(f'<g {_target("building", bs)}>{_title(tip)}'
            f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="{3 if stroke == "#111" else 1}"/>')
    if level:
        pic.add(_text(cx, cy - 2, "C" if level == 4 else f"L{level}", 14, "middle", "bold"))
    for k, owner in enumerate(owners):
        pic.add(f'<circle cx="{cx - 6 * (len(owners) - 1) + 12 * k:.0f}" cy="{cy + 12:.0f}" r="5" '
                f'fill="{PLAYER_COLOURS[owner]}" stroke="#222"/>')
    pic.add("</g>")


def _streets(pic: _Picture) -> None:
    t, sv = pic.t, pic.sv
    trams = {}
    for pl in sv.players:
        if pl.tram is not None:
            trams.setdefault(pl.tram, []).append(pl.seat)
    for sp in range(len(sv.streets)):
        (xa, ya), (xb, yb) = crossing_xy(t["space_a"][sp]), crossing_xy(t["space_b"][sp])
        wide = bool(t["space_wide"][sp])
        owner = sv.streets[sp]
        colour = PLAYER_COLOURS[owner] if owner is not None else "#d8d2c4"
        tip = f"{space_name(sp)}: {'wide' if wide else 'narrow'} street" + (f", tile of P{owner}" if owner is not None
                                                                          else "")
        if sv.passengers[sp] is not None:
            tip += f", Passenger of P{sv.passengers[sp]}"
        if sp in trams:
            tip += ", Tram of " + " and ".join(f"P{p}" for p in trams[sp])
        pic.add(f'<g {_target("space", sp)}>{_title(tip)}'
                f'<polygon points="{_band(xa, ya, xb, yb, 11)}" fill="#fff0" stroke="none"/>'
                f'<line x1="{xa:.0f}" y1="{ya:.0f}" x2="{xb:.0f}" y2="{yb:.0f}" stroke="{colour}" '
                f'stroke-width="{11 if wide else 5}" stroke-linecap="round"/>')
        if pic.marked("spaces", sp):
            pic.add(f'<line x1="{xa:.0f}" y1="{ya:.0f}" x2="{xb:.0f}" y2="{yb:.0f}" stroke="#111" '
                    'stroke-width="2" stroke-dasharray="4 4"/>')
        mx, my = (xa + xb) / 2, (ya + yb) / 2
        if sv.passengers[sp] is not None:
            pic.add(f'<rect x="{mx - 7:.0f}" y="{my - 16:.0f}" width="14" height="14" rx="3" '
                    f'fill="{PLAYER_COLOURS[sv.passengers[sp]]}" stroke="#222"/>',
                    _text(mx, my - 5, "p", 10, "middle", "bold", "#fff"))
        for k, p in enumerate(trams.get(sp, [])):
            pic.add(f'<rect x="{mx - 9 + 20 * k:.0f}" y="{my + 3:.0f}" width="18" height="12" rx="2" '
                    f'fill="{PLAYER_COLOURS[p]}" stroke="#222"/>',
                    _text(mx + 20 * k, my + 13, "T", 10, "middle", "bold", "#fff"))
        pic.add("</g>")


def _band(xa: float, ya: float, xb: float, yb: float, half: float) -> str:
    """The points of a band `half` wide either side of the segment, 22 px short of its ends (the click area of
    a street space: the crossings keep theirs)."""
    dx, dy = xb - xa, yb - ya
    length = (dx * dx + dy * dy) ** 0.5
    ux, uy = dx / length, dy / length
    nx, ny = -uy * half, ux * half
    a = (xa + ux * 22, ya + uy * 22)
    b = (xb - ux * 22, yb - uy * 22)
    return " ".join(f"{x:.0f},{y:.0f}" for x, y in ((a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny),
                                                     (b[0] - nx, b[1] - ny), (a[0] - nx, a[1] - ny)))


def _crossings(pic: _Picture) -> None:
    t, sv = pic.t, pic.sv
    for c in range(25):
        x, y = crossing_xy(c)
        owner = sv.intersections[c]
        cits = sv.crossings[c]
        tip = f"crossing ({c % 5},{c // 5})"
        if cits:
            tip += ": " + "/".join(CLASS_LETTERS[k] for k in reversed(cits)) + " (top first)"
        if owner is not None:
            tip += f", Intersection of P{owner}"
        elif t["cross_cost"][c]:
            tip += f", costs {t['cross_cost'][c]} coin"
        fill = PLAYER_COLOURS[owner] if owner is not None else "#fff"
        stroke = "#111" if pic.marked("crossings", c) else "#777"
        pic.add(f'<g {_target("crossing", c)}>{_title(tip)}'
                f'<circle cx="{x}" cy="{y}" r="20" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="{3 if stroke == "#111" else 1.5}"/>')
        for k, cls in enumerate(cits):                       # bottom first: the top one is drawn above it
            cy = y + 6 - 11 * k
            pic.add(f'<circle cx="{x}" cy="{cy}" r="8" fill="{CLASS_COLOURS[cls]}" stroke="#333"/>',
                    _text(x, cy + 4, CLASS_LETTERS[cls], 10, "middle", "bold", "#222"))
        if t["cross_cost"][c] and owner is None:
            pic.add(_text(x + 17, y - 15, f"${t['cross_cost'][c]}", 10, "start", "bold", "#8a6d1f"))
        pic.add("</g>")
    for c in range(5):                                       # the grid's coordinates, as the notation writes them
        pic.add(_text(GRID_X + c * STEP, GRID_Y - 38, f"c{c}", 11, "middle", fill="#888"))
        pic.add(_text(GRID_X - 48, GRID_Y + c * STEP + 4, f"r{c}", 11, "middle", fill="#888"))


def _action_tiles(pic: _Picture) -> None:
    sv = pic.sv
    end = GRID_X + 4 * STEP
    places = [(GRID_X + c * STEP, end + 44) for c in range(5)]           # vertical streets end at the bottom
    places += [(end + 46, GRID_Y + r * STEP) for r in range(5)]         # horizontal streets at the right
    places.append((end + 40, end + 40))                                  # the diagonal at the bottom right
    for street, (x, y) in enumerate(places):
        k = sv.action_tiles[street]
        kind = ACTION_KINDS[k] if 0 <= k < len(ACTION_KINDS) else "?"
        title = grant_words(kind)
        where = f"column c{street}" if street < 5 else f"row r{street - 5}" if street < 10 else "the diagonal"
        pic.add(f'<g class="action-tile">{_title(f"action tile of {where}: {title}")}'
                f'<rect x="{x - 22}" y="{y - 12}" width="44" height="24" rx="4" fill="#fdf6e3" stroke="#8a7"/>',
                _text(x, y + 4, ACTION_CODES.get(kind, "?"), 11, "middle", "bold", "#354"), "</g>")


# ---------------------------------------------------------------------------------------------------------------
# tracks and the side board

def _citizen_tracks(pic: _Picture, y: float) -> float:
    t, sv = pic.t, pic.sv
    pic.add(_text(SIDE_X, y, "Citizen tracks (number: VP of the space; ringed: a Cerdà Scoring space)", 12,
                  weight="bold"))
    for k in range(3):
        yy = y + 12 + 28 * k
        occupied = set(sv.tracks[k])
        marks = set(t["track_mark"][k])
        ends = section_ends(pic.ed, k)
        x = SIDE_X + 18
        pic.add(_text(SIDE_X, yy + 17, CLASS_LETTERS[k], 13, weight="bold"))
        for i in range(t["track_len"][k]):
            filled = i in occupied
            fill = CLASS_COLOURS[k] if filled else "#fff"
            pic.add(f'<rect x="{x}" y="{yy}" width="24" height="24" rx="3" fill="{fill}"'
                    f' stroke="{"#111" if i in marks else "#aaa"}" stroke-width="{2.5 if i in marks else 1}"/>')
            if filled:
                pic.add(f'<circle cx="{x + 12}" cy="{yy + 12}" r="7" fill="{CLASS_COLOURS[k]}" stroke="#333"/>')
            else:
                pic.add(_text(x + 12, yy + 16, str(t["track_vp"][k][i]), 11, "middle"))
            x += 26 + (6 if i in ends else 0)
        if sv.tracks_off_board[k]:
            pic.add(_text(x + 4, yy + 16, f"+{sv.tracks_off_board[k]}", 11))
    return y + 12 + 28 * 3 + 6


def _cerda_tiles(pic: _Picture, y: float) -> float:
    t, sv = pic.t, pic.sv
    for sec in range(3):
        cond = sv.cerda_tiles[sec]
        done = "scored" if sv.cerda_scored[sec] else "still to score"
        kind = CONDITIONS[t["cond_kind"][cond]]
        pic.add(f'<g class="info">{_title(condition_text(kind, t["cond_vp"][cond]))}',
                _text(SIDE_X, y + 14 + 16 * sec,
                      f"Cerdà Scoring {sec + 1}: {condition_name(kind)}, {t['cond_vp'][cond]} VP each ({done})",
                      11, fill="#666" if sv.cerda_scored[sec] else "#222"), "</g>")
    return y + 14 + 16 * 3


def _cerda_track(pic: _Picture, y: float) -> float:
    t, sv = pic.t, pic.sv
    mult = t["cerda_mult"]
    pic.add(_text(SIDE_X, y + 16, "Cerdà", 12, weight="bold"))
    for i, m in enumerate(mult):
        x = SIDE_X + 50 + 40 * i
        pic.add(f'<rect x="{x}" y="{y}" width="38" height="26" rx="3" fill="#f7f3ea" stroke="#aaa"/>',
                _text(x + 19, y + 11, f"x{m}", 10, "middle", fill="#777"))
        here = [pl.seat for pl in sv.players if pl.cerda == i]
        for k, p in enumerate(here):
            pic.add(f'<circle cx="{x + 7 + 8 * k}" cy="{y + 19}" r="4.5" fill="{PLAYER_COLOURS[p]}" stroke="#222"/>')
    return y + 34


def _modernisme(pic: _Picture, y: float) -> float:
    sv = pic.sv
    pic.add(_text(SIDE_X, y + 12, f"Modernisme tiles (stack {len(sv.modernisme_stack)}, "
                                 f"discard {len(sv.modernisme_discard)})", 12, weight="bold"))
    t = pic.t
    for k, tile in enumerate(sv.modernisme_display):
        x = SIDE_X + 130 * k
        vp = t["cond_vp"][t["mod_cond"][tile]]
        pic.add(f'<g {_target("modernisme", tile)}>{_title(f"{pic.mod_names[tile]}: {pic.mod_texts[tile]}")}'
                f'<rect x="{x}" y="{y + 18}" width="124" height="44" rx="4" fill="#f3e9f7" stroke="#96a"/>',
                _wrapped(x + 6, y + 31, pic.mod_names[tile], 10, 22, weight="bold"),
                _text(x + 6, y + 57, f"{vp} VP each", 9, fill="#555"), "</g>")
    return y + 68


def _public_services(pic: _Picture, y: float) -> float:
    t, sv = pic.t, pic.sv
    pic.add(_text(SIDE_X, y + 12, "Public Services (tiles left: next cost, VP)", 12, weight="bold"))
    per_stack = t["ps_tiles_2p"] if pic.n == 2 else 3
    k_shown = 0
    for k, name in enumerate(t["ps_names"]):
        left = sv.public_services_left[k]
        if left is None:
            continue
        x = SIDE_X + 104 * k_shown
        k_shown += 1
        nxt = (f"{left} left: {t['ps_cost'][per_stack - left]} Coins, {t['ps_vp'][per_stack - left]} VP" if left
               else "none left")
        raw = pic.ed.raw.get("public_services", {}).get("benefits", {}) if isinstance(pic.ed.raw, dict) else {}
        effect = public_service_text(name, str(raw.get(name, "")))
        tip = f"{public_service_name(name)}: pay the cost for {effect}, 2 steps on the Cerdà track and the VP"
        pic.add(f'<g {_target("service", k)}>{_title(tip)}'
                f'<rect x="{x}" y="{y + 18}" width="100" height="46" rx="4" fill="#e8f0f7" stroke="#68a"/>',
                _wrapped(x + 5, y + 30, public_service_name(name), 9, 18, weight="bold"),
                _text(x + 5, y + 59, nxt, 9), "</g>")
    return y + 70


def _sagrada_offer(pic: _Picture, y: float) -> float:
    t, sv = pic.t, pic.sv
    pic.add(_text(SIDE_X, y + 12, "Sagrada Família tiles", 12, weight="bold"))
    for k, tile in enumerate(sv.sagrada_offer):
        x = SIDE_X + 64 * (k % 8)
        yy = y + 18 + 38 * (k // 8)
        text = t["sag_text"][tile]
        tip = f"level {t['sag_level'][tile]}: {effect_words(text)}"
        pic.add(f'<g {_target("sagrada", tile)}>{_title(tip)}'
                f'<rect x="{x}" y="{yy}" width="60" height="35" rx="4" fill="#f7efe0" stroke="#b96"/>',
                _text(x + 4, yy + 10, f"level {t['sag_level'][tile]}", 8, fill="#964"),
                _wrapped(x + 4, yy + 20, effect_short(text), 8, 13), "</g>")
    rows = (len(sv.sagrada_offer) + 7) // 8
    return y + 22 + 38 * max(rows, 1)


def _sidewalk(pic: _Picture, y: float) -> float:
    sv = pic.sv
    occupied = set(sv.sidewalk)
    rows = pic.ed.raw.get("sidewalk", {}).get("rows") if isinstance(pic.ed.raw, dict) else None
    pic.add(_text(SIDE_X, y + 12, "Sidewalk (grey: a Cobblestone)", 12, weight="bold"))
    for i in range(30):
        r, c = divmod(i, 6)
        x, yy = SIDE_X + 84 * c, y + 18 + 24 * r
        try:
            benefit = str(rows[r][c])
        except (TypeError, IndexError, KeyError):
            benefit = "?"
        taken = i in occupied
        what = "a printed Cobblestone" if benefit == "PRE" else effect_words(benefit)
        short = "printed" if benefit == "PRE" else effect_short(benefit)
        pic.add(f'<g {_target("sidewalk", i)}>{_title(f"Sidewalk r{r}c{c}: {what}")}'
                f'<rect x="{x}" y="{yy}" width="80" height="21" rx="3" fill="{"#9a9a9a" if taken else "#fbfaf6"}" '
                f'stroke="#bbb"/>', _text(x + 4, yy + 15, short, 9, fill="#eee" if taken else "#444"), "</g>")
    return y + 18 + 24 * 5


# ---------------------------------------------------------------------------------------------------------------
# player boards

def _player_board(pic: _Picture, p: int) -> None:
    t, sv = pic.t, pic.sv
    pl = sv.players[p]
    w = (WIDTH - 40) // pic.n
    x, y = 20 + w * p, PLAYERS_Y
    colour = PLAYER_COLOURS[p]
    to_move = sv.current_player == p
    pic.add(f'<g class="player-board" data-seat="{p}">'
            f'<rect x="{x}" y="{y}" width="{w - 10}" height="{HEIGHT - PLAYERS_Y - 10}" rx="8" fill="#fff" '
            f'stroke="{colour}" stroke-width="{4 if to_move else 2}"/>'
            f'<rect x="{x}" y="{y}" width="{w - 10}" height="26" rx="8" fill="{colour}"/>')
    who = f"P{p}" + (" (you)" if p == pic.you else "") + (" - to move" if to_move else "")
    pic.add(_text(x + 10, y + 18, who, 14, weight="bold", fill="#fff"),
            _text(x + w - 20, y + 18, f"{pl.score} VP", 14, "end", "bold", "#fff"))
    lines = []
    src = [f"{source_words(SOURCES[k])} {pl.vp_sources[k]}" for k in range(len(SOURCES)) if pl.vp_sources[k]]
    hand = (f"{pl.hand_size} hidden" if pl.hand is None else
            " ".join(CLASS_LETTERS[k] for k in range(3) for _ in range(pl.hand[k])) or "empty")
    lines.append(f"hand: {hand}    turns {pl.turns}")
    capacity = t["wh_free"] + pl.cobblestones
    lines.append(f"coins {pl.coins}  cloth {pl.cloth}  (warehouse {pl.coins + pl.cloth}/{capacity})")
    lines.append(f"cobblestones out {pl.cobblestones}/6   Intersections {pl.intersections}/5")
    lines.append(f"streets left: narrow {t['narrow_total'] - pl.narrow_laid}, wide {t['wide_total'] - pl.wide_laid}")
    tram = space_name(pl.tram) if pl.tram is not None else "not placed"
    lines.append(f"passengers {pl.passengers}/5   tram {tram}")
    mult = t["cerda_mult"][pl.cerda] if 0 <= pl.cerda < len(t["cerda_mult"]) else "?"
    lines.append(f"markers {pl.markers_placed}/8   Cerdà {pl.cerda} (x{mult})   Sagrada {pl.sagrada}")
    tiles = [effect_short(t["sag_text"][s]) for s in pl.sagrada_tiles if s is not None]
    if tiles:
        lines.append("Sagrada tiles: " + "; ".join(tiles))
    built = [public_service_name(t["ps_names"][k]) for k in pl.public_services]
    if built:
        lines.append("Public Services: " + ", ".join(built))
    chars = max(24, int((w - 30) / 6))          # characters of 11 px text that fit the board's width
    wrapped = [part for line in lines for part in textwrap.wrap(line, chars, break_long_words=False)]
    for i, line in enumerate(wrapped):
        pic.add(_text(x + 10, y + 44 + 15 * i, line, 11))
    py = y + 44 + 15 * len(wrapped)
    slot = (w - 30) / 5
    for k in range(5):
        tile = pl.modernisme[k]
        up = pl.modernisme_up[k]
        name = pic.mod_names[tile] if tile is not None else "-"
        sx = x + 10 + slot * k
        what = f"{pic.mod_names[tile]}: {pic.mod_texts[tile]}" if tile is not None else "empty"
        tip = f"Modernisme project {k + 1}: {what}" + ("; marker in its top position" if up else "")
        pic.add(f'<g {_target("project", p, k)}>{_title(tip)}'
                f'<rect x="{sx:.0f}" y="{py}" width="{slot - 4:.0f}" height="44" rx="3" '
                f'fill="{"#e6d5ee" if tile is not None else "#f6f6f6"}" stroke="#96a"/>',
                _text(sx + 4, py + 11, f"{k + 1}{' up' if up else ''}", 9, fill="#777"),
                _wrapped(sx + 4, py + 22, name, 8, max(6, int((slot - 8) / 4.6))), "</g>")
    if src:
        pic.add(_wrapped(x + 10, py + 60, "VP: " + ", ".join(src), 10, max(28, int((w - 30) / 5.4)), fill="#555"))
    pic.add("</g>")


# ---------------------------------------------------------------------------------------------------------------

def board_svg(state: Any, viewpoint: int | None = None, marks: dict | None = None, caption: str = "",
              you: int | None = None) -> str:
    """The board as an SVG document, as seat `viewpoint` sees it (None: everything; only for finished games or
    tools). `marks` (gamelog.changes) outlines what changed since the seat's last decision; `caption` is the
    line above the grid (whose turn it is, what is decided); `you` (default: the viewpoint) is the seat whose
    board says "(you)"."""
    pic = _Picture(state, viewpoint, marks, you)
    pic.add(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" class="board" '
            f'font-family="sans-serif" role="img" aria-label="Barcelona board">',
            f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#faf7f0"/>')
    if caption:
        pic.add(_text(20, 24, caption, 15, weight="bold", cls="caption"))
    pic.add(_text(WIDTH - 20, 24, f"Board: {edition_words(state)}", 12, anchor="end", fill="#555", cls="edition"))
    _blocks(pic)
    _streets(pic)
    _crossings(pic)
    _action_tiles(pic)
    y = _citizen_tracks(pic, 50)
    y = _cerda_tiles(pic, y)
    y = _cerda_track(pic, y + GAP)
    y = _modernisme(pic, y + GAP)
    y = _public_services(pic, y)
    y = _sagrada_offer(pic, y)
    _sidewalk(pic, y)
    for p in range(pic.n):
        _player_board(pic, p)
    pic.add('<g class="overlay"></g></svg>')
    return "".join(pic.out)
