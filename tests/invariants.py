"""The tests' independent reference of the rules' invariants: components conserved, nothing negative or over
capacity, what may be pending in each phase of a turn.

The engine runs one checker, the core's (core.pyx ``state_problem``: the memory-safety guard, then
``state_invariant_problem``); this module is the same checks written again in Python, to check the C one against.

``check_raw(raw, edition)`` returns the problems of a raw state dict (the StateC fields, core.pxd), every one of
them (empty when the state is consistent): the components, and what may be pending in each phase of a turn
(``_turn_problems``).

``check_invariants(state)`` checks a State without leaving the core: the core's memory-safety guard (every value
C uses as an index in range) and then the C twin of ``check_raw`` (core.pyx ``state_problem`` and
``state_invariant_problem``, in Python ``State._invariant_problem()``: the same checks in the same order, the
first problem in the same words). The random walks of the tests call it after every action, the long one in C
(``State._walk_with_invariants``).

tests/test_raw_path.py checks that the C twin agrees with it on random,
mutated and deliberately broken states; a check added here belongs there too.
"""
from __future__ import annotations

from barcelona_ai.rules.tables import NUM_MODERNISME, NUM_SAGRADA, NUM_SIDEWALK, Edition


def _bits(x: int) -> int:
    return bin(x).count("1")


def check_raw(raw: dict, ed: Edition) -> list[str]:
    """Problems of a raw state dict (see core.pxd for the fields) under edition `ed`.

    The readable reference of the C checker (core.pyx ``state_invariant_problem``): the component checks below
    run in the same order as there, so that the first problem and its words agree (tests/test_apply_undo.py)."""
    t = ed.t
    out: list[str] = []
    n = raw["num_players"]
    if not 2 <= n <= 4:
        return [f"num_players {n} is not 2..4"]
    pls = raw["pl"][:n]
    out += _citizen_problems(raw, t, pls)
    for i, p in enumerate(pls):
        out += _player_supply_problems(raw, t, i, p)
        out += _player_pieces_problems(raw, t, i, p)
        out += _player_project_problems(t, i, p)
    trams = [p["tram"] for p in pls if p["tram"] >= 0]
    if len(trams) != len(set(trams)):
        out.append("two Trams on one street space")
    out += _building_problems(raw, t)
    out += _sidewalk_problems(raw, t, pls)
    out += _modernisme_problems(raw, t, pls)
    out += _sagrada_problems(raw, pls)
    out += _public_service_problems(raw, t, pls, n)
    out += _cerda_problems(raw, t)
    if not 0 <= raw["nframes"] <= 24:
        out.append("frame stack out of range")
    if not 0 <= raw["cur"] < n:
        out.append("the seat to move does not exist")
        return out
    out += _turn_problems(raw, t, pls)
    return out


def _citizen_problems(raw: dict, t: dict, pls: list) -> list[str]:
    """72 citizens, per class: bag + hands + crossings + tracks + beside the tracks (R5, R12, R105)."""
    out: list[str] = []
    for k in range(3):
        on_cross = sum((lo == k) + (hi == k) for lo, hi in zip(raw["cross_lo"], raw["cross_hi"]))
        total = raw["bag"][k] + sum(p["hand"][k] for p in pls) + on_cross + _bits(raw["track"][k]) \
            + raw["track_off"][k]
        if total != t["citizens"][k]:
            out.append(f"class {k}: {total} citizens accounted for, the game has {t['citizens'][k]}")
        if raw["bag"][k] < 0:
            out.append(f"bag[{k}] is negative")
        if raw["track"][k] >> t["track_len"][k]:
            out.append(f"track {k} has bits beyond its {t['track_len'][k]} spaces")
    for c in range(25):
        if raw["cross_hi"][c] >= 0 and raw["cross_lo"][c] < 0:
            out.append(f"crossing {c} has a top citizen but no bottom one")
    return out


def _player_supply_problems(raw: dict, t: dict, i: int, p: dict) -> list[str]:
    """Player i's hand, counters, Warehouse and score."""
    out: list[str] = []
    if min(p["hand"]) < 0 or sum(p["hand"]) > 2:
        out.append(f"player {i} hand {p['hand']} is not 0..2 citizens")
    for f in ("coins", "cloth", "cobbles", "inters", "narrow", "wide", "passengers", "markers", "cerda",
              "sagrada", "turns"):
        if p[f] < 0:
            out.append(f"player {i} {f} is negative")
    cap = t["wh_free"] + p["cobbles"]
    if p["coins"] + p["cloth"] > cap and raw["discard_player"] != i:
        out.append(f"player {i} holds {p['coins'] + p['cloth']} tokens in a Warehouse of {cap}")
    limits = (("cobbles", 6), ("inters", 5), ("narrow", t["narrow_total"]), ("wide", t["wide_total"]),
              ("passengers", 5), ("markers", 8), ("cerda", len(t["cerda_mult"]) - 1),
              ("sagrada", t["sag_spaces"] - 1))
    for f, hi in limits:
        if p[f] > hi:
            out.append(f"player {i} {f} {p[f]} is over {hi}")
    if p["score"] < 0 or min(p["vp_src"]) < 0:                    # an int16 source that wrapped (R7)
        out.append(f"player {i} has negative VP {p['vp_src']}")
    if p["score"] != sum(p["vp_src"]):
        out.append(f"player {i} score {p['score']} != sum of sources {sum(p['vp_src'])}")
    return out


def _player_pieces_problems(raw: dict, t: dict, i: int, p: dict) -> list[str]:
    """Player i's pieces on the board match the player board."""
    out: list[str] = []
    if sum(o == i for o in raw["cross_int"]) != p["inters"]:
        out.append(f"player {i}: Intersections on the board != {p['inters']} built")
    own = [s for s in range(44) if raw["street_owner"][s] == i]
    if sum(1 for s in own if t["space_wide"][s]) != p["wide"] or \
            sum(1 for s in own if not t["space_wide"][s]) != p["narrow"]:
        out.append(f"player {i}: street tiles on the board != narrow {p['narrow']} / wide {p['wide']}")
    if sum(o == i for o in raw["passenger"]) != p["passengers"]:
        out.append(f"player {i}: Passengers on the board != {p['passengers']}")
    marks = sum(1 for bs in range(20) for k in range(raw["bld_n"][bs]) if raw["bld_mark"][bs * 3 + k] == i)
    if marks != p["markers"]:
        out.append(f"player {i}: {marks} markers on buildings != {p['markers']} placed")
    return out


def _player_project_problems(t: dict, i: int, p: dict) -> list[str]:
    """Player i's Modernisme markers and Sagrada slots."""
    out: list[str] = []
    if any(u not in (0, 1) for u in p["mod_up"]):
        out.append(f"player {i}: Modernisme markers must be 0 or 1")
    for slot, tile in enumerate(p["sag_tile"]):
        if tile >= 0 and p["sagrada"] <= t["sag_slot_after"][slot]:
            out.append(f"player {i}: Sagrada slot {slot} filled before it was passed")
    return out


def _building_problems(raw: dict, t: dict) -> list[str]:
    """Buildings: tiles used, levels, marker stacks."""
    out: list[str] = []
    for bs in range(20):
        lvl, nm = raw["bld_level"][bs], raw["bld_n"][bs]
        if t["bs_corner"][bs] and lvl not in (0, 4) or not t["bs_corner"][bs] and lvl not in (0, 1, 2, 3):
            out.append(f"building space {bs} has level {lvl}")
        if not 0 <= nm <= (1 if t["bs_corner"][bs] else lvl):         # one marker per level (R102)
            out.append(f"building space {bs} has {nm} markers at level {lvl}")
    built_corner = sum(1 for bs in range(20) if raw["bld_level"][bs] == 4)
    if t["bld_count"][0] - raw["bld_stack"][0] != built_corner:
        out.append("Corner tiles used != Corner buildings on the board")
    for ty in range(1, 4):
        top = sum(1 for bs in range(20) if raw["bld_level"][bs] == ty)
        used = t["bld_count"][ty] - raw["bld_stack"][ty]
        if not top <= used or raw["bld_stack"][ty] < 0:
            out.append(f"Level-{ty} tiles: {used} used but {top} on top of buildings")
    return out


def _sidewalk_problems(raw: dict, t: dict, pls: list) -> list[str]:
    """Sidewalk (R46)."""
    out: list[str] = []
    placed = _bits(raw["sidewalk"] & ~t["side_pre"])
    if raw["sidewalk"] & t["side_pre"] != t["side_pre"] or placed != sum(p["cobbles"] for p in pls) \
            or raw["sidewalk"] >> NUM_SIDEWALK:
        out.append("Sidewalk cobblestones != cobblestones taken out of the Warehouses")
    return out


def _modernisme_problems(raw: dict, t: dict, pls: list) -> list[str]:
    """Modernisme tiles: each in exactly one place (R15, R16, R73)."""
    out: list[str] = []
    places = [raw["mod_stack"], raw["mod_display"], raw["mod_discard"]]
    boards = 0
    for p in pls:
        for tile in p["mod_tile"]:
            if tile >= 0:
                if boards >> tile & 1:
                    out.append(f"Modernisme tile {tile} on two project spaces")
                boards |= 1 << tile
    places.append(boards)
    removed = sum(1 << m for m in range(NUM_MODERNISME) if t["mod_cond"][m] in raw["cerda_tile"])
    places.append(removed)
    seen = 0
    for x in places:
        if seen & x:
            out.append("a Modernisme tile is in two places")
        seen |= x
    if seen != (1 << NUM_MODERNISME) - 1:
        out.append("a Modernisme tile is missing")
    if _bits(raw["mod_display"]) > t["display_size"]:
        out.append("the Modernisme display holds too many tiles")
    # R73, R111: "If at any point the Modernisme tiles stack would become empty, reshuffle the discarded tiles
    # to create a new stack": discards never wait beside an empty stack (both empty is A32).
    if raw["mod_stack"] == 0 and raw["mod_discard"]:
        out.append("the Modernisme stack is empty but discarded tiles were not reshuffled into it (R73)")
    return out


def _sagrada_problems(raw: dict, pls: list) -> list[str]:
    """Sagrada tiles (R20, R119)."""
    out: list[str] = []
    taken = 0
    for p in pls:
        for tile in p["sag_tile"]:
            if tile >= 0:
                taken |= 1 << tile
    if taken & raw["sag_offer"] or (taken | raw["sag_offer"]) != (1 << NUM_SAGRADA) - 1:
        out.append("Sagrada tiles are not each in exactly one place")
    return out


def _public_service_problems(raw: dict, t: dict, pls: list, n: int) -> list[str]:
    """Public Services (R17, R18, R76)."""
    out: list[str] = []
    per = t["ps_tiles_2p"] if n == 2 else 3
    in_play = 0
    for ty in range(7):
        builders = sum(1 for p in pls if p["ps_built"] >> ty & 1)
        if raw["ps_left"][ty] < 0:
            if builders:
                out.append(f"Public Service {ty} is not in play but was built")
        else:
            in_play += 1
            if raw["ps_left"][ty] + builders != per:
                out.append(f"Public Service {ty}: {raw['ps_left'][ty]} left + {builders} built != {per}")
    if in_play != t["ps_in_play"]:
        out.append(f"{in_play} Public Service types in play, the edition says {t['ps_in_play']}")
    return out


def _cerda_problems(raw: dict, t: dict) -> list[str]:
    """Cerdà tiles and scorings (R14, R109)."""
    out: list[str] = []
    if len(set(raw["cerda_tile"])) != 3 or any(c not in t["cerda_cond"] for c in raw["cerda_tile"]):
        out.append("the three Cerdà tiles must be distinct Cerdà tiles of the edition")
    if _bits(raw["scored"]) != raw["scorings"]:
        out.append("scored sections != scorings done")
    return out



def _turn_problems(raw: dict, t: dict, pls: list) -> list[str]:
    """What may be pending in which phase (R34's four steps; core.pyx settle): true of every settled state."""
    out: list[str] = []
    ph, cur = raw["phase"], raw["cur"]
    PLACE, ACTIONS, END, REFRESH, DRAW, OVER = 0, 1, 3, 4, 5, 6
    held = sum(pls[cur]["hand"])
    if raw["nframes"] and ph not in (ACTIONS, END):
        out.append(f"frames pending in phase {ph}")
    for f in raw["frames"][:raw["nframes"]]:
        if not 1 <= f["kind"] <= 8 or not 0 <= f["player"] < raw["num_players"]:
            out.append(f"frame {f} out of range")
    d = raw["discard_player"]
    if d >= 0:
        pl = pls[d]
        if ph not in (ACTIONS, END) or pl["coins"] <= 0 or pl["cloth"] <= 0 \
                or pl["coins"] + pl["cloth"] <= t["wh_free"] + pl["cobbles"]:
            out.append(f"player {d} discards (A39) in phase {ph} with {pl['coins']} coins, {pl['cloth']} cloth")
    free = t["display_size"] - _bits(raw["mod_display"])
    if not 0 <= raw["reveal_pending"] <= free or raw["reveal_pending"] and (d >= 0 or ph not in (ACTIONS, END,
                                                                                                  REFRESH)):
        out.append(f"{raw['reveal_pending']} reveals pending, {free} empty display places, phase {ph} (R73)")
    if raw["refresh_pending"] and (ph != REFRESH or raw["refresh_pending"] > raw["scorings"]):
        out.append(f"{raw['refresh_pending']} refreshes pending in phase {ph} (R111)")
    if ph == DRAW and not 1 <= raw["draws_left"] <= 2 - held or ph != DRAW and raw["draws_left"]:
        out.append(f"{raw['draws_left']} draws left for a hand of {held} in phase {ph} (R34 step 4)")
    if ph == ACTIONS and held:
        out.append(f"player {cur} still holds {held} citizens in the ACTIONS phase")
    if ph in (PLACE, OVER) and (raw["nframes"] or d >= 0 or raw["reveal_pending"] or raw["refresh_pending"]):
        out.append(f"something is pending in phase {ph}")
    return out


def check_invariants(state) -> list[str]:
    """The first problem of `state`, as a list (empty when it is consistent): the core's memory-safety guard
    (core.pyx raw_bounds_problem, "core bounds: ..."), then check_raw's checks in C, in check_raw's words."""
    problem = state._invariant_problem()
    return [] if problem is None else [problem]
