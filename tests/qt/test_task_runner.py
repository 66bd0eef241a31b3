"""The job runner: results, errors, progress and cancel reach the UI thread; GPU jobs serialise."""

from __future__ import annotations

import threading
import time

from aesthete_gui.jobs import Progress
from aesthete_gui.qt.task_runner import JobState, TaskRunner


def _count(n: int, progress, cancel, delay: float = 0.0) -> int:
    for i in range(n):
        cancel.raise_if_cancelled()
        progress(Progress(i + 1, n, f"item {i + 1}"))
        if delay:
            time.sleep(delay)
    return n


def test_result_and_progress_arrive_in_ui_thread(qtbot) -> None:
    runner = TaskRunner()
    seen: list[Progress] = []
    results: list[int] = []
    ui_thread = threading.current_thread()
    callback_threads: list[threading.Thread] = []

    def on_done(value: int) -> None:
        callback_threads.append(threading.current_thread())
        results.append(value)

    handle = runner.submit("count", _count, 500, on_done=on_done)
    handle.progress.connect(seen.append)
    with qtbot.waitSignal(handle.ended, timeout=5000):
        pass
    assert handle.state is JobState.FINISHED
    assert results == [500] and callback_threads == [ui_thread]
    # throttled, but the last report (500 of 500) always arrives
    assert seen and seen[-1].done == 500 and len(seen) < 500
    assert runner.active_jobs() == []
    runner.shutdown()


def test_cancel_stops_a_running_job(qtbot) -> None:
    runner = TaskRunner()
    handle = runner.submit("slow", _count, 10_000, delay=0.001)
    with qtbot.waitSignal(handle.started, timeout=5000):
        pass
    handle.cancel()
    with qtbot.waitSignal(handle.cancelled, timeout=5000):
        pass
    assert handle.state is JobState.CANCELLED
    runner.shutdown()


def test_error_is_reported_not_raised(qtbot) -> None:
    runner = TaskRunner()
    errors: list[BaseException] = []

    def broken(progress, cancel) -> None:
        raise ValueError("disk full")

    handle = runner.submit("broken", broken, on_error=errors.append)
    with qtbot.waitSignal(handle.errored, timeout=5000):
        pass
    assert handle.state is JobState.FAILED
    assert isinstance(errors[0], ValueError) and "disk full" in handle.error_text
    runner.shutdown()


def test_gpu_jobs_run_one_at_a_time(qtbot) -> None:
    runner = TaskRunner(cpu_workers=4)
    lock = threading.Lock()
    running = [0]
    peak = [0]

    def gpu_job(progress, cancel) -> None:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.03)
        with lock:
            running[0] -= 1

    handles = [runner.submit(f"gpu {i}", gpu_job, gpu=True) for i in range(3)]
    qtbot.waitUntil(lambda: all(h.done for h in handles), timeout=5000)
    assert peak[0] == 1
    runner.shutdown()
