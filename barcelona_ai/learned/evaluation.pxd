# See evaluation.pyx for details.
# The learned evaluation's C contract: public features of a position and a small network over them, read by the
# search without the GIL.
from ..core cimport DataC, StateC, MAX_PLAYERS

cdef enum:
    NF_GLOBAL = 38             # features of the whole position
    NF_PLAYER = 39             # features of one seat
    NF_SEAT = 4 + 2            # the seat itself: its index (one-hot) and two relative scores
    NF_INPUT = NF_GLOBAL + NF_SEAT + NF_PLAYER * MAX_PLAYERS    # one seat's input to the network: 200
    MAX_LAYERS = 4
    MAX_WIDTH = 256            # widest layer (inputs included)
    NOUT = 2                   # outputs per seat: win share, VP still to come / to_come_scale

cdef struct NetC:
    int nlayers
    int width[MAX_LAYERS + 1]  # width[0] = NF_INPUT ... width[nlayers] = NOUT
    int stride[MAX_LAYERS + 1] # width rounded up to a multiple of 8 (the kernel's step; the padding is zeros)
    float* weight[MAX_LAYERS]  # weight[l][i * stride[l + 1] + o] (input-major); layer 0 takes raw inputs (the
                               #   file's standardisation (x - mean) / scale is folded into it)
    float* bias[MAX_LAYERS]    # stride[l + 1] entries
    float to_come_scale        # VP per unit of the second output
    float win_power[MAX_PLAYERS + 1]   # calibration, by player count: win probabilities proportional to
                                       #   raw ** win_power[players]

cdef void seat_input(const DataC* d, const StateC* s, int seat, float* out) noexcept nogil
cdef void player_features(const DataC* d, const StateC* s, int p, float* f) noexcept nogil
cdef void net_evaluate(const NetC* net, const DataC* d, const StateC* s, double* win, double* score) noexcept nogil


cdef class ValueModel:
    cdef NetC net
    cdef readonly dict meta
    cdef readonly tuple players
    cdef dict errors
    cdef _set_layer(self, int l, int nin, int nout, list flat, list bias)
