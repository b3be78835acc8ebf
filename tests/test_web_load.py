"""The web board under load, served by uvicorn as `barcelona-ai serve` serves it (web/server.uvicorn_config), on a
free local port: bounded in count and time.

- 200 concurrent requests of mixed kinds while a long search runs: every request that does not search answers
  while the search still runs (none waits for it; how fast they answer is measured by bench/web_load.py, not
  here); searches are answered or refused at once (503, the queue full); the server's threads and memory stay
  under the bounds below.
- 100 reviews started leave at most the review pool's size running.
- A 200 MB body is refused with the server's peak memory growing by less than twice the body limit; a body sent
  a byte a second is cut at the body timeout; connections that send no whole headers (idle, or a byte now and
  then) are closed at the header timeout.
"""
import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from barcelona_ai.web import server as web  # noqa: E402
from barcelona_ai.web.api import REVIEW_WORKERS  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's /proc status")
TOKEN = "the-load-token"
FAST = {"iterations": 5, "hint_iterations": 20}
THREADS_BOUND = 40 + 10          # anyio's worker threads (40), the review pool (2) and the server's own
MEMORY_BOUND = 300 * 2**10       # kB: growth of the server's peak memory while 200 requests are answered


SERVER = """
import sys
import uvicorn
from barcelona_ai.web import server as web
web.BODY_SECONDS = web.HEADER_SECONDS = int(sys.argv[2])
app = web.create_app(token=sys.argv[3])
uvicorn.Server(web.uvicorn_config(app, "127.0.0.1", int(sys.argv[1]))).run()
"""


@pytest.fixture(scope="module")
def served():
    """The server in a process of its own (its threads and memory read from /proc), body and header timeouts
    of 2 s."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port), "2", TOKEN])
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while True:
        try:
            call(base, "GET", "/api/searches", timeout=2)
            break
        except OSError:
            assert time.time() < deadline and proc.poll() is None, "the server did not start"
            time.sleep(0.1)
    yield base, proc.pid
    proc.terminate()
    proc.wait(timeout=10)


def status_of(pid: int, field: str) -> int:
    """A number of /proc/PID/status (VmHWM: peak memory in kB, Threads)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def call(base, method, path, body=None, timeout=60):
    """(status, JSON answer, seconds) of one request."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"X-Barcelona-Token": TOKEN, "Content-Type": "application/json"})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, text = r.status, r.read()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read()
    return status, json.loads(text), time.monotonic() - t0


async def fetch(base: str, method: str, path: str, body=None) -> tuple[int, dict, float]:
    """(status, JSON answer, seconds) of one request on its own connection, from an event loop: 200 of them at
    once cost the client little, so the seconds are the server's."""
    host, port = base[7:].split(":")
    data = b"" if body is None else json.dumps(body).encode()
    t0 = time.monotonic()
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nX-Barcelona-Token: {TOKEN}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
                 .encode() + data)
    await writer.drain()
    answer = await reader.read()
    seconds = time.monotonic() - t0
    writer.close()
    head, _, text = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(text), seconds


def _quietly(fn, *args):
    try:
        fn(*args)
    except OSError:                                      # the server stopped under it
        pass


def test_mixed_requests_with_a_long_search_running(served):
    base, pid = served
    rss0 = status_of(pid, "VmHWM")
    gids = [call(base, "POST", "/api/games", {**FAST, "seed": s})[1]["id"] for s in range(8)]
    long = threading.Thread(target=_quietly, args=(call, base, "POST", f"/api/games/{gids[0]}/hint",
                                                   {"iterations": 300_000}), daemon=True)   # ends with the server
    long.start()
    time.sleep(0.3)
    kinds = [("GET", lambda k: f"/api/games/{gids[1 + k % 7]}", None, False),
             ("GET", lambda k: "/api/searches", None, False),
             ("GET", lambda k: "/api/table-setup", None, False),
             ("GET", lambda k: f"/api/games/{gids[1 + k % 7]}/position", None, False),
             ("POST", lambda k: "/api/positions/new", {"players": 3, "seat": 0, "seed": 1}, False),
             ("POST", lambda k: "/api/games", {"players": 9}, False),                 # refused: 400
             ("POST", lambda k: f"/api/games/{gids[1 + k % 7]}/hint", {"iterations": 200}, True)]
    threads_seen = []
    watching = threading.Event()

    def watch_threads():
        while not watching.is_set():
            threads_seen.append(status_of(pid, "Threads"))
            time.sleep(0.02)

    async def all_at_once():
        jobs = [(kinds[k % len(kinds)], k) for k in range(200)]
        answers = await asyncio.gather(*(fetch(base, m, path(k), body) for (m, path, body, _), k in jobs))
        return [(status, seconds, kind[3], kind[1](k)) for (status, _doc, seconds), (kind, k) in zip(answers, jobs)]
    watcher = threading.Thread(target=watch_threads)
    watcher.start()
    try:
        results = asyncio.run(all_at_once())
    finally:
        watching.set()
        watcher.join()
    assert long.is_alive(), "the long search ended before the requests did: make it longer"
    slow = [(path, status, round(seconds, 2)) for status, seconds, searches, path in results
            if not searches and (seconds > 5.0 or status >= 500)]
    assert not slow, slow                                 # none waited for the search (bench/web_load.py: times)
    assert all(status in (200, 409, 503) for status, _s, searches, _p in results if searches)
    assert max(threads_seen) <= THREADS_BOUND, max(threads_seen)
    assert status_of(pid, "VmHWM") - rss0 < MEMORY_BOUND


def test_a_hundred_reviews_leave_the_pool_size_running(served):
    base, _pid = served
    g = call(base, "POST", "/api/games", {**FAST, "seed": 3, "iterations": 3})[1]
    while g["waiting"] != "over":
        g = (call(base, "POST", f"/api/games/{g['id']}/step")[1]["game"] if g["waiting"] == "step" else
             call(base, "POST", f"/api/games/{g['id']}/move", {"id": g["legal"][0]["id"]})[1]["game"])
    record = call(base, "GET", f"/api/games/{g['id']}/record")[1]
    started = []
    for _ in range(100):
        status, doc, _s = call(base, "POST", "/api/reviews", {"record": record, "iterations": 500})
        assert status == 200
        started.append(doc["id"])
    docs = [call(base, "GET", f"/api/reviews/{rid}")[1] for rid in started]
    kept = [d for d in docs if "started" in d]                # the server keeps the newest 64 (the others: 404)
    assert len(kept) >= 50 and sum(d["started"] and not d["done"] for d in kept) <= REVIEW_WORKERS
    for rid in started:
        call(base, "POST", f"/api/reviews/{rid}/stop")
    deadline = time.monotonic() + 60
    while not all(call(base, "GET", f"/api/reviews/{rid}")[1]["done"] for rid in started[-REVIEW_WORKERS - 2:]):
        assert time.monotonic() < deadline, "stopped reviews did not end"
        time.sleep(0.2)


def test_a_huge_body_is_refused_within_twice_the_limit(served):
    base, pid = served
    host, port = base[7:].split(":")
    rss0 = status_of(pid, "VmHWM")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(f"POST /api/games HTTP/1.1\r\nHost: {host}:{port}\r\nX-Barcelona-Token: {TOKEN}\r\n"
                  "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        chunk = b"[" + b" " * (2**20 - 2) + b"]"
        try:
            for _ in range(200):                               # 200 MB, unless the server stops reading
                s.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        except OSError:
            pass
        answer = s.recv(4096).decode("latin-1")
    assert " 400 " in answer.splitlines()[0] and "at most 4 MiB" in answer
    assert (status_of(pid, "VmHWM") - rss0) * 1024 < 2 * web.MAX_BODY


def test_a_body_sent_a_byte_at_a_time_is_cut_at_the_timeout(served):
    base, _pid = served
    host, port = base[7:].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(f"POST /api/games HTTP/1.1\r\nHost: {host}:{port}\r\nX-Barcelona-Token: {TOKEN}\r\n"
                  "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n".encode())
        t0 = time.monotonic()
        s.settimeout(0.2)
        answer = b""
        while time.monotonic() - t0 < 15 and not answer:
            try:
                s.sendall(b" ")
                answer = s.recv(4096)
            except socket.timeout:
                time.sleep(0.8)
            except OSError:
                break
        s.settimeout(2)
        try:
            while not answer.endswith(b"}"):                     # the rest of the answer, its JSON body
                more = s.recv(4096)
                if not more:
                    break
                answer += more
        except OSError:
            pass
    text = answer.decode("latin-1")
    assert " 400 " in text.splitlines()[0] and "not sent whole within 2 seconds" in text
    assert time.monotonic() - t0 < 6


@pytest.mark.parametrize("sent", [b"", b"GET /api/searches HTTP/1.1\r\nHost: x", b"G"])
def test_a_connection_without_whole_headers_is_closed_at_the_timeout(served, sent):
    base, _pid = served
    host, port = base[7:].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(sent)
        t0 = time.monotonic()
        s.settimeout(0.5)
        closed = False
        while time.monotonic() - t0 < 8 and not closed:
            try:
                closed = s.recv(4096) == b""
            except socket.timeout:
                if sent == b"G":
                    s.sendall(b"E")                          # a byte now and then does not keep it open
            except OSError:
                closed = True
        assert closed and time.monotonic() - t0 < 4
    assert call(base, "GET", "/api/searches")[0] == 200     # the server answers on
