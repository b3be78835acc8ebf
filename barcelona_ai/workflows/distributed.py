"""Ray glue: the games of ``selfplay``, ``arena`` and ``generate`` as Ray tasks (optional extra ``[ray]``).

``--ray`` on those commands names where the tasks run:

* ``local``: a Ray instance started in this process with ``--workers`` CPUs, stopped at the end (one machine,
  and the tests);
* ``auto``: the Ray cluster this machine belongs to (``ray start --head`` here, ``ray start --address=HEAD:6379``
  on the other machines);
* ``HOST:PORT`` (the head's address) or ``ray://HOST:PORT`` (Ray Client).

A task is one job of the local-process run (a game, or a shard of a dataset) calling the same module-level
function, so a game is the same on a Ray worker as in a local process: it depends only on the bot specs and its
seeds. The driver (this process) takes each result once, as tasks finish, and alone writes the output files;
a task whose worker dies (a killed process, a lost node) is run again by Ray (``max_retries``), and the driver
still takes exactly one result for it. The workers need the package installed (and the files a job reads, as
``generate --records``, at the same path).

Ray is imported only here and only when ``--ray`` is given: the base install never needs it. Its dashboard and
usage statistics are off, and its own messages (a worker that died, a retried task) go to its session logs
(``/tmp/ray/session_latest/logs``), not to the terminal. A ``local`` instance's processes end with the driver
even when it is killed (a watch process, on Linux).
"""
from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..errors import BarcelonaError

MAX_RETRIES = 3                 # runs of a task after its worker died (Ray's own default, stated)
WAIT_SECONDS = 0.25             # how long the driver waits for results at a time (Ctrl-C stays prompt)
CONNECT_SECONDS = 10.0          # to reach a cluster's head
WAIT_BATCH = 64                 # results the driver takes at once at most
WATCH_SECONDS = 0.5             # how often a local instance's watch notes the driver's processes
INSTALL_HINT = "install the [ray] extra: pip install 'barcelona_ai[ray]'"
_ADDRESS = re.compile(r"(ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*):(\d{1,5})")


def check_address(address: str, option: str = "--ray") -> str:
    """`address` if it is ``local``, ``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``; else a BarcelonaError."""
    if address in ("local", "auto"):
        return address
    m = _ADDRESS.fullmatch(address or "")
    if m is None or not 1 <= int(m.group(3)) <= 65535:
        shown = address if len(address or "") <= 60 else address[:57] + "..."
        raise BarcelonaError(f"{option}: expected local, auto, HOST:PORT or ray://HOST:PORT, not {shown!r}")
    return address


def require_ray(option: str = "--ray"):
    """The ray module, or a BarcelonaError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise BarcelonaError(f"{option} needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


def _check_reachable(address: str, option: str) -> None:
    """A BarcelonaError at once if nothing answers at HOST:PORT (Ray itself would retry for minutes)."""
    m = _ADDRESS.fullmatch(address)
    host, port = m.group(2).strip("[]"), int(m.group(3))
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        raise BarcelonaError(f"{option} {address}: nothing answers there ({exc.strerror or exc}); is the Ray "
                             f"cluster started (ray start --head)?") from None


def _init_options(address: str, num_cpus: int) -> dict[str, Any]:
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address.startswith("ray://"):
        return {"address": address, **quiet}
    opts: dict[str, Any] = {"include_dashboard": False, **quiet}
    if address == "local":
        opts["num_cpus"] = num_cpus
    else:
        opts["address"] = address
    return opts


@contextmanager
def session(address: str, num_cpus: int = 1, option: str = "--ray") -> Iterator[Any]:
    """Ray connected for the `with` body (yields the ray module): a local instance of `num_cpus` CPUs for
    ``local``, else the cluster at `address`; disconnected (a local instance stopped) at the end. A session
    already open in this process (ray.init called before) is used as it is and left open."""
    check_address(address, option)
    ray = require_ray(option)
    if ray.is_initialized():
        yield ray
        return
    if address not in ("local", "auto"):
        _check_reachable(address, option)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        ray.init(**_init_options(address, num_cpus))
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise BarcelonaError(f"{option} {address}: cannot start or reach Ray ({first})") from None
    restore = _messages_to_logs(ray)
    watch = _start_watch() if address == "local" else None
    try:
        yield ray
    finally:
        restore()
        ray.shutdown()
        if watch is not None:
            watch.kill()
            watch.wait()


def _start_watch() -> "subprocess.Popen | None":
    """A process that ends the local Ray instance's processes if this driver is killed (``ray.shutdown`` never
    runs then, and the agents Ray's raylet started outlive it for good); None where there is no /proc."""
    if not sys.platform.startswith("linux"):
        return None
    code = f"from barcelona_ai.workflows.distributed import watch_driver; watch_driver({os.getpid()})"
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def watch_driver(driver: int, every: float = WATCH_SECONDS) -> None:
    """While process `driver` lives, note its descendants (by pid and start time) every `every` seconds; once
    it is gone, kill the ones last noted that are still the same processes (Linux: reads /proc)."""
    noted: dict[int, str] = {}
    while _start_time(driver) is not None:
        noted = {pid: start for pid, start in _descendants(driver).items() if pid != os.getpid()}
        time.sleep(every)
    for pid, start in noted.items():
        if _start_time(pid) == start:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _stat(pid: int) -> "list[str] | None":
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _start_time(pid: int) -> "str | None":
    """The start time of process `pid` (a pid reused by another process has another), None if it is gone."""
    fields = _stat(pid)
    return fields[19] if fields is not None and fields[0] != "Z" else None


def _descendants(root: int) -> dict[int, str]:
    children: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
            starts[int(entry.name)] = fields[19]
    out, todo = {}, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if pid not in out and pid in starts:
            out[pid] = starts[pid]
            todo.extend(children.get(pid, []))
    return out


def _messages_to_logs(ray) -> Callable[[], None]:
    """Keep the messages Ray's driver thread prints about workers and tasks (a dead worker, a retry: tens of
    lines each) off the terminal; they are in the session logs. Returns the function that puts it back. Ray
    has no setting for this thread, so its printing function is replaced while the session is open (nothing
    is replaced if a Ray version has no such function)."""
    worker = getattr(getattr(ray, "_private", None), "worker", None)
    original = getattr(worker, "print_to_stdstream", None)
    if original is None:
        return lambda: None
    log = logging.getLogger(__name__)

    def to_log(data, *args, **kwargs):
        for line in data.get("lines", []) if isinstance(data, dict) else []:
            log.debug("ray: %s", line)

    worker.print_to_stdstream = to_log
    return lambda: setattr(worker, "print_to_stdstream", original)


def run_tasks(fn: Callable, jobs: Sequence, address: str = "auto", num_cpus: int = 1,
              name: str = "barcelona") -> Iterator[tuple[int, Any]]:
    """fn(job) for every job as Ray tasks (named `name`, one CPU each, retried when a worker dies): yields
    (index of the job, its result) as the tasks finish, each job exactly once. `fn` must be a module-level
    function (the workers import it). An exception of fn is raised here (as its own class); on any exception
    or when the caller stops early, the tasks still running are cancelled."""
    with session(address, num_cpus) as ray:
        remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(fn)
        refs = {remote.options(name=name).remote(job): i for i, job in enumerate(jobs)}
        try:
            yield from _as_finished(ray, refs)
        finally:
            for ref in refs:
                ray.cancel(ref, force=True)


def _as_finished(ray, refs: dict) -> Iterator[tuple[int, Any]]:
    """(index, result) of the tasks `refs` (ref -> index) as they finish; a taken ref leaves `refs`."""
    while refs:
        ready, _ = ray.wait(list(refs), num_returns=min(len(refs), WAIT_BATCH), timeout=WAIT_SECONDS)
        for ref in ready:
            i = refs[ref]
            try:
                result = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:            # fn raised: raise that exception here
                cause = getattr(exc, "cause", None)
                raise (cause if isinstance(cause, Exception) else exc.as_instanceof_cause()) from None
            except ray.exceptions.RayError as exc:
                raise BarcelonaError(f"Ray could not run job {i + 1} ({type(exc).__name__}: "
                                     f"{(str(exc).strip().splitlines() or [''])[0]})") from None
            del refs[ref]
            yield i, result


__all__ = ["MAX_RETRIES", "check_address", "require_ray", "session", "run_tasks"]
