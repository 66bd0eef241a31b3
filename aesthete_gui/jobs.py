"""Progress reports and cancellation shared by every long-running job (imports nothing of ours)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Progress:
    """How far a job has come: `done` of `total` units (total None when unknown)."""

    done: int
    total: int | None = None
    message: str = ""

    @property
    def fraction(self) -> float | None:
        """Share done in [0, 1], or None when the total is unknown."""
        if not self.total:
            return None
        return min(1.0, max(0.0, self.done / self.total))


ProgressCallback = Callable[[Progress], None]


class Cancelled(Exception):
    """Raised inside a job when its cancel token was set."""


class CancelToken:
    """A thread-safe flag a job polls between units of work."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop at its next check."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once cancel() was called."""
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise Cancelled when cancel() was called."""
        if self._event.is_set():
            raise Cancelled()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking at once on cancel(); True when cancelled."""
        return self._event.wait(seconds)


def finished_or_cancelled(pending: Iterable[Future[Any]], cancel: CancelToken | None, poll_s: float = 0.2) -> set[Future[Any]]:
    """The futures of `pending` done so far, waiting for at least one; Cancelled as soon as `cancel`
    is set (a wait for the first to finish would sit out a server that never answers)."""
    while True:
        if cancel is not None:
            cancel.raise_if_cancelled()
        done, _ = wait(pending, timeout=poll_s, return_when=FIRST_COMPLETED)
        if done:
            return done


def no_progress(_: Progress) -> None:
    """A progress callback that ignores reports."""


NEVER_CANCELLED = CancelToken()


@contextmanager
def request_pool(workers: int, name: str = "") -> Iterator[tuple[ThreadPoolExecutor, CancelToken]]:
    """A thread pool for requests to a server, and a token of the run's own to hand them: when the
    block ends early (a cancel, an error, Ctrl-C) the token is set, so requests in flight stop after
    their current attempt, and the block does not wait for them (a server that never answers held a
    Ctrl-C for every retry of every request in flight)."""
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
    stop = CancelToken()
    finished = False
    try:
        yield pool, stop
        finished = True
    finally:
        if not finished:
            stop.cancel()
        pool.shutdown(wait=finished, cancel_futures=True)
