"""Why a move: what a plan of moves does, computed by the rules kernel, in a line a player reads.

:func:`plan_effect` applies a player's plan (one move or a whole turn plan) to a copy of a state and reads the
difference between the two states: the VP it scores now by source, the Coins, Cloths and track steps it gains,
what it builds; what it sets up (the next Cerdà Scoring tile's count and the player's own Modernisme tiles'
counts, what each is worth as things stand); and what it takes from the others (a crossing, a tile off the
display, a Public Service tile, what a Cerdà Scoring it triggers gives them, the end of the game). Every number
is the kernel's: the VP figure is the score difference the plan makes, by construction.

It reads public information and the player's own pieces, and the plan is applied to the state it is given (the
engine gives the searching player's own determinization of what they see), so nothing in it depends on what the
player cannot see.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..core import SOURCES
from .tables import CONDITIONS, space_name
from .words import condition_name, public_service_name, source_words, tile_names

__all__ = ["PlanEffect", "plan_effect", "reason_line", "ends_game"]

BUILDING_WORDS = {1: "a Level 1 Building", 2: "a Level 2 Building", 3: "a Level 3 Building", 4: "a Corner Building"}


@dataclass
class PlanEffect:
    """What a plan does for `player` (see the module docstring)."""
    player: int
    vp: int                                        # VP the plan scores now for the player (all sources)
    vp_by_source: dict[str, int]                   # the same by source (words.SOURCE_WORDS), nonzero only
    gains: list[str] = field(default_factory=list)      # Coins, Cloths, track steps, pieces placed
    sets_up: list[str] = field(default_factory=list)    # scoring conditions it raises
    lowers: list[str] = field(default_factory=list)     # scoring conditions it lowers
    takes: list[str] = field(default_factory=list)      # what it takes from the others
    others_vp: dict[int, int] = field(default_factory=dict)   # VP the others score meanwhile (a Cerdà Scoring)
    ends_game: bool = False                        # it triggers the end of the game

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def line(self) -> str:
        return reason_line(self)


def _signed(n: int, one: str, many: str) -> str:
    return f"{n:+d} {one if abs(n) == 1 else many}"


def _condition_value(state: Any, cond: int, player: int) -> int:
    return state.condition_count(cond, player)


def _resources(b, a) -> list[str]:
    out = []
    for one, many, before, after in (("Coin", "Coins", b.coins, a.coins), ("Cloth", "Cloths", b.cloth, a.cloth)):
        if after != before:
            out.append(_signed(after - before, one, many))
    if a.cerda != b.cerda:
        out.append(f"Cerdà track {a.cerda - b.cerda:+d}")
    if a.sagrada != b.sagrada:
        out.append(f"Sagrada Família track {a.sagrada - b.sagrada:+d}")
    return out


def _pieces(vb, va, p: int, t: dict) -> list[str]:
    """The pieces the player put on the boards (their own, read from the two views)."""
    out = []
    for bs, (lb, la) in enumerate(zip(vb.building_levels, va.building_levels)):
        if la != lb and p in va.building_markers[bs]:
            out.append(f"{BUILDING_WORDS.get(la, 'a Building')} on {t['bs_names'][bs]}")
    for c, (ob, oa) in enumerate(zip(vb.intersections, va.intersections)):
        if oa == p and ob is None:
            out.append(f"an Intersection at ({c % 5},{c // 5})")
    streets = [space_name(sp) for sp, (ob, oa) in enumerate(zip(vb.streets, va.streets)) if oa == p and ob is None]
    if streets:
        out.append(("Streets on " if len(streets) > 1 else "a Street on ") + ", ".join(streets))
    for sp, (ob, oa) in enumerate(zip(vb.passengers, va.passengers)):
        if oa == p and ob is None:
            out.append(f"a Passenger on {space_name(sp)}")
    pb, pa = vb.players[p], va.players[p]
    if pa.tram != pb.tram and pa.tram is not None:
        out.append(f"the Tram to {space_name(pa.tram)}")
    cobbles = [i for i in va.sidewalk if i not in vb.sidewalk]
    if cobbles:
        out.append("a Cobblestone on " + ", ".join(f"r{i // 6}c{i % 6}" for i in cobbles))
    for k in pa.public_services:
        if k not in pb.public_services:
            out.append(f"the Public Service {public_service_name(t['ps_names'][k])}")
    names = tile_names(t)
    for k in range(len(pa.modernisme)):
        if pa.modernisme[k] is not None and pb.modernisme[k] is None:
            out.append(f"the Modernisme tile {names[pa.modernisme[k]]} on project {k + 1}")
        elif pa.modernisme_up[k] and not pb.modernisme_up[k]:
            out.append(f"project {k + 1}'s marker to its top position")
    return out


def _sets_up(before: Any, after: Any, p: int, t: dict) -> tuple[list[str], list[str]]:
    """The next Cerdà Scoring tile's and the player's Modernisme tiles' counts that the plan raises, and those it
    lowers."""
    vb, va = before.view(), after.view()
    up: list[str] = []
    down: list[str] = []
    section = next((k for k, done in enumerate(va.cerda_scored) if not done), None)
    if section is not None:
        cond = va.cerda_tiles[section]
        b, a = _condition_value(before, cond, p), _condition_value(after, cond, p)
        if a != b:
            pl = va.players[p]
            mult = t["cerda_mult"][pl.cerda] if 0 <= pl.cerda < len(t["cerda_mult"]) else 0
            name = condition_name(CONDITIONS[t["cond_kind"][cond]])
            (up if a > b else down).append(f"Cerdà Scoring {section + 1} ({name}) {b} -> {a}, worth "
                                           f"{t['cond_vp'][cond] * a * mult} VP at your x{mult}")
    names = tile_names(t)
    pa = va.players[p]
    for k, tile in enumerate(pa.modernisme):
        if tile is None or vb.players[p].modernisme[k] != tile:
            continue
        cond = t["mod_cond"][tile]
        b, a = _condition_value(before, cond, p), _condition_value(after, cond, p)
        if a != b:
            times = t["mod_top"][k] if pa.modernisme_up[k] else t["mod_bottom"][k]
            (up if a > b else down).append(f"Modernisme {names[tile]} {b} -> {a}, worth "
                                           f"{t['cond_vp'][cond] * a * times} VP at the end")
    return up, down


def _takes(vb, va, p: int, t: dict) -> list[str]:
    out = []
    if va.place_crossing is not None and va.place_crossing != vb.place_crossing:
        c = va.place_crossing
        out.append(f"the crossing ({c % 5},{c // 5}) from the others")
    names = tile_names(t)
    gone = [i for i in vb.modernisme_display if i not in va.modernisme_display
            and any(i == x for x in va.players[p].modernisme)]
    out += [f"{names[i]} off the display" for i in gone]
    for k, (lb, la) in enumerate(zip(vb.public_services_left, va.public_services_left)):
        if lb is not None and la is not None and la < lb:
            out.append(f"a {public_service_name(t['ps_names'][k])} tile ({la} left)")
    return out


def ends_game(before: Any, after: Any) -> bool:
    return after.view().end_triggered and not before.view().end_triggered


def plan_effect(state: Any, actions: list[int], player: int | None = None) -> PlanEffect:
    """What applying `actions` (legal in turn, from `state`) does for `player` (default: the player to move)."""
    p = state.current_player() if player is None else player
    after = state.clone()
    for a in actions:
        after.apply(a)
    t = state.game_data.edition.t
    vb, va = state.view(), after.view()
    sb, sa = state.score_breakdown()[p], after.score_breakdown()[p]
    by_source = {source_words(s): sa[s] - sb[s] for s in SOURCES if sa[s] != sb[s]}
    vp = after.scores()[p] - state.scores()[p]
    others = {q: after.scores()[q] - state.scores()[q] for q in range(state.num_players)
              if q != p and after.scores()[q] != state.scores()[q]}
    up, down = _sets_up(state, after, p, t)
    return PlanEffect(player=p, vp=vp, vp_by_source=by_source,
                      gains=_resources(vb.players[p], va.players[p]) + _pieces(vb, va, p, t),
                      sets_up=up, lowers=down, takes=_takes(vb, va, p, t), others_vp=others,
                      ends_game=ends_game(state, after))


def reason_line(e: PlanEffect) -> str:
    """The effect in one line: 'now +7 VP (streets +4, buildings +3); +2 Coins, a Street on V(2,0); sets up ...;
    takes ...'."""
    parts = []
    if e.vp or e.vp_by_source:
        head = f"now {e.vp:+d} VP"
        if len(e.vp_by_source) > 1 or e.vp == 0:
            head += " (" + ", ".join(f"{k} {v:+d}" for k, v in e.vp_by_source.items()) + ")"
        else:
            head += f" ({next(iter(e.vp_by_source))})"
        parts.append(head)
    elif not e.gains:
        parts.append("no VP now")
    if e.gains:
        parts.append(", ".join(e.gains))
    if e.sets_up:
        parts.append("sets up " + ", ".join(e.sets_up))
    if e.lowers:
        parts.append("lowers " + ", ".join(e.lowers))
    if e.takes:
        parts.append("takes " + ", ".join(e.takes))
    if e.others_vp:
        parts.append("the others score " + ", ".join(f"P{q} {v:+d} VP" for q, v in sorted(e.others_vp.items())))
    if e.ends_game:
        parts.append("ends the game after this round")
    return "; ".join(parts)
