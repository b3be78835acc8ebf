# See search.pyx for details.
from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from ..core cimport DataC, StateC, action_t, NSRC, MAX_PLAYERS
from ..learned.evaluation cimport NetC

cdef enum:
    KEY_HIDDEN_DRAW = 1000     # edge key of a citizen draw the searching player does not see

cdef enum:
    ROLLOUT_UNIFORM = 0        # uniformly random legal actions (the baseline the heuristic is measured against)
    ROLLOUT_HEURISTIC = 1      # choose a kind of decision first, preferring doing over declining (the search's)

cdef enum:
    LEAF_ROLLOUT = 0           # play the rollout policy to the end: the game's result is the value and the numbers
    LEAF_MODEL = 1             # the learned evaluation (evaluation.pyx) after rollout_depth policy actions
    LEAF_MIX = 2               # the rollout's result is the value; the numbers are the network's at the turn's end

cdef struct NodeC:
    int32_t parent
    int32_t first_child
    int32_t next_sibling
    int32_t visits             # times this edge was taken
    int32_t avail              # times this edge was available when its parent was visited (ISMCTS)
    int16_t key                # action id of the edge from the parent (or KEY_HIDDEN_DRAW)
    int8_t actor               # who chose the edge: a seat, or -1 for chance
    int8_t to_move             # who decides at this node (seat, -1 chance, -4 terminal, -2 unknown)
    float value[MAX_PLAYERS]   # sum of rewards per player (what selection maximises)
    float win[MAX_PLAYERS]     # sum of win shares per player (what hints report)
    float score[MAX_PLAYERS]   # sum of final scores per player

cdef struct ParamsC:
    # The compiled search's parameters: settings.SearchSettings.params() fills every field by its name (Cython
    # converts the dict), the choices as their ids in search.CHOICES.
    double c_uct               # exploration constant (rewards in [0, 1])
    double mix_weight          # the reward: mix_weight * win share + (1 - mix_weight) * margin reward
    double margin_scale        # VP of margin that make the margin reward 0.73 (logistic scale)
    int max_nodes              # node arena capacity (memory bound)
    int expand_threshold       # a node below the root gets children only after this many visits; until then
                               #   the rollout policy plays from it (its decisions are better than untried ones)
    int leaf                   # LEAF_*
    int rollout_depth          # LEAF_MODEL: policy actions played from the leaf before the evaluation
    int forecast_at            # 1: with rollout_depth, report the network where the policy ends the leaf's own
                               #   turn; 0: the numbers of the value's own evaluation
    int turn_policy            # with forecast_at 1: the leaf's own turn is played by the rollout policy (0) or by
                               #   the learned turn policy (1, TurnPolicyC)
    double turn_temperature    # the learned turn policy's softmax temperature (0: its best action)

cdef struct RootStatsC:
    # what analyse() reports, accumulated over iterations at the root
    double score_sum[MAX_PLAYERS]
    double score_sq[MAX_PLAYERS]
    double win_sum[MAX_PLAYERS]
    double src_sum[MAX_PLAYERS * NSRC]
    long long iterations
    long long actions          # actions applied in tree and rollouts (the bench signature)
