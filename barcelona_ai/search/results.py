"""What a search answers, read from its trees: the records (MoveInfo, PlayerAnalysis, Analysis) and how they are
read (the engine's order of the root actions, turn plans, main lines, the numbers shown).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from .._version import __version__
from ..core import CONSTANTS, SOURCES, State
from ..errors import BarcelonaError
from ..rules.explain import plan_effect
from ..rules.notation import describe_action_id
from ..learned.models import shipped_file
from .running import PLAYOUT_TEMPERATURE, Search, mix_seed
from .settings import load_policy
from .tree import HIDDEN_DRAW, Tree, policy_playout_sources

CHANCE = CONSTANTS["CHANCE"]


@dataclass
class MoveInfo:
    """One candidate at the root: an action, or a whole turn plan (hints)."""
    actions: list[int]
    moves: list[str]
    visits: int
    win_prob: list[float]            # per player
    expected_score: list[float]      # per player, final VP
    main_line: list[str] = field(default_factory=list)
    reason: str = ""                 # what the plan does, from the rules kernel (rules.explain), in one line
    vp_now: int = 0                  # the VP the plan scores now for the player (rules.explain.PlanEffect.vp)

    @property
    def action(self) -> int:
        return self.actions[0]

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class PlayerAnalysis:
    player: int
    win_prob: float
    expected_score: float
    score_stdev: float
    current_score: int
    breakdown: dict[str, float]      # expected final VP by source (see SOURCES)
    to_come: dict[str, float]        # expected VP still to come, by group

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Analysis:
    player: int                      # who is to move (the searching player)
    iterations: int
    actions_applied: int
    nodes: int
    bytes_per_node: int
    seed: int
    moves: list[MoveInfo]
    players: list[PlayerAnalysis]
    version: str = __version__

    @property
    def best(self) -> MoveInfo:
        return self.moves[0]

    def to_dict(self) -> dict:
        return asdict(self)


def check_top(top) -> None:
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= 1000:
        raise BarcelonaError(f"top must be an integer from 1 to 1000, not {top!r}")


def answer_or_none(answer, search: Search):
    """The answer from the trees as they are (after an interruption); None when no iteration has run yet."""
    if not any(t.root_stats()["iterations"] for t in search.trees):
        return None
    return answer(search)


def _view(search: Search) -> State:
    """The state answers are written on: a determinization of the searching player's observation, with a seed
    drawn from that observation, so that nothing written depends on what the player cannot see (A6)."""
    return search.state.determinize(search.player, search.call_seed)


def best_action(search: Search) -> int:
    order = _root_order(search)
    return order[0] if order else search.state.legal_actions()[0]


def _move_info(search: Search, view: State, keys: list[int], stats: dict, main: list[str]) -> MoveInfo:
    win, expected = shown_stats(search, keys[0], stats)
    legal = _legal_prefix(view, keys)
    effect = plan_effect(view, legal, search.player) if legal else None
    return MoveInfo(actions=list(keys), moves=_notation(view, keys), visits=stats["visits"], win_prob=win,
                    expected_score=expected, main_line=main, reason=effect.line if effect else "",
                    vp_now=effect.vp if effect else 0)


def _legal_prefix(view: State, keys: list[int]) -> list[int]:
    """The first of `keys` that can be played in turn on `view` (a plan ends at a hidden draw)."""
    s = view.clone()
    out = []
    for a in keys:
        if a == HIDDEN_DRAW or a not in s.legal_actions():
            break
        s.apply(a)
        out.append(a)
    return out


def shown_stats(search: Search, key: int, stats: dict) -> tuple[list[float], list[float]]:
    """Root action `key`'s numbers (win probabilities, expected final scores) as shown: the mean forecasts of
    its statistics `stats`, the win probabilities blended with its playouts (Search.blended)."""
    v = max(stats["visits"], 1)
    return search.blended(key, [x / v for x in stats["win"]]), [x / v for x in stats["score"]]


# A hint after the first is shown only when its numbers rest on this share of the search's iterations (and on at
# least HINT_MIN_VISITS visits): rarer plans are the search's exploration, not its opinion.
HINT_MIN_SHARE = 0.01
HINT_MIN_VISITS = 10
def _visits_floor(visits: list[int]) -> float:
    """The visits a root action's numbers must rest on to be shown after the first hint, among root actions
    with these `visits`."""
    return max(HINT_MIN_VISITS, HINT_MIN_SHARE * sum(visits))


# Root actions after the first whose numbers are read to choose the alternatives shown (beyond `top`).
HINT_EXTRA = 2


def _shown_order(search: Search, top: int) -> list[int]:
    """The root actions shown, best first: the engine's move (best_move's), then the alternatives whose numbers
    rest on enough visits (_visits_floor) and are not above the engine's move's, by the win probability shown
    (then the expected score). A rarer move whose few visits rate it higher is the search's exploration, which
    it did not confirm: it is not shown, so that the first move shown is also the one with the best number."""
    order = _root_order(search)
    if not order:
        return []
    kids, player = search.merged().root_children(), search.player
    floor = _visits_floor([st["visits"] for st in kids.values()])
    candidates = [order[0]] + [k for k in order[1:] if kids[k]["visits"] >= floor][:top - 1 + HINT_EXTRA]

    def number(key: int) -> tuple[float, float]:
        win, expected = shown_stats(search, key, kids[key])
        return win[player], expected[player]

    return _best_first(candidates, number, lambda k: kids[k]["visits"], floor, top)


def _best_first(items: list, number, visits, floor: float, top: int) -> list:
    """The rule of the moves shown: `items` in the engine's order -> the first (the engine's move), then those
    after it with at least `floor` visits whose number (win probability, expected score) is not above the
    first's, highest first (ties in the engine's order); `top` in all."""
    if not items:
        return []
    best = number(items[0])
    others = [x for x in items[1:] if visits(x) >= floor and number(x) <= best]
    return [items[0]] + sorted(others, key=lambda x: tuple(-v for v in number(x)))[:top - 1]


def hints_of(search: Search, top: int) -> list[MoveInfo]:
    """The `top` best first moves (_shown_order: the first is best_move's move, the others by the number shown),
    each with its main plan (_main_plan), what the plan does (rules.explain) and its statistics over every
    thread: analyse's numbers for that move, the first hint's being the root value (_root_value)."""
    merged, player, view = search.merged(), search.player, _view(search)
    kids = merged.root_children()
    shown: list[MoveInfo] = []
    for key in _shown_order(search, top):
        st = kids[key]
        tree, node = _busiest_ref(st)
        keys, end = _main_plan(tree, node, player, [key])
        shown.append(_move_info(search, view, keys, st, _main_line(view, player, keys, tree, end)))
    return shown


def _busiest_ref(st: dict) -> tuple[Tree, int]:
    """(tree, node) of a merged root child's copy with the most visits: the thread whose subtree shows its plan."""
    return max(st["refs"], key=lambda r: r[0].node(r[1])["visits"])


def _candidates(search: Search, view: State, top: int) -> list[MoveInfo]:
    merged = search.merged()
    kids = merged.root_children()
    out = []
    for key in _root_order(search)[:top]:
        st = kids[key]
        tree, node = _busiest_ref(st)
        out.append(_move_info(search, view, [key], st, _main_line(view, search.player, [key], tree, node)))
    return out


def shown_moves(moves: list[MoveInfo], player: int, top: int) -> list[MoveInfo]:
    """Analysis.moves (every root move, in the engine's order) as a player is shown them (_shown_order's rule):
    the engine's move, then the moves with enough visits whose numbers are not above its, by those numbers."""
    floor = _visits_floor([m.visits for m in moves])
    return _best_first(moves, lambda m: (m.win_prob[player], m.expected_score[player]), lambda m: m.visits, floor,
                       top)


def _root_sums(trees: list[Tree], k: int) -> tuple[int, list[float], list[float], list[list[float]]]:
    """Over every tree's root statistics: iterations, and per player the sums of scores, of squared scores and
    of VP by source at the end of the iterations."""
    its, score_sum, score_sq = 0, [0.0] * k, [0.0] * k
    src_sum = [[0.0] * len(SOURCES) for _ in range(k)]
    for t in trees:
        rs = t.root_stats()
        its += rs["iterations"]
        for q in range(k):
            score_sum[q] += rs["score_sum"][q]
            score_sq[q] += rs["score_sq"][q]
            for j in range(len(SOURCES)):
                src_sum[q][j] += rs["src_sum"][q][j]
    return its, score_sum, score_sq, src_sum


def _root_value(search: Search) -> tuple[list[float], list[float]]:
    """The position's value with best play (KataGo's rootInfo): every player's win probability and expected
    final score at the engine's best move (the first in _root_order), so that analyse, hints and best_move
    agree; as shown (shown_stats)."""
    best = _root_order(search)[0]
    return shown_stats(search, best, search.merged().root_children()[best])


# Games the turn policy plays to the end to split a forecast by source, when the search's leaves did not reach it.
SOURCE_PLAYOUTS = 32
FINAL_SOURCES = ("final_cobblestones", "final_passengers", "final_modernisme")


def _played_sources(search: Search, played: list[dict]) -> list[dict]:
    """Every player's VP by source at the end of the games that split the VP still to come: the search's own
    iterations where they reached the game's end (rollouts: exact for the v0 engine, whose expected score is
    theirs), else SOURCE_PLAYOUTS games played to the end by the shipped turn policy from determinizations of
    what the searcher sees (seeded by the call), so that Modernisme tiles, Cobblestones and Passengers count."""
    if any(sum(p[s] for s in FINAL_SOURCES) > 0.5 for p in played) or search.state.is_terminal():
        return played
    policy = load_policy(shipped_file(search.state.num_players, "turn_policy"))
    rows = policy_playout_sources(policy, search.state, search.player, SOURCE_PLAYOUTS, PLAYOUT_TEMPERATURE,
                                  mix_seed(search.call_seed, 0x50))
    return [dict(zip(SOURCES, row)) for row in rows]


def _split_by_source(now: dict, played: dict, current: float, expected: float) -> dict:
    """Expected final VP by source: VP now, plus the VP still to come (expected - current) split in the
    proportions the games of _played_sources scored them."""
    come = {src: played[src] - now[src] for src in SOURCES}
    total = sum(come.values())
    if total > 0.5:
        return {src: now[src] + come[src] * (expected - current) / total for src in SOURCES}
    out = dict(now)                                  # nothing scored in the playouts (the end is reached)
    top = max(SOURCES, key=lambda src: now[src])
    out[top] += expected - current
    return out


def _to_come(exp_src: dict, now: dict) -> dict:
    finals = FINAL_SOURCES
    return {"cobblestones": exp_src["final_cobblestones"], "passengers": exp_src["final_passengers"],
            "modernisme_tiles": exp_src["final_modernisme"],
            "cerda_scorings": exp_src["cerda_scoring"] - now["cerda_scoring"],
            "other_play": sum(exp_src[s] - now[s] for s in SOURCES if s not in finals + ("cerda_scoring",))}


def analysis_of(search: Search, top: int) -> Analysis:
    state, trees = search.state, search.trees
    k = state.num_players
    its, score_sum, score_sq, src_sum = _root_sums(trees, k)
    acts = sum(t.root_stats()["actions"] for t in trees)
    now, scores = state.score_breakdown(), state.scores()
    win, expected = _root_value(search)
    n = max(its, 1)
    players = []
    played = _played_sources(search, [{SOURCES[j]: src_sum[q][j] / n for j in range(len(SOURCES))}
                                      for q in range(k)])
    for q in range(k):
        mean = score_sum[q] / n
        var = max(0.0, score_sq[q] / n - mean * mean)
        if search.forecast_model is not None:        # forecasts at the leaves: add the forecast's own error
            var += search.forecast_model.score_error(state, q) ** 2
        exp_src = _split_by_source(now[q], played[q], scores[q], expected[q])
        players.append(PlayerAnalysis(player=q, win_prob=win[q], expected_score=expected[q],
                                      score_stdev=math.sqrt(var), current_score=scores[q],
                                      breakdown=exp_src, to_come=_to_come(exp_src, now[q])))
    nodes = sum(t.num_nodes for t in trees)
    return Analysis(player=search.player, iterations=its, actions_applied=acts, nodes=nodes,
                    bytes_per_node=Tree.node_bytes(), seed=search.call_seed,
                    moves=_candidates(search, _view(search), top), players=players)


# ---------------------------------------------------------------------------------------------------------------
# tree walking helpers

def _root_order(search: Search) -> list[int]:
    """Root actions in the engine's order of preference: the sequential-halving survivors first (if it ran), then
    by visits; ties go to the lower id."""
    kids = search.merged().root_children()
    survivors = {t.survivor for t in search.trees} - {None}
    return sorted(kids, key=lambda k: (k not in survivors, -kids[k]["visits"], k))


def _notation(state: State, keys: list[int]) -> list[str]:
    s = state.clone()
    out = []
    for a in keys:
        if a == HIDDEN_DRAW or a not in s.legal_actions():
            out.append("draw (hidden)" if a == HIDDEN_DRAW else f"#{a}")
            break
        out.append(s.action_to_string(a))
        s.apply(a)
    return out


def _main_plan(tree: Tree, node: int, player: int, keys: list[int]):
    """A first move's turn plan: the player's own decisions below `node` until someone else or chance decides,
    each the most visited there (ties: the lower id). Returns (keys, end node)."""
    while tree.node(node)["to_move"] == player:
        kids = {c: nd for c in tree.children(node) if (nd := tree.node(c))["visits"] > 0}
        if not kids:
            break
        node = max(kids, key=lambda c: _preference(kids[c]))
        keys = keys + [kids[node]["key"]]
    return keys, node


def _preference(nd: dict) -> tuple:
    """Sort key of a child (larger is preferred): its visits, then the lower id."""
    return (nd["visits"], -nd["key"])


def _main_line(view: State, player: int, keys: list[int], tree: Tree, node: int, length: int = 12) -> list[str]:
    """The most visited continuation after `keys` (stops at hidden draws or after `length` steps), written on
    `view` (see _view). Another player's placement is written with its top citizen only ("place (2,3) W on
    top"): the tree chose that class over many determinizations, the one beneath is unknown to `player`."""
    line_keys = list(keys)
    while len(line_keys) < len(keys) + length:
        kids = tree.children(node)
        if not kids:
            break
        node = max(kids, key=lambda c: _preference(tree.node(c)))
        if tree.node(node)["visits"] == 0:
            break
        line_keys.append(tree.node(node)["key"])
    s = view.clone()
    out = []
    for i, a in enumerate(line_keys):
        if a == HIDDEN_DRAW:
            out.append(f"P{s.draws_for()} draws (hidden)")
            break
        mover = s.current_player()
        others_placement = mover >= 0 and mover != player and a < CONSTANTS["A_INT_PICK"]
        if others_placement:
            try:
                s._hold(mover, [a % 3])             # the view's sample may lack the class the tree chose
            except BarcelonaError:
                break                               # no such citizen unseen: the line ends here
        if a not in s.legal_actions():
            break
        who = "chance" if mover == CHANCE else f"P{mover}"
        if i >= len(keys):
            text = describe_action_id(a, s.game_data.edition) if others_placement else s.action_to_string(a)
            out.append(f"{who}: {text}")
        s.apply(a)
    return out
