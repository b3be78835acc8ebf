"""Time two builds of barcelona_ai against each other, interleaved in one run.

    python bench/compare.py --baseline /tmp/baseline [--current .] [--rounds 5] [--only NAME ...]

Each build runs in its own worker process (PYTHONPATH = that checkout, extensions built in place there, e.g.
``git worktree add --detach /tmp/baseline HEAD && cd /tmp/baseline && python setup.py build_ext --inplace``).
The workers stay up for the whole run and are asked for one workload at a time, in the order A B B A per round
(the order alternates so that a drift of the machine's speed does not favour one build); each workload reports
a rate. The table gives each build's median rate and the ratio current / baseline (the median of the per-round
ratios), with the load average sampled during the run. Both workers must agree on the behaviour: the hash of
the mid-game position and the actions each workload applied are compared, and a difference stops the run.

Run it on a quiet machine if you can; on a shared one the ratios stay meaningful (same load for both builds,
interleaved), the absolute rates do not.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# ---- workloads (run inside a worker, against whichever barcelona_ai its PYTHONPATH holds) -------------------

def _midgame():
    """4 players, seed 1, 60 seeded random actions (round 3), then on to the next decision of a player."""
    from barcelona_ai.core import State
    s = State.new(4, 1)
    rng = random.Random(7)
    while len(s.history()) < 60 or s.current_player() < 0:
        s.apply(rng.choice(s.legal_actions()))
    return s


def _stored_position(name):
    """A position of bench/ (State.to_json), one the workloads cannot reach by random play from a setup:
    `late-2p.json`, decision 82 of 119 of game 1001 of `selfplay --players 2 --bot ismcts:2000,model=model2p3.json
    --seed 1000000` (70% in: 13 and 11 Street tiles, both Trams on the board); `mid-4p.json`, decision 86 of 172
    of game 1 of `arena ismcts:5130 ismcts:4100,leaf=rollout --players 4 --seed 41000` (half way, seat 3 to
    move)."""
    from barcelona_ai.core import State
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return State.from_json(json.load(f))


def v0_settings():
    """The Engine keywords of the v0 engine (leaves valued by rollouts) in this build: preset="v0" where the build
    has presets, leaf="rollout" where SearchSettings has `leaf`, nothing before that (every engine was v0). Only
    the public API is read, so that any build answers."""
    import inspect
    from barcelona_ai import Engine, SearchSettings
    if "preset" in inspect.signature(Engine).parameters:
        return {"preset": "v0"}
    return {"leaf": "rollout"} if "leaf" in SearchSettings.__dataclass_fields__ else {}


def _engine(threads):
    """Engine(seed=1) of the v0 engine in both builds, so that both do the same work per iteration."""
    from barcelona_ai import Engine
    return Engine(seed=1, threads=threads, **v0_settings())


def _best_move(state, iterations, threads=1):
    from barcelona_ai import Limit
    engine = _engine(threads)
    with Clock() as clock:
        move = engine.best_move(state, Limit(iterations=iterations))
    return clock.rates(iterations), move


def w_best_move_setup(scale):
    from barcelona_ai.core import State
    return _best_move(State.new(4, 1), int(5000 * scale))


def w_best_move_mid(scale):
    return _best_move(_midgame(), int(6000 * scale))


def w_default_2p_late(scale):
    """The 2-player default (the short rollout, the network), not v0: both builds must share its settings."""
    from barcelona_ai import Engine, Limit
    state = _stored_position("late-2p.json")
    with Clock() as clock:
        move = Engine(seed=1).best_move(state, Limit(iterations=int(4000 * scale)))
    return clock.rates(int(4000 * scale)), move


def w_default_4p_mid(scale):
    """The 4-player default (the short rollout, the network, sequential halving at the root), not v0."""
    from barcelona_ai import Engine, Limit
    state = _stored_position("mid-4p.json")
    with Clock() as clock:
        move = Engine(seed=1).best_move(state, Limit(iterations=int(3000 * scale)))
    return clock.rates(int(3000 * scale)), move


def w_best_move_2threads(scale):
    from barcelona_ai.core import State
    return _best_move(State.new(4, 1), int(10000 * scale), threads=2)   # seeded trees, fixed shares: one move


def w_uniform(scale):
    from barcelona_ai.core import State
    s = State.new(4, 1)
    n = int(6000 * scale)
    with Clock() as clock:
        actions = s.random_games(n, 1)
    return clock.rates(n), actions


def w_heuristic(scale):
    from barcelona_ai.core import State
    try:
        from barcelona_ai.search.tree import rollout_games
    except ImportError:                                 # a build before the subpackages
        from barcelona_ai.search import rollout_games
    s = State.new(4, 1)
    n = int(4000 * scale)
    with Clock() as clock:
        actions = rollout_games(s, n, 1, "heuristic")
    return clock.rates(n), actions


def w_clone_mid(scale):
    s = _midgame()
    n = int(40000 * scale)
    with Clock() as clock:
        for _ in range(n):
            s.clone()
    return clock.rates(n), s.clone().hash()


def w_determinize_mid(scale):
    s = _midgame()
    n = int(300000 * scale)
    p = s.current_player()
    with Clock() as clock:
        for i in range(n):
            s.determinize(p, i)
    return clock.rates(n), s.determinize(p, 3).hash()


class Clock:
    """Wall time and CPU time (all threads of the process) of a block."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu

    def rates(self, count):
        return {"wall": count / max(self.wall, 1e-9), "cpu": count / max(self.cpu, 1e-9)}


WORKLOADS = {                    # name: (function, unit of the rate)
    "best_move_setup": (w_best_move_setup, "iterations/s", "best_move, 4-player setup, one thread"),
    "best_move_mid": (w_best_move_mid, "iterations/s", "best_move, 4-player mid-game (60 actions in), one thread"),
    "default_2p_late": (w_default_2p_late, "iterations/s", "best_move of the 2-player default, two thirds into a game"),
    "default_4p_mid": (w_default_4p_mid, "iterations/s", "best_move of the 4-player default, half way into a game"),
    "best_move_2threads": (w_best_move_2threads, "iterations/s", "best_move, 4-player setup, two threads"),
    "uniform": (w_uniform, "games/s", "uniform random playouts from the 4-player setup"),
    "heuristic": (w_heuristic, "games/s", "heuristic-policy rollouts from the 4-player setup"),
    "clone_mid": (w_clone_mid, "calls/s", "State.clone() mid-game (from Python)"),
    "determinize_mid": (w_determinize_mid, "calls/s", "State.determinize() mid-game (from Python)"),
}


def worker() -> None:
    """Answer one JSON line per workload name read from stdin."""
    import barcelona_ai
    print(json.dumps({"file": barcelona_ai.__file__, "mid_hash": _midgame().hash()}), flush=True)
    for line in sys.stdin:
        name, scale = line.split()
        rates, check = WORKLOADS[name][0](float(scale))
        print(json.dumps({"rate": rates, "check": check}), flush=True)


# ---- the driver ---------------------------------------------------------------------------------------------

class Worker:
    def __init__(self, label: str, path: str):
        env = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")
        self.label = label
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"], cwd=path, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        hello = json.loads(self.proc.stdout.readline())
        if not os.path.abspath(hello["file"]).startswith(os.path.abspath(path)):
            sys.exit(f"{label}: barcelona_ai was imported from {hello['file']}, not from {path}")
        self.mid_hash = hello["mid_hash"]

    def ask(self, name: str, scale: float) -> dict:
        self.proc.stdin.write(f"{name} {scale}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"{self.label}: the worker died running {name}")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


class LoadSampler(threading.Thread):
    """The 1-minute load average, sampled every 2 s while the run lasts."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples = [os.getloadavg()[0]]
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(2.0):
            self.samples.append(os.getloadavg()[0])


def main(argv=None) -> int:
    if (sys.argv[1:] if argv is None else argv) == ["--worker"]:
        worker()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="checkout of the previous build (extensions built in place)")
    ap.add_argument("--current", default=ROOT, help="checkout of the current build (default: this one)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="workload size factor")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="time one-thread workloads by the process's CPU time (default: less sensitive to other "
                         "jobs on the machine) or by wall time; the two-thread workload is always timed by wall")
    ap.add_argument("--only", nargs="*", choices=sorted(WORKLOADS), help="run only these workloads")
    args = ap.parse_args(argv)
    names = args.only or list(WORKLOADS)
    a, b = Worker("baseline", args.baseline), Worker("current", args.current)
    if a.mid_hash != b.mid_hash:
        sys.exit(f"the builds disagree on the mid-game position: {a.mid_hash:x} vs {b.mid_hash:x}")
    load = LoadSampler()
    load.start()
    rates = {n: ([], []) for n in names}
    wall1 = ([], [])
    try:
        for r in range(args.rounds):
            for name in names:
                order = (a, b) if r % 2 == 0 else (b, a)
                got = {w.label: w.ask(name, args.scale) for w in order}
                if got["baseline"]["check"] != got["current"]["check"]:
                    sys.exit(f"{name}: the builds behave differently ({got['baseline']['check']} vs "
                             f"{got['current']['check']})")
                clock = "wall" if name == "best_move_2threads" else args.clock
                rates[name][0].append(got["baseline"]["rate"][clock])
                rates[name][1].append(got["current"]["rate"][clock])
                if name == "best_move_setup":          # the 2-thread scaling is a ratio of wall rates
                    wall1[0].append(got["baseline"]["rate"]["wall"])
                    wall1[1].append(got["current"]["rate"]["wall"])
            print(f"round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)
    finally:
        load.halt.set()
        a.close()
        b.close()
    print(f"{'workload':<20} {'unit':<13} {'baseline':>11} {'current':>11} {'ratio':>6}  (min..max ratio)")
    for name in names:
        base, cur = rates[name]
        ratios = [c / x for c, x in zip(cur, base)]
        print(f"{name:<20} {WORKLOADS[name][1]:<13} {statistics.median(base):>11,.0f} {statistics.median(cur):>11,.0f} "
              f"{statistics.median(ratios):>5.2f}x  ({min(ratios):.2f}..{max(ratios):.2f})")
    if "best_move_2threads" in rates and "best_move_setup" in rates:
        for i, label in enumerate(("baseline", "current")):
            two = statistics.median(rates["best_move_2threads"][i])
            one = statistics.median(wall1[i])
            print(f"2 threads / 1 thread ({label}): {two / one:.2f}x")
    s = load.samples
    print(f"load average (1 min) during the run: mean {statistics.mean(s):.2f}, min {min(s):.2f}, max {max(s):.2f} "
          f"on {os.cpu_count()} CPUs; {args.rounds} rounds, A B B A order; one-thread rates by {args.clock} time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
