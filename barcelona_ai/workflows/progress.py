"""Progress bars on stderr for the long commands (tqdm): the iterations of a search with the elapsed time and
the time left (hint, analyse, eval and the hints of play/table), the decisions of a review, the games of
selfplay and arena.

Every bar is silent when its stream is not a terminal (tqdm's ``disable=None``), so piped and captured output
never holds one, and a search bar appears only once the search has run a second (``delay``): quick answers stay
clean. A bar is removed when its work is done (``leave=False``).

A search is not changed by its bar: the call runs in the calling thread as before (Ctrl-C still interrupts
it), and a thread reads how many iterations the engine has run (Engine.iterations_searched; nothing that
decides anything) a few times a second.
"""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

from tqdm import tqdm

# No tqdm monitor thread: a thread that outlives the bars can receive a Ctrl-C meant for the main thread, which
# then waits at a prompt (input) without ever seeing it; the bars here are updated by their own loop anyway.
tqdm.monitor_interval = 0

SEARCH_DELAY = 1.0          # seconds a search runs before its bar appears


def _stream(stream):
    return sys.stderr if stream is None else stream


def _quiet(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return not (isatty and isatty())
    except (OSError, ValueError):
        return True


@contextmanager
def bar(total: int, desc: str, unit: str = "it", enabled: bool = True, stream=None, delay: float = 0.0):
    """A counting bar: yields tick(n=1, **postfix). Nothing is drawn when not `enabled` or when the stream is
    not a terminal."""
    stream = _stream(stream)
    if not enabled or _quiet(stream):
        yield lambda n=1, **postfix: None
        return
    with tqdm(total=total, desc=desc, unit=unit, file=stream, leave=False, disable=None, delay=delay,
              dynamic_ncols=True) as t:
        def tick(n: int = 1, **postfix) -> None:
            if postfix:
                t.set_postfix(postfix, refresh=False)
            t.update(n)
        yield tick


class SearchProgress:
    """A bar for one or more searches of `engine` under a total budget `limit` (iterations, or time): shows
    the iterations done, the time spent and the time left. Use as a context manager around the engine calls;
    several calls in a row (an evaluation over samples) add up. Afterwards `iterations` holds the iterations
    the searches ran (counted on a terminal or not)."""

    def __init__(self, engine, limit, desc: str = "searching", stream=None, delay: float = SEARCH_DELAY,
                 interval: float = 0.1):
        self.engine = engine
        self.limit = limit
        self.desc = desc
        self.stream = _stream(stream)
        self.delay = delay
        self.interval = interval
        self.active = not _quiet(self.stream)
        self.iterations = 0
        self._start = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "SearchProgress":
        self._start = self.engine.iterations_searched
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._count()

    def _count(self) -> int:
        """Iterations the engine's calls have run since the bar began."""
        self.iterations = self.engine.iterations_searched - self._start
        return self.iterations

    def _bar(self) -> tqdm:
        if self.limit.iterations:
            return tqdm(total=self.limit.iterations, desc=self.desc, unit="it", unit_scale=True, file=self.stream,
                        leave=False, disable=None, delay=self.delay, dynamic_ncols=True)
        return tqdm(total=float(self.limit.time), desc=self.desc, unit="s", file=self.stream, leave=False,
                    disable=None, delay=self.delay, dynamic_ncols=True,
                    bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}")

    def _run(self) -> None:
        start = time.monotonic()
        t = self._bar() if self.active else None
        try:
            while not self._stop.wait(self.interval):
                its = self._count()
                if t is None:
                    continue
                if self.limit.iterations:
                    t.update(min(its, self.limit.iterations) - t.n)
                else:
                    t.set_postfix_str(f"{its:,} iterations", refresh=False)
                    t.update(min(time.monotonic() - start, self.limit.time) - t.n)
        finally:
            if t is not None:
                t.close()


__all__ = ["bar", "SearchProgress", "SEARCH_DELAY"]
