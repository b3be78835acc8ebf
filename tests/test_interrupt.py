"""Bounded, interruptible work: every budget is finite, Ctrl-C and Engine.stop() end a search cleanly with the
answer so far, and the streaming analysis gives interim reports that can be stopped at any moment."""
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from barcelona_ai import BarcelonaError, new_game
from barcelona_ai.search.engine import Analysis, Engine, Limit
from barcelona_ai.errors import SearchInterrupted

LONG = Limit(time=60.0)            # never reached: every test below ends the search long before


def a_decision(players=3, seed=2):
    s = new_game(players, seed=seed)
    while s.is_chance_node():
        s.apply(s.legal_actions()[0])
    return s


@pytest.fixture(autouse=True)
def python_sigint_handler():
    """Ctrl-C raises KeyboardInterrupt in these tests even when pytest runs from a shell that started it with
    SIGINT ignored (a background job): that is how an interactive Python session receives it."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _sigint_default():
    """In the child, before Python starts: SIGINT back to its default, so that Python installs its handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def after(seconds, fn):
    t = threading.Timer(seconds, fn)
    t.daemon = True
    t.start()
    return t


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), -1.0, 0, True, "1", 1e9])
def test_limit_time_must_be_finite_and_positive(bad):
    with pytest.raises(BarcelonaError, match="Limit.time"):
        Limit(time=bad)


@pytest.mark.parametrize("bad", [0, -5, 10**13, 2.5, True, float("inf")])
def test_limit_iterations_must_be_a_bounded_count(bad):
    with pytest.raises(BarcelonaError, match="Limit.iterations"):
        Limit(iterations=bad)


@pytest.mark.parametrize("field,bad", [("c_uct", float("nan")), ("margin_scale", float("nan")),
                                       ("margin_scale", 0.0), ("turn_temperature", float("inf")),
                                       ("rollout_depth", -1), ("mix_weight", 2.0), ("max_nodes", 10**12),
                                       ("expand_threshold", -1), ("leaf", None), ("threads", 0),
                                       ("root_halving", "yes"), ("reuse_tree", "no"), ("forecast_at", "end"),
                                       ("model", 3)])
def test_search_settings_are_checked(field, bad):
    with pytest.raises(BarcelonaError, match=field):
        Engine(**{field: bad})


def test_unknown_setting_is_named():
    with pytest.raises(BarcelonaError, match="colour"):
        Engine(colour="red")


def test_stop_from_another_thread_returns_the_answer_so_far():
    s = a_decision()
    e = Engine(seed=1)
    after(0.3, e.stop)
    t0 = time.monotonic()
    a = e.analyse(s, LONG)
    assert time.monotonic() - t0 < 30            # not the 60 s budget
    assert isinstance(a, Analysis) and a.iterations > 0
    assert 0.99 < sum(p.win_prob for p in a.players) < 1.01


@pytest.mark.parametrize("call", ["best_move", "hints", "analyse"])
def test_ctrl_c_raises_search_interrupted_with_the_answer_so_far(call):
    s = a_decision(4)
    e = Engine(seed=1, threads=2)
    after(0.4, lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(SearchInterrupted) as info:
        getattr(e, call)(s, LONG)
    assert isinstance(info.value, KeyboardInterrupt)
    result = info.value.result
    if call == "best_move":
        assert result in s.legal_actions()
    elif call == "hints":
        assert result and result[0].actions[0] in s.legal_actions()
    else:
        assert result.iterations > 0
    # the engine is usable afterwards, and an iteration budget still gives the same answer as a fresh engine
    again = Engine(seed=1, threads=2).best_move(s, Limit(iterations=300))
    assert e.best_move(s, Limit(iterations=300)) == again


def test_stream_reports_grow_and_end_with_analyse_answer():
    s = a_decision(2)
    limit = Limit(iterations=2000)
    reports = list(Engine(seed=3).analysis(s, limit, interval=0.02))
    its = [r.iterations for r in reports]
    assert its == sorted(its) and its[-1] == 2000
    final = Engine(seed=3).analyse(s, limit)
    assert json.dumps(reports[-1].to_dict()) == json.dumps(final.to_dict())


def test_stream_can_be_left_or_stopped_at_any_moment():
    s = a_decision(3)
    e = Engine(seed=4)
    with e.analysis(s, LONG, interval=0.05) as stream:
        first = next(stream)
        second = next(stream)
    assert second.iterations > first.iterations > 0
    stream = e.analysis(s, LONG, interval=0.05)
    after(0.3, stream.stop)
    t0 = time.monotonic()
    reports = list(stream)
    assert time.monotonic() - t0 < 30 and reports and stream.latest is reports[-1]


def test_stream_interval_is_checked():
    s = a_decision(2)
    for bad in (0, -1, float("nan"), math.inf, "1"):
        with pytest.raises(BarcelonaError, match="interval"):
            Engine().analysis(s, LONG, interval=bad)


def test_sigint_ends_a_cli_analysis_within_a_second():
    """A 60 s analysis from the command line: Ctrl-C ends the process within 1 s, exit 130, no traceback."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "barcelona_ai", "analyse", "midgame-3p", "--time", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_sigint_default)
    time.sleep(3.0)                                # imports, loading, and the search under way
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    elapsed = time.monotonic() - t0
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert elapsed < 1.0, f"took {elapsed:.2f} s to stop"


def test_a_reused_tree_searches_again_after_an_interrupted_call():
    s = a_decision(2)
    e = Engine(seed=5, reuse_tree=True)
    after(0.3, e.stop)
    first = e.analyse(s, LONG)
    s.apply(first.best.action)                     # the same player decides again: the tree is reused
    assert s.current_player() == first.player
    again = e.analyse(s, Limit(iterations=500))
    assert again.iterations == 500                 # the stop of the last call does not end this one


def test_sigint_in_play_asks_and_saves_and_quits_without_a_traceback(tmp_path):
    """`play` read from a pipe: SIGINT at a prompt asks what to do (Enter goes on, the prompt comes again); then
    save and quit ends the game with exit 0, its file continued by `play --load`."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "barcelona_ai", "play", "--seed", "4", "--iterations", "20",
                             "--save", "game.json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, preexec_fn=_sigint_default)
    out = ""

    def until(text):
        nonlocal out
        end = time.monotonic() + 60
        while text not in out:
            assert time.monotonic() < end and proc.poll() is None, out[-2000:]
            out += os.read(proc.stdout.fileno(), 65536).decode()

    try:
        until("Your choice [")
        proc.send_signal(signal.SIGINT)
        until("Enter go on: ")
        proc.stdin.write("\n")
        proc.stdin.flush()
        until("Going on.")
        until("Your choice [")
        proc.send_signal(signal.SIGINT)
        until("Enter go on: ")
        rest, err = proc.communicate("s\n", timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, (out + rest, err)
    assert "Traceback" not in err and "Traceback" not in out + rest
    assert "Saved in game.json: continue it with barcelona-ai play --load game.json" in rest
    again = subprocess.run([sys.executable, "-m", "barcelona_ai", "play", "--load", "game.json", "--iterations",
                            "20"], input="quit\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert again.returncode == 0 and "(the same game goes on" in again.stdout, again.stdout[-2000:]
