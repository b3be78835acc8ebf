"""The command line, driven as a user would: in a subprocess."""
import subprocess
import sys


def run(*args, ok=True):
    p = subprocess.run([sys.executable, "-m", "barcelona_ai", *args], capture_output=True, text=True, timeout=300)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def test_demo_shows_position_hints_analysis_and_result():
    out = run("demo", "--iterations", "400", "--play-iterations", "30").stdout
    for needle in ("example midgame-3p", "Hints for player 1", "Analysis", "Final scores by source", "Winner: player"):
        assert needle in out
    out = run("demo", "start-2p", "--iterations", "300", "--play-iterations", "20").stdout
    assert "Hints for player 0" in out and "2 players" in out


def test_perft_and_divide():
    assert run("perft", "2", "--players", "2", "--seed", "1", "--setup", "printed").stdout.strip() == "perft 2: 720"
    out = run("perft", "2", "--players", "2", "--seed", "1", "--setup", "printed", "--divide").stdout
    assert "Nodes searched: 720" in out and "place (" in out


def test_bench_prints_signature():
    out = run("bench", "--games", "50", "--no-search").stdout
    assert "Bench: 457121" in out          # the core's behaviour signature (barcelona_ai/workflows/bench.py)


def test_arena_and_bad_bot():
    out = run("arena", "greedy", "random", "--games", "2", "--workers", "1", "--quiet").stdout
    assert "win share" in out
    p = run("arena", "alphazero", "random", ok=False)
    assert p.returncode == 2 and "unknown bot" in p.stderr


def test_bad_position_is_a_clear_error():
    p = run("demo", "no-such-position", ok=False)
    assert p.returncode == 2 and "error:" in p.stderr and "Traceback" not in p.stderr
