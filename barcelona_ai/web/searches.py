"""The web server's searches, bounded server-wide: at most SEARCHES at once (one a core of this machine's two),
at most WAITING more queued behind them first come first served, and any request beyond refused at once (HTTP
503) saying how many are ahead. Whatever one page asks, the server runs a bounded number of searches and holds a
bounded number of threads waiting for them; GET /api/searches tells a page how many are running and waiting.

Imports: errors only (the server runs its searching routes and every analysis report in its slots).
"""
from __future__ import annotations

import threading
from collections import deque
from contextlib import contextmanager
from typing import Iterator

from ..errors import ServerBusy

SEARCHES = 2                        # searches that run at once on the whole server
WAITING = 8                         # searches queued behind them; a request beyond is refused

__all__ = ["SearchSlots", "SEARCHES", "WAITING"]


class SearchSlots:
    """`running` search slots and a queue of at most `waiting` requests for them."""

    def __init__(self, running: int = SEARCHES, waiting: int = WAITING):
        self.size = running
        self.max_waiting = waiting
        self._busy = 0
        self._queue: deque = deque()
        self._cond = threading.Condition()

    def acquire(self) -> None:
        """Take a slot, waiting in line for one; ServerBusy at once when the line is full."""
        with self._cond:
            if self._busy < self.size and not self._queue:
                self._busy += 1
                return
            if len(self._queue) >= self.max_waiting:
                raise ServerBusy(f"the server is busy: {self._busy} searches running and {len(self._queue)} "
                                 "waiting; try again in a moment")
            ticket = object()
            self._queue.append(ticket)
            while not (self._busy < self.size and self._queue[0] is ticket):
                self._cond.wait()
            self._queue.popleft()
            self._busy += 1
            self._cond.notify_all()

    def release(self) -> None:
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    @contextmanager
    def slot(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()

    def status(self) -> dict:
        """How many searches run and wait now (what a page shows while its request waits)."""
        with self._cond:
            return {"running": self._busy, "waiting": len(self._queue), "slots": self.size,
                    "queue": self.max_waiting}
