"""Reading a position document's turn machinery (``turn_state``): the frames, the pending steps, and how
they fit the phase, the board and the players (the reader of position.py takes this part from here)."""
from __future__ import annotations

from typing import Any

from ..core import SOURCES
from .tables import (ACTION_KINDS, GRANT_KINDS, NUM_SIDEWALK, space_name)

from .position_fields import (BUILD_TYPE_OF_LEVEL, E_ACT, E_MARKER, E_RES, E_SAGRADA, FRAME_KINDS, FRAME_KIND_IDS,
                              GK_CERDA, GK_CLOTH, GK_COBBLE, GK_COBBLE_ANYWHERE, GK_COINS, GK_NARROW, GK_PS,
                              GK_STREETS, GK_TRAM, GK_TRAM_COIN_FREE, LEVEL_NAMES, MAX_FRAMES, MAX_LOADED_FRAMES,
                              MAX_OVERFLOW, MAX_PLAYERS, PHASES, PH_ACTIONS, PH_DRAW, PH_END, PH_OVER, PH_PLACE,
                              PH_REFRESH, STREET_DIRS, _TURN_KEYS, _bool, _cross_name, _crossing, _fail, _int, _join,
                              _list, _name, _obj, _seat, _show, _space)


class _TurnReader:
    """The turn machinery of a document: _Reader's methods for turn_state (it holds self.doc, self.r, self.n)."""

    # -- turn machinery -----------------------------------------------------------------------------------
    def _turn_state(self):
        """Parse turn_state: every field in its range. How the parts fit each other and the rest of the position
        is checked in _turn_checks, once the players are known."""
        r, n = self.r, self.n
        ts = _obj(self.doc.get("turn_state", {}), "turn_state", _TURN_KEYS)
        pc = ts.get("place_crossing")
        r["place_crossing"] = _crossing(pc, "turn_state.place_crossing") if pc is not None else -1
        used = _list(ts.get("streets_used", []), "turn_state.streets_used", max_len=3)
        m = 0
        for i, e in enumerate(used):
            b = _name(e, f"turn_state.streets_used[{i}]", STREET_DIRS, "street direction")
            if (m >> b) & 1:
                _fail(f"turn_state.streets_used[{i}]", f"{e} is listed twice (each street's action once, R39)")
            m |= 1 << b
        r["streets_used"] = m
        frames = _list(ts.get("frames", []), "turn_state.frames")
        if len(frames) > MAX_LOADED_FRAMES:
            _fail("turn_state.frames", f"{len(frames)} frames; a position holds at most {MAX_LOADED_FRAMES} (play "
                                       f"nests a few more on top, within the core's {MAX_FRAMES})")
        self.frames = []
        for i, e in enumerate(frames):
            self.frames.append(self._frame(e, f"turn_state.frames[{i}]", self.frames[-1] if i else None))
        out = [{k: v for k, v in f.items() if k != "path"} for f in self.frames]
        r["nframes"] = len(out)
        out += [dict(kind=0, player=0, a=0, b=0, src=0, lst=0) for _ in range(MAX_FRAMES - len(out))]
        r["frames"] = out
        r["discard_player"] = _seat(ts.get("discard_player"), "turn_state.discard_player", n, True)
        r["reveal_pending"] = _int(ts.get("reveal_pending", 0), "turn_state.reveal_pending", 0,
                                   self.t["display_size"])
        r["refresh_pending"] = _int(ts.get("refresh_pending", 0), "turn_state.refresh_pending", 0, 3)
        r["draws_left"] = _int(ts.get("draws_left", 0), "turn_state.draws_left", 0, 2)
        # default: something happened this round unless the round is just starting (seat 0 to move)
        r["activity"] = 1 if _bool(ts.get("activity", r["cur"] != 0), "turn_state.activity") else 0
        end = bool((r["scored"] >> 2) & 1)
        if "end_triggered" in ts and _bool(ts["end_triggered"], "turn_state.end_triggered") != end:
            _fail("turn_state.end_triggered", f"must be {str(end).lower()}: the end is triggered exactly when "
                                              "section 3 is scored (R122)")
        r["end_triggered"] = int(end)

    def _frame(self, e: Any, path: str, below: dict | None) -> dict:
        """One frame: its kind's named fields only (no raw core fields), each in its range for that kind. Without
        "source", the source the core books for that kind (for a frame pushed by an effect, its pusher's, but for
        the street action a Passenger gives after a granted Tram move, which books as actions: R84)."""
        nm, t = self.nm, self.t
        if not isinstance(e, dict):
            _fail(path, f"expected a frame object, got {_show(e)}")
        kind = _name(e.get("kind"), _join(path, "kind"), FRAME_KIND_IDS, "frame kind")
        kname = FRAME_KINDS[kind]
        named = {"EFFECTS": ("effects", "next", "building"), "GRANT": ("action",), "NARROW2": (),
                 "PASSENGER": ("space", "coin_free"), "SAGRADA": ("steps_left",), "SAG_TILE": ("level", "slot"),
                 "RES": ("resources",), "INT_PICK": ("picks_left", "slots_taken")}[kname]
        required = {"EFFECTS": ("effects",), "GRANT": ("action",), "PASSENGER": ("space",),
                    "SAGRADA": ("steps_left",), "SAG_TILE": ("level", "slot"), "RES": ("resources",),
                    "INT_PICK": ("picks_left",)}.get(kname, ())
        _obj(e, path, ("kind", "player", "source") + named, ("player",) + required)
        f = {"kind": kind, "player": _seat(e["player"], _join(path, "player"), self.n), "a": 0, "b": 0,
             "src": 0, "lst": 0, "path": path}
        if "source" in e:
            f["src"] = _name(e["source"], _join(path, "source"), SOURCES, "VP source")
        elif kname in ("RES", "SAGRADA", "GRANT"):
            f["src"] = below["src"] if below is not None else SOURCES.index("actions")
        else:
            f["src"] = SOURCES.index({"SAG_TILE": "sagrada", "INT_PICK": "intersections"}.get(kname, "streets"))
        if kname == "EFFECTS":
            f["lst"] = lst = _name(e["effects"], _join(path, "effects"), nm.eff_index, "effect list of this edition")
            if lst not in nm.list_sources:
                _fail(_join(path, "effects"), f"{e['effects']} is applied at once where it is printed (a street "
                                              "space or an Intersection slot), never as a frame")
            if "source" not in e and len(nm.list_sources[lst]) == 1:
                f["src"] = next(iter(nm.list_sources[lst]))
            if f["src"] not in nm.list_sources[lst]:
                origins = " or ".join(SOURCES[x] for x in sorted(nm.list_sources[lst]))
                _fail(_join(path, "source"), f"{_show(e['source'])}: {e['effects']} books its VP as {origins}"
                      if "source" in e else f"missing: {e['effects']} books its VP as {origins}, say which")
            effects = nm.ed.effect_lists[lst]
            f["a"] = _int(e.get("next", 0), _join(path, "next"), 0, len(effects))
            if any(code == E_MARKER for code, _ in effects):
                if "building" not in e:
                    _fail(_join(path, "building"), f"missing: {e['effects']} places a Building marker (R93 step 6)")
                f["b"] = _name(e["building"], _join(path, "building"), nm.bs_index, "building space")
            elif "building" in e:
                _fail(_join(path, "building"), f"{e['effects']} places no Building marker")
        elif kname == "GRANT":
            f["a"] = _name(e["action"], _join(path, "action"), GRANT_KINDS, "granted action")
            tram = self._tram_move_granted_by(below)
            if "source" not in e and tram is not None and f["src"] != SOURCES.index("actions"):
                if f["a"] != tram:             # the Passenger's street action after the granted Tram move (R84)
                    f["src"] = SOURCES.index("actions")
                else:                          # the granted move itself, or a Passenger's street Tram move
                    _fail(_join(path, "source"), f"missing: {e['action']} books its VP as {SOURCES[f['src']]} "
                                                 f"or actions, say which")
        elif kname == "PASSENGER":
            f["a"] = _space(e["space"], _join(path, "space"))
            f["b"] = 1 if _bool(e.get("coin_free", False), _join(path, "coin_free")) else 0
        elif kname == "SAGRADA":
            f["a"] = _int(e["steps_left"], _join(path, "steps_left"), 0, nm.max_sagrada)
        elif kname == "SAG_TILE":
            f["a"] = _int(e["level"], _join(path, "level"), 1, max(t["sag_slot_level"]))
            f["b"] = _int(e["slot"], _join(path, "slot"), 0, len(t["sag_slot_level"]) - 1)
        elif kname == "RES":
            f["a"] = _int(e["resources"], _join(path, "resources"), 1, nm.max_res)
        elif kname == "INT_PICK":
            f["a"] = _int(e["picks_left"], _join(path, "picks_left"), 0, max(t["inter_picks"]))
            taken = _list(e.get("slots_taken", []), _join(path, "slots_taken"), max_len=5)
            m = 0
            for i, x in enumerate(taken):
                slot = _int(x, f"{path}.slots_taken[{i}]", 0, 4)
                if (m >> slot) & 1:
                    _fail(f"{path}.slots_taken[{i}]", f"slot {slot} is listed twice")
                m |= 1 << slot
            f["b"] = m
        return f

    def _tram_move_granted_by(self, f: "dict | None") -> "int | None":
        """The Tram move (its granted-action kind) that frame `f`'s item just taken grants, if it is one."""
        if f is None or f["kind"] != FRAME_KIND_IDS["EFFECTS"] or f["a"] < 1:
            return None
        code, amt = self.nm.ed.effect_lists[f["lst"]][f["a"] - 1]
        return amt if code == E_ACT and amt in (GK_TRAM, GK_TRAM_COIN_FREE) else None

    def _turn_checks(self):
        """The turn machinery against the phase and the rest of the position: what each phase may have pending
        (R34's four steps), the frame stack's shape, and every count a pending piece will use."""
        r, t = self.r, self.t
        ph, cur, pls = r["phase"], r["cur"], r["pl"]
        pname = PHASES[ph]
        pc, used = r["place_crossing"], r["streets_used"]
        if ph == PH_PLACE and (pc >= 0 or used):
            _fail("turn_state.place_crossing", "the PLACE phase has no crossing nor streets used yet")
        if ph == PH_ACTIONS:
            if pc < 0:
                _fail("turn_state.place_crossing", "the ACTIONS phase needs the crossing the hand was placed on")
            if r["cross_lo"][pc] < 0:
                _fail("turn_state.place_crossing", f"{_cross_name(pc)} has no citizens")
            if sum(pls[cur]["hand"]) != 0:
                _fail(f"players[{cur}].hand", f"seat {cur} placed its hand this turn (ACTIONS): it holds no "
                                              "citizens until its draws (R34)")
        if used:
            if pc < 0:
                _fail("turn_state.streets_used", "street actions were taken but no crossing was placed on")
            if used & 4 and pc % 5 != pc // 5:
                _fail("turn_state.streets_used", f"{_cross_name(pc)} is not on the diagonal")
        if self.frames and ph not in (PH_ACTIONS, PH_END):
            _fail("turn_state.frames", f"frames wait only in the ACTIONS and END phases (actions, and the effects "
                                       f"of a construction), not in {pname}")
        d = r["discard_player"]
        if d >= 0:
            pl = pls[d]
            if ph not in (PH_ACTIONS, PH_END):
                _fail("turn_state.discard_player", f"Warehouses overflow only from gains in the ACTIONS and END "
                                                   f"phases, not in {pname}")
            if pl["coins"] == 0 or pl["cloth"] == 0:
                _fail("turn_state.discard_player", f"seat {d} holds only {'Cloth' if pl['coins'] == 0 else 'Coins'}"
                                                   ": the overflow goes back at once, there is nothing to choose "
                                                   "(A39)")
            over = pl["coins"] + pl["cloth"] - (t["wh_free"] + pl["cobbles"])
            if over > MAX_OVERFLOW:
                _fail(f"players[{d}].coins", f"{over} tokens over the Warehouse; one gain overflows it by at most "
                                             f"{MAX_OVERFLOW} (R43, A39)")
        rp = r["reveal_pending"]
        if rp:
            free = t["display_size"] - bin(r["mod_display"]).count("1")
            if ph not in (PH_ACTIONS, PH_END, PH_REFRESH):
                _fail("turn_state.reveal_pending", f"the display is refilled during actions or a refresh, not in "
                                                   f"{pname} (R73, R111)")
            if rp > free:
                _fail("turn_state.reveal_pending", f"{rp} reveals owed but the display has {free} empty places "
                                                   "(R73, R111)")
            if ph != PH_REFRESH and rp > 1:
                _fail("turn_state.reveal_pending", f"{rp}: a tile taken from the display is replaced at once, one "
                                                   "at a time (R73)")
            if d >= 0:
                _fail("turn_state.reveal_pending", "a reveal and a discard cannot both be due (each is resolved "
                                                   "before anything else happens)")
        if r["refresh_pending"]:
            if ph != PH_REFRESH:
                _fail("turn_state.refresh_pending", f"refreshes are owed only in the REFRESH phase, not in {pname}")
            if r["refresh_pending"] > r["scorings"]:
                _fail("turn_state.refresh_pending", f"{r['refresh_pending']} refreshes owed after "
                                                    f"{r['scorings']} Cerdà scorings (one each, R111)")
        held = sum(pls[cur]["hand"])
        if ph == PH_DRAW:
            if r["draws_left"] == 0:
                _fail("turn_state.draws_left", f"0 in the DRAW phase: seat {cur} holds {held} and draws "
                                               f"{2 - held} (a full hand ends the turn, R34 step 4)")
            if r["draws_left"] + held != 2:
                _fail("turn_state.draws_left", f"{r['draws_left']} draws left but seat {cur} holds {held}: the hand "
                                               "is refilled to 2 one citizen at a time (R34 step 4, A1)")
        elif r["draws_left"]:
            _fail("turn_state.draws_left", f"citizens are drawn in the DRAW phase, not in {pname}")
        # Sections: each is scored in the END step of the turn whose construction reached its mark (R109)
        if ph != PH_END:
            for i in range(3):
                reached = any((r["track"][k] >> t["track_mark"][k][i]) & 1 for k in range(3))
                if reached and not (r["scored"] >> i) & 1:
                    _fail(f"cerda_tiles[{i}].scored", f"a citizen track reached section {i + 1}'s mark: it is "
                                                      f"scored in the END step of that turn (R109), before {pname}")
        if ph == PH_OVER and (d >= 0 or rp or r["refresh_pending"] or self.frames):
            _fail("turn_state", "nothing is pending once the game is over")
        self._frames()

    def _frames(self):
        """The frame stack (bottom first). The core pushes a frame only from the one below it (core.pyx:
        run_effects, apply_grant, apply_frame), so the stack is a chain: the bottom frame starts the piece of
        the turn that is under way, every other frame was pushed by the frame under it, and only the top frame
        waits for a decision. Checked: who decides, where each frame comes from, and every count it will use."""
        frames, r, t, nm = self.frames, self.r, self.t, self.nm
        if not frames:
            return
        cur, ph = r["cur"], r["phase"]
        top = len(frames) - 1
        for i, f in enumerate(frames):
            kname = FRAME_KINDS[f["kind"]]
            if kname == "INT_PICK":
                self._int_pick(f, i)
            elif f["player"] != cur:
                _fail(_join(f["path"], "player"), f"seat {f['player']}: only the Intersection owner's picks "
                                                  f"(INT_PICK) are decided by another seat than to_move ({cur})")
            if i < top and kname not in ("EFFECTS", "SAGRADA"):
                _fail(f["path"], f"a {kname} frame waits for a decision, so it is the top frame; only EFFECTS and "
                                 "SAGRADA frames wait under others")
            if kname == "SAG_TILE":
                self._sag_tile_frame(f)
        base = frames[0]
        if ph == PH_END:                         # the construction's effects: tile, marker (R93 steps 5-6)
            if not self._is_building_effects(base):
                _fail(base["path"], "in the END phase the bottom frame is the EFFECTS of the building just "
                                    "constructed (source buildings, with its building space)")
        elif FRAME_KIND_IDS["INT_PICK"] != base["kind"]:
            pc = r["place_crossing"]
            streets = [st for i, st in enumerate((pc % 5, 5 + pc // 5, 10)) if (r["streets_used"] >> i) & 1]
            if not any(self._left_by(base, r["street_action"][st], None) for st in streets):
                taken = ", ".join(ACTION_KINDS[r["street_action"][st]] for st in streets) or "none was taken"
                _fail(base["path"], "the bottom frame must be what a street action taken this turn (streets_used) "
                                    f"leaves pending; {taken}")
        for i in range(1, len(frames)):
            self._child(frames[i - 1], frames[i])
        # every pending MARKER effect finds room on its building (one marker per level, R102)
        pending: dict[int, int] = {}
        where: dict[int, str] = {}
        for f in frames:
            if f["kind"] == FRAME_KIND_IDS["EFFECTS"]:
                codes = [code for code, _ in nm.ed.effect_lists[f["lst"]]]
                if E_MARKER in codes[f["a"]:]:
                    pending[f["b"]] = pending.get(f["b"], 0) + 1
                    where[f["b"]] = f["path"]
        used = sum(t["bld_count"]) - sum(r["bld_stack"])
        if pending and sum(r["bld_n"]) + sum(pending.values()) > used:
            bs = next(iter(pending))
            _fail(_join(where[bs], "building"), f"{sum(r['bld_n'])} markers on the board and one pending, but only "
                                                f"{used} Building tiles were used (one marker per construction, R93)")
        for bs, k in pending.items():
            lvl = r["bld_level"][bs]
            room = 0 if lvl == 0 else 1 if lvl == 4 else lvl
            if r["bld_n"][bs] + k > room:
                _fail(_join(where[bs], "building"), f"{nm.bs[bs]} ({LEVEL_NAMES.get(lvl, 'empty')}) holds "
                                                f"{r['bld_n'][bs]} markers and has room for {room}: no marker can "
                                                "be placed there (R102)")

    def _is_building_effects(self, f: dict) -> bool:
        r = self.r
        if f["kind"] != FRAME_KIND_IDS["EFFECTS"] or f["src"] != SOURCES.index("buildings"):
            return False
        lvl = r["bld_level"][f["b"]]
        return lvl > 0 and f["lst"] == self.t["bld_list"][BUILD_TYPE_OF_LEVEL[lvl]]

    def _int_pick(self, f: dict, i: int):
        """The Intersection owner's picks (R62-R65): pushed when the hand is placed, before any action."""
        r, t = self.r, self.t
        pc = r["place_crossing"]
        path = f["path"]
        if i != 0 or len(self.frames) != 1 or r["phase"] != PH_ACTIONS or r["streets_used"]:
            _fail(path, "INT_PICK is the only frame, in the ACTIONS phase before any street action: the owner "
                        "picks as soon as the hand is placed (R62)")
        owner = r["cross_int"][pc]
        if f["player"] != owner:
            _fail(_join(path, "player"), f"seat {f['player']} but the Intersection on {_cross_name(pc)} is "
                                         f"{'nobody' if owner < 0 else 'seat %d' % owner}'s (R62)")
        if f["src"] != SOURCES.index("intersections"):
            _fail(_join(path, "source"), "Intersection picks book their VP as intersections")
        built = r["pl"][owner]["inters"]
        if f["b"] >> built:
            _fail(_join(path, "slots_taken"), f"seat {owner} has emptied only slots 0..{built - 1} (R63)")
        if f["a"] + bin(f["b"]).count("1") != t["inter_picks"][built - 1]:
            _fail(_join(path, "picks_left"), f"{f['a']} left after {bin(f['b']).count('1')} picks, but seat "
                                             f"{owner}'s {built} Intersections give {t['inter_picks'][built - 1]} "
                                             "(R64)")

    def _sag_tile_frame(self, f: dict):
        """A Sagrada slot just passed (R119): the marker is one space past it, the slot empty, the level its own."""
        t = self.t
        pl = self.r["pl"][f["player"]]
        j = f["b"]
        if f["a"] != t["sag_slot_level"][j]:
            _fail(_join(f["path"], "level"), f"slot {j} takes a level-{t['sag_slot_level'][j]} tile (R119)")
        if pl["sagrada"] != t["sag_slot_after"][j] + 1:
            _fail(_join(f["path"], "slot"), f"the Sagrada marker is on space {pl['sagrada']}; slot {j} is chosen "
                                            f"just after passing space {t['sag_slot_after'][j]} (R119)")
        if pl["sag_tile"][j] >= 0:
            _fail(_join(f["path"], "slot"), f"slot {j} already holds {self.nm.sag[pl['sag_tile'][j]]}")
        if f["src"] != SOURCES.index("sagrada"):
            _fail(_join(f["path"], "source"), "a Sagrada tile books its VP as sagrada")

    def _child(self, parent: dict, f: dict):
        """`f` was pushed by `parent`, the frame under it."""
        nm, t, pl = self.nm, self.t, self.r["pl"][parent["player"]]
        kind = FRAME_KINDS[f["kind"]]
        if parent["kind"] == FRAME_KIND_IDS["EFFECTS"]:
            effects = nm.ed.effect_lists[parent["lst"]]
            k = parent["a"]
            code, amt = effects[k - 1] if k >= 1 else (None, 0)
            if code == E_RES:
                ok = kind == "RES" and f["a"] == amt and f["src"] == parent["src"]
            elif code == E_SAGRADA:
                ok = kind == "SAGRADA" and f["a"] <= amt and f["src"] == parent["src"]
            elif code == E_ACT:
                ok = self._left_by(f, amt, parent["src"])
            else:
                _fail(_join(parent["path"], "next"), f"{parent['a']}: the effect before it "
                      f"({nm.eff[parent['lst']]} item {k}) does not wait for another frame, so nothing can be "
                      "stacked on this one")
            if not ok:
                _fail(f["path"], f"a {kind} frame cannot come from item {k} of {nm.eff[parent['lst']]} (the frame "
                                 "under it)")
        else:                                    # SAGRADA: the slot just passed (SAG_TILE), then that tile's list
            if kind == "SAG_TILE":
                return
            ok = kind == "EFFECTS" and f["src"] == SOURCES.index("sagrada") and any(
                pl["sag_tile"][j] >= 0 and t["sag_list"][pl["sag_tile"][j]] == f["lst"]
                and pl["sagrada"] == t["sag_slot_after"][j] + 1 for j in range(len(t["sag_slot_after"])))
            if not ok:
                _fail(f["path"], "on a SAGRADA frame only the choice of the slot just passed (SAG_TILE) or the "
                                 "effects of the tile chosen for it (EFFECTS, source sagrada) can wait (R119)")

    def _left_by(self, f: dict, gk: int, grant_src: int | None) -> bool:
        """Whether frame `f` can be what an action of kind `gk` leaves pending at its own level: the GRANT frame
        itself (granted by an effect booking `grant_src`; None for an action tile taken from a street), or what its
        first choice pushes (core.pyx apply_grant), or, after a Tram move, what the Passenger's free action
        leaves (R84, A18)."""
        t, r = self.t, self.r
        p = f["player"]
        pl = r["pl"][p]
        kind = FRAME_KINDS[f["kind"]]
        src = SOURCES.index
        if kind == "GRANT" and grant_src is not None and f["a"] == gk and f["src"] == grant_src:
            return True
        if kind == "EFFECTS":
            if gk in (GK_COINS, GK_CLOTH, GK_CERDA):
                return f["src"] == src("actions") and f["lst"] == t["action_list"][(GK_COINS, GK_CLOTH,
                                                                                    GK_CERDA).index(gk)]
            if gk in (GK_COBBLE, GK_COBBLE_ANYWHERE):      # the list of a Sidewalk space with a placed Cobblestone
                placed = r["sidewalk"] & ~t["side_pre"]
                return f["src"] == src("sidewalk") and pl["cobbles"] > 0 and any(
                    (placed >> x) & 1 and t["side_list"][x] == f["lst"] for x in range(NUM_SIDEWALK))
            if gk == GK_PS:                                # a Public Service this player built
                return f["src"] == src("public_services") and any(
                    (pl["ps_built"] >> k) & 1 and t["ps_list"][k] == f["lst"] for k in range(len(t["ps_list"])))
        if kind == "NARROW2" and gk in (GK_NARROW, GK_STREETS):     # the second Narrow tile (A14)
            return f["src"] == 0 and pl["narrow"] > 0
        if gk in (GK_TRAM, GK_TRAM_COIN_FREE):
            if kind == "PASSENGER":                        # where the Tram stopped (R83)
                return f["a"] == pl["tram"] and f["src"] == 0 and f["b"] in (0, int(gk == GK_TRAM_COIN_FREE))
            sp = pl["tram"]
            if sp >= 0 and r["passenger"][sp] == p:        # the Passenger is placed: the street's action (R84)
                k0 = r["street_action"][t["space_street"][sp]]
                if kind == "GRANT":
                    return f["a"] == k0 and f["src"] == src("actions")
                if k0 not in (GK_TRAM, GK_TRAM_COIN_FREE):
                    return self._left_by(f, k0, None)
        return False

    # -- counts that involve several parts ------------------------------------------------------------------
    def _cross_checks(self):
        r, t, n = self.r, self.t, self.n
        pls = r["pl"]
        # Trams: one per space (R82)
        where: dict[int, int] = {}
        for p in range(n):
            sp = pls[p]["tram"]
            if sp >= 0:
                if sp in where:
                    _fail(f"players[{p}].tram", f"seat {where[sp]}'s Tram is already on {space_name(sp)} "
                                                      "(R82)")
                where[sp] = p
        # Cobblestones: each one taken out of a Warehouse lies on the Sidewalk (R46)
        cob = sum(pls[p]["cobbles"] for p in range(n))
        if cob != self.cobbles_on_sidewalk:
            _fail("sidewalk", f"{self.cobbles_on_sidewalk} Cobblestones placed beside the printed ones, but the "
                              f"players' cobblestones add up to {cob}")
        # Public Services: the built tiles came off their stacks (R76)
        for k, name in enumerate(self.nm.ps):
            if r["ps_left"][k] < 0:
                continue
            owners = sum(1 for p in range(n) if (pls[p]["ps_built"] >> k) & 1)
            if self.ps_per - r["ps_left"][k] != owners:
                _fail(f"public_services.{name}", f"{r['ps_left'][k]} tiles left of {self.ps_per}, but {owners} "
                                                 "players built it")
        # Warehouse capacity (R43, A39)
        for p in range(n):
            cap = t["wh_free"] + pls[p]["cobbles"]
            over = pls[p]["coins"] + pls[p]["cloth"] > cap
            if over and r["discard_player"] != p:
                _fail(f"players[{p}].coins", f"coins {pls[p]['coins']} + cloth {pls[p]['cloth']} exceed the "
                                                   f"Warehouse ({cap} spaces, R43)")
            if not over and r["discard_player"] == p:
                _fail("turn_state.discard_player", f"seat {p}'s Warehouse does not overflow")
        # turns: seats before to_move have finished one more turn than the others (all equal at the end)
        def ahead(p):
            return 1 if r["phase"] != PH_OVER and p < r["cur"] else 0

        given = [p for p in range(n) if pls[p]["turns"] is not None]
        ref = pls[given[0]]["turns"] - ahead(given[0]) if given else 0
        for p in range(n):
            if pls[p]["turns"] is None:
                pls[p]["turns"] = max(0, ref + ahead(p))
        cur_t = pls[n - 1]["turns"] if r["phase"] == PH_OVER else pls[r["cur"]]["turns"]
        for p in range(n):
            want = cur_t + ahead(p)
            if pls[p]["turns"] != want:
                _fail(f"players[{p}].turns", f"{pls[p]['turns']} but seat {r['cur']} (to move) has "
                                                   f"{pls[r['cur']]['turns']}: seats before to_move have one turn "
                                                   "more, the others the same")

    def _fill_absent_seats(self):
        for _ in range(self.n, MAX_PLAYERS):
            self.r["pl"].append({"score": 0, "vp_src": [0] * len(SOURCES), "coins": 0, "cloth": 0, "cobbles": 0,
                                 "inters": 0, "narrow": 0, "wide": 0, "passengers": 0, "tram": -1, "markers": 0,
                                 "cerda": 0, "sagrada": 0, "mod_tile": [-1] * 5, "mod_up": [0] * 5,
                                 "sag_tile": [-1] * 3, "ps_built": 0, "hand": [0, 0, 0], "turns": 0, "spare": 0})
