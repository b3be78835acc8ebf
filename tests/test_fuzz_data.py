"""Fuzz: mutated board-data files (barcelona_ai/data/default.json) are either refused with a DataFileError naming
the field, or accepted and then playable: random games from them keep every invariant (invariants.py) after
every action, in 2, 3 and 4 players. Nothing a data file says may reach the C tables unchecked:
numbers beyond the 8-bit fields, more entries than the fixed arrays hold (core.pxd DataC), values used as
array indices.

Seeded mutations (tests/fuzz_common.py); BARCELONA_FUZZ_EXAMPLES=N for a larger run."""
from __future__ import annotations

import copy
import json
import random
from importlib import resources

import pytest

from barcelona_ai import State
from barcelona_ai.errors import BarcelonaError, DataFileError
from invariants import check_invariants
from barcelona_ai.rules.tables import (CONDITIONS, EFFECT_AMOUNTS, GRANT_KINDS, SIMPLE_CODES, build_edition,
                                 load_edition)

from fuzz_common import Tally, base_seed, budget, deep, mutate, paths

DOC = json.loads((resources.files("barcelona_ai") / "data" / "default.json").read_text(encoding="utf-8"))

# Targeted growth beyond the core's fixed arrays (core.pxd: cond_kind[32], cerda_cond[14], mod_cond[NMOD],
# MAX_TRACK 32, MAX_CERDA 16, MAX_EFF 4, sag_level[NSAG], eff lists < 256 ...).
GROW = [
    ("conditions", 40), ("conditions", 13), ("modernisme_tiles", 1), ("cerda_tiles", 1),
    ("citizen_tracks.WORKING.vp", 20), ("cerda_track.multiplier", 10), ("sagrada_tiles.1", 1),
    ("player_board.intersections.benefit", 1), ("player_board.passengers.cost", 1),
    ("player_board.modernisme_spaces", 1), ("player_board.street_stacks.narrow", 2),
    ("player_board.sagrada_track.slots", 1), ("public_services.stack", 1), ("public_services.types", 1),
    ("sidewalk.rows", 1), ("streets.wide", 30), ("action_tiles", 1), ("printed_setup.vertical", 1),
]


def _grow(doc: dict, where: str, k: int, rng: random.Random) -> None:
    node = doc
    for key in where.split("."):
        node = node[key]
    if isinstance(node, dict):
        src = rng.choice(list(node))
        for i in range(k):
            node[f"X{i:02d}"] = copy.deepcopy(node[src])
    else:
        node.extend(copy.deepcopy(node[-1]) for _ in range(k))


def _effects_bomb(doc: dict, rng: random.Random) -> str:
    """An effect string where the core reads effects: many parts, big amounts, the engine-only MARKER."""
    where = rng.choice([("sidewalk", "rows", rng.randrange(5), rng.randrange(6)),
                        ("sagrada_tiles", str(rng.randint(1, 3)), 0),
                        ("buildings", rng.choice(["CORNER", "L1", "L2", "L3"]), "effects"),
                        ("streets", "benefits", "V(0,0)"), ("action_effects", "GAIN_2_COINS"),
                        ("player_board", "intersections", "benefit", 0)])
    text = rng.choice(["VP1+VP1+VP1+VP1", "MARKER0", "SAGRADA1+SAGRADA1+SAGRADA1", "VP127", "VP128", "COIN200",
                       "CERDA-128", "RES0", "RES6", "ACT_PLACE_COBBLESTONE+ACT_MOVE_TRAM+ACT_BUILD_PUBLIC_SERVICE",
                       "ACT5", "ACT_STREETS", "CLOTH_PER_BLOCK+CLOTH_PER_BLOCK", "VP" + "9" * 5000,
                       "SAGRADA16+ACT_MOVE_TRAM_COIN_FREE", "ACT_PLACE_COBBLESTONE_ANYWHERE"])
    node = doc
    for k in where[:-1]:
        node = node[k]
    node[where[-1]] = text
    return f"effects {where} = {text[:30]}"


def _pick(ps: list[tuple], rng: random.Random) -> tuple:
    """Half the time a number (the values a corrected edition changes), else any node."""
    if rng.random() < 0.5:
        nums = [p for p in ps if isinstance(_at(p), int) and not isinstance(_at(p), bool)]
        if nums:
            return rng.choice(nums)
    return rng.choice(ps)


def _at(path: tuple):
    node = DOC
    try:
        for k in path:
            node = node[k]
    except (KeyError, IndexError, TypeError):
        return None
    return node


def _effect(rng: random.Random, codes: tuple[str, ...], acts: bool) -> str:
    """A well-formed effect string: 0..3 parts, amounts in range (tables.EFFECT_AMOUNTS), action grants."""
    parts = []
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        if acts and rng.random() < 0.3:
            parts.append("ACT_" + rng.choice(GRANT_KINDS))
        elif "CLOTH_PER_BLOCK" in codes and rng.random() < 0.1:
            parts.append("CLOTH_PER_BLOCK")
        else:
            code = rng.choice([c for c in codes if c in EFFECT_AMOUNTS])
            lo, hi = EFFECT_AMOUNTS[code]
            parts.append(f"{code}{rng.randint(lo, hi)}")
    return "+".join(parts) or "-"


ALL = ("COIN", "CLOTH", "RES", "VP", "CERDA", "SAGRADA", "CLOTH_PER_BLOCK")


def plausible(rng: random.Random) -> tuple[dict, list[str]]:
    """A data file with several well-formed edits (within every documented range): mostly accepted, so that
    the core is played on many editions that differ from the printed one (granted actions everywhere,
    Sagrada chains, odd costs and scores)."""
    doc = copy.deepcopy(DOC)
    done = []
    for _ in range(rng.randint(3, 10)):
        k = rng.randrange(12)
        if k == 0:
            r, c = rng.randrange(5), rng.randrange(6)
            if doc["sidewalk"]["rows"][r][c] != "PRE":
                doc["sidewalk"]["rows"][r][c] = _effect(rng, ALL, True)
                done.append(f"sidewalk {r},{c}")
        elif k == 1:
            lvl = rng.choice(["1", "2", "3"])
            tiles = doc["sagrada_tiles"][lvl]
            if tiles:
                tiles[rng.randrange(len(tiles))] = _effect(rng, ALL, True)
                done.append(f"sagrada {lvl}")
        elif k == 2:
            bt = rng.choice(["CORNER", "L1", "L2", "L3"])
            doc["buildings"][bt]["effects"] = _effect(rng, ALL, True)
            done.append(f"building {bt}")
        elif k == 3:
            sp = rng.choice(sorted(doc["streets"]["benefits"]))
            doc["streets"]["benefits"][sp] = _effect(rng, SIMPLE_CODES, False)
            done.append(f"benefit {sp}")
        elif k == 4:
            kind = rng.choice(["GAIN_2_COINS", "GAIN_CLOTH_3VP", "CERDA_PLUS_2"])
            doc["action_effects"][kind] = _effect(rng, SIMPLE_CODES, False)
            done.append(f"action {kind}")
        elif k == 5:
            cid = rng.choice(sorted(doc["conditions"]))
            name = rng.choice(CONDITIONS)
            doc["conditions"][cid] = {"name": name, "vp": rng.randint(0, 20)}
            if name in ("CLOTH_5", "COIN_5") or rng.random() < 0.3:
                doc["conditions"][cid]["cap"] = rng.randint(1, 30)
            done.append(f"condition {cid} {name}")
        elif k == 6:
            pb = doc["player_board"]
            pb["intersections"]["cost_coins"][rng.randrange(5)] = rng.randint(0, 9)
            pb["intersections"]["picks_by_built"][rng.randrange(5)] = rng.randint(0, 5)
            pb["passengers"]["cost"][rng.randrange(5)] = {"coins": rng.randint(0, 9), "cloth": rng.randint(0, 9)}
            done.append("player board costs")
        elif k == 7:
            m = doc["player_board"]["modernisme_spaces"][rng.randrange(5)]
            m.update(take_cost_cloth=rng.randint(0, 9), raise_cost_cloth=rng.randint(0, 9))
            m["bottom"] = rng.randint(0, 9)
            m["top"] = rng.randint(m["bottom"] + 1, 10)
            done.append("modernisme space")
        elif k == 8:
            ps = doc["public_services"]
            ps["in_play"] = rng.randint(1, 7)
            ps["tiles_per_stack_2p"] = rng.randint(1, 3)
            ps["cerda_steps"] = rng.randint(-16, 16)
            ps["stack"][rng.randrange(3)] = {"cost_coins": rng.randint(0, 9), "vp": rng.randint(0, 30)}
            done.append("public services")
        elif k == 9:
            sag = doc["player_board"]["sagrada_track"]
            sag["spaces"] = rng.randint(4, 30)
            after = rng.sample(range(sag["spaces"] - 1), 3)
            sag["slots"] = [{"after_space": a, "level": rng.randint(1, 3)} for a in sorted(after)]
            done.append("sagrada track")
        elif k == 10:
            wh = doc["player_board"]["warehouse"]
            wh["free_spaces"] = rng.randint(2, 20)
            wh["start_coins"] = rng.randint(0, wh["free_spaces"] // 2)
            wh["start_cloth"] = rng.randint(0, wh["free_spaces"] - wh["start_coins"])
            doc["building_bonus_vp"] = rng.randint(0, 30)
            doc["cerda_track"]["overflow_vp_per_step"] = rng.randint(0, 10)
            done.append("warehouse")
        else:
            doc["modernisme_display"] = rng.randint(1, 8)
            doc["player_board"]["marker_stack_empty_cerda"] = rng.randint(-16, 16)
            doc["streets"]["run_vp_per_tile"] = {"wide": rng.randint(0, 20), "narrow": rng.randint(0, 20)}
            done.append("display, markers, runs")
    return doc, done


def mutants(n: int, seed: int):
    rng = random.Random(seed)
    for i in range(n):
        r = rng.random()
        if r < 0.35:
            doc, done = plausible(rng)
            yield i, doc, done
            continue
        r = rng.random()
        if r < 0.15:
            doc = copy.deepcopy(DOC)
            where, k = rng.choice(GROW)
            _grow(doc, where, k, rng)
            yield i, doc, [f"grow {where} by {k}"]
        elif r < 0.3:
            doc = copy.deepcopy(DOC)
            yield i, doc, [_effects_bomb(doc, rng)]
        elif r < 0.33:
            doc = copy.deepcopy(DOC)
            p = rng.choice(paths(doc))
            node = doc
            for k in p[:-1]:
                node = node[k]
            node[p[-1]] = deep(rng.choice([50, 100, 900, 3000]))
            yield i, doc, [f"deep at {p}"]
        else:
            doc, done = mutate(DOC, rng, pick=_pick)
            yield i, doc, done


def play_checked(state: State, seed: int, max_actions: int = 5000) -> int:
    """A random game to its end; the invariants after every action. Returns the actions applied."""
    rng = random.Random(seed)
    n = 0
    while not state.is_terminal():
        acts = state.legal_actions()
        assert acts, "a state that is not terminal has no legal action"
        if state.is_chance_node():
            outs, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9
            a = rng.choices(outs, probs)[0]
        else:
            a = rng.choice(acts)
        state.apply(a)
        n += 1
        problems = check_invariants(state)
        assert not problems, (n, problems)
        assert n < max_actions, "the game does not end"
    return n


def test_fuzz_data_files(tmp_path):
    tally = Tally("data files")
    for i, doc, done in mutants(budget(400), base_seed("data")):
        try:
            ed = build_edition(doc, source=f"m{i}.json")
        except DataFileError as exc:
            assert "field '" in str(exc) or "data file" in str(exc), (done, str(exc))
            tally.refuse(str(exc))
            continue
        except Exception as exc:                        # not a DataFileError: a defect
            pytest.fail(f"mutation {done}: {type(exc).__name__}: {exc}")
        path = tmp_path / f"m{i}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        try:
            load_edition(str(path))
            players = 2 + i % 3
            s = State.new(players, seed=i, edition=str(path))
        except BarcelonaError as exc:                   # build_edition accepted it: the core must too
            pytest.fail(f"mutation {done}: accepted by build_edition, refused by State.new: {exc}")
        assert not check_invariants(s), done
        play_checked(s, seed=i)
        for p in (2, 3, 4):                             # three more games in each player count, in C
            t = State.new(p, seed=i * 7 + p, edition=str(path))
            assert not check_invariants(t), done
            assert t.random_games(3, i) > 0
        assert ed.name == doc["edition"]
        tally.accept()
    tally.report()
    assert tally.tried == budget(400)
    assert tally.refused and tally.accepted          # the mutator reaches both sides of the check


def test_grown_tables_are_refused_before_c():
    """More conditions than cond_kind[32] holds, a 15th Cerdà tile, a track longer than MAX_TRACK: refused with
    the field named, before GameData copies anything."""
    for where, k, field in (("conditions", 40, "conditions"), ("cerda_tiles", 1, "cerda_tiles"),
                            ("citizen_tracks.WORKING.vp", 20, "citizen_tracks.WORKING")):
        doc = copy.deepcopy(DOC)
        _grow(doc, where, k, random.Random(1))
        with pytest.raises(DataFileError, match=f"field '{field}"):
            build_edition(doc)


@pytest.mark.parametrize("text", ["MARKER0", "VP128", "COIN200", "CERDA-128", "ACT5", "VP" + "9" * 5000,
                                  "SAGRADA99"])
def test_effect_amounts_and_engine_only_codes_are_refused(text):
    doc = copy.deepcopy(DOC)
    doc["sidewalk"]["rows"][0][0] = text
    with pytest.raises(DataFileError, match=r"field 'sidewalk.rows\[0\]\[0\]'"):
        build_edition(doc)


@pytest.mark.parametrize("path,value", [
    (("cerda_track", "overflow_vp_per_step"), 128),        # int8 in DataC: was an OverflowError in GameData
    (("building_bonus_vp", ), 1000),
    (("public_services", "tiles_per_stack_2p"), 4),        # indexes ps_cost[3]: out of bounds
    (("player_board", "sagrada_track", "spaces"), 200),
    (("player_board", "warehouse", "start_coins"), -3),
    (("public_services", "stack", 0, "cost_coins"), -1),
    (("conditions", "SC01", "vp"), 300),
    (("action_tiles", ), ["GAIN_2_COINS", 3, None] + ["X"] * 8),          # was a TypeError in sorted()
    (("streets", "wide"), [["V(2,0)"]]),                                  # was a TypeError (unhashable)
    (("modernisme_tiles", 0), {"SC01": 1}),
    (("citizen_tracks", "UPPER", "sections", 0), [0, "x"]),               # was a TypeError ('<')
])
def test_bad_numbers_and_types_name_the_field(path, value):
    doc = copy.deepcopy(DOC)
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    with pytest.raises(DataFileError, match="field '" + str(path[0])):
        build_edition(doc)


def test_unreadable_data_files(tmp_path):
    """Folders, devices, deep nesting, NaN, huge integers, bad UTF-8, long names: DataFileError each."""
    deep_file = tmp_path / "deep.json"
    deep_file.write_text("[" * 100_000 + "]" * 100_000)
    nan_file = tmp_path / "nan.json"
    nan_file.write_text(json.dumps(DOC).replace('"building_bonus_vp": 5', '"building_bonus_vp": NaN'))
    big = tmp_path / "big.json"
    big.write_text('{"edition": ' + "9" * 5000 + "}")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe{}")
    folder = tmp_path / "dir.json"
    folder.mkdir()
    for edition in (deep_file, nan_file, big, binary, folder, "/dev/null.json", "x" * 5000 + ".json",
                    str(tmp_path / ("y" * 300 + ".json")), "a\0b.json", 5, None, ["default"], "x" * 5000):
        with pytest.raises(DataFileError):
            State.new(2, seed=0, edition=edition if not hasattr(edition, "parts") else str(edition))
