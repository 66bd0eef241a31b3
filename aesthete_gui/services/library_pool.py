"""The import's worker processes: one pool kept for both passes of an import (thumbnails, then checks),
started again when a decoder crash breaks it; a file that crashes it twice is given up on."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from aesthete_gui.jobs import CancelToken
from aesthete_gui.services.library_worker import ignore_interrupts

Item = TypeVar("Item")

IN_FLIGHT_PER_WORKER = 4
"""Tasks queued per worker: enough to keep each busy, few enough that cancelling is quick."""


def pool_context() -> multiprocessing.context.BaseContext:
    """Never fork a process that may run Qt or other threads: a fork server where there is one."""
    if sys.platform.startswith("linux"):
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["aesthete_gui.forkserver_guard", "aesthete_gui.services.library_worker"])
        return context
    return multiprocessing.get_context("spawn")


class WorkerPool:
    """Worker processes for one import (`close()` when done); each pass runs through `run`."""

    def __init__(self, workers: int, initializer: Callable[[], None] = ignore_interrupts) -> None:
        self.workers = workers
        self._initializer = initializer
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=pool_context(), initializer=self._initializer
            )
        return self._executor

    def close(self) -> None:
        """Stop the workers (queued tasks are dropped)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _restart(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None

    def run(
        self,
        items: Sequence[Item],
        task: Callable[..., Any],
        arguments: Callable[[Item], tuple[Any, ...]],
        on_result: Callable[[Item, Any], None],
        on_failure: Callable[[Item, BaseException | None], None],
        cancel: CancelToken | None,
    ) -> None:
        """Run `task(*arguments(item))` for every item, calling `on_result(item, result)` in this
        process as results arrive (any order). A result that cannot come back calls
        `on_failure(item, error)`; a file that broke the pool twice `on_failure(item, None)`.
        Cancelling stops submitting, drops what has not started and returns."""
        attempts: dict[int, int] = {}
        queue = list(reversed(range(len(items))))
        while queue:
            in_flight: dict[Future[Any], int] = {}
            broken = False
            while (queue or in_flight) and not broken:
                while queue and len(in_flight) < self.workers * IN_FLIGHT_PER_WORKER and not (cancel and cancel.cancelled):
                    position = queue[-1]
                    try:
                        future = self._pool().submit(task, *arguments(items[position]))
                    except BrokenProcessPool:
                        broken = True
                        break
                    queue.pop()
                    in_flight[future] = position
                if broken or not in_flight:
                    break
                finished, _ = wait(list(in_flight), timeout=0.5, return_when=FIRST_COMPLETED)
                for future in finished:
                    position = in_flight.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        broken = True
                        attempts[position] = attempts.get(position, 0) + 1
                        if attempts[position] >= 2:
                            on_failure(items[position], None)
                        else:
                            queue.append(position)
                        continue
                    except Exception as error:  # a result that cannot come back (e.g. unpicklable)
                        on_failure(items[position], error)
                        continue
                    on_result(items[position], result)
                if cancel is not None and cancel.cancelled and not broken:
                    for future in list(in_flight):
                        if future.cancel():
                            in_flight.pop(future)
                    queue.clear()
            if broken:  # every file still in flight may have been the one that crashed the pool
                for position in in_flight.values():
                    attempts[position] = attempts.get(position, 0) + 1
                    queue.append(position)
                self._restart()
            if cancel is not None and cancel.cancelled:
                break
