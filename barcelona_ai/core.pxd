# See core.pyx for details.
# The C-level contract of the rules core: constants, the action-id layout, the state and data structs, and the
# nogil functions the search cimports.
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t

ctypedef int32_t action_t

cdef enum:
    MAX_PLAYERS = 4
    NCROSS = 25            # crossings (c,r) -> r*5+c
    NSPACE = 44            # street spaces V 0..19, H 20..39, D 40..43
    NSTREET = 11           # vertical 0..4, horizontal 5..9, diagonal 10
    NBSPACE = 20           # building spaces (12 normal, 8 corner)
    NSIDE = 30             # Sidewalk 5x6
    NMOD = 18              # Modernisme tiles
    NSAG = 16              # Sagrada Familia tiles
    NPS = 7                # Public Service types
    NCLASS = 3             # WORKING, MIDDLE, UPPER
    NCOND = 19             # scoring-condition kinds
    MAX_FRAMES = 24
    MAX_LISTS = 256
    MAX_EFF = 4
    MAX_OPTS = 256
    MAX_TRACK = 32
    MAX_CERDA = 16
    NSRC = 12              # VP sources (see SRC_*)
    # Components per player (R4); they size the player-board arrays, the data file gives their values.
    NINTER = 5             # Intersections
    NPASS = 5              # Passengers
    NPROJ = 5              # Modernisme project spaces
    NCOBBLE = 6            # Cobblestones in the Warehouse (R28)
    NMARKERS = 8           # Building markers (R29)
    NMSTACKS = 5           # stacks the markers start in (R29)

# Player ids returned by current_player() (OpenSpiel's values).
cdef enum:
    CHANCE = -1
    TERMINAL = -4

# ----------------------------------------------------------------------------------------------------------
# Action ids: one dense, state-independent space [0, NUM_ACTIONS). A turn is a sequence of these decisions.
#   A_PLACE + crossing*3 + top_class     place the hand on an empty crossing, top_class on top (R37)
#   A_INT_PICK + slot, A_INT_DONE        Intersection owner picks unlocked benefits (R62-R65, A23)
#   A_GAIN_COINS, A_GAIN_CLOTH, A_CERDA  the three actions without a choice (R42, R89)
#   A_COBBLE + sidewalk space            place a Cobblestone (R46)
#   A_STREET + street space              lay a Street tile; the space's type says Wide or Narrow (R50-R55)
#   A_INTERSECTION + crossing            build an Intersection (R57-R60)
#   A_MOD_IMPROVE + project space        raise a Modernisme marker (R66)
#   A_MOD_TAKE + tile*5 + project space  take a displayed Modernisme tile onto a project space (R71)
#   A_PS + type                          build a Public Service (R76)
#   A_TRAM + street space                place or move the Tram there (R81, R82, A16)
#   A_PASSENGER                          place a Passenger where the Tram stands (R83)
#   A_SKIP                               decline a granted action or the Passenger
#   A_END_ACTIONS                        end the crossing's actions, go to construction
#   A_SAG_STEP, A_SAG_STOP               take / decline a Sagrada step (R118, A36)
#   A_SAG_TILE + tile                    choose a Sagrada tile for the slot just passed (R119)
#   A_RES + coins                        split n free resources: this many Coins, the rest Cloth
#   A_DISCARD_COIN, A_DISCARD_CLOTH      return a token when the Warehouse overflows (R43, A39)
#   A_BUILD + option                     construct: (building space, type, crossings used) (R90-R103)
#   A_DRAW + class                       chance: a citizen drawn from the bag (R32, R34 step 4)
#   A_REVEAL + tile                      chance: a Modernisme tile revealed onto the display (R73, R111)
# The first choice of an action tile also starts that action (there is no separate "choose action" step);
# ids of different action tiles never overlap, so the street whose action it is follows from the id.
cdef enum:
    A_PLACE = 0
    A_INT_PICK = 75
    A_INT_DONE = 80
    A_GAIN_COINS = 81
    A_GAIN_CLOTH = 82
    A_CERDA = 83
    A_COBBLE = 84
    A_STREET = 114
    A_INTERSECTION = 158
    A_MOD_IMPROVE = 183
    A_MOD_TAKE = 188
    A_PS = 278
    A_TRAM = 285
    A_PASSENGER = 329
    A_SKIP = 330
    A_END_ACTIONS = 331
    A_SAG_STEP = 332
    A_SAG_STOP = 333
    A_SAG_TILE = 334
    A_RES = 350
    A_DISCARD_COIN = 356
    A_DISCARD_CLOTH = 357
    A_BUILD = 358
    A_DRAW = 614
    A_REVEAL = 617
    NUM_ACTIONS = 635
    MAX_LEGAL = 635

# Turn phases (StateC.phase).
cdef enum:
    PH_PLACE = 0        # step 1: place the hand (or skip, A1/A2)
    PH_ACTIONS = 1      # step 1: the crossing's actions
    PH_BUILD = 2        # step 2: construction (compulsory when possible, A4)
    PH_END = 3          # step 3: Cerdà scorings, end trigger (automatic)
    PH_REFRESH = 4      # Modernisme display refresh after each scoring (automatic + reveals)
    PH_DRAW = 5         # step 4: draw citizens (chance)
    PH_OVER = 6

# Frames: nested pieces of a turn that wait for a decision or resume automatically.
cdef enum:
    FR_EFFECTS = 1      # apply effect list `lst` from index `a`; resumes after nested frames
    FR_GRANT = 2        # a granted action of kind `a` (optional: A_SKIP is legal)
    FR_NARROW2 = 3      # the second Narrow tile of a Build 2 Narrow action (A14)
    FR_PASSENGER = 4    # after a Tram move to space `a`: place a Passenger? (`b` = coin cost waived)
    FR_SAGRADA = 5      # `a` optional Sagrada steps left
    FR_SAG_TILE = 6     # choose a Sagrada tile of level `a`, for slot `b`
    FR_RES = 7          # split `a` resources between Coins and Cloth
    FR_INT_PICK = 8     # Intersection owner picks: `a` picks left, `b` mask of slots taken

# Effect codes (tables.EFFECT_CODES order).
cdef enum:
    E_COIN = 0
    E_CLOTH = 1
    E_RES = 2
    E_VP = 3
    E_CERDA = 4
    E_SAGRADA = 5
    E_ACT = 6
    E_CLOTH_PER_BLOCK = 7
    E_MARKER = 8

# Granted-action kinds (tables.GRANT_KINDS order); 0..10 are the action tiles.
cdef enum:
    GK_COINS = 0
    GK_CLOTH = 1
    GK_COBBLE = 2
    GK_WIDE = 3
    GK_NARROW = 4
    GK_INTERSECTION = 5
    GK_MOD_IMPROVE = 6
    GK_MOD_TAKE = 7
    GK_PS = 8
    GK_TRAM = 9
    GK_CERDA = 10
    GK_STREETS = 11
    GK_INTERSECTION_FREE = 12
    GK_MOD_IMPROVE_FREE = 13
    GK_MOD_TAKE_FREE = 14
    GK_COBBLE_ANYWHERE = 15
    GK_TRAM_COIN_FREE = 16
    NGK = 17

# Scoring-condition kinds (tables.CONDITIONS order).
cdef enum:
    C_BLOCK_LINE = 0
    C_CLOTH_5 = 1
    C_COIN_5 = 2
    C_NARROW_LINE = 3
    C_INTERSECTION_ADJ3 = 4
    C_CERDA_MULT = 5
    C_WIDE_LINE = 6
    C_PUBLIC_SERVICES = 7
    C_NARROW_TILES = 8
    C_PASSENGER_ADJ2 = 9
    C_WIDE_TILES = 10
    C_MOD_TOP = 11
    C_PASSENGERS = 12
    C_COBBLESTONES = 13
    C_INTERSECTIONS = 14
    C_EMPTY_MARKER_STACKS = 15
    C_CORNER_BLOCKS = 16
    C_MOD_TILES = 17
    C_BOTTOM_MARKERS = 18

# Where VP came from (PlayerC.vp_src), for the score breakdown.
cdef enum:
    SRC_STREETS = 0          # street runs, and re-scoring by Passengers
    SRC_BUILDINGS = 1        # citizen-track VP, row bonus, Level-3 VP
    SRC_ACTIONS = 2          # Gain 1 Cloth + 3 VP
    SRC_INTERSECTIONS = 3    # Intersection benefits
    SRC_SIDEWALK = 4         # Cobblestone spaces
    SRC_SAGRADA = 5          # Sagrada tiles
    SRC_PUBLIC_SERVICES = 6
    SRC_CERDA_SCORING = 7
    SRC_CERDA_OVERFLOW = 8   # 2 VP per step past the top of the Cerdà track (R116)
    SRC_FINAL_COBBLESTONES = 9
    SRC_FINAL_PASSENGERS = 10
    SRC_FINAL_MODERNISME = 11


cdef struct FrameC:
    int8_t kind          # FR_*
    int8_t player        # who decides / receives
    int8_t a             # meaning per kind (see FR_*)
    int8_t b
    int8_t src           # SRC_* of VP gained by an effect list
    uint8_t lst          # effect list id (FR_EFFECTS)


cdef struct PlayerC:
    # No padding anywhere (the hash reads raw bytes): one 4-byte field, then only 2-byte fields, even count.
    int32_t score                # VP so far (unbounded, R7)
    int16_t vp_src[NSRC]         # the same VP split by source (SRC_*)
    int16_t coins                # Coins in the Warehouse
    int16_t cloth                # Cloth in the Warehouse
    int16_t cobbles              # Cobblestones taken out of the Warehouse, 0..6 (R45)
    int16_t inters               # Intersections built, 0..5 (leftmost first)
    int16_t narrow               # Narrow tiles laid, 0..10
    int16_t wide                 # Wide tiles laid, 0..5
    int16_t passengers           # Passengers placed, 0..5
    int16_t tram                 # street space of the Tram, -1 on the player board
    int16_t markers              # Building markers placed, 0..8
    int16_t cerda                # Cerdà track index
    int16_t sagrada              # Sagrada track index
    int16_t mod_tile[5]          # Modernisme tile on each project space, -1 empty
    int16_t mod_up[5]            # 1 when that space's marker is at the top
    int16_t sag_tile[3]          # Sagrada tile in each slot, -1 empty
    int16_t ps_built             # bit per Public Service type built
    int16_t hand[3]              # hidden citizens held, by class
    int16_t turns                # turns completed
    int16_t spare                # keeps the size a multiple of 4 (always 0)


cdef struct BuildMasksC:
    # Derived data: which crossings around each building space hold citizens, bit i for the space's i-th
    # crossing (DataC.bs_cross order). Kept up to date when citizens are placed or used (apply_place,
    # apply_build) and recomputed whenever a whole state is set (refresh_build_masks); not part of the position:
    # left out of the hash, raw() and the documents. The construction scan reads them (gen_build).
    uint8_t occ[NBSPACE]         # a citizen on the crossing
    uint8_t mid[NBSPACE]         # its top citizen is Middle class
    uint8_t up[NBSPACE]          # its top citizen is Upper class


cdef struct StateC:
    # No padding anywhere (the hash reads raw bytes): 4-byte fields first, then 2-byte fields, then the frames
    # (6 bytes each, 24 of them) and the players. The position ends there; the derived masks follow, outside the
    # hash (POSITION_BYTES).
    uint32_t track[NCLASS]       # occupied spaces of each citizen track
    uint32_t mod_stack           # Modernisme tiles face down (unordered: reveals are chance nodes)
    uint32_t mod_display         # face-up offer
    uint32_t mod_discard         # discarded face up (A6)
    uint32_t sag_offer           # Sagrada tiles still in the offer
    uint32_t sidewalk            # occupied Sidewalk spaces (printed ones included)
    int16_t num_players          # 2..4; seat 0 is the first player (R31)
    int16_t cur                  # seat whose turn it is
    int16_t phase                # PH_*
    int16_t place_crossing       # crossing used this turn, -1 none
    int16_t streets_used         # this turn: bit 0 vertical, 1 horizontal, 2 diagonal street action taken
    int16_t end_triggered        # the last section was scored (R122)
    int16_t activity             # something was placed, built or drawn in the current round
    int16_t discard_player       # player whose Warehouse overflowed, -1 none (A39)
    int16_t reveal_pending       # Modernisme reveals owed to the display (chance)
    int16_t refresh_pending      # display refreshes owed after scorings (R111)
    int16_t draws_left           # citizens still to draw this turn (chance)
    int16_t nframes              # frames in use
    int16_t street_action[NSTREET]   # action tile (GK 0..10) at the end of each street
    int16_t cross_lo[NCROSS]     # first (bottom) citizen class on a crossing, -1 none
    int16_t cross_hi[NCROSS]     # second (top) citizen class, -1 none
    int16_t cross_int[NCROSS]    # Intersection owner, -1 none
    int16_t street_owner[NSPACE] # Street tile owner, -1 none
    int16_t passenger[NSPACE]    # Passenger owner, -1 none
    int16_t bld_level[NBSPACE]   # 0 empty, 1..3 Level, 4 Corner
    int16_t bld_n[NBSPACE]       # Building markers stacked on the space, 0..3
    int16_t bld_mark[60]         # marker owners, space*3 + k, bottom first (R102)
    int16_t bld_stack[4]         # Building tiles left: CORNER, L1, L2, L3
    int16_t bonus_rows           # bit per block row whose Building Bonus was taken (R93 step 2)
    int16_t track_off[NCLASS]    # citizens placed beside a full track (R105)
    int16_t cerda_tile[3]        # condition of each section's Cerdà Scoring tile
    int16_t scored               # bit per section already scored (R109)
    int16_t scorings             # Cerdà Scorings done
    int16_t ps_left[NPS]         # tiles left per Public Service type, -1 not in play
    int16_t bag[NCLASS]          # citizens in the bag, by class (unordered: draws are chance nodes)
    int16_t spare                # keeps the players 4-byte aligned without padding (always 0)
    FrameC frames[MAX_FRAMES]
    PlayerC pl[MAX_PLAYERS]
    BuildMasksC masks            # derived (see BuildMasksC)


cdef struct DataC:
    # geometry
    int8_t space_wide[NSPACE]
    int8_t space_a[NSPACE]
    int8_t space_b[NSPACE]
    int8_t space_street[NSPACE]
    int8_t space_pos[NSPACE]
    int8_t space_list[NSPACE]
    int8_t space_nbs[NSPACE]
    int8_t space_bs[NSPACE * 2]
    int8_t street_space[NSTREET * 4]
    int8_t cross_nspaces[NCROSS]
    int8_t cross_spaces[NCROSS * 6]
    int8_t cross_cost[NCROSS]
    int8_t cross_nbs[NCROSS]
    int8_t cross_bs[NCROSS * 6]
    int8_t bs_corner[NBSPACE]
    int8_t bs_block[NBSPACE]
    int8_t bs_row[NBSPACE]
    int8_t bs_ncross[NBSPACE]
    int8_t bs_cross[NBSPACE * 4]
    int8_t run_vp_wide
    int8_t run_vp_narrow
    # effects
    int32_t nlists
    int8_t eff_n[MAX_LISTS]
    int8_t eff_code[MAX_LISTS * MAX_EFF]
    int8_t eff_amt[MAX_LISTS * MAX_EFF]
    uint8_t action_list[3]       # GAIN_2_COINS, GAIN_CLOTH_3VP, CERDA_PLUS_2
    int8_t printed_setup[NSTREET]
    # citizens
    int8_t citizens[NCLASS]
    int8_t track_len[NCLASS]
    int8_t track_vp[NCLASS * MAX_TRACK]
    int8_t track_mark[NCLASS * 3]
    uint32_t prefill3[NCLASS]
    uint32_t prefill2[NCLASS]
    # Cerdà track
    int8_t cerda_spaces
    int8_t cerda_mult[MAX_CERDA]
    int8_t cerda_start
    int8_t cerda_overflow_vp
    uint8_t cerda_reset_mask
    # Sidewalk
    uint32_t side_pre
    uint32_t side_adj[NSIDE]
    uint8_t side_list[NSIDE]
    # player board
    int8_t wh_free
    int8_t narrow_total          # Narrow tiles per player (R4)
    int8_t wide_total            # Wide tiles per player (R4)
    int8_t cobble_vp[6]
    int8_t start_coins
    int8_t start_cloth
    int8_t inter_cost[5]
    uint8_t inter_list[5]
    int8_t inter_picks[5]
    int8_t pass_coins[5]
    int8_t pass_cloth[5]
    int8_t pass_vp[5]
    int8_t mod_take[5]
    int8_t mod_raise[5]
    int8_t mod_bottom[5]
    int8_t mod_top[5]
    int8_t narrow_empty_at[3]
    int8_t narrow_empty_cerda[3]
    int8_t wide_empty_at[3]
    int8_t wide_empty_cerda[3]
    int8_t marker_empty_at[NMSTACKS]
    int8_t marker_empty_cerda
    int8_t sag_spaces
    int8_t sag_slot_after[3]
    int8_t sag_slot_level[3]
    # tiles
    int8_t ncond
    int8_t cond_kind[32]
    int8_t cond_vp[32]
    int8_t cond_cap[32]          # count is capped at this (0 = no cap), e.g. "up to 5 Cloths"
    int8_t mod_cond[NMOD]
    int8_t cerda_cond[14]
    int8_t display_size
    int8_t sag_level[NSAG]
    uint8_t sag_list[NSAG]
    int8_t bld_count[4]
    int8_t bld_any[4]
    int8_t bld_mid[4]
    int8_t bld_up[4]
    uint8_t bld_list[4]
    int8_t bonus_vp
    int8_t ps_in_play
    int8_t ps_cost[3]
    int8_t ps_vp[3]
    int8_t ps_tiles_2p
    uint8_t ps_list[NPS]
    # construction options
    int32_t nopts
    int8_t opt_space[MAX_OPTS]
    int8_t opt_type[MAX_OPTS]
    int8_t opt_mask[MAX_OPTS]
    # derived by GameData from the above: the construction scan and the building masks (BuildMasksC)
    int16_t bs_opt_first[NBSPACE + 1]   # the options of space bs are bs_opt_first[bs] .. bs_opt_first[bs + 1] - 1
    int8_t bld_min_need                 # fewest citizens any building type needs (R92)
    uint8_t cross_bs_bit[NCROSS * 6]    # the bit of crossing c among the crossings of cross_bs[c * 6 + j]


# ---- the nogil C API (used by the search) ---------------------------------------------------------------
cdef int state_current_player(const DataC* d, const StateC* s) noexcept nogil
cdef int state_legal_actions(const DataC* d, const StateC* s, action_t* out) noexcept nogil
cdef bint state_is_legal(const DataC* d, const StateC* s, action_t a) noexcept nogil
cdef void state_apply(const DataC* d, StateC* s, action_t a) noexcept nogil
cdef int state_chance_outcomes(const DataC* d, const StateC* s, action_t* out, double* prob) noexcept nogil
cdef action_t state_sample_chance(const DataC* d, const StateC* s, uint64_t* rng) noexcept nogil
cdef int state_playout(const DataC* d, StateC* s, uint64_t* rng) noexcept nogil
cdef void state_returns(const DataC* d, const StateC* s, double* out) noexcept nogil
cdef void state_determinize(const DataC* d, StateC* s, int viewpoint, uint64_t* rng) noexcept nogil
cdef uint64_t state_hash(const StateC* s) noexcept nogil
cdef uint64_t state_observation_hash(const StateC* s, int player) noexcept nogil
cdef int condition_count(const DataC* d, const StateC* s, int cond, int p) noexcept nogil   # scorings (R107, R124)
cdef int section_vp(const DataC* d, const StateC* s, int sec, int p) noexcept nogil          # R107, R108
cdef int cobble_end_vp(const DataC* d, const PlayerC* pl) noexcept nogil                      # R124
cdef int passenger_end_vp(const DataC* d, const PlayerC* pl) noexcept nogil                   # R124
cdef int modernisme_end_vp(const DataC* d, const StateC* s, int p) noexcept nogil             # R124

cdef inline bint hidden_draw(const StateC* s, action_t a, int viewpoint) noexcept nogil:
    """Whether chance outcome `a` is a citizen drawn into another seat's hand, which `viewpoint` does not see
    (A6). State.is_hidden_draw is the same rule for Python callers."""
    return A_DRAW <= a < A_REVEAL and s.cur != viewpoint

cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)

cdef inline uint32_t rand_below(uint64_t* rng, uint32_t n) noexcept nogil:
    return <uint32_t>(((splitmix64(rng) >> 32) * <uint64_t>n) >> 32)


cdef class GameData:
    cdef DataC c
    cdef readonly object edition     # tables.Edition


cdef class History:
    # An undo history that clones share (copy-on-write): entry i is the state before the (i+1)-th action and
    # that action. Entries are only ever appended at the tip (`length`); see State._push_history.
    cdef StateC* snaps
    cdef action_t* acts
    cdef int length               # entries written
    cdef int cap                  # entries allocated
    cdef int users                # States whose history lies in it
    cdef int grow(self) except -1


cdef class State:
    cdef StateC c
    cdef GameData data
    cdef History log              # the undo history (None: none); shared with clones
    cdef int nhistory             # this state's history: the first nhistory entries of log
    cdef void _push_history(self, action_t a) except *
    cdef void _drop_history(self)
