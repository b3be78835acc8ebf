"""Position documents: a documented, human-writable JSON form of a game state (docs/positions.md).

``state_to_json(state)`` writes every field of the state with names instead of raw integers; ``state_from_json``
reads such a document back, checks every count against the edition (citizens, tiles, markers, tokens ...) and
builds the state. Writing and reading are exact: ``State.from_json(s.to_json()).hash() == s.hash()`` for every
reachable state, mid-turn and terminal ones included (the turn machinery travels in ``"turn_state"``).

``state_to_json(state, viewpoint=p)`` writes only what seat p may know (A6): the other players' hands become
``{"hidden": n}`` and the bag becomes the unseen pool (bag + hidden hands). Reading such a document samples the
hidden hands from the pool with ``seed``; the result has the same ``observation_hash(p)`` as the original.

Every problem in a document raises :class:`InvalidPositionError` naming the first wrong field by its JSON path
(``players[1].coins: -1 is negative``); a failed load never returns a state. A wrong player count raises
:class:`PlayerCountError`, an unknown edition :class:`DataFileError` (from ``tables.load_edition``).

This reader is the one validation boundary of the rules core: every value that reaches the C state
from a document is checked here, in full and against the rest of the position (the turn's frame stack against
the phase, the board and the players: ``_Reader._turn_checks``), before ``State._from_raw`` builds it; the core
then refuses any value it would use out of bounds (``raw_bounds_problem``) as a second guard. What loads is a
position the rules can reach, or one of the documented superset (docs/positions.md) from which every game keeps
the invariants; tests/test_fuzz_positions.py checks that on mutated documents.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core import SOURCES, State, register_text_services
from ..errors import BarcelonaError, InvalidPositionError, PlayerCountError
from .jsonio import parse_json, read_bytes, show_path
from .tables import (ACTION_KINDS, BUILDING_TYPES, CLASSES, GRANT_KINDS, NUM_BUILDING_SPACES,
                     NUM_CROSSINGS, NUM_SIDEWALK, NUM_SPACES, space_name)
from .view import FrameView, PlayerView

from .position_fields import (BUILD_TYPE_OF_LEVEL, FORMAT, FRAME_KINDS, LEVEL_IDS, LEVEL_NAMES, MAX_VP_SOURCE, PHASES,
                              PH_OVER, PH_PLACE, STREET_DIRS, VERSION, _Names, _PLAYER_KEYS, _TOP_KEYS, _bits, _bool,
                              _citizens, _citizens_doc, _class_counts, _cross_name, _crossing, _edition, _fail, _int,
                              _join, _list, _name, _names, _obj, _parse_json, _seat, _show, _side, _side_name, _space)
from .position_turn import _TurnReader

__all__ = ["FORMAT", "VERSION", "PHASES", "FRAME_KINDS", "state_to_json", "state_from_json", "load_position",
           "dump_position"]


# ---------------------------------------------------------------------------------------------------------------
# writing

def _frame_to_json(f: FrameView, nm: _Names) -> dict:
    kind = FRAME_KINDS[f.kind]
    out: dict[str, Any] = {"kind": kind, "player": f.player}
    if kind == "EFFECTS":                 # the core leaves the fields a kind does not use at 0 (push_frame)
        out["effects"] = nm.eff[f.effect_list]
        out["next"] = f.a
        if any(code == nm.marker_code for code, _ in nm.ed.effect_lists[f.effect_list]):
            out["building"] = nm.bs[f.b]
    elif kind == "GRANT":
        out["action"] = GRANT_KINDS[f.a]
    elif kind == "PASSENGER":
        out["space"] = space_name(f.a)
        out["coin_free"] = bool(f.b)
    elif kind == "SAGRADA":
        out["steps_left"] = f.a
    elif kind == "SAG_TILE":
        out["level"] = f.a
        out["slot"] = f.b
    elif kind == "RES":
        out["resources"] = f.a
    elif kind == "INT_PICK":
        out["picks_left"] = f.a
        out["slots_taken"] = _bits(f.b & 0xFF, 8)
    out["source"] = SOURCES[f.source]
    return out


def _ids_below(ids: tuple[int, ...], n: int) -> list[int]:
    """The ids of a view's id tuple that name one of `n` pieces (the ones a mask may hold beyond are none)."""
    return [i for i in ids if i < n]


def _player_to_json(pl: PlayerView, nm: _Names) -> dict:
    if pl.hand is None:                   # hidden from the viewpoint (or in a state built from an observation)
        hand: dict[str, int] = {"hidden": pl.hand_size}
    else:
        hand = {CLASSES[k]: pl.hand[k] for k in range(3)}
    return {
        "seat": pl.seat, "score": pl.score,
        "vp_by_source": {SOURCES[i]: v for i, v in enumerate(pl.vp_sources) if v},
        "coins": pl.coins, "cloth": pl.cloth, "cobblestones": pl.cobblestones, "intersections": pl.intersections,
        "narrow_laid": pl.narrow_laid, "wide_laid": pl.wide_laid, "passengers": pl.passengers,
        "tram": space_name(pl.tram) if pl.tram is not None else None, "markers_placed": pl.markers_placed,
        "cerda": pl.cerda, "sagrada": pl.sagrada,
        "modernisme": [{"tile": nm.mod[tile] if tile is not None else None, "marker_up": up}
                       for tile, up in zip(pl.modernisme, pl.modernisme_up)],
        "sagrada_tiles": [nm.sag[x] if x is not None else None for x in pl.sagrada_tiles],
        "public_services": [nm.ps[i] for i in _ids_below(pl.public_services, len(nm.ps))],
        "hand": hand, "turns": pl.turns}


def state_to_json(state: State, viewpoint: int | None = None) -> dict:
    """The position document of `state` (docs/positions.md); with `viewpoint`, only what that seat may know.

    It reads the state's view (``state.view(viewpoint)``, view.StateView): for a viewpoint that view already
    holds only what the seat may know (the other hands as sizes, the unseen pool instead of the bag)."""
    n = state.num_players
    if viewpoint is not None:
        if isinstance(viewpoint, bool) or not isinstance(viewpoint, int) or not 0 <= viewpoint < n:
            raise PlayerCountError(f"no seat {viewpoint!r} in a {n}-player game")
    v = state.view(viewpoint)
    ed = state.game_data.edition
    nm = _names(ed)
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "edition": ed.name, "edition_sha256": ed.sha256}
    if viewpoint is not None:
        doc["viewpoint"] = viewpoint
    doc["to_move"] = v.turn_player
    doc["phase"] = PHASES[v.phase]
    sa = v.action_tiles
    doc["action_tiles"] = {"vertical": [ACTION_KINDS[x] for x in sa[0:5]],
                           "horizontal": [ACTION_KINDS[x] for x in sa[5:10]], "diagonal": ACTION_KINDS[sa[10]]}
    crossings = {}
    for c, (cits, it) in enumerate(zip(v.crossings, v.intersections)):
        if cits or it is not None:
            crossings[_cross_name(c)] = {"citizens": _citizens_doc(cits), "intersection": it}
    doc["crossings"] = crossings
    doc["streets"] = {space_name(sp): {"owner": o, "passenger": pa}
                      for sp, (o, pa) in enumerate(zip(v.streets, v.passengers)) if o is not None or pa is not None}
    doc["buildings"] = {nm.bs[bs]: {"level": LEVEL_NAMES.get(lvl, lvl), "markers": list(marks)}
                        for bs, (lvl, marks) in enumerate(zip(v.building_levels, v.building_markers))
                        if lvl != 0 or marks}
    doc["building_tiles_left"] = {BUILDING_TYPES[i]: v.building_tiles_left[i] for i in range(4)}
    doc["bonus_rows_taken"] = list(v.bonus_rows_taken)
    doc["citizen_tracks"] = {CLASSES[k]: {"occupied": list(v.tracks[k]), "off_board": v.tracks_off_board[k]}
                             for k in range(3)}
    doc["cerda_tiles"] = [{"tile": nm.cond_ids[tile], "scored": scored}
                          for tile, scored in zip(v.cerda_tiles, v.cerda_scored)]
    doc["cerda_scorings_done"] = v.cerda_scorings_done
    doc["modernisme"] = {key: [nm.mod[i] for i in _ids_below(ids, len(nm.mod))]
                         for key, ids in (("stack", v.modernisme_stack), ("display", v.modernisme_display),
                                          ("discard", v.modernisme_discard))}
    doc["public_services"] = {nm.ps[i]: left for i, left in enumerate(v.public_services_left[:len(nm.ps)])
                              if left is not None}
    doc["sagrada_offer"] = [nm.sag[i] for i in _ids_below(v.sagrada_offer, len(nm.sag))]
    doc["sidewalk"] = [_side_name(i) for i in _ids_below(v.sidewalk, NUM_SIDEWALK)]
    pool = v.bag if viewpoint is None else v.unseen_pool       # a viewpoint's view holds the pool, not the bag
    doc["unseen_pool" if viewpoint is not None else "bag"] = {CLASSES[k]: pool[k] for k in range(3)}
    doc["players"] = [_player_to_json(pl, nm) for pl in v.players]
    doc["turn_state"] = {
        "place_crossing": _cross_name(v.place_crossing) if v.place_crossing is not None else None,
        "streets_used": [STREET_DIRS[i] for i in v.streets_used if i < len(STREET_DIRS)],
        "frames": [_frame_to_json(f, nm) for f in v.frames],
        "discard_player": v.discard_player,
        "reveal_pending": v.reveal_pending, "refresh_pending": v.refresh_pending,
        "draws_left": v.draws_left, "activity": v.activity, "end_triggered": v.end_triggered,
    }
    return doc


def _pretty(obj: Any, indent: int = 0, width: int = 110) -> str:
    """Indented JSON that keeps short lists and objects on one line (easier to read and to edit by hand)."""
    flat = json.dumps(obj, ensure_ascii=False)
    if indent > 0 and len(flat) + indent <= width or not isinstance(obj, (dict, list)) or not obj:
        return flat
    pad = " " * (indent + 2)
    if isinstance(obj, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, indent + 2, width)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if all(not isinstance(v, (dict, list)) for v in obj):      # a long list of names: several per line
        lines, cur = [], ""
        for v in obj:
            item = json.dumps(v, ensure_ascii=False)
            if cur and len(pad) + len(cur) + len(item) + 2 > width:
                lines.append(cur + ",")
                cur = ""
            cur = f"{cur}, {item}" if cur else item
        lines.append(cur)
        return "[\n" + "\n".join(pad + x for x in lines) + "\n" + " " * indent + "]"
    items = [pad + _pretty(v, indent + 2, width) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def dump_position(state: State, viewpoint: int | None = None) -> str:
    """The position document of `state` as indented JSON text (short lists and objects kept on one line)."""
    return _pretty(state_to_json(state, viewpoint)) + "\n"


class _Reader(_TurnReader):
    """Reads and checks one document into a raw state dict (StateC field names)."""

    def __init__(self, doc: Any, edition: Any = None):
        self.chosen_edition = edition
        if isinstance(doc, (str, bytes, bytearray)):
            doc = _parse_json(doc)
        self.doc = _obj(doc, "", _TOP_KEYS, ("format", "version", "players", "to_move", "action_tiles",
                                             "citizen_tracks", "cerda_tiles", "public_services"))
        self.hidden: dict[int, int] = {}                    # seat -> size of a hidden hand (viewpoint form)
        self.sag_where: dict[int, str] = {}                 # Sagrada tile -> JSON path where it was found
        self.mod_where: dict[int, str] = {}                 # Modernisme tile -> JSON path where it was found

    # -- the whole document -----------------------------------------------------------------------------
    def read(self) -> tuple[dict, str, int | None, bool]:
        d = self.doc
        if d["format"] != FORMAT:
            _fail("format", f"{_show(d['format'])} is not {json.dumps(FORMAT)}")
        if isinstance(d["version"], bool) or d["version"] != VERSION:
            _fail("version", f"{_show(d['version'])} is not a supported version (this reader knows {VERSION})")
        edition = d.get("edition", "default")
        if not isinstance(edition, str):
            _fail("edition", f"expected an edition name, got {_show(edition)}")
        self.ed = _edition(edition, d.get("edition_sha256"), self.chosen_edition)
        self.nm = nm = _names(self.ed)
        self.t = nm.t
        players = _list(d["players"], "players")
        if not 2 <= len(players) <= 4:
            raise PlayerCountError(f"players: Barcelona is played by 2 to 4 players, not {len(players)}")
        self.n = n = len(players)
        self.viewpoint = vp = _seat(d["viewpoint"], "viewpoint", n) if "viewpoint" in d else None
        r: dict[str, Any] = {}
        self.r = r
        r["num_players"] = n
        r["cur"] = _seat(d["to_move"], "to_move", n)
        phase = _name(d.get("phase", "PLACE"), "phase", PHASES, "phase")
        self.has_turn_state = "turn_state" in d
        if not self.has_turn_state and phase not in (PH_PLACE, PH_OVER):
            _fail("phase", f"{PHASES[phase]} needs a 'turn_state' object; without one a position is at the start "
                           "of to_move's turn (PLACE) or over (OVER)")
        r["phase"] = phase
        self._action_tiles()
        self._crossings()
        self._streets()
        self._buildings()
        self._tracks()
        self._cerda()
        self._modernisme_offer()
        self._public_services()
        self._sidewalk()
        self._players()
        self._modernisme_all()
        self._sagrada()
        self._citizens()
        self._turn_state()
        self._cross_checks()
        self._turn_checks()
        self._fill_absent_seats()
        r["spare"] = 0
        return r, self.ed, vp, not self.has_turn_state

    # -- board --------------------------------------------------------------------------------------------
    def _action_tiles(self):
        a = _obj(self.doc["action_tiles"], "action_tiles", ("vertical", "horizontal", "diagonal"),
                 ("vertical", "horizontal", "diagonal"))
        ids = []
        for key in ("vertical", "horizontal"):
            lst = _list(a[key], f"action_tiles.{key}", 5)
            ids += [_name(x, f"action_tiles.{key}[{i}]", ACTION_KINDS, "action tile") for i, x in enumerate(lst)]
        ids.append(_name(a["diagonal"], "action_tiles.diagonal", ACTION_KINDS, "action tile"))
        seen: dict[int, str] = {}
        paths = [f"action_tiles.vertical[{i}]" for i in range(5)] + \
                [f"action_tiles.horizontal[{i}]" for i in range(5)] + ["action_tiles.diagonal"]
        for x, p in zip(ids, paths):
            if x in seen:
                _fail(p, f"{ACTION_KINDS[x]} is already at {seen[x]} (each action tile is used once, R11)")
            seen[x] = p
        self.r["street_action"] = ids

    def _crossings(self):
        r = self.r
        r["cross_lo"], r["cross_hi"], r["cross_int"] = [-1] * 25, [-1] * 25, [-1] * 25
        cr = self.doc.get("crossings", {})
        _obj(cr, "crossings", tuple(cr) if isinstance(cr, dict) else ())
        done: dict[int, str] = {}
        for key, val in cr.items():
            path = _join("crossings", key)
            c = _crossing(key, path)
            if c in done:
                _fail(path, f"the same crossing as {done[c]}")
            done[c] = key
            _obj(val, path, ("citizens", "intersection"))
            ks = _citizens(val.get("citizens", {}), _join(path, "citizens"))
            if ks:
                r["cross_lo"][c] = ks[0]
            if len(ks) > 1:
                r["cross_hi"][c] = ks[1]
            r["cross_int"][c] = _seat(val.get("intersection"), _join(path, "intersection"), self.n, True)

    def _streets(self):
        r = self.r
        r["street_owner"], r["passenger"] = [-1] * NUM_SPACES, [-1] * NUM_SPACES
        st = self.doc.get("streets", {})
        _obj(st, "streets", tuple(st) if isinstance(st, dict) else ())
        for key, val in st.items():
            path = _join("streets", key)
            sp = _space(key, path)
            _obj(val, path, ("owner", "passenger"))
            r["street_owner"][sp] = _seat(val.get("owner"), _join(path, "owner"), self.n, True)
            r["passenger"][sp] = _seat(val.get("passenger"), _join(path, "passenger"), self.n, True)

    def _buildings(self):
        r, nm, t = self.r, self.nm, self.t
        r["bld_level"], r["bld_n"], r["bld_mark"] = [0] * NUM_BUILDING_SPACES, [0] * NUM_BUILDING_SPACES, [-1] * 60
        b = self.doc.get("buildings", {})
        _obj(b, "buildings", tuple(b) if isinstance(b, dict) else ())
        built = [0, 0, 0, 0]
        for key, val in b.items():
            path = _join("buildings", key)
            bs = _name(key, path, nm.bs_index, "building space")
            _obj(val, path, ("level", "markers"), ("level",))
            lvl = _name(val["level"], _join(path, "level"), LEVEL_IDS, "building level")
            if (lvl == 4) != bool(t["bs_corner"][bs]):
                _fail(_join(path, "level"), f"{key} is a {'corner' if t['bs_corner'][bs] else 'normal'} space: "
                                            f"{'only CORNER' if t['bs_corner'][bs] else 'L1, L2 or L3, not CORNER'}"
                                            " (R90, R101)")
            most = 1 if lvl == 4 else lvl
            marks = _list(val.get("markers", []), _join(path, "markers"), max_len=most)
            r["bld_level"][bs] = lvl
            r["bld_n"][bs] = len(marks)
            for i, m in enumerate(marks):
                r["bld_mark"][bs * 3 + i] = _seat(m, f"{path}.markers[{i}]", self.n)
            built[BUILD_TYPE_OF_LEVEL[lvl]] += 1
        self.built_by_type = built
        nbuilt = sum(built)
        nmarks = sum(r["bld_n"])
        if "building_tiles_left" in self.doc:
            left = _obj(self.doc["building_tiles_left"], "building_tiles_left", BUILDING_TYPES, BUILDING_TYPES)
            stack = [_int(left[bt], f"building_tiles_left.{bt}", 0, t["bld_count"][i])
                     for i, bt in enumerate(BUILDING_TYPES)]
        else:               # a stack of m markers on a Level-L building stood on Levels L-1 ... (R101)
            need = list(built)
            for bs in range(NUM_BUILDING_SPACES):
                if r["bld_level"][bs] in (2, 3):
                    for j in range(1, r["bld_n"][bs]):
                        need[r["bld_level"][bs] - j] += 1
            stack = [t["bld_count"][i] - need[i] for i in range(4)]
            for i, bt in enumerate(BUILDING_TYPES):
                if stack[i] < 0:
                    _fail("buildings", f"{need[i]} {bt} tiles on the board, the game has {t['bld_count'][i]} (R3)")
        if stack[0] + built[0] != t["bld_count"][0]:        # Corners are never built over (R103)
            _fail("building_tiles_left.CORNER", f"{stack[0]} left but {built[0]} Corner buildings on the board: "
                                                f"the game has {t['bld_count'][0]} (R3)")
        for i, bt in enumerate(BUILDING_TYPES):
            if stack[i] + built[i] > t["bld_count"][i]:
                _fail(f"building_tiles_left.{bt}", f"{stack[i]} left but {built[i]} on the board: the game has "
                                                   f"{t['bld_count'][i]} (R3)")
        used = sum(t["bld_count"]) - sum(stack)
        if used < max(nbuilt, nmarks):
            _fail("building_tiles_left", f"{used} tiles used but {max(nbuilt, nmarks)} constructions on the "
                                         "board (one tile and at most one marker each, R93)")
        r["bld_stack"] = stack
        rows = sorted({t["bs_row"][bs] for bs in range(NUM_BUILDING_SPACES) if r["bld_level"][bs] > 0})
        if "bonus_rows_taken" in self.doc:
            lst = _list(self.doc["bonus_rows_taken"], "bonus_rows_taken", max_len=4)
            got = [_int(x, f"bonus_rows_taken[{i}]", 0, 3) for i, x in enumerate(lst)]
            if sorted(set(got)) != rows or len(set(got)) != len(got):
                _fail("bonus_rows_taken", f"{sorted(got)} but the block rows with a building are {rows} (the first "
                                          "building of a row takes its bonus, R93 step 2)")
        r["bonus_rows"] = sum(1 << x for x in rows)

    def _tracks(self):
        r, t = self.r, self.t
        tr = _obj(self.doc["citizen_tracks"], "citizen_tracks", CLASSES, CLASSES)
        r["track"], r["track_off"] = [0, 0, 0], [0, 0, 0]
        pre = t["prefill3"] if self.n == 3 else t["prefill2"] if self.n == 2 else [0, 0, 0]
        for k, cls in enumerate(CLASSES):
            path = f"citizen_tracks.{cls}"
            row = _obj(tr[cls], path, ("occupied", "off_board"), ("occupied",))
            n_sp = t["track_len"][k]
            occ = _list(row["occupied"], _join(path, "occupied"))
            mask = 0
            for i, x in enumerate(occ):
                x = _int(x, f"{path}.occupied[{i}]", 0, n_sp - 1)
                if (mask >> x) & 1:
                    _fail(f"{path}.occupied[{i}]", f"space {x} is listed twice")
                mask |= 1 << x
            for x in range(n_sp):
                if (pre[k] >> x) & 1 and not (mask >> x) & 1:
                    _fail(_join(path, "occupied"), f"space {x} is prefilled in a {self.n}-player game (R12) and "
                                                   "must be occupied")
            free_seen = None
            for x in range(n_sp):
                if (pre[k] >> x) & 1:
                    continue
                if not (mask >> x) & 1:
                    free_seen = x if free_seen is None else free_seen
                elif free_seen is not None:
                    _fail(_join(path, "occupied"), f"space {x} is occupied but space {free_seen} to its left is "
                                                   "empty (citizens fill the leftmost empty space, R104)")
            off = _int(row.get("off_board", 0), _join(path, "off_board"), 0, 99)
            if off and mask != (1 << n_sp) - 1:
                _fail(_join(path, "off_board"), f"{off} citizens beside the board but the track is not full (R105)")
            r["track"][k] = mask
            r["track_off"][k] = off

    def _cerda(self):
        r, nm, t = self.r, self.nm, self.t
        lst = _list(self.doc["cerda_tiles"], "cerda_tiles", 3)
        r["cerda_tile"], scored = [], 0
        cerda_ids = {nm.cond_ids[c]: c for c in nm.cerda_conds}
        for i, x in enumerate(lst):
            path = f"cerda_tiles[{i}]"
            _obj(x, path, ("tile", "scored"), ("tile",))
            c = _name(x["tile"], _join(path, "tile"), cerda_ids, "Cerdà tile")
            if c in r["cerda_tile"]:
                _fail(_join(path, "tile"), f"{x['tile']} is already section {r['cerda_tile'].index(c) + 1}'s tile")
            r["cerda_tile"].append(c)
            if _bool(x.get("scored", False), _join(path, "scored")):
                reached = any((r["track"][k] >> t["track_mark"][k][i]) & 1 for k in range(3))
                if not reached:
                    _fail(_join(path, "scored"), f"section {i + 1} is scored but no citizen track reached its mark "
                                                 "(R109)")
                scored |= 1 << i
        r["scored"] = scored
        done = bin(scored).count("1")
        if "cerda_scorings_done" in self.doc:
            got = _int(self.doc["cerda_scorings_done"], "cerda_scorings_done", 0, 3)
            if got != done:
                _fail("cerda_scorings_done", f"{got} but {done} sections are marked scored")
        r["scorings"] = done

    def _modernisme_offer(self):
        nm = self.nm
        mo = _obj(self.doc.get("modernisme", {}), "modernisme", ("stack", "display", "discard"))
        twins = {t_ for t_ in range(len(nm.mod)) if self.t["mod_cond"][t_] in self.r["cerda_tile"]}
        self.mod_twins = twins
        masks = {}
        for key in ("display", "discard", "stack"):
            if key not in mo:
                continue
            lst = _list(mo[key], f"modernisme.{key}",
                        max_len=self.t["display_size"] if key == "display" else None)
            m = 0
            for i, x in enumerate(lst):
                path = f"modernisme.{key}[{i}]"
                tile = self._mod_tile(x, path)
                m |= 1 << tile
            masks[key] = m
        self.mod_masks = masks

    def _mod_tile(self, x: Any, path: str) -> int:
        tile = _name(x, path, self.nm.mod_index, "Modernisme tile")
        if tile in self.mod_twins:
            _fail(path, f"{x} is the twin of a Cerdà tile and went back to the box at setup (R15)")
        if tile in self.mod_where:
            _fail(path, f"tile {x} is already at {self.mod_where[tile]}")
        self.mod_where[tile] = path
        return tile

    def _modernisme_all(self):
        r, nm = self.r, self.nm
        everything = (1 << len(nm.mod)) - 1
        twins = sum(1 << x for x in self.mod_twins)
        placed = sum(1 << x for x in self.mod_where)
        r["mod_display"] = self.mod_masks.get("display", 0)
        r["mod_discard"] = self.mod_masks.get("discard", 0)
        if "stack" in self.mod_masks:
            r["mod_stack"] = self.mod_masks["stack"]
            missing = everything & ~twins & ~placed
            if missing:
                x = (missing & -missing).bit_length() - 1
                _fail("modernisme", f"tile {nm.mod[x]} is nowhere (every Modernisme tile but the Cerdà twins is in "
                                    "the stack, the display, the discard or on a player board)")
        else:
            r["mod_stack"] = everything & ~twins & ~placed

    def _public_services(self):
        r, nm, t = self.r, self.nm, self.t
        ps = _obj(self.doc["public_services"], "public_services", tuple(nm.ps))
        per = t["ps_tiles_2p"] if self.n == 2 else 3
        r["ps_left"] = [-1] * len(nm.ps)
        for name, v in ps.items():
            r["ps_left"][nm.ps_index[name]] = _int(v, _join("public_services", name), 0, per)
        if len(ps) != t["ps_in_play"]:
            _fail("public_services", f"{len(ps)} types in play, the edition plays {t['ps_in_play']} (R17)")
        self.ps_per = per

    def _sidewalk(self):
        pre = self.t["side_pre"]
        lst = _list(self.doc.get("sidewalk", []), "sidewalk")
        m = pre
        seen = 0
        for i, x in enumerate(lst):
            s = _side(x, f"sidewalk[{i}]")
            if (seen >> s) & 1:
                _fail(f"sidewalk[{i}]", f"{_side_name(s)} is listed twice")
            seen |= 1 << s
            m |= 1 << s
        self.r["sidewalk"] = m
        self.cobbles_on_sidewalk = bin(m & ~pre).count("1")

    # -- players --------------------------------------------------------------------------------------------
    def _players(self):
        lst = self.doc["players"]
        self.r["pl"] = [self._player(p, x) for p, x in enumerate(lst)]

    def _player(self, p: int, x: Any) -> dict:
        """players[p], read part by part in document order (the first error found is the one reported)."""
        path = f"players[{p}]"
        _obj(x, path, _PLAYER_KEYS, ("score", "coins", "cloth", "cerda", "hand"))
        if "seat" in x and _int(x["seat"], _join(path, "seat"), 0, 3) != p:
            _fail(_join(path, "seat"), f"{x['seat']} but this is entry {p} of players (entries are in seat order)")
        pl: dict[str, Any] = {}
        self._player_score(pl, x, path)
        self._player_warehouse(pl, x, path)
        self._player_pieces(pl, p, x, path)
        self._player_tracks(pl, x, path)
        self._player_modernisme(pl, x, path)
        self._player_sagrada_tiles(pl, x, path)
        pl["ps_built"] = self._player_public_services(x, path)
        pl["hand"] = self._hand(p, x["hand"], _join(path, "hand"))
        turns = _join(path, "turns")
        pl["turns"] = _int(x["turns"], turns, 0, 999) if "turns" in x else None     # filled in _cross_checks
        pl["spare"] = 0
        return pl

    def _player_score(self, pl: dict, x: Any, path: str) -> None:
        # VP are unbounded in the rules (R7, A43) but C keeps each source in an int16: a document may give at most
        # MAX_VP_SOURCE per source, which leaves room for more than any game can still add (docs/positions.md)
        pl["score"] = _int(x["score"], _join(path, "score"), 0, MAX_VP_SOURCE * len(SOURCES))
        src = [0] * len(SOURCES)
        if "vp_by_source" in x:
            vpath = _join(path, "vp_by_source")
            vs = _obj(x["vp_by_source"], vpath, SOURCES)
            for i, s in enumerate(SOURCES):
                src[i] = _int(vs.get(s, 0), _join(vpath, s), 0, MAX_VP_SOURCE)
            if sum(src) != pl["score"]:
                _fail(vpath, f"the sources add up to {sum(src)} but score is {pl['score']}")
        else:
            if pl["score"] > MAX_VP_SOURCE:
                _fail(_join(path, "score"), f"{pl['score']} is more than {MAX_VP_SOURCE} without a vp_by_source split")
            src[0] = pl["score"]
        pl["vp_src"] = src

    def _player_warehouse(self, pl: dict, x: Any, path: str) -> None:
        pl["coins"] = _int(x["coins"], _join(path, "coins"), 0, 99)      # the Warehouse bounds both (_cross_checks)
        pl["cloth"] = _int(x["cloth"], _join(path, "cloth"), 0, 99)
        pl["cobbles"] = _int(x.get("cobblestones", 0), _join(path, "cobblestones"), 0, 6)

    def _player_pieces(self, pl: dict, p: int, x: Any, path: str) -> None:
        """The counts of pieces on the board: each given count must match what the board shows for seat p."""
        r, t = self.r, self.t
        own_int = sum(1 for c in range(NUM_CROSSINGS) if r["cross_int"][c] == p)
        own_nar = sum(1 for s in range(NUM_SPACES) if r["street_owner"][s] == p and not t["space_wide"][s])
        own_wide = sum(1 for s in range(NUM_SPACES) if r["street_owner"][s] == p and t["space_wide"][s])
        own_pass = sum(1 for s in range(NUM_SPACES) if r["passenger"][s] == p)
        own_mark = sum(1 for bs in range(NUM_BUILDING_SPACES) for k in range(r["bld_n"][bs])
                       if r["bld_mark"][bs * 3 + k] == p)
        for key, field, hi, count, what in (
                ("intersections", "inters", 5, own_int, "Intersections of seat {p} on the crossings"),
                ("narrow_laid", "narrow", 10, own_nar, "Narrow Street tiles of seat {p} on the board"),
                ("wide_laid", "wide", 5, own_wide, "Wide Street tiles of seat {p} on the board"),
                ("passengers", "passengers", 5, own_pass, "Passengers of seat {p} on the streets"),
                ("markers_placed", "markers", 8, own_mark, "Building markers of seat {p} on buildings")):
            if count > hi:
                _fail(_join(path, key), f"{count} {what.format(p=p)}: a player has only {hi} (R4)")
            v = _int(x.get(key, count), _join(path, key), 0, hi)
            if v != count:
                _fail(_join(path, key), f"{v} but there are {count} {what.format(p=p)}")
            pl[field] = v

    def _player_tracks(self, pl: dict, x: Any, path: str) -> None:
        """The tram and the markers on the Cerda and Sagrada tracks."""
        t = self.t
        pl["tram"] = _space(x["tram"], _join(path, "tram")) if x.get("tram") is not None else -1
        pl["cerda"] = _int(x["cerda"], _join(path, "cerda"), 0, len(t["cerda_mult"]) - 1)
        pl["sagrada"] = _int(x.get("sagrada", 0), _join(path, "sagrada"), 0, t["sag_spaces"] - 1)

    def _player_modernisme(self, pl: dict, x: Any, path: str) -> None:
        pl["mod_tile"], pl["mod_up"] = [-1] * 5, [0] * 5
        if "modernisme" in x:
            lpath = _join(path, "modernisme")
            for i, e in enumerate(_list(x["modernisme"], lpath, 5)):
                ep = f"{lpath}[{i}]"
                _obj(e, ep, ("tile", "marker_up"))
                if e.get("tile") is not None:
                    pl["mod_tile"][i] = self._mod_tile(e["tile"], _join(ep, "tile"))
                pl["mod_up"][i] = 1 if _bool(e.get("marker_up", False), _join(ep, "marker_up")) else 0

    def _player_sagrada_tiles(self, pl: dict, x: Any, path: str) -> None:
        t = self.t
        pl["sag_tile"] = [-1] * 3
        if "sagrada_tiles" in x:
            lpath = _join(path, "sagrada_tiles")
            for i, e in enumerate(_list(x["sagrada_tiles"], lpath, 3)):
                if e is None:
                    continue
                ep = f"{lpath}[{i}]"
                tile = self._sag_tile(e, ep)
                if t["sag_level"][tile] != t["sag_slot_level"][i]:
                    _fail(ep, f"{e} is a level-{t['sag_level'][tile]} tile; slot {i} takes level "
                              f"{t['sag_slot_level'][i]} (R119)")
                if pl["sagrada"] <= t["sag_slot_after"][i]:
                    _fail(ep, f"slot {i} is filled but the Sagrada marker (space {pl['sagrada']}) has not passed "
                              f"space {t['sag_slot_after'][i]} (R119)")
                pl["sag_tile"][i] = tile

    def _player_public_services(self, x: Any, path: str) -> int:
        """The bit set of the Public Service types the seat has built."""
        built = 0
        if "public_services" in x:
            lpath = _join(path, "public_services")
            for i, e in enumerate(_list(x["public_services"], lpath)):
                ep = f"{lpath}[{i}]"
                k = _name(e, ep, self.nm.ps_index, "Public Service")
                if self.r["ps_left"][k] < 0:
                    _fail(ep, f"{e} is not in play in this game (see public_services)")
                if (built >> k) & 1:
                    _fail(ep, f"{e} is listed twice (one of each type, R79)")
                built |= 1 << k
        return built

    def _sag_tile(self, e: Any, path: str) -> int:
        tile = _name(e, path, self.nm.sag_index, "Sagrada tile")
        if tile in self.sag_where:
            _fail(path, f"tile {e} is already at {self.sag_where[tile]}")
        self.sag_where[tile] = path
        return tile

    def _hand(self, p: int, h: Any, path: str) -> list[int]:
        if isinstance(h, dict) and "hidden" in h:
            _obj(h, path, ("hidden",))
            if self.viewpoint is None:
                _fail(_join(path, "hidden"), "a hidden hand needs a viewpoint document ('viewpoint' and "
                                             "'unseen_pool')")
            if p == self.viewpoint:
                _fail(_join(path, "hidden"), f"seat {p} is the viewpoint: its own hand is known")
            size = _int(h["hidden"], _join(path, "hidden"), 0, 2)
            self.hidden[p] = size
            return [size, -1, -1]                        # filled from the pool in _citizens
        if self.viewpoint is not None and p != self.viewpoint:
            _fail(path, f"in a viewpoint document only seat {self.viewpoint}'s hand is known: write {{\"hidden\": n}}")
        hand = _class_counts(h, path, 2)
        if sum(hand) > 2:
            _fail(path, f"{sum(hand)} citizens: a hand holds at most 2 (R32)")
        return hand

    def _sagrada(self):
        r, nm = self.r, self.nm
        on_boards = sum(1 << x for x in self.sag_where)
        everything = (1 << len(nm.sag)) - 1
        if "sagrada_offer" in self.doc:
            lst = _list(self.doc["sagrada_offer"], "sagrada_offer")
            m = 0
            for i, e in enumerate(lst):
                m |= 1 << self._sag_tile(e, f"sagrada_offer[{i}]")
            missing = everything & ~m & ~on_boards
            if missing:
                x = (missing & -missing).bit_length() - 1
                _fail("sagrada_offer", f"tile {nm.sag[x]} is nowhere (each Sagrada tile is in the offer or in a "
                                       "player's slot)")
            r["sag_offer"] = m
        else:
            r["sag_offer"] = everything & ~on_boards

    def _citizens(self):
        """72 citizens (the edition's counts) across bag, hands, crossings, tracks and beside the board (R5)."""
        r, t, n = self.r, self.t, self.n
        key = "unseen_pool" if self.viewpoint is not None else "bag"
        other = "bag" if self.viewpoint is not None else "unseen_pool"
        if other in self.doc:
            _fail(other, f"a {'viewpoint' if self.viewpoint is not None else 'full'} document gives '{key}', "
                         f"not '{other}'")
        known = [0, 0, 0]
        for p in range(n):
            if self.viewpoint is None or p == self.viewpoint:
                for k in range(3):
                    known[k] += r["pl"][p]["hand"][k]
        table = [0, 0, 0]
        for c in range(NUM_CROSSINGS):
            for x in (r["cross_lo"][c], r["cross_hi"][c]):
                if x >= 0:
                    table[x] += 1
        parts = []
        for k in range(3):
            parts.append(known[k] + table[k] + bin(r["track"][k]).count("1") + r["track_off"][k])
        if key in self.doc:
            bag = _class_counts(self.doc[key], key, 99)
            for k, cls in enumerate(CLASSES):
                if bag[k] + parts[k] != t["citizens"][k]:
                    _fail(f"{key}.{cls}", f"{bag[k] + parts[k]} {cls} citizens in all ({key} {bag[k]}, known hands "
                                          f"{known[k]}, crossings {table[k]}, track {bin(r['track'][k]).count('1')},"
                                          f" beside the board {r['track_off'][k]}); the game has "
                                          f"{t['citizens'][k]} (R5)")
        else:
            bag = [t["citizens"][k] - parts[k] for k in range(3)]
            for k, cls in enumerate(CLASSES):
                if bag[k] < 0:
                    _fail(f"{key}.{cls}", f"{parts[k]} {cls} citizens outside the {key}, the game has only "
                                          f"{t['citizens'][k]} (R5)")
        hidden = self.hidden
        if sum(hidden.values()) > sum(bag):
            _fail(key, f"the hidden hands hold {sum(hidden.values())} citizens but the unseen pool has "
                       f"{sum(bag)}")
        pool = list(bag)
        for p in sorted(hidden):                          # any split works: load() resamples it (determinize)
            hand = [0, 0, 0]
            for _ in range(hidden[p]):
                k = max(range(3), key=lambda j: pool[j])
                pool[k] -= 1
                hand[k] += 1
            r["pl"][p]["hand"] = hand
        r["bag"] = pool

def state_from_json(doc: Any, seed: int = 0, edition: Any = None) -> State:
    """Build a state from a position document (a dict or JSON text); see docs/positions.md.

    A viewpoint document's hidden hands are sampled from its unseen pool with `seed`. `edition` (a name, a
    data-file path or an Edition) is the edition the reader plays: the document must have been written under
    it (editions.edition_of_document); by default, the shipped edition the document names."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidPositionError(f"seed: expected an integer, got {_show(seed)}")
    reader = _Reader(doc, edition)
    raw, edition, viewpoint, hand_written = reader.read()
    try:
        st = State._from_raw(raw, edition)          # the core's memory-safety guard, after every check above
    except InvalidPositionError:
        raise
    except BarcelonaError as exc:
        raise InvalidPositionError(f"position: {exc}") from None
    problem = st._invariant_problem()               # the core's own invariants, as a last guard
    if problem:
        raise InvalidPositionError(f"position: {problem}")
    if viewpoint is not None:
        st = st.determinize(viewpoint, seed)
    if hand_written and raw["phase"] == PH_PLACE:
        st.settle()                                   # the automatic steps of a start-of-turn position
    elif not st.is_terminal() and not st.legal_actions():
        st.settle()                                   # a written position that stopped where no decision waits
    return st


def load_position(path_or_str: str | Path | dict, seed: int = 0, edition: Any = None) -> State:
    """A state from a position file (a path) or from JSON text (a string starting with '{') or a dict; `edition`
    as in state_from_json."""
    if isinstance(path_or_str, dict):
        return state_from_json(path_or_str, seed, edition)
    if isinstance(path_or_str, str) and path_or_str.lstrip().startswith("{"):
        return state_from_json(path_or_str, seed, edition)
    if not isinstance(path_or_str, (str, Path)):
        raise InvalidPositionError(f"position: expected a file path, JSON text or a dict, got "
                                   f"{type(path_or_str).__name__}")
    what = f"position file {show_path(path_or_str)}"
    return state_from_json(parse_json(read_bytes(path_or_str, what, InvalidPositionError), what,
                                      InvalidPositionError, unique_keys=True), seed, edition)


# State.to_json / State.from_json use these (core.pyx, "Layers").
register_text_services(state_to_json=state_to_json, state_from_json=state_from_json)

