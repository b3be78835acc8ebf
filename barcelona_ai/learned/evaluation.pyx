# cython: language_level=3
"""The learned evaluation: public features of a position and a small network that forecasts, for every seat, the
win probability and the final score under the engine's own play (on the model of Stockfish's NNUE and
Keldon Jones's Race for the Galaxy network, much smaller).

Features are public: nothing any seat cannot see is read (no hand's classes, no bag; only hand sizes and the pool
of citizens off the board, which every player can count, A6), so one evaluation serves every viewpoint and a
determinization's hidden citizens cannot leak into it. Each seat's input is the position seen from that seat:
the global block, the seat (index, relative scores), its own block, then the other seats in turn order after it
(zeros for absent seats). The network (fully connected, ReLU) gives per seat a raw win share and the VP still to
come; win probabilities are the raw shares to the calibrated power `win_power`, normalised over the seats;
the expected final score is the current score plus what is still to come (never negative).

The weights are data files (data/value-model*.json; settings.PRESETS names the file each player count reads) written by
`barcelona-ai train` (the [train] extra: scikit-learn); inference is plain C, without the GIL or any Python object, so
the base install needs no ML library. ValueModel is the Python handle that owns the C arrays.
"""
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset
from libc.math cimport pow


from ..core cimport (DataC, StateC, PlayerC, State, section_vp, cobble_end_vp, passenger_end_vp, modernisme_end_vp,
                    state_returns,
                    MAX_PLAYERS, NCLASS, NCROSS, NBSPACE, NPROJ, NSRC, NPS, PH_OVER, MAX_TRACK)
from ..errors import BarcelonaError
from ..rules.jsonio import load_json_file

cdef extern from *:
    int popcount32 "__builtin_popcount"(unsigned int) nogil

MODEL_FORMAT = "barcelona-value-model"
MODEL_VERSION = 1

# ------------------------------------------------------------------------------------------------------------
# features (the names below are the same order, for the data files and the tests)
# ------------------------------------------------------------------------------------------------------------

GLOBAL_NAMES = (["players_2", "players_3", "players_4", "scorings", "scored_1", "scored_2", "scored_3",
                 "end_triggered"]
                + [f"track_fill_{k}" for k in ("working", "middle", "upper")]
                + [f"track_off_{k}" for k in ("working", "middle", "upper")]
                + [f"section_{i}_distance" for i in (1, 2, 3)]
                + [f"pool_{k}" for k in ("working", "middle", "upper")]
                + [f"buildings_left_{t}" for t in ("corner", "l1", "l2", "l3")]
                + ["crossings_occupied", "crossings_full", "buildings_built", "display_tiles",
                   "modernisme_stack", "sagrada_offer", "sidewalk_occupied"]
                + [f"phase_{i}" for i in range(7)])
PLAYER_NAMES = (["score", "coins", "cloth", "cobblestones", "intersections", "narrow", "wide", "passengers",
                 "markers", "cerda", "multiplier", "sagrada", "modernisme_tiles", "modernisme_up",
                 "sagrada_tiles", "public_services", "tram_out", "turns", "hand_size", "to_move",
                 "seats_until_turn", "final_pieces_vp", "final_modernisme_vp", "section_1_vp", "section_2_vp",
                 "section_3_vp"]
                + [f"vp_{src}" for src in range(NSRC)]
                + ["warehouse_free"])
SEAT_NAMES = ["seat_0", "seat_1", "seat_2", "seat_3", "lead_vp", "lead_projected_vp"]
FEATURE_NAMES = (["g_" + n for n in GLOBAL_NAMES] + ["s_" + n for n in SEAT_NAMES]
                 + [f"p{k}_{n}" for k in range(MAX_PLAYERS) for n in PLAYER_NAMES])
assert len(GLOBAL_NAMES) == NF_GLOBAL and len(PLAYER_NAMES) == NF_PLAYER and len(FEATURE_NAMES) == NF_INPUT


cdef inline int section_distance(const DataC* d, const StateC* s, int sec) noexcept nogil:
    """Citizens still to be placed before section `sec` is scored: over the three tracks, the fewest empty
    spaces up to and including that section's mark (R107: a section scores when a track reaches its mark)."""
    cdef int k, best = 99, free_
    cdef unsigned int upto
    for k in range(NCLASS):
        upto = (<unsigned int>2 << d.track_mark[k * 3 + sec]) - 1
        free_ = popcount32(~s.track[k] & upto)
        if free_ < best:
            best = free_
    return best

cdef void global_features(const DataC* d, const StateC* s, float* g) noexcept nogil:
    cdef int i, k, occupied = 0, full = 0, built = 0, pool
    memset(g, 0, NF_GLOBAL * sizeof(float))
    g[s.num_players - 2] = 1.0
    g[3] = s.scorings / 3.0
    for i in range(3):
        g[4 + i] = (s.scored >> i) & 1
        g[14 + i] = 0.0 if (s.scored >> i) & 1 else section_distance(d, s, i) / 10.0
    g[7] = s.end_triggered
    for k in range(NCLASS):
        g[8 + k] = popcount32(s.track[k]) / <float>d.track_len[k]
        g[11 + k] = s.track_off[k] / 5.0
        pool = s.bag[k]
        for i in range(s.num_players):
            pool += s.pl[i].hand[k]
        g[17 + k] = pool / <float>d.citizens[k] if d.citizens[k] > 0 else 0.0
    for i in range(4):
        g[20 + i] = s.bld_stack[i] / <float>d.bld_count[i] if d.bld_count[i] > 0 else 0.0
    for i in range(NCROSS):
        occupied += s.cross_lo[i] >= 0
        full += s.cross_hi[i] >= 0
    for i in range(NBSPACE):
        built += s.bld_level[i] > 0
    g[24] = occupied / 25.0
    g[25] = full / 25.0
    g[26] = built / 20.0
    g[27] = popcount32(s.mod_display) / 8.0
    g[28] = popcount32(s.mod_stack) / 18.0
    g[29] = popcount32(s.sag_offer) / 16.0
    g[30] = popcount32(s.sidewalk) / 30.0
    if 0 <= s.phase < 7:
        g[31 + s.phase] = 1.0

cdef inline int final_pieces_vp(const DataC* d, const PlayerC* pl) noexcept nogil:
    """Cobblestone and Passenger VP at the end, as they stand (R124)."""
    return cobble_end_vp(d, pl) + passenger_end_vp(d, pl)

cdef inline int projected_vp(const DataC* d, const StateC* s, int p) noexcept nogil:
    """Score now plus the end-of-game VP already in place."""
    return s.pl[p].score + final_pieces_vp(d, &s.pl[p]) + modernisme_end_vp(d, s, p)

cdef void player_features(const DataC* d, const StateC* s, int p, float* f) noexcept nogil:
    """Seat p's block of NF_PLAYER features (PLAYER_NAMES): in every seat's input, and alone the learned turn
    policy's input (search.pyx)."""
    cdef const PlayerC* pl = &s.pl[p]
    cdef int k, mods = 0, ups = 0, sags = 0, mult = d.cerda_mult[pl.cerda], n = s.num_players
    for k in range(NPROJ):
        mods += pl.mod_tile[k] >= 0
        ups += pl.mod_up[k]
    for k in range(3):
        sags += pl.sag_tile[k] >= 0
    f[0] = pl.score / 100.0
    f[1] = pl.coins / 10.0
    f[2] = pl.cloth / 10.0
    f[3] = pl.cobbles / 6.0
    f[4] = pl.inters / 5.0
    f[5] = pl.narrow / 10.0
    f[6] = pl.wide / 5.0
    f[7] = pl.passengers / 5.0
    f[8] = pl.markers / 8.0
    f[9] = pl.cerda / <float>d.cerda_spaces
    f[10] = mult / 5.0
    f[11] = pl.sagrada / <float>d.sag_spaces
    f[12] = mods / 5.0
    f[13] = ups / 5.0
    f[14] = sags / 3.0
    f[15] = popcount32(<unsigned int>pl.ps_built) / <float>NPS
    f[16] = pl.tram >= 0
    f[17] = pl.turns / 30.0
    f[18] = (pl.hand[0] + pl.hand[1] + pl.hand[2]) / 3.0        # the size only: the classes are hidden (A6)
    f[19] = s.cur == p
    f[20] = ((p - s.cur + n) % n) / 4.0
    f[21] = final_pieces_vp(d, pl) / 50.0
    f[22] = modernisme_end_vp(d, s, p) / 50.0
    for k in range(3):                                           # a section's VP if it were scored now (R107)
        f[23 + k] = 0.0 if (s.scored >> k) & 1 else section_vp(d, s, k, p) / 50.0
    for k in range(NSRC):
        f[26 + k] = pl.vp_src[k] / 50.0
    f[38] = (d.wh_free + pl.cobbles - pl.coins - pl.cloth) / 10.0

cdef struct BlocksC:
    # the parts of every seat's input, computed once per position
    float glob[NF_GLOBAL]
    float player[MAX_PLAYERS][NF_PLAYER]
    int projected[MAX_PLAYERS]

cdef void position_blocks(const DataC* d, const StateC* s, BlocksC* b) noexcept nogil:
    cdef int q
    global_features(d, s, b.glob)
    for q in range(s.num_players):
        player_features(d, s, q, b.player[q])
        b.projected[q] = projected_vp(d, s, q)

cdef void seat_block(const StateC* s, int seat, const int* projected, float* out) noexcept nogil:
    """The seat's part of its input (NF_SEAT floats): its index, one-hot, then its score and its projected VP
    against the best of the other seats' (projected[q]: projected_vp of every seat)."""
    cdef int q, best = -1000000, best_proj = -1000000
    memset(out, 0, NF_SEAT * sizeof(float))
    out[seat] = 1.0
    for q in range(s.num_players):
        if q == seat:
            continue
        if s.pl[q].score > best:
            best = s.pl[q].score
        if projected[q] > best_proj:
            best_proj = projected[q]
    out[4] = (s.pl[seat].score - best) / 50.0
    out[5] = (projected[seat] - best_proj) / 50.0

cdef void assemble_input(const StateC* s, const BlocksC* b, int seat, float* out) noexcept nogil:
    """Seat `seat`'s network input (FEATURE_NAMES order) from the position's blocks."""
    cdef int i, n = s.num_players
    memset(out, 0, NF_INPUT * sizeof(float))
    memcpy(out, b.glob, NF_GLOBAL * sizeof(float))
    seat_block(s, seat, b.projected, out + NF_GLOBAL)
    for i in range(n):                                           # the seat first, then the others in turn order
        memcpy(out + NF_GLOBAL + NF_SEAT + i * NF_PLAYER, b.player[(seat + i) % n], NF_PLAYER * sizeof(float))

cdef void seat_input(const DataC* d, const StateC* s, int seat, float* out) noexcept nogil:
    """Seat `seat`'s network input (FEATURE_NAMES order)."""
    cdef BlocksC b
    position_blocks(d, s, &b)
    assemble_input(s, &b, seat, out)

# ------------------------------------------------------------------------------------------------------------
# the network
# ------------------------------------------------------------------------------------------------------------

cdef extern from *:
    """
    /* One dense layer's sums: acc[o] += sum over k of w[idx[k] * stride + o] * x[idx[k]], k in order, for o in
       [0, stride), stride a multiple of 8. The outputs go in blocks of up to 32 held in SSE registers (GCC's
       vector extensions, plain x86-64) while the inputs stream past: independent sums, one load of a weight
       each, where a loop over the outputs in memory loads and stores every sum at every input. Each output
       still adds its terms in input order, one multiply and one add each: the floats of a scalar loop. The
       vector type's alignment is a float's, so rows and stack arrays need none. */
    typedef float bai_v4f __attribute__((vector_size(16), aligned(4)));
    #define BAI_DENSE_BLOCK(NV) \\
    static inline void bai_dense_block##NV(float* acc, const float* w, int stride, const float* x, \\
                                           const int* idx, int nnz) { \\
        bai_v4f a[NV]; \\
        for (int j = 0; j < NV; j++) a[j] = *(const bai_v4f*)(acc + 4 * j); \\
        for (int k = 0; k < nnz; k++) { \\
            const float xi = x[idx[k]]; \\
            const float* row = w + (long)idx[k] * stride; \\
            for (int j = 0; j < NV; j++) a[j] += *(const bai_v4f*)(row + 4 * j) * xi; \\
        } \\
        for (int j = 0; j < NV; j++) *(bai_v4f*)(acc + 4 * j) = a[j]; \\
    }
    BAI_DENSE_BLOCK(2) BAI_DENSE_BLOCK(4) BAI_DENSE_BLOCK(6) BAI_DENSE_BLOCK(8)
    static void bai_dense_accumulate(float* acc, const float* w, int stride, const float* x, const int* idx,
                                     int nnz) {
        int c = 0;
        for (; stride - c >= 32; c += 32) bai_dense_block8(acc + c, w + c, stride, x, idx, nnz);
        switch (stride - c) {
        case 24: bai_dense_block6(acc + c, w + c, stride, x, idx, nnz); break;
        case 16: bai_dense_block4(acc + c, w + c, stride, x, idx, nnz); break;
        case 8: bai_dense_block2(acc + c, w + c, stride, x, idx, nnz); break;
        }
    }
    """
    void dense_accumulate "bai_dense_accumulate"(float* acc, const float* w, int stride, const float* x,
                                                 const int* idx, int nnz) nogil


cdef inline int nonzero_inputs(const float* x, int start, int end, int* idx) noexcept nogil:
    """idx[0..n): the indices in [start, end) where x is not zero (absent seats, one-hot blocks, units that the
    ReLU cut: about half of them), in order; returns n. Without a branch: which inputs are zero changes from
    one position to the next, and mispredicted branches cost as much as the sums."""
    cdef int i, n = 0
    for i in range(start, end):
        idx[n] = i
        n += x[i] != 0.0
    return n


cdef inline void relu(float* v, int n) noexcept nogil:
    cdef int o
    for o in range(n):
        v[o] = 0.0 if v[o] < 0.0 else v[o]


cdef void layer0_prefix(const NetC* net, const float* glob, float* acc) noexcept nogil:
    """acc[0..stride[1]): the first layer's bias plus its sums over the position's inputs (glob: the input's first
    NF_GLOBAL entries), the part of the first layer that every seat of a position shares."""
    cdef int idx[NF_GLOBAL]
    memcpy(acc, net.bias[0], net.stride[1] * sizeof(float))
    dense_accumulate(acc, net.weight[0], net.stride[1], glob, idx, nonzero_inputs(glob, 0, NF_GLOBAL, idx))


cdef void net_forward_from(const NetC* net, const float* prefix, const float* x, float* y) noexcept nogil:
    """y[0..NOUT): the network's outputs for one raw input x whose first layer's position part is prefix
    (layer0_prefix of x's first NF_GLOBAL entries); ReLU between layers. The standardisation is folded into
    the first layer (ValueModel._set_layer); weights are stored input-major (weight[l][i * stride + o]) so that
    the kernel runs over the outputs, and zero inputs are skipped. Sums run bias first, then in input order:
    the same floats as one pass over the whole input."""
    cdef float a[MAX_WIDTH]
    cdef float b[MAX_WIDTH]
    cdef int idx[MAX_WIDTH]
    cdef float* cur = a
    cdef float* nxt = b
    cdef float* tmp
    cdef int l, o
    memcpy(a, prefix, net.stride[1] * sizeof(float))
    dense_accumulate(a, net.weight[0], net.stride[1], x, idx, nonzero_inputs(x, NF_GLOBAL, NF_INPUT, idx))
    for l in range(1, net.nlayers):
        relu(cur, net.width[l])
        memcpy(nxt, net.bias[l], net.stride[l + 1] * sizeof(float))
        dense_accumulate(nxt, net.weight[l], net.stride[l + 1], cur, idx, nonzero_inputs(cur, 0, net.width[l], idx))
        tmp = cur
        cur = nxt
        nxt = tmp
    for o in range(NOUT):
        y[o] = cur[o]


cdef void net_forward(const NetC* net, const float* x, float* y) noexcept nogil:
    """y[0..NOUT): the network's outputs for one raw input x."""
    cdef float prefix[MAX_WIDTH]
    layer0_prefix(net, x, prefix)
    net_forward_from(net, prefix, x, y)

cdef void net_evaluate(const NetC* net, const DataC* d, const StateC* s, double* win, double* score) noexcept nogil:
    """Every seat's win probability (summing to 1) and expected final score. A finished game gives its result
    (R127) and its final scores."""
    cdef float x[NF_INPUT]
    cdef float y[NOUT]
    cdef float prefix[MAX_WIDTH]
    cdef double total = 0.0, raw
    cdef int q, n = s.num_players
    cdef BlocksC blocks
    if s.phase == PH_OVER:
        state_returns(d, s, win)
        for q in range(n):
            score[q] = s.pl[q].score
        return
    position_blocks(d, s, &blocks)
    layer0_prefix(net, blocks.glob, prefix)
    for q in range(n):
        assemble_input(s, &blocks, q, x)
        net_forward_from(net, prefix, x, y)
        raw = y[0] if y[0] > 1e-3 else 1e-3
        win[q] = pow(raw, net.win_power[n])
        total += win[q]
        score[q] = s.pl[q].score + (y[1] * net.to_come_scale if y[1] > 0 else 0.0)
    for q in range(n):
        win[q] /= total


# ------------------------------------------------------------------------------------------------------------
# Python side
# ------------------------------------------------------------------------------------------------------------

def player_block_features(State state, int seat):
    """player_features for Python: the seat's own block of its features row (entries NF_GLOBAL + NF_SEAT on,
    NF_PLAYER of them), what the learned turn policy reads."""
    cdef float x[NF_PLAYER]
    if not 0 <= seat < state.c.num_players:
        raise BarcelonaError(f"seat must be in [0, {state.c.num_players}), not {seat}")
    player_features(&state.data.c, &state.c, seat, x)
    return [x[i] for i in range(NF_PLAYER)]


def features(State state):
    """Every seat's network input as a list of rows (FEATURE_NAMES order); only public information is read."""
    cdef float x[NF_INPUT]
    rows = []
    for q in range(state.c.num_players):
        seat_input(&state.data.c, &state.c, q, x)
        rows.append([x[i] for i in range(NF_INPUT)])
    return rows


def _floats(doc, key, n):
    v = doc.get(key)
    if not isinstance(v, list) or len(v) != n or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                        and -1e6 < x < 1e6 for x in v):
        raise BarcelonaError(f"value model: {key} must be a list of {n} finite numbers")
    return v


def _win_powers(doc):
    """{2: a, 3: b, 4: c} from the model file's win_power: one number for every player count, or an object
    "2"/"3"/"4" -> number; each in [0.05, 20]."""
    def ok(v):
        return not isinstance(v, bool) and isinstance(v, (int, float)) and 0.05 <= v <= 20.0
    if ok(doc):
        return {n: float(doc) for n in (2, 3, 4)}
    if isinstance(doc, dict) and set(doc) == {"2", "3", "4"} and all(ok(v) for v in doc.values()):
        return {int(k): float(v) for k, v in doc.items()}
    raise BarcelonaError('value model: win_power must be a number in [0.05, 20] or one for each of "2", "3", "4"')


def _fitted_players(doc):
    """The player counts whose games the model was fitted on (the file's optional "players"): their win_power and
    score_error were fitted, the others' are placeholders. A file without it (written before the field) holds
    every count."""
    if doc is None:
        return tuple(range(2, MAX_PLAYERS + 1))
    if not isinstance(doc, list) or not doc or len(set(doc)) != len(doc) or \
            not all(type(n) is int and 2 <= n <= MAX_PLAYERS for n in doc):
        raise BarcelonaError(f"value model: players must be a list of distinct player counts 2..{MAX_PLAYERS}")
    return tuple(sorted(doc))


def _fold_standardisation(list flat, list bias, list mean, list scale, int nout):
    """First-layer weights and biases that take raw inputs: w' = w / scale, b' = b - sum(w' * mean)."""
    nin = len(mean)
    w = [flat[o * nin + i] / scale[i] for o in range(nout) for i in range(nin)]
    b = [bias[o] - sum(w[o * nin + i] * mean[i] for i in range(nin)) for o in range(nout)]
    return w, b


def _score_errors(doc):
    """{players: [VP error by turns completed]} from the model file's optional "score_error"."""
    if doc is None:
        return {}
    if not isinstance(doc, dict) or not set(doc) <= {"2", "3", "4"}:
        raise BarcelonaError('value model: score_error must map "2", "3", "4" to lists of numbers')
    out = {}
    for key, row in doc.items():
        _floats({"score_error": row}, "score_error", len(row) if isinstance(row, list) and 0 < len(row) <= 100
                else -1)
        out[int(key)] = [float(x) for x in row]
    return out


def player_counts_text(counts) -> str:
    """Player counts as a phrase: "2-player", "2- and 4-player", "2-, 3- and 4-player" (no negative index: the
    module is compiled without wraparound)."""
    *first, last = [f"{n}-" for n in sorted(counts)]
    return (", ".join(first) + " and " if first else "") + last + "player"


cdef class ValueModel:
    """A trained value network (owns its C arrays). ValueModel.load(path) (the shipped ones: learned.models names
    them); predict(state) gives every seat's win probability and expected final score."""

    def __cinit__(self):
        memset(&self.net, 0, sizeof(NetC))

    def __dealloc__(self):
        for l in range(MAX_LAYERS):
            free(self.net.weight[l])
            free(self.net.bias[l])

    def __init__(self, dict doc):
        """From a model document (the JSON that `barcelona-ai train` writes); every field is checked."""
        if doc.get("format") != MODEL_FORMAT or doc.get("version") != MODEL_VERSION:
            raise BarcelonaError(f"value model: format and version must be {MODEL_FORMAT!r} and {MODEL_VERSION}")
        if doc.get("features") != FEATURE_NAMES:
            raise BarcelonaError("value model: its features are not this engine's (FEATURE_NAMES); retrain it")
        layers = doc.get("layers")
        if not isinstance(layers, list) or not 1 <= len(layers) <= MAX_LAYERS:
            raise BarcelonaError(f"value model: layers must be a list of 1..{MAX_LAYERS} layers")
        widths = [NF_INPUT] + [len(l.get("bias", [])) if isinstance(l, dict) else 0 for l in layers]
        if widths[len(widths) - 1] != NOUT or not all(1 <= w <= MAX_WIDTH for w in widths):
            raise BarcelonaError(f"value model: layer widths {widths[1:]} must be 1..{MAX_WIDTH}, the last {NOUT}")
        v = doc.get("to_come_scale")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 1.0 <= v <= 1000.0:
            raise BarcelonaError("value model: to_come_scale must be a number in [1.0, 1000.0]")
        powers = _win_powers(doc.get("win_power"))
        mean = _floats(doc, "mean", NF_INPUT)
        scale = _floats(doc, "scale", NF_INPUT)
        if not all(x > 1e-9 for x in scale):
            raise BarcelonaError("value model: scale must be positive")
        self.net.nlayers = len(layers)
        for l, layer in enumerate(layers):
            w = layer.get("weight")
            if not isinstance(w, list) or len(w) != widths[l + 1]:
                raise BarcelonaError(f"value model: layer {l} weight must have {widths[l + 1]} rows")
            flat = [x for row in w for x in (row if isinstance(row, list) and len(row) == widths[l] else [None])]
            _floats({"weight": flat}, "weight", widths[l] * widths[l + 1])
            _floats(layer, "bias", widths[l + 1])
            bias = list(layer["bias"])
            if l == 0:                       # fold the standardisation (x - mean) / scale into the first layer
                flat, bias = _fold_standardisation(flat, bias, mean, scale, widths[1])
            self._set_layer(l, widths[l], widths[l + 1], flat, bias)
        self.net.width[0] = NF_INPUT
        self.net.to_come_scale = doc["to_come_scale"]
        for n in range(2, MAX_PLAYERS + 1):
            self.net.win_power[n] = powers[n]
        self.errors = _score_errors(doc.get("score_error"))
        self.players = _fitted_players(doc.get("players"))
        self.meta = dict(doc.get("trained", {})) if isinstance(doc.get("trained", {}), dict) else {}
        self.meta["layers"] = widths[1:]

    cdef _set_layer(self, int l, int nin, int nout, list flat, list bias):
        """Layer l from its weights (flat[o * nin + i], the file's output-major order), stored input-major with
        rows of stride = nout rounded up to a multiple of 8, the padding zeros (net_forward's kernel)."""
        cdef int stride = (nout + 7) // 8 * 8
        self.net.weight[l] = <float*>calloc(nin * stride, sizeof(float))
        self.net.bias[l] = <float*>calloc(stride, sizeof(float))
        if self.net.weight[l] == NULL or self.net.bias[l] == NULL:
            raise MemoryError()
        for o in range(nout):
            for i in range(nin):
                self.net.weight[l][i * stride + o] = flat[o * nin + i]
        for i in range(nout):
            self.net.bias[l][i] = bias[i]
        self.net.width[l + 1] = nout
        self.net.stride[l + 1] = stride

    @classmethod
    def load(cls, path):
        """A model file (JSON, as `barcelona-ai train` writes it)."""
        try:
            doc = load_json_file(path, "value model")
            if not isinstance(doc, dict):
                raise BarcelonaError("value model: a model file holds a JSON object")
            return cls(doc)
        except BarcelonaError as exc:
            raise BarcelonaError(f"{path}: {exc}") from None

    def predict(self, State state):
        """(win probabilities, expected final scores), one per seat, from public information only."""
        cdef double win[MAX_PLAYERS]
        cdef double score[MAX_PLAYERS]
        net_evaluate(&self.net, &state.data.c, &state.c, win, score)
        n = state.c.num_players
        return [win[q] for q in range(n)], [score[q] for q in range(n)]

    def raw_outputs(self, State state):
        """The network's outputs per seat before calibration: [raw win share, VP to come / to_come_scale]."""
        cdef float x[NF_INPUT]
        cdef float y[NOUT]
        out = []
        for q in range(state.c.num_players):
            seat_input(&state.data.c, &state.c, q, x)
            net_forward(&self.net, x, y)
            out.append([y[0], y[1]])
        return out

    def raw_rows(self, x):
        """The network's outputs for rows of inputs (a float32 array [m, NF_INPUT], e.g. a dataset's `features`):
        an array [m, NOUT] of raw win shares and VP to come / to_come_scale."""
        import numpy as np
        cdef const float[:, ::1] xs = np.ascontiguousarray(x, dtype=np.float32).reshape(-1, NF_INPUT)
        out = np.zeros((xs.shape[0], NOUT), dtype=np.float32)
        cdef float[:, ::1] ys = out
        cdef Py_ssize_t r
        with nogil:
            for r in range(xs.shape[0]):
                net_forward(&self.net, &xs[r, 0], &ys[r, 0])
        return out

    def score_error(self, State state, int seat):
        """The forecast's typical error (root mean square, VP) for `seat`'s final score at this stage of the
        game (by player count and turns completed), measured on games held out of training."""
        table = self.errors.get(state.c.num_players)
        if not table:
            return 0.0
        return table[min(state.c.pl[seat].turns, len(table) - 1)]

    def time_evaluations(self, State state, int n, seed):
        """Seconds per net_evaluate over n positions of a seeded random walk from `state` (the walk itself is
        timed apart and left out)."""
        import time
        cdef State walk = state.clone()
        cdef double win[MAX_PLAYERS]
        cdef double score[MAX_PLAYERS]
        positions = []
        rng = __import__("random").Random(seed)
        while len(positions) < min(n, 2000):
            if walk.is_terminal():
                walk = state.clone()
            acts = walk.legal_actions() if walk.current_player() >= 0 else [a for a, _ in walk.chance_outcomes()]
            walk.apply(rng.choice(acts))
            positions.append(walk.clone())
        cdef int i
        t0 = time.perf_counter()
        for i in range(n):
            net_evaluate(&self.net, &state.data.c, &(<State>positions[i % len(positions)]).c, win, score)
        return (time.perf_counter() - t0) / n

    def require_players(self, int players, str name="value model"):
        """BarcelonaError unless the model was fitted on `players`-player games (its `players`): a network read
        in a player count it never saw has no calibration there. `name` begins the message (the file, the
        setting)."""
        if players not in self.players:
            raise BarcelonaError(f"{name} was fitted on {player_counts_text(self.players)} games only, not "
                                 f"{players}-player ones: "
                                 f"train one on {players}-player games, or name another model")

    @property
    def win_power(self):
        """{player count: the calibration exponent}."""
        return {n: self.net.win_power[n] for n in range(2, MAX_PLAYERS + 1)}

    @property
    def to_come_scale(self):
        return self.net.to_come_scale
