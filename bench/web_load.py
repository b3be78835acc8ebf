"""How fast the web board answers under load: `--requests` concurrent requests of mixed kinds (tests/test_web_load.py)
while one long search runs, `--rounds` times, against a server in its own process served as `barcelona-ai serve`
serves it.

    python bench/web_load.py [--requests 200] [--rounds 3]

Printed per round: the median, 95th percentile and slowest answer of the requests that do not search, and of the
hints (answered or refused at once with 503 when the server's search queue is full), with the count of each
status.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from test_web_load import FAST, SERVER, TOKEN, _quietly, call, fetch  # noqa: E402


def _server() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port), "10", TOKEN])
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            call(base, "GET", "/api/searches", timeout=2)
            return proc, base
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def _round(base: str, requests: int) -> list[tuple[int, float, bool]]:
    gids = [call(base, "POST", "/api/games", {**FAST, "seed": s})[1]["id"] for s in range(8)]
    threading.Thread(target=_quietly, args=(call, base, "POST", f"/api/games/{gids[0]}/hint",
                                            {"iterations": 300_000}), daemon=True).start()
    time.sleep(0.3)
    kinds = [("GET", lambda k: f"/api/games/{gids[1 + k % 7]}", None, False),
             ("GET", lambda k: "/api/searches", None, False),
             ("GET", lambda k: "/api/table-setup", None, False),
             ("GET", lambda k: f"/api/games/{gids[1 + k % 7]}/position", None, False),
             ("POST", lambda k: "/api/positions/new", {"players": 3, "seat": 0, "seed": 1}, False),
             ("POST", lambda k: "/api/games", {"players": 9}, False),
             ("POST", lambda k: f"/api/games/{gids[1 + k % 7]}/hint", {"iterations": 200}, True)]

    async def all_at_once():
        jobs = [kinds[k % len(kinds)] for k in range(requests)]
        answers = await asyncio.gather(*(fetch(base, m, path(k), body) for k, (m, path, body, _) in enumerate(jobs)))
        return [(status, seconds, kind[3]) for (status, _doc, seconds), kind in zip(answers, jobs)]
    return asyncio.run(all_at_once())


def _line(name: str, rows: list[tuple[int, float, bool]]) -> str:
    secs = sorted(s for _st, s, _se in rows)
    p95 = secs[min(len(secs) - 1, int(0.95 * len(secs)))]
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(Counter(st for st, _s, _se in rows).items()))
    return (f"  {name:<18} {len(rows):>4}  median {statistics.median(secs):.3f} s  p95 {p95:.3f} s  "
            f"slowest {secs[-1]:.3f} s  ({statuses})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    proc, base = _server()
    try:
        for r in range(args.rounds):
            rows = _round(base, args.requests)
            print(f"round {r + 1}: {args.requests} requests at once, one search of 300,000 iterations running")
            print(_line("do not search", [x for x in rows if not x[2]]))
            print(_line("hints", [x for x in rows if x[2]]))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
