"""The web board's JSON API (barcelona_ai/web/server.py around webapi.py), through Starlette's test client:
bad requests get a 4xx with a message naming the field and change nothing; a seat never gets what it may not
see (A6, twin games that differ only in another seat's hand); two games do not interfere; the board picture's
targets are those of the legal moves; at a table, another player's placement is refused with the rules' reason,
the seat's own choices carry their previews, and another player's likely move is proposed (the same for twin
positions) and entered only when sent; the board editor's routes draw a position as the reader reads it; the CLI's
serve command checks its options."""
import json
import random
import re
import threading

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

from barcelona_ai import new_game  # noqa: E402
from barcelona_ai.web.board_svg import board_svg  # noqa: E402
from barcelona_ai.cli.main import main  # noqa: E402
from barcelona_ai.core import CONSTANTS as C  # noqa: E402
from barcelona_ai.rules.record import GameRecord  # noqa: E402
from barcelona_ai.web.server import create_app  # noqa: E402
from barcelona_ai.web.api import Games, action_target  # noqa: E402

from helpers import swap_with_the_bag  # noqa: E402

FAST = {"iterations": 10, "hint_iterations": 200}
TOKEN = "the-test-token"
BASE = "http://127.0.0.1:8000"


@pytest.fixture
def client():
    """What the board's own page sends: its Host, and the token it was served with."""
    return TestClient(create_app(token=TOKEN), base_url=BASE, headers={"X-Barcelona-Token": TOKEN})


def new(client, **options):
    r = client.post("/api/games", json={**FAST, **options})
    assert r.status_code == 200, r.text
    return r.json()


def until_mine(client, game):
    """Step the engine and chance until the seat decides."""
    while game["waiting"] == "step":
        game = client.post(f"/api/games/{game['id']}/step").json()["game"]
    return game


# ---------------------------------------------------------------------------------------------------------------
# a game

def test_a_new_game_is_seen_from_its_seat(client):
    g = new(client, players=3, seat=1, seed=4)
    assert (g["mode"], g["players"], g["seat"], g["waiting"]) == ("play", 3, 1, "step")
    assert g["svg"].startswith("<svg") and "P1 (you)" in g["svg"]
    g = until_mine(client, g)
    assert g["waiting"] == "you" and g["to_move"] == 1
    assert {m["move"] for m in g["legal"]} and all(isinstance(m["id"], int) for m in g["legal"])
    assert "seed" not in g                           # the chance seed tells every hand: shown only at the end


def test_moves_by_id_and_by_notation_and_undo(client):
    g = until_mine(client, new(client, seed=6))
    first = g["legal"][0]
    r = client.post(f"/api/games/{g['id']}/move", json={"move": first["move"]})
    assert r.status_code == 200, r.text
    after = r.json()["game"]
    assert after["entries"] == g["entries"] + 1 and r.json()["lines"]
    undone = client.post(f"/api/games/{g['id']}/undo").json()
    assert undone["game"]["entries"] == g["entries"] and undone["message"].startswith("Took back")
    assert undone["game"]["svg"] == g["svg"]
    r = client.post(f"/api/games/{g['id']}/move", json={"id": first["id"]})
    assert r.json()["game"]["entries"] == g["entries"] + 1


def test_a_whole_game_ends_with_the_result_and_the_replay_key(client):
    g = new(client, seed=9, iterations=5)
    while g["waiting"] != "over":
        g = until_mine(client, g)
        if g["waiting"] == "you":
            g = client.post(f"/api/games/{g['id']}/move", json={"id": g["legal"][-1]["id"]}).json()["game"]
    assert g["over"] and g["seed"] == 9 and len(g["result"]["scores"]) == 2
    assert g["caption"].startswith("Game over")
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["format"] == "barcelona-record" and record["result"] is not None
    again = new(client, record=record)                 # a finished record loads back, over
    assert again["over"] and again["result"] == g["result"]


def test_hints_name_their_board_targets_and_the_seats_numbers(client):
    g = until_mine(client, new(client, seed=2))
    r = client.post(f"/api/games/{g['id']}/hint", json={"iterations": 300})
    assert r.status_code == 200, r.text
    hints = r.json()["hints"]
    assert [h["rank"] for h in hints] == list(range(1, len(hints) + 1))
    assert hints[0]["actions"][0] in {m["id"] for m in g["legal"]}
    assert hints[0]["targets"][0] == next(m["target"] for m in g["legal"] if m["id"] == hints[0]["actions"][0])
    assert 0 <= hints[0]["win_prob"] <= 1 and hints[0]["expected_score"] > 0
    assert len(hints[0]["targets"]) == len(hints[0]["actions"])


def test_the_analysis_streams_reports_and_ends(client):
    g = until_mine(client, new(client, seed=3))
    with client.stream("GET", f"/api/games/{g['id']}/analysis?iterations=3000") as r:
        assert r.status_code == 200
        text = "".join(r.iter_text())
    reports = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {\"")]
    assert reports and reports[-1]["iterations"] >= 3000 - 1
    assert len(reports[-1]["players"]) == 2 and "event: end" in text
    assert abs(sum(p["win_prob"] for p in reports[-1]["players"]) - 1) < 0.02


def test_a_table_game_takes_the_other_players_placements_as_typed(client):
    g = new(client, mode="table", players=2, seat=1, seed=0)
    assert g["waiting"] == "placement" and "P0 places citizens" in g["caption"]
    bad = client.post(f"/api/games/{g['id']}/move", json={"move": "place (9,9) W/M"})
    assert bad.status_code == 400 and "crossing" in bad.json()["error"]
    ok = client.post(f"/api/games/{g['id']}/move", json={"move": "place (1,2) W/M"})
    assert ok.status_code == 200, ok.text
    assert "place (1,2) W/M" in " ".join(ok.json()["lines"])


def test_a_table_game_takes_the_seats_own_draw_and_other_players_decisions(client):
    """At a table the seat's own draw is chosen (the classes it has not seen); another player's draw is a
    hidden entry the step samples; another player's choices that are no placement are chosen from the list."""
    g = new(client, mode="table", players=2, seat=0, seed=3)
    seen = set()
    for _ in range(400):
        seen.add(g["waiting"])
        if g["waiting"] == "draw":
            assert {m["move"] for m in g["legal"]} <= {"draw W", "draw M", "draw U"}
            r = client.post(f"/api/games/{g['id']}/move", json={"move": g["legal"][0]["move"]})
        elif g["waiting"] == "placement":
            for c in range(25):                            # the first crossing where it is legal; a refused
                r = client.post(f"/api/games/{g['id']}/move",  # one changes nothing
                                json={"move": f"place ({c % 5},{c // 5}) W/W"})
                if r.status_code == 200:
                    break
                assert r.status_code == 400 and client.get(f"/api/games/{g['id']}").json() == g
        elif g["waiting"] == "step":
            r = client.post(f"/api/games/{g['id']}/step")
        elif g["waiting"] in ("you", "reveal"):
            r = client.post(f"/api/games/{g['id']}/move", json={"id": g["legal"][-1]["id"]})
        else:
            break
        assert r.status_code == 200, r.text
        g = r.json()["game"]
        if {"draw", "placement", "step", "you"} <= seen and g["round"] >= 3:
            break
    assert {"draw", "placement", "step", "you"} <= seen


REAL_TABLE = {"actions": "COB INT CER WID IMP / CLO PS TAK COI NAR / TRM", "cerda": "SC01 SC03 SC14",
              "display": "SC08 SC09 SC12 SC18", "services": "antoni estacio hospital lluis universitat",
              "hand": "W M"}


def test_a_table_game_starts_from_a_real_tables_setup(client):
    """The setup typed as `barcelona-ai table` asks it (table_setup): the game starts from it, from the seat."""
    fields = client.get("/api/table-setup").json()["fields"]
    assert [f["name"] for f in fields] == list(REAL_TABLE) and all(f["prompt"] for f in fields)
    g = new(client, mode="table", players=3, seat=2, setup=REAL_TABLE)
    assert (g["mode"], g["players"], g["seat"]) == ("table", 3, 2)
    position = client.get(f"/api/games/{g['id']}/position").json()
    assert [c["tile"] for c in position["cerda_tiles"]] == ["SC01", "SC03", "SC14"]
    assert position["modernisme"]["display"] == ["SC08", "SC09", "SC12", "SC18"]
    assert position["players"][2]["hand"] == {"WORKING": 1, "MIDDLE": 1, "UPPER": 0}
    for bad, field in (({**REAL_TABLE, "hand": "W X"}, "setup.hand"), ({**REAL_TABLE, "colour": "red"}, "setup.colour"),
                       ({"hand": "W M"}, "setup: the setup lacks"), ({**REAL_TABLE, "cerda": 5}, "setup.cerda")):
        r = client.post("/api/games", json={"mode": "table", "players": 3, "setup": bad})
        assert r.status_code == 400 and r.json()["error"].startswith(field), r.text
    r = client.post("/api/games", json={"mode": "play", "setup": REAL_TABLE})
    assert r.status_code == 400 and r.json()["error"].startswith("setup")


def test_a_table_game_starts_from_a_position_document(client):
    s = new_game(3, seed=12)
    while s.is_chance_node():
        s.apply(s.legal_actions()[0])
    doc = s.to_json(viewpoint=s.current_player())
    g = new(client, mode="table", position=doc)
    assert g["mode"] == "table" and g["seat"] == s.current_player() and g["waiting"] == "you"
    assert client.get(f"/api/games/{g['id']}/position").json() == doc


# ---------------------------------------------------------------------------------------------------------------
# a real table's entries: the placement picker, refusals with the rules' reason, previews, the proposal

def _table_position() -> dict:
    """Seed 1's 2-player setup from seat 1, P0 (to place first) without a Coin."""
    doc = new_game(2, seed=1).to_json(viewpoint=1)
    doc["players"][0]["coins"] = 0
    return doc


def _move(client, g, **body):
    r = client.post(f"/api/games/{g['id']}/move", json=body)
    assert r.status_code == 200, r.text
    return r.json()["game"]


def test_a_placement_is_entered_by_crossing_and_citizens_and_a_refusal_says_why(client):
    """Another player's placement: the picker names the crossings it may take (not those it cannot pay), the
    citizens it places and the classes still unseen; a refused placement gives the rules' reason and changes
    nothing; an illegal choice of the seat's own is refused in words, with no action number."""
    g = new(client, mode="table", position=_table_position())
    assert (g["seat"], g["waiting"]) == (1, "placement")
    picker = g["placement"]
    assert picker["player"] == 0 and picker["citizens"] == 2 and picker["classes"] == ["W", "M", "U"]
    assert 12 not in picker["crossings"] and 17 in picker["crossings"] and len(picker["crossings"]) == 20
    assert sum(picker["unseen"].values()) == sum(new_game(2, seed=1).unseen_pool(1))
    r = client.post(f"/api/games/{g['id']}/move", json={"move": "place (2,2) W/M"})
    assert r.status_code == 400
    assert r.json()["error"] == "'place (2,2) W/M' cannot be played now: crossing (2,2) costs 1 Coin; P0 has 0"
    assert client.get(f"/api/games/{g['id']}").json() == g
    g = _move(client, g, move="place (2,3) W/M")
    assert g["waiting"] == "you" and g["to_move"] == 0
    illegal = next(a for a in range(C["A_REVEAL"]) if a not in {m["id"] for m in g["legal"]})
    error = client.post(f"/api/games/{g['id']}/move", json={"id": illegal}).json()["error"]
    assert "cannot be played now: " in error and not re.search(r"\baction\b|\bid\b|\d{3}", error), error
    assert client.post(f"/api/games/{g['id']}/move", json={"id": 10**6}).json()["error"].startswith("id: ")


def test_every_choice_of_the_seats_own_has_its_preview_and_a_picker_its_words(client):
    """The seat's own choices each say what they will do (explain.preview), another player's do not; the seat's
    own draw names the classes and a reveal names its tiles with their printed condition."""
    g = until_mine(client, new(client, seed=4))
    assert g["legal"] and all(isinstance(m["preview"], str) and m["preview"] for m in g["legal"])
    g = new(client, mode="table", position=_table_position())
    g = _move(client, g, move="place (2,3) W/M")
    assert g["to_move"] == 0 and all("preview" not in m for m in g["legal"])
    seen = set()
    for _ in range(60):
        if g["waiting"] == "step":
            g = client.post(f"/api/games/{g['id']}/step").json()["game"]
            continue
        if g["waiting"] == "draw":
            assert [m["name"] for m in g["legal"]] == ["Working citizen", "Middle citizen", "Upper citizen"]
            break
        if g["waiting"] == "reveal":
            assert all(m["move"] == f"reveal {m['name']}" and m["text"].startswith("Gain ") for m in g["legal"])
            seen.add("reveal")
        elif g["to_move"] == 1:
            assert all(m.get("preview") for m in g["legal"])
        take = [m for m in g["legal"] if m["move"].startswith("take ") or m["target"] == "crossing:20"]
        ends = [m for m in g["legal"] if m["move"] == "end actions"]
        g = _move(client, g, id=(take or ends or g["legal"])[0]["id"])
    assert g["waiting"] == "draw" and seen == {"reveal"}


def test_another_players_likely_move_is_proposed_and_entered_only_when_sent(client):
    """At a table, another player's clear choice is proposed (the same in every search of the seat's view),
    the same each time the game is asked for, and entered only when the page sends it; none for the seat's own
    decision, none against the engine."""
    g = _move(client, new(client, mode="table", position=_table_position()), move="place (2,3) W/M")
    proposal = g["proposal"]
    assert proposal["player"] == 0 and proposal["move"] == "gain 2 coins" and proposal["target"] is None
    assert proposal["id"] in {m["id"] for m in g["legal"]} and "searches" in proposal["why"]
    assert client.get(f"/api/games/{g['id']}").json() == g                   # asked again: not entered
    g = _move(client, g, id=proposal["id"])
    assert any(line["text"] == "gain 2 coins" for line in g["log"])
    g = until_mine(client, g)
    assert g["to_move"] == 1 and "proposal" not in g
    assert "proposal" not in until_mine(client, new(client, players=3, seed=2))


def _twin_table_states():
    """(state, twin, seat): another player decides, and the twin differs from the state only in a hand the seat
    cannot see: P0 placing in 2-player games (its own hand), P0 choosing actions in 3-player ones (P1's)."""
    for seed in range(1, 13):
        s = new_game(2, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(40, 160)):
            if not s.is_terminal():
                s.apply(rng.choice(s.legal_actions()))
        while not s.is_terminal() and (s.is_chance_node() or s.current_player() != 0 or s.phase != C["PH_PLACE"]
                                       or s.hand_size(0) == 0):
            s.apply(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            yield s, swap_with_the_bag(s, 0), 1
    for seed in (3, 8):
        s = new_game(3, seed=seed)
        s.apply(random.Random(seed).choice([a for a in s.legal_actions() if a < C["A_INT_PICK"]]))
        yield s, swap_with_the_bag(s, 1), 2


def test_twin_states_get_the_same_proposal(client):
    """Hidden information: a proposal for the seat depends only on what the seat sees. Twin positions that differ
    only in another player's hidden citizens give the same game document, proposal and all."""
    proposals = 0
    for s, t, seat in _twin_table_states():
        assert s.hash() != t.hash() and s.observation_hash(seat) == t.observation_hash(seat)
        docs = [new(client, mode="table", seat=seat, position=x.to_json()) for x in (s, t)]
        assert all(d["waiting"] in ("placement", "you") and d["to_move"] == 0 for d in docs)
        a, b = ({k: v for k, v in d.items() if k != "id"} for d in docs)
        assert a == b
        proposals += "proposal" in a
    assert proposals >= 3


# ---------------------------------------------------------------------------------------------------------------
# the board editor's routes

def test_the_board_editor_draws_a_position_as_the_reader_reads_it(client):
    fresh = client.post("/api/positions/new", json={"players": 3, "seat": 2, "seed": 4}).json()["position"]
    assert fresh["viewpoint"] == 2 and fresh["players"][0]["hand"] == {"hidden": 2}
    fresh["crossings"] = {"(2,1)": {"citizens": {"bottom": "MIDDLE", "top": "WORKING"}, "intersection": None}}
    fresh.pop("bag", None)
    fresh.pop("unseen_pool", None)
    r = client.post("/api/positions/board", json={"position": fresh})
    assert r.status_code == 200, r.text
    drawn = r.json()
    assert drawn["svg"].startswith("<svg") and (drawn["players"], drawn["viewpoint"]) == (3, 2)
    assert drawn["spaces"][0] == "V(0,0)" and "B(1,0)" in drawn["buildings"] and "NE(0)" in drawn["buildings"]
    fresh["players"][1]["coins"] = 9
    r = client.post("/api/positions/board", json={"position": fresh})
    assert r.status_code == 400 and r.json()["error"].startswith("players[1].coins: ")
    assert not re.search(r"\bR\d+", r.json()["error"]), r.json()["error"]          # no rule numbers
    for body, words in (({"position": 5}, "position"), ({"position": {**fresh, "edition": "/etc/passwd"}}, "edition"),
                        ({"board": {}}, "board"), ({}, "position")):
        r = client.post("/api/positions/board", json=body)
        assert r.status_code == 400 and words in r.json()["error"], r.text
    assert client.post("/api/positions/new", json={"players": 5}).status_code == 400
    assert client.post("/api/positions/new", json={"players": 2, "seat": 2}).status_code == 400


# ---------------------------------------------------------------------------------------------------------------
# bad requests: a 4xx, a message naming the field, nothing changed

@pytest.mark.parametrize("body, field", [
    ({"players": 7}, "players"), ({"players": "2"}, "players"), ({"seat": -1}, "seat"), ({"mode": "chess"}, "mode"),
    ({"iterations": 0}, "iterations"), ({"hint_iterations": True}, "hint_iterations"), ({"colour": 1}, "colour"),
    ({"record": [1]}, "record"), ({"record": {"format": "nonsense"}}, "record"), ({"position": "x"}, "position"),
    ({"seat": 3, "players": 2}, "seat"), ({"mode": "play", "position": {}}, "position"),
    ({"mode": "table", "position": {"format": "barcelona-position"}}, ""),
])
def test_bad_new_games_are_400_naming_the_field(client, body, field):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    assert field in r.json()["error"]


def test_bad_bodies_are_400(client):
    for raw in (b"{", b"[1, 2]", b"\xff"):
        r = client.post("/api/games", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "request body" in r.json()["error"]


def test_bad_moves_change_nothing(client):
    g = until_mine(client, new(client, seed=5))
    gid = g["id"]
    illegal = next(a for a in range(C["A_REVEAL"]) if a not in {m["id"] for m in g["legal"]})
    for body, status, words in [({"id": illegal}, 400, "cannot be played now: "), ({"id": "3"}, 400, "id"),
                                ({"id": True}, 400, "id"),
                                ({}, 400, "'id'"), ({"id": 1, "move": "x"}, 400, "one of them"),
                                ({"move": "fly away"}, 400, "fly away"), ({"move": 5}, 400, "move"),
                                ({"idd": 1}, 400, "idd")]:
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == status and words in r.json()["error"], (body, r.text)
    assert client.get(f"/api/games/{gid}").json() == g
    assert client.post(f"/api/games/{gid}/step").status_code == 409           # the seat decides, not the engine
    assert client.get(f"/api/games/{gid}").json() == g


def test_requests_out_of_turn_are_409_and_unknown_ids_404(client):
    g = new(client, players=2, seat=1, seed=1)
    assert g["waiting"] == "step"
    assert client.post(f"/api/games/{g['id']}/hint").status_code == 409
    assert client.get(f"/api/games/{g['id']}/analysis").status_code == 409
    assert client.post(f"/api/games/{g['id']}/move", json={"id": 0}).status_code == 409
    assert client.get("/api/games/nope").status_code == 404
    assert client.get("/api/reviews/nope").status_code == 404
    g = until_mine(client, g)
    r = client.get(f"/api/games/{g['id']}/analysis?iterations=ten")
    assert r.status_code == 400 and "iterations" in r.json()["error"]
    r = client.post(f"/api/games/{g['id']}/hint", json={"iterations": -5})
    assert r.status_code == 400 and "iterations" in r.json()["error"]
    assert client.get("/static/../web.py").status_code == 404


# ---------------------------------------------------------------------------------------------------------------
# hidden information (A6): twin games that differ only in the engine's citizens

def _twin_records(seed: int):
    s = new_game(2, seed=seed)
    rng = random.Random(seed)
    while s.is_chance_node() or s.current_player() != 0 or s.phase != C["PH_PLACE"] or sum(s.hand(1)) == 0:
        s.apply(rng.choice(s.legal_actions()))
    t = swap_with_the_bag(s, 1)
    assert t.hash() != s.hash() and t.observation_hash(0) == s.observation_hash(0)
    return [GameRecord(players=2, start={"position": x.to_json()}).to_json() for x in (s, t)]


@pytest.mark.parametrize("seed", [1, 2])
def test_what_a_seat_gets_does_not_depend_on_what_it_cannot_see(client, seed):
    answers = []
    for record in _twin_records(seed):
        g = new(client, record=record, seat=0, seed=11)
        gid = g["id"]
        assert g["waiting"] == "you"
        got = {"game": {k: v for k, v in g.items() if k != "id"},
               "hint": client.post(f"/api/games/{gid}/hint", json={"iterations": 300}).json()["hints"],
               "record": client.get(f"/api/games/{gid}/record").json(),
               "position": client.get(f"/api/games/{gid}/position").json()}
        with client.stream("GET", f"/api/games/{gid}/analysis?iterations=400") as r:
            got["analysis"] = "".join(r.iter_text())
        answers.append(json.dumps(got, sort_keys=True))
    assert answers[0] == answers[1]


def test_the_board_picture_holds_no_hidden_hand():
    s = new_game(3, seed=4)
    while s.is_chance_node():
        s.apply(s.legal_actions()[0])
    t = swap_with_the_bag(s, 1)
    assert board_svg(s, 0) == board_svg(t, 0)
    assert board_svg(s, 1) != board_svg(t, 1)          # seat 1 sees its own hand


# ---------------------------------------------------------------------------------------------------------------
# two tabs, two games

def test_two_games_do_not_interfere(client):
    a = until_mine(client, new(client, seed=21))
    b = until_mine(client, new(client, seed=21))
    assert a["id"] != b["id"]
    client.post(f"/api/games/{a['id']}/move", json={"id": a["legal"][0]["id"]})
    assert client.get(f"/api/games/{b['id']}").json() == b

    def play(gid, out):
        g = client.get(f"/api/games/{gid}").json()
        for _ in range(30):
            g = until_mine(client, g)
            if g["waiting"] != "you":
                break
            g = client.post(f"/api/games/{gid}/move", json={"id": g["legal"][0]["id"]}).json()["game"]
        out.append(g)

    c, d = until_mine(client, new(client, seed=33)), until_mine(client, new(client, seed=33))
    results: list = []
    threads = [threading.Thread(target=play, args=(c["id"], results)),
               threading.Thread(target=play, args=(d["id"], results))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    first, second = ({k: v for k, v in g.items() if k != "id"} for g in results)
    assert first == second                             # the same seed and moves: the same game, played apart


# ---------------------------------------------------------------------------------------------------------------
# the picture's targets

def test_every_legal_moves_target_is_on_the_picture():
    rng = random.Random(3)
    for players in (2, 4):
        s = new_game(players, seed=players)
        for _ in range(300):
            if s.is_terminal():
                break
            if not s.is_chance_node():
                svg = board_svg(s, s.current_player())
                for a in s.legal_actions():
                    target = action_target(s, a)
                    assert target is None or f'data-target="{target}"' in svg, (s.action_to_string(a), target)
            s.apply(rng.choice(s.legal_actions()))


def test_reviews_run_on_and_draw_their_positions(client):
    g = new(client, seed=9, iterations=5)
    while g["waiting"] != "over":
        g = until_mine(client, g)
        if g["waiting"] == "you":
            g = client.post(f"/api/games/{g['id']}/move", json={"id": g["legal"][0]["id"]}).json()["game"]
    record = client.get(f"/api/games/{g['id']}/record").json()
    r = client.post("/api/reviews", json={"record": record, "iterations": 20})
    assert r.status_code == 200, r.text
    rid = r.json()["id"]
    import time
    for _ in range(600):
        doc = client.get(f"/api/reviews/{rid}").json()
        if doc["done"]:
            break
        time.sleep(0.1)
    assert doc["done"] and doc["error"] is None and doc["decisions"] and len(doc["summary"]) == 2
    d = doc["decisions"][3]
    pos = client.get(f"/api/reviews/{rid}/positions/{d['index']}").json()
    assert pos["svg"].startswith("<svg") and pos["decision"]["index"] == d["index"]
    assert client.get(f"/api/reviews/{rid}/positions/100000").status_code == 400
    assert client.post("/api/reviews", json={"iterations": 20}).status_code == 400


def test_the_page_and_its_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for name, kind in (("app.js", "javascript"), ("style.css", "css")):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]
    assert "http" not in client.get("/static/app.js").text.replace("http://www.w3.org/2000/svg", "")  # no CDN


def test_the_engine_menu_names_the_measured_levels(client):
    """The menu offers the levels of search/levels.py by name, each with what it was measured to do."""
    from html import escape

    from barcelona_ai.search.levels import DEFAULT_LEVEL, LEVELS
    page = client.get("/").text
    options = re.findall(r'<option value="(\d+)" title="([^"]*)"( selected)?>([^<]*)</option>', page)
    assert [(int(v), t, n.split(" (")[0]) for v, t, _, n in options] == \
        [(lv.iterations, escape(lv.description), lv.name) for lv in LEVELS]
    assert [n.split(" (")[0] for _, _, sel, n in options if sel] == [DEFAULT_LEVEL]


def test_serve_checks_its_options(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_the_serve_command_serves_the_page_on_localhost():
    """`barcelona-ai serve --port P` in its own process: it binds 127.0.0.1 and serves the page and the API."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "barcelona_ai", "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    page = r.read().decode()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "serve did not answer"
                time.sleep(0.05)
        assert "barcelona_ai" in page
        token = re.search(r'<meta name="barcelona-token" content="([^"]+)">', page).group(1)
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/games", data=b'{"players": 3}',
                                     headers={"Content-Type": "application/json", "X-Barcelona-Token": token},
                                     method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            assert json.loads(r.read())["players"] == 3
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/" in out


# ---------------------------------------------------------------------------------------------------------------
# only the board's own page drives the server (web/guard.py)

@pytest.mark.parametrize("request_kwargs, status, words", [
    ({"headers": {"X-Barcelona-Token": "guess"}}, 403, "token"),                       # another page's guess
    ({"headers": {"X-Barcelona-Token": "café".encode()}}, 403, "token"),               # not ASCII: no 500
    ({"headers": {"X-Barcelona-Token": TOKEN, "Origin": "http://evil.example"}}, 403, "Origin"),
    ({"headers": {"X-Barcelona-Token": TOKEN, "Sec-Fetch-Site": "cross-site"}}, 403, "Sec-Fetch-Site"),
    ({"headers": {"X-Barcelona-Token": TOKEN, "Content-Type": "application/x-www-form-urlencoded"},
      "content": b"players=2"}, 415, "Content-Type"),                                  # a plain HTML form
    ({"headers": {"X-Barcelona-Token": TOKEN, "Content-Type": "text/plain"}, "content": b"{}"}, 415, "JSON"),
    ({"headers": {"X-Barcelona-Token": TOKEN, "Content-Type": "application/json",
                  "Content-Length": str(5 * 2**20)}, "content": b"{}"}, 413, "at most 4 MiB"),
])
def test_requests_not_from_the_page_are_refused_and_change_nothing(request_kwargs, status, words):
    games = Games()
    app = create_app(games=games, token=TOKEN)
    other = TestClient(app, base_url=BASE)
    r = other.post("/api/games", **request_kwargs)
    assert r.status_code == status and words in r.json()["error"], r.text
    assert not games._items                                             # no game was made
    own = TestClient(app, base_url=BASE, headers={"X-Barcelona-Token": TOKEN})
    assert own.post("/api/games", json=FAST).status_code == 200         # the page's own request works
    assert len(games._items) == 1


def test_a_foreign_host_is_refused_on_loopback():
    """DNS rebinding: another site's name resolved to 127.0.0.1 reaches the server with its own Host header."""
    app = create_app(token=TOKEN)
    for host in ("evil.example", "evil.example:8000", "192.168.1.5:8000"):
        r = TestClient(app, base_url=f"http://{host}", headers={"X-Barcelona-Token": TOKEN}).get("/")
        assert r.status_code == 403 and "Host" in r.json()["error"], host
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert TestClient(app, base_url=f"http://{host}").get("/").status_code == 200, host


def test_the_page_carries_the_token_and_the_analysis_stream_takes_it_in_the_query():
    app = create_app(token=TOKEN)
    page = TestClient(app, base_url=BASE).get("/")
    assert f'<meta name="barcelona-token" content="{TOKEN}">' in page.text
    own = TestClient(app, base_url=BASE, headers={"X-Barcelona-Token": TOKEN})
    gid = own.post("/api/games", json=FAST).json()["id"]
    bare = TestClient(app, base_url=BASE)
    assert bare.get(f"/api/games/{gid}/analysis?iterations=50").status_code == 403
    with bare.stream("GET", f"/api/games/{gid}/analysis?iterations=50&token={TOKEN}") as r:
        assert r.status_code == 200 and "event: end" in "".join(r.iter_text())
    assert create_app().state.token != create_app().state.token           # a new token for every server


def test_a_server_on_the_network_needs_the_token_for_the_page_too():
    app = create_app(token=TOKEN, host="0.0.0.0")
    lan = TestClient(app, base_url="http://192.168.1.5:8000")
    assert lan.get("/").status_code == 403 and "printed" in lan.get("/").json()["error"]
    assert lan.get(f"/?token={TOKEN}").status_code == 200
    assert lan.post("/api/games", json=FAST).status_code == 403
    assert lan.post("/api/games", json=FAST, headers={"X-Barcelona-Token": TOKEN}).status_code == 200


@pytest.mark.parametrize("edition", ["/etc/passwd.json", "../../secret.json", "value-model", "models", 3])
def test_a_record_or_position_names_a_shipped_edition_never_a_path(client, edition):
    """A path in a document's edition would let a request probe the server's files (exists, a folder, not JSON):
    the web board takes the shipped editions' names only, and says which."""
    record = {"format": "barcelona-record", "version": 1, "players": 2, "edition": edition,
              "start": {"seed": 1, "setup": "random"}, "actions": []}
    for path, body, field in (("/api/games", {"record": record, "seat": 0}, "record.edition"),
                              ("/api/reviews", {"record": record}, "record.edition"),
                              ("/api/games", {"mode": "table", "position": {"edition": edition}}, "position.edition")):
        r = client.post(path, json=body)
        assert r.status_code == 400 and r.json()["error"].startswith(field) and "default" in r.json()["error"]


def test_a_body_without_a_length_is_cut_at_the_limit(client):
    def chunks():
        for _ in range(6):
            yield b" " * 2**20                   # 6 MiB of whitespace, sent in chunks without a Content-Length
    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "at most 4 MiB" in r.json()["error"]


def test_a_busy_game_answers_at_once_and_reviews_run_in_a_bounded_pool():
    """A request to a game that another request is searching answers 409 "busy" at once (no worker thread
    waits on the game); reviews run at most REVIEW_WORKERS at a time, the others wait in line, and a stopped or
    dropped review stops before its next decision."""
    import time
    from barcelona_ai.web.api import REVIEW_WORKERS, Reviews
    games, reviews = Games(), Reviews()
    app = create_app(games=games, reviews=reviews, token=TOKEN)
    client = TestClient(app, base_url=BASE, headers={"X-Barcelona-Token": TOKEN})
    g = client.post("/api/games", json=FAST).json()
    game = games.get(g["id"])
    with game.lock:                                   # as a long hint holds it
        t = time.monotonic()
        r = client.get(f"/api/games/{g['id']}")
        assert r.status_code == 409 and "busy" in r.json()["error"] and time.monotonic() - t < 5
        assert client.get(f"/api/games/{g['id']}/analysis?iterations=10").status_code == 409
    assert client.get(f"/api/games/{g['id']}").status_code == 200
    g = client.post("/api/games", json={**FAST, "seed": 3, "iterations": 3}).json()
    while g["waiting"] != "over":
        g = client.post(f"/api/games/{g['id']}/step").json()["game"] if g["waiting"] == "step" else \
            client.post(f"/api/games/{g['id']}/move", json={"id": g["legal"][0]["id"]}).json()["game"]
    record = client.get(f"/api/games/{g['id']}/record").json()
    started = [client.post("/api/reviews", json={"record": record, "iterations": 3000}).json()["id"]
               for _ in range(REVIEW_WORKERS + 3)]
    time.sleep(0.5)
    docs = [client.get(f"/api/reviews/{rid}").json() for rid in started]
    assert sum(d["started"] and not d["done"] for d in docs) <= REVIEW_WORKERS
    for rid in started:
        assert client.post(f"/api/reviews/{rid}/stop").json()["stopped"]
    deadline = time.monotonic() + 60
    while not all(client.get(f"/api/reviews/{rid}").json()["done"] for rid in started):
        assert time.monotonic() < deadline, "stopped reviews did not end"
        time.sleep(0.1)
    assert all(len(client.get(f"/api/reviews/{rid}").json()["decisions"]) < 40 for rid in started)


@pytest.mark.parametrize("raw, words", [(b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
                                        (b'{"move": "\\ud800"}', "lone surrogate"),
                                        (b'{"players": NaN}', "not valid JSON"), (b"\xff", "not UTF-8")])
def test_no_body_gives_a_server_error(client, raw, words):
    gid = new(client, seed=2)["id"]
    for path in ("/api/games", f"/api/games/{gid}/move", "/api/reviews"):
        r = client.post(path, content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and words in r.json()["error"], (path, r.text)


def test_games_nobody_asks_for_expire():
    import time
    games = Games(idle_seconds=1.0)
    client = TestClient(create_app(games=games, token=TOKEN), base_url=BASE, headers={"X-Barcelona-Token": TOKEN})
    kept, left = (client.post("/api/games", json=FAST).json()["id"] for _ in range(2))
    for _ in range(6):
        time.sleep(0.25)
        assert client.get(f"/api/games/{kept}").status_code == 200       # in use: it stays
    r = client.get(f"/api/games/{left}")
    assert r.status_code == 404 and "unused" in r.json()["error"]
    assert set(games._items) == {kept}


def test_searches_run_in_the_servers_slots_and_a_full_queue_is_refused_at_once():
    """At most `slots` searches run on the whole server, at most `queue` more wait for them in order, and one
    beyond is refused at once with 503, saying how many run and wait; GET /api/searches says it too."""
    import time
    from barcelona_ai.web.searches import SearchSlots
    slots = SearchSlots(running=1, waiting=1)
    client = TestClient(create_app(searches=slots, token=TOKEN), base_url=BASE,
                        headers={"X-Barcelona-Token": TOKEN})
    gids = [new(client, seed=s)["id"] for s in (1, 2, 3)]
    assert client.get("/api/searches").json() == {"running": 0, "waiting": 0, "slots": 1, "queue": 1}
    slots.acquire()                                        # a long search holds the only slot
    answers = {}
    waiter = threading.Thread(target=lambda: answers.update(
        second=client.post(f"/api/games/{gids[1]}/hint", json={"iterations": 50})))
    waiter.start()
    deadline = time.monotonic() + 10
    while client.get("/api/searches").json()["waiting"] != 1:
        assert time.monotonic() < deadline, "the second hint did not queue"
        time.sleep(0.02)
    t = time.monotonic()
    r = client.post(f"/api/games/{gids[2]}/hint", json={"iterations": 50})
    assert r.status_code == 503 and time.monotonic() - t < 2 and r.headers["retry-after"] == "1"
    assert r.json()["error"] == "the server is busy: 1 searches running and 1 waiting; try again in a moment"
    events = client.get(f"/api/games/{gids[2]}/analysis?iterations=50").text
    assert "event: busy" in events and "the server is busy" in events
    assert client.get(f"/api/games/{gids[0]}").status_code == 200          # what does not search goes on
    slots.release()
    waiter.join(timeout=30)
    assert answers["second"].status_code == 200 and answers["second"].json()["hints"]
    assert client.get("/api/searches").json()["running"] == 0
    assert client.post(f"/api/games/{gids[2]}/hint", json={"iterations": 50}).status_code == 200


def test_the_search_queue_is_first_come_first_served():
    import time
    from barcelona_ai.errors import ServerBusy
    from barcelona_ai.web.searches import SearchSlots
    slots = SearchSlots(running=1, waiting=3)
    slots.acquire()
    order = []

    def wait(k):
        with slots.slot():
            order.append(k)
    threads = []
    for k in range(3):
        threads.append(threading.Thread(target=wait, args=(k,)))
        threads[-1].start()
        while slots.status()["waiting"] != k + 1:
            time.sleep(0.01)
    with pytest.raises(ServerBusy):
        slots.acquire()
    slots.release()
    for t in threads:
        t.join(timeout=10)
    assert order == [0, 1, 2] and slots.status()["running"] == 0
