# cython: language_level=3
"""The rules core of Barcelona: a compact C state, legal actions, apply/undo, chance, hidden information.

Rules are cited by their numbers in ``docs/rules-inventory.md`` (R1-R128) and rulings (A1-A48).

Model (see core.pxd for the action-id layout):
- A turn is a sequence of small decisions. Pieces of a turn that wait for a decision (a granted action, the
  second Narrow tile, a Passenger, Sagrada steps, an Intersection owner's picks ...) are *frames* on a small
  stack inside the state; frames that need no decision (effect lists) resume by themselves.
- After every action, ``settle`` runs everything that needs no decision (effects, scorings, forced
  discards, skipped steps) until the state waits for a decision or a chance outcome. So every state a user or
  the search sees has at least one legal action, unless it is terminal.
- Chance: citizen draws (one citizen per chance node) and Modernisme reveals (one tile per node). The bag and
  the Modernisme stack are unordered multisets; their "order" is drawn at the chance node, which is exactly
  equivalent to a shuffled stack and makes determinization of the stack implicit.
- Hidden information (A6): only the citizens in other players' hands. The unseen pool is bag + those hands.

Layers (tests/test_layers.py pins them): the core imports only what lies below it, ``errors`` and the data layer
``tables``. Notation, position documents and text rendering are Python modules *above* the core (they import it),
yet ``State`` offers them as methods (``action_to_string``, ``string_to_action``, ``to_json``, ``from_json``,
``render``, ``str(state)``, and the illegal-action message: the move and why it cannot be played, explain.py).
The core does not import them for that: it keeps a small registry of *text services*
(``register_text_services``), and each of those modules registers its functions there when it is imported; the
package ``__init__`` imports all four, so they
are registered before any State exists (every import of ``barcelona_ai.core`` runs the package ``__init__``
first). The State methods look the function up in the registry; a missing one is a RuntimeError naming it.
This is dependency inversion: the core names what it needs, the upper layers supply it, and no module imports a
layer above its own, so there are no import cycles.
"""
from libc.string cimport memset, memcpy, memcmp
from libc.stdlib cimport malloc, realloc, free
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from .errors import IllegalActionError, InvalidPositionError, PlayerCountError, BarcelonaError
from .rules.tables import load_edition
from .rules.view import FRAME_KIND_NAMES, PHASE_NAMES, FrameView, PlayerView, StateView

cdef extern from *:
    int popcount32 "__builtin_popcount"(unsigned int) nogil
    int ctz32 "__builtin_ctz"(unsigned int) nogil


# ============================================================================================================
# 1. small helpers
# ============================================================================================================

cdef inline int popcount4(unsigned int x) noexcept nogil:
    """Bits set in a 4-bit mask (a building space's crossings): a nibble lookup in one constant (a plain
    __builtin_popcount is a library call without -mpopcnt)."""
    return <int>((<uint64_t>0x4332322132212110 >> ((x & 15) * 4)) & 15)

cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b

cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b

cdef inline int capacity(const DataC* d, const PlayerC* pl) noexcept nogil:
    """Warehouse spaces: the free ones plus one per Cobblestone taken out (R45)."""
    return d.wh_free + pl.cobbles

cdef inline int hand_size(const PlayerC* pl) noexcept nogil:
    return pl.hand[0] + pl.hand[1] + pl.hand[2]

cdef inline int bag_size(const StateC* s) noexcept nogil:
    return s.bag[0] + s.bag[1] + s.bag[2]

cdef inline int multiplier(const DataC* d, const PlayerC* pl) noexcept nogil:
    return d.cerda_mult[pl.cerda]

cdef inline void add_vp(StateC* s, int p, int vp, int src) noexcept nogil:
    s.pl[p].score += vp
    s.pl[p].vp_src[src] += vp

cdef inline void gain(const DataC* d, StateC* s, int p, int coins, int cloth) noexcept nogil:
    """Resources always go into the Warehouse; an overflow is resolved at once by the owner (R43, A39)."""
    cdef PlayerC* pl = &s.pl[p]
    pl.coins += coins
    pl.cloth += cloth
    if pl.coins + pl.cloth > capacity(d, pl):
        s.discard_player = p

cdef void move_cerda(const DataC* d, StateC* s, int p, int steps) noexcept nogil:
    """Compulsory Cerdà movement (R115): extra steps back at the bottom are lost, extra steps forward at the top
    give 2 VP each (R116, A30)."""
    cdef PlayerC* pl = &s.pl[p]
    cdef int i
    if steps >= 0:
        for i in range(steps):
            if pl.cerda < d.cerda_spaces - 1:
                pl.cerda += 1
            else:
                add_vp(s, p, d.cerda_overflow_vp, SRC_CERDA_OVERFLOW)
    else:
        pl.cerda = imax(0, pl.cerda + steps)

cdef inline void push_frame(StateC* s, int kind, int player, int a, int b, int src, int lst) noexcept nogil:
    cdef FrameC* f = &s.frames[s.nframes]
    f.kind = kind
    f.player = player
    f.a = a
    f.b = b
    f.src = src
    f.lst = lst
    s.nframes += 1

cdef inline void pop_frame(StateC* s) noexcept nogil:
    """Drop the top frame and clear its slot, so that equal positions have equal bytes (and hashes)."""
    s.nframes -= 1
    memset(&s.frames[s.nframes], 0, sizeof(FrameC))

cdef inline int top_citizen(const StateC* s, int c) noexcept nogil:
    return s.cross_hi[c] if s.cross_hi[c] >= 0 else s.cross_lo[c]

cdef inline int take_top_citizen(StateC* s, int c) noexcept nogil:
    cdef int cls
    if s.cross_hi[c] >= 0:
        cls = s.cross_hi[c]
        s.cross_hi[c] = -1
    else:
        cls = s.cross_lo[c]
        s.cross_lo[c] = -1
    return cls

cdef void refresh_crossing_masks(const DataC* d, StateC* s, int c) noexcept nogil:
    """Crossing c's bit in the masks of the building spaces around it, after its citizens changed (BuildMasksC:
    occupied, and the class of the top citizen, the one a construction uses, R92)."""
    cdef int j, bs, top = top_citizen(s, c)
    cdef uint8_t bit
    for j in range(d.cross_nbs[c]):
        bit = d.cross_bs_bit[c * 6 + j]
        if bit == 0:
            continue
        bs = d.cross_bs[c * 6 + j]
        s.masks.occ[bs] &= ~bit
        s.masks.mid[bs] &= ~bit
        s.masks.up[bs] &= ~bit
        if top >= 0:
            s.masks.occ[bs] |= bit
        if top == 1:
            s.masks.mid[bs] |= bit
        elif top == 2:
            s.masks.up[bs] |= bit

cdef void refresh_build_masks(const DataC* d, StateC* s) noexcept nogil:
    """All the building masks from the crossings (a state set whole: setup, raw, unpickled)."""
    cdef int c
    memset(&s.masks, 0, sizeof(BuildMasksC))
    for c in range(NCROSS):
        refresh_crossing_masks(d, s, c)

cdef bint build_masks_stale(const DataC* d, const StateC* s) noexcept nogil:
    """Whether the building masks differ from what the crossings say (the invariant checker's test)."""
    cdef StateC fresh
    memcpy(&fresh, s, sizeof(StateC))
    refresh_build_masks(d, &fresh)
    return memcmp(&fresh.masks, &s.masks, sizeof(BuildMasksC)) != 0

cdef inline int track_free_mask(const DataC* d, const StateC* s, int k) noexcept nogil:
    return <int>(~s.track[k] & ((<uint32_t>1 << d.track_len[k]) - 1))

cdef void citizen_to_track(const DataC* d, StateC* s, int k) noexcept nogil:
    """A citizen goes to the leftmost empty space of its row, past prefilled ones; beyond the last section it
    goes beside the board (R104, R105)."""
    cdef uint32_t free_ = <uint32_t>track_free_mask(d, s, k)
    if free_:
        s.track[k] |= <uint32_t>1 << ctz32(free_)
    else:
        s.track_off[k] += 1

cdef int lowest_visible_vp(const DataC* d, const StateC* s) noexcept nogil:
    """Smallest VP number visible on the citizen tracks; a full row shows none (R93 step 4, A29)."""
    cdef int k, best = -1, v
    cdef uint32_t free_
    for k in range(NCLASS):
        free_ = <uint32_t>track_free_mask(d, s, k)
        if free_:
            v = d.track_vp[k * MAX_TRACK + ctz32(free_)]
            if best < 0 or v < best:
                best = v
    return best if best >= 0 else 0

cdef inline int street_run(const DataC* d, const StateC* s, int sp) noexcept nogil:
    """Unbroken run of Street tiles (any owner) along the street of space sp, containing sp (R53)."""
    cdef int st = d.space_street[sp], pos = d.space_pos[sp], n = 1, q
    q = pos - 1
    while q >= 0 and s.street_owner[d.street_space[st * 4 + q]] >= 0:
        n += 1
        q -= 1
    q = pos + 1
    while q < 4 and s.street_owner[d.street_space[st * 4 + q]] >= 0:
        n += 1
        q += 1
    return n

cdef inline int street_rate(const DataC* d, int sp) noexcept nogil:
    return d.run_vp_wide if d.space_wide[sp] else d.run_vp_narrow

cdef inline bint apply_simple_effect(const DataC* d, StateC* s, int p, int code, int amt, int src) noexcept nogil:
    """Resources, VP or Cerdà steps; False for a code that is not one of these."""
    if code == E_COIN:
        gain(d, s, p, amt, 0)
    elif code == E_CLOTH:
        gain(d, s, p, 0, amt)
    elif code == E_VP:
        add_vp(s, p, amt, src)
    elif code == E_CERDA:
        move_cerda(d, s, p, amt)
    else:
        return False
    return True

cdef void apply_simple_list(const DataC* d, StateC* s, int p, int lst, int src) noexcept nogil:
    """Effects printed on street spaces, Intersection slots and action tiles: resources, VP, Cerdà steps
    (the data file allows nothing else there)."""
    cdef int i
    for i in range(d.eff_n[lst]):
        apply_simple_effect(d, s, p, d.eff_code[lst * MAX_EFF + i], d.eff_amt[lst * MAX_EFF + i], src)


# ============================================================================================================
# 2. scoring conditions (Appendix; rules-inventory §1.12)
# ============================================================================================================

cdef int longest_own_line(const DataC* d, const StateC* s, int p, int want_wide, int last_street) noexcept nogil:
    cdef int st, q, run, best = 0, sp
    for st in range(last_street + 1):
        run = 0
        for q in range(4):
            sp = d.street_space[st * 4 + q]
            if s.street_owner[sp] == p and d.space_wide[sp] == want_wide:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
    return best

cdef int built_neighbours(const DataC* d, const StateC* s, const int8_t* lst, int n) noexcept nogil:
    cdef int i, cnt = 0
    for i in range(n):
        if s.bld_level[lst[i]] > 0:
            cnt += 1
    return cnt

cdef int condition_count(const DataC* d, const StateC* s, int cond, int p) noexcept nogil:
    """How many times player p fulfils condition `cond` (an index into the data file's conditions)."""
    cdef const PlayerC* pl = &s.pl[p]
    cdef int kind = d.cond_kind[cond], i, k, n = 0, run, best
    cdef int present[16]
    if kind == C_BLOCK_LINE:               # SC01, A28: any of your markers anywhere in the block's stacks
        memset(present, 0, sizeof(present))
        for i in range(NBSPACE):
            for k in range(s.bld_n[i]):
                if s.bld_mark[i * 3 + k] == p:
                    present[d.bs_block[i]] = 1
        best = 0
        for i in range(4):
            run = 0
            for k in range(4):                 # block row i
                run = run + 1 if present[i * 4 + k] else 0
                best = imax(best, run)
            run = 0
            for k in range(4):                 # block column i
                run = run + 1 if present[k * 4 + i] else 0
                best = imax(best, run)
        return best
    if kind == C_CLOTH_5:                  # SC02/SC03: "up to N" (cap from the data file), A40
        return imin(pl.cloth, d.cond_cap[cond])
    if kind == C_COIN_5:
        return imin(pl.coins, d.cond_cap[cond])
    if kind == C_NARROW_LINE:              # SC04, A15: own tiles, vertical or horizontal streets
        return longest_own_line(d, s, p, 0, 9)
    if kind == C_WIDE_LINE:                # SC07: the diagonal counts too
        return longest_own_line(d, s, p, 1, 10)
    if kind == C_INTERSECTION_ADJ3:        # SC05, A26: distinct building spaces touching the crossing
        for i in range(NCROSS):
            if s.cross_int[i] == p and built_neighbours(d, s, &d.cross_bs[i * 6], d.cross_nbs[i]) >= 3:
                n += 1
        return n
    if kind == C_CERDA_MULT:
        return multiplier(d, pl)
    if kind == C_PUBLIC_SERVICES:
        return popcount32(pl.ps_built)
    if kind == C_NARROW_TILES:
        return pl.narrow
    if kind == C_PASSENGER_ADJ2:           # SC10, A26
        for i in range(NSPACE):
            if s.passenger[i] == p and built_neighbours(d, s, &d.space_bs[i * 2], d.space_nbs[i]) >= 2:
                n += 1
        return n
    if kind == C_WIDE_TILES:
        return pl.wide
    if kind == C_MOD_TOP:
        for i in range(NPROJ):
            n += pl.mod_up[i]
        return n
    if kind == C_PASSENGERS:
        return pl.passengers
    if kind == C_COBBLESTONES:
        return pl.cobbles
    if kind == C_INTERSECTIONS:
        return pl.inters
    if kind == C_EMPTY_MARKER_STACKS:
        for i in range(NMSTACKS):
            if pl.markers >= d.marker_empty_at[i]:
                n += 1
        return n
    if kind == C_CORNER_BLOCKS:            # SC17, A28: corners carrying your marker, one per block
        memset(present, 0, sizeof(present))
        for i in range(NBSPACE):
            if d.bs_corner[i] and s.bld_n[i] > 0 and s.bld_mark[i * 3] == p:
                present[d.bs_block[i]] = 1
        for i in range(16):
            n += present[i]
        return n
    if kind == C_MOD_TILES:
        for i in range(NPROJ):
            if pl.mod_tile[i] >= 0:
                n += 1
        return n
    if kind == C_BOTTOM_MARKERS:           # SC19, A25: bottom of the stack on a non-Corner building
        for i in range(NBSPACE):
            if not d.bs_corner[i] and s.bld_n[i] > 0 and s.bld_mark[i * 3] == p:
                n += 1
        return n
    return 0


# ============================================================================================================
# 3. legal choices of each decision
# ============================================================================================================
# Every generator writes the legal ids of one decision in ascending order (but gen_actions, which joins up to
# three streets' lists, and gen_tram with lim 1) and stops once `lim` are listed: the legal list asks for them
# all (ALL), settle() only whether a decision exists (lim 1), so it never builds a whole list that the caller
# would build again.

cdef enum:
    ALL = MAX_LEGAL          # lim of a generator: list every legal id

cdef uint64_t tram_reach(const DataC* d, const StateC* s, int p, int start) noexcept nogil:
    """The spaces the Tram of player p on space `start` can move to (A16): each step enters a space at the far
    end of the current one, never a space twice, never back onto the start; spaces under p's own Street tiles
    are free, at most 2 counted. Found as the cheapest walks (costs 0 and 1, cut at 2) over (space, the crossing
    it is left by) states, never turning back into the space just left: a cheapest walk that enters a space
    twice can be cut short into one that does not, so walks and such paths reach the same spaces. Each state is
    expanded at most once per cost, where a search of every path takes exponential time over long runs of own
    tiles."""
    cdef int8_t best[NSPACE * 2]             # state 2*space + e: left by space_b if e else space_a
    cdef int16_t todo[NSPACE * 2]            # states of cost c still to expand
    cdef int16_t later[NSPACE * 2]           # states first reached at cost c + 1
    cdef int n, m, c, st, sp, end, i, nsp, nst, nc
    cdef uint64_t reach = 0
    memset(best, 3, sizeof(best))
    best[start * 2] = 0
    best[start * 2 + 1] = 0
    todo[0] = start * 2
    todo[1] = start * 2 + 1
    n = 2
    for c in range(3):
        m = 0
        while n > 0:
            n -= 1
            st = todo[n]
            if best[st] != c:                # reached again more cheaply: expanded at that cost
                continue
            sp = st >> 1
            end = d.space_b[sp] if st & 1 else d.space_a[sp]
            for i in range(d.cross_nspaces[end]):
                nsp = d.cross_spaces[end * 6 + i]
                if nsp == sp or nsp == start:
                    continue
                nc = c + (0 if s.street_owner[nsp] == p else 1)
                if nc > 2:
                    continue
                reach |= <uint64_t>1 << nsp
                nst = nsp * 2 + (1 if d.space_a[nsp] == end else 0)      # leave it by its far end
                if nc < best[nst]:
                    best[nst] = nc
                    if nc == c:
                        todo[n] = nst
                        n += 1
                    else:
                        later[m] = nst
                        m += 1
        memcpy(todo, later, m * sizeof(int16_t))
        n = m
    return reach

cdef inline bint tram_at(const StateC* s, int sp) noexcept nogil:
    cdef int q
    for q in range(s.num_players):
        if s.pl[q].tram == sp:
            return True
    return False

cdef int tram_step_free(const DataC* d, const StateC* s, int start) noexcept nogil:
    """A space one step from `start` without a Tram (a move for any mover: one counted space at most, A16,
    R82), or -1."""
    cdef int e, end, i, nsp
    for e in range(2):
        end = d.space_b[start] if e else d.space_a[start]
        for i in range(d.cross_nspaces[end]):
            nsp = d.cross_spaces[end * 6 + i]
            if nsp != start and not tram_at(s, nsp):
                return nsp
    return -1

cdef int gen_tram(const DataC* d, const StateC* s, int p, action_t* out, int lim) noexcept nogil:
    """The Tram's moves (R81, R82, A16); with lim 1 (settle(): can it move at all?) a move one step away, if
    any, without the full search."""
    cdef int n = 0, sp
    cdef uint64_t reach
    cdef int start = s.pl[p].tram
    if start < 0:          # first time: any space without Tram and without Passenger (R81)
        for sp in range(NSPACE):
            if not tram_at(s, sp) and s.passenger[sp] < 0:
                out[n] = A_TRAM + sp
                n += 1
                if n >= lim:
                    return n
        return n
    if lim == 1:
        sp = tram_step_free(d, s, start)
        if sp >= 0:
            out[0] = A_TRAM + sp
            return 1
    reach = tram_reach(d, s, p, start)
    for sp in range(NSPACE):
        if (reach >> sp) & 1 and not tram_at(s, sp):     # may pass Trams, may not end on one (R82)
            out[n] = A_TRAM + sp
            n += 1
            if n >= lim:
                return n
    return n

cdef inline int ps_tiles_per_stack(const DataC* d, const StateC* s) noexcept nogil:
    return d.ps_tiles_2p if s.num_players == 2 else 3

cdef inline int ps_top_index(const DataC* d, const StateC* s, int t) noexcept nogil:
    """Index into the 3/2/1 stack of the top tile of Public Service type t (R17, R76)."""
    return ps_tiles_per_stack(d, s) - s.ps_left[t]

cdef int gen_grant(const DataC* d, const StateC* s, int p, int gk, action_t* out, int lim) noexcept nogil:
    """First choices of an action of kind gk for player p; an empty list means it cannot be taken (R35)."""
    cdef const PlayerC* pl = &s.pl[p]
    cdef int n = 0, i, k, cost0, t
    cdef bint free_
    if gk == GK_COINS:
        out[0] = A_GAIN_COINS
        return 1
    if gk == GK_CLOTH:
        out[0] = A_GAIN_CLOTH
        return 1
    if gk == GK_CERDA:
        out[0] = A_CERDA
        return 1
    if gk == GK_COBBLE or gk == GK_COBBLE_ANYWHERE:
        if pl.cobbles >= NCOBBLE:                                       # R48
            return 0
        for i in range(NSIDE):
            if (s.sidewalk >> i) & 1:
                continue
            if gk == GK_COBBLE_ANYWHERE or (d.side_adj[i] & s.sidewalk):   # R46, PS5
                out[n] = A_COBBLE + i
                n += 1
                if n >= lim:
                    return n
        return n
    if gk == GK_WIDE or gk == GK_NARROW or gk == GK_STREETS:
        for i in range(NSPACE):
            if s.street_owner[i] >= 0:
                continue
            if d.space_wide[i]:
                if gk != GK_NARROW and pl.wide < d.wide_total:
                    out[n] = A_STREET + i
                    n += 1
            elif gk != GK_WIDE and pl.narrow < d.narrow_total:
                out[n] = A_STREET + i
                n += 1
            if n >= lim:
                return n
        return n
    if gk == GK_INTERSECTION or gk == GK_INTERSECTION_FREE:
        if pl.inters >= NINTER:
            return 0
        free_ = gk == GK_INTERSECTION_FREE                        # PS3: every coin cost ignored
        cost0 = 0 if free_ else d.inter_cost[pl.inters]
        for i in range(NCROSS):
            if s.cross_int[i] >= 0:
                continue
            if cost0 + (0 if free_ else d.cross_cost[i]) <= pl.coins:   # R57, R58
                out[n] = A_INTERSECTION + i
                n += 1
                if n >= lim:
                    return n
        return n
    if gk == GK_MOD_IMPROVE or gk == GK_MOD_IMPROVE_FREE:
        for k in range(NPROJ):
            if not pl.mod_up[k] and (gk == GK_MOD_IMPROVE_FREE or pl.cloth >= d.mod_raise[k]):   # R66, R67
                out[n] = A_MOD_IMPROVE + k
                n += 1
                if n >= lim:
                    return n
        return n
    if gk == GK_MOD_TAKE or gk == GK_MOD_TAKE_FREE:
        for t in range(NMOD):
            if not (s.mod_display >> t) & 1:
                continue
            for k in range(NPROJ):
                if pl.mod_tile[k] < 0 and (gk == GK_MOD_TAKE_FREE or pl.cloth >= d.mod_take[k]):   # R71, R72
                    out[n] = A_MOD_TAKE + t * 5 + k
                    n += 1
                    if n >= lim:
                        return n
        return n
    if gk == GK_PS:
        for t in range(NPS):
            if s.ps_left[t] > 0 and not (pl.ps_built >> t) & 1 \
                    and pl.coins >= d.ps_cost[ps_top_index(d, s, t)]:    # R76, R79
                out[n] = A_PS + t
                n += 1
                if n >= lim:
                    return n
        return n
    if gk == GK_TRAM or gk == GK_TRAM_COIN_FREE:
        return gen_tram(d, s, p, out, lim)
    return 0

cdef inline bint can_place_passenger(const DataC* d, const StateC* s, int p, int sp, int coin_free) noexcept nogil:
    cdef const PlayerC* pl = &s.pl[p]
    cdef int k = pl.passengers
    if k >= NPASS or s.passenger[sp] >= 0:                            # R83, A17
        return False
    return pl.cloth >= d.pass_cloth[k] and (coin_free or pl.coins >= d.pass_coins[k])   # PS2, A20

cdef int gen_place(const DataC* d, const StateC* s, action_t* out, int lim) noexcept nogil:
    """Place the hand on an empty crossing, paying its printed cost unless an Intersection covers it (R37-R40)."""
    cdef const PlayerC* pl = &s.pl[s.cur]
    cdef int n = 0, c, t, size = hand_size(pl), cost
    if size == 0:
        return 0
    for c in range(NCROSS):
        if s.cross_lo[c] >= 0:
            continue
        cost = 0 if s.cross_int[c] >= 0 else d.cross_cost[c]
        if cost > pl.coins:
            continue
        for t in range(NCLASS):
            if pl.hand[t] > 0:
                out[n] = A_PLACE + c * 3 + t
                n += 1
        if n >= lim:
            return n
    return n

cdef int gen_actions(const DataC* d, const StateC* s, action_t* out, int lim) noexcept nogil:
    """Step 1 actions: the vertical, horizontal and (on the diagonal) diagonal street's action, each once (R39).
    The streets' lists one after the other: not in ascending order (state_legal_actions sorts them)."""
    cdef int c = s.place_crossing, n = 0, i
    cdef int col = c % 5, row = c // 5
    for i in range(3):
        if (s.streets_used >> i) & 1:
            continue
        if i == 0:
            n += gen_grant(d, s, s.cur, s.street_action[col], out + n, lim - n)
        elif i == 1:
            n += gen_grant(d, s, s.cur, s.street_action[5 + row], out + n, lim - n)
        elif col == row:
            n += gen_grant(d, s, s.cur, s.street_action[10], out + n, lim - n)
        if n >= lim:
            return n
    return n

cdef inline bint space_takes(const StateC* s, int bs, int ty) noexcept nogil:
    """Whether a building of type ty may go on space bs now: a tile left, and the space empty (Corner, Level 1)
    or below that Level (Level 2 on empty or Level 1, Level 3 on empty, 1 or 2); never on a Corner (R101, R103)."""
    cdef int lvl = s.bld_level[bs]
    if s.bld_stack[ty] <= 0:
        return False
    if ty == 0 or ty == 1:
        return lvl == 0
    return lvl < ty

cdef int gen_build(const DataC* d, const StateC* s, action_t* out, int lim) noexcept nogil:
    """Construction options (R90-R103): a free or overbuildable space, a tile left, and the required citizens on
    top of distinct crossings around the space (R92, A5). Options are (space, type, crossings) in ascending id,
    grouped by space; a space with fewer occupied crossings than any building needs is passed over at once, and
    an option's crossings are checked on the space's masks (BuildMasksC)."""
    cdef int n = 0, o, bs, ty, occ, used
    for bs in range(NBSPACE):
        occ = s.masks.occ[bs]
        if popcount4(occ) < d.bld_min_need:
            continue
        for o in range(d.bs_opt_first[bs], d.bs_opt_first[bs + 1]):
            used = d.opt_mask[o]
            if used & ~occ:                                       # a crossing without a citizen
                continue
            ty = d.opt_type[o]
            if not space_takes(s, bs, ty):
                continue
            if popcount4(used & s.masks.up[bs]) >= d.bld_up[ty] \
                    and popcount4(used & s.masks.mid[bs]) >= d.bld_mid[ty]:
                out[n] = A_BUILD + o
                n += 1
                if n >= lim:
                    return n
    return n

cdef int gen_frame(const DataC* d, const StateC* s, const FrameC* f, action_t* out, int lim) noexcept nogil:
    """Decisions of the frame on top of the stack (0 = the frame needs no decision and is dropped)."""
    cdef int n = 0, i, p = f.player
    cdef const PlayerC* pl = &s.pl[p]
    if f.kind == FR_GRANT:
        n = gen_grant(d, s, p, f.a, out, lim)
        if 0 < n < lim:
            out[n] = A_SKIP
            n += 1
        return n
    if f.kind == FR_NARROW2:
        if pl.narrow >= d.narrow_total:
            return 0
        for i in range(NSPACE):
            if s.street_owner[i] < 0 and not d.space_wide[i]:
                out[n] = A_STREET + i
                n += 1
                if n >= lim:
                    return n
        return n
    if f.kind == FR_PASSENGER:
        if not can_place_passenger(d, s, p, f.a, f.b):
            return 0
        out[0] = A_PASSENGER
        out[1] = A_SKIP
        return 2
    if f.kind == FR_SAGRADA:
        if f.a <= 0 or pl.sagrada >= d.sag_spaces - 1:           # steps past the end are lost (A36)
            return 0
        out[0] = A_SAG_STEP
        out[1] = A_SAG_STOP
        return 2
    if f.kind == FR_SAG_TILE:
        for i in range(NSAG):
            if (s.sag_offer >> i) & 1 and d.sag_level[i] == f.a:
                out[n] = A_SAG_TILE + i
                n += 1
        return n
    if f.kind == FR_RES:
        for i in range(f.a + 1):
            out[i] = A_RES + i
        return f.a + 1
    if f.kind == FR_INT_PICK:
        if f.a <= 0:
            return 0
        for i in range(s.pl[p].inters):
            if not (f.b >> i) & 1:
                out[n] = A_INT_PICK + i
                n += 1
        if n > 0:
            out[n] = A_INT_DONE
            n += 1
        return n
    return 0


# ============================================================================================================
# 4. applying choices
# ============================================================================================================

cdef void place_street(const DataC* d, StateC* s, int p, int sp) noexcept nogil:
    """Covered benefit, then run VP, then the Cerdà bonus of an emptied stack (R52-R55, A44)."""
    cdef PlayerC* pl = &s.pl[p]
    cdef int i
    s.street_owner[sp] = p
    apply_simple_list(d, s, p, d.space_list[sp], SRC_STREETS)
    add_vp(s, p, street_rate(d, sp) * street_run(d, s, sp), SRC_STREETS)
    if d.space_wide[sp]:
        pl.wide += 1
        for i in range(3):
            if d.wide_empty_at[i] == pl.wide:
                move_cerda(d, s, p, d.wide_empty_cerda[i])
    else:
        pl.narrow += 1
        for i in range(3):
            if d.narrow_empty_at[i] == pl.narrow:
                move_cerda(d, s, p, d.narrow_empty_cerda[i])

cdef void apply_grant(const DataC* d, StateC* s, int p, int gk, action_t a) noexcept nogil:
    """Start an action of kind gk with its first choice a (already known to be legal)."""
    cdef PlayerC* pl = &s.pl[p]
    cdef int x, t, k, i, sp, idx
    if a == A_GAIN_COINS or a == A_GAIN_CLOTH or a == A_CERDA:
        push_frame(s, FR_EFFECTS, p, 0, 0, SRC_ACTIONS, d.action_list[a - A_GAIN_COINS])
    elif a < A_STREET:                                            # A_COBBLE
        x = a - A_COBBLE
        pl.cobbles += 1                                           # the leftmost one (R46)
        s.sidewalk |= <uint32_t>1 << x
        push_frame(s, FR_EFFECTS, p, 0, 0, SRC_SIDEWALK, d.side_list[x])
    elif a < A_INTERSECTION:
        sp = a - A_STREET
        place_street(d, s, p, sp)
        if not d.space_wide[sp]:
            push_frame(s, FR_NARROW2, p, 0, 0, 0, 0)              # the second Narrow tile (R50, A14)
    elif a < A_MOD_IMPROVE:
        x = a - A_INTERSECTION
        if gk != GK_INTERSECTION_FREE:
            pl.coins -= d.inter_cost[pl.inters] + d.cross_cost[x]   # R57, R58
        s.cross_int[x] = p
        pl.inters += 1
        for i in range(d.cross_nspaces[x]):                      # uncovered adjacent benefits (R60)
            sp = d.cross_spaces[x * 6 + i]
            if s.street_owner[sp] < 0:
                apply_simple_list(d, s, p, d.space_list[sp], SRC_INTERSECTIONS)
    elif a < A_MOD_TAKE:
        k = a - A_MOD_IMPROVE
        if gk != GK_MOD_IMPROVE_FREE:
            pl.cloth -= d.mod_raise[k]
        pl.mod_up[k] = 1
    elif a < A_PS:
        x = a - A_MOD_TAKE
        t = x // 5
        k = x % 5
        if gk != GK_MOD_TAKE_FREE:
            pl.cloth -= d.mod_take[k]
        s.mod_display &= ~(<uint32_t>1 << t)
        pl.mod_tile[k] = t
        s.reveal_pending += 1                                     # refill the display (R73)
    elif a < A_TRAM:
        t = a - A_PS
        idx = ps_top_index(d, s, t)
        pl.coins -= d.ps_cost[idx]                                # pay, VP, +2 Cerdà, main benefit (R77, A44)
        s.ps_left[t] -= 1
        pl.ps_built |= <int16_t>(1 << t)
        add_vp(s, p, d.ps_vp[idx], SRC_PUBLIC_SERVICES)
        push_frame(s, FR_EFFECTS, p, 0, 0, SRC_PUBLIC_SERVICES, d.ps_list[t])
    else:                                                         # A_TRAM
        sp = a - A_TRAM
        pl.tram = sp
        push_frame(s, FR_PASSENGER, p, sp, 1 if gk == GK_TRAM_COIN_FREE else 0, 0, 0)

cdef int grant_kind_of(const DataC* d, action_t a) noexcept nogil:
    """The action tile whose first choice is a (used in the actions step)."""
    if a == A_GAIN_COINS:
        return GK_COINS
    if a == A_GAIN_CLOTH:
        return GK_CLOTH
    if a == A_CERDA:
        return GK_CERDA
    if a < A_STREET:
        return GK_COBBLE
    if a < A_INTERSECTION:
        return GK_WIDE if d.space_wide[a - A_STREET] else GK_NARROW
    if a < A_MOD_IMPROVE:
        return GK_INTERSECTION
    if a < A_MOD_TAKE:
        return GK_MOD_IMPROVE
    if a < A_PS:
        return GK_MOD_TAKE
    if a < A_TRAM:
        return GK_PS
    return GK_TRAM

cdef void apply_action_step(const DataC* d, StateC* s, action_t a) noexcept nogil:
    cdef int gk, c = s.place_crossing, i, st
    if a == A_END_ACTIONS:
        s.phase = PH_BUILD
        return
    gk = grant_kind_of(d, a)
    for i in range(3):                                            # which street of this crossing it belongs to
        if (s.streets_used >> i) & 1:
            continue
        st = c % 5 if i == 0 else (5 + c // 5 if i == 1 else 10)
        if i == 2 and c % 5 != c // 5:
            continue
        if s.street_action[st] == gk:
            s.streets_used |= <int16_t>(1 << i)
            break
    apply_grant(d, s, s.cur, gk, a)

cdef void apply_place(const DataC* d, StateC* s, action_t a) noexcept nogil:
    cdef int x = a - A_PLACE, c = x // 3, t = x % 3, o
    cdef PlayerC* pl = &s.pl[s.cur]
    if s.cross_int[c] < 0:
        pl.coins -= d.cross_cost[c]                               # paid first (R38); waived by an Intersection (R40)
    pl.hand[t] -= 1
    if hand_size(pl) > 0:                                         # two citizens: t on top (R37)
        for o in range(NCLASS):
            if pl.hand[o] > 0:
                break
        pl.hand[o] -= 1
        s.cross_lo[c] = o
        s.cross_hi[c] = t
    else:                                                         # a single citizen (A2)
        s.cross_lo[c] = t
    refresh_crossing_masks(d, s, c)
    s.activity = 1
    s.place_crossing = c
    s.streets_used = 0
    s.phase = PH_ACTIONS
    o = s.cross_int[c]
    if o >= 0:                                           # the owner's benefits, own Intersection too (R62, A21)
        push_frame(s, FR_INT_PICK, o, d.inter_picks[s.pl[o].inters - 1], 0, SRC_INTERSECTIONS, 0)

cdef void apply_build(const DataC* d, StateC* s, action_t a) noexcept nogil:
    """R93 steps 1-5; the tile's effects and the marker (step 6) run as an effect list."""
    cdef int o = a - A_BUILD, bs = d.opt_space[o], ty = d.opt_type[o], i, p = s.cur, c
    s.bld_stack[ty] -= 1
    s.bld_level[bs] = 4 if ty == 0 else ty
    if not (s.bonus_rows >> d.bs_row[bs]) & 1:                   # step 2, A27
        s.bonus_rows |= <int16_t>(1 << d.bs_row[bs])
        add_vp(s, p, d.bonus_vp, SRC_BUILDINGS)
    for i in range(d.bs_ncross[bs]):                              # step 3: the top citizens used
        if (d.opt_mask[o] >> i) & 1:
            c = d.bs_cross[bs * 4 + i]
            citizen_to_track(d, s, take_top_citizen(s, c))
            refresh_crossing_masks(d, s, c)
    add_vp(s, p, lowest_visible_vp(d, s), SRC_BUILDINGS)          # step 4, after covering (R93)
    s.activity = 1
    s.phase = PH_END
    push_frame(s, FR_EFFECTS, p, 0, bs, SRC_BUILDINGS, d.bld_list[ty])

cdef void place_marker(const DataC* d, StateC* s, int p, int bs) noexcept nogil:
    """Step 6: the leftmost marker goes on top of the stack (R102); none left -> unmarked (R94, A25)."""
    cdef PlayerC* pl = &s.pl[p]
    cdef int i
    if pl.markers >= NMARKERS:
        return
    s.bld_mark[bs * 3 + s.bld_n[bs]] = p
    s.bld_n[bs] += 1
    pl.markers += 1
    for i in range(NMSTACKS):
        if d.marker_empty_at[i] == pl.markers:
            move_cerda(d, s, p, d.marker_empty_cerda)

cdef int blocks_with_marker(const StateC* s, const DataC* d, int p) noexcept nogil:
    cdef int present[16]
    cdef int i, k, n = 0
    memset(present, 0, sizeof(present))
    for i in range(NBSPACE):
        for k in range(s.bld_n[i]):
            if s.bld_mark[i * 3 + k] == p:
                present[d.bs_block[i]] = 1
    for i in range(16):
        n += present[i]
    return n

cdef void run_effects(const DataC* d, StateC* s) noexcept nogil:
    """Resume the effect list on top of the stack; stop when a nested decision is pushed (A18, A44)."""
    cdef FrameC* f = &s.frames[s.nframes - 1]
    cdef int p = f.player, lst = f.lst, code, amt, src = f.src, bs = f.b
    while f.a < d.eff_n[lst]:
        code = d.eff_code[lst * MAX_EFF + f.a]
        amt = d.eff_amt[lst * MAX_EFF + f.a]
        f.a += 1
        if apply_simple_effect(d, s, p, code, amt, src):
            pass
        elif code == E_CLOTH_PER_BLOCK:                           # PS1, A35
            gain(d, s, p, 0, blocks_with_marker(s, d, p))
        elif code == E_MARKER:
            place_marker(d, s, p, bs)
        elif code == E_RES:
            push_frame(s, FR_RES, p, amt, 0, src, 0)
            return
        elif code == E_SAGRADA:
            push_frame(s, FR_SAGRADA, p, amt, 0, src, 0)
            return
        elif code == E_ACT:
            push_frame(s, FR_GRANT, p, amt, 0, src, 0)
            return
        if s.discard_player >= 0:                                 # an overflow is resolved at once
            return
    pop_frame(s)

cdef void apply_frame(const DataC* d, StateC* s, action_t a) noexcept nogil:
    cdef FrameC* f = &s.frames[s.nframes - 1]
    cdef int p = f.player, kind = f.kind, fa = f.a, fb = f.b, i, from_, sp
    cdef PlayerC* pl = &s.pl[p]
    if kind == FR_GRANT:
        pop_frame(s)
        if a != A_SKIP:
            apply_grant(d, s, p, fa, a)
    elif kind == FR_NARROW2:
        pop_frame(s)
        place_street(d, s, p, a - A_STREET)
    elif kind == FR_PASSENGER:
        pop_frame(s)
        if a == A_PASSENGER:
            sp = fa
            i = pl.passengers
            pl.cloth -= d.pass_cloth[i]
            if not fb:
                pl.coins -= d.pass_coins[i]
            pl.passengers += 1
            s.passenger[sp] = p
            if s.street_owner[sp] >= 0:                           # the tile scores again for its owner (R85, A47)
                add_vp(s, s.street_owner[sp], street_rate(d, sp) * street_run(d, s, sp), SRC_STREETS)
            push_frame(s, FR_GRANT, p, s.street_action[d.space_street[sp]], 0, SRC_ACTIONS, 0)   # R84, A18
    elif kind == FR_SAGRADA:
        if a == A_SAG_STOP:
            pop_frame(s)
        else:
            f.a -= 1
            from_ = pl.sagrada
            pl.sagrada += 1
            for i in range(3):                                    # passing a tile slot (R119)
                if d.sag_slot_after[i] == from_:
                    push_frame(s, FR_SAG_TILE, p, d.sag_slot_level[i], i, SRC_SAGRADA, 0)
    elif kind == FR_SAG_TILE:
        pop_frame(s)
        i = a - A_SAG_TILE
        s.sag_offer &= ~(<uint32_t>1 << i)
        pl.sag_tile[fb] = i
        push_frame(s, FR_EFFECTS, p, 0, 0, SRC_SAGRADA, d.sag_list[i])
    elif kind == FR_RES:
        pop_frame(s)
        i = a - A_RES
        gain(d, s, p, i, fa - i)
    elif kind == FR_INT_PICK:
        if a == A_INT_DONE:
            pop_frame(s)
        else:
            i = a - A_INT_PICK
            f.a -= 1
            f.b |= <int8_t>(1 << i)
            apply_simple_list(d, s, p, d.inter_list[i], SRC_INTERSECTIONS)


# ============================================================================================================
# 5. end of turn: Cerdà scorings, refresh, draws, game end
# ============================================================================================================

cdef inline void mod_restock(StateC* s) noexcept nogil:
    """R73, R111: "If at any point the Modernisme tiles stack would become empty, reshuffle the discarded tiles
    to create a new stack." 'At any point': the stack is never left empty while discards wait. The moment the
    last face-down tile is revealed (or tiles are discarded onto an empty stack), the discards *of that moment*
    become the new stack, not those of some later reveal (waiting for the next reveal would let a Cerdà
    refresh reveal the very tiles it had just discarded, with a stack it should be drawing from).
    In a refresh the rulebook's order holds: "discard all the Modernisme tiles on display, then reveal four new
    tiles" (R111), so when the stack runs out during those four reveals the tiles just discarded are among the
    discards reshuffled: they can come back only when fewer than 4 tiles were face down at the refresh (with
    none face down and no discards, they are the only tiles left and all four come back). Invariant (see
    tests/invariants.py): mod_stack == 0 implies mod_discard == 0; both empty is A32 (a short display). The stack is
    a set whose order is drawn at the reveal chance nodes, so moving the set is the shuffle; its content stays
    public by deduction, the discards face up (A6)."""
    if s.mod_stack == 0:
        s.mod_stack = s.mod_discard
        s.mod_discard = 0

cdef int section_vp(const DataC* d, const StateC* s, int sec, int p) noexcept nogil:
    """What section `sec`'s Cerdà Scoring tile gives player p now: its VP x the count x p's multiplier (R107,
    R108). score_section and the learned evaluation's features read it."""
    cdef int cond = s.cerda_tile[sec]
    return d.cond_vp[cond] * condition_count(d, s, cond, p) * multiplier(d, &s.pl[p])

cdef int cobble_end_vp(const DataC* d, const PlayerC* pl) noexcept nogil:
    """The Cobblestone VP of the final scoring, as things stand (R124)."""
    return d.cobble_vp[pl.cobbles - 1] if pl.cobbles > 0 else 0

cdef int passenger_end_vp(const DataC* d, const PlayerC* pl) noexcept nogil:
    """The Passenger VP of the final scoring, as things stand (R124)."""
    return d.pass_vp[pl.passengers - 1] if pl.passengers > 0 else 0

cdef int modernisme_end_vp(const DataC* d, const StateC* s, int p) noexcept nogil:
    """The final scoring's Modernisme VP, as things stand: each tile's VP x its count x its marker's multiplier
    (R124)."""
    cdef const PlayerC* pl = &s.pl[p]
    cdef int k, t, vp = 0
    for k in range(NPROJ):
        t = pl.mod_tile[k]
        if t >= 0:
            vp += d.cond_vp[d.mod_cond[t]] * condition_count(d, s, d.mod_cond[t], p) * \
                (d.mod_top[k] if pl.mod_up[k] else d.mod_bottom[k])
    return vp

cdef void score_section(const DataC* d, StateC* s, int sec) noexcept nogil:
    """All players score the section's tile times their multiplier (R107-R110)."""
    cdef int p
    for p in range(s.num_players):
        add_vp(s, p, section_vp(d, s, sec, p), SRC_CERDA_SCORING)
    s.scored |= <int16_t>(1 << sec)
    s.scorings += 1
    if (d.cerda_reset_mask >> (s.scorings - 1)) & 1:              # R110, A12: only markers above the start
        for p in range(s.num_players):
            if s.pl[p].cerda > d.cerda_start:
                s.pl[p].cerda = d.cerda_start
    s.refresh_pending += 1                                        # R111
    if sec == 2:
        s.end_triggered = 1                                       # R122

cdef void end_of_turn_scoring(const DataC* d, StateC* s) noexcept nogil:
    """One check per turn, after construction (A8); sections in order (A9); scored sections never again (A10)."""
    cdef int sec, k
    for sec in range(3):
        if (s.scored >> sec) & 1:
            continue
        for k in range(NCLASS):
            if (s.track[k] >> d.track_mark[k * 3 + sec]) & 1:
                score_section(d, s, sec)
                break

cdef void final_scoring(const DataC* d, StateC* s) noexcept nogil:
    """R124: cobblestones, passengers, each Modernisme tile x its marker's multiplier."""
    cdef int p
    for p in range(s.num_players):
        add_vp(s, p, cobble_end_vp(d, &s.pl[p]), SRC_FINAL_COBBLESTONES)
        add_vp(s, p, passenger_end_vp(d, &s.pl[p]), SRC_FINAL_PASSENGERS)
        add_vp(s, p, modernisme_end_vp(d, s, p), SRC_FINAL_MODERNISME)
    s.phase = PH_OVER

cdef void next_turn(const DataC* d, StateC* s) noexcept nogil:
    s.pl[s.cur].turns += 1
    if s.cur == s.num_players - 1:
        # Equal turns (R123, A41). A round in which nobody placed, built or drew cannot change anything,
        # so the game would never end: it ends now (engine safety rule extending A2).
        if s.end_triggered or not s.activity:
            final_scoring(d, s)
            return
        s.activity = 0
    s.cur = (s.cur + 1) % s.num_players
    s.phase = PH_PLACE
    s.place_crossing = -1
    s.streets_used = 0

cdef void settle(const DataC* d, StateC* s) noexcept nogil:
    """Run everything that needs no decision, until a decision, a chance node or the end. Whether a decision
    exists is asked with lim 1: the generators stop at the first legal id (the caller lists them all once)."""
    cdef action_t buf[MAX_LEGAL]
    cdef PlayerC* pl
    cdef int over, kind
    while True:
        if s.phase == PH_OVER:
            return
        if s.discard_player >= 0:                                 # Warehouse overflow (R43, A39)
            pl = &s.pl[s.discard_player]
            over = pl.coins + pl.cloth - capacity(d, pl)
            if over <= 0:
                s.discard_player = -1
            elif pl.coins == 0:
                pl.cloth -= over
            elif pl.cloth == 0:
                pl.coins -= over
            else:
                return
            continue
        if s.reveal_pending > 0:                                  # refill the display (R73, A32)
            if popcount32(s.mod_display) >= d.display_size:
                s.reveal_pending = 0
                continue
            mod_restock(s)                                        # no-op but for a hand-made (set_raw) state
            if s.mod_stack == 0:                                  # stack and discards empty: short display (A32)
                s.reveal_pending = 0
                continue
            return
        if s.nframes > 0:
            kind = s.frames[s.nframes - 1].kind
            if kind == FR_EFFECTS:
                run_effects(d, s)
                continue
            if gen_frame(d, s, &s.frames[s.nframes - 1], buf, 1) == 0:
                pop_frame(s)
                continue
            return
        if s.phase == PH_PLACE:
            if gen_place(d, s, buf, 1) == 0:                      # nothing to place, or nowhere (A1, A2)
                s.phase = PH_BUILD
                continue
            return
        if s.phase == PH_ACTIONS:
            if gen_actions(d, s, buf, 1) == 0:
                s.phase = PH_BUILD
                continue
            return
        if s.phase == PH_BUILD:
            if gen_build(d, s, buf, 1) == 0:
                s.phase = PH_END
                continue
            return
        if s.phase == PH_END:
            end_of_turn_scoring(d, s)
            s.phase = PH_REFRESH
            continue
        if s.phase == PH_REFRESH:
            if s.refresh_pending > 0:                             # discard the display, reveal a new one (R111)
                s.refresh_pending -= 1
                s.mod_discard |= s.mod_display                    # first discard the display...
                s.mod_display = 0
                mod_restock(s)                                    # ...onto an empty stack: it is the stack now
                s.reveal_pending = d.display_size                 # ...then reveal 4 (R111, R73)
                continue
            s.phase = PH_DRAW
            s.draws_left = imax(0, 2 - hand_size(&s.pl[s.cur]))   # refill to 2; a skipped hand stays (A1)
            continue
        if s.phase == PH_DRAW:
            if s.draws_left > 0 and bag_size(s) > 0:
                return
            s.draws_left = 0
            next_turn(d, s)
            continue
        return


# ============================================================================================================
# 6. the C API
# ============================================================================================================

cdef int state_current_player(const DataC* d, const StateC* s) noexcept nogil:
    if s.phase == PH_OVER:
        return TERMINAL
    if s.discard_player >= 0:
        return s.discard_player
    if s.reveal_pending > 0:
        return CHANCE
    if s.nframes > 0:
        return s.frames[s.nframes - 1].player
    if s.phase == PH_DRAW:
        return CHANCE
    return s.cur

cdef int state_chance_outcomes(const DataC* d, const StateC* s, action_t* out, double* prob) noexcept nogil:
    cdef int n = 0, k, total
    if s.phase == PH_OVER or s.discard_player >= 0:
        return 0
    if s.reveal_pending > 0:
        total = popcount32(s.mod_stack)
        for k in range(NMOD):
            if (s.mod_stack >> k) & 1:
                out[n] = A_REVEAL + k
                if prob != NULL:
                    prob[n] = 1.0 / total
                n += 1
        return n
    if s.nframes == 0 and s.phase == PH_DRAW:
        total = bag_size(s)
        for k in range(NCLASS):
            if s.bag[k] > 0:
                out[n] = A_DRAW + k
                if prob != NULL:
                    prob[n] = <double>s.bag[k] / total
                n += 1
    return n

cdef int state_legal_actions(const DataC* d, const StateC* s, action_t* out) noexcept nogil:
    """Ascending ids of the decision (or chance outcomes) at hand."""
    cdef int n, i, j
    cdef action_t tmp
    cdef int cp = state_current_player(d, s)
    if cp == TERMINAL:
        return 0
    if cp == CHANCE:
        return state_chance_outcomes(d, s, out, NULL)
    if s.discard_player >= 0:
        out[0] = A_DISCARD_COIN
        out[1] = A_DISCARD_CLOTH
        return 2
    if s.nframes > 0:
        return gen_frame(d, s, &s.frames[s.nframes - 1], out, ALL)
    if s.phase == PH_PLACE:
        return gen_place(d, s, out, ALL)
    if s.phase == PH_BUILD:
        return gen_build(d, s, out, ALL)
    if s.phase != PH_ACTIONS:
        return 0
    n = gen_actions(d, s, out, ALL)
    out[n] = A_END_ACTIONS
    n += 1
    for i in range(1, n):                                         # insertion sort: up to three ascending lists
        tmp = out[i]
        j = i - 1
        while j >= 0 and out[j] > tmp:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = tmp
    return n

cdef bint state_is_legal(const DataC* d, const StateC* s, action_t a) noexcept nogil:
    cdef action_t buf[MAX_LEGAL]
    cdef int n = state_legal_actions(d, s, buf), i
    for i in range(n):
        if buf[i] == a:
            return True
    return False

cdef void state_apply(const DataC* d, StateC* s, action_t a) noexcept nogil:
    """Apply a legal action (unchecked) and settle."""
    cdef PlayerC* pl
    if a >= A_REVEAL:
        s.mod_stack &= ~(<uint32_t>1 << (a - A_REVEAL))
        s.mod_display |= <uint32_t>1 << (a - A_REVEAL)
        s.reveal_pending -= 1
        mod_restock(s)                                            # the last face-down tile: reshuffle now (R73)
    elif a >= A_DRAW:
        s.bag[a - A_DRAW] -= 1
        s.pl[s.cur].hand[a - A_DRAW] += 1
        s.draws_left -= 1
        s.activity = 1
    elif a == A_DISCARD_COIN or a == A_DISCARD_CLOTH:
        pl = &s.pl[s.discard_player]
        if a == A_DISCARD_COIN:
            pl.coins -= 1
        else:
            pl.cloth -= 1
    elif s.nframes > 0:
        apply_frame(d, s, a)
    elif s.phase == PH_PLACE:
        apply_place(d, s, a)
    elif s.phase == PH_ACTIONS:
        apply_action_step(d, s, a)
    elif s.phase == PH_BUILD:
        apply_build(d, s, a)
    settle(d, s)

cdef action_t state_sample_chance(const DataC* d, const StateC* s, uint64_t* rng) noexcept nogil:
    cdef int k, r
    if s.reveal_pending > 0:
        r = <int>rand_below(rng, popcount32(s.mod_stack))
        for k in range(NMOD):
            if (s.mod_stack >> k) & 1:
                if r == 0:
                    return A_REVEAL + k
                r -= 1
    r = <int>rand_below(rng, bag_size(s))
    for k in range(NCLASS):
        if r < s.bag[k]:
            return A_DRAW + k
        r -= s.bag[k]
    return A_DRAW

cdef int state_playout(const DataC* d, StateC* s, uint64_t* rng) noexcept nogil:
    """Uniformly random legal play to the end; chance sampled. Returns the number of actions applied."""
    cdef action_t buf[MAX_LEGAL]
    cdef int n, cp, count = 0
    while True:
        cp = state_current_player(d, s)
        if cp == TERMINAL:
            return count
        if cp == CHANCE:
            state_apply(d, s, state_sample_chance(d, s, rng))
        else:
            n = state_legal_actions(d, s, buf)
            state_apply(d, s, buf[rand_below(rng, n)])
        count += 1

cdef void state_returns(const DataC* d, const StateC* s, double* out) noexcept nogil:
    """Win share per player: most VP, then tie-breakers (R127, A42); a remaining tie splits the win."""
    cdef int p, q, better, nwin = 0
    for p in range(s.num_players):
        out[p] = 0.0
    if s.phase != PH_OVER:
        return
    for p in range(s.num_players):
        better = 0
        for q in range(s.num_players):
            if q != p and tiebreak_cmp(s, q, p) > 0:
                better = 1
                break
        if not better:
            out[p] = 1.0
            nwin += 1
    for p in range(s.num_players):
        out[p] /= nwin

cdef inline int tiebreak_cmp(const StateC* s, int a, int b) noexcept nogil:
    """>0 when player a ranks above b: VP, Cerdà index, Sagrada index, Building markers placed."""
    cdef const PlayerC* x = &s.pl[a]
    cdef const PlayerC* y = &s.pl[b]
    if x.score != y.score:
        return 1 if x.score > y.score else -1
    if x.cerda != y.cerda:
        return 1 if x.cerda > y.cerda else -1
    if x.sagrada != y.sagrada:
        return 1 if x.sagrada > y.sagrada else -1
    if x.markers != y.markers:
        return 1 if x.markers > y.markers else -1
    return 0

cdef void state_determinize(const DataC* d, StateC* s, int viewpoint, uint64_t* rng) noexcept nogil:
    """Resample every hand but the viewpoint's from the unseen pool (bag + those hands); sizes are public (A6).
    The bag order and the Modernisme stack order need no sampling: they are drawn at chance nodes."""
    cdef int pool[NCLASS]
    cdef int p, k, h, i, r, total
    for k in range(NCLASS):
        pool[k] = s.bag[k]
    for p in range(s.num_players):
        if p != viewpoint:
            for k in range(NCLASS):
                pool[k] += s.pl[p].hand[k]
    for p in range(s.num_players):
        if p == viewpoint:
            continue
        h = hand_size(&s.pl[p])
        for k in range(NCLASS):
            s.pl[p].hand[k] = 0
        for i in range(h):
            total = pool[0] + pool[1] + pool[2]
            r = <int>rand_below(rng, total)
            k = 0
            while r >= pool[k]:
                r -= pool[k]
                k += 1
            pool[k] -= 1
            s.pl[p].hand[k] += 1
    for k in range(NCLASS):
        s.bag[k] = pool[k]

cdef uint64_t fnv1a(const uint8_t* b, size_t n) noexcept nogil:
    cdef uint64_t h = <uint64_t>0xcbf29ce484222325
    cdef size_t i
    for i in range(n):
        h ^= b[i]
        h *= <uint64_t>0x100000001b3
    return h

cdef StateC _LAYOUT_PROBE
cdef size_t POSITION_BYTES = <size_t>(<char*>&_LAYOUT_PROBE.masks - <char*>&_LAYOUT_PROBE)
if POSITION_BYTES + sizeof(BuildMasksC) != sizeof(StateC):
    raise ImportError("StateC: the derived masks must be its last field, with no padding")

cdef uint64_t state_hash(const StateC* s) noexcept nogil:
    """FNV-1a over the position's bytes (the derived masks are left out: they follow from the crossings)."""
    return fnv1a(<const uint8_t*>s, POSITION_BYTES)

cdef void observation_state(const StateC* s, int player, StateC* out) noexcept nogil:
    """What `player` may know: other hands reduced to their sizes, the bag replaced by the unseen pool."""
    cdef int p, k, h
    memcpy(out, s, sizeof(StateC))
    for p in range(s.num_players):
        if p == player:
            continue
        h = hand_size(&s.pl[p])
        for k in range(NCLASS):
            out.bag[k] += s.pl[p].hand[k]
            out.pl[p].hand[k] = 0
        out.pl[p].hand[0] = h
        out.pl[p].hand[1] = -1
        out.pl[p].hand[2] = -1

cdef uint64_t state_observation_hash(const StateC* s, int player) noexcept nogil:
    cdef StateC tmp
    observation_state(s, player, &tmp)
    return state_hash(&tmp)


# ============================================================================================================
# 7. setup
# ============================================================================================================

cdef void shuffle_ints(int* a, int n, uint64_t* rng) noexcept nogil:
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = <int>rand_below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t

cdef void draw_citizen_to_hand(StateC* s, int p, uint64_t* rng) noexcept nogil:
    cdef int r = <int>rand_below(rng, bag_size(s)), k = 0
    while r >= s.bag[k]:
        r -= s.bag[k]
        k += 1
    s.bag[k] -= 1
    s.pl[p].hand[k] += 1

cdef void state_setup(const DataC* d, StateC* s, int nplayers, uint64_t seed, bint printed) noexcept nogil:
    """Game setup (R10-R32) from a seed: action tiles (or the printed layout, R11), track prefill (R12), Cerdà
    tiles and the matching Modernisme removals (R14, R15), the display (R16), Public Services (R17, R18), the
    player boards (R22-R30) and the first draws (R32)."""
    cdef uint64_t rng = seed
    cdef int perm[16]
    cdef int i, k, p, t, cond
    cdef uint32_t pre
    memset(s, 0, sizeof(StateC))
    s.num_players = nplayers
    s.place_crossing = -1
    s.discard_player = -1
    s.phase = PH_PLACE
    for i in range(NSTREET):
        perm[i] = i
    if printed:
        for i in range(NSTREET):
            s.street_action[i] = d.printed_setup[i]
    else:
        shuffle_ints(perm, NSTREET, &rng)
        for i in range(NSTREET):
            s.street_action[i] = perm[i]
    for i in range(NCROSS):
        s.cross_lo[i] = -1
        s.cross_hi[i] = -1
        s.cross_int[i] = -1
    for i in range(NSPACE):
        s.street_owner[i] = -1
        s.passenger[i] = -1
    for i in range(60):
        s.bld_mark[i] = -1
    for i in range(4):
        s.bld_stack[i] = d.bld_count[i]
    for k in range(NCLASS):
        pre = 0
        if nplayers == 3:
            pre = d.prefill3[k]
        elif nplayers == 2:
            pre = d.prefill2[k]
        s.track[k] = pre
        s.bag[k] = d.citizens[k] - popcount32(pre)
    for i in range(14):
        perm[i] = i
    shuffle_ints(perm, 14, &rng)
    for i in range(3):
        s.cerda_tile[i] = d.cerda_cond[perm[i]]
    for t in range(NMOD):
        cond = d.mod_cond[t]
        if cond != s.cerda_tile[0] and cond != s.cerda_tile[1] and cond != s.cerda_tile[2]:
            s.mod_stack |= <uint32_t>1 << t                       # the twins of the Cerdà tiles stay in the box
    for i in range(d.display_size):
        if s.mod_stack == 0:
            break
        k = <int>rand_below(&rng, popcount32(s.mod_stack))
        for t in range(NMOD):
            if (s.mod_stack >> t) & 1:
                if k == 0:
                    s.mod_stack &= ~(<uint32_t>1 << t)
                    s.mod_display |= <uint32_t>1 << t
                    break
                k -= 1
    for i in range(NPS):
        perm[i] = i
        s.ps_left[i] = -1
    shuffle_ints(perm, NPS, &rng)
    for i in range(d.ps_in_play):
        s.ps_left[perm[i]] = ps_tiles_per_stack(d, s)
    s.sag_offer = (<uint32_t>1 << NSAG) - 1
    s.sidewalk = d.side_pre
    for p in range(MAX_PLAYERS):
        s.pl[p].tram = -1
        for i in range(NPROJ):
            s.pl[p].mod_tile[i] = -1
        for i in range(3):
            s.pl[p].sag_tile[i] = -1
        if p < nplayers:
            s.pl[p].coins = d.start_coins
            s.pl[p].cloth = d.start_cloth
            s.pl[p].cerda = d.cerda_start
    for p in range(nplayers):
        for i in range(2):
            draw_citizen_to_hand(s, p, &rng)
    refresh_build_masks(d, s)
    settle(d, s)


# ============================================================================================================
# 8. Python classes
# ============================================================================================================

cdef void _copy_ints(int8_t* dst, object src, int n):
    cdef int i
    for i in range(n):
        dst[i] = src[i] if i < len(src) else 0

cdef class GameData:
    """One edition's tables in C (built from a validated tables.Edition). Immutable after construction."""

    def __cinit__(self, edition):
        cdef DataC* d = &self.c
        cdef int i, j, k
        memset(d, 0, sizeof(DataC))
        self.edition = edition
        t = edition.t
        _copy_ints(d.space_wide, t["space_wide"], NSPACE)
        _copy_ints(d.space_a, t["space_a"], NSPACE)
        _copy_ints(d.space_b, t["space_b"], NSPACE)
        _copy_ints(d.space_street, t["space_street"], NSPACE)
        _copy_ints(d.space_pos, t["space_pos"], NSPACE)
        _copy_ints(d.space_list, t["space_list"], NSPACE)
        _copy_ints(d.space_nbs, t["space_nbs"], NSPACE)
        _copy_ints(d.space_bs, t["space_bs"], NSPACE * 2)
        _copy_ints(d.street_space, t["street_space"], NSTREET * 4)
        _copy_ints(d.cross_nspaces, t["cross_nspaces"], NCROSS)
        _copy_ints(d.cross_spaces, t["cross_spaces"], NCROSS * 6)
        _copy_ints(d.cross_cost, t["cross_cost"], NCROSS)
        _copy_ints(d.cross_nbs, t["cross_nbs"], NCROSS)
        _copy_ints(d.cross_bs, t["cross_bs"], NCROSS * 6)
        _copy_ints(d.bs_corner, t["bs_corner"], NBSPACE)
        _copy_ints(d.bs_block, t["bs_block"], NBSPACE)
        _copy_ints(d.bs_row, t["bs_row"], NBSPACE)
        _copy_ints(d.bs_ncross, t["bs_ncross"], NBSPACE)
        _copy_ints(d.bs_cross, t["bs_cross"], NBSPACE * 4)
        d.run_vp_wide = t["run_vp_wide"]
        d.run_vp_narrow = t["run_vp_narrow"]
        lists = edition.effect_lists
        if len(lists) > MAX_LISTS:
            raise BarcelonaError("too many effect lists")
        d.nlists = len(lists)
        for i, lst in enumerate(lists):
            d.eff_n[i] = len(lst)
            for j, (code, amt) in enumerate(lst):
                d.eff_code[i * MAX_EFF + j] = code
                d.eff_amt[i * MAX_EFF + j] = amt
        for i in range(3):
            d.action_list[i] = t["action_list"][i]
        _copy_ints(d.printed_setup, t["printed_setup"], NSTREET)
        _copy_ints(d.citizens, t["citizens"], NCLASS)
        for k in range(NCLASS):
            d.track_len[k] = t["track_len"][k]
            for i, v in enumerate(t["track_vp"][k]):
                d.track_vp[k * MAX_TRACK + i] = v
            for i in range(3):
                d.track_mark[k * 3 + i] = t["track_mark"][k][i]
            d.prefill3[k] = t["prefill3"][k]
            d.prefill2[k] = t["prefill2"][k]
        d.cerda_spaces = len(t["cerda_mult"])
        _copy_ints(d.cerda_mult, t["cerda_mult"], d.cerda_spaces)
        d.cerda_start = t["cerda_start"]
        d.cerda_overflow_vp = t["cerda_overflow_vp"]
        d.cerda_reset_mask = t["cerda_reset_mask"]
        d.side_pre = t["side_pre"]
        for i in range(NSIDE):
            d.side_adj[i] = t["side_adj"][i]
            d.side_list[i] = t["side_list"][i]
        d.wh_free = t["wh_free"]
        d.narrow_total = t["narrow_total"]
        d.wide_total = t["wide_total"]
        _copy_ints(d.cobble_vp, t["cobble_vp"], 6)
        d.start_coins = t["start_coins"]
        d.start_cloth = t["start_cloth"]
        _copy_ints(d.inter_cost, t["inter_cost"], 5)
        for i in range(5):
            d.inter_list[i] = t["inter_list"][i]
        _copy_ints(d.inter_picks, t["inter_picks"], 5)
        _copy_ints(d.pass_coins, t["pass_coins"], 5)
        _copy_ints(d.pass_cloth, t["pass_cloth"], 5)
        _copy_ints(d.pass_vp, t["pass_vp"], 5)
        _copy_ints(d.mod_take, t["mod_take"], 5)
        _copy_ints(d.mod_raise, t["mod_raise"], 5)
        _copy_ints(d.mod_bottom, t["mod_bottom"], 5)
        _copy_ints(d.mod_top, t["mod_top"], 5)
        _copy_ints(d.narrow_empty_at, t["narrow_empty_at"], 3)
        _copy_ints(d.narrow_empty_cerda, t["narrow_empty_cerda"], 3)
        _copy_ints(d.wide_empty_at, t["wide_empty_at"], 3)
        _copy_ints(d.wide_empty_cerda, t["wide_empty_cerda"], 3)
        _copy_ints(d.marker_empty_at, t["marker_empty_at"], 5)
        d.marker_empty_cerda = t["marker_empty_cerda"]
        d.sag_spaces = t["sag_spaces"]
        _copy_ints(d.sag_slot_after, t["sag_slot_after"], 3)
        _copy_ints(d.sag_slot_level, t["sag_slot_level"], 3)
        d.ncond = len(t["cond_kind"])
        _copy_ints(d.cond_kind, t["cond_kind"], d.ncond)
        _copy_ints(d.cond_vp, t["cond_vp"], d.ncond)
        _copy_ints(d.cond_cap, t["cond_cap"], d.ncond)
        _copy_ints(d.mod_cond, t["mod_cond"], NMOD)
        _copy_ints(d.cerda_cond, t["cerda_cond"], 14)
        d.display_size = t["display_size"]
        _copy_ints(d.sag_level, t["sag_level"], NSAG)
        for i in range(NSAG):
            d.sag_list[i] = t["sag_list"][i]
        _copy_ints(d.bld_count, t["bld_count"], 4)
        _copy_ints(d.bld_any, t["bld_any"], 4)
        _copy_ints(d.bld_mid, t["bld_mid"], 4)
        _copy_ints(d.bld_up, t["bld_up"], 4)
        for i in range(4):
            d.bld_list[i] = t["bld_list"][i]
        d.bonus_vp = t["bonus_vp"]
        d.ps_in_play = t["ps_in_play"]
        _copy_ints(d.ps_cost, t["ps_cost"], 3)
        _copy_ints(d.ps_vp, t["ps_vp"], 3)
        d.ps_tiles_2p = t["ps_tiles_2p"]
        for i in range(NPS):
            d.ps_list[i] = t["ps_list"][i]
        d.nopts = len(t["opt_space"])
        _copy_ints(d.opt_space, t["opt_space"], d.nopts)
        _copy_ints(d.opt_type, t["opt_type"], d.nopts)
        _copy_ints(d.opt_mask, t["opt_mask"], d.nopts)
        _derive_construction_tables(d)

    @property
    def name(self):
        return self.edition.name


cdef void _derive_construction_tables(DataC* d) except *:
    """The construction scan's tables (gen_build, BuildMasksC) from the options and the geometry: each space's
    range of option ids, the fewest citizens a building needs, and each crossing's bit around its spaces."""
    cdef int o, bs, ty, c, j, i, bit, slots
    for o in range(1, d.nopts):
        if d.opt_space[o] < d.opt_space[o - 1]:
            raise BarcelonaError("construction options must be grouped by building space, in ascending order")
    o = 0
    for bs in range(NBSPACE + 1):
        while o < d.nopts and d.opt_space[o] < bs:
            o += 1
        d.bs_opt_first[bs] = o
    d.bld_min_need = 4
    for ty in range(4):
        d.bld_min_need = imin(d.bld_min_need, d.bld_any[ty] + d.bld_mid[ty] + d.bld_up[ty])
    for c in range(NCROSS):
        slots = 0
        for j in range(d.cross_nbs[c]):
            bs = d.cross_bs[c * 6 + j]
            bit = 0
            for i in range(d.bs_ncross[bs]):
                if d.bs_cross[bs * 4 + i] == c:
                    bit = 1 << i
            d.cross_bs_bit[c * 6 + j] = bit
            slots += bit != 0
        for bs in range(NBSPACE):                 # every space around c must be among c's neighbours
            for i in range(d.bs_ncross[bs]):
                slots -= d.bs_cross[bs * 4 + i] == c
        if slots != 0:
            raise BarcelonaError(f"crossing {c}: its building spaces (cross_bs) and the spaces' crossings "
                                 f"(bs_cross) disagree")


_DATA_CACHE = {}

def new_game(players=4, seed=0, edition="default", setup="random"):
    """A new game of Barcelona (a State) for 2-4 players; every random setup choice comes from `seed` (R10-R32).
    The same as State.new: `players` 2..4, `seed` 0..2**64-1, `edition` a shipped edition's name, a data-file
    path or a loaded tables.Edition, `setup` "random" or "printed" (R11)."""
    return State.new(players, seed, edition, setup)


# -- text services (see the module docstring: notation, position, render and explain register here) ----
TEXT_SERVICES = ("describe_action_id", "action_to_string", "string_to_action", "state_to_json", "state_from_json",
                 "render_state", "why_illegal")
_TEXT_SERVICES = {}


def register_text_services(**functions):
    """Register the functions the State methods delegate to (called by notation, position, render and explain when they
    are imported). Each keyword is one of TEXT_SERVICES; registering again replaces the function."""
    for name, function in functions.items():
        if name not in TEXT_SERVICES:
            raise ValueError(f"unknown text service {name!r}; the services are {', '.join(TEXT_SERVICES)}")
        if not callable(function):
            raise TypeError(f"text service {name!r} must be callable, not {function!r}")
    _TEXT_SERVICES.update(functions)


cdef object _text_service(str name):
    try:
        return _TEXT_SERVICES[name]
    except KeyError:
        raise RuntimeError(f"the text service {name!r} is not registered: import barcelona_ai (its __init__ "
                           f"imports notation, position, render and explain, which register them)") from None


def game_data(edition="default"):
    """The C tables of an edition (built once per edition and cached)."""
    ed = load_edition(edition)
    key = ed.sha256 or id(ed)                   # by content: an Edition sent to a worker process is a copy
    if key not in _DATA_CACHE:
        _DATA_CACHE[key] = GameData(ed)
    return _DATA_CACHE[key]


def _count_arg(name, value, lo, hi):
    """An integer argument within [lo, hi], or a BarcelonaError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BarcelonaError(f"{name} must be an integer from {lo} to {hi}, not {value!r}")
    return value


def integer_value(value):
    """`value` as a Python int if it is an integer: an int (not a bool) or a numpy integer (the ids that numpy-based
    code such as OpenSpiel's bots returns); None for anything else (bools, floats, numpy floats, strings...)."""
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    import numpy                            # a base dependency; imported here only, off the int fast path
    if isinstance(value, numpy.integer):
        return int(value)
    return None


def action_id(value):
    """The one check of an action id for every API that takes one: `value` (an int or a numpy integer, never a
    bool or a float) as a Python int in [0, NUM_ACTIONS); IllegalActionError naming the value otherwise."""
    a = integer_value(value)
    if a is None or not 0 <= a < NUM_ACTIONS:
        raise IllegalActionError(f"{value!r} is not an action id (ids are 0..{NUM_ACTIONS - 1})")
    return a


def _seed64(seed):
    """A seed as the 64-bit C generator state (any integer; its low 64 bits)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BarcelonaError(f"a seed is an integer, not {seed!r}")
    return <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)


cdef inline bint _out(int v, int lo, int hi) noexcept nogil:
    return v < lo or v > hi

cdef object raw_bounds_problem(const DataC* d, const StateC* s):
    """The first field of `s` that the C code would use out of bounds, as a message; None when there is none.

    The memory-safety guard of every way a whole state enters C (State._set_raw, pickles, position loading):
    each value the engine uses as an array index, a loop bound, a shift or a seat is in its range,
    and the cross-field facts the engine indexes with are true (a crossing's Intersection owner has built at
    least one, so inter_picks[inters - 1] exists; a pending MARKER effect finds room on its building's stack of
    at most one marker per level, R102). It does not check the rules (position.py and state_problem do): a state
    that passes may be unreachable, but no playout from it reads or writes outside the state."""
    cdef int n = s.num_players, i, k, p, cnt, cap, lvl, code, j
    cdef int pend[NBSPACE]
    cdef const PlayerC* pl
    cdef const FrameC* f
    if _out(n, 2, MAX_PLAYERS):
        return f"num_players {n} is not 2..4"
    if _out(s.cur, 0, n - 1):
        return f"cur {s.cur} is not a seat"
    if _out(s.phase, PH_PLACE, PH_OVER):
        return f"phase {s.phase} is not a phase"
    if _out(s.place_crossing, -1, NCROSS - 1):
        return f"place_crossing {s.place_crossing} is not a crossing"
    if _out(s.streets_used, 0, 7):
        return f"streets_used {s.streets_used} is not a mask of 3 streets"
    if _out(s.discard_player, -1, n - 1):
        return f"discard_player {s.discard_player} is not a seat"
    if _out(s.reveal_pending, 0, d.display_size):
        return f"reveal_pending {s.reveal_pending} is not 0..{d.display_size}"
    if _out(s.refresh_pending, 0, 3) or _out(s.draws_left, 0, 2):
        return f"refresh_pending {s.refresh_pending} / draws_left {s.draws_left} out of range"
    if _out(s.end_triggered, 0, 1) or _out(s.activity, 0, 1):
        return "end_triggered and activity are 0 or 1"
    if _out(s.nframes, 0, MAX_FRAMES):
        return f"nframes {s.nframes} is not 0..{MAX_FRAMES}"
    for i in range(NSTREET):
        if _out(s.street_action[i], 0, NSTREET - 1):
            return f"street_action[{i}] {s.street_action[i]} is not an action tile"
    for i in range(NCROSS):
        if _out(s.cross_lo[i], -1, NCLASS - 1) or _out(s.cross_hi[i], -1, NCLASS - 1) \
                or (s.cross_hi[i] >= 0 and s.cross_lo[i] < 0):
            return f"crossing {i}: citizens {s.cross_lo[i]}, {s.cross_hi[i]}"
        if _out(s.cross_int[i], -1, n - 1):
            return f"cross_int[{i}] {s.cross_int[i]} is not a seat"
    for i in range(NSPACE):
        if _out(s.street_owner[i], -1, n - 1) or _out(s.passenger[i], -1, n - 1):
            return f"street space {i}: owner {s.street_owner[i]}, passenger {s.passenger[i]}"
    for i in range(NBSPACE):
        lvl = s.bld_level[i]
        if (lvl != 0 and lvl != 4) if d.bs_corner[i] else _out(lvl, 0, 3):
            return f"building space {i} has level {lvl}"
        cap = 0 if lvl == 0 else (1 if lvl == 4 else lvl)          # one marker per level (R102)
        if _out(s.bld_n[i], 0, cap):
            return f"building space {i} (level {lvl}) holds {s.bld_n[i]} markers"
        for k in range(s.bld_n[i]):
            if _out(s.bld_mark[i * 3 + k], 0, n - 1):
                return f"building space {i}: marker {k} is seat {s.bld_mark[i * 3 + k]}"
        pend[i] = 0
    for i in range(4):
        if _out(s.bld_stack[i], 0, d.bld_count[i]):
            return f"bld_stack[{i}] {s.bld_stack[i]} is not 0..{d.bld_count[i]}"
    for k in range(NCLASS):
        if s.track[k] >> d.track_len[k] or _out(s.track_off[k], 0, d.citizens[k]) \
                or _out(s.bag[k], 0, d.citizens[k]):
            return f"citizens of class {k}: track, beside it or bag out of range"
    for i in range(3):
        if _out(s.cerda_tile[i], 0, d.ncond - 1):
            return f"cerda_tile[{i}] {s.cerda_tile[i]} is not a condition"
    if _out(s.scored, 0, 7) or _out(s.scorings, 0, 3):
        return "scored / scorings out of range"
    for i in range(NPS):
        if _out(s.ps_left[i], -1, ps_tiles_per_stack(d, s)):
            return f"ps_left[{i}] {s.ps_left[i]} out of range"
    if s.mod_stack >> NMOD or s.mod_display >> NMOD or s.mod_discard >> NMOD or s.sag_offer >> NSAG \
            or s.sidewalk >> NSIDE:
        return "a tile or Sidewalk mask has bits past its pieces"
    for p in range(n):
        pl = &s.pl[p]
        if pl.score < 0 or pl.coins < 0 or pl.cloth < 0 or pl.turns < 0:
            return f"player {p}: score, coins, cloth or turns negative"
        for i in range(NSRC):
            if pl.vp_src[i] < 0:
                return f"player {p}: vp_src[{i}] negative"
        cnt = 0
        for i in range(NCROSS):
            cnt += s.cross_int[i] == p
        if _out(pl.inters, 1 if cnt else 0, NINTER):               # apply_place reads inter_picks[inters - 1]
            return f"player {p}: inters {pl.inters} but {cnt} Intersections on the crossings"
        if _out(pl.cobbles, 0, NCOBBLE) or _out(pl.narrow, 0, d.narrow_total) or _out(pl.wide, 0, d.wide_total) \
                or _out(pl.passengers, 0, NPASS) or _out(pl.markers, 0, NMARKERS) or _out(pl.tram, -1, NSPACE - 1):
            return f"player {p}: a component count or the Tram out of range"
        if _out(pl.cerda, 0, d.cerda_spaces - 1) or _out(pl.sagrada, 0, d.sag_spaces - 1):
            return f"player {p}: Cerdà {pl.cerda} or Sagrada {pl.sagrada} off the track"
        for i in range(NPROJ):
            if _out(pl.mod_tile[i], -1, NMOD - 1) or _out(pl.mod_up[i], 0, 1):
                return f"player {p}: Modernisme project space {i} out of range"
        for i in range(3):
            if _out(pl.sag_tile[i], -1, NSAG - 1):
                return f"player {p}: Sagrada slot {i} out of range"
        if _out(pl.ps_built, 0, (1 << NPS) - 1):
            return f"player {p}: ps_built {pl.ps_built} out of range"
        for k in range(NCLASS):                                     # -1: an observation's hidden hand (render)
            if _out(pl.hand[k], -1, 2):
                return f"player {p}: hand {pl.hand[0]}, {pl.hand[1]}, {pl.hand[2]}"
    for i in range(s.nframes):
        f = &s.frames[i]
        if _out(f.kind, FR_EFFECTS, FR_INT_PICK) or _out(f.player, 0, n - 1) or _out(f.src, 0, NSRC - 1):
            return f"frame {i}: kind {f.kind}, player {f.player} or source {f.src} out of range"
        if f.kind == FR_EFFECTS:
            if f.lst >= d.nlists or _out(f.a, 0, d.eff_n[f.lst]):
                return f"frame {i}: effect list {f.lst} / next {f.a} out of range"
            for j in range(f.a, d.eff_n[f.lst]):
                code = d.eff_code[f.lst * MAX_EFF + j]
                if code == E_MARKER:
                    if _out(f.b, 0, NBSPACE - 1):
                        return f"frame {i}: building space {f.b} out of range"
                    pend[f.b] += 1
        elif f.kind == FR_GRANT and _out(f.a, 0, NGK - 1):
            return f"frame {i}: grant kind {f.a} out of range"
        elif f.kind == FR_PASSENGER and (_out(f.a, 0, NSPACE - 1) or _out(f.b, 0, 1)):
            return f"frame {i}: Passenger space {f.a} / coin_free {f.b} out of range"
        elif f.kind == FR_SAGRADA and f.a < 0:
            return f"frame {i}: {f.a} Sagrada steps"
        elif f.kind == FR_SAG_TILE and (_out(f.a, 1, 3) or _out(f.b, 0, 2)):
            return f"frame {i}: Sagrada level {f.a} / slot {f.b} out of range"
        elif f.kind == FR_RES and _out(f.a, 0, A_DISCARD_COIN - A_RES - 1):   # A_RES + a stays below the discards
            return f"frame {i}: {f.a} resources out of range"
        elif f.kind == FR_INT_PICK and (f.a < 0 or _out(f.b, 0, (1 << NINTER) - 1)):
            return f"frame {i}: picks {f.a} / slots {f.b} out of range"
    for i in range(NBSPACE):
        lvl = s.bld_level[i]
        cap = 0 if lvl == 0 else (1 if lvl == 4 else lvl)
        if pend[i] and s.bld_n[i] + pend[i] > cap:                # place_marker writes bld_mark[i * 3 + bld_n]
            return f"building space {i}: {s.bld_n[i]} markers + {pend[i]} pending exceed its {cap} (R102)"
    return None


_NO_MASKS = {"occ": [0] * NBSPACE, "mid": [0] * NBSPACE, "up": [0] * NBSPACE}

cdef dict position_dict(const StateC* s):
    """The position of `s` as nested dicts and lists (State.raw()): every field but the derived masks."""
    cdef dict raw = s[0]
    del raw["masks"]
    return raw

cdef int raw_to_state(const DataC* d, dict raw, StateC* out, str what) except -1:
    """`raw` (a dict as from State.raw()) into `out`, then the memory-safety guard (raw_bounds_problem) and the
    derived masks (refresh_build_masks); any failure is a BarcelonaError starting with `what`."""
    memset(out, 0, sizeof(StateC))
    raw = dict(raw)
    raw["masks"] = _NO_MASKS                                      # derived, whatever the dict says
    try:
        out[0] = raw
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise BarcelonaError(f"{what}: {type(exc).__name__}: {exc}") from None
    problem = raw_bounds_problem(d, out)
    if problem is not None:
        raise BarcelonaError(f"{what}: {problem}")
    refresh_build_masks(d, out)
    return 0


# ---- the rules' invariants in C (the long random walk) ---------------------------------------------------
# tests/invariants.py is the tests' readable reference; state_invariant_problem makes the same checks in the same order,
# and invariant_message words the first problem exactly as invariants.check_raw does (tests/test_apply_undo.py
# compares the two on random and deliberately broken states).
from cpython.exc cimport PyErr_CheckSignals

cdef enum:
    INV_NONE = 0
    INV_PLAYERS = 1          # num_players not 2..4
    INV_CITIZENS = 2         # 72 citizens: bag + hands + crossings + tracks + beside them, per class (R5, R12, R105)
    INV_BAG = 3
    INV_TRACK_BITS = 4
    INV_CROSS_TOP = 5        # a top citizen without a bottom one
    INV_HAND = 6             # a hand of 0..2 citizens
    INV_NEGATIVE = 7         # arg[1]: index in INV_FIELDS
    INV_WAREHOUSE = 8        # coins + cloth within the Warehouse unless discarding (A39)
    INV_OVER = 9             # arg[1]: index in INV_LIMITS
    INV_VP_NEGATIVE = 10
    INV_VP_SUM = 11
    INV_BOARD_INTERS = 12    # pieces on the board match the player board
    INV_BOARD_STREETS = 13
    INV_BOARD_PASSENGERS = 14
    INV_BOARD_MARKERS = 15
    INV_MOD_UP = 16
    INV_SAG_SLOT = 17
    INV_TRAMS = 18
    INV_BLD_LEVEL = 19
    INV_BLD_MARKERS = 20     # one marker per level (R102)
    INV_CORNERS = 21
    INV_LEVEL_TILES = 22
    INV_SIDEWALK = 23        # R46
    INV_MOD_TWO_PROJECTS = 24
    INV_MOD_TWO_PLACES = 25  # each Modernisme tile in exactly one place (R15, R16, R73)
    INV_MOD_MISSING = 26
    INV_MOD_DISPLAY = 27
    INV_MOD_RESHUFFLE = 28   # R73, R111
    INV_SAG_TILES = 29       # R20, R119
    INV_PS_OUT = 30          # Public Services (R17, R18, R76)
    INV_PS_COUNT = 31
    INV_PS_TYPES = 32
    INV_CERDA_TILES = 33     # R14
    INV_SCORED = 34          # R109
    INV_NFRAMES = 35
    INV_CUR = 36
    INV_FRAMES_PHASE = 37    # what may be pending in which phase (invariants._turn_problems)
    INV_FRAME = 38
    INV_DISCARD = 39
    INV_REVEALS = 40
    INV_REFRESH = 41
    INV_DRAWS = 42
    INV_HELD = 43
    INV_PENDING = 44
    INV_BUILD_MASKS = 45     # derived data of the core (not in invariants.py): the masks match the crossings

INV_FIELDS = ("coins", "cloth", "cobbles", "inters", "narrow", "wide", "passengers", "markers", "cerda", "sagrada",
              "turns")
INV_LIMITS = ("cobbles", "inters", "narrow", "wide", "passengers", "markers", "cerda", "sagrada")

cdef inline int player_field(const PlayerC* pl, int f) noexcept nogil:
    """INV_FIELDS[f] of a player (the order of invariants.check_raw); INV_LIMITS are INV_FIELDS[2..9]."""
    if f == 0:
        return pl.coins
    if f == 1:
        return pl.cloth
    if f == 2:
        return pl.cobbles
    if f == 3:
        return pl.inters
    if f == 4:
        return pl.narrow
    if f == 5:
        return pl.wide
    if f == 6:
        return pl.passengers
    if f == 7:
        return pl.markers
    if f == 8:
        return pl.cerda
    if f == 9:
        return pl.sagrada
    return pl.turns

cdef inline int player_limit(const DataC* d, int f) noexcept nogil:
    """The most of INV_LIMITS[f] a player can have (invariants.check_raw's `limits`)."""
    if f == 0:
        return NCOBBLE
    if f == 1:
        return NINTER
    if f == 2:
        return d.narrow_total
    if f == 3:
        return d.wide_total
    if f == 4:
        return NPASS
    if f == 5:
        return NMARKERS
    if f == 6:
        return d.cerda_spaces - 1
    return d.sag_spaces - 1

cdef inline int citizens_of_class(const StateC* s, int k) noexcept nogil:
    cdef int c, p, total = s.bag[k] + popcount32(s.track[k]) + s.track_off[k]
    for p in range(s.num_players):
        total += s.pl[p].hand[k]
    for c in range(NCROSS):
        total += (s.cross_lo[c] == k) + (s.cross_hi[c] == k)
    return total

cdef inline int markers_on_buildings(const StateC* s, int p) noexcept nogil:
    cdef int bs, k, n = 0
    for bs in range(NBSPACE):
        for k in range(imin(s.bld_n[bs], 3)):
            n += s.bld_mark[bs * 3 + k] == p
    return n

cdef inline int ps_builders(const StateC* s, int ty) noexcept nogil:
    cdef int p, n = 0
    for p in range(s.num_players):
        n += (s.pl[p].ps_built >> ty) & 1
    return n

cdef inline int held_by_cur(const StateC* s) noexcept nogil:
    return s.pl[s.cur].hand[0] + s.pl[s.cur].hand[1] + s.pl[s.cur].hand[2]

cdef int state_invariant_problem(const DataC* d, const StateC* s, int* arg) noexcept nogil:
    """The first rules invariant `s` breaks (an INV_* code, its player / index / class in arg[0], arg[1]), or 0.

    invariants.check_raw in C, check for check and in its order: components conserved, nothing negative or over
    capacity, the pieces on the board match the player boards, and what may be pending in each phase; last, one
    check of the core's own (not in invariants.py): the derived building masks match the crossings. `s` must
    pass the memory-safety guard (raw_bounds_problem) first: every index used here is then in range."""
    cdef int n = s.num_players, k, c, p, i, f, sp, bs, lvl, nm, cnt, ph = s.phase, held, free_, dp
    cdef int narrow, wide, top, per, in_play, builders, q
    cdef const PlayerC* pl
    cdef uint32_t boards, removed, seen, taken, x
    arg[0] = 0
    arg[1] = 0
    if n < 2 or n > MAX_PLAYERS:
        return INV_PLAYERS
    for k in range(NCLASS):
        arg[0] = k
        if citizens_of_class(s, k) != d.citizens[k]:
            return INV_CITIZENS
        if s.bag[k] < 0:
            return INV_BAG
        if s.track[k] >> d.track_len[k]:
            return INV_TRACK_BITS
    for c in range(NCROSS):
        if s.cross_hi[c] >= 0 and s.cross_lo[c] < 0:
            arg[0] = c
            return INV_CROSS_TOP
    for p in range(n):
        pl = &s.pl[p]
        arg[0] = p
        if imin(imin(pl.hand[0], pl.hand[1]), pl.hand[2]) < 0 or pl.hand[0] + pl.hand[1] + pl.hand[2] > 2:
            return INV_HAND
        for f in range(11):
            if player_field(pl, f) < 0:
                arg[1] = f
                return INV_NEGATIVE
        if pl.coins + pl.cloth > capacity(d, pl) and s.discard_player != p:
            return INV_WAREHOUSE
        for f in range(8):
            if player_field(pl, f + 2) > player_limit(d, f):
                arg[1] = f
                return INV_OVER
        cnt = 0
        for i in range(NSRC):
            if pl.vp_src[i] < 0:
                return INV_VP_NEGATIVE
            cnt += pl.vp_src[i]
        if pl.score < 0:
            return INV_VP_NEGATIVE
        if pl.score != cnt:
            return INV_VP_SUM
        cnt = 0
        for c in range(NCROSS):
            cnt += s.cross_int[c] == p
        if cnt != pl.inters:
            return INV_BOARD_INTERS
        narrow = 0
        wide = 0
        for sp in range(NSPACE):
            if s.street_owner[sp] == p:
                if d.space_wide[sp]:
                    wide += 1
                else:
                    narrow += 1
        if wide != pl.wide or narrow != pl.narrow:
            return INV_BOARD_STREETS
        cnt = 0
        for sp in range(NSPACE):
            cnt += s.passenger[sp] == p
        if cnt != pl.passengers:
            return INV_BOARD_PASSENGERS
        if markers_on_buildings(s, p) != pl.markers:
            return INV_BOARD_MARKERS
        for i in range(NPROJ):
            if pl.mod_up[i] != 0 and pl.mod_up[i] != 1:
                return INV_MOD_UP
        for i in range(3):
            if pl.sag_tile[i] >= 0 and pl.sagrada <= d.sag_slot_after[i]:
                arg[1] = i
                return INV_SAG_SLOT
    arg[0] = 0
    arg[1] = 0
    for p in range(n):
        for q in range(p):
            if s.pl[p].tram >= 0 and s.pl[p].tram == s.pl[q].tram:
                return INV_TRAMS
    for bs in range(NBSPACE):
        lvl = s.bld_level[bs]
        nm = s.bld_n[bs]
        arg[0] = bs
        if (lvl != 0 and lvl != 4) if d.bs_corner[bs] else (lvl < 0 or lvl > 3):
            return INV_BLD_LEVEL
        if nm < 0 or nm > (1 if d.bs_corner[bs] else lvl):
            return INV_BLD_MARKERS
    arg[0] = 0
    cnt = 0
    for bs in range(NBSPACE):
        cnt += s.bld_level[bs] == 4
    if d.bld_count[0] - s.bld_stack[0] != cnt:
        return INV_CORNERS
    for k in range(1, 4):
        top = 0
        for bs in range(NBSPACE):
            top += s.bld_level[bs] == k
        if top > d.bld_count[k] - s.bld_stack[k] or s.bld_stack[k] < 0:
            arg[0] = k
            arg[1] = top
            return INV_LEVEL_TILES
    cnt = 0
    for p in range(n):
        cnt += s.pl[p].cobbles
    if s.sidewalk & d.side_pre != d.side_pre or popcount32(s.sidewalk & ~d.side_pre) != cnt \
            or s.sidewalk >> NSIDE:
        return INV_SIDEWALK
    boards = 0
    for p in range(n):
        for i in range(NPROJ):
            k = s.pl[p].mod_tile[i]
            if k >= 0:
                if (boards >> k) & 1:
                    arg[0] = k
                    return INV_MOD_TWO_PROJECTS
                boards |= <uint32_t>1 << k
    removed = 0
    for k in range(NMOD):
        for i in range(3):
            if d.mod_cond[k] == s.cerda_tile[i]:
                removed |= <uint32_t>1 << k
    seen = 0
    for i in range(5):
        x = s.mod_stack if i == 0 else s.mod_display if i == 1 else s.mod_discard if i == 2 else \
            boards if i == 3 else removed
        if seen & x:
            return INV_MOD_TWO_PLACES
        seen |= x
    if seen != (<uint32_t>1 << NMOD) - 1:
        return INV_MOD_MISSING
    if popcount32(s.mod_display) > d.display_size:
        return INV_MOD_DISPLAY
    if s.mod_stack == 0 and s.mod_discard:
        return INV_MOD_RESHUFFLE
    taken = 0
    for p in range(n):
        for i in range(3):
            if s.pl[p].sag_tile[i] >= 0:
                taken |= <uint32_t>1 << s.pl[p].sag_tile[i]
    if taken & s.sag_offer or (taken | s.sag_offer) != (<uint32_t>1 << NSAG) - 1:
        return INV_SAG_TILES
    per = d.ps_tiles_2p if n == 2 else 3
    in_play = 0
    for k in range(NPS):
        builders = ps_builders(s, k)
        arg[0] = k
        arg[1] = builders
        if s.ps_left[k] < 0:
            if builders:
                return INV_PS_OUT
        else:
            in_play += 1
            if s.ps_left[k] + builders != per:
                return INV_PS_COUNT
    arg[0] = in_play
    arg[1] = 0
    if in_play != d.ps_in_play:
        return INV_PS_TYPES
    arg[0] = 0
    if s.cerda_tile[0] == s.cerda_tile[1] or s.cerda_tile[0] == s.cerda_tile[2] \
            or s.cerda_tile[1] == s.cerda_tile[2]:
        return INV_CERDA_TILES
    for i in range(3):
        cnt = 0
        for k in range(14):
            cnt += d.cerda_cond[k] == s.cerda_tile[i]
        if not cnt:
            return INV_CERDA_TILES
    if popcount32(<uint32_t>s.scored) != s.scorings:
        return INV_SCORED
    if s.nframes < 0 or s.nframes > MAX_FRAMES:
        return INV_NFRAMES
    if s.cur < 0 or s.cur >= n:
        return INV_CUR
    # what may be pending in which phase (R34's four steps; settle): invariants._turn_problems
    held = held_by_cur(s)
    if s.nframes and ph != PH_ACTIONS and ph != PH_END:
        return INV_FRAMES_PHASE
    for i in range(s.nframes):
        if s.frames[i].kind < 1 or s.frames[i].kind > 8 or s.frames[i].player < 0 or s.frames[i].player >= n:
            arg[0] = i
            return INV_FRAME
    dp = s.discard_player
    if dp >= 0:
        pl = &s.pl[dp]
        if (ph != PH_ACTIONS and ph != PH_END) or pl.coins <= 0 or pl.cloth <= 0 \
                or pl.coins + pl.cloth <= capacity(d, pl):
            return INV_DISCARD
    free_ = d.display_size - popcount32(s.mod_display)
    if s.reveal_pending < 0 or s.reveal_pending > free_ or s.reveal_pending and (
            dp >= 0 or (ph != PH_ACTIONS and ph != PH_END and ph != PH_REFRESH)):
        return INV_REVEALS
    if s.refresh_pending and (ph != PH_REFRESH or s.refresh_pending > s.scorings):
        return INV_REFRESH
    if (ph == PH_DRAW and (s.draws_left < 1 or s.draws_left > 2 - held)) or (ph != PH_DRAW and s.draws_left):
        return INV_DRAWS
    if ph == PH_ACTIONS and held:
        return INV_HELD
    if (ph == PH_PLACE or ph == PH_OVER) and (s.nframes or dp >= 0 or s.reveal_pending or s.refresh_pending):
        return INV_PENDING
    if build_masks_stale(d, s):
        return INV_BUILD_MASKS
    return INV_NONE

cdef object invariant_message(const DataC* d, const StateC* s, int code, const int* arg):
    """The problem `code` of state_invariant_problem in invariants.check_raw's words (the same text)."""
    cdef int a = arg[0], b = arg[1], ph = s.phase, held, i
    cdef const PlayerC* pl = &s.pl[imin(imax(a, 0), MAX_PLAYERS - 1)]         # (used where `a` is a seat)
    if code == INV_NONE:
        return None
    if code == INV_PLAYERS:
        return f"num_players {s.num_players} is not 2..4"
    if code == INV_CITIZENS:
        return f"class {a}: {citizens_of_class(s, a)} citizens accounted for, the game has {d.citizens[a]}"
    if code == INV_BAG:
        return f"bag[{a}] is negative"
    if code == INV_TRACK_BITS:
        return f"track {a} has bits beyond its {d.track_len[a]} spaces"
    if code == INV_CROSS_TOP:
        return f"crossing {a} has a top citizen but no bottom one"
    if code == INV_HAND:
        return f"player {a} hand {[pl.hand[0], pl.hand[1], pl.hand[2]]} is not 0..2 citizens"
    if code == INV_NEGATIVE:
        return f"player {a} {INV_FIELDS[b]} is negative"
    if code == INV_WAREHOUSE:
        return f"player {a} holds {pl.coins + pl.cloth} tokens in a Warehouse of {capacity(d, pl)}"
    if code == INV_OVER:
        return f"player {a} {INV_LIMITS[b]} {player_field(pl, b + 2)} is over {player_limit(d, b)}"
    if code == INV_VP_NEGATIVE or code == INV_VP_SUM:
        vp = []
        for i in range(NSRC):
            vp.append(pl.vp_src[i])
        if code == INV_VP_NEGATIVE:
            return f"player {a} has negative VP {vp}"
        return f"player {a} score {pl.score} != sum of sources {sum(vp)}"
    if code == INV_BOARD_INTERS:
        return f"player {a}: Intersections on the board != {pl.inters} built"
    if code == INV_BOARD_STREETS:
        return f"player {a}: street tiles on the board != narrow {pl.narrow} / wide {pl.wide}"
    if code == INV_BOARD_PASSENGERS:
        return f"player {a}: Passengers on the board != {pl.passengers}"
    if code == INV_BOARD_MARKERS:
        return f"player {a}: {markers_on_buildings(s, a)} markers on buildings != {pl.markers} placed"
    if code == INV_MOD_UP:
        return f"player {a}: Modernisme markers must be 0 or 1"
    if code == INV_SAG_SLOT:
        return f"player {a}: Sagrada slot {b} filled before it was passed"
    if code == INV_TRAMS:
        return "two Trams on one street space"
    if code == INV_BLD_LEVEL:
        return f"building space {a} has level {s.bld_level[a]}"
    if code == INV_BLD_MARKERS:
        return f"building space {a} has {s.bld_n[a]} markers at level {s.bld_level[a]}"
    if code == INV_CORNERS:
        return "Corner tiles used != Corner buildings on the board"
    if code == INV_LEVEL_TILES:
        return f"Level-{a} tiles: {d.bld_count[a] - s.bld_stack[a]} used but {b} on top of buildings"
    if code == INV_SIDEWALK:
        return "Sidewalk cobblestones != cobblestones taken out of the Warehouses"
    if code == INV_MOD_TWO_PROJECTS:
        return f"Modernisme tile {a} on two project spaces"
    if code == INV_MOD_TWO_PLACES:
        return "a Modernisme tile is in two places"
    if code == INV_MOD_MISSING:
        return "a Modernisme tile is missing"
    if code == INV_MOD_DISPLAY:
        return "the Modernisme display holds too many tiles"
    if code == INV_MOD_RESHUFFLE:
        return "the Modernisme stack is empty but discarded tiles were not reshuffled into it (R73)"
    if code == INV_SAG_TILES:
        return "Sagrada tiles are not each in exactly one place"
    if code == INV_PS_OUT:
        return f"Public Service {a} is not in play but was built"
    if code == INV_PS_COUNT:
        return f"Public Service {a}: {s.ps_left[a]} left + {b} built != {d.ps_tiles_2p if s.num_players == 2 else 3}"
    if code == INV_PS_TYPES:
        return f"{a} Public Service types in play, the edition says {d.ps_in_play}"
    if code == INV_CERDA_TILES:
        return "the three Cerdà tiles must be distinct Cerdà tiles of the edition"
    if code == INV_SCORED:
        return "scored sections != scorings done"
    if code == INV_NFRAMES:
        return "frame stack out of range"
    if code == INV_CUR:
        return "the seat to move does not exist"
    held = held_by_cur(s)
    if code == INV_FRAMES_PHASE:
        return f"frames pending in phase {ph}"
    if code == INV_FRAME:
        return f"frame {s.frames[a]} out of range"
    if code == INV_DISCARD:
        pl = &s.pl[s.discard_player]
        return f"player {s.discard_player} discards (A39) in phase {ph} with {pl.coins} coins, {pl.cloth} cloth"
    if code == INV_REVEALS:
        return (f"{s.reveal_pending} reveals pending, {d.display_size - popcount32(s.mod_display)} empty display "
                f"places, phase {ph} (R73)")
    if code == INV_REFRESH:
        return f"{s.refresh_pending} refreshes pending in phase {ph} (R111)"
    if code == INV_DRAWS:
        return f"{s.draws_left} draws left for a hand of {held} in phase {ph} (R34 step 4)"
    if code == INV_HELD:
        return f"player {s.cur} still holds {held} citizens in the ACTIONS phase"
    if code == INV_BUILD_MASKS:
        return "the core's building masks do not match the citizens on the crossings (BuildMasksC)"
    return f"something is pending in phase {ph}"

cdef object state_problem(const DataC* d, const StateC* s):
    """invariants.check_invariants's first problem, in C: the memory-safety guard, then the rules' invariants."""
    cdef int arg[2]
    cdef object bounds = raw_bounds_problem(d, s)
    if bounds is not None:
        return f"core bounds: {bounds}"
    return invariant_message(d, s, state_invariant_problem(d, s, arg), arg)

cdef object walk_error(long long seed, int players, bint printed, int depth, long long total, what):
    """The BarcelonaError of State._walk_with_invariants: which game, which action, what went wrong."""
    return BarcelonaError(f"walk: game seed {seed} ({players} players, {'printed' if printed else 'random'} setup), "
                          f"action {depth} of the game ({total} of the walk): {what}")


# ============================================================================================================
# the typed read-only view (view.py): built field by field from the C struct, no dict in between
# ============================================================================================================

cdef inline object _opt(int v):
    """-1 (none) as None."""
    return None if v < 0 else v


cdef inline tuple _ids(uint32_t mask, int width):
    """The ids whose bit is set, ascending (one allocation: the tuple)."""
    cdef int i, j = 0
    if width < 32:
        mask &= (<uint32_t>1 << width) - 1
    cdef tuple t = PyTuple_New(popcount32(mask))
    cdef object o
    while mask:
        o = ctz32(mask)
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, j, o)
        j += 1
        mask &= mask - 1
    return t


cdef inline tuple _opt_tuple(const int16_t* a, int n):
    cdef tuple t = PyTuple_New(n)
    cdef object o
    cdef int i
    for i in range(n):
        o = None if a[i] < 0 else a[i]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i, o)
    return t


cdef inline tuple _int_tuple(const int16_t* a, int n):
    cdef tuple t = PyTuple_New(n)
    cdef object o
    cdef int i
    for i in range(n):
        o = a[i]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i, o)
    return t


# The views are NamedTuples; their generated __new__ is a Python function, slower than the whole rest of a view:
# they are made as tuple.__new__(cls, values) does, with every field in the class's order.
_TUPLE_NEW = tuple.__new__

# Small tuples the view uses again and again, built once (tuples are immutable, so sharing them is safe).
_CROSSING_TUPLES = [() if lo < 0 else (lo,) if hi < 0 else (lo, hi) for lo in range(-1, 3) for hi in range(-1, 3)]
_BOOL_TUPLES_3 = [tuple(bool((m >> i) & 1) for i in range(3)) for m in range(8)]
_BOOL_TUPLES_5 = [tuple(bool((m >> i) & 1) for i in range(5)) for m in range(32)]
_HANDS = [(a, b, c) for a in range(3) for b in range(3) for c in range(3)]


cdef tuple _crossing(int lo, int hi):
    if -1 <= lo <= 2 and -1 <= hi <= 2:
        return _CROSSING_TUPLES[(lo + 1) * 4 + hi + 1]
    if lo < 0:
        return ()
    if hi < 0:
        return (lo,)
    return (lo, hi)


cdef inline bint _hand_marked_hidden(const PlayerC* pl) noexcept nogil:
    """A hand written as [size, -1, -1] (a state built from an observation, State.observation)."""
    return pl.hand[1] < 0 or pl.hand[2] < 0


cdef inline int _known_hand_size(const PlayerC* pl) noexcept nogil:
    return imax(pl.hand[0], 0) if _hand_marked_hidden(pl) else hand_size(pl)


cdef object _player_view(const PlayerC* pl, int seat, bint hide_hand):
    cdef int i, up = 0
    hand = None
    if not hide_hand and not _hand_marked_hidden(pl):
        if 0 <= pl.hand[0] <= 2 and 0 <= pl.hand[1] <= 2 and 0 <= pl.hand[2] <= 2:
            hand = _HANDS[pl.hand[0] * 9 + pl.hand[1] * 3 + pl.hand[2]]
        else:
            hand = (pl.hand[0], pl.hand[1], pl.hand[2])
    for i in range(5):
        if pl.mod_up[i]:
            up |= 1 << i
    return _TUPLE_NEW(PlayerView, (
        seat, pl.score, _int_tuple(pl.vp_src, NSRC), pl.coins, pl.cloth, pl.cobbles, pl.inters, pl.narrow,
        pl.wide, pl.passengers, _opt(pl.tram), pl.markers, pl.cerda, pl.sagrada, _opt_tuple(pl.mod_tile, 5),
        _BOOL_TUPLES_5[up], _opt_tuple(pl.sag_tile, 3), _ids(<uint16_t>pl.ps_built, 16), hand,
        _known_hand_size(pl), pl.turns))


cdef object _frame_view(const FrameC* f):
    return _TUPLE_NEW(FrameView, (f.kind, FRAME_KIND_NAMES.get(f.kind, str(f.kind)), f.player, f.a, f.b, f.src, f.lst))


cdef object state_view(const DataC* d, const StateC* s, int viewpoint):
    """The StateView of `s` for `viewpoint` (-1: the whole state). The caller checks the seat."""
    cdef int p, k, c, bs
    cdef const PlayerC* pl
    cdef tuple crossings = PyTuple_New(NCROSS), markers = PyTuple_New(NBSPACE)
    cdef object o
    for c in range(NCROSS):
        o = _crossing(s.cross_lo[c], s.cross_hi[c])
        Py_INCREF(o)
        PyTuple_SET_ITEM(crossings, c, o)
    for bs in range(NBSPACE):
        o = _int_tuple(&s.bld_mark[bs * 3], imax(imin(s.bld_n[bs], 3), 0))
        Py_INCREF(o)
        PyTuple_SET_ITEM(markers, bs, o)
    bag = (s.bag[0], s.bag[1], s.bag[2])
    pool = None
    if viewpoint >= 0:
        pool = [s.bag[0], s.bag[1], s.bag[2]]
        for p in range(s.num_players):
            pl = &s.pl[p]
            if p != viewpoint and not _hand_marked_hidden(pl):
                for k in range(NCLASS):
                    pool[k] += pl.hand[k]
        pool = tuple(pool)
        bag = None
    players = tuple([_player_view(&s.pl[p], p, viewpoint >= 0 and p != viewpoint) for p in range(s.num_players)])
    return _TUPLE_NEW(StateView, (
        None if viewpoint < 0 else viewpoint, s.num_players, s.cur, state_current_player(d, s), s.phase,
        PHASE_NAMES[s.phase] if 0 <= s.phase < len(PHASE_NAMES) else str(s.phase),
        _int_tuple(s.street_action, NSTREET), crossings, _opt_tuple(s.cross_int, NCROSS),
        _opt_tuple(s.street_owner, NSPACE), _opt_tuple(s.passenger, NSPACE), _int_tuple(s.bld_level, NBSPACE),
        markers, _int_tuple(s.bld_stack, 4), _ids(<uint16_t>s.bonus_rows, 16),
        tuple([_ids(s.track[k], 32) for k in range(NCLASS)]), _int_tuple(s.track_off, NCLASS),
        _int_tuple(s.cerda_tile, 3), _BOOL_TUPLES_3[s.scored & 7], s.scorings,
        _ids(s.mod_stack, 32), _ids(s.mod_display, 32), _ids(s.mod_discard, 32), _opt_tuple(s.ps_left, NPS),
        _ids(s.sag_offer, 32), _ids(s.sidewalk, 32), bag, pool, players,
        _opt(s.place_crossing), _ids(<uint16_t>s.streets_used, 16),
        tuple([_frame_view(&s.frames[k]) for k in range(imax(imin(s.nframes, MAX_FRAMES), 0))]),
        _opt(s.discard_player), s.reveal_pending, s.refresh_pending, s.draws_left, s.activity != 0,
        s.end_triggered != 0))


cdef class History:
    """The undo history of one or more States (State.clone shares it instead of copying it).

    Entry i holds the state before the (i+1)-th action and that action. A State uses the first `nhistory`
    entries. Entries are written only at the tip (`length`), so a sharer's entries never change under it:
    - a State at the tip appends in place (a sharer behind the tip will copy before it appends);
    - a State behind the tip (it undid, or a sharer appended) that is the only user drops the entries past its
      own and appends; one that shares the history first copies its own entries into a new one."""

    def __cinit__(self):
        self.snaps = NULL
        self.acts = NULL
        self.length = 0
        self.cap = 0
        self.users = 0

    def __dealloc__(self):
        free(self.snaps)
        free(self.acts)

    cdef int grow(self) except -1:
        cdef int newcap = 64 if self.cap == 0 else self.cap * 2
        cdef StateC* snaps = <StateC*>realloc(self.snaps, newcap * sizeof(StateC))
        if snaps == NULL:
            raise MemoryError()
        self.snaps = snaps
        cdef action_t* acts = <action_t*>realloc(self.acts, newcap * sizeof(action_t))
        if acts == NULL:
            raise MemoryError()
        self.acts = acts
        self.cap = newcap
        return 0


cdef History history_copy(History src, int n):
    """A new History holding the first n entries of src (copy-on-write: a sharer about to append)."""
    cdef History h = History.__new__(History)
    while h.cap < n:
        h.grow()
    memcpy(h.snaps, src.snaps, n * sizeof(StateC))
    memcpy(h.acts, src.acts, n * sizeof(action_t))
    h.length = n
    h.users = 1
    return h


cdef class State:
    """A game of Barcelona: the C state plus an undo history (the State contract of OpenSpiel; README "Using it")."""

    def __dealloc__(self):                    # (Cython starts `log` at None and `nhistory` at 0)
        if self.log is not None:
            self.log.users -= 1

    cdef void _drop_history(self):
        """Forget the history (this state's share of it)."""
        if self.log is not None:
            self.log.users -= 1
            self.log = None
        self.nhistory = 0

    cdef void _push_history(self, action_t a) except *:
        """Record the state before action `a` (see History for when the entries are copied)."""
        cdef History log = self.log
        if log is None:
            log = History.__new__(History)
            log.users = 1
            self.log = log
        elif self.nhistory != log.length:
            if log.users == 1:
                log.length = self.nhistory                        # entries this state undid
            else:
                log.users -= 1
                log = history_copy(log, self.nhistory)
                self.log = log
        if log.length == log.cap:
            log.grow()
        memcpy(&log.snaps[log.length], &self.c, sizeof(StateC))
        log.acts[log.length] = a
        log.length += 1
        self.nhistory = log.length

    @staticmethod
    def new(players=4, seed=0, edition="default", setup="random"):
        """A new game: `players` 2..4, every random setup choice from `seed`; setup "random" or "printed" (R11)."""
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise PlayerCountError(f"Barcelona is played by 2 to 4 players, not {players!r}")
        if setup not in ("random", "printed"):
            raise BarcelonaError(f"setup must be 'random' or 'printed', not {setup!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise BarcelonaError(f"seed must be an integer from 0 to 2**64 - 1, not {seed!r}")
        cdef State st = State.__new__(State)
        st.data = game_data(edition)
        state_setup(&st.data.c, &st.c, players, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF), setup == "printed")
        return st

    # -- the contract ---------------------------------------------------------------------------------
    @property
    def num_players(self):
        return self.c.num_players

    @property
    def edition(self):
        return self.data.edition.name

    @property
    def game_data(self):
        return self.data

    def current_player(self):
        """Seat that decides now; CHANCE (-1) at a chance node; TERMINAL (-4) at the end."""
        return state_current_player(&self.data.c, &self.c)

    def is_chance_node(self):
        return state_current_player(&self.data.c, &self.c) == CHANCE

    def is_terminal(self):
        return self.c.phase == PH_OVER

    def legal_actions(self):
        cdef action_t buf[MAX_LEGAL]
        cdef int n = state_legal_actions(&self.data.c, &self.c, buf)
        return [buf[i] for i in range(n)]

    def chance_outcomes(self):
        """[(action, probability), ...] at a chance node, else []."""
        cdef action_t buf[MAX_LEGAL]
        cdef double prob[MAX_LEGAL]
        cdef int n = state_chance_outcomes(&self.data.c, &self.c, buf, prob)
        return [(buf[i], prob[i]) for i in range(n)]

    def apply(self, action):
        """Apply a legal action id; an illegal one raises IllegalActionError and changes nothing."""
        if type(action) is not int:         # the fast path is a plain int; others are converted here
            value = integer_value(action)
            if value is None:
                raise IllegalActionError(f"an action is an integer id, not {action!r}")
            action = value
        if not 0 <= action < NUM_ACTIONS or not state_is_legal(&self.data.c, &self.c, <action_t>action):
            raise IllegalActionError(self._illegal_message(action))
        self._push_history(<action_t>action)
        state_apply(&self.data.c, &self.c, <action_t>action)

    def _illegal_message(self, action):
        """'<move>' cannot be played now: <why, in the rules' words> (the why_illegal text service, explain.py)."""
        if not 0 <= action < NUM_ACTIONS:
            return f"{action} is not an action id (ids are 0..{NUM_ACTIONS - 1})"
        what = _text_service("describe_action_id")(action)
        return f"'{what}' cannot be played now: {_text_service('why_illegal')(self, action)}"

    def undo(self):
        """Undo the last apply exactly (the state is restored bit for bit)."""
        if self.nhistory == 0:
            raise BarcelonaError("nothing to undo")
        self.nhistory -= 1
        memcpy(&self.c, &self.log.snaps[self.nhistory], sizeof(StateC))

    def history(self):
        """The actions applied since this state was created or loaded, oldest first."""
        return [self.log.acts[i] for i in range(self.nhistory)]

    def clone(self):
        """An independent copy, history included: undo() and history() work on it as on the original. The
        history is shared, not copied (copy-on-write, see History): a clone costs the same at any depth."""
        cdef State st = State.__new__(State)
        st.data = self.data
        memcpy(&st.c, &self.c, sizeof(StateC))
        if self.log is not None:
            st.log = self.log
            st.nhistory = self.nhistory
            self.log.users += 1
        return st

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def hash(self):
        """64-bit hash of the whole state (hidden hands included)."""
        return state_hash(&self.c)

    def observation_hash(self, player):
        """64-bit hash of what `player` may know (A6); equal for states that differ only in hidden hands."""
        self._check_seat(player)
        return state_observation_hash(&self.c, player)

    def _check_seat(self, player):
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.c.num_players:
            raise PlayerCountError(f"no seat {player!r} in a {self.c.num_players}-player game")

    def scores(self):
        """VP of each player (final scores once the game is over)."""
        return [self.c.pl[p].score for p in range(self.c.num_players)]

    def score_breakdown(self):
        """Per player, a dict of VP by source (see SOURCES)."""
        return [{SOURCES[k]: self.c.pl[p].vp_src[k] for k in range(NSRC)} for p in range(self.c.num_players)]

    def returns(self):
        """Win share per player at the end (ties after the tie-breakers split the win), zeros before."""
        cdef double out[MAX_PLAYERS]
        state_returns(&self.data.c, &self.c, out)
        return [out[p] for p in range(self.c.num_players)]

    def winners(self):
        """The seats that won once the game is over (the highest return; a tie after R127's tie-breakers
        shares the win), ascending; empty before the end."""
        ret = self.returns()
        best = max(ret)
        return [p for p in range(len(ret)) if best > 0 and ret[p] == best]

    def condition_count(self, cond, player):
        """How many times `player` fulfils a scoring condition ('SC05' or its index 0..ncond-1)."""
        self._check_seat(player)
        names = [n.split()[0] for n in self.data.edition.t["cond_names"]]
        if isinstance(cond, str):
            if cond not in names:
                raise BarcelonaError(f"cond: {cond!r} is not a scoring condition of this edition "
                                     f"({', '.join(names)})")           # (no names[-1]: wraparound is off)
            idx = names.index(cond)
        elif isinstance(cond, bool) or not isinstance(cond, int) or not 0 <= cond < self.data.c.ncond:
            raise BarcelonaError(f"cond: {cond!r} is not a condition name or index 0..{self.data.c.ncond - 1}")
        else:
            idx = cond
        return condition_count(&self.data.c, &self.c, idx, player)

    def determinize(self, viewpoint, seed):
        """A full state consistent with what `viewpoint` knows: other hands resampled from the unseen pool. It
        has no history (undo() and history() cannot reach the real past) and depends only on `viewpoint`'s
        observation and `seed`."""
        self._check_seat(viewpoint)
        cdef uint64_t rng = _seed64(seed)
        cdef State st = State.__new__(State)
        st.data = self.data
        memcpy(&st.c, &self.c, sizeof(StateC))
        state_determinize(&self.data.c, &st.c, viewpoint, &rng)
        return st

    # -- the unseen citizens (A6): who draws, and resampling what a viewpoint cannot see -------------------
    def draws_for(self):
        """At a citizen draw (a chance node, R34 step 4): the seat whose hand receives the citizen; else None.
        Only that seat sees what is drawn (A6)."""
        if state_current_player(&self.data.c, &self.c) != CHANCE or self.c.reveal_pending > 0:
            return None
        return self.c.cur

    def is_hidden_draw(self, viewpoint):
        """Whether the chance node at hand is a citizen draw that `viewpoint` does not see (another seat's, A6).
        The one statement of that rule for Python callers; the search uses the same test in C (hidden_draw)."""
        who = self.draws_for()
        return who is not None and who != viewpoint

    def places(self):
        """Each seat's place at the end, 1 = first: most VP, then the tie-breakers Cerdà, Sagrada, Building
        markers (R127, A42); seats still tied share the place. Before the end: the same order on the VP so far."""
        cdef int p, q, n = self.c.num_players
        out = []
        for p in range(n):
            out.append(1 + sum(1 for q in range(n) if q != p and tiebreak_cmp(&self.c, q, p) > 0))
        return out

    def _check_unseen_edit(self, player, seat):
        self._check_seat(player)
        if player == seat:
            raise BarcelonaError(f"seat {seat}'s own hand is seen by seat {seat}: it cannot be resampled")

    @staticmethod
    def _class_counts(classes):
        """[W, M, U] counts of a list of citizen class ids (BarcelonaError for anything else)."""
        if not isinstance(classes, (list, tuple)) or len(classes) > 3:
            raise BarcelonaError(f"citizen classes are a list of at most 3 class ids, not {classes!r}")
        want = [0] * NCLASS
        for x in classes:
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < NCLASS:
                raise BarcelonaError(f"no citizen class {x!r}")
            want[x] += 1
        return want

    def _hold(self, player, classes):
        """Resample the unseen citizens so that seat `player`'s hidden hand holds `classes` (class ids, with
        repeats): citizens are swapped with the bag, keeping the ones that already match. For a state that is a
        sample of what someone else sees (a table-mode replay, a main line): another sample consistent with the
        same observation (A6). Raises BarcelonaError, changing nothing, if the bag cannot supply them."""
        cdef int k, j
        cdef int want[NCLASS]
        cdef int hand[NCLASS]
        cdef int bag[NCLASS]
        self._check_seat(player)
        counts = State._class_counts(classes)
        for k in range(NCLASS):
            want[k] = counts[k]
            hand[k] = self.c.pl[player].hand[k]
            bag[k] = self.c.bag[k]
        if want[0] + want[1] + want[2] > hand[0] + hand[1] + hand[2]:
            raise BarcelonaError(f"player {player} holds {hand[0] + hand[1] + hand[2]} citizens, cannot place "
                                 f"{want[0] + want[1] + want[2]}")
        for k in range(NCLASS):
            while hand[k] < want[k]:
                j = 0
                while j < NCLASS and hand[j] <= want[j]:
                    j += 1
                if j == NCLASS or bag[k] == 0:
                    raise BarcelonaError(f"no unseen {'WMU'[k]} citizen is left for player {player} to hold")
                hand[j] -= 1
                bag[j] += 1
                hand[k] += 1
                bag[k] -= 1
        for k in range(NCLASS):
            self.c.pl[player].hand[k] = hand[k]
            self.c.bag[k] = bag[k]

    def _pull_into_bag(self, int k, exclude):
        """Move a citizen of class k from a hidden hand (of a seat not in `exclude`) into the bag, giving that hand
        a citizen of another class from the bag: the sampled split of the unseen citizens changes, nothing seen
        does. Returns whether one was moved."""
        cdef int q, j
        for q in range(self.c.num_players):
            if q in exclude or self.c.pl[q].hand[k] <= 0:
                continue
            j = 0
            while j < NCLASS and (j == k or self.c.bag[j] <= 0):
                j += 1
            if j == NCLASS:
                return False
            self.c.pl[q].hand[k] -= 1
            self.c.pl[q].hand[j] += 1
            self.c.bag[k] += 1
            self.c.bag[j] -= 1
            return True
        return False

    def _make_drawable(self, k, seat):
        """Before `seat`'s own draw of class k at a real table: if the sampled hidden hands hold every unseen
        citizen of that class, move one back to the bag (nothing `seat` has seen changes). BarcelonaError if no
        unseen citizen of that class is left."""
        self._check_seat(seat)
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < NCLASS:
            raise BarcelonaError(f"no citizen class {k!r}")
        if self.c.bag[k] > 0 or self._pull_into_bag(k, {seat}):
            return
        pool = self.unseen_pool(seat)
        raise BarcelonaError(f"no {'WMU'[k]} citizen is left unseen (unseen: "
                             + ", ".join(f"{'WMU'[j]} {pool[j]}" for j in range(NCLASS)) + ")")

    def _give_hand(self, p, classes, seat):
        """Make another player's sampled hand hold `classes` (what they visibly placed, seen by `seat`): citizens
        come from the bag (_hold), and first from third players' hidden hands when the bag and p's hand cannot
        supply them; the third player gets back a citizen the bag can spare, or else one of p's that p does not
        need. BarcelonaError (nothing changed) when the unseen citizens cannot supply them."""
        cdef StateC saved
        cdef int k, j, q
        cdef int want[NCLASS]
        self._check_unseen_edit(p, seat)
        self._check_seat(seat)
        counts = State._class_counts(classes)
        memcpy(&saved, &self.c, sizeof(StateC))
        for k in range(NCLASS):
            want[k] = counts[k]
        cdef int16_t* hand = self.c.pl[p].hand
        cdef int16_t* bag = self.c.bag
        if want[0] + want[1] + want[2] <= hand[0] + hand[1] + hand[2]:
            for k in range(NCLASS):
                while want[k] > hand[k] + bag[k]:
                    q = 0
                    while q < self.c.num_players and (q == seat or q == p or self.c.pl[q].hand[k] <= 0):
                        q += 1
                    if q == self.c.num_players:
                        break
                    j = 0
                    while j < NCLASS and (j == k or bag[j] <= imax(0, want[j] - hand[j])):
                        j += 1
                    if j < NCLASS:                          # q swaps its k for a spare citizen of the bag
                        bag[j] -= 1
                        bag[k] += 1
                    else:                                   # q swaps its k for one p holds and does not need
                        j = 0
                        while hand[j] <= want[j]:
                            j += 1
                        hand[j] -= 1
                        hand[k] += 1
                    self.c.pl[q].hand[k] -= 1
                    self.c.pl[q].hand[j] += 1
        try:
            self._hold(p, list(classes))
        except BarcelonaError:
            memcpy(&self.c, &saved, sizeof(StateC))
            raise

    def unseen_pool(self, seat):
        """Citizens `seat` has not seen, by class: the bag and every other player's hand (A6)."""
        cdef int p, k
        self._check_seat(seat)
        pool = [self.c.bag[k] for k in range(NCLASS)]
        for p in range(self.c.num_players):
            if p != seat:
                for k in range(NCLASS):
                    pool[k] += max(self.c.pl[p].hand[k], 0)
        return pool

    def playout(self, seed):
        """Uniformly random legal play from here to the end, in C, on a copy; returns the final scores."""
        cdef uint64_t rng = _seed64(seed)
        cdef StateC tmp
        memcpy(&tmp, &self.c, sizeof(StateC))
        with nogil:
            state_playout(&self.data.c, &tmp, &rng)
        return [tmp.pl[p].score for p in range(tmp.num_players)]

    def random_games(self, games, seed):
        """Play n random games from here in C (benchmarks); returns the total number of actions applied."""
        cdef uint64_t rng = _seed64(seed)
        cdef StateC tmp
        cdef long long total = 0
        cdef int i, n = _count_arg("games", games, 0, 10**9)
        with nogil:
            for i in range(n):
                memcpy(&tmp, &self.c, sizeof(StateC))
                total += state_playout(&self.data.c, &tmp, &rng)
        return total

    def apply_undo_walk(self, actions, seed):
        """n random applies each followed by an undo-by-copy (benchmarks); returns n."""
        cdef uint64_t rng = _seed64(seed)
        cdef StateC tmp, saved
        cdef action_t buf[MAX_LEGAL]
        cdef int i, k, cnt, n = _count_arg("actions", actions, 0, 2 * 10**9)
        memcpy(&tmp, &self.c, sizeof(StateC))
        with nogil:
            for i in range(n):
                if tmp.phase == PH_OVER:
                    memcpy(&tmp, &self.c, sizeof(StateC))
                cnt = state_legal_actions(&self.data.c, &tmp, buf)
                k = <int>rand_below(&rng, cnt)
                memcpy(&saved, &tmp, sizeof(StateC))
                state_apply(&self.data.c, &tmp, buf[k])
                memcpy(&tmp, &saved, sizeof(StateC))
                state_apply(&self.data.c, &tmp, buf[k])
        return n

    def perft(self, depth):
        """Number of action sequences of length `depth` (chance outcomes counted as actions)."""
        cdef StateC saved
        depth = _count_arg("perft depth", depth, 0, 64)
        if depth == 0:
            return 1
        acts = self.legal_actions()
        if depth == 1:
            return len(acts)
        total = 0
        memcpy(&saved, &self.c, sizeof(StateC))
        for a in acts:
            state_apply(&self.data.c, &self.c, a)
            total += self.perft(depth - 1)
            memcpy(&self.c, &saved, sizeof(StateC))
        return total

    # -- the typed read-only view (view.py) and small accessors --------------------------------------------
    def view(self, viewpoint=None):
        """The state as a read-only view.StateView (players, board, tracks, display, the turn in progress) with
        Python types: None for "none", tuples of ids for sets. With `viewpoint` (a seat): only what that seat may
        know (A6): the other hands are None (their sizes stay), the bag is None and unseen_pool holds the bag
        plus those hands. The Python layer reads the state through this, not raw()."""
        if viewpoint is None:
            return state_view(&self.data.c, &self.c, -1)
        self._check_seat(viewpoint)
        return state_view(&self.data.c, &self.c, viewpoint)

    @property
    def turn_player(self):
        """The seat whose turn it is (who decides may differ: current_player())."""
        return self.c.cur

    @property
    def phase(self):
        """The phase of the turn: a PH_* value of CONSTANTS (see phase_name)."""
        return self.c.phase

    @property
    def phase_name(self):
        """The phase of the turn by name: view.PHASE_NAMES ("place", "actions", "build", ..., "over")."""
        return PHASE_NAMES[self.c.phase]

    @property
    def round_number(self):
        """The round being played, from 1: one more than the fewest turns any player has completed."""
        return min([self.c.pl[p].turns for p in range(self.c.num_players)]) + 1

    def hand(self, player):
        """The citizens `player` holds, by class (W, M, U); None for a hand hidden in this state (one built from
        an observation). Whoever may see it is the caller's business: view(viewpoint) is the safe form."""
        self._check_seat(player)
        if _hand_marked_hidden(&self.c.pl[player]):
            return None
        return (self.c.pl[player].hand[0], self.c.pl[player].hand[1], self.c.pl[player].hand[2])

    def hand_size(self, player):
        """How many citizens `player` holds (public, A6)."""
        self._check_seat(player)
        return _known_hand_size(&self.c.pl[player])

    # -- raw access for the position loader and tests ---------------------------------------------------
    def raw(self):
        """The C state as nested Python dicts and lists (field names of core.pxd), without the derived masks."""
        return position_dict(&self.c)

    def _set_raw(self, dict raw):
        """Internal: replace the state by a raw dict (as from raw()) and clear the history. Only the memory-safety
        guard runs (raw_bounds_problem: every index in range, BarcelonaError otherwise); the rules are not
        checked, so the result may be unreachable. Position documents are the validated way in (position.py)."""
        cdef StateC tmp
        raw_to_state(&self.data.c, raw, &tmp, "raw state")
        memcpy(&self.c, &tmp, sizeof(StateC))
        self._drop_history()

    @staticmethod
    def _from_raw(dict raw, edition="default"):
        """Internal: a state from a raw dict (see _set_raw), with no history."""
        cdef State st = State.__new__(State)
        st.data = game_data(edition)
        st._set_raw(raw)
        return st

    def _bounds_problem(self):
        """The core's memory-safety guard on this state (raw_bounds_problem): a message, or None (invariants.py)."""
        return raw_bounds_problem(&self.data.c, &self.c)

    def settle(self):
        """Run the automatic steps (after _set_raw of a hand-made position)."""
        settle(&self.data.c, &self.c)

    def observation(self, player):
        """What `player` may know, as a raw dict: other hands as [size, -1, -1], the bag as the unseen pool."""
        self._check_seat(player)
        cdef StateC tmp
        observation_state(&self.c, player, &tmp)
        return position_dict(&tmp)

    # -- notation, positions, text (Python modules above the core, registered as text services) ----------
    def action_to_string(self, action):
        return _text_service("action_to_string")(self, action)

    def string_to_action(self, text):
        return _text_service("string_to_action")(self, text)

    def to_json(self, viewpoint=None):
        return _text_service("state_to_json")(self, viewpoint)

    @staticmethod
    def from_json(doc, seed=0, edition=None):
        return _text_service("state_from_json")(doc, seed, edition)

    def render(self):
        return _text_service("render_state")(self)

    def __str__(self):
        return self.render()

    def __repr__(self):
        return (f"<State {self.c.num_players}p turn {sum(self.c.pl[p].turns for p in range(self.c.num_players))} "
                f"player {self.current_player()} hash {self.hash():016x}>")

    def __reduce__(self):
        snaps = [position_dict(&self.log.snaps[i]) for i in range(self.nhistory)]
        return (_state_from_pickle, (self.data.edition.source, position_dict(&self.c), snaps, self.history()))

    # -- the rules' invariants in C (for the tests) ----------------------------------------------------------
    def _invariant_problem(self):
        """invariants.check_invariants(self)'s first problem, checked in C (the same words), or None."""
        return state_problem(&self.data.c, &self.c)

    @staticmethod
    def _walk_with_invariants(actions, first_seed=0, edition="default", corrupt_at=-1):
        """The long random walk of the tests, in C: seeded random games (seeds first_seed, first_seed + 1, ...;
        2 + seed % 3 players; the printed setup for even seeds, a random one for odd) until `actions` actions
        are applied. After every action the memory-safety guard and the rules' invariants run (state_problem,
        invariants.check_invariants in C). About 3% of actions are followed by a detour of 1..3 undos; every
        game ends by undoing back to its start. Undo is State.undo's (the history's snapshots) and every undo is
        compared with the state recorded at that depth, hash and bytes. Returns counts (games, actions, undos,
        longest game); the first problem raises BarcelonaError naming the game and the action. `corrupt_at`, a
        test hook: after that action of the walk (1-based), one citizen too many goes into the bag."""
        cdef long long n = _count_arg("actions", actions, 0, 10**10), total = 0, undos = 0, games = 0
        cdef long long corrupt = _count_arg("corrupt_at", corrupt_at, -1, 10**10)
        cdef long long seed = _count_arg("first_seed", first_seed, 0, 2**62)
        cdef GameData gd = game_data(edition)
        cdef const DataC* d = &gd.c
        cdef State st = State.__new__(State)
        cdef action_t buf[MAX_LEGAL]
        cdef StateC* rec = NULL
        cdef StateC* grown
        cdef uint64_t* hashes = NULL
        cdef uint64_t* hgrown
        cdef uint64_t rng
        cdef int players, depth, cap = 0, cnt, k, j, longest = 0, code
        cdef int arg[2]
        cdef bint printed
        cdef action_t a
        st.data = gd
        try:
            while total < n:
                PyErr_CheckSignals()
                players = 2 + <int>(seed % 3)
                printed = seed % 2 == 0
                rng = <uint64_t>seed * 7919 + <uint64_t>players
                state_setup(d, &st.c, players, <uint64_t>seed, printed)
                st.nhistory = 0                                                # (the only user: History truncates)
                depth = 0
                while True:
                    if depth + 1 >= cap:
                        cap = 1024 if cap == 0 else cap * 2
                        grown = <StateC*>realloc(rec, cap * sizeof(StateC))
                        if grown == NULL:
                            raise MemoryError()
                        rec = grown
                        hgrown = <uint64_t*>realloc(hashes, cap * sizeof(uint64_t))
                        if hgrown == NULL:
                            raise MemoryError()
                        hashes = hgrown
                    memcpy(&rec[depth], &st.c, sizeof(StateC))
                    hashes[depth] = state_hash(&st.c)
                    if st.c.phase == PH_OVER:
                        break
                    cnt = state_legal_actions(d, &st.c, buf)
                    if cnt <= 0:
                        raise walk_error(seed, players, printed, depth, total,
                                         "a state that is not terminal has no legal action")
                    a = buf[rand_below(&rng, cnt)]
                    st._push_history(a)
                    state_apply(d, &st.c, a)
                    depth += 1
                    total += 1
                    if total == corrupt:
                        st.c.bag[0] += 1
                    if raw_bounds_problem(d, &st.c) is not None or state_invariant_problem(d, &st.c, arg):
                        raise walk_error(seed, players, printed, depth, total, state_problem(d, &st.c))
                    if depth > 3 and rand_below(&rng, 100) < 3:              # a detour: undo 1..3, go on from there
                        k = 1 + <int>rand_below(&rng, 3)
                        for j in range(k):
                            st.nhistory -= 1                                   # State.undo
                            memcpy(&st.c, &st.log.snaps[st.nhistory], sizeof(StateC))
                            depth -= 1
                            undos += 1
                            if state_hash(&st.c) != hashes[depth] or memcmp(&st.c, &rec[depth], sizeof(StateC)):
                                raise walk_error(seed, players, printed, depth, total,
                                                 "an undo did not restore the state of that depth")
                games += 1
                longest = imax(longest, depth)
                if st.nhistory != depth:
                    raise walk_error(seed, players, printed, depth, total, f"{st.nhistory} actions in the history")
                while depth > 0:                                               # back to the start
                    st.nhistory -= 1
                    memcpy(&st.c, &st.log.snaps[st.nhistory], sizeof(StateC))
                    depth -= 1
                    undos += 1
                    if state_hash(&st.c) != hashes[depth] or memcmp(&st.c, &rec[depth], sizeof(StateC)):
                        raise walk_error(seed, players, printed, depth, total,
                                     "undoing to the start did not restore the state of that depth")
                seed += 1
        finally:
            free(rec)
            free(hashes)
        return {"games": games, "actions": total, "undos": undos, "longest_game": longest, "next_seed": seed}

def _state_from_pickle(source, raw, snaps, actions):
    """Unpickle a State: the state and each undo snapshot pass the memory-safety guard (raw_bounds_problem), the
    actions are action ids; a tampered pickle raises BarcelonaError instead of reaching C unchecked."""
    cdef State st = State._from_raw(raw, source)
    cdef StateC tmp
    if not isinstance(snaps, list) or not isinstance(actions, list) or len(snaps) != len(actions):
        raise BarcelonaError("pickled state: the undo history is malformed")
    for snap, a in zip(snaps, actions):
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < NUM_ACTIONS:
            raise BarcelonaError(f"pickled state: history action {a!r} is not an action id")
        if not isinstance(snap, dict):
            raise BarcelonaError("pickled state: an undo snapshot is not a raw state")
        raw_to_state(&st.data.c, snap, &tmp, "pickled state: undo snapshot")
        st._push_history(a)
        memcpy(&st.log.snaps[st.nhistory - 1], &tmp, sizeof(StateC))
    return st


SOURCES = ("streets", "buildings", "actions", "intersections", "sidewalk", "sagrada", "public_services",
           "cerda_scoring", "cerda_overflow", "final_cobblestones", "final_passengers", "final_modernisme")

CONSTANTS = dict(
    CHANCE=CHANCE, TERMINAL=TERMINAL, NUM_ACTIONS=NUM_ACTIONS,
    A_PLACE=A_PLACE, A_INT_PICK=A_INT_PICK, A_INT_DONE=A_INT_DONE, A_GAIN_COINS=A_GAIN_COINS,
    A_GAIN_CLOTH=A_GAIN_CLOTH, A_CERDA=A_CERDA, A_COBBLE=A_COBBLE, A_STREET=A_STREET,
    A_INTERSECTION=A_INTERSECTION, A_MOD_IMPROVE=A_MOD_IMPROVE, A_MOD_TAKE=A_MOD_TAKE, A_PS=A_PS, A_TRAM=A_TRAM,
    A_PASSENGER=A_PASSENGER, A_SKIP=A_SKIP, A_END_ACTIONS=A_END_ACTIONS, A_SAG_STEP=A_SAG_STEP,
    A_SAG_STOP=A_SAG_STOP, A_SAG_TILE=A_SAG_TILE, A_RES=A_RES, A_DISCARD_COIN=A_DISCARD_COIN,
    A_DISCARD_CLOTH=A_DISCARD_CLOTH, A_BUILD=A_BUILD, A_DRAW=A_DRAW, A_REVEAL=A_REVEAL,
    PH_PLACE=PH_PLACE, PH_ACTIONS=PH_ACTIONS, PH_BUILD=PH_BUILD, PH_END=PH_END, PH_REFRESH=PH_REFRESH,
    PH_DRAW=PH_DRAW, PH_OVER=PH_OVER,
    FR_EFFECTS=FR_EFFECTS, FR_GRANT=FR_GRANT, FR_NARROW2=FR_NARROW2, FR_PASSENGER=FR_PASSENGER,
    FR_SAGRADA=FR_SAGRADA, FR_SAG_TILE=FR_SAG_TILE, FR_RES=FR_RES, FR_INT_PICK=FR_INT_PICK,
    MAX_FRAMES=MAX_FRAMES,
)
