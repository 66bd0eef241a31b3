"""Runs plain `fn(..., progress, cancel)` jobs off the UI thread and relays their events as Qt signals.

CPU jobs share a small pool of worker threads; every `gpu=True` job runs on one dedicated worker so
that only one job at a time owns the accelerator. Progress is throttled before it crosses to the UI
thread, so a job that reports thousands of units per second cannot flood the event loop.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import Cancelled, CancelToken, Progress

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 0.05
"""At most one progress report per job crosses to the UI thread in this interval (plus the last)."""


class JobState(Enum):
    """Where a job is in its life."""

    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


class JobHandle(QObject):
    """The UI thread's view of one submitted job: its state, last progress and a cancel button."""

    started = Signal()
    progress = Signal(object)  # Progress
    finished = Signal(object)  # the function's return value
    errored = Signal(object)  # the exception
    cancelled = Signal()
    ended = Signal()  # after any of finished / errored / cancelled

    def __init__(
        self, job_id: int, name: str, gpu: bool, visible: bool = True, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.job_id = job_id
        self.name = name
        self.gpu = gpu
        self.visible = visible
        self.token = CancelToken()
        self.state = JobState.QUEUED
        self.last_progress: Progress | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.error_text = ""

    def cancel(self) -> None:
        """Ask the job to stop at its next cancel check (a queued job never starts)."""
        self.token.cancel()

    @property
    def done(self) -> bool:
        """True once the job finished, failed or was cancelled."""
        return self.state in (JobState.FINISHED, JobState.FAILED, JobState.CANCELLED)


class TaskRunner(QObject):
    """Submits jobs to worker threads; lists the running ones; relays their events to the UI thread."""

    job_added = Signal(object)  # JobHandle
    job_ended = Signal(object)  # JobHandle
    _event = Signal(object, str, object)  # handle, kind, payload: worker -> UI thread

    def __init__(self, cpu_workers: int = 2, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cpu = ThreadPoolExecutor(max_workers=cpu_workers, thread_name_prefix="aesthete-cpu")
        self._gpu = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aesthete-gpu")
        self._ids = itertools.count(1)
        self._active: dict[int, JobHandle] = {}
        self._callbacks: dict[int, tuple[Callable | None, Callable | None]] = {}
        self._closed = False
        self._event.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)

    def submit(
        self,
        name: str,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        gpu: bool = False,
        visible: bool = True,
        **kwargs: Any,
    ) -> JobHandle:
        """Run `fn(*args, progress=..., cancel=..., **kwargs)` in a worker; callbacks run in the UI thread.

        `visible=False` keeps short housekeeping jobs (reloading rows) out of the Jobs panel.
        """
        handle = JobHandle(next(self._ids), name, gpu, visible, parent=self)
        self._active[handle.job_id] = handle
        self._callbacks[handle.job_id] = (on_done, on_error)
        self.job_added.emit(handle)
        if self._closed:  # the window is closing: the job ends as cancelled, never starts
            handle.cancel()
            self._event.emit(handle, "cancelled", None)
            return handle
        pool = self._gpu if gpu else self._cpu
        pool.submit(self._run, handle, fn, args, kwargs)
        return handle

    def active_jobs(self) -> list[JobHandle]:
        """The jobs queued or running, oldest first."""
        return list(self._active.values())

    def cancel_all(self) -> None:
        """Ask every queued or running job to stop."""
        for handle in list(self._active.values()):
            handle.cancel()

    def shutdown(self, wait: bool = True) -> None:
        """Cancel everything and stop the worker threads (used when the window closes)."""
        self._closed = True
        self.cancel_all()
        self._cpu.shutdown(wait=wait, cancel_futures=True)
        self._gpu.shutdown(wait=wait, cancel_futures=True)

    # worker side -------------------------------------------------------------------------------

    def _run(self, handle: JobHandle, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
        token = handle.token
        if token.cancelled:
            self._event.emit(handle, "cancelled", None)
            return
        self._event.emit(handle, "started", None)
        throttle = _ProgressThrottle(lambda p: self._event.emit(handle, "progress", p))
        try:
            result = fn(*args, progress=throttle, cancel=token, **kwargs)
        except Cancelled:
            throttle.flush()
            self._event.emit(handle, "cancelled", None)
            return
        except Exception as exc:  # a job's failure is reported, never raised into the pool
            throttle.flush()
            handle.error_text = "".join(traceback.format_exception(exc))
            if isinstance(exc, AestheteError):  # a failure the user can act on: its one line is enough
                log.warning("job %r failed: %s", handle.name, exc)
            else:
                log.warning("job %r failed:\n%s", handle.name, handle.error_text)
            self._event.emit(handle, "errored", exc)
            return
        throttle.flush()
        if token.cancelled:
            self._event.emit(handle, "cancelled", result)
        else:
            self._event.emit(handle, "finished", result)

    # UI side -----------------------------------------------------------------------------------

    @Slot(object, str, object)
    def _dispatch(self, handle: JobHandle, kind: str, payload: Any) -> None:
        if kind == "started":
            handle.state = JobState.RUNNING
            handle.started.emit()
            return
        if kind == "progress":
            if not handle.done:
                handle.last_progress = payload
                handle.progress.emit(payload)
            return
        on_done, on_error = self._callbacks.pop(handle.job_id, (None, None))
        self._active.pop(handle.job_id, None)
        if kind == "finished":
            handle.state = JobState.FINISHED
            handle.result = payload
            if on_done is not None:
                self._call_safely(on_done, payload)
            handle.finished.emit(payload)
        elif kind == "errored":
            handle.state = JobState.FAILED
            handle.error = payload
            if on_error is not None:
                self._call_safely(on_error, payload)
            handle.errored.emit(payload)
        else:
            handle.state = JobState.CANCELLED
            handle.result = payload
            handle.cancelled.emit()
        handle.ended.emit()
        self.job_ended.emit(handle)

    @staticmethod
    def _call_safely(callback: Callable[[Any], None], value: Any) -> None:
        try:
            callback(value)
        except Exception:
            log.exception("job callback failed")


class _ProgressThrottle:
    """A ProgressCallback that forwards at most one report per interval, and always the final one."""

    def __init__(self, forward: Callable[[Progress], None]) -> None:
        self._forward = forward
        self._lock = threading.Lock()
        self._last_sent = 0.0
        self._pending: Progress | None = None

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        with self._lock:
            complete = progress.total is not None and progress.done >= progress.total
            if not complete and now - self._last_sent < PROGRESS_INTERVAL_S:
                self._pending = progress
                return
            self._last_sent = now
            self._pending = None
        self._forward(progress)

    def flush(self) -> None:
        """Forward the last report that was held back, if any."""
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is not None:
            self._forward(pending)
