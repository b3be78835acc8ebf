# See search.pyx for details.
from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from .core cimport DataC, StateC, action_t, NSRC, MAX_PLAYERS
from .evaluation cimport NetC

cdef enum:
    KEY_HIDDEN_DRAW = 1000     # edge key of a citizen draw the searching player does not see

cdef enum:
    REWARD_WIN = 0             # win share, ties split (returns())
    REWARD_MARGIN = 1          # logistic of (own score - best other score) / margin_scale
    REWARD_MIX = 2             # mix_weight * win + (1 - mix_weight) * margin

cdef enum:
    ROLLOUT_UNIFORM = 0        # uniformly random legal actions
    ROLLOUT_HEURISTIC = 1      # choose a kind of decision first, preferring doing over declining
    ROLLOUT_GREEDY = 2         # the heuristic's kind of decision, then its action with the best static value

cdef enum:
    LEAF_ROLLOUT = 0           # play the rollout policy to the end: the result is the iteration's value (v0)
    LEAF_MODEL = 1             # the learned evaluation (evaluation.pyx) after rollout_depth policy actions
    LEAF_MIX = 2               # both: the value blends the rollout's reward and the evaluation's by model_weight
    LEAF_PLAYOUT = 3           # LEAF_MIX with the game played to its end by the learned turn policy in every seat

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
    double c_uct               # exploration constant (rewards in [0, 1])
    int reward                 # REWARD_*
    double mix_weight          # weight of the win share in REWARD_MIX
    double margin_scale        # VP that make the margin reward 0.73 (logistic scale)
    int rollout                # ROLLOUT_*
    int max_nodes              # node arena capacity (memory bound)
    double bias_weight         # progressive bias: weight of the rollout policy's prior, over (visits+1)
    double leaf_weight         # weight of the static evaluation of the leaf in the reward (0 = rollout only)
    int turn_horizon           # 1: the tree holds only the searcher's current turn; rollouts start at its end
    double widen_c             # progressive widening: a node with n visits has at most widen_c * n^widen_alpha
    double widen_alpha         #   + 1 children, added in the rollout policy's order (0 = off: try every action)
    int expand_threshold       # a node below the root gets children only after this many visits; until then
                               #   the rollout policy plays from it (its decisions are better than untried ones)
    int leaf                   # LEAF_*
    int rollout_depth          # LEAF_MODEL: policy actions played from the leaf before the evaluation
    double model_weight        # LEAF_MIX, LEAF_PLAYOUT: weight of the evaluation's reward
    int turn_end               # LEAF_MODEL/LEAF_MIX: evaluate where the rollout policy ends the turn in progress
    int forecast_at_leaf_turn  # with rollout_depth: report the network where the policy ends the leaf's own turn
    int own_expand_threshold   # the same as expand_threshold for a node inside the searcher's own turn (the
                               #   searcher chose the edge into it and decides again there)
    int turn_policy            # with forecast_at_leaf_turn: the leaf's own turn is played by the rollout policy
                               #   (0) or by the learned turn policy (1, TurnPolicyC)
    int expand_learned         # untried actions are added in the learned turn policy's choice (1) instead of the
                               #   rollout policy's (0)
    double turn_temperature    # the learned turn policy's softmax temperature (0: its best action)
    int root_arms              # sequential halving: only this many root actions, the priors' best (0 = all)

cdef struct RootStatsC:
    # what analyse() reports, accumulated over iterations at the root
    double score_sum[MAX_PLAYERS]
    double score_sq[MAX_PLAYERS]
    double win_sum[MAX_PLAYERS]
    double src_sum[MAX_PLAYERS * NSRC]
    long long iterations
    long long actions          # actions applied in tree and rollouts (the bench signature)
