"""Core benchmark: random full games and apply+undo per second, with a behaviour signature.

The signature (Stockfish's "Bench:" habit) is the total number of actions applied by a fixed, seeded workload
of random games in 2, 3 and 4 players. It changes only when the rules' behaviour changes; commits that change
behaviour quote the new value, refactors must keep it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..core import State
from ..errors import BarcelonaError

SIGNATURE_GAMES = 300          # per player count, from setup seeds 1, 2, 3


@dataclass
class BenchResult:
    players: int
    games: int
    actions: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / max(self.seconds, 1e-9)

    @property
    def actions_per_second(self) -> float:
        return self.actions / max(self.seconds, 1e-9)

    @property
    def actions_per_game(self) -> float:
        return self.actions / max(self.games, 1)


def random_games(players: int, games: int, seed: int = 1) -> BenchResult:
    """Uniformly random legal play (chance sampled) from a seeded setup, in C, one thread."""
    s = State.new(players, seed)
    t0 = time.perf_counter()
    actions = s.random_games(games, seed)
    return BenchResult(players, games, actions, time.perf_counter() - t0)


def apply_undo(players: int, n: int, seed: int = 1) -> float:
    """apply + undo (state copy) pairs per second along a random walk."""
    s = State.new(players, seed)
    t0 = time.perf_counter()
    s.apply_undo_walk(n, seed)
    return n / max(time.perf_counter() - t0, 1e-9)


def signature() -> int:
    total = 0
    for players in (2, 3, 4):
        for seed in (1, 2, 3):
            total += State.new(players, seed).random_games(SIGNATURE_GAMES, seed)
    return total


def search_rate(players: int = 4, seconds: float = 2.0, threads: int = 1, seed: int = 1, **settings) -> float:
    """ISMCTS iterations per second from the seeded setup (time-limited search; `settings`: Engine's keywords,
    a preset or SearchSettings fields)."""
    from ..search.engine import Engine, Limit
    s = State.new(players, seed)
    a = Engine(seed=seed, threads=threads, **settings).analyse(s, Limit(time=seconds))
    return a.iterations / seconds


def evaluation_cost(players: int, n: int = 20_000, seed: int = 1) -> float:
    """Seconds per evaluation of the default's value network (every seat of one position) along a random walk."""
    from ..search.settings import PRESETS, load_model
    model = load_model(PRESETS["default"][players].model)
    s = State.new(players, seed)
    return model.time_evaluations(s, n, seed)


def playout_rate(players: int = 4, n: int = 1000, seed: int = 1) -> float:
    """Whole games per second the learned turn policy plays out from the seeded setup for the numbers shown
    (SearchSettings.playouts: every seat by the policy, at the engine's PLAYOUT_TEMPERATURE)."""
    from ..search.running import PLAYOUT_TEMPERATURE
    from ..search.settings import PRESETS, load_policy
    from ..search.tree import policy_playouts
    s = State.new(players, seed)
    policy = load_policy(PRESETS["default"][players].policy)
    t = time.perf_counter()
    policy_playouts(policy, s, s.current_player(), n, PLAYOUT_TEMPERATURE, seed)
    return n / (time.perf_counter() - t)


def search_signature(iterations: int = 20_000) -> int:
    """Actions applied (tree and rollouts) by a fixed single-thread search from the 2/3/4-player setups."""
    from ..search.engine import Engine, Limit
    total = 0
    for players in (2, 3, 4):
        total += Engine(seed=1).analyse(State.new(players, 1), Limit(iterations=iterations)).actions_applied
    return total


MAX_GAMES = 1_000_000


def run_bench(games: int = 5000, out=print, search: bool = True) -> int:
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise BarcelonaError(f"bench games must be an integer from 1 to {MAX_GAMES}, not {games!r}")
    out(f"{'players':>7} {'games/s':>10} {'actions/game':>13} {'actions/s':>12} {'apply+undo/s':>13}")
    for players in (2, 3, 4):
        r = random_games(players, games)
        au = apply_undo(players, 200_000)
        out(f"{players:>7} {r.games_per_second:>10,.0f} {r.actions_per_game:>13.1f} "
            f"{r.actions_per_second:>12,.0f} {au:>13,.0f}")
    sig = signature()
    if search:
        from ..search.tree import Tree
        games_rate = random_games(4, games).games_per_second
        one = search_rate(4, 2.0, 1)
        two = search_rate(4, 2.0, 2)
        out(f"ISMCTS 4p: {one:,.0f} iterations/s = {one / games_rate:.2f} x random games/s "
            f"({games_rate:,.0f}); 2 threads {two:,.0f}/s = {two / one:.2f} x; {Tree.node_bytes()} bytes/node")
        for players in (2, 3, 4):
            default = one if players == 4 else search_rate(players, 2.0, 1)
            v0 = search_rate(players, 2.0, 1, preset="v0")
            out(f"{players}p iterations/s: the default preset {default:,.0f} ({default / v0:.2f} x v0), "
                f"v0 (rollouts to the end) {v0:,.0f}")
        out(f"Learned evaluation: {evaluation_cost(4) * 1e6:.1f} us per 4-player position")
        from ..search.settings import PRESETS
        games4, shown = playout_rate(4), PRESETS["default"][4].playouts
        out(f"Playouts for the 4-player numbers shown (the learned turn policy in every seat): {games4:,.0f} games/s "
            f"from the setup, {shown} a move shown in {shown / games4 * 1e3:.0f} ms")
        out(f"Search signature: {search_signature()}")
    out(f"Bench: {sig}")
    return sig
