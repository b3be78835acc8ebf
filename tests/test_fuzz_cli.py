"""Fuzz: the command line from any argument vector. ``cli.main(argv)`` runs in-process; whatever the
arguments (numbers at and beyond their ranges, NaN and infinity, odd strings, missing, repeated or unknown
options, files that are folders, devices, deeply nested, binary, mutated records), the outcome is one of:

* exit code 0 (or 1 for play/table when the typed input ends), nothing on stderr but progress;
* exit code 2 and a last stderr line ``error: ...``, with no traceback, and nothing created (selfplay --out).

No exception may escape ``main``. Valid values are kept cheap (a few iterations, a game or two) so the whole
run stays within the CI budget; BARCELONA_FUZZ_EXAMPLES=N for a larger run."""
from __future__ import annotations

import copy
import io
import json
import os
import random
import sys

import pytest

from barcelona_ai import new_game
from barcelona_ai.cli import main as cli
from barcelona_ai.workflows.selfplay import play_game
from barcelona_ai.workflows.examples import example_position
from barcelona_ai.rules.record import GameRecord, is_draw_for_other

from fuzz_common import Tally, base_seed, budget, deep, mutate

BAD_NUMBERS = ["0", "-1", "-0", "1e308", "inf", "-inf", "nan", "NaN", "", " ", "abc", "9" * 30, "9" * 5000, "1.5",
               "0x10", "1e3", "\u0663", "+2", "1_0", "--", "-5e-324", "99999999999999999999"]
INTS = {
    "--seed": ["0", "7", "18446744073709551615", "18446744073709551616"],
    "--iterations": ["1", "3", "30", "1000000001"],
    "--play-iterations": ["1", "2"],
    "--threads": ["1", "2", "64", "65"],
    "--top": ["1", "3", "100", "101"],
    "--at": ["0", "3", "40", "100000", "-3", "10000000000000000000000"],
    "--players": ["2", "3", "4", "1", "5"],
    "--seat": ["0", "1", "3", "4"],
    "--games": ["1", "2", "100001"],
    "--workers": ["1", "65"],
    "--walk": ["0", "5", "300", "100001"],
    "--time": ["0.005", "0.01", "86401", "1e-9"],
}
SPECS = ["random", "greedy", "flatmc:3", "ismcts:3", "ismcts:0.002s", "ismcts:3,reward=win", "ismcts:abc",
         "flatmc:0", "ismcts:infs", "foo", "", ",", "ismcts:3,threads=0", "ismcts:3,c_uct=nan", "greedy:1",
         "ismcts:3,=3", "ismcts:99999999999", "ismcts:3,threads=2,threads=3", "ismcts:3,foo=1", "x" * 300,
         "ismcts:3,max_nodes=1", "ismcts:3,threads=inf", "ismcts:-1s", "flatmc:3,rollout=uniform",
         "ismcts:3,leaf=rollout"]
SETUPS = ["random", "printed", "odd", ""]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, list[str]]:
    d = tmp_path_factory.mktemp("cli_fuzz")
    rec = play_game(["greedy", "random"], setup_seed=3, bot_seed=3).record
    three = play_game(["random", "random", "random"], setup_seed=4, bot_seed=4).record
    table = _table_record()
    out: dict[str, list[str]] = {"record": [], "position": [], "junk": []}

    def write(kind, name, data):
        p = d / name
        if isinstance(data, bytes):
            p.write_bytes(data)
        else:
            p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        out[kind].append(str(p))

    write("record", "game.json", rec)
    write("record", "short.json", {**rec, "actions": rec["actions"][:45], "result": None})
    write("position", "pos.json", example_position("start-3p").to_json())
    write("position", "mid.json", example_position("midgame-3p").to_json())
    rng = random.Random(5)
    write("record", "table.json", table)
    for i in range(12):                                  # mutated records: refused or accepted, never a crash
        doc, _ = mutate((rec, three, table)[i % 3], rng)
        write("record", f"mut{i}.json", doc)
    write("junk", "deep.json", "[" * 100_000 + "]" * 100_000)
    write("junk", "deepobj.json", '{"format": "barcelona-record", "version": 1, "x": ' + "[" * 3000 + "]" * 3000
          + "}")
    write("junk", "deep70.json", {"format": "barcelona-record", "version": 1, "x": deep(70)})
    write("junk", "nan.json", '{"format": "barcelona-record", "version": NaN}')
    write("junk", "bigint.json", '{"format": "barcelona-position", "version": ' + "9" * 5000 + "}")
    write("junk", "binary.json", b"\xff\xfe\x00{")
    write("junk", "list.json", [1, 2])
    write("junk", "other.json", {"format": {"a": [1]}})
    write("junk", "empty.json", "")
    folder = d / "folder.json"
    folder.mkdir()
    out["junk"] += [str(folder), "/dev/null", "/dev/zero", str(d / "missing.json"), "x" * 5000, "x" * 300 + ".json",
                    "a\0b", "", "-", "midgame-3p", "start-2p", "endgame-9p", "\udcff.json"]
    out["dir"] = [str(d)]
    return out


def _table_record() -> dict:
    """A 2-player game kept by seat 1 (table mode): the other player's draws are hidden entries."""
    s = new_game(2, seed=6)
    rec = GameRecord.for_position(s, viewpoint=1)
    rng = random.Random(6)
    while not s.is_terminal():
        a = rng.choice(s.legal_actions())
        rec.add(s, a, hidden=is_draw_for_other(s, 1))
        s.apply(a)
    rec.finish(s)
    return json.loads(rec.dumps())


COMMANDS = ["hint", "analyse", "analyze", "review", "selfplay", "arena", "perft", "bench", "demo", "play", "table"]


def _budget_args(rng: random.Random) -> list[str]:
    return ["--iterations", rng.choice(["1", "2", "5"])]


def valid_argv(cmd: str, rng: random.Random, files: dict, tmp) -> list[str]:
    """A cheap, valid command line (a few iterations, a game or two)."""
    pos = rng.choice(files["record"] + files["position"] + ["midgame-3p", "start-2p", "start-4p"])
    rec = rng.choice(files["record"])
    if cmd in ("hint", "analyse", "analyze"):
        argv = [cmd, pos] + _budget_args(rng)
        if pos in files["record"] and rng.random() < 0.5:
            argv += ["--at", rng.choice(INTS["--at"])]
        return argv + rng.choice([[], ["--json"], ["--top", "2"], ["--threads", "2"], ["--seed", "3"]])
    if cmd == "review":
        return ["review", rec, "--iterations", "1"]
    if cmd == "selfplay":
        return ["selfplay", "--games", "1", "--players", rng.choice("234"), "--out", str(tmp / f"sp{rng.random()}"),
                "--bot", rng.choice(["random", "greedy"]), "--seed", rng.choice(["0", "9"])]
    if cmd == "arena":
        return ["arena", rng.choice(["random", "greedy"]), "random", "--games", "1", "--workers", "1", "--quiet",
                "--players", rng.choice("234")]
    if cmd == "perft":
        return ["perft", rng.choice(["0", "1", "2", "3"]), "--players", rng.choice("234"), "--walk",
                rng.choice(["0", "20", "400"]), "--setup", rng.choice(["random", "printed"])] + \
            rng.choice([[], ["--divide"]])
    if cmd == "bench":
        return ["bench", "--games", "1", "--no-search"]
    if cmd == "demo":
        return ["demo", rng.choice(["start-2p", "midgame-3p"]), "--iterations", "2", "--play-iterations", "1"]
    if cmd == "play":
        return ["play", "--players", rng.choice("234"), "--seat", rng.choice("01"), "--seed", "5",
                "--iterations", "1"] + (["--load", rec] if rng.random() < 0.3 else [])
    if cmd == "table":
        extra = rng.choice([[], ["--load", rec], ["--position", rng.choice(files["position"])]])
        return ["table", "--players", rng.choice("234"), "--seat", rng.choice("01"), "--iterations", "1"] + extra
    raise AssertionError(cmd)


def bad_value(opt: str, rng: random.Random) -> str:
    return rng.choice(INTS.get(opt, []) + BAD_NUMBERS) if rng.random() < 0.8 else rng.choice(BAD_NUMBERS)


def mutate_argv(argv: list[str], rng: random.Random, files: dict) -> tuple[list[str], str]:
    argv = list(argv)
    k = rng.randrange(10)
    opts = [i for i, a in enumerate(argv) if a.startswith("--") and i + 1 < len(argv)
            and not argv[i + 1].startswith("--")]
    if k <= 2 and opts:                                  # a bad or edge value
        i = rng.choice(opts)
        argv[i + 1] = bad_value(argv[i], rng)
        return argv, f"value of {argv[i]}"
    if k == 3 and len(argv) > 1:                         # the positional (file, depth, bot) replaced
        j = 1
        argv[j] = rng.choice(files["junk"] + files["record"] + BAD_NUMBERS + SPECS)
        return argv, "positional"
    if k == 4 and opts:                                  # a value dropped (the next option becomes it)
        i = rng.choice(opts)
        del argv[i + 1]
        return argv, f"no value for {argv[i]}"
    if k == 5:                                           # an unknown or repeated option
        argv += rng.choice([["--bogus"], ["--json", "--json"], ["--seed", "1", "--seed", "2"],
                            ["--time", "0.01"], ["-h"], ["--version"], ["extra", "args"]])
        return argv, "extra option"
    if k == 6 and argv[0] in ("arena", "selfplay"):      # bot specs
        if argv[0] == "arena" and len(argv) > 2:
            argv[rng.choice([1, 2])] = rng.choice(SPECS)
        elif argv[0] == "arena":                         # cut before its second bot
            argv.append(rng.choice(SPECS))
        else:
            argv += ["--bot", rng.choice(SPECS)] * rng.choice([1, 2, 3, 5])
        return argv, "bot spec"
    if k == 7 and argv[0] in ("play", "table"):
        argv += rng.choice([["--load", rng.choice(files["junk"] + files["record"])],
                            ["--position", rng.choice(files["junk"][:8] + files["position"])],
                            ["--setup", rng.choice(SETUPS)]])
        return argv, "load/position"
    if k == 8:
        argv[0] = rng.choice(COMMANDS + ["", "HINT", "help", "--help", "x" * 100])
        return argv, "command"
    if k == 9 and argv[0] == "selfplay" and "--out" in argv[:-1]:   # a command turned into selfplay may have none
        i = argv.index("--out")
        argv[i + 1] = rng.choice(["/dev/null/x", files["record"][0], "x" * 5000, "", "a\0b"])
        return argv, "selfplay --out"
    return argv[:rng.randrange(1, len(argv) + 1)], "cut"


def cheap(argv: list[str]) -> list[str]:
    """Keep every valid run cheap: a search budget where a command would take its (long) default."""
    argv = list(argv)
    cmd = argv[0] if argv else ""
    if cmd in ("hint", "analyse", "analyze", "review", "play", "table") and "--time" not in argv \
            and "--iterations" not in argv:
        argv += ["--iterations", "2"]
    if cmd == "demo":
        argv += ["--iterations", "2", "--play-iterations", "1"]
    if cmd == "bench" and "--no-search" not in argv:
        argv.append("--no-search")
    if cmd == "selfplay" and "--bot" not in argv:
        argv += ["--bot", "random"]
    if cmd == "perft":
        argv = [a if a not in ("4", "5", "6", "7", "8", "9", "10") else "11" for a in argv]
    if cmd in ("arena", "selfplay") and "--workers" not in argv:
        argv += ["--workers", "1"]
    if cmd in ("arena", "selfplay", "bench") and "--games" not in argv:
        argv += ["--games", "1"]
    return argv


STDIN = ["quit\n", "", "1\n" * 30, "?\nundo\nundo\nshow 9\nboard\nhelp\nsave /dev/null/x\nquit\n",
         "place (9,9) W/M\nplace (0,0) X/Y\n\x00\n" + "z" * 10_000 + "\n99999999999999999999\n-1\nquit\n",
         "draw W\ndraw Q\n1\n2\n3\nquit\n"]


def test_the_mutator_takes_any_command_line_it_made():
    """Mutations stack (a command renamed, then cut, then its bot changed): each one works on whatever the last
    left, so a larger budget meets no error of the fuzz itself."""
    rng = random.Random(0)
    files = {"junk": ["junk"], "record": ["record.json"], "position": ["position.json"]}
    for _ in range(20_000):
        argv = [rng.choice(COMMANDS)] + ["x", "--out", "o", "--seed", "1"][:rng.randrange(6)]
        for _ in range(3):
            argv, _how = mutate_argv(argv, rng, files)
        cheap(argv)


def test_fuzz_command_line(files, tmp_path, capsys, monkeypatch):
    tally = Tally("command line")
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)                              # relative --out folders and saves land here
    rng = random.Random(base_seed("cli"))
    for i in range(budget(300)):
        cmd = rng.choice(COMMANDS)
        argv = valid_argv(cmd, rng, files, tmp_path)
        how = "valid"
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            argv, how = mutate_argv(argv, rng, files)
        argv = cheap(argv)
        out_dir = argv[argv.index("--out") + 1] if "--out" in argv[:-1] and argv[0] == "selfplay" else None
        existed = out_dir is not None and os.path.exists(out_dir) if out_dir and "\0" not in out_dir else True
        monkeypatch.setattr(sys, "stdin", io.StringIO(rng.choice(STDIN)))
        capsys.readouterr()
        try:
            rc = cli.main(argv)
        except BaseException as exc:                     # noqa: BLE001 - anything escaping main is a defect
            pytest.fail(f"{argv!r} ({how}): {type(exc).__name__}: {exc}")
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "Traceback" not in out, (argv, err)
        if rc == 2:
            last = err.strip().splitlines()[-1] if err.strip() else ""
            assert last.startswith("error: "), (argv, how, err)
            if not existed:
                assert not os.path.exists(out_dir), (argv, "a refused selfplay created its --out folder")
            tally.refuse(last[7:])
        else:
            assert rc == 0 or (rc == 1 and argv[0] in ("play", "table")), (argv, how, rc, err)
            tally.accept()
    tally.report()
    assert tally.tried == budget(300)
    assert tally.refused and tally.accepted


@pytest.mark.parametrize("argv,needle", [
    (["hint", "start-2p", "--time", "inf"], "argument --time"),
    (["analyse", "start-2p", "--time", "nan"], "argument --time"),
    (["play", "--time", "inf"], "argument --time"),
    (["perft", "-1"], "argument depth"),
    (["perft", "100"], "argument depth"),
    (["hint", "start-2p", "--iterations", "99999999999999999999"], "argument --iterations"),
    (["bench", "--games", "0"], "argument --games"),
    (["arena", "greedy", "random", "--games", "0"], "argument --games"),
    (["arena", "greedy", "random", "--workers", "0"], "argument --workers"),
    (["arena", "ismcts:abc", "random"], "bad bot spec 'ismcts:abc'"),
    (["arena", "random", "ismcts:10,threads=inf"], "bad bot spec 'ismcts:10,threads=inf'"),
    (["arena", "random", "ismcts:10,foo=1"], "unknown search setting 'foo'"),
    (["analyse", "start-2p", "--top", "-1"], "argument --top"),
    (["hint", "x" * 5000], "File name too long"),
    (["hint", "/dev/zero"], "not a file"),
    (["play", "--load", "/dev/zero"], "not a regular file"),
    (["selfplay", "--out", "/dev/null/x", "--bot", "random"], "cannot create the folder"),
])
def test_known_defects_are_clear_errors(argv, needle, capsys):
    """Each of these once hung, crashed with a traceback or ran with a nonsensical value; now a clear error."""
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err


def test_help_and_version_exit_0(capsys):
    assert cli.main(["--version"]) == 0
    assert cli.main(["hint", "--help"]) == 0
    assert "usage:" in capsys.readouterr().out


def test_interrupt_is_one_line_and_130(monkeypatch, capsys):
    """Ctrl-C anywhere outside a search: one line on stderr, exit code 130, no traceback."""
    def boom(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "cmd_perft", boom)
    assert cli.main(["perft", "1"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "interrupted" and "Traceback" not in err


def test_interrupted_search_prints_the_partial_answer(monkeypatch, capsys):
    """hint and analyse print what an interrupted search found (SearchInterrupted.result), say so, exit 130."""
    from barcelona_ai.search.engine import Engine, Limit
    from barcelona_ai.errors import SearchInterrupted
    s = example_position("start-2p")
    plans = Engine(seed=0).hints(s, Limit(iterations=50), top=2)
    analysis = Engine(seed=0).analyse(s, Limit(iterations=50), top=2)

    def hints(self, *a, **k):
        raise SearchInterrupted(copy.deepcopy(plans))

    def analyse(self, *a, **k):
        raise SearchInterrupted(copy.deepcopy(analysis))
    monkeypatch.setattr(Engine, "hints", hints)
    monkeypatch.setattr(Engine, "analyse", analyse)
    assert cli.main(["hint", "start-2p", "--iterations", "50"]) == 130
    out = capsys.readouterr().out
    assert "Search interrupted" in out and plans[0].moves[0] in out
    assert cli.main(["hint", "start-2p", "--iterations", "50", "--json"]) == 130
    doc = json.loads(capsys.readouterr().out)
    assert doc["interrupted"] is True and doc["moves"][0]["moves"] == plans[0].moves and doc["players"] == []
    assert cli.main(["analyse", "start-2p", "--iterations", "50", "--json"]) == 130
    cap = capsys.readouterr()
    doc = json.loads(cap.out)
    assert doc["interrupted"] is True and doc["iterations"] == analysis.iterations
    assert "Search interrupted" in cap.err

    def nothing(self, *a, **k):
        raise SearchInterrupted(None)
    monkeypatch.setattr(Engine, "analyse", nothing)
    assert cli.main(["analyse", "start-2p", "--iterations", "50"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted"
