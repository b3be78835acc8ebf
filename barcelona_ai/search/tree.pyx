# cython: language_level=3
"""Single-Observer ISMCTS (Cowling, Powley & Whitehouse 2012) for Barcelona, compiled, without the GIL.

Every iteration:
  1. determinize: resample the other players' hidden citizens from the unseen pool (core.state_determinize);
     the bag and Modernisme stack orders are drawn at the chance nodes;
  2. select: descend the tree of the searching player's information sets; at a decision node the children
     legal in this determinization are "available" (their avail count grows) and the best by UCB1 with
     availability counts (subset-armed bandit) is taken; chance outcomes the searcher sees are separate
     children, citizen draws of other players share one child (the searcher cannot tell them apart);
  3. expand: one new child (a legal action not yet in the tree, drawn by the rollout policy, so the actions it
     favours are tried first);
  4. evaluate the leaf: a rollout to the end of the game by the heuristic policy (v0), or the learned evaluation
     after a short rollout;
  5. back up a reward for every player (max^n): each decision node is judged by the reward of the player who
     decides there.
Nodes live in one growable C array (NodeC, 72 bytes); no Python object is touched inside the loop.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset
from libc.limits cimport INT_MAX
from libc.math cimport sqrt, log, exp
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from ..core cimport (DataC, StateC, PlayerC, action_t, GameData, State, state_current_player, state_legal_actions,
                    hidden_draw, state_apply, state_sample_chance, state_returns, state_determinize, state_playout,
                    splitmix64, rand_below,
                    CHANCE, TERMINAL, MAX_LEGAL, NUM_ACTIONS, NSRC, MAX_PLAYERS, NPROJ,
                    A_PLACE, A_INT_PICK, A_INT_DONE, A_GAIN_COINS, A_GAIN_CLOTH, A_CERDA, A_COBBLE, A_STREET,
                    A_INTERSECTION, A_MOD_IMPROVE, A_MOD_TAKE, A_PS, A_TRAM, A_PASSENGER, A_SKIP,
                    A_END_ACTIONS, A_SAG_STEP, A_SAG_STOP, A_SAG_TILE, A_RES, A_DISCARD_COIN, A_BUILD,
                    A_DRAW, A_REVEAL)

from ..learned.evaluation cimport NetC, ValueModel, net_evaluate, player_features, NF_PLAYER
from ..learned.turn_policy cimport NGROUPS, TurnPolicy, TurnPolicyC

from ..errors import BarcelonaError

cdef extern from *:
    """
    static inline int barcelona_load_flag(int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void barcelona_store_flag(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    """
    # The stop flag is written by the Python thread (Ctrl-C, Engine.stop) while a search thread reads it.
    int barcelona_load_flag(int* p) noexcept nogil
    void barcelona_store_flag(int* p, int v) noexcept nogil

HIDDEN_DRAW = KEY_HIDDEN_DRAW      # the one tree edge of every citizen draw the searcher does not see

cdef enum:
    MAX_DEPTH = 1024
    NKEYS = 1001
    NKINDS = 19

# ------------------------------------------------------------------------------------------------------------
# action kinds: the heuristic rollout policy
# ------------------------------------------------------------------------------------------------------------

cdef int KIND_WEIGHT[NKINDS]
# place, int-pick, int-done, coins, cloth, cerda, cobble, street, intersection, improve, take, ps, tram,
# passenger, skip, end-actions, sag-step, sag-stop, other.
# Taking an available action almost always (100 : 1 against ending, skipping or stopping) plays far better than
# uniform random play, milder weights (3 : 1) no better (docs/measurements/strength.md, "Changes that were kept").
_weights = (1, 100, 1, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 1, 1, 100, 1, 1)
for _i in range(NKINDS):
    KIND_WEIGHT[_i] = _weights[_i]

cdef uint8_t ACTION_KIND[NUM_ACTIONS]     # action_kind of every action id, filled at import (a lookup, no branches)

cdef inline int kind_of(action_t a) noexcept nogil:
    return ACTION_KIND[a]

cdef int action_kind(action_t a) noexcept nogil:
    """The kind of decision an action id is (KIND_WEIGHT's order); ACTION_KIND holds it for every id."""
    if a < A_INT_PICK:
        return 0
    if a < A_INT_DONE:
        return 1
    if a == A_INT_DONE:
        return 2
    if a == A_GAIN_COINS:
        return 3
    if a == A_GAIN_CLOTH:
        return 4
    if a == A_CERDA:
        return 5
    if a < A_STREET:
        return 6
    if a < A_INTERSECTION:
        return 7
    if a < A_MOD_IMPROVE:
        return 8
    if a < A_MOD_TAKE:
        return 9
    if a < A_PS:
        return 10
    if a < A_TRAM:
        return 11
    if a < A_PASSENGER:
        return 12
    if a == A_PASSENGER:
        return 13
    if a == A_SKIP:
        return 14
    if a == A_END_ACTIONS:
        return 15
    if a == A_SAG_STEP:
        return 16
    if a == A_SAG_STOP:
        return 17
    return 18

for _i in range(NUM_ACTIONS):
    ACTION_KIND[_i] = action_kind(_i)

cdef inline int kind_counts(const action_t* acts, int n, int* count) noexcept nogil:
    """count[k]: the actions of kind k among acts; returns the total weight of the kinds present."""
    cdef int i, k, total = 0
    memset(count, 0, NKINDS * sizeof(int))
    for i in range(n):
        count[kind_of(acts[i])] += 1
    for k in range(NKINDS):
        if count[k]:
            total += KIND_WEIGHT[k]
    return total

cdef action_t heuristic_choice(const action_t* acts, int n, uint64_t* rng) noexcept nogil:
    """Choose a kind of decision by weight (doing over declining), then an action of that kind uniformly."""
    cdef int count[NKINDS]
    cdef int i, k, total = kind_counts(acts, n, count), r
    r = <int>rand_below(rng, total)
    for k in range(NKINDS):
        if count[k]:
            if r < KIND_WEIGHT[k]:
                break
            r -= KIND_WEIGHT[k]
    r = <int>rand_below(rng, count[k])
    for i in range(n):
        if kind_of(acts[i]) == k:
            if r == 0:
                return acts[i]
            r -= 1
    return acts[0]

cdef enum:
    PLACE_BUILD_WEIGHT = 100         # weight of a placement that enables a construction (others: 1): with it
                                     # the policy beats uniform play by more (docs/measurements/strength.md,
                                     # "Changes that were kept")
cdef int BUILD_TYPE_WEIGHT[4]         # construction options by type: CORNER, L1, L2, L3
BUILD_TYPE_WEIGHT[:] = [1, 1, 1, 100]       # Level-3 first: by more again (strength.md, as above)

cdef bint placement_enables_build(const DataC* d, const StateC* s, int c) noexcept nogil:
    """Whether a citizen on crossing c would complete the citizens around a building space that can still be
    built on (someone else's citizen is already on another of its crossings): the space's occupied-crossings
    mask (core BuildMasksC) without c's own bit."""
    cdef int j, bs
    for j in range(d.cross_nbs[c]):
        bs = d.cross_bs[c * 6 + j]
        if s.bld_level[bs] >= 3:                  # Level-3 and Corner buildings cannot be overbuilt
            continue
        if s.masks.occ[bs] & ~d.cross_bs_bit[c * 6 + j]:
            return True
    return False

cdef inline int placement_weights(const DataC* d, const StateC* s, const action_t* acts, int n,
                                  int* w) noexcept nogil:
    """w[i]: the weight of placement acts[i] (PLACE_BUILD_WEIGHT where it enables a construction, else 1), found
    once per crossing (a crossing's placements are consecutive: ids c * 3 + top class); returns their sum."""
    cdef int i, c, last = -1, wc = 1, total = 0
    for i in range(n):
        c = (acts[i] - A_PLACE) // 3
        if c != last:
            last = c
            wc = PLACE_BUILD_WEIGHT if placement_enables_build(d, s, c) else 1
        w[i] = wc
        total += wc
    return total

cdef action_t place_choice(const DataC* d, const StateC* s, const action_t* acts, int n,
                           uint64_t* rng) noexcept nogil:
    """A placement, preferring crossings next to a building space with citizens already around it (so that a
    construction becomes possible this turn)."""
    cdef int w[MAX_LEGAL]
    cdef int i, total = placement_weights(d, s, acts, n, w), r
    r = <int>rand_below(rng, total)
    for i in range(n):
        if r < w[i]:
            return acts[i]
        r -= w[i]
    return acts[n - 1]

cdef action_t build_choice(const DataC* d, const action_t* acts, int n, uint64_t* rng) noexcept nogil:
    """A construction option, weighted by building type."""
    cdef int i, total = 0, r
    for i in range(n):
        total += BUILD_TYPE_WEIGHT[d.opt_type[acts[i] - A_BUILD]]
    r = <int>rand_below(rng, total)
    for i in range(n):
        if r < BUILD_TYPE_WEIGHT[d.opt_type[acts[i] - A_BUILD]]:
            return acts[i]
        r -= BUILD_TYPE_WEIGHT[d.opt_type[acts[i] - A_BUILD]]
    return acts[n - 1]

cdef inline bint are_placements(const action_t* acts, int n) noexcept nogil:
    """Whether a decision's legal actions (in ascending order) are placements (R37)."""
    return acts[0] < A_INT_PICK and acts[n - 1] < A_INT_PICK

cdef inline void swap_keyed(action_t* acts, double* key, int i, int j) noexcept nogil:
    """Swaps acts[i] and acts[j] with their keys."""
    cdef action_t a = acts[i]
    cdef double k = key[i]
    acts[i] = acts[j]
    acts[j] = a
    key[i] = key[j]
    key[j] = k

cdef inline action_t policy_choice(const DataC* d, const StateC* s, const action_t* acts, int n,
                                   uint64_t* rng) noexcept nogil:
    """The heuristic rollout policy: placements by place_choice, constructions by build_choice, other
    decisions by heuristic_choice."""
    if are_placements(acts, n):
        return place_choice(d, s, acts, n, rng)
    if acts[0] >= A_BUILD and acts[n - 1] < A_DRAW:
        return build_choice(d, acts, n, rng)
    return heuristic_choice(acts, n, rng)

cdef inline action_t policy_move(const DataC* d, const StateC* s, int policy, const action_t* acts, int n,
                                 uint64_t* rng) noexcept nogil:
    """A rollout policy's action at a decision: the heuristic (policy_choice) or uniformly random."""
    if policy == ROLLOUT_HEURISTIC:
        return policy_choice(d, s, acts, n, rng)
    return acts[rand_below(rng, n)]

cdef void policy_prior(const DataC* d, const StateC* s, const action_t* acts, int n,
                       double* prior) noexcept nogil:
    """prior[i]: the probability that the heuristic rollout policy (policy_choice) plays acts[i]."""
    cdef int count[NKINDS]
    cdef int i, k, total = 0
    cdef int w[MAX_LEGAL]
    if are_placements(acts, n):
        total = placement_weights(d, s, acts, n, w)
        for i in range(n):
            prior[i] = w[i]
    elif acts[0] >= A_BUILD and acts[n - 1] < A_DRAW:
        for i in range(n):
            prior[i] = BUILD_TYPE_WEIGHT[d.opt_type[acts[i] - A_BUILD]]
            total += <int>prior[i]
    else:
        total = kind_counts(acts, n, count)
        for i in range(n):
            k = kind_of(acts[i])
            prior[i] = <double>KIND_WEIGHT[k] / count[k]
    for i in range(n):
        prior[i] /= total

# The learned turn policy's groups (learned/turn_policy.pxd NGROUPS): the kinds, then constructions by type.
assert NGROUPS == NKINDS + 4

cdef inline int action_group(const DataC* d, action_t a) noexcept nogil:
    if A_BUILD <= a < A_DRAW:
        return NKINDS + d.opt_type[a - A_BUILD]
    return kind_of(a)

cdef inline double dot_player(const float* w, const float* x) noexcept nogil:
    """w . x over NF_PLAYER floats, in 8 partial sums (independent lanes the compiler vectorises)."""
    cdef float acc[8]
    cdef int j, k
    memset(acc, 0, sizeof(acc))
    for j in range(0, NF_PLAYER - NF_PLAYER % 8, 8):
        for k in range(8):
            acc[k] += w[j + k] * x[j + k]
    for j in range(NF_PLAYER - NF_PLAYER % 8, NF_PLAYER):
        acc[0] += w[j] * x[j]
    return (acc[0] + acc[1]) + (acc[2] + acc[3]) + (acc[4] + acc[5]) + (acc[6] + acc[7])

cdef void turn_policy_logits(const TurnPolicyC* tp, const DataC* d, const StateC* s, const action_t* acts, int n,
                             double* z) noexcept nogil:
    """z[i]: the learned turn policy's logit of acts[i] (each applied to a copy of s)."""
    cdef StateC tmp
    cdef float x[NF_PLAYER]
    cdef double prior[MAX_LEGAL]
    cdef double v
    cdef int i, p = state_current_player(d, s)
    policy_prior(d, s, acts, n, prior)
    for i in range(n):
        memcpy(&tmp, s, sizeof(StateC))
        state_apply(d, &tmp, acts[i])
        player_features(d, &tmp, p, x)
        v = dot_player(tp.w, x)
        v += tp.group[action_group(d, acts[i])]
        if acts[i] < A_INT_PICK:
            v += tp.top_class[(acts[i] - A_PLACE) % 3]
        v += tp.log_prior * log(prior[i] if prior[i] > 1e-9 else 1e-9)
        z[i] = v

cdef action_t turn_policy_choice(const TurnPolicyC* tp, const DataC* d, const StateC* s, const action_t* acts,
                                 int n, double temperature, uint64_t* rng) noexcept nogil:
    """The learned turn policy's action: sampled from the softmax of its logits at `temperature`, or its best
    (ties to the first) at temperature 0."""
    cdef double z[MAX_LEGAL]
    cdef double best, total = 0.0, r
    cdef int i, arg = 0
    if n == 1:
        return acts[0]
    if are_placements(acts, n):                                  # placements: the heuristic's choice (the
        return place_choice(d, s, acts, n, rng)                  #   logit ranks them no better, at 38 applies)
    turn_policy_logits(tp, d, s, acts, n, z)
    best = z[0]
    for i in range(1, n):
        if z[i] > best:
            best = z[i]
            arg = i
    if temperature <= 0.0:
        return acts[arg]
    for i in range(n):
        z[i] = exp((z[i] - best) / temperature)
        total += z[i]
    r = total * (rand_below(rng, 1 << 30) / <double>(1 << 30))
    for i in range(n):
        if r < z[i]:
            return acts[i]
        r -= z[i]
    return acts[n - 1]

cdef int turn_policy_turn(const TurnPolicyC* tp, const DataC* d, StateC* s, double temperature, int steps,
                          uint64_t* rng) noexcept nogil:
    """rollout_turn with the learned turn policy deciding: the turn in progress played to its end (chance outcomes
    sampled), or `steps` actions; returns the number applied."""
    cdef action_t buf[MAX_LEGAL]
    cdef int cp, n, count = 0
    cdef int16_t seat = s.cur
    while count < steps and s.cur == seat:
        cp = state_current_player(d, s)
        if cp == TERMINAL:
            break
        if cp == CHANCE:
            state_apply(d, s, state_sample_chance(d, s, rng))
        else:
            n = state_legal_actions(d, s, buf)
            state_apply(d, s, turn_policy_choice(tp, d, s, buf, n, temperature, rng))
        count += 1
    return count

cdef int turn_policy_game(const TurnPolicyC* tp, const DataC* d, StateC* s, double temperature,
                          uint64_t* rng) noexcept nogil:
    """The game played to its end by the learned turn policy in every seat (turn_policy_turn, turn after turn);
    returns the number of actions applied."""
    cdef int count = 0
    while state_current_player(d, s) != TERMINAL:
        count += turn_policy_turn(tp, d, s, temperature, INT_MAX, rng)
    return count

cdef int rollout(const DataC* d, StateC* s, int policy, uint64_t* rng) noexcept nogil:
    """Play to the end with the policy; returns the number of actions applied."""
    if policy == ROLLOUT_UNIFORM:
        return state_playout(d, s, rng)
    return rollout_steps(d, s, policy, INT_MAX, rng)

cdef void reward_vector(const DataC* d, const StateC* s, const ParamsC* p, double* out) noexcept nogil:
    """The rewards of a finished game: forecast_rewards of its win shares (R127) and final scores."""
    cdef double win[MAX_PLAYERS]
    cdef double score[MAX_PLAYERS]
    cdef int i
    state_returns(d, s, win)
    for i in range(s.num_players):
        score[i] = s.pl[i].score
    forecast_rewards(p, s.num_players, win, score, out)

cdef inline void policy_step(const DataC* d, StateC* s, int cp, int policy, uint64_t* rng) noexcept nogil:
    """One action of a rollout from a state whose current player is cp (not TERMINAL): a sampled chance outcome,
    or the policy's choice."""
    cdef action_t buf[MAX_LEGAL]
    cdef int n
    if cp == CHANCE:
        state_apply(d, s, state_sample_chance(d, s, rng))
        return
    n = state_legal_actions(d, s, buf)
    state_apply(d, s, policy_move(d, s, policy, buf, n, rng))

cdef int rollout_steps(const DataC* d, StateC* s, int policy, int steps, uint64_t* rng) noexcept nogil:
    """At most `steps` actions (chance outcomes included) of the rollout policy (INT_MAX: to the end of the
    game); returns how many."""
    cdef int cp, count = 0
    while count < steps:
        cp = state_current_player(d, s)
        if cp == TERMINAL:
            break
        policy_step(d, s, cp, policy, rng)
        count += 1
    return count

cdef int rollout_turn(const DataC* d, StateC* s, int policy, int steps, uint64_t* rng) noexcept nogil:
    """The turn in progress played to its end by the rollout policy (chance outcomes included): until another
    seat's turn begins or the game ends, or after `steps` actions; returns the number of actions applied."""
    cdef int cp, count = 0
    cdef int16_t seat = s.cur
    while count < steps and s.cur == seat:
        cp = state_current_player(d, s)
        if cp == TERMINAL:
            break
        policy_step(d, s, cp, policy, rng)
        count += 1
    return count

cdef void forecast_rewards(const ParamsC* p, int n, const double* win, const double* score,
                           double* out) noexcept nogil:
    """Every player's reward from win shares (or probabilities) and final (or expected) scores: mix_weight of the
    win share plus the rest of a logistic of the score margin over the best other player (margin_scale)."""
    cdef int i, j
    cdef double best, m
    for i in range(n):
        best = -1e18
        for j in range(n):
            if j != i and score[j] > best:
                best = score[j]
        m = 1.0 / (1.0 + exp(-(score[i] - best) / p.margin_scale))
        out[i] = p.mix_weight * win[i] + (1.0 - p.mix_weight) * m

cdef double static_value(const DataC* d, const StateC* s, int p) noexcept nogil:
    """A cheap value of a position for player p (the greedy bot's evaluate()): VP, resources, Cerdà multiplier
    and index, Sagrada index, and the end-game VP already secured (cobblestones, passengers, Modernisme)."""
    cdef const PlayerC* pl = &s.pl[p]
    cdef double v = pl.score + 0.7 * (pl.coins + pl.cloth) + 3.0 * d.cerda_mult[pl.cerda] + 0.4 * pl.cerda
    cdef int k
    v += 1.2 * pl.sagrada
    if pl.cobbles > 0:
        v += d.cobble_vp[pl.cobbles - 1]
    if pl.passengers > 0:
        v += d.pass_vp[pl.passengers - 1]
    for k in range(NPROJ):
        if pl.mod_tile[k] >= 0:
            v += 5.0
        v += 2.0 * pl.mod_up[k]
    return v

cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# ------------------------------------------------------------------------------------------------------------
# the tree
# ------------------------------------------------------------------------------------------------------------

cdef class Tree:
    """One ISMCTS tree for one searching player at one root state."""
    cdef NodeC* nodes
    cdef int n
    cdef int cap
    cdef ParamsC p
    cdef RootStatsC stats
    cdef int root_player
    cdef StateC root
    cdef GameData data
    cdef uint64_t rng
    cdef int32_t mark[NKEYS]
    cdef int forced                # root action every iteration must take (sequential halving), -1 = none
    cdef int kept                  # the root action the last sequential halving kept, -1 = none
    cdef int stop_flag             # set by request_stop(): run() returns at the next iteration
    cdef char pad[64]              # root-parallel Trees are separate objects, often adjacent on the heap: this
                                   #   keeps the stop flag off the cache line of the next Tree's node count
    cdef ValueModel model          # the learned evaluation (LEAF_MODEL, LEAF_MIX), None for LEAF_ROLLOUT
    cdef const NetC* net           # its network, read without the GIL
    cdef ValueModel forecast_model # the network whose forecasts the tree reports (the model's unless named)
    cdef const NetC* forecast_net
    cdef TurnPolicy turn_policy    # the learned turn policy (turn_policy 'learned'), else None
    cdef bint forecasting          # with forecast_at 'leaf_turn_end': evaluate the leaf's turn end for the numbers
                                   #   reported (Tree.forecasts); off, only the moves are wanted

    def __cinit__(self):
        self.nodes = NULL
        self.n = 0
        self.cap = 0

    def __dealloc__(self):
        free(self.nodes)

    def __init__(self, State state, int player, dict params, seed, ValueModel model=None,
                 TurnPolicy turn_policy=None, ValueModel forecast_model=None):
        """A search for `player` from `state`: `model` the value network whose values the tree maximises (leaf
        'model' or 'mix'), `forecast_model` the one whose forecasts it reports (None: the model's)."""
        cdef int i
        if not 0 <= player < state.c.num_players:
            raise BarcelonaError(f"no seat {player} in a {state.c.num_players}-player game")
        _check_params(params)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise BarcelonaError(f"a seed is an integer, not {seed!r}")
        self.data = state.game_data
        memcpy(&self.root, &state.c, sizeof(StateC))
        self.root_player = player
        self.p = params
        if self.p.turn_policy and turn_policy is None:
            raise BarcelonaError("search setting turn_policy 'learned' needs a turn policy "
                                 "(learned.turn_policy.TurnPolicy)")
        self.turn_policy = turn_policy if self.p.turn_policy else None
        if self.p.leaf != LEAF_ROLLOUT and model is None:
            raise BarcelonaError("search setting leaf 'model' or 'mix' needs a value model "
                                 "(evaluation.ValueModel)")
        self.model = self.forecast_model = None
        self.net = self.forecast_net = NULL
        if self.p.leaf != LEAF_ROLLOUT:
            self.model = model
            self.net = &model.net
            self.forecast_model = model if forecast_model is None else forecast_model
            self.forecast_net = &self.forecast_model.net
        self.forced = -1
        self.kept = -1
        self.stop_flag = 0
        self.forecasting = True
        self.rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        memset(&self.stats, 0, sizeof(RootStatsC))
        for i in range(NKEYS):
            self.mark[i] = -1
        if self.new_node(-1, -1, -1, state_current_player(&self.data.c, &self.root)) < 0:
            raise MemoryError()

    cdef int new_node(self, int parent, int key, int actor, int to_move) noexcept nogil:
        cdef int i
        cdef NodeC* grown
        if self.n >= self.p.max_nodes:
            return -1
        if self.n == self.cap:
            grown = <NodeC*>realloc(self.nodes, (self.cap * 2 + 1024) * sizeof(NodeC))
            if grown == NULL:
                return -1
            self.nodes = grown
            self.cap = self.cap * 2 + 1024
        i = self.n
        self.n += 1
        memset(&self.nodes[i], 0, sizeof(NodeC))
        self.nodes[i].parent = parent
        self.nodes[i].first_child = -1
        self.nodes[i].key = key
        self.nodes[i].actor = actor
        self.nodes[i].to_move = to_move
        if parent >= 0:
            self.nodes[i].next_sibling = self.nodes[parent].first_child
            self.nodes[parent].first_child = i
        else:
            self.nodes[i].next_sibling = -1
        return i

    cdef inline int find_child(self, int node, int key) noexcept nogil:
        cdef int c = self.nodes[node].first_child
        while c >= 0:
            if self.nodes[c].key == key:
                return c
            c = self.nodes[c].next_sibling
        return -1

    cdef int select_or_expand(self, int node, StateC* s, int cp, bint* expanded) noexcept nogil:
        """One decision: expand an untried legal action if any, else UCB1 over the available children."""
        cdef action_t buf[MAX_LEGAL]
        cdef action_t untried[MAX_LEGAL]
        cdef int n = state_legal_actions(&self.data.c, s, buf), i, c, nu = 0, best = -1
        cdef double score, best_score = -1e300, logn, mean
        cdef NodeC* ch
        c = self.nodes[node].first_child
        while c >= 0:
            self.mark[self.nodes[c].key] = c
            c = self.nodes[c].next_sibling
        for i in range(n):
            c = self.mark[buf[i]]
            if c < 0:
                untried[nu] = buf[i]
                nu += 1
            else:
                self.nodes[c].avail += 1
        if nu > 0 and self.n < self.p.max_nodes:       # untried actions in the heuristic policy's order
            best = self.new_node(node, policy_choice(&self.data.c, s, untried, nu, &self.rng), cp, -2)
            expanded[0] = True
        else:
            for i in range(n):
                c = self.mark[buf[i]]
                if c < 0:
                    continue
                ch = &self.nodes[c]
                if ch.visits == 0:
                    score = 1e100
                else:
                    mean = ch.value[cp] / ch.visits
                    logn = log(ch.avail if ch.avail > 1 else 1)
                    score = mean + self.p.c_uct * sqrt(logn / ch.visits)
                if score > best_score:
                    best_score = score
                    best = c
            if best < 0:                       # tree full and nothing expanded: stop descending
                best = -1
        c = self.nodes[node].first_child
        while c >= 0:
            self.mark[self.nodes[c].key] = -1
            c = self.nodes[c].next_sibling
        return best

    cdef int forced_root_child(self, bint* expanded) noexcept nogil:
        """The root child of the forced action (added if new), with its availability counted."""
        cdef int c = self.find_child(0, self.forced)
        if c < 0:
            c = self.new_node(0, self.forced, self.root_player, -2)
            if c < 0:
                return -1
            expanded[0] = True
        self.nodes[c].avail += 1
        return c

    cdef double root_mean(self, action_t a) noexcept nogil:
        cdef int c = self.find_child(0, a)
        if c < 0 or self.nodes[c].visits == 0:
            return -1.0
        return self.nodes[c].value[self.root_player] / self.nodes[c].visits

    cdef long long run_halving(self, long long iterations, double seconds, double deadline,
                               bint fill_time) noexcept nogil:
        """Sequential halving at the root (Karnin, Koren & Somekh 2013): the budget is split into rounds; in each
        round every remaining root action gets an equal share of iterations, then the better half (by mean
        reward) goes on. The last survivor also gets one more round's share and whatever is left, so it ends with
        the most visits. Below the root the tree search runs as usual. fill_time (a time budget): `iterations`
        is an estimate; each round re-estimates what is left from the rate so far (75% of it, for safety), and
        the survivor runs until the deadline."""
        cdef action_t arms[MAX_LEGAL]
        cdef int m = state_legal_actions(&self.data.c, &self.root, arms), rounds = 0, i, j, r
        cdef long long done = 0, per_round, share, k
        cdef double t0 = now_seconds(), t
        cdef action_t tmp
        while (1 << rounds) < m:
            rounds += 1
        per_round = iterations // (rounds + 1)
        for r in range(rounds + 1):
            if fill_time and done > 0:
                t = now_seconds()
                iterations = done + <long long>(done / (t - t0) * (deadline - t) * 0.75)
                per_round = (iterations - done) // (rounds + 1 - r)
            share = per_round // m if per_round >= m else 1       # tiny budgets: one each while they last
            if r == rounds:
                share = iterations - done                         # the survivor gets the rest
            for i in range(m):
                self.forced = arms[i]
                k = 0
                while (k < share and done < iterations) or (fill_time and r == rounds):
                    if self.stopped() or (seconds > 0 and (done & 15) == 0 and now_seconds() >= deadline):
                        self.forced = -1
                        if r == rounds:                           # the survivor was chosen already
                            self.kept = arms[0]
                        return done
                    self.iterate()
                    done += 1
                    k += 1
            for i in range(1, m):                                 # insertion sort by mean, best first
                j = i
                while j > 0 and self.root_mean(arms[j]) > self.root_mean(arms[j - 1]):
                    tmp = arms[j]
                    arms[j] = arms[j - 1]
                    arms[j - 1] = tmp
                    j -= 1
            m = (m + 1) // 2
        self.forced = -1
        self.kept = arms[0]
        return done

    cdef void iterate(self) noexcept nogil:
        cdef StateC s
        cdef int path[MAX_DEPTH]
        cdef int depth = 0, node = 0, cp, child, key, i, k, q
        cdef bint expanded = False
        cdef action_t a
        cdef double r[MAX_PLAYERS]
        cdef double w[MAX_PLAYERS]
        cdef double sc[MAX_PLAYERS]
        cdef const DataC* d = &self.data.c
        memcpy(&s, &self.root, sizeof(StateC))
        state_determinize(d, &s, self.root_player, &self.rng)            # 1. determinize
        path[0] = 0
        while depth < MAX_DEPTH - 1:                                      # 2-3. select and expand
            cp = state_current_player(d, &s)
            if cp == TERMINAL:
                break
            if cp == CHANCE:
                a = state_sample_chance(d, &s, &self.rng)
                key = a
                if hidden_draw(&s, a, self.root_player):
                    key = KEY_HIDDEN_DRAW                                 # the searcher does not see it (A6)
                child = self.find_child(node, key)
                if child < 0:
                    if expanded:
                        break
                    child = self.new_node(node, key, -1, -2)
                    if child < 0:
                        break
                    expanded = True
                self.nodes[child].avail += 1
            else:
                if expanded:
                    break
                if node != 0 and self.nodes[node].visits < self.p.expand_threshold:
                    break                                                 # too few visits to decide here
                if node == 0 and self.forced >= 0:
                    child = self.forced_root_child(&expanded)
                else:
                    child = self.select_or_expand(node, &s, cp, &expanded)
                if child < 0:
                    break
                a = self.nodes[child].key
            state_apply(d, &s, a)
            self.stats.actions += 1
            node = child
            if self.nodes[node].to_move == -2:
                self.nodes[node].to_move = state_current_player(d, &s)
            depth += 1
            path[depth] = node
        if self.p.leaf == LEAF_ROLLOUT:                                   # 4. evaluate the leaf
            self.rollout_leaf(&s, r, w, sc)
        else:
            self.model_leaf(&s, r, w, sc)
        for i in range(depth + 1):                                        # 5. back up (max^n)
            k = path[i]
            self.nodes[k].visits += 1
            for q in range(s.num_players):
                self.nodes[k].value[q] += <float>r[q]
                self.nodes[k].win[q] += <float>w[q]
                self.nodes[k].score[q] += <float>sc[q]
        for q in range(s.num_players):
            self.stats.score_sum[q] += sc[q]
            self.stats.score_sq[q] += sc[q] * sc[q]
            self.stats.win_sum[q] += w[q]
            for k in range(NSRC):
                self.stats.src_sum[q * NSRC + k] += s.pl[q].vp_src[k]
        self.stats.iterations += 1

    cdef void rollout_leaf(self, StateC* s, double* r, double* w, double* sc) noexcept nogil:
        """v0: roll out to the end; the reward, win shares and scores are the game's."""
        cdef const DataC* d = &self.data.c
        cdef int q
        self.stats.actions += rollout(d, s, ROLLOUT_HEURISTIC, &self.rng)
        reward_vector(d, s, &self.p, r)
        state_returns(d, s, w)
        for q in range(s.num_players):
            sc[q] = s.pl[q].score

    cdef void model_leaf(self, StateC* s, double* r, double* w, double* sc) noexcept nogil:
        """The learned evaluation: the reward is a function of the value network's win probabilities and
        expected final scores of the leaf after rollout_depth policy actions and the rest of the turn they end in,
        the same function as a rollout's of a finished game (forecast_rewards). The numbers reported (w, sc) are
        the forecast network's there, or with forecast_at 'leaf_turn_end' where the policy ends the leaf's own
        turn, on the way (another evaluation, skipped when the forecasts are off: Tree.forecasts; the same actions
        and rewards; with one network for both, the value's numbers serve where they are the same). LEAF_MIX
        rolls out on to the end: the game's result is the value, the network's numbers are reported."""
        cdef const DataC* d = &self.data.c
        cdef double vw[MAX_PLAYERS]
        cdef double vsc[MAX_PLAYERS]
        cdef int done = 0
        cdef int16_t seat = s.cur
        cdef bint reported = False
        if self.p.rollout_depth > 0 and self.p.forecast_at:
            if self.p.turn_policy:
                done = turn_policy_turn(&self.turn_policy.c, d, s, self.p.turn_temperature, self.p.rollout_depth,
                                        &self.rng)
            else:
                done = rollout_turn(d, s, ROLLOUT_HEURISTIC, self.p.rollout_depth, &self.rng)
            if self.forecasting and (s.cur != seat or state_current_player(d, s) == TERMINAL):
                net_evaluate(self.forecast_net, d, s, w, sc)                # the leaf's turn ended on the way
                reported = True
        if self.p.rollout_depth > done:
            done += rollout_steps(d, s, ROLLOUT_HEURISTIC, self.p.rollout_depth - done, &self.rng)
        self.stats.actions += done
        self.stats.actions += rollout_turn(d, s, ROLLOUT_HEURISTIC, INT_MAX, &self.rng)
        net_evaluate(self.net, d, s, vw, vsc)
        if not reported:
            if self.forecasting and self.forecast_net != self.net:
                net_evaluate(self.forecast_net, d, s, w, sc)
            else:
                memcpy(w, vw, s.num_players * sizeof(double))
                memcpy(sc, vsc, s.num_players * sizeof(double))
        if self.p.leaf == LEAF_MODEL:
            forecast_rewards(&self.p, s.num_players, vw, vsc, r)
            return
        self.stats.actions += rollout(d, s, ROLLOUT_HEURISTIC, &self.rng)             # LEAF_MIX
        reward_vector(d, s, &self.p, r)

    cdef inline bint stopped(self) noexcept nogil:
        return barcelona_load_flag(&self.stop_flag) != 0

    def request_stop(self):
        """Ask a running search (in another thread) to return at its next iteration; the tree stays usable.
        The request holds (later runs return at once) until clear_stop()."""
        barcelona_store_flag(&self.stop_flag, 1)

    def clear_stop(self):
        barcelona_store_flag(&self.stop_flag, 0)

    @property
    def stop_requested(self):
        return self.stopped()

    cdef long long run_plain(self, long long iterations, double seconds, double deadline) noexcept nogil:
        """Iterations with UCB1 at the root, until the count or the deadline (whichever is set and first)."""
        cdef long long done = 0
        while True:
            if iterations > 0 and done >= iterations:
                break
            if self.stopped():
                break
            if seconds > 0 and (done & 15) == 0 and now_seconds() >= deadline:
                break
            self.iterate()
            done += 1
        return done

    def run(self, long long iterations=0, double seconds=0.0, bint halving=False):
        """Run iterations (a count, a time limit in seconds, or both: whichever comes first). halving: spread the
        budget over the root actions by sequential halving (to choose a move) instead of UCB1; under a time limit
        alone, the budget is 75% of what the iteration rate of the first 5% of the time promises, and the
        survivor gets the time left."""
        cdef long long done = 0, budget
        cdef double start, deadline
        cdef action_t buf[MAX_LEGAL]
        if iterations <= 0 and seconds <= 0:
            raise BarcelonaError("a search needs an iteration or a time limit")
        if not seconds < 1e7:                  # also refuses NaN: the deadline must be a real time
            raise BarcelonaError(f"a search time must be finite (at most 1e7 s), not {seconds!r}")
        self.kept = -1
        with nogil:
            start = now_seconds()
            deadline = start + seconds
            if halving and iterations <= 0:
                done = self.run_plain(0, seconds * 0.05, start + seconds * 0.05)
                budget = <long long>(done / 0.05 * 0.75) - done           # margin: the survivor gets the rest
                if self.stopped():
                    pass
                elif budget >= 4 * state_legal_actions(&self.data.c, &self.root, buf):
                    done += self.run_halving(budget, seconds, deadline, True)
                else:                                                     # too little time to halve
                    done += self.run_plain(0, seconds, deadline)
            elif halving:
                done = self.run_halving(iterations, seconds, deadline, False)
            else:
                done += self.run_plain(iterations, seconds, deadline)
        return done

    @property
    def forecasts(self):
        """Whether iterations evaluate the network where the leaf's own turn ends (forecast_at "leaf_turn_end"),
        for the win probabilities and expected scores the tree reports. Off, the tree reports the values after
        the rollout instead and skips that evaluation: the same actions, rewards and moves, faster (a call that
        wants only the move: Engine.best_move). No effect with other settings."""
        return bool(self.forecasting)

    @forecasts.setter
    def forecasts(self, on):
        self.forecasting = bool(on)

    def reroot(self, State state, keys):
        """Keep the subtree reached by edge `keys` as the tree for `state` (tree reuse between decisions).
        Returns False, leaving the tree as it was, if the path is not in the tree."""
        cdef int node = 0, c, i, j, head, tail
        cdef int* remap
        cdef int* queue
        cdef NodeC* fresh
        for k in keys:
            c = self.find_child(node, k)
            if c < 0:
                return False
            node = c
        remap = <int*>malloc(self.n * sizeof(int))
        queue = <int*>malloc(self.n * sizeof(int))
        fresh = <NodeC*>malloc(self.cap * sizeof(NodeC))
        if remap == NULL or queue == NULL or fresh == NULL:
            free(remap)
            free(queue)
            free(fresh)
            raise MemoryError()
        for i in range(self.n):
            remap[i] = -1
        head = 0
        tail = 1
        queue[0] = node
        remap[node] = 0
        while head < tail:                      # breadth first: new indices in visiting order
            i = queue[head]
            head += 1
            c = self.nodes[i].first_child
            while c >= 0:
                remap[c] = tail
                queue[tail] = c
                tail += 1
                c = self.nodes[c].next_sibling
        for j in range(tail):
            i = queue[j]
            memcpy(&fresh[j], &self.nodes[i], sizeof(NodeC))
            fresh[j].parent = remap[self.nodes[i].parent] if j > 0 else -1
            fresh[j].first_child = remap[self.nodes[i].first_child] if self.nodes[i].first_child >= 0 else -1
            fresh[j].next_sibling = (remap[self.nodes[i].next_sibling]
                                     if j > 0 and self.nodes[i].next_sibling >= 0 else -1)
        fresh[0].key = -1
        fresh[0].actor = -1
        free(self.nodes)
        free(remap)
        free(queue)
        self.nodes = fresh
        self.n = tail
        memcpy(&self.root, &state.c, sizeof(StateC))
        memset(&self.stats, 0, sizeof(RootStatsC))
        return True

    # -- reading the tree -----------------------------------------------------------------------------------
    @property
    def num_nodes(self):
        return self.n

    @property
    def survivor(self):
        """The root action the last run's sequential halving kept (None without halving or if a time limit cut
        it short)."""
        return self.kept if self.kept >= 0 else None

    @staticmethod
    def node_bytes():
        return sizeof(NodeC)

    def node(self, int i):
        """Node i's edge and statistics (BarcelonaError for an index the tree does not hold)."""
        cdef NodeC* x
        self._check_node(i)
        x = &self.nodes[i]
        k = self.root.num_players
        return {"key": x.key, "actor": x.actor, "to_move": x.to_move, "visits": x.visits, "avail": x.avail,
                "value": [x.value[q] for q in range(k)], "win": [x.win[q] for q in range(k)],
                "score": [x.score[q] for q in range(k)]}

    def children(self, int i):
        """The indices of node i's children, the newest first."""
        self._check_node(i)
        out = []
        c = self.nodes[i].first_child
        while c >= 0:
            out.append(c)
            c = self.nodes[c].next_sibling
        return out

    def _check_node(self, int i):
        if not 0 <= i < self.n:
            raise BarcelonaError(f"no node {i} in a tree of {self.n} nodes")

    def root_stats(self):
        k = self.root.num_players
        st = self.stats
        return {"iterations": st.iterations, "actions": st.actions,
                "score_sum": [st.score_sum[q] for q in range(k)], "score_sq": [st.score_sq[q] for q in range(k)],
                "win_sum": [st.win_sum[q] for q in range(k)],
                "src_sum": [[st.src_sum[q * NSRC + j] for j in range(NSRC)] for q in range(k)]}


MAX_NODES_LIMIT = 50_000_000      # nodes per tree (72 bytes each: 3.6 GB); node indices are int32
cdef ParamsC _NO_PARAMS
PARAM_FIELDS = frozenset(_NO_PARAMS)   # the ParamsC fields, each named as the SearchSettings field it comes from


def _check_params(params):
    """The compiled search takes its parameters only from SearchSettings.params(): every ParamsC field by name."""
    if not isinstance(params, dict) or set(params) != PARAM_FIELDS:
        raise BarcelonaError("search parameters come from SearchSettings.params()")
ROLLOUTS = {"uniform": ROLLOUT_UNIFORM, "heuristic": ROLLOUT_HEURISTIC}    # policy duels and benchmarks
CHOICES = {                            # the ids in ParamsC of the search settings that are one of a few names
    "leaf": {"rollout": LEAF_ROLLOUT, "model": LEAF_MODEL, "mix": LEAF_MIX},
    "forecast_at": {"value": 0, "leaf_turn_end": 1},
    "turn_policy": {"rollout": 0, "learned": 1},
}


def policy_logits(TurnPolicy policy not None, State state not None):
    """{action: logit} of the learned turn policy at a player's decision (policy_train.logits computes the same from
    Python)."""
    cdef action_t buf[MAX_LEGAL]
    cdef double z[MAX_LEGAL]
    cdef int i, n = _decision_actions(state, buf, "the turn policy")
    turn_policy_logits(&policy.c, &state.data.c, &state.c, buf, n, z)
    return {buf[i]: z[i] for i in range(n)}


def _check_playouts(int n, int viewpoint, int count, double temperature):
    """The arguments of policy_playouts and policy_playout_sources, checked (errors name them)."""
    if not 0 <= viewpoint < n:
        raise BarcelonaError(f"no seat {viewpoint} in a {n}-player game")
    if not 1 <= count <= 1_000_000:
        raise BarcelonaError(f"playouts: a count from 1 to 1,000,000, not {count}")
    if not 0.0 <= temperature <= 100.0:
        raise BarcelonaError(f"playouts: a temperature from 0 to 100, not {temperature}")


def policy_playouts(TurnPolicy policy not None, State state not None, int viewpoint, int count, double temperature,
                    seed):
    """`count` games played out from `state` to their end by the learned turn policy in every seat (at
    `temperature`; chance outcomes sampled), each from a determinization for `viewpoint` (the hands it cannot
    see drawn anew, A6): so the result depends only on what `viewpoint` sees and on `seed`. Returns (every seat's
    mean win share, mean final score)."""
    cdef const DataC* d = &state.data.c
    cdef uint64_t rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef StateC s
    cdef double w[MAX_PLAYERS]
    cdef double win[MAX_PLAYERS]
    cdef double score[MAX_PLAYERS]
    cdef int k, i, n = state.c.num_players
    _check_playouts(n, viewpoint, count, temperature)
    for i in range(n):
        win[i] = 0.0
        score[i] = 0.0
    with nogil:
        for k in range(count):
            memcpy(&s, &state.c, sizeof(StateC))
            state_determinize(d, &s, viewpoint, &rng)
            turn_policy_game(&policy.c, d, &s, temperature, &rng)
            state_returns(d, &s, w)
            for i in range(n):
                win[i] += w[i]
                score[i] += s.pl[i].score
    return [win[i] / count for i in range(n)], [score[i] / count for i in range(n)]


def policy_playout_sources(TurnPolicy policy not None, State state not None, int viewpoint, int count,
                           double temperature, seed):
    """As policy_playouts, but returns every seat's mean final VP by source (core.SOURCES order): where the VP
    still to come come from, as the turn policy plays the game out (analysis splits its forecast by these)."""
    cdef const DataC* d = &state.data.c
    cdef uint64_t rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef StateC s
    cdef double src[MAX_PLAYERS][NSRC]
    cdef int k, i, j, n = state.c.num_players
    _check_playouts(n, viewpoint, count, temperature)
    for i in range(n):
        for j in range(NSRC):
            src[i][j] = 0.0
    with nogil:
        for k in range(count):
            memcpy(&s, &state.c, sizeof(StateC))
            state_determinize(d, &s, viewpoint, &rng)
            turn_policy_game(&policy.c, d, &s, temperature, &rng)
            for i in range(n):
                for j in range(NSRC):
                    src[i][j] += s.pl[i].vp_src[j]
    return [[src[i][j] / count for j in range(NSRC)] for i in range(n)]


def static_value_of(State state, int player):
    """static_value for Python: the search's cheap value of the position for `player` (the greedy bot's
    evaluation, bots.evaluate)."""
    if not 0 <= player < state.c.num_players:
        raise BarcelonaError(f"no seat {player} in a {state.c.num_players}-player game")
    return static_value(&state.data.c, &state.c, player)


def _policy_id(name, what="rollout policy"):
    """The ROLLOUT_* id of a rollout policy's name."""
    if not isinstance(name, str) or name not in ROLLOUTS:
        raise BarcelonaError(f"{what} must be one of {sorted(ROLLOUTS)}, not {name!r}")
    return ROLLOUTS[name]


def rollout_games(State state, int n, seed, policy="heuristic"):
    """n rollouts from state with the given policy (benchmarks, policy comparisons); returns actions applied."""
    cdef uint64_t rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef StateC tmp
    cdef long long total = 0
    cdef int pol = _policy_id(policy)
    cdef int i
    with nogil:
        for i in range(n):
            memcpy(&tmp, &state.c, sizeof(StateC))
            total += rollout(&state.data.c, &tmp, pol, &rng)
    return total


def flat_mc(State state, int player, long long iterations, seed, dict params):
    """Flat Monte Carlo (the baseline): every root action gets an equal share of determinized rollouts with the
    same policy and reward as the ISMCTS (`params`: SearchSettings.params()); returns {action: (visits, reward
    sum)}."""
    cdef const DataC* d = &state.data.c
    cdef action_t buf[MAX_LEGAL]
    cdef double r[MAX_PLAYERS]
    cdef double sums[MAX_LEGAL]
    cdef long long visits[MAX_LEGAL]
    cdef uint64_t rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef StateC s
    cdef ParamsC p
    cdef int n = state_legal_actions(d, &state.c, buf), i
    cdef long long it
    if n == 0 or state_current_player(d, &state.c) != player:
        raise BarcelonaError("flat Monte Carlo needs a decision of the given player")
    _check_params(params)
    p = params
    for i in range(n):
        sums[i] = 0.0
        visits[i] = 0
    with nogil:
        for it in range(iterations):
            i = <int>(it % n)
            memcpy(&s, &state.c, sizeof(StateC))
            state_determinize(d, &s, player, &rng)
            state_apply(d, &s, buf[i])
            rollout(d, &s, ROLLOUT_HEURISTIC, &rng)
            reward_vector(d, &s, &p, r)
            sums[i] += r[player]
            visits[i] += 1
    return {buf[i]: (visits[i], sums[i]) for i in range(n)}


cdef int _decision_actions(State state, action_t* buf, str who) except -1:
    """The legal actions of a player's decision into buf (their count); a policy decides only there."""
    if state_current_player(&state.data.c, &state.c) < 0:
        raise BarcelonaError(f"{who} decides only at a player's decision")
    return state_legal_actions(&state.data.c, &state.c, buf)


def policy_distribution(State state):
    """{action: probability} of the heuristic rollout policy at a decision (what the progressive bias uses)."""
    cdef action_t buf[MAX_LEGAL]
    cdef double prior[MAX_LEGAL]
    cdef int i, n = _decision_actions(state, buf, "the rollout policy")
    policy_prior(&state.data.c, &state.c, buf, n, prior)
    return {buf[i]: prior[i] for i in range(n)}


def policy_samples(State state, int n, seed, policy="heuristic"):
    """{action: count} of n choices of a rollout policy at a decision (checks policy_distribution)."""
    cdef action_t buf[MAX_LEGAL]
    cdef uint64_t rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef int m, i, pol = _policy_id(policy)
    counts = {}
    if state_current_player(&state.data.c, &state.c) < 0:
        raise BarcelonaError("the rollout policy decides only at a player's decision")
    m = state_legal_actions(&state.data.c, &state.c, buf)
    for i in range(n):
        a = policy_move(&state.data.c, &state.c, pol, buf, m, &rng)
        counts[a] = counts.get(a, 0) + 1
    return counts


def decision_group(State state, int action):
    """The group of actions `action` belongs to: its kind of decision (action_kind), or for a construction 100 +
    its building type (CORNER, L1, L2, L3)."""
    if not 0 <= action < NUM_ACTIONS:
        raise BarcelonaError(f"no action {action}")
    if A_BUILD <= action < A_DRAW:
        return 100 + state.data.c.opt_type[action - A_BUILD]
    return action_kind(action)


def kind_weights():
    """The heuristic rollout policy's weight per kind of decision (see action_kind)."""
    return [KIND_WEIGHT[i] for i in range(NKINDS)]


def policy_game(int players, setup_seed, seed, policies):
    """A whole game where seat i plays rollout policy policies[i] (a ROLLOUTS name); returns the
    final state's (scores, returns). Cheap head-to-head comparisons of rollout policies."""
    cdef State st = State.new(players, setup_seed)
    cdef uint64_t rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef action_t buf[MAX_LEGAL]
    cdef int pol[MAX_PLAYERS]
    cdef int n, cp, i
    cdef double r[MAX_PLAYERS]
    for i in range(players):
        pol[i] = _policy_id(policies[i])
    with nogil:
        while True:
            cp = state_current_player(&st.data.c, &st.c)
            if cp == TERMINAL:
                break
            if cp == CHANCE:
                state_apply(&st.data.c, &st.c, state_sample_chance(&st.data.c, &st.c, &rng))
            else:
                n = state_legal_actions(&st.data.c, &st.c, buf)
                state_apply(&st.data.c, &st.c, policy_move(&st.data.c, &st.c, pol[cp], buf, n, &rng))
    state_returns(&st.data.c, &st.c, r)
    return st.scores(), [r[i] for i in range(players)]
