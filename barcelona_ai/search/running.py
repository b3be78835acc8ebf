"""One call's search: the root-parallel trees, their player, seed and budget, run in worker threads so that
Ctrl-C and Engine.stop() end it at once (Search), the trees' root children merged (MergedTrees), the last search
kept for tree reuse (LastSearch), and the one way seeds are mixed (mix_seed).
"""
from __future__ import annotations

import threading
import time
from typing import NamedTuple

from ..core import State
from ..errors import SearchInterrupted
from ..learned.evaluation import ValueModel
from .settings import Limit
from ..learned.turn_policy import TurnPolicy
from .tree import Tree, policy_playouts

PLAYOUT_TEMPERATURE = 0.5           # the turn policy's softmax temperature in them (docs/measurements/forecasts.md)
MIN_TIMED_PLAYOUTS = 16             # the fewest playouts a move's numbers are blended with under a time limit
PLAYOUT_TRIAL = 8                   # games that time the playouts of a call under a time limit (their cost is
                                    #   taken out of the search's time: Search.reserve_playout_time)


def mix_seed(a: int, b: int) -> int:
    """A 64-bit seed drawn from two integers (splitmix64's finaliser over a golden-ratio step): every seed derived
    from another in the search (a call's from the engine's seed and the observation, a thread's, a playout's)."""
    x = (a * 0x9E3779B97F4A7C15 + b + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    x = (x * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 29)


class MergedTrees:
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


class LastSearch(NamedTuple):
    """An engine's last search, kept for tree reuse (SearchSettings.reuse_tree)."""
    player: int
    history: tuple
    state: State                    # its root position
    trees: list
    forecasts: bool                 # every iteration of the trees evaluated the numbers shown (Tree.forecasts)
    kit: object                     # the settings and models the trees were searched with (engine._Kit)


class Search:
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
                                                      PLAYOUT_TEMPERATURE, mix_seed(self.call_seed, key))[0]
        lam = self.playout_weight
        return [(1.0 - lam) * w + lam * p for w, p in zip(win, self._playout_wins[key])]

    def reserve_playout_time(self, moves: int) -> None:
        """Fit the playouts of `moves` moves shown into a time limit, so that the call, playouts included, keeps to
        it: their cost is timed on PLAYOUT_TRIAL games from the position (each move's are played after the
        search), they get at most half of the time left, and where that holds fewer games than the settings ask
        for, each move gets as many as fit (none below MIN_TIMED_PLAYOUTS: the numbers shown are then the
        search's own); their time is taken out of the search's. Nothing changes without a time limit or
        playouts."""
        if self.deadline is None or not self.playouts or moves <= 0:
            return
        start = time.monotonic()
        policy_playouts(self.playout_policy, self.state, self.player, PLAYOUT_TRIAL, PLAYOUT_TEMPERATURE,
                        self.call_seed)
        now = time.monotonic()
        each = max((now - start) / PLAYOUT_TRIAL, 1e-9)
        fit = int(max(self.deadline - now, 0.0) / 2 / (each * moves))
        if fit < self.playouts:
            self.playouts = fit if fit >= MIN_TIMED_PLAYOUTS else 0
        self.deadline -= each * self.playouts * moves

    def iterations(self) -> int:
        """Iterations this call has run so far."""
        return self._root_iterations() - self._start_iterations

    def done(self) -> bool:
        if self.stopped:
            return True
        if self.left is not None and not any(self.left):
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def ensure_answer(self) -> None:
        """Run one iteration where the trees have none yet (a time limit spent before the first, e.g. by the
        playouts' share): every answer then rests on at least one. Nothing changes once they have one, or when
        stop() ended the search."""
        if not self.stopped and self._root_iterations() == 0:
            self.trees[0].run(1, 0.0, False)

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

    def merged(self) -> "MergedTrees":
        return MergedTrees(self.trees)
