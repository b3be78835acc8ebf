"""The engine players use: best move, hints (turn plans) and position analysis, over the compiled ISMCTS.

Shaped after python-chess's ``engine`` module (``Limit``, ``analyse``) and KataGo's analysis engine (per-move
records with visits, win rate, expected score and main line). Every call searches for the player to move and
reads nothing that player cannot see: the search resamples the other hands at every iteration, and the seed
of a call is derived from the engine's seed and that player's observation, so two states that differ only in
hidden information give identical answers. The search's settings are in settings.py, one call's search in
running.py, the answers read from its trees in results.py.
"""
from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from ..core import State
from ..errors import BarcelonaError, PlayerCountError, SearchError, SearchInterrupted
from ..learned.models import fits, fitted_edition
from ..rules.jsonio import show_path
from .results import Analysis, MoveInfo, PlayerAnalysis, analysis_of, answer_or_none, best_action, check_top, hints_of
from .running import LastSearch, Search, mix_seed
from .settings import PLAYER_COUNTS, Limit, SearchSettings, preset_settings
from .tree import HIDDEN_DRAW, Tree

__all__ = ["Engine", "AnalysisStream", "Limit", "SearchSettings", "Analysis", "MoveInfo", "PlayerAnalysis",
           "SearchError"]


class Engine:
    """ISMCTS engine: ``Engine(seed=1)`` plays the default preset of each player count (settings.PRESETS),
    ``Engine(preset="v0")`` the first engine; other keywords are SearchSettings fields that override the preset's
    for every player count (``Engine(seed=1, threads=2)``), or `settings` gives them whole (a SearchSettings for
    every player count, or {players: SearchSettings}).

    Every answer for player p is computed from p's observation only (A6): the search determinizes from it, the
    call's seed is drawn from it, and moves and main lines are written on a determinization of it, with other
    players' placements written without the citizens p cannot see. Ctrl-C during a call stops the search within
    a fraction of a second and raises SearchInterrupted (a KeyboardInterrupt) carrying the answer so far.

    One engine searches one thing at a time: calls from several threads run one after the other (an analysis
    stream holds the engine for each of its slices), so that no call re-roots or reads trees another is
    searching. stop() and iterations_searched may be called from any thread at any time."""

    def __init__(self, seed: int = 0, settings: SearchSettings | Mapping[int, SearchSettings] | None = None,
                 preset: str = "default", **overrides):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise BarcelonaError(f"seed must be a non-negative integer, not {seed!r}")
        self.seed = seed
        self.preset = preset
        self.settings = _engine_settings(settings, preset, overrides)
        self._kits = {n: _Kit.of(r) for n, r in self.settings.items()}
        self._other_kits: dict[tuple, _Kit] = {}    # (players, edition digest) -> _Kit, where _kits[n] do not fit
        self._params = {n: k.params for n, k in self._kits.items()}
        self._model = {n: k.model for n, k in self._kits.items()}
        self._forecast_model = {n: k.forecast_model for n, k in self._kits.items()}
        self._turn_policy = {n: k.turn_policy for n, k in self._kits.items()}
        self._last: LastSearch | None = None  # the last search, whose trees a continuation may reuse
        self._running: Search | None = None
        self._calls = threading.RLock()         # held by each call (and each slice of a stream) while it searches
        self._iterations_done = 0               # iterations of the searches run so far (the running one's not)
        self._count_lock = threading.Lock()

    @property
    def iterations_searched(self) -> int:
        """Iterations this engine's calls have run so far, the running call's included: read it from any
        thread to show progress (progress.SearchProgress); nothing is decided by it."""
        with self._count_lock:
            running = self._running
            return self._iterations_done + (running.iterations() - running.counted if running else 0)

    def _run(self, search: Search, slice_seconds: float | None = None) -> None:
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

    def _kit(self, state: State) -> "_Kit":
        """What the search of `state` runs with. A model's forecasts were measured on the games of the edition it
        was fitted on and nowhere else, so on the state's edition (its board-data digest):
        - the engine's settings and models, where every model file they read was fitted on it;
        - where the files that choose moves (`model`, and `policy` where it plays) were fitted on it but the
          forecast network was not, the same with `model` giving the numbers shown too;
        - else the model-free preset's (v0) settings of that player count, with the engine's threads, node budget
          and tree reuse: its rollouts' shares are the numbers there.
        BarcelonaError where a value model the search would read was not fitted on that player count's games
        (a model file's "players")."""
        n, edition = state.num_players, state.game_data.edition
        kit = self._kits[n]
        if not kit.fits(edition):
            key = (n, edition.sha256)
            if key not in self._other_kits:
                self._other_kits[key] = self._kit_on_another_board(n, edition)
            kit = self._other_kits[key]
        for setting, model in (("model", kit.model),
                               ("forecast_model", None if kit.forecast_model is kit.model else kit.forecast_model)):
            if model is not None:
                model.require_players(n, f"search setting {setting} {show_path(getattr(kit.settings, setting))}")
        return kit

    def _kit_on_another_board(self, n: int, edition) -> "_Kit":
        """_kit's second and third cases: the settings of player count n on an edition that some of its model
        files were not fitted on."""
        s = self.settings[n]
        deciding = [s.model] + ([s.policy] if s.policy is not None and (s.turn_policy == "learned" or s.playouts)
                                else [])
        if all(fits(fitted_edition(f), edition) for f in deciding if f is not None) and s.model is not None:
            return _Kit.of(s.replace(forecast_model=s.model))
        return _Kit.of(preset_settings("v0")[n].replace(threads=s.threads, max_nodes=s.max_nodes,
                                                        reuse_tree=s.reuse_tree))

    def model_free(self, state: State) -> bool:
        """Whether this engine searches `state` without its learned models: the ones that choose its moves were
        not fitted on the state's edition (docs/editions.md), so it plays the model-free preset there (the
        numbers it shows are its rollouts' shares). False for an engine that reads no model (the v0 preset)."""
        kit = self._kit(state)
        return kit.settings.model is None and self.settings[state.num_players].model is not None

    def evaluation_note(self, state: State) -> str | None:
        """One sentence for a person reading this engine's numbers on `state`'s board, where they are not the
        learned models' (model_free); None where they are."""
        if not self.model_free(state):
            return None
        from ..rules.words import edition_words
        return (f"No learned model was fitted on {edition_words(state)}: the engine plays its model-free search "
                "there (every line played to the game's end), and its win chances are those games' shares, "
                "far less reliable than the learned ones (docs/editions.md).")

    def _start(self, state: State, limit: Limit, viewpoint: int | None, choosing: bool = True,
               forecasts: bool = True, shown: int = 0) -> Search:
        """A search for the player to move. best_move, hints and analyse search alike (`choosing`: sequential
        halving where the settings ask for it), so they name the same move with the same numbers; an analysis
        stream, which runs in slices, searches with UCB1 (choosing=False). forecasts=False: the caller wants
        the move only, and the trees skip the evaluations that serve only the numbers shown (Tree.forecasts):
        the same move, sooner. `shown`: the moves whose numbers the call shows (their playouts' time is taken out
        of a time limit)."""
        if not isinstance(limit, Limit):
            raise BarcelonaError(f"expected a Limit, not {limit!r}")
        player = self._check(state, viewpoint)
        kit = self._kit(state)
        settings = kit.settings
        halving = choosing and settings.root_halving
        call_seed = mix_seed(self.seed, state.observation_hash(player))
        trees = self._reused_trees(state, player, forecasts, kit) if settings.reuse_tree else None
        if trees is None:
            trees = [Tree(state, player, kit.params, mix_seed(call_seed, i), kit.model, kit.turn_policy,
                          kit.forecast_model) for i in range(settings.threads)]
        if settings.reuse_tree:
            self._last = LastSearch(player, tuple(state.history()), state.clone(), trees, forecasts, kit)
        for t in trees:
            t.forecasts = forecasts
            t.clear_stop()                      # a reused tree may carry the stop of an interrupted call
        search = Search(state, player, call_seed, trees, limit, halving)
        search.forecast_model = kit.forecast_model
        search.playouts, search.playout_weight, search.playout_policy = kit.playouts
        search.reserve_playout_time(min(shown, len(state.legal_actions())))
        return search

    def search_with(self, state: State, limit: Limit, answer, viewpoint: int | None = None, shown: int = 0):
        """A search of `state` read by `answer(search)` (a running.Search; results.py reads one): for a workflow
        that needs numbers best_move, hints and analyse do not give (review compares two moves). `shown`: how
        many root moves' shown numbers will be read (their playouts are timed into the limit)."""
        return self._call(state, limit, viewpoint, answer, shown=shown)

    def _call(self, state: State, limit: Limit, viewpoint: int | None, answer, **start):
        """One call: a search started (_start) and run to its end, then answer(search), holding the engine
        meanwhile; on Ctrl-C, SearchInterrupted with the answer so far (None if there is none yet). A search whose
        budget ended before its first iteration runs one (Search.ensure_answer), so that every call answers."""
        with self._calls:
            search = self._start(state, limit, viewpoint, **start)
            try:
                self._run(search)
            except SearchInterrupted:
                raise SearchInterrupted(answer_or_none(answer, search)) from None
            search.ensure_answer()
            return answer(search)

    def _reused_trees(self, state: State, player: int, forecasts: bool, kit: "_Kit") -> list[Tree] | None:
        """The last search's trees re-rooted at `state`, if `state` continues that search's root position with
        the same settings and models (and, for a call that shows numbers, every iteration of those trees
        evaluated them: forecasts). Draws of other players map to the one hidden edge: the searcher does not see
        them (A6)."""
        last = self._last
        if last is None or last.player != player or last.kit is not kit or (forecasts and not last.forecasts):
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
        return self._call(state, limit, viewpoint, best_action, forecasts=False)

    def hints(self, state: State, limit: Limit, top: int = 3, viewpoint: int | None = None) -> list[MoveInfo]:
        """The `top` best first moves, each as a turn plan: this player's decisions until another player or
        chance is next (hints_of)."""
        check_top(top)
        return self._call(state, limit, viewpoint, lambda sr: hints_of(sr, top), shown=top)

    def analyse(self, state: State, limit: Limit, top: int = 5, viewpoint: int | None = None) -> Analysis:
        """Who is ahead and by how much: per player win probability, expected final score and its spread,
        the expected score by source, and the best moves with their main lines."""
        check_top(top)
        return self._call(state, limit, viewpoint, lambda sr: analysis_of(sr, top), shown=top)

    def analysis(self, state: State, limit: Limit, top: int = 5, viewpoint: int | None = None,
                 interval: float = 0.5) -> "AnalysisStream":
        """A streaming analyse(): an iterator of interim Analysis reports, one every `interval` seconds of
        search, the last one at the end of the budget (with an iteration limit it equals analyse()'s answer, except
        where analyse spreads the root budget by sequential halving, which a stream in slices cannot: 4 players
        by default).
        Stop it at any moment: leave the loop, or call stop() (from any thread) to end with a final report.
        Like python-chess's ``engine.analysis()`` and KataGo's ``reportDuringSearchEvery``."""
        check_top(top)
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0.01 <= interval <= 3600:
            raise BarcelonaError(f"interval must be 0.01 to 3600 seconds, not {interval!r}")
        with self._calls:
            search = self._start(state, limit, viewpoint, choosing=False, shown=top)
            self._last = None                   # the stream's trees are its own: no later call re-roots them
        return AnalysisStream(self, search, top, float(interval))


class AnalysisStream:
    """Interim analysis reports of one running search (Engine.analysis). Iterate over it; ``stop()`` ends it
    (the next report is the last); ``latest`` is the last report given. Also a context manager."""

    def __init__(self, engine: Engine, search: Search, top: int, interval: float):
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
        with self._engine._calls:
            try:
                self._engine._run(sr, self._interval)
            except SearchInterrupted:
                raise SearchInterrupted(answer_or_none(lambda x: analysis_of(x, self._top), sr)) from None
            sr.ensure_answer()
            self.latest = analysis_of(sr, self._top)
        return self.latest

    def stop(self) -> None:
        self._search.stop()

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


@dataclass(frozen=True, eq=False)
class _Kit:
    """One player count's settings with what they read: the compiled parameters, the model files loaded, and
    the editions those files were fitted on (models.edition_entry)."""
    settings: SearchSettings
    params: dict
    model: object
    forecast_model: object
    turn_policy: object
    playouts: tuple
    editions: tuple

    @classmethod
    def of(cls, s: SearchSettings) -> "_Kit":
        files = [f for f in (s.model, s.forecast_model) if f is not None]
        if s.policy is not None and (s.turn_policy == "learned" or s.playouts):
            files.append(s.policy)
        return cls(s, s.params(), s.value_model(), s.forecast_value_model(), s.learned_turn_policy(),
                   (s.playouts, s.playout_weight, s.playout_policy()),
                   tuple(fitted_edition(f) for f in files))

    def fits(self, edition) -> bool:
        """Every model file these settings read was fitted on this edition's board (true where they read none)."""
        return all(fits(entry, edition) for entry in self.editions)


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
