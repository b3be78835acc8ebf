"""selfplay, arena and generate on Ray (barcelona_ai/workflows/distributed.py): on a local 2-CPU Ray instance the
records, match results and dataset shards equal those of the local-process run for the same seeds, game by
game; a Ray worker process killed (SIGKILL) while it plays a game is retried, and every game is still written
exactly once; an interrupted run resumes (selfplay and arena --resume, generate by its shards); Ray is imported
only when --ray is given, and a bad --ray is one error line that changes nothing.

The Ray tests are skipped where Ray is not installed (the [ray] extra; CI installs it). Games are cheap
(ismcts:40, greedy, random) so that the file runs in well under two minutes on two cores; most of that is
starting Ray (twice: once by the command line, once for the rest of the module).
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from barcelona_ai.cli import main as cli
from barcelona_ai.workflows.arena import RUNS_FILE, match
from barcelona_ai.training.datagen import DataPlan, generate, load_dataset, shard_path
from barcelona_ai.rules.tables import load_edition
from barcelona_ai.errors import BarcelonaError
from barcelona_ai.workflows.selfplay import run_selfplay

try:
    import ray  # noqa: F401
    HAVE_RAY = True
except ImportError:
    HAVE_RAY = False
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (the [ray] extra)")

SPECS = ["ismcts:40", "ismcts:40"]
SEED = 21
GAMES = 6


def files(folder: Path) -> dict[str, bytes]:
    """The game records of a folder: name -> bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.glob("game-*.json"))}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> dict[str, bytes]:
    """The reference: the games of SPECS from SEED played in this process."""
    out = tmp_path_factory.mktemp("local")
    run_selfplay(SPECS, GAMES, SEED, out, workers=1)
    return files(out)


# ------------------------------------------------------------------------------------------------------------
# the command line: starts and stops its own local Ray (first, before the module's shared instance)

@needs_ray
def test_selfplay_on_ray_from_the_command_line_writes_the_local_records_and_nothing_else(local_run, tmp_path,
                                                                                         capfd):
    out = tmp_path / "ray"
    argv = ["selfplay", "--games", str(GAMES), "--seed", str(SEED), "--bot", SPECS[0], "--out", str(out),
            "--ray", "local", "--workers", "2"]
    assert cli.main(argv) == 0
    cap = capfd.readouterr()
    assert files(out) == local_run                                    # byte-identical, game by game
    assert cap.err == ""                                              # Ray's own messages stay in its logs
    assert "on Ray (local)" in cap.out and f"{GAMES} records written" in cap.out
    lines = [ln for ln in cap.out.splitlines() if ln.startswith("game-")]
    assert sorted(ln.split(":")[0] for ln in lines) == sorted(local_run)          # each reported once
    assert not ray.is_initialized()                                   # the command stopped its Ray


# ------------------------------------------------------------------------------------------------------------
# resume on local processes, errors, and no Ray unless asked (before the module's Ray instance: a session
# already open is used whatever --ray says)

def test_selfplay_resume_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "games"
    argv = ["selfplay", "--games", "4", "--bot", "greedy", "--seed", "8", "--out", str(out), "--workers", "2"]
    assert cli.main(argv) == 0
    whole = files(out)
    (out / "game-0002.json").unlink()
    (out / "game-0004.json").unlink()
    capsys.readouterr()
    assert cli.main(argv + ["--resume"]) == 0
    text = capsys.readouterr().out
    assert "2 already there, 2 games to play" in text and "2 records written" in text
    assert files(out) == whole
    note = json.loads((out / RUNS_FILE).read_text().splitlines()[0])
    default = load_edition("default")
    assert note == {"run": {"command": "selfplay", "bots": ["greedy", "greedy"], "seed": 8, "games": 4,
                            "setup": "random", "edition": {"name": "default", "sha256": default.sha256}},
                    "first": 1}
    assert cli.main(argv[:-4] + ["--seed", "9", "--out", str(out), "--resume"]) == 0      # another run: new files
    assert "holds no earlier run of these games" in capsys.readouterr().out
    assert len(files(out)) == 8
    (out / "game-0006.json").write_bytes((out / "game-0001.json").read_bytes())   # a folder changed under the run
    (out / "game-0007.json").unlink()
    assert cli.main(argv[:-4] + ["--seed", "9", "--out", str(out), "--resume"]) == 2
    assert "game-0006.json is not the game of this run" in capsys.readouterr().err


def test_arena_resume_of_a_saved_match_with_another_game_count_is_refused(tmp_path, capsys):
    save = tmp_path / "arena"
    argv = ["arena", "greedy", "random", "--games", "2", "--quiet", "--save", str(save), "--workers", "1"]
    assert cli.main(argv + ["--resume"]) == 0                                # nothing there yet: it starts
    assert f"--resume: {save} holds no earlier run of these games; starting it" in capsys.readouterr().err
    runs = (save / RUNS_FILE).read_text()
    argv[argv.index("--games") + 1] = "4"
    assert cli.main(argv + ["--resume"]) == 2                                # the run it means, with 2 games
    err = capsys.readouterr().err
    assert f"error: --resume: {save} holds this run with 2 games, not 4: resume it with --games 2" in err
    assert sorted(files(save)) == ["game-0001.json", "game-0002.json"] and (save / RUNS_FILE).read_text() == runs
    assert cli.main(argv) == 0                                               # without --resume: a new run after
    assert f"{save} already holds records up to game-0002.json: the new ones start at game-0003.json\n" \
        in capsys.readouterr().err
    assert len(files(save)) == 6


def test_the_run_notes_survive_a_damaged_runs_file(tmp_path):
    from barcelona_ai.workflows.arena import run_files
    (tmp_path / RUNS_FILE).write_text('5\n"x"\nnot json\n{"run": {"a": 1}, "first": true}\n{"run": {"a": 1')
    paths, resumed = run_files(tmp_path, {"a": 1}, 2, resume=True)          # nothing usable: a new run
    assert not resumed and [p.name for p in paths] == ["game-0001.json", "game-0002.json"]
    (tmp_path / "game-0001.json").write_text("{}")
    paths, resumed = run_files(tmp_path, {"a": 2}, 1)
    assert not resumed and paths[0].name == "game-0002.json"
    assert run_files(tmp_path, {"a": 1}, 2, resume=True) == ([tmp_path / "game-0001.json",
                                                              tmp_path / "game-0002.json"], True)
    lines = (tmp_path / RUNS_FILE).read_text().splitlines()
    assert [json.loads(ln) for ln in lines[-2:]] == [{"run": {"a": 1}, "first": 1}, {"run": {"a": 2}, "first": 2}]


@pytest.mark.parametrize("argv,needle", [
    (["selfplay", "--out", "{tmp}/x", "--bot", "random", "--ray", "not an address"],
     "error: --ray: expected local, auto, HOST:PORT or ray://HOST:PORT, not 'not an address'"),
    (["selfplay", "--out", "{tmp}/x", "--bot", "random", "--ray", "127.0.0.1:1"],
     "error: --ray 127.0.0.1:1: nothing answers there"),
    (["selfplay", "--out", "{tmp}/x", "--bot", "random", "--resume", "--force"],
     "error: --resume and --force do not go together"),
    (["arena", "random", "random", "--resume"], "error: --resume needs --save DIR"),
    (["arena", "random", "random", "--save", "{tmp}/x", "--ray", "local:99999"], "error: --ray: expected"),
    (["generate", "--out", "{tmp}/x", "--games", "1", "--ray", "ray://"], "error: --ray: expected"),
])
def test_bad_ray_and_resume_options_are_one_error_line_and_create_nothing(argv, needle, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if not HAVE_RAY and "--ray" in argv and "expected" not in needle:
        pytest.skip("needs Ray")
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(needle), err
    assert not (tmp_path / "x").exists()


def test_ray_missing_says_which_extra_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)                        # `import ray` fails as if not installed
    assert cli.main(["selfplay", "--out", str(tmp_path / "x"), "--bot", "random", "--ray", "auto"]) == 2
    err = capsys.readouterr().err
    assert "--ray needs Ray, which is not installed: install the [ray] extra" in err
    assert not (tmp_path / "x").exists()
    from barcelona_ai.workflows.distributed import require_ray
    with pytest.raises(BarcelonaError, match=r"pip install 'barcelona_ai\[ray\]'"):
        require_ray()


def test_the_commands_import_ray_only_when_asked(tmp_path):
    code = ("import sys; from barcelona_ai.cli import main as cli; "
            f"assert cli.main(['selfplay', '--games', '2', '--bot', 'random', '--out', {str(tmp_path)!r}, "
            "'--workers', '2']) == 0; "
            "import barcelona_ai.workflows.arena, barcelona_ai.training.datagen; "
            "bad = sorted(m for m in sys.modules "
            "if m == 'ray' or m.startswith(('ray.', 'barcelona_ai.workflows.distributed'))); "
            "assert not bad, bad")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


# ------------------------------------------------------------------------------------------------------------
# one local 2-CPU Ray instance for the rest of the module (the functions use a session already open)

@pytest.fixture(scope="module")
def cluster():
    from barcelona_ai.workflows.distributed import session
    with session("local", 2):
        yield


def _ancestors(pid: int) -> set[int]:
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return seen


def task_pids(name: str) -> list[int]:
    """The worker processes of this process's Ray that run a task called `name` now (Ray titles a worker
    'ray::<task name>' while it runs one)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                title = f.read().split(b"\0")[0].decode(errors="replace").strip()
        except OSError:
            continue
        if title == f"ray::{name}" and os.getpid() in _ancestors(int(entry)):
            out.append(int(entry))
    return out


class Killer(threading.Thread):
    """SIGKILLs up to `times` Ray workers while they run a `name` task, one at a time."""

    def __init__(self, name: str, times: int):
        super().__init__(daemon=True)
        self.name_, self.times, self.killed, self.stop = name, times, [], threading.Event()

    def run(self):
        while not self.stop.is_set() and len(self.killed) < self.times:
            pids = [p for p in task_pids(self.name_) if p not in self.killed]
            if pids:
                time.sleep(0.05)                                      # well inside its game
                if pids[0] in task_pids(self.name_):
                    os.kill(pids[0], signal.SIGKILL)
                    self.killed.append(pids[0])
            time.sleep(0.01)


@needs_ray
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds Ray's workers in /proc")
def test_a_worker_killed_mid_game_is_retried_and_every_game_is_written_once(cluster, local_run, tmp_path):
    out = tmp_path / "ray"
    out.mkdir()
    reported = []
    killer = Killer("barcelona-selfplay", times=2)
    killer.start()
    try:
        run = run_selfplay(SPECS, GAMES, SEED, out, workers=2, ray="local",
                           on_game=lambda g, game, path: reported.append(g))
    finally:
        killer.stop.set()
        killer.join()
    assert len(killer.killed) == 2                                    # two workers died inside a game
    assert sorted(reported) == list(range(1, GAMES + 1))              # every game once, none lost
    assert [g.setup_seed for g in run.games] == list(range(SEED, SEED + GAMES))
    assert files(out) == local_run                                    # the retried games are the same games


@needs_ray
def test_an_interrupted_ray_run_resumes_and_plays_only_the_missing_games(cluster, local_run, tmp_path):
    out = tmp_path / "ray"
    out.mkdir()

    def ctrl_c_after_two(g, game, path, seen=[]):
        seen.append(g)
        if len(seen) == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_selfplay(SPECS, GAMES, SEED, out, workers=2, ray="local", on_game=ctrl_c_after_two)
    assert len(files(out)) == 2 and not list(out.glob(".*partial"))   # whole records only
    run = run_selfplay(SPECS, GAMES, SEED, out, workers=2, ray="local", resume=True)
    assert len(run.kept) == 2 and len(run.games) == GAMES - 2
    assert files(out) == local_run
    assert len((out / RUNS_FILE).read_text().splitlines()) == 1       # the same run, noted once
    again = run_selfplay(SPECS, GAMES, SEED, out, ray="local", resume=True)
    assert again.games == [] and len(again.kept) == GAMES             # nothing left to play


def _same_match(a, b) -> bool:
    fields = dict(vars(a), seconds=0)
    return fields == dict(vars(b), seconds=0)


@needs_ray
def test_arena_on_ray_equals_the_local_match_and_resumes(cluster, tmp_path):
    args = dict(players=2, games=6, seed=5, progress=False)
    (tmp_path / "local").mkdir()
    (tmp_path / "ray").mkdir()
    local = match("greedy", "ismcts:40", workers=2, save=str(tmp_path / "local"), **args)
    on_ray = match("greedy", "ismcts:40", workers=2, save=str(tmp_path / "ray"), ray="local", **args)
    assert _same_match(local, on_ray)
    assert files(tmp_path / "ray") == files(tmp_path / "local")
    for name in ("game-0002.json", "game-0005.json"):                  # an interrupted match: two games missing
        (tmp_path / "ray" / name).unlink()
    resumed = match("greedy", "ismcts:40", workers=2, save=str(tmp_path / "ray"), ray="local", resume=True, **args)
    assert _same_match(local, resumed)
    assert files(tmp_path / "ray") == files(tmp_path / "local")


def _same_data(a, b) -> bool:
    return set(a) == set(b) and all(np.array_equal(a[c], b[c]) for c in a)


@needs_ray
def test_generate_on_ray_writes_the_local_shards_and_resumes(cluster, tmp_path):
    plan = DataPlan(games=5, per_shard=2, players=2, bots=("greedy", "random"), seed=3)
    generate(plan, tmp_path / "local", workers=1)
    done = []
    generate(plan, tmp_path / "ray", workers=2, ray="local", on_shard=lambda k, n: done.append((k, n)))
    assert sorted(done) == [(0, 2), (1, 2), (2, 1)]
    assert _same_data(load_dataset(tmp_path / "local"), load_dataset(tmp_path / "ray"))
    shard_path(tmp_path / "ray", 1).unlink()
    done.clear()
    generate(plan, tmp_path / "ray", ray="local", on_shard=lambda k, n: done.append((k, n)))
    assert done == [(1, 2)]
    assert _same_data(load_dataset(tmp_path / "local"), load_dataset(tmp_path / "ray"))


@needs_ray
def test_arena_and_generate_commands_take_ray(cluster, tmp_path, capsys):
    save = tmp_path / "arena"
    argv = ["arena", "greedy", "random", "--games", "4", "--quiet", "--save", str(save), "--ray", "local"]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert cli.main(argv[:-2] + ["--workers", "1"]) == 0                # local processes: the same line
    assert capsys.readouterr().out.splitlines()[0] == first
    assert len(files(save)) == 8
    (save / "game-0007.json").unlink()
    assert cli.main(argv + ["--resume"]) == 0                 # the last match of these games (runs.jsonl) again
    assert capsys.readouterr().out.splitlines()[0] == first and len(files(save)) == 8
    data = tmp_path / "data"
    assert cli.main(["generate", "--out", str(data), "--games", "3", "--bot", "random", "--per-shard", "2",
                     "--ray", "local"]) == 0
    assert len(load_dataset(data)["game"]) > 0 and shard_path(data, 1).exists()


@needs_ray
def test_rays_reports_of_dead_workers_stay_off_the_terminal(cluster, capfd):
    from ray._private import worker                     # the driver thread's printer (distributed._messages_to_logs)
    worker.print_to_stdstream({"lines": ["A worker died or was killed while executing a task"], "is_err": True,
                               "pid": "raylet", "ip": "127.0.0.1", "task_name": None, "actor_name": None},
                              ignore_prefix=False)
    assert capfd.readouterr().err == ""


RAY_DRIVER = """
import time
from barcelona_ai.workflows.distributed import session
with session("local", 1):
    print("started", flush=True)
    time.sleep(300)
"""


def _ray_processes_under(root: int) -> dict[int, str]:
    """The descendants of process `root` (pid -> command line), from /proc."""
    parent, cmd = {}, {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmd[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, IndexError, ValueError):
                continue
    out, todo = {}, [p for p, pp in parent.items() if pp == root]
    while todo:
        pid = todo.pop()
        out[pid] = cmd.get(pid, "")
        todo.extend(p for p, pp in parent.items() if pp == pid)
    return out


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@needs_ray
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")
def test_a_killed_drivers_local_ray_ends_with_it_agents_included():
    """A SIGKILLed driver never runs ray.shutdown; its local instance's processes (the raylet's agents too,
    which outlive the raylet) end anyway."""
    driver = subprocess.Popen([sys.executable, "-c", RAY_DRIVER], stdout=subprocess.PIPE, text=True)
    under: dict[int, str] = {}
    try:
        assert driver.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("Agent" in c for c in under.values()):
            time.sleep(0.5)
            under = _ray_processes_under(driver.pid)
        assert any("Agent" in c for c in under.values()), under
        time.sleep(2)                                          # the watch notes them (every 0.5 s)
        under = _ray_processes_under(driver.pid)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(p) for p in under):
            time.sleep(0.2)
        assert not [c for p, c in under.items() if _alive(p)], "outlived their driver"
    finally:
        for pid in under:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        driver.kill()
        driver.wait(timeout=10)
