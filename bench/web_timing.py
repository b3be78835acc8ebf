"""How fast the web board answers: the start of ``barcelona-ai serve`` and a hint at the default
budget.

    python bench/web_timing.py [--runs 5]

Starts ``barcelona-ai serve`` as a new process `--runs` times and times it from the start of the process to the
first answer of ``GET /`` (the floor: under 2 seconds). Then, on one server, asks for a hint at the default
budget (webapi.DEFAULT_HINT_ITERATIONS) at the seat's first decision of new 2-, 3- and 4-player games and of the
mid-game example, and prints each answer's time as the client saw it. Needs the [web] extra.
"""
from __future__ import annotations

import argparse
import functools
import json
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

from barcelona_ai.web.api import DEFAULT_HINT_ITERATIONS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@functools.lru_cache
def page_token(base: str) -> str:
    """The server's token, as its page carries it (barcelona_ai/web/guard.py)."""
    with urllib.request.urlopen(base + "/", timeout=30) as r:
        return re.search(r'<meta name="barcelona-token" content="([^"]+)">', r.read().decode()).group(1)


def call(base: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="GET" if data is None else "POST",
                                 headers={"Content-Type": "application/json", "X-Barcelona-Token": page_token(base)})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


def start_server(port: int) -> tuple[subprocess.Popen, float]:
    """A serve process and the seconds from its start to its first answer."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "barcelona_ai", "serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as r:
                if r.status == 200:
                    return proc, time.perf_counter() - t0
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("barcelona-ai serve exited: is the [web] extra installed?")
            time.sleep(0.01)


def hint_seconds(base: str, players: int, record: dict | None = None) -> float:
    game = call(base, "/api/games", {"players": players, "seed": 1, "iterations": 50} if record is None else
                {"mode": "table", "position": record, "seed": 1})
    while game["waiting"] == "step":
        game = call(base, f"/api/games/{game['id']}/step", {})["game"]
    t0 = time.perf_counter()
    call(base, f"/api/games/{game['id']}/hint", {})
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    starts = []
    for _ in range(args.runs):
        proc, seconds = start_server(free_port())
        starts.append(seconds)
        proc.terminate()
        proc.wait()
    print(f"serve start to first answer: median {statistics.median(starts):.2f} s, max {max(starts):.2f} s "
          f"({args.runs} runs; floor: under 2 s)")
    port = free_port()
    proc, _ = start_server(port)
    base = f"http://127.0.0.1:{port}"
    try:
        from barcelona_ai.workflows.examples import example_position
        mid = example_position("midgame-3p")
        midgame = mid.to_json(viewpoint=mid.current_player())
        print(f"hint at the default budget ({DEFAULT_HINT_ITERATIONS} iterations), seconds as the client saw it:")
        for players in (2, 3, 4):
            print(f"  {players} players, first decision: {hint_seconds(base, players):.2f}")
        print(f"  mid-game example (3 players): {hint_seconds(base, 3, midgame):.2f}")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
