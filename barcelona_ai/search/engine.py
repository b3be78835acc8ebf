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
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

from .._version import __version__
from ..core import CONSTANTS, SOURCES, State
from ..rules.notation import describe_action_id
from ..errors import BarcelonaError, PlayerCountError, SearchError, SearchInterrupted
from ..learned.evaluation import ValueModel
from ..rules.jsonio import show_path
from .tree import HIDDEN_DRAW, Tree, TurnPolicy, policy_playouts
from .settings import PLAYER_COUNTS, SearchSettings, preset_settings

CHANCE = CONSTANTS["CHANCE"]
TERMINAL = CONSTANTS["TERMINAL"]


MAX_ITERATIONS = 10**12             # a search budget must end: about a day of search on one core at 10^7/s
MAX_SECONDS = 1e6                   # about 11.6 days
PLAYOUT_TEMPERATURE = 0.5           # the turn policy's softmax temperature in them (0.25 and 1.0 forecast alike)
PLAYOUT_TRIAL = 8                   # games that time the playouts of a call under a time limit (their cost is
                                    #   taken out of the search's time: _Search.reserve_playout_time)


@dataclass(frozen=True)
class Limit:
    """Search budget: iterations, time in seconds, or both (whichever is reached first). Both are finite; a
    search also ends early on Ctrl-C (SearchInterrupted) or Engine.stop()."""
    iterations: int | None = None
    time: float | None = None

    def __post_init__(self):
        if self.iterations is None and self.time is None:
            raise BarcelonaError("Limit needs iterations or time")
        if self.iterations is not None and (isinstance(self.iterations, bool) or
                                            not isinstance(self.iterations, int) or
                                            not 1 <= self.iterations <= MAX_ITERATIONS):
            raise BarcelonaError(f"Limit.iterations must be an integer from 1 to {MAX_ITERATIONS:.0e}, "
                                 f"not {self.iterations!r}")
        if self.time is not None and (isinstance(self.time, bool) or not isinstance(self.time, (int, float))
                                      or not 0 < self.time <= MAX_SECONDS):       # refuses NaN and infinity
            raise BarcelonaError(f"Limit.time must be a number of seconds in (0, {MAX_SECONDS:.0e}], "
                                 f"not {self.time!r}")


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


class _LastSearch(NamedTuple):
    """An engine's last search, kept for tree reuse (SearchSettings.reuse_tree)."""
    player: int
    history: tuple
    state: State                    # its root position
    trees: list
    forecasts: bool                 # every iteration of the trees evaluated the numbers shown (Tree.forecasts)


class _Search:
    """One call's search: the trees (root-parallel), whose player and seed, and the budget left.

    The trees run in worker threads while the calling thread waits in short joins, so that Ctrl-C reaches it at
    once: it then asks every tree to stop (they return within one iteration) and raises SearchInterrupted.
    run() can be called repeatedly with a slice of time: an iteration budget gives the same trees however it
    is sliced (analysis streams)."""

    def __init__(self, state: State, player: int, call_seed: int, trees: list[Tree], limit: Limit,
                 halving: bool):
        self.state = state
        self.player = player
        self.call_seed = call_seed
        self.trees = trees
        self.halving = halving
        n = len(trees)
        its = limit.iterations or 0
        self.left = [its // n + (1 if i < its % n else 0) for i in range(n)] if its else None
        self.deadline = time.monotonic() + limit.time if limit.time else None
        self.stopped = False
        self.forecast_model: ValueModel | None = None   # the network whose forecasts are shown (their error)
        self.playouts = 0                           # SearchSettings.playouts, playout_weight and their policy
        self.playout_weight = 0.0
        self.playout_policy: TurnPolicy | None = None
        self._playout_wins: dict[int, list[float]] = {}     # root action -> its playouts' mean win shares
        self._start_iterations = self._root_iterations()   # a reused tree has run some already
        self.counted = 0                            # iterations already added to the engine's count

    def _root_iterations(self) -> int:
        return sum(t.root_stats()["iterations"] for t in self.trees)

    def blended(self, key: int, win: list[float]) -> list[float]:
        """The win probabilities shown of root action `key`: the search's forecasts `win`, blended with the mean
        win shares of the settings' playouts after the action (SearchSettings.playouts; as they are without).
        The playouts start from the real position after the searcher's own action but each from a
        determinization of what the searcher sees, with a seed of this call's and the action's, so they depend
        on nothing the searcher cannot see (A6); they are played once per action and call."""
        if not self.playouts:
            return win
        if key not in self._playout_wins:
            after = self.state.clone()
            after.apply(key)
            self._playout_wins[key] = policy_playouts(self.playout_policy, after, self.player, self.playouts,
                                                      PLAYOUT_TEMPERATURE, _mix_seed(self.call_seed, key))[0]
        lam = self.playout_weight
        return [(1.0 - lam) * w + lam * p for w, p in zip(win, self._playout_wins[key])]

    def reserve_playout_time(self, moves: int) -> None:
        """Take the time of the playouts of `moves` moves shown out of a time limit, so that the call, playouts
        included, keeps to it: their cost is timed on PLAYOUT_TRIAL games from the position (each move's are
        played after the search), and at most half of the limit is given to them. Nothing changes without a
        time limit or playouts."""
        if self.deadline is None or not self.playouts or moves <= 0:
            return
        start = time.monotonic()
        policy_playouts(self.playout_policy, self.state, self.player, PLAYOUT_TRIAL, PLAYOUT_TEMPERATURE,
                        self.call_seed)
        now = time.monotonic()
        each = (now - start) / PLAYOUT_TRIAL
        self.deadline -= min(each * self.playouts * moves, (self.deadline - now) / 2)

    def iterations(self) -> int:
        """Iterations this call has run so far."""
        return self._root_iterations() - self._start_iterations

    def done(self) -> bool:
        if self.stopped:
            return True
        if self.left is not None and not any(self.left):
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def stop(self) -> None:
        """Ask the running trees to return (thread-safe: a web request or a signal handler may call it)."""
        self.stopped = True
        for t in self.trees:
            t.request_stop()

    def run(self, slice_seconds: float | None = None) -> None:
        """Search until the budget is spent, stop() is called, or `slice_seconds` pass (then run() again)."""
        if self.done():
            return
        secs = 0.0
        if self.deadline is not None:
            secs = max(self.deadline - time.monotonic(), 1e-6)
        if slice_seconds is not None:
            secs = min(secs, slice_seconds) if secs else slice_seconds
        budgets = self.left if self.left is not None else [0] * len(self.trees)     # 0: until the time is up
        jobs = [(i, t, k) for i, (t, k) in enumerate(zip(self.trees, budgets)) if k or self.left is None]
        done = [0] * len(self.trees)
        errors: list[BaseException] = []

        def work(i: int, tree: Tree, k: int) -> None:
            try:
                done[i] = tree.run(k, secs, self.halving)
            except BaseException as exc:           # re-raised in the calling thread
                errors.append(exc)

        workers = [threading.Thread(target=work, args=job, daemon=True) for job in jobs]
        for w in workers:
            w.start()
        try:
            for w in workers:
                while w.is_alive():
                    w.join(0.05)
        except KeyboardInterrupt:
            self.stop()
            for w in workers:
                w.join()
            raise SearchInterrupted() from None
        finally:
            if self.left is not None:
                self.left = [max(0, k - d) for k, d in zip(self.left, done)]
        if errors:
            raise errors[0]

    def merged(self) -> "_Merged":
        return _Merged(self.trees)


class Engine:
    """ISMCTS engine: ``Engine(seed=1)`` plays the default preset of each player count (settings.PRESETS),
    ``Engine(preset="v0")`` the first engine; other keywords are SearchSettings fields that override the preset's
    for every player count (``Engine(seed=1, threads=2)``), or `settings` gives them whole (a SearchSettings for
    every player count, or {players: SearchSettings}).

    Every answer for player p is computed from p's observation only (A6): the search determinizes from it, the
    call's seed is drawn from it, and moves and main lines are written on a determinization of it, with other
    players' placements written without the citizens p cannot see. Ctrl-C during a call stops the search within
    a fraction of a second and raises SearchInterrupted (a KeyboardInterrupt) carrying the answer so far."""

    def __init__(self, seed: int = 0, settings: SearchSettings | Mapping[int, SearchSettings] | None = None,
                 preset: str = "default", **overrides):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise BarcelonaError(f"seed must be a non-negative integer, not {seed!r}")
        self.seed = seed
        self.preset = preset
        self.settings = _engine_settings(settings, preset, overrides)
        s = self.settings
        self._params = {n: r.params() for n, r in s.items()}
        self._model = {n: r.value_model() for n, r in s.items()}
        self._forecast_model = {n: r.forecast_value_model() for n, r in s.items()}
        self._turn_policy = {n: r.learned_turn_policy() for n, r in s.items()}
        self._playouts = {n: (r.playouts, r.playout_weight, r.playout_policy()) for n, r in s.items()}
        self._last: _LastSearch | None = None  # the last search, whose trees a continuation may reuse
        self._running: _Search | None = None
        self._iterations_done = 0               # iterations of the searches run so far (the running one's not)
        self._count_lock = threading.Lock()

    @property
    def iterations_searched(self) -> int:
        """Iterations this engine's calls have run so far, the running call's included: read it from any
        thread to show progress (progress.SearchProgress); nothing is decided by it."""
        with self._count_lock:
            running = self._running
            return self._iterations_done + (running.iterations() - running.counted if running else 0)

    def _run(self, search: _Search, slice_seconds: float | None = None) -> None:
        """search.run(slice_seconds), visible meanwhile to stop() and iterations_searched."""
        self._running = search
        try:
            search.run(slice_seconds)
        finally:
            with self._count_lock:
                self._running = None
                now = search.iterations()
                self._iterations_done += now - search.counted
                search.counted = now

    def stop(self) -> None:
        """Stop the search running now (from another thread): the call returns the answer of the work done."""
        running = self._running
        if running is not None:
            running.stop()

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

    def _check_model(self, players: int) -> None:
        """BarcelonaError where a value model the search would read was not fitted on `players`-player games
        (a model file's "players"): its forecasts there would be uncalibrated."""
        settings = self.settings[players]
        value, forecast = self._model[players], self._forecast_model[players]
        for setting, model in (("model", value), ("forecast_model", None if forecast is value else forecast)):
            if model is not None:
                model.require_players(players, f"search setting {setting} {show_path(getattr(settings, setting))}")

    def _start(self, state: State, limit: Limit, viewpoint: int | None, choosing: bool = True,
               forecasts: bool = True, shown: int = 0) -> _Search:
        """A search for the player to move. best_move, hints and analyse search alike (`choosing`: sequential
        halving where the settings ask for it), so they name the same move with the same numbers; an analysis
        stream, which runs in slices, searches with UCB1 (choosing=False). forecasts=False: the caller wants
        the move only, and the trees skip the evaluations that serve only the numbers shown (Tree.forecasts):
        the same move, sooner. `shown`: the moves whose numbers the call shows (their playouts' time is taken out
        of a time limit)."""
        if not isinstance(limit, Limit):
            raise BarcelonaError(f"expected a Limit, not {limit!r}")
        player = self._check(state, viewpoint)
        self._check_model(state.num_players)
        n = state.num_players
        settings = self.settings[n]
        halving = choosing and settings.root_halving
        call_seed = _mix_seed(self.seed, state.observation_hash(player))
        trees = self._reused_trees(state, player, forecasts) if settings.reuse_tree else None
        if trees is None:
            trees = [Tree(state, player, self._params[n], _mix_seed(call_seed, i), self._model[n],
                          self._turn_policy[n], self._forecast_model[n]) for i in range(settings.threads)]
        if settings.reuse_tree:
            self._last = _LastSearch(player, tuple(state.history()), state.clone(), trees, forecasts)
        for t in trees:
            t.forecasts = forecasts
            t.clear_stop()                      # a reused tree may carry the stop of an interrupted call
        search = _Search(state, player, call_seed, trees, limit, halving)
        search.forecast_model = self._forecast_model[n]
        search.playouts, search.playout_weight, search.playout_policy = self._playouts[n]
        search.reserve_playout_time(min(shown, len(state.legal_actions())))
        return search

    def _finish(self, search: _Search, answer):
        """Run `search` to its end and return answer(search); on Ctrl-C, SearchInterrupted with the answer so
        far (None if there is none yet)."""
        try:
            self._run(search)
        except SearchInterrupted:
            raise SearchInterrupted(_answer_or_none(answer, search)) from None
        return answer(search)

    def _reused_trees(self, state: State, player: int, forecasts: bool) -> list[Tree] | None:
        """The last search's trees re-rooted at `state`, if `state` continues that search's root position (and,
        for a call that shows numbers, every iteration of those trees evaluated them: forecasts). Draws of
        other players map to the one hidden edge: the searcher does not see them (A6)."""
        if self._last is None or self._last.player != player or (forecasts and not self._last.forecasts):
            return None
        old_hist, trees = self._last.history, self._last.trees
        hist = state.history()
        if len(hist) <= len(old_hist) or tuple(hist[:len(old_hist)]) != old_hist:
            return None
        replay = self._last.state.clone()
        keys = []
        for a in hist[len(old_hist):]:
            keys.append(HIDDEN_DRAW if replay.is_hidden_draw(player) else a)
            replay.apply(a)
        if not all(t.reroot(state, keys) for t in trees):
            return None
        return trees

    # -- the calls ----------------------------------------------------------------------------------------
    def best_move(self, state: State, limit: Limit, viewpoint: int | None = None) -> int:
        """The action id to play: the sequential-halving survivor (the one with most visits among the threads'
        survivors), else the most visited root action; ties go to the lower id (_root_order). No move depends on
        the numbers shown, so the search skips what serves only them (Tree.forecasts): the move hints and analyse
        name at the same seed and budget, sooner."""
        search = self._start(state, limit, viewpoint, forecasts=False)
        return self._finish(search, _best_action)

    def hints(self, state: State, limit: Limit, top: int = 3, viewpoint: int | None = None) -> list[MoveInfo]:
        """The `top` best first moves, each as a turn plan: this player's decisions until another player or
        chance is next (_hints)."""
        _check_top(top)
        search = self._start(state, limit, viewpoint, shown=top)
        return self._finish(search, lambda sr: _hints(sr, top))

    def analyse(self, state: State, limit: Limit, top: int = 5, viewpoint: int | None = None) -> Analysis:
        """Who is ahead and by how much: per player win probability, expected final score and its spread,
        the expected score by source, and the best moves with their main lines."""
        _check_top(top)
        search = self._start(state, limit, viewpoint, shown=top)
        return self._finish(search, lambda sr: _analysis(sr, top))

    def analysis(self, state: State, limit: Limit, top: int = 5, viewpoint: int | None = None,
                 interval: float = 0.5) -> "AnalysisStream":
        """A streaming analyse(): an iterator of interim Analysis reports, one every `interval` seconds of
        search, the last one at the end of the budget (with an iteration limit it equals analyse()'s answer, except
        where analyse spreads the root budget by sequential halving, which a stream in slices cannot: 4 players
        by default).
        Stop it at any moment: leave the loop, or call stop() (from any thread) to end with a final report.
        Like python-chess's ``engine.analysis()`` and KataGo's ``reportDuringSearchEvery``."""
        _check_top(top)
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0.01 <= interval <= 3600:
            raise BarcelonaError(f"interval must be 0.01 to 3600 seconds, not {interval!r}")
        return AnalysisStream(self, self._start(state, limit, viewpoint, choosing=False, shown=top), top,
                              float(interval))


class AnalysisStream:
    """Interim analysis reports of one running search (Engine.analysis). Iterate over it; ``stop()`` ends it
    (the next report is the last); ``latest`` is the last report given. Also a context manager."""

    def __init__(self, engine: Engine, search: _Search, top: int, interval: float):
        self._engine = engine
        self._search = search
        self._top = top
        self._interval = interval
        self.latest: Analysis | None = None

    def __iter__(self):
        return self

    def __next__(self) -> Analysis:
        sr = self._search
        if sr.done() and self.latest is not None:
            raise StopIteration
        try:
            self._engine._run(sr, self._interval)
        except SearchInterrupted:
            raise SearchInterrupted(_answer_or_none(lambda x: _analysis(x, self._top), sr)) from None
        self.latest = _analysis(sr, self._top)
        return self.latest

    def stop(self) -> None:
        self._search.stop()

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# ---------------------------------------------------------------------------------------------------------------
# answers from the trees

def _check_top(top) -> None:
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= 1000:
        raise BarcelonaError(f"top must be an integer from 1 to 1000, not {top!r}")


def _answer_or_none(answer, search: _Search):
    """The answer from the trees as they are (after an interruption); None when no iteration has run yet."""
    if not any(t.root_stats()["iterations"] for t in search.trees):
        return None
    return answer(search)


def _view(search: _Search) -> State:
    """The state answers are written on: a determinization of the searching player's observation, with a seed
    drawn from that observation, so that nothing written depends on what the player cannot see (A6)."""
    return search.state.determinize(search.player, search.call_seed)


def _best_action(search: _Search) -> int:
    order = _root_order(search)
    return order[0] if order else search.state.legal_actions()[0]


def _move_info(search: _Search, view: State, keys: list[int], stats: dict, main: list[str]) -> MoveInfo:
    win, expected = _shown_stats(search, keys[0], stats)
    return MoveInfo(actions=list(keys), moves=_notation(view, keys), visits=stats["visits"], win_prob=win,
                    expected_score=expected, main_line=main)


def _shown_stats(search: _Search, key: int, stats: dict) -> tuple[list[float], list[float]]:
    """Root action `key`'s numbers (win probabilities, expected final scores) as shown: the mean forecasts of
    its statistics `stats`, the win probabilities blended with its playouts (_Search.blended)."""
    v = max(stats["visits"], 1)
    return search.blended(key, [x / v for x in stats["win"]]), [x / v for x in stats["score"]]


# A hint after the first is shown only when its numbers rest on this share of the search's iterations (and on at
# least HINT_MIN_VISITS visits): rarer plans are the search's exploration, not its opinion.
HINT_MIN_SHARE = 0.01
HINT_MIN_VISITS = 10
def _visits_floor(kids: dict) -> float:
    """The visits a root action's numbers must rest on to be shown after the first hint."""
    return max(HINT_MIN_VISITS, HINT_MIN_SHARE * sum(st["visits"] for st in kids.values()))


def _hints(search: _Search, top: int) -> list[MoveInfo]:
    """The `top` best first moves in the engine's order (the first is best_move's move), each with its main
    plan (_main_plan) and its statistics over every thread: analyse's numbers for that move, the first hint's
    being the root value (_root_value). The visits rule: a move after the first is listed only when its
    numbers rest on enough visits (_visits_floor)."""
    merged, player, view = search.merged(), search.player, _view(search)
    kids = merged.root_children()
    floor = _visits_floor(kids)
    shown: list[MoveInfo] = []
    for key in _root_order(search):
        st = kids[key]
        if shown and st["visits"] < floor:
            continue
        tree, node = _busiest_ref(st)
        keys, end = _main_plan(tree, node, player, [key])
        shown.append(_move_info(search, view, keys, st, _main_line(view, player, keys, tree, end)))
        if len(shown) == top:
            break
    return shown


def _busiest_ref(st: dict) -> tuple[Tree, int]:
    """(tree, node) of a merged root child's copy with the most visits: the thread whose subtree shows its plan."""
    return max(st["refs"], key=lambda r: r[0].node(r[1])["visits"])


def _candidates(search: _Search, view: State, top: int) -> list[MoveInfo]:
    merged = search.merged()
    kids = merged.root_children()
    out = []
    for key in _root_order(search)[:top]:
        st = kids[key]
        tree, node = _busiest_ref(st)
        out.append(_move_info(search, view, [key], st, _main_line(view, search.player, [key], tree, node)))
    return out


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


def _root_value(search: _Search) -> tuple[list[float], list[float]]:
    """The position's value with best play (KataGo's rootInfo): every player's win probability and expected
    final score at the engine's best move (the first in _root_order), so that analyse, hints and best_move
    agree; as shown (_shown_stats)."""
    best = _root_order(search)[0]
    return _shown_stats(search, best, search.merged().root_children()[best])


def _split_by_source(now: dict, played: dict, current: float, expected: float) -> dict:
    """Expected final VP by source: VP now, plus the VP still to come (expected - current) split in the
    proportions the search's playouts scored them (exact for the v0 engine, whose expected score is theirs)."""
    come = {src: played[src] - now[src] for src in SOURCES}
    total = sum(come.values())
    if total > 0.5:
        return {src: now[src] + come[src] * (expected - current) / total for src in SOURCES}
    out = dict(now)                                  # nothing scored in the playouts (the end is reached)
    top = max(SOURCES, key=lambda src: now[src])
    out[top] += expected - current
    return out


def _to_come(exp_src: dict, now: dict) -> dict:
    finals = ("final_cobblestones", "final_passengers", "final_modernisme")
    return {"cobblestones": exp_src["final_cobblestones"], "passengers": exp_src["final_passengers"],
            "modernisme_tiles": exp_src["final_modernisme"],
            "cerda_scorings": exp_src["cerda_scoring"] - now["cerda_scoring"],
            "other_play": sum(exp_src[s] - now[s] for s in SOURCES if s not in finals + ("cerda_scoring",))}


def _analysis(search: _Search, top: int) -> Analysis:
    state, trees = search.state, search.trees
    k = state.num_players
    its, score_sum, score_sq, src_sum = _root_sums(trees, k)
    acts = sum(t.root_stats()["actions"] for t in trees)
    now, scores = state.score_breakdown(), state.scores()
    win, expected = _root_value(search)
    n = max(its, 1)
    players = []
    for q in range(k):
        mean = score_sum[q] / n
        var = max(0.0, score_sq[q] / n - mean * mean)
        if search.forecast_model is not None:        # forecasts at the leaves: add the forecast's own error
            var += search.forecast_model.score_error(state, q) ** 2
        played = {SOURCES[j]: src_sum[q][j] / n for j in range(len(SOURCES))}
        exp_src = _split_by_source(now[q], played, scores[q], expected[q])
        players.append(PlayerAnalysis(player=q, win_prob=win[q], expected_score=expected[q],
                                      score_stdev=math.sqrt(var), current_score=scores[q],
                                      breakdown=exp_src, to_come=_to_come(exp_src, now[q])))
    nodes = sum(t.num_nodes for t in trees)
    return Analysis(player=search.player, iterations=its, actions_applied=acts, nodes=nodes,
                    bytes_per_node=Tree.node_bytes(), seed=search.call_seed,
                    moves=_candidates(search, _view(search), top), players=players)


# ---------------------------------------------------------------------------------------------------------------
# tree walking helpers

def _root_order(search: _Search) -> list[int]:
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


def _engine_settings(settings, preset: str, overrides: dict) -> dict[int, SearchSettings]:
    """{players: SearchSettings} of an Engine: `settings` (one for every player count, or a mapping by player
    count) or the preset's, with the overrides applied (each checked for every player count)."""
    if settings is None:
        return preset_settings(preset, **overrides)
    if preset != "default":
        raise BarcelonaError("give a preset or settings, not both")
    if isinstance(settings, SearchSettings):
        settings = {n: settings for n in PLAYER_COUNTS}
    if not isinstance(settings, Mapping) or set(settings) != set(PLAYER_COUNTS) or \
            not all(isinstance(v, SearchSettings) for v in settings.values()):
        raise BarcelonaError("settings must be a SearchSettings or {players: SearchSettings} for 2, 3 and 4 players")
    return {n: settings[n].replace(**overrides) for n in PLAYER_COUNTS}
