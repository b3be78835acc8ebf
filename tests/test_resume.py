"""Resume that cannot lie: a resumed run keeps only what it has checked (workflows/arena.py run_files,
checked_records; training/datagen.py shards).

A kept record is read and replayed to its end, its stated result checked: a damaged one (cut short, edited, not
JSON) is set aside as NAME.damaged and its game played again, so the folder ends as an uninterrupted run would
have left it; a whole record of another game is refused by name (the folder was changed by hand). A run whose
note in runs.jsonl is lost is recognised from its records. A dataset's shards are opened and checked: a damaged
one is built again, and reading one raises a BarcelonaError naming it. A worker process ends when its driver is
killed.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from barcelona_ai.cli import main as cli
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.training.datagen import DataPlan, generate, load_dataset, shard_path
from barcelona_ai.workflows.arena import RUNS_FILE

SELFPLAY = ["selfplay", "--games", "4", "--bot", "greedy", "--seed", "8", "--workers", "1"]


def records(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("game-*.json"))}


def test_damaged_records_are_set_aside_and_played_again(tmp_path, capsys):
    out = tmp_path / "games"
    argv = SELFPLAY + ["--out", str(out)]
    assert cli.main(argv) == 0
    whole = records(out)
    second = json.loads(whole["game-0002.json"])
    second["result"]["scores"][0] += 1                       # valid JSON, a result the replay disagrees with
    (out / "game-0002.json").write_text(json.dumps(second))
    (out / "game-0003.json").write_bytes(whole["game-0003.json"][:500])          # cut short
    fourth = json.loads(whole["game-0004.json"])
    del fourth["result"]                                     # a game without its end
    fourth["seats"] = [["greedy"], {}]                      # and seats that are no names
    (out / "game-0004.json").write_text(json.dumps(fourth))
    capsys.readouterr()
    assert cli.main(argv + ["--resume"]) == 0
    text = capsys.readouterr().out
    assert "1 already there (3 damaged records set aside as *.damaged, played again), 3 games to play" in text
    assert records(out) == whole
    assert sorted(p.name for p in out.glob("*.damaged")) == ["game-0002.json.damaged", "game-0003.json.damaged",
                                                             "game-0004.json.damaged"]


def test_a_run_whose_note_is_lost_is_recognised_from_its_records(tmp_path, capsys):
    out = tmp_path / "games"
    assert cli.main(SELFPLAY[:1] + ["--games", "2", "--bot", "random", "--seed", "1", "--out", str(out)]) == 0
    argv = SELFPLAY + ["--out", str(out)]                    # game-0003 .. game-0006
    assert cli.main(argv) == 0
    whole = records(out)
    (out / RUNS_FILE).unlink()
    (out / "game-0005.json").unlink()
    (out / "game-0099.json").write_text('{"seats": [["greedy"]], "start": {"seed": [8]}}')   # no game's record
    capsys.readouterr()
    assert cli.main(argv + ["--resume"]) == 0
    assert "game-0003.json .. game-0006.json, 3 already there, 1 game to play" in capsys.readouterr().out
    assert {k: v for k, v in records(out).items() if k != "game-0099.json"} == whole
    note = json.loads((out / RUNS_FILE).read_text().splitlines()[-1])
    assert note["first"] == 3 and note["run"]["seed"] == 8   # noted again: the next resume reads it


def test_arena_resume_replays_its_records_and_plays_the_damaged_again(tmp_path, capsys):
    save = tmp_path / "arena"
    argv = ["arena", "greedy", "random", "--games", "2", "--quiet", "--save", str(save), "--workers", "1"]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out
    whole = records(save)
    (save / "game-0001.json").write_text("not json")
    assert cli.main(argv + ["--resume"]) == 0
    captured = capsys.readouterr()
    assert "1 already there (1 damaged record set aside as *.damaged, played again), 1 game to play" in captured.err
    assert records(save) == whole
    assert first.splitlines()[0].split(" in ")[0] == captured.out.splitlines()[0].split(" in ")[0]


def test_damaged_shards_are_built_again_and_read_by_name(tmp_path):
    plan = DataPlan(games=3, per_shard=1, players=2, bots=("greedy", "greedy"), seed=4)
    out = tmp_path / "data"
    generate(plan, out)
    whole = load_dataset(out)
    shard_path(out, 1).write_bytes(shard_path(out, 1).read_bytes()[:100])    # cut short: no zip
    with pytest.raises(BarcelonaError, match=r"shard-00002\.npz: not a whole dataset shard"):
        load_dataset(out)
    np.savez_compressed(shard_path(out, 2), game=np.zeros(1))               # a zip without the columns
    generate(plan, out)
    again = load_dataset(out)
    assert all(np.array_equal(whole[c], again[c]) for c in whole)
    assert sorted(p.name for p in out.glob("*.damaged")) == ["shard-00002.npz.damaged", "shard-00003.npz.damaged"]


DRIVER = """
import sys
from barcelona_ai.workflows.arena import run_jobs
from barcelona_ai.workflows.selfplay import _job
from barcelona_ai.rules.tables import load_edition
jobs = [(["ismcts:100000", "ismcts:100000"], s, s, "random", load_edition("default")) for s in range(2)]
print("started", flush=True)
for _ in run_jobs(_job, jobs, workers=2):
    pass
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")
def test_worker_processes_end_when_their_driver_is_killed(tmp_path):
    driver = subprocess.Popen([sys.executable, "-c", DRIVER], stdout=subprocess.PIPE, text=True)
    workers: list[int] = []
    try:
        assert driver.stdout.readline().strip() == "started"
        for _ in range(100):                                  # the pool's processes start
            workers = _children(driver.pid)
            if len(workers) >= 2:
                break
            time.sleep(0.1)
        assert len(workers) >= 2
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "a worker outlived its driver"
    finally:
        for w in workers + _children(driver.pid):
            if _alive(w):
                os.kill(w, signal.SIGKILL)
        driver.kill()
        driver.wait(timeout=10)


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
