"""Commands that do what a user expects: every option explained with its default, bad values
refused with ``error: ...`` and exit code 2 naming the option, records never overwritten, arena games saved,
bot specs with ``10k``, ``show``, and ``analyse --at N`` at chance points and at the end."""
import argparse
import json
from pathlib import Path

import pytest

from barcelona_ai.cli import main as cli
from barcelona_ai.workflows.arena import rotation_note
from barcelona_ai.search.bots import make_bot
from barcelona_ai.rules.record import GameRecord


def subcommands():
    """(name, parser) of every subcommand, each once (aliases skipped)."""
    ap = cli.build_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    seen, out = set(), []
    for name, p in sub.choices.items():
        if id(p) not in seen:
            seen.add(id(p))
            out.append((name, p))
    return out


def option_help(parser, action) -> str:
    return parser._get_formatter()._expand_help(action) if action.help is not None else ""


def test_every_option_of_every_subcommand_has_a_help_text_showing_its_default():
    names = [n for n, _ in subcommands()]
    assert {"demo", "play", "table", "hint", "analyse", "show", "review", "selfplay", "arena", "perft",
            "bench"} <= set(names)
    checked = 0
    for name, p in subcommands():
        text = p.format_help()
        for a in p._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            shown = option_help(p, a)
            assert shown.strip(), f"{name} {a.option_strings or a.dest}: no help text"
            for opt in a.option_strings:
                assert opt in text, (name, opt)
            takes_value = a.option_strings and a.nargs != 0 and not a.required
            if takes_value:
                assert "default" in shown.lower(), f"{name} {a.option_strings}: the default is not shown: {shown!r}"
            checked += 1
    assert checked > 60


BAD = ["abc", "nan", "inf", "1e999", "", "0x10", "-1", "99999999999999999999999"]


def _argv_for(name, parser, bad_action, value):
    """A command line of `name` with `value` for the option `bad_action` first and placeholders after it."""
    argv = [name, bad_action.option_strings[0], value]
    for a in parser._actions:
        if a.option_strings or a is bad_action or isinstance(a, argparse._HelpAction):
            continue
        argv.append("1" if a.type is not None else "random")          # positionals (depth, bots, files)
    for a in parser._actions:
        if a.required and a.option_strings and a is not bad_action:
            argv += [a.option_strings[0], "1"]
    return argv


def test_bad_values_of_every_numeric_option_are_one_error_line_and_exit_2(capsys):
    walked = 0
    for name, p in subcommands():
        for a in p._actions:
            if a.type is None or not a.option_strings:
                continue
            for value in BAD:
                argv = _argv_for(name, p, a, value)
                assert cli.main(argv) == 2, argv
                err = capsys.readouterr().err.strip().splitlines()
                assert len(err) == 1 and err[0].startswith("error: "), (argv, err)
                assert a.option_strings[0] in err[0], (argv, err)
                walked += 1
    assert walked > 200


def test_bad_bot_specs_and_counts_with_k():
    assert make_bot("ismcts:10k").limit.iterations == 10_000
    assert make_bot("flatmc:2k").iterations == 2000 and make_bot("ismcts:1.5k").limit.iterations == 1500
    assert make_bot("ismcts:2s").limit.time == 2.0


@pytest.mark.parametrize("argv,needle", [
    (["arena", "ismcts:abc", "random"], "error: bad bot spec 'ismcts:abc': iterations must be a whole number"),
    (["arena", "random", "foo"], "error: bad bot spec 'foo': unknown bot 'foo'"),
    (["arena", "random", "ismcts:5,bar=1"], "error: bad bot spec 'ismcts:5,bar=1': unknown search setting"),
    (["selfplay", "--out", "never-made", "--bot", "ismcts:0"], "error: bad bot spec 'ismcts:0': iterations must be"),
    (["bench", "--games", "0"], "error: argument --games: expected a number of games from 1"),
    (["hint", "start-2p", "--time", "0"], "error: argument --time: expected a number of seconds, more than 0"),
    (["show", "start-2p", "--at", "3"], "error: --at applies to a game record"),
])
def test_errors_name_what_is_wrong(argv, needle, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(needle), err
    assert not Path("never-made").exists()


def test_selfplay_never_overwrites_a_record(tmp_path, capsys):
    out = tmp_path / "games"
    argv = ["selfplay", "--games", "2", "--out", str(out), "--bot", "random", "--seed", "4"]
    assert cli.main(argv) == 0
    first = (out / "game-0001.json").read_text()
    (out / "notes.txt").write_text("mine")
    assert cli.main(argv[:2] + ["1"] + argv[3:-1] + ["9"]) == 0
    text = capsys.readouterr().out
    assert "the new ones start at game-0003.json" in text
    assert sorted(f.name for f in out.iterdir()) == ["game-0001.json", "game-0002.json", "game-0003.json",
                                                     "notes.txt", "runs.jsonl"]        # runs.jsonl: for --resume
    assert (out / "game-0001.json").read_text() == first
    assert GameRecord.load(out / "game-0003.json").start["seed"] == 9
    assert cli.main(argv[:2] + ["1"] + argv[3:-1] + ["9", "--force"]) == 0
    assert GameRecord.load(out / "game-0001.json").start["seed"] == 9
    assert len(list(out.glob("game-*.json"))) == 3


def test_arena_saves_its_games_and_warns_about_an_incomplete_rotation(tmp_path, capsys):
    assert rotation_note(2, 4) is None and "seats 0/1/2 2/2/1 times" in rotation_note(3, 5)
    out = tmp_path / "arena"
    argv = ["arena", "greedy", "random", "--games", "3", "--workers", "1", "--quiet", "--save", str(out)]
    assert cli.main(argv) == 0
    cap = capsys.readouterr()
    assert "warning: seat rotation incomplete" in cap.err and "use a multiple of 2 games" in cap.err
    files = sorted(out.glob("game-*.json"))
    assert [f.name for f in files] == ["game-0001.json", "game-0002.json", "game-0003.json"]
    recs = [GameRecord.load(f) for f in files]
    assert [r.seats for r in recs] == [["greedy", "random"], ["random", "greedy"], ["greedy", "random"]]
    assert all(r.result is not None and r.replay().scores() == r.result["scores"] for r in recs)
    assert cli.main(argv[:4] + ["2"] + argv[5:]) == 0                  # more games: new files beside them
    assert len(list(out.glob("game-*.json"))) == 5
    assert "warning" not in capsys.readouterr().err


def saved_run(folder: Path, candidate: str, seed: int, games: int = 4) -> float:
    """An arena run of `candidate` against random play saved in `folder`; its candidate's win share."""
    from barcelona_ai.workflows.arena import match
    folder.mkdir()
    return match(candidate, "random", games=games, seed=seed, workers=1, progress=False, save=str(folder)).share


def test_paired_compares_two_saved_runs_game_by_game(tmp_path, capsys):
    """The README's "game by game" figures: two candidates on the same setups, each game's difference of the
    candidates' win shares (the candidate's seat read from the run, not guessed from the seats' names)."""
    from barcelona_ai.workflows.arena import paired_difference
    greedy, rand, later = tmp_path / "greedy", tmp_path / "random", tmp_path / "later"
    g, r = saved_run(greedy, "greedy", seed=3), saved_run(rand, "random", seed=3)
    d = paired_difference(greedy, rand)
    assert (d.games, d.first, d.second) == (4, "greedy", "random")
    assert d.first_share == pytest.approx(g) and d.second_share == pytest.approx(r)
    assert d.difference == pytest.approx(g - r) and d.half_width >= 0
    same = paired_difference(greedy, greedy)
    assert same.difference == 0 and same.half_width == 0
    saved_run(later, "greedy", seed=4)                     # setups 4 and 5: setup 4 in common, in both seats
    assert paired_difference(later, rand).games == 2
    assert cli.main(["paired", str(greedy), str(rand)]) == 0
    assert capsys.readouterr().out.startswith(f"4 games on the same setups and seats: {greedy} (greedy) ")
    assert cli.main(["paired", str(greedy), str(tmp_path)]) == 2
    assert "no arena run saved there" in capsys.readouterr().err
    saved_run(tmp_path / "far", "greedy", seed=40)
    assert cli.main(["paired", str(greedy), str(tmp_path / "far")]) == 2
    assert "0 game(s) in common" in capsys.readouterr().err


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    out = tmp_path_factory.mktemp("rec")
    assert cli.main(["selfplay", "--games", "1", "--out", str(out), "--bot", "greedy", "--seed", "3"]) == 0
    return out / "game-0001.json"


def test_show_prints_the_board_of_a_position_or_a_record_entry(record, capsys):
    assert cli.main(["show", "start-2p"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("example start-2p: 2 players") and "Player 0 to move" in out
    n = len(GameRecord.load(record).actions)
    assert cli.main(["show", str(record)]) == 0
    assert f"after {n} of {n} entries" in capsys.readouterr().out
    assert cli.main(["show", str(record), "--at", "5"]) == 0
    out = capsys.readouterr().out
    assert f"after 5 of {n} entries" in out and "round 1" in out
    assert cli.main(["show", str(record), "--at", str(n + 1)]) == 2


def test_analyse_at_a_chance_point_and_at_the_end(record, capsys):
    rec = GameRecord.load(record)
    chance = next(i for i, s, _ in rec.steps() if s.is_chance_node())
    n = len(rec.actions)
    assert cli.main(["analyse", str(record), "--at", str(chance), "--iterations", "120"]) == 0
    out = capsys.readouterr().out
    assert "a chance outcome is next" in out and "averaged over 4 samples of the draw" in out
    assert cli.main(["analyse", str(record), "--at", str(chance), "--iterations", "120", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "chance" and doc["to_move"] is None and doc["samples"] == 4
    assert abs(sum(p["win_prob"] for p in doc["players"]) - 1) < 1e-6
    assert cli.main(["analyse", str(record), "--at", str(n), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "final" and [p["expected_score"] for p in doc["players"]] == rec.result["scores"]
    assert [p["win_prob"] for p in doc["players"]] == rec.result["returns"]


def test_a_position_given_as_a_record_says_what_to_do(tmp_path, capsys):
    from barcelona_ai.workflows.examples import example_position
    pos = tmp_path / "start-2p.json"
    pos.write_text(json.dumps(example_position("start-2p").to_json()))
    assert cli.main(["play", "--load", str(pos)]) == 2
    err = capsys.readouterr().err
    assert "start-2p.json' is a position, not a game record" in err and "table --position" in err
    assert cli.main(["review", str(pos)]) == 2
    assert "review needs a game record, and this is a position" in capsys.readouterr().err
