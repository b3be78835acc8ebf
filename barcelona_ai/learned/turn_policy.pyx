# cython: language_level=3
"""The learned turn policy's weights: the file format (version 3: every weight named), its checks, and the C
struct the search reads without the GIL (TurnPolicyC, turn_policy.pxd). search/tree.pyx plays the policy (its
logits need the heuristic rollout policy's prior); training/policy_train.py fits it; data/models.json names the
shipped file.
"""
from .evaluation import PLAYER_NAMES

from ..errors import BarcelonaError
from ..rules.jsonio import load_json_file

TURN_POLICY_FORMAT = "barcelona-turn-policy"
TURN_POLICY_VERSION = 3    # 3: the weights' names are in the file (2: by position only; 1: other inputs)
NGROUPS_PY = NGROUPS
NF_POLICY = NF_PLAYER
# The names of the weights. Features: the decider's block of the network's inputs (evaluation.PLAYER_NAMES).
# Groups: the kinds of decision in the order of search/tree.pyx's action_kind, then a construction's building type.
# Top classes: a placement's top citizen.
FEATURE_NAMES = tuple(PLAYER_NAMES)
KIND_NAMES = ("place", "intersection pick", "intersection done", "coins", "cloth", "cerda", "cobblestone", "street",
              "intersection", "improve modernisme", "take modernisme", "public service", "tram", "passenger", "skip",
              "end actions", "sagrada step", "sagrada stop", "other")
GROUP_NAMES = KIND_NAMES + ("build corner", "build level 1", "build level 2", "build level 3")
TOP_CLASS_NAMES = ("working", "middle", "upper")
assert len(GROUP_NAMES) == NGROUPS and len(FEATURE_NAMES) == NF_PLAYER


cdef class TurnPolicy:
    """The learned turn policy (training/policy_train.py): the weights of its conditional logit, owned as a C
    struct the search reads without the GIL. TurnPolicy.load(path) reads a file; data/models.json names the
    shipped one."""

    def __init__(self, dict doc):
        cdef int i
        if doc.get("format") != TURN_POLICY_FORMAT or doc.get("version") != TURN_POLICY_VERSION:
            raise BarcelonaError(f"a turn policy file has format {TURN_POLICY_FORMAT!r}, version "
                                 f"{TURN_POLICY_VERSION}, not {doc.get('format')!r}, version {doc.get('version')!r}")
        for key, names in (("feature_names", FEATURE_NAMES), ("group_names", GROUP_NAMES),
                           ("top_class_names", TOP_CLASS_NAMES)):
            if not isinstance(doc.get(key), list) or tuple(doc[key]) != names:
                raise BarcelonaError(f"turn policy {key}: the file's weights are not named as this engine's "
                                     f"inputs ({', '.join(names[:3])}, ...): refit it (barcelona-ai train-policy)")
        w = _weights(doc, "features", NF_PLAYER)
        g = _weights(doc, "groups", NGROUPS)
        tc = _weights(doc, "top_class", 3)
        for i in range(NF_PLAYER):
            self.c.w[i] = w[i]
        for i in range(NGROUPS):
            self.c.group[i] = g[i]
        for i in range(3):
            self.c.top_class[i] = tc[i]
        self.c.log_prior = _policy_number("log_prior", doc.get("log_prior"))
        meta = doc.get("training", {})
        self.meta = meta if isinstance(meta, dict) else {}

    @classmethod
    def load(cls, path):
        return cls(load_json_file(path, "turn policy"))


def _weights(dict doc, str key, int n):
    v = doc.get(key)
    if not isinstance(v, list) or len(v) != n:
        raise BarcelonaError(f"turn policy {key}: a list of {n} numbers")
    return [_policy_number(key, x) for x in v]


def _policy_number(key, x):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not -1e6 <= x <= 1e6:
        raise BarcelonaError(f"turn policy {key}: {x!r} is not a number in [-1e6, 1e6]")
    return float(x)
