"""Fuzz: mutated game records (docs/records.md) are either refused with an InvalidRecordError naming the field,
leaving the document unchanged, or accepted and then replay to their end with every invariant holding after
every entry, for several hidden-draw seeds. The base records are real: random and greedy games in 2, 3 and
4 players, a table-mode record with hidden draws (viewpoint set), a record started from a position, a game
cut short. Mutations drop, duplicate, swap and alter entries (ids, hidden draws, who decided, the citizens of
a table placement), seeds, players, result, seats, viewpoint, edition, types and nesting.

Seeded mutations (tests/fuzz_common.py); BARCELONA_FUZZ_EXAMPLES=N for a larger run."""
from __future__ import annotations

import copy
import json
import random

import pytest

from barcelona_ai import new_game
from barcelona_ai.search.bots import GreedyBot
from barcelona_ai.errors import BarcelonaError
from invariants import check_invariants
from barcelona_ai.rules.record import GameRecord, InvalidRecordError, is_draw_for_other

from fuzz_common import Tally, base_seed, budget, deep, junk, mutate

FIELDS = ("record", "format", "version", "engine", "edition", "edition_sha256", "players", "start", "viewpoint",
          "seats", "actions", "result", "seed")


def _game(players: int, seed: int, viewpoint=None, steps=None, greedy=False, from_position=False) -> dict:
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    if from_position:
        for _ in range(25):
            s.apply(rng.choice(s.legal_actions()))
        while s.is_chance_node():
            s.apply(s.legal_actions()[0])
        rec = GameRecord.for_position(s, viewpoint=viewpoint)
    else:
        rec = GameRecord.for_new_game(players, seed, viewpoint=viewpoint,
                                      seats=["greedy" if greedy else "random"] * players)
    bots = [GreedyBot(seed + i) for i in range(players)]
    n = 0
    while not s.is_terminal() and (steps is None or n < steps):
        hidden = is_draw_for_other(s, viewpoint)
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes())
            a = rng.choices(acts, probs)[0]
        else:
            a = bots[s.current_player()].choose(s) if greedy else rng.choice(s.legal_actions())
        rec.add(s, a, hidden=hidden)
        s.apply(a)
        n += 1
    rec.finish(s)
    return json.loads(rec.dumps())


@pytest.fixture(scope="module")
def bases() -> list[dict]:
    return [_game(2, 3), _game(3, 4), _game(4, 5), _game(2, 6, greedy=True), _game(3, 7, viewpoint=0),
            _game(2, 8, viewpoint=1), _game(2, 9, from_position=True), _game(3, 10, steps=60),
            _game(3, 11, viewpoint=2, from_position=True, steps=120)]


def _entry_mutation(doc: dict, rng: random.Random) -> str:
    acts = doc["actions"]
    if not acts:
        acts.append({"id": 0, "move": "place (0,0) W/W", "by": 0})
        return "one entry"
    i = rng.randrange(len(acts))
    e = acts[i]
    if not isinstance(e, dict):
        acts[i] = {"id": rng.randrange(635)}
        return f"actions[{i}] made an entry"
    k = rng.randrange(12)
    if k == 0:
        e["id"] = rng.choice([None, True, False, "27", 27.0, -1, 635, 2 ** 31, 2 ** 70, [], {}])
    elif k == 1:
        e["id"] = (e["id"] if isinstance(e.get("id"), int) else 0) + rng.choice([-3, -1, 1, 3])
    elif k == 2:
        e["id"] = rng.randrange(635)
    elif k == 3:
        del acts[i]
    elif k == 4:
        acts.insert(i, copy.deepcopy(e))
    elif k == 5 and i + 1 < len(acts):
        acts[i], acts[i + 1] = acts[i + 1], acts[i]
    elif k == 6:
        e["by"] = rng.choice(["chance", 0, 1, 2, 3, 4, -1, True, None, "P0", 0.0])
    elif k == 7:                                    # the citizens of a placement (table mode reads them)
        move = e.get("move", "")
        if isinstance(move, str) and move.startswith("place"):
            e["move"] = move[:-3] + rng.choice(["W/W", "U/U", "M/X", "W", "", "W/M/U", "w/u"])
        else:
            e["move"] = junk(rng)
    elif k == 8:
        e[rng.choice(["extra", "id2", ""])] = 1
    elif k == 9:
        del acts[i:]
    elif k == 10:                                   # a hidden draw moved or made
        hidden = [j for j, x in enumerate(acts) if isinstance(x, dict) and x.get("id") is None]
        if hidden:
            j = hidden[rng.randrange(len(hidden))]
            acts.insert(i, acts.pop(j))
        else:
            e["id"] = None
    else:
        acts[i] = junk(rng)
    return f"actions[{i}] mutation {k}"


def _field_mutation(doc: dict, rng: random.Random) -> str:
    k = rng.randrange(10)
    if k == 0 and doc.get("result"):
        sc = doc["result"]["scores"]
        sc[rng.randrange(len(sc))] += rng.choice([-1, 1])
        return "result.scores"
    if k == 1 and doc.get("result"):
        doc["result"]["returns"] = list(reversed(doc["result"]["returns"])) if rng.random() < 0.5 else \
            [1.0] + [0.0] * (len(doc["result"]["returns"]) - 1)
        return "result.returns"
    if k == 2:
        if doc.get("result"):
            del doc["result"]
            return "no result"
        doc["result"] = {"scores": [0] * doc["players"], "returns": [1 / doc["players"]] * doc["players"]}
        return "result added"
    if k == 3:
        doc["players"] = rng.choice([1, 2, 3, 4, 5, True, "3", 3.0, None])
        return "players"
    if k == 4:
        doc["seats"] = rng.choice([["a"], ["a"] * 5, [1, 2], None, "human", ["x" * 500] * doc["players"]])
        return "seats"
    if k == 5 and "seed" in doc["start"]:
        doc["start"]["seed"] = rng.choice([doc["start"]["seed"] + 1, -1, 2 ** 64, 2 ** 64 - 1, 1.5, "7", None])
        return "start.seed"
    if k == 6:
        doc["viewpoint"] = rng.choice([None, 0, 1, 2, 3, 4, -1, True, "0"])
        return "viewpoint"
    if k == 7:
        doc["edition"] = rng.choice(["default", "deluxe", "", 5, None, "x" * 5000 + ".json", "/dev/null.json",
                                     "../default", "default.json"])
        if rng.random() < 0.5:
            doc["edition_sha256"] = rng.choice(["0" * 64, "", None, 7, "A" * 64, doc.get("edition_sha256")])
        return "edition"
    if k == 8:
        doc["start"] = rng.choice([{}, {"seed": 1, "position": {}}, {"seed": 1, "setup": "odd"},
                                   {"seed": 1, "extra": 2}, {"position": "{"}, {"position": []}, deep(200)])
        return "start"
    out, done = mutate(doc, rng, pick=lambda ps, r: r.choice([p for p in ps if p[0] != "actions"] or ps))
    doc.clear()
    doc.update(out)
    return "generic " + "; ".join(done)


def mutants(bases: list[dict], n: int, seed: int):
    rng = random.Random(seed)
    for i in range(n):
        doc = copy.deepcopy(bases[i % len(bases)])
        r = rng.random()
        if r < 0.45:
            done = [_entry_mutation(doc, rng) for _ in range(rng.choice([1, 1, 2]))]
        elif r < 0.85:
            done = [_field_mutation(doc, rng)]
        elif r < 0.93:                              # the JSON text itself: cut, flipped, nested
            text = json.dumps(doc)
            j = rng.randrange(len(text))
            doc = rng.choice([text[:j], text[:j] + rng.choice("{[]}\",:0\\x") + text[j + 1:],
                              "[" * 5000 + text + "]" * 5000, text.replace("1", "1" * 5000, 1),
                              text.encode("utf-8")[:j] + b"\xff" + text.encode("utf-8")[j:]])
            done = ["text"]
        else:
            done = []                               # the base record, untouched: accepted
        yield i, doc, done


def replay_checked(rec: GameRecord, seed: int) -> None:
    for i, s, entry in rec.steps(seed):
        problems = check_invariants(s)
        assert not problems, (i, problems)
    assert entry is None


def test_fuzz_records(bases):
    tally = Tally("game records")
    for i, doc, done in mutants(bases, budget(600), base_seed("records")):
        before = copy.deepcopy(doc) if isinstance(doc, dict) else doc
        try:
            rec = GameRecord.from_json(doc)
        except InvalidRecordError as exc:
            msg = str(exc)
            named = msg.split(":")[0].split(".")[0].split("[")[0].strip("'")
            assert named in FIELDS or msg.endswith("unknown field"), (done, msg)
            assert doc == before, done                 # a refused record changes nothing
            tally.refuse(msg)
            continue
        except BarcelonaError as exc:
            pytest.fail(f"{done}: a {type(exc).__name__}, not an InvalidRecordError: {exc}")
        except Exception as exc:
            pytest.fail(f"{done}: {type(exc).__name__}: {exc}")
        for seed in (0, 1):
            replay_checked(rec, seed)
        again = GameRecord.from_json(rec.dumps())          # what was accepted is written back and read again
        assert again.replay(seed=2).hash() == rec.replay(seed=2).hash()
        if rec.result is not None:
            assert rec.replay().is_terminal()
        tally.accept()
    tally.report()
    assert tally.tried == budget(600)
    assert tally.refused and tally.accepted


def test_record_contradicting_the_replay_is_refused(bases):
    """players, result and seats must agree with the replay; a start position decides the player count."""
    doc = copy.deepcopy(bases[0])
    doc["result"]["scores"][0] += 1
    with pytest.raises(InvalidRecordError, match=r"^result.scores"):
        GameRecord.from_json(doc)
    doc = copy.deepcopy(bases[0])
    doc["result"]["returns"] = list(reversed(doc["result"]["returns"]))
    if doc["result"]["returns"] != bases[0]["result"]["returns"]:
        with pytest.raises(InvalidRecordError, match=r"^result.returns"):
            GameRecord.from_json(doc)
    doc = copy.deepcopy(bases[7])                       # a game cut short cannot state a result
    doc["result"] = {"scores": [0, 0, 0], "returns": [0.0, 1.0, 0.0]}
    with pytest.raises(InvalidRecordError, match=r"^result: .*not over"):
        GameRecord.from_json(doc)
    doc = copy.deepcopy(bases[6])                       # a 2-player position said to be a 3-player game
    doc["players"] = 3
    doc["seats"] = None
    doc.pop("result", None)
    with pytest.raises(InvalidRecordError, match=r"^players: 3, but the start position has 2"):
        GameRecord.from_json(doc)
    doc = copy.deepcopy(bases[1])
    doc["seats"] = ["a", "b"]
    with pytest.raises(InvalidRecordError, match=r"^seats"):
        GameRecord.from_json(doc)
    doc = copy.deepcopy(bases[1])
    doc["actions"][0]["by"] = 2                         # player 0 placed first
    with pytest.raises(InvalidRecordError, match=r"^actions\[0\].by"):
        GameRecord.from_json(doc)


@pytest.mark.parametrize("field,value,needle", [
    ("start", {"seed": 2 ** 64, "setup": "random"}, "start.seed"),
    ("start", {"seed": 2 ** 70}, "start.seed"),
    ("version", True, "version"),
    ("engine", deep(500), "record"),
    ("seats", deep(30), "seats"),
    ("edition", "x" * 5000 + ".json", "edition"),
    ("edition", "/dev/null.json", "edition"),
    ("players", 10 ** 30, "players"),
])
def test_values_that_would_reach_c_are_checked(bases, field, value, needle):
    doc = copy.deepcopy(bases[0])
    doc[field] = value
    with pytest.raises(InvalidRecordError, match="^" + needle):
        GameRecord.from_json(doc)


@pytest.mark.parametrize("value", [2 ** 70, -1, 635, 2 ** 31, 1.0, "27"])
def test_action_ids_are_range_checked_before_c(bases, value):
    doc = copy.deepcopy(bases[2])
    doc["actions"][5]["id"] = value
    with pytest.raises(InvalidRecordError, match=r"^actions\[5\].id"):
        GameRecord.from_json(doc)


def test_unreadable_record_files(tmp_path):
    deep_file = tmp_path / "deep.json"
    deep_file.write_text("[" * 100_000 + "]" * 100_000)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b'{"format": "\xff"}')
    for path in (deep_file, binary, tmp_path, "/dev/zero", "x" * 5000, "a\0b", tmp_path / "none.json"):
        with pytest.raises(InvalidRecordError, match="^record"):
            GameRecord.load(path)
