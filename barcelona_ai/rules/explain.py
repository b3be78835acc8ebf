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

from ..core import CONSTANTS as C
from ..core import SOURCES, register_text_services
from .tables import CONDITIONS, space_name
from .notation import kind_of
from .words import CLASS_WORDS, amount, condition_name, grant_words, public_service_name, source_words, tile_names

__all__ = ["PlanEffect", "plan_effect", "reason_line", "ends_game", "why_illegal", "preview"]

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


# ---------------------------------------------------------------------------------------------------------------
# why a move cannot be played, and what a move will do

def _placement_problem(state: Any, a: int, p: int, t: dict) -> str | None:
    c, top = (a - C["A_PLACE"]) // 3, (a - C["A_PLACE"]) % 3
    v = state.view(viewpoint=p)
    where = f"crossing ({c % 5},{c // 5})"
    if v.crossings[c]:
        return f"{where} already holds citizens"
    cost = t["cross_cost"][c]
    coins = v.players[p].coins
    if cost > coins:
        return f"{where} costs {amount(cost, 'Coin', 'Coins')}; P{p} has {coins}"
    hand = v.players[p].hand
    if hand is not None and hand[top] == 0:
        return f"P{p} holds no {CLASS_WORDS[top]} citizen to put on top"
    return None


def _take_problem(state: Any, a: int, p: int, t: dict) -> str | None:
    tile, k = (a - C["A_MOD_TAKE"]) // 5, (a - C["A_MOD_TAKE"]) % 5
    v = state.view(viewpoint=p)
    names = tile_names(t)
    if tile >= len(names):
        return None
    if tile not in v.modernisme_display:
        return f"{names[tile]} is not on the Modernisme display"
    pl = v.players[p]
    if pl.modernisme[k] is not None:
        return f"project {k + 1} already holds a tile"
    cost = t["mod_take"][k]
    if cost > pl.cloth:
        return f"project {k + 1} costs {amount(cost, 'Cloth', 'Cloths')}; P{p} has {pl.cloth}"
    return None


def _service_problem(state: Any, a: int, p: int, t: dict) -> str | None:
    k = a - C["A_PS"]
    if k >= len(t["ps_names"]):
        return None
    v = state.view(viewpoint=p)
    name = public_service_name(t["ps_names"][k])
    left = v.public_services_left[k]
    if left is None:
        return f"{name} is not in play"
    if k in v.players[p].public_services:
        return f"P{p} has built {name} already"
    if left == 0:
        return f"no {name} tile is left"
    per_stack = t["ps_tiles_2p"] if v.num_players == 2 else 3
    cost = t["ps_cost"][per_stack - left]
    if cost > v.players[p].coins:
        return f"{name} costs {amount(cost, 'Coin', 'Coins')} now; P{p} has {v.players[p].coins}"
    return None


def _intersection_problem(state: Any, a: int, p: int, t: dict) -> str | None:
    c = a - C["A_INTERSECTION"]
    v = state.view(viewpoint=p)
    if v.intersections[c] is not None:
        return f"crossing ({c % 5},{c // 5}) has an Intersection already"
    pl = v.players[p]
    if pl.intersections < len(t["inter_cost"]):
        cost = t["inter_cost"][pl.intersections] + t["cross_cost"][c]
        if cost > pl.coins:
            return f"that Intersection costs {amount(cost, 'Coin', 'Coins')}; P{p} has {pl.coins}"
    return None


_PROBLEMS = {"A_PLACE": _placement_problem, "A_MOD_TAKE": _take_problem, "A_PS": _service_problem,
             "A_INTERSECTION": _intersection_problem}


def why_illegal(state: Any, action: int) -> str:
    """Why `action` cannot be played in `state`, in the rules' words: 'crossing (2,2) costs 1 Coin; P1 has 0',
    or what the player to move does now instead."""
    from .render import decision_words
    if state.is_terminal():
        return "the game is over"
    if not 0 <= action < C["NUM_ACTIONS"]:
        return "it is no move of the game"
    kind = kind_of(action)
    if state.is_chance_node():
        return f"a chance outcome is next: {decision_words(state)}"
    if kind in ("A_DRAW", "A_REVEAL"):
        return f"that is a chance outcome, and P{state.current_player()} decides now: {decision_words(state)}"
    p = state.current_player()
    kinds = {kind_of(a) for a in state.legal_actions()}
    if kind not in kinds:
        return f"P{p} must {decision_words(state)}"
    check = _PROBLEMS.get(kind)
    problem = check(state, action, p, state.game_data.edition.t) if check else None
    v = state.view()
    if problem is None and v.phase == C["PH_ACTIONS"] and v.top_frame is None and _action_kind(action):
        c = v.place_crossing
        offered = _next_choices(state) or "no action"
        problem = f"crossing ({c % 5},{c // 5}) gives {offered.replace('the actions: ', '')} (or end actions)"
    n = len(state.legal_actions())
    return problem or f"it is not one of the {n} possible moves now ({decision_words(state)})"


def preview(state: Any, action: int) -> str:
    """What a legal `action` will do, before it is chosen: its effect now (plan_effect), what its player decides
    next when that is theirs (the actions a crossing gives, a granted action), and whether it ends the game."""
    p = state.current_player()
    after = state.clone()
    after.apply(action)
    text = plan_effect(state, [action], p).line
    if not after.is_terminal() and after.current_player() == p:
        nxt = _next_choices(after)
        if nxt:
            text += f"; then {nxt}"
    return text


def _next_choices(state: Any) -> str:
    """What the player to move may do next, when it is a choice of actions (after a placement) or a grant."""
    from .render import decision_words
    v = state.view()
    if v.phase == C["PH_ACTIONS"] and v.top_frame is None:
        offered = sorted({_ACTION_WORDS[k] for a in state.legal_actions() if (k := _action_kind(a)) in _ACTION_WORDS})
        return "the actions: " + ", ".join(offered) if offered else ""
    if v.top_frame is not None:
        return decision_words(state)
    return ""


def _action_kind(a: int) -> str:
    if C["A_GAIN_COINS"] <= a <= C["A_CERDA"]:
        return ("GAIN_2_COINS", "GAIN_CLOTH_3VP", "CERDA_PLUS_2")[a - C["A_GAIN_COINS"]]
    return {"A_COBBLE": "PLACE_COBBLESTONE", "A_STREET": "BUILD_STREETS", "A_INTERSECTION": "BUILD_INTERSECTION",
            "A_MOD_IMPROVE": "IMPROVE_MODERNISME", "A_MOD_TAKE": "TAKE_MODERNISME", "A_PS": "BUILD_PUBLIC_SERVICE",
            "A_TRAM": "MOVE_TRAM"}.get(kind_of(a), "")


_ACTION_WORDS = {k: grant_words(k) for k in ("GAIN_2_COINS", "GAIN_CLOTH_3VP", "CERDA_PLUS_2", "PLACE_COBBLESTONE",
                                             "BUILD_STREETS", "BUILD_INTERSECTION", "IMPROVE_MODERNISME",
                                             "TAKE_MODERNISME", "BUILD_PUBLIC_SERVICE", "MOVE_TRAM")}

register_text_services(why_illegal=why_illegal)
