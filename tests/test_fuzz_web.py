"""Fuzz over the web board's JSON API: mutated bodies (tests/fuzz_common.py) of every POST route, sent to games
in every phase, and junk paths and query strings; the server answers each with a JSON object, never a 5xx (503,
the full search queue, cannot happen here: one request at a time), and a refusal (4xx) changes nothing of the
game it was sent to. BARCELONA_FUZZ_EXAMPLES=N for a larger run, BARCELONA_FUZZ_SEED=K for another sequence."""
import json
import random

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

from barcelona_ai.web.server import create_app  # noqa: E402
from fuzz_common import Tally, base_seed, budget, junk, mutate  # noqa: E402

TOKEN = "fuzz-token"
FAST = {"iterations": 5, "hint_iterations": 20}


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(token=TOKEN), base_url="http://127.0.0.1:8000",
                      headers={"X-Barcelona-Token": TOKEN})


def _bodies(client) -> dict[str, list]:
    """Valid bodies of each POST route, from a real game (its record, its position)."""
    g = client.post("/api/games", json={**FAST, "seed": 4}).json()
    for _ in range(30):
        if g["waiting"] == "over":
            break
        g = (client.post(f"/api/games/{g['id']}/step").json()["game"] if g["waiting"] == "step" else
             client.post(f"/api/games/{g['id']}/move", json={"id": g["legal"][0]["id"]}).json()["game"])
    record = client.get(f"/api/games/{g['id']}/record").json()
    position = client.get(f"/api/games/{g['id']}/position").json()
    return {
        "/api/games": [{**FAST, "players": 3, "seed": 2}, {**FAST, "mode": "table", "players": 2, "seat": 1},
                       {**FAST, "position": position}, {**FAST, "record": record}],
        "move": [{"id": 0}, {"move": "place (0,0) W/M"}],
        "hint": [{"iterations": 20}, {}],
        "/api/positions/new": [{"players": 3, "seat": 0, "seed": 1}],
        "/api/positions/board": [{"position": position}],
        "/api/reviews": [{"record": record, "iterations": 5, "seed": 1}],
        "/api/editions": [{"from": "default", "name": "fuzz-board", "answers": {}}],
    }


def _games(client, rng) -> list[str]:
    """Games in several phases: a fresh one, one some moves on, a table game."""
    out = []
    for k, options in enumerate(({"seed": 1}, {"seed": 5, "players": 4}, {"mode": "table", "players": 3})):
        g = client.post("/api/games", json={**FAST, **options}).json()
        for _ in range(rng.randrange(0, 12) if k else 0):
            if g["waiting"] not in ("move", "step"):
                break
            g = (client.post(f"/api/games/{g['id']}/step").json()["game"] if g["waiting"] == "step" else
                 client.post(f"/api/games/{g['id']}/move",
                             json={"id": rng.choice(g["legal"])["id"]}).json()["game"])
        out.append(g["id"])
    return out


def _answer(r, tally: Tally, what) -> None:
    assert r.status_code < 500, (what, r.status_code, r.text[:300])
    try:
        doc = r.json()
    except ValueError:
        raise AssertionError(f"{what}: {r.status_code} answered no JSON: {r.text[:300]!r}") from None
    assert isinstance(doc, dict), (what, r.text[:300])
    if r.status_code >= 400:
        assert isinstance(doc.get("error"), str) and doc["error"], (what, doc)
        tally.refuse(doc["error"])
    else:
        tally.accept()


def test_fuzz_web_api(client):
    rng = random.Random(base_seed("web api"))
    bodies = _bodies(client)
    tally = Tally("web api")
    games = _games(client, rng)
    for i in range(budget(250)):
        if i % 60 == 59:
            games = _games(client, rng)                  # games move on (or end): take fresh ones now and then
        gid = rng.choice(games)
        route = rng.choice(list(bodies))
        path = route if route.startswith("/") else f"/api/games/{gid}/{route}"
        body, how = mutate(rng.choice(bodies[route]), rng) if rng.random() < 0.9 else (junk(rng), ["junk"])
        before = client.get(f"/api/games/{gid}").json()
        text = json.dumps(body)                          # ASCII: lone surrogates and NaN go as JSON writes them
        if rng.random() < 0.1:
            text = text[: rng.randrange(1, 400)]         # cut short
        r = client.post(path, content=text, headers={"Content-Type": "application/json"})
        _answer(r, tally, (path, how))
        if r.status_code >= 400 and path.startswith(f"/api/games/{gid}/"):
            assert client.get(f"/api/games/{gid}").json() == before, (path, how, "a refusal changed the game")
    for _ in range(budget(250) // 5):                    # junk ids, paths and queries
        gid = rng.choice(games + ["nope", "0" * 40, "%00", ".."])
        its = rng.choice(["x", "-1", "0", "1e9", "3"])
        path = rng.choice([f"/api/games/{gid}", f"/api/games/{gid}/analysis?iterations={its}", f"/api/reviews/{gid}",
                           f"/api/reviews/{gid}/positions/{rng.randrange(-3, 999)}",
                           f"/api/board-form?from={rng.choice(['default', 'x', '../etc', ''])}", "/api/searches"])
        r = client.get(path)
        if "analysis" in path and r.status_code == 200:
            tally.accept()
            continue
        _answer(r, tally, path)
    tally.report()
    assert tally.refused and tally.accepted
