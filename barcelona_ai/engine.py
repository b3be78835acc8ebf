"""The engine players use: best move, hints (turn plans) and position analysis, over the compiled ISMCTS.

Shaped after python-chess's ``engine`` module (``Limit``, ``analyse``) and KataGo's analysis engine (per-move
records with visits, win rate, expected score and main line). Every call searches for the player to move and
reads nothing that player cannot see: the search resamples the other hands at every iteration, and the seed
of a call is derived from the engine's seed and that player's observation, so two states that differ only in
hidden information give identical answers.
"""
from __future__ import annotations

import math
import threading
from dataclasses import asdict, dataclass, field

from . import __version__
from .core import CONSTANTS, SOURCES, State
from .errors import BarcelonaError, PlayerCountError
from .search import Tree, make_params

CHANCE = CONSTANTS["CHANCE"]
TERMINAL = CONSTANTS["TERMINAL"]
HIDDEN_DRAW = 1000


class SearchError(BarcelonaError):
    """A search asked of a state where nobody decides (terminal, chance) or for the wrong player."""


@dataclass(frozen=True)
class Limit:
    """Search budget: iterations, time in seconds, or both (whichever is reached first)."""
    iterations: int | None = None
    time: float | None = None

    def __post_init__(self):
        if self.iterations is None and self.time is None:
            raise BarcelonaError("Limit needs iterations or time")
        if self.iterations is not None and (isinstance(self.iterations, bool) or
                                            not isinstance(self.iterations, int) or self.iterations < 1):
            raise BarcelonaError(f"Limit.iterations must be a positive integer, not {self.iterations!r}")
        if self.time is not None and not (isinstance(self.time, (int, float)) and self.time > 0):
            raise BarcelonaError(f"Limit.time must be a positive number of seconds, not {self.time!r}")


@dataclass(frozen=True)
class SearchSettings:
    """Every tunable of the search (the per-call budget is a Limit)."""
    c_uct: float = 0.7              # UCB1 exploration; rewards are in [0, 1]
    reward: str = "mix"             # "win" (win share), "margin" (logistic of the VP margin), "mix"
    mix_weight: float = 0.7         # weight of the win share in "mix"
    margin_scale: float = 15.0      # VP of margin that give a margin reward of 0.73
    rollout: str = "heuristic"      # "uniform" or "heuristic" (kinds of decision weighted, doing > declining)
    bias_weight: float = 0.0        # progressive bias from the rollout policy's prior
    leaf_weight: float = 0.0        # weight of a static evaluation of the leaf, blended with the rollout
    turn_horizon: bool = False      # the tree holds only the searcher's current turn (rollouts from its end)
    widen_c: float = 0.0            # progressive widening: at most widen_c * visits^widen_alpha + 1 children,
    widen_alpha: float = 0.5        #   added in the rollout policy's order (0 = try every action first)
    expand_threshold: int = 30      # visits a node needs before it gets children (the rollout policy decides
                                    #   at nodes visited less)
    root_halving: bool | None = None  # choosing a move (best_move, hints): sequential halving over the root
                                    #   actions instead of UCB1; None = in 4-player games (arena vs flat MC:
                                    #   better in 4 players, worse in 2 and 3). analyse always uses UCB1.
    max_nodes: int = 4_000_000      # nodes per tree (72 bytes each)
    threads: int = 1                # root-parallel trees, merged at the root
    reuse_tree: bool = False        # keep the subtree of the actions played since the engine's last search
                                    # (answers then depend on earlier calls; analysis leaves it off)

    def params(self) -> dict:
        """The settings the compiled search reads (validated by search.make_params)."""
        return make_params(**{k: v for k, v in asdict(self).items()
                              if k not in ("threads", "reuse_tree", "root_halving")})


@dataclass
class MoveInfo:
    """One candidate at the root: an action, or a whole turn plan (hints)."""
    actions: list[int]
    moves: list[str]
    visits: int
    win_prob: list[float]            # per player
    expected_score: list[float]      # per player, final VP
    main_line: list[str] = field(default_factory=list)

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


def _mix_seed(a: int, b: int) -> int:
    x = (a * 0x9E3779B97F4A7C15 + b + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    x = (x * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 29)


class _Merged:
    """Root-parallel trees seen as one: children of the root merged by action."""

    def __init__(self, trees: list[Tree]):
        self.trees = trees

    def root_children(self) -> dict[int, dict]:
        out: dict[int, dict] = {}
        for t in self.trees:
            for c in t.children(0):
                nd = t.node(c)
                m = out.setdefault(nd["key"], {"visits": 0, "value": None, "win": None, "score": None,
                                               "refs": []})
                m["visits"] += nd["visits"]
                for k in ("value", "win", "score"):
                    m[k] = nd[k] if m[k] is None else [x + y for x, y in zip(m[k], nd[k])]
                m["refs"].append((t, c))
        return out


class Engine:
    """ISMCTS engine. ``Engine(seed=1, threads=2, reward="win")``; the settings are SearchSettings fields."""

    def __init__(self, seed: int = 0, settings: SearchSettings | None = None, **overrides):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise BarcelonaError(f"seed must be a non-negative integer, not {seed!r}")
        self.seed = seed
        self.settings = SearchSettings(**{**asdict(settings or SearchSettings()), **overrides})
        if not isinstance(self.settings.threads, int) or not 1 <= self.settings.threads <= 64:
            raise BarcelonaError("threads must be 1..64")
        self._last: tuple | None = None        # (player, history, root state, trees) of the last search
        self._params = self.settings.params()

    # -- running the search -------------------------------------------------------------------------------
    def _check(self, state: State, viewpoint: int | None) -> int:
        if not isinstance(state, State):
            raise SearchError(f"expected a barcelona_ai State, not {type(state).__name__}")
        if state.is_terminal():
            raise SearchError("the game is over: there is no move to search")
        if state.is_chance_node():
            raise SearchError("a chance node (a draw or a reveal) is next: apply its outcome, nobody decides")
        player = state.current_player()
        if viewpoint is not None:
            if isinstance(viewpoint, bool) or not isinstance(viewpoint, int) or \
                    not 0 <= viewpoint < state.num_players:
                raise PlayerCountError(f"no seat {viewpoint!r} in a {state.num_players}-player game")
            if viewpoint != player:
                raise SearchError(f"player {viewpoint} is not to move (player {player} is): the engine searches "
                                  "for the player who decides")
        return player

    def _halving(self, state: State) -> bool:
        """Whether choosing a move spreads the root budget by sequential halving (see SearchSettings)."""
        h = self.settings.root_halving
        return state.num_players == 4 if h is None else bool(h)

    def _search(self, state: State, limit: Limit, viewpoint: int | None,
                halving: bool = False) -> tuple[_Merged, int, int]:
        if not isinstance(limit, Limit):
            raise BarcelonaError(f"expected a Limit, not {limit!r}")
        player = self._check(state, viewpoint)
        call_seed = _mix_seed(self.seed, state.observation_hash(player))
        n = self.settings.threads
        trees = self._reused_trees(state, player) if self.settings.reuse_tree else None
        if trees is None:
            trees = [Tree(state, player, self._params, _mix_seed(call_seed, i)) for i in range(n)]
        if self.settings.reuse_tree:
            self._last = (player, tuple(state.history()), state.clone(), trees)
        its = limit.iterations or 0
        per = [its // n + (1 if i < its % n else 0) for i in range(n)] if its else [0] * n
        secs = float(limit.time or 0.0)
        if n == 1:
            trees[0].run(per[0], secs, halving)
        else:
            threads = [threading.Thread(target=t.run, args=(k, secs, halving))
                       for t, k in zip(trees, per) if k or secs]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        return _Merged(trees), player, call_seed

    def _reused_trees(self, state: State, player: int) -> list[Tree] | None:
        """The last search's trees re-rooted at `state`, if `state` continues that search's root position.
        Draws of other players map to the one hidden edge: the searcher does not see them (A6)."""
        if self._last is None or self._last[0] != player:
            return None
        _, old_hist, old_state, trees = self._last
        hist = state.history()
        if len(hist) <= len(old_hist) or tuple(hist[:len(old_hist)]) != old_hist:
            return None
        replay = old_state.clone()
        keys = []
        for a in hist[len(old_hist):]:
            hidden = (replay.is_chance_node() and CONSTANTS["A_DRAW"] <= a < CONSTANTS["A_REVEAL"]
                      and replay.raw()["cur"] != player)
            keys.append(HIDDEN_DRAW if hidden else a)
            replay.apply(a)
        if not all(t.reroot(state, keys) for t in trees):
            return None
        return trees

    # -- reading results ----------------------------------------------------------------------------------
    @staticmethod
    def _move_info(state: State, keys: list[int], stats: dict, main: list[str]) -> MoveInfo:
        v = max(stats["visits"], 1)
        return MoveInfo(actions=list(keys), moves=_notation(state, keys), visits=stats["visits"],
                        win_prob=[x / v for x in stats["win"]], expected_score=[x / v for x in stats["score"]],
                        main_line=main)

    def _candidates(self, state: State, merged: _Merged) -> list[MoveInfo]:
        kids = merged.root_children()
        out = []
        for key in _root_order(merged):
            st = kids[key]
            tree, node = max(st["refs"], key=lambda r: r[0].node(r[1])["visits"])
            out.append(self._move_info(state, [key], st, _main_line(state, [key], tree, node)))
        return out

    def best_move(self, state: State, limit: Limit, viewpoint: int | None = None) -> int:
        """The action id to play: the sequential-halving survivor (the one with most visits among the threads'
        survivors), else the most visited root action; ties go to the lower id (_root_order)."""
        merged, _, _ = self._search(state, limit, viewpoint, self._halving(state))
        order = _root_order(merged)
        return order[0] if order else state.legal_actions()[0]

    def hints(self, state: State, limit: Limit, top: int = 3, viewpoint: int | None = None) -> list[MoveInfo]:
        """The `top` best turn plans: this player's decisions until another player or chance is next."""
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise BarcelonaError(f"top must be a positive integer, not {top!r}")
        merged, player, _ = self._search(state, limit, viewpoint, self._halving(state))
        kids = merged.root_children()
        ranked = []                     # (rank of the plan among its first move's plans, rank of the first move)
        for first, key in enumerate(_root_order(merged)):
            st = kids[key]
            tree, node = max(st["refs"], key=lambda r: r[0].node(r[1])["visits"])
            plans = []
            for keys, end in _plan_leaves(tree, node, player, [key]):
                nd = tree.node(end)
                stats = {"visits": nd["visits"], "win": nd["win"], "score": nd["score"]}
                if keys == [key]:
                    stats = st          # merged statistics for one-decision plans
                plans.append(self._move_info(state, keys, stats, _main_line(state, keys, tree, end)))
            plans.sort(key=lambda m: (-m.visits, -m.win_prob[player], m.actions))
            ranked += [(i, first, m) for i, m in enumerate(plans)]
        ranked.sort(key=lambda r: (r[0], r[1]))      # the main plan of every first move, in the engine's order
        return [m for _, _, m in ranked[:top]]

    def analyse(self, state: State, limit: Limit, top: int = 5, viewpoint: int | None = None) -> Analysis:
        """Who is ahead and by how much: per player win probability, expected final score and its spread,
        the expected score by source, and the best moves with their main lines."""
        merged, player, call_seed = self._search(state, limit, viewpoint)
        its = sum(t.root_stats()["iterations"] for t in merged.trees)
        acts = sum(t.root_stats()["actions"] for t in merged.trees)
        k = state.num_players
        score_sum = [0.0] * k
        score_sq = [0.0] * k
        win_sum = [0.0] * k
        src_sum = [[0.0] * len(SOURCES) for _ in range(k)]
        for t in merged.trees:
            rs = t.root_stats()
            for q in range(k):
                score_sum[q] += rs["score_sum"][q]
                score_sq[q] += rs["score_sq"][q]
                win_sum[q] += rs["win_sum"][q]
                for j in range(len(SOURCES)):
                    src_sum[q][j] += rs["src_sum"][q][j]
        now = state.score_breakdown()
        players = []
        for q in range(k):
            mean = score_sum[q] / its
            var = max(0.0, score_sq[q] / its - mean * mean)
            exp_src = {SOURCES[j]: src_sum[q][j] / its for j in range(len(SOURCES))}
            to_come = {
                "cobblestones": exp_src["final_cobblestones"],
                "passengers": exp_src["final_passengers"],
                "modernisme_tiles": exp_src["final_modernisme"],
                "cerda_scorings": exp_src["cerda_scoring"] - now[q]["cerda_scoring"],
                "other_play": sum(exp_src[s] - now[q][s] for s in SOURCES
                                  if s not in ("final_cobblestones", "final_passengers", "final_modernisme",
                                               "cerda_scoring")),
            }
            players.append(PlayerAnalysis(player=q, win_prob=win_sum[q] / its, expected_score=mean,
                                          score_stdev=math.sqrt(var), current_score=state.scores()[q],
                                          breakdown=exp_src, to_come=to_come))
        nodes = sum(t.num_nodes for t in merged.trees)
        return Analysis(player=player, iterations=its, actions_applied=acts, nodes=nodes,
                        bytes_per_node=Tree.node_bytes(), seed=call_seed,
                        moves=self._candidates(state, merged)[:top], players=players)


# ---------------------------------------------------------------------------------------------------------------
# tree walking helpers

def _root_order(merged: _Merged) -> list[int]:
    """Root actions in the engine's order of preference: the sequential-halving survivors first (if it ran),
    then by visits; ties go to the lower id."""
    kids = merged.root_children()
    survivors = {t.survivor for t in merged.trees} - {None}
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


def _plan_leaves(tree: Tree, node: int, player: int, keys: list[int]):
    """Turn plans below a root child: follow the player's own decisions until someone else or chance decides."""
    nd = tree.node(node)
    kids = [c for c in tree.children(node) if tree.node(c)["visits"] > 0]
    if nd["to_move"] != player or not kids:
        yield keys, node
        return
    for c in kids:
        yield from _plan_leaves(tree, c, player, keys + [tree.node(c)["key"]])


def _main_line(state: State, keys: list[int], tree: Tree, node: int, length: int = 12) -> list[str]:
    """The most visited continuation after `keys` (stops at hidden draws or after `length` steps)."""
    line_keys = list(keys)
    while len(line_keys) < len(keys) + length:
        kids = tree.children(node)
        if not kids:
            break
        node = max(kids, key=lambda c: (tree.node(c)["visits"], -tree.node(c)["key"]))
        if tree.node(node)["visits"] == 0:
            break
        line_keys.append(tree.node(node)["key"])
    s = state.clone()
    out = []
    for i, a in enumerate(line_keys):
        if a == HIDDEN_DRAW:
            out.append(f"P{s.raw()['cur']} draws (hidden)")
            break
        if a not in s.legal_actions():
            break
        who = "chance" if s.is_chance_node() else f"P{s.current_player()}"
        if i >= len(keys):
            out.append(f"{who}: {s.action_to_string(a)}")
        s.apply(a)
    return out
