# See turn_policy.pyx.
from .evaluation cimport NF_PLAYER

cdef enum:
    NGROUPS = 23               # the groups of actions: search/tree.pyx's 19 kinds of decision, constructions by type

cdef struct TurnPolicyC:
    # the learned turn policy (training/policy_train.py): a conditional logit over a decision's actions, logit(a) =
    # w . player_features(after a, decider) + group[action_group(a)] + top_class[a placement's top class]
    # + log_prior * log(heuristic prior of a); search/tree.pyx plays it
    float w[NF_PLAYER]
    float group[NGROUPS]
    float top_class[3]
    float log_prior

cdef class TurnPolicy:
    cdef TurnPolicyC c
    cdef readonly dict meta
