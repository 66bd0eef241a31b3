"""The two passes of an import over its worker pool: first each new file's thumbnail, hash, metadata
and marks (the grid is complete when it ends), then the technical checks and faces, written and
announced in small batches as they arrive."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.library_checks import check_row
from aesthete_gui.services.library_pool import WorkerPool
from aesthete_gui.services.library_scan import FoundFile, display_path
from aesthete_gui.services.library_worker import (
    CheckOutcome,
    FileOutcome,
    check_file,
    failed_outcome,
    process_file,
)
from aesthete_gui.store.checks import CheckRow

if TYPE_CHECKING:
    from aesthete_gui.services.library import _Importer as Importer
else:
    Importer = Any

BATCH_SIZE = 16
"""Results per committed transaction: a kill -9 loses at most this many files' work."""
BATCH_SECONDS = 1.0
"""A partial batch is written after this long, so slow files still reach the profile promptly."""
SERIAL_BELOW = 4
"""Fewer files than this are processed in this process (starting workers would cost more)."""


def read_files(
    importer: Importer,
    work: list[tuple[FoundFile, int]],
    pool: WorkerPool,
    progress: ProgressCallback,
    cancel: CancelToken | None,
) -> None:
    """The first pass: each file's hash, metadata, thumbnail and marks (checks only with features,
    which decode at the size the checks need anyway)."""
    total = len(work)
    done = 0
    with_checks = importer.features

    def arrived(item: tuple[FoundFile, int], outcome: FileOutcome | None, problem: str | None = None) -> None:
        nonlocal done
        importer.add(item[0], item[1], outcome, problem)
        done += 1
        progress(Progress(done, total, f"reading {display_path(item[0].path)}"))

    def failed(item: tuple[FoundFile, int], error: BaseException | None) -> None:
        if error is None:
            arrived(item, None, "the decoder crashed on this file")
        else:
            arrived(item, failed_outcome(item[0].path, error))

    if pool.workers <= 1 or len(work) < SERIAL_BELOW:
        for found, folder_id in work:
            if cancel is not None and cancel.cancelled:
                return
            arrived((found, folder_id), process_file(found.path, importer.cache_dir, importer.features,
                                                     importer.previews, with_checks))  # fmt: skip
        return
    pool.run(work, process_file,
             lambda item: (item[0].path, importer.cache_dir, importer.features, importer.previews, with_checks),
             arrived, failed, cancel)  # fmt: skip


def check_files(
    importer: Importer,
    work: list[tuple[int, str]],
    pool: WorkerPool,
    progress: ProgressCallback,
    cancel: CancelToken | None,
) -> None:
    """The second pass: faces and technical checks of (image id, path), written and announced in small
    batches as they arrive, so verdicts appear while the user already browses the thumbnails."""
    total = len(work)
    done = 0
    batch: list[CheckRow] = []
    started = time.monotonic()

    def write() -> None:
        nonlocal batch, started
        if batch:
            rows, batch = batch, []
            importer.profile.checks.put_many(rows)  # one transaction, one ChecksMeasured event
        started = time.monotonic()

    def arrived(item: tuple[int, str], outcome: CheckOutcome) -> None:
        nonlocal done
        if outcome.analysis is not None:
            batch.append(check_row(item[0], outcome.analysis))
        else:
            importer.summary.problems.append((item[1], f"checks not measured: {outcome.error}"))
        if len(batch) >= BATCH_SIZE or time.monotonic() - started > BATCH_SECONDS:
            write()
        done += 1
        progress(Progress(done, total, f"checking {item[1]}"))

    def failed(item: tuple[int, str], error: BaseException | None) -> None:
        reason = "the decoder crashed on this file" if error is None else f"{type(error).__name__}: {error}"
        arrived(item, CheckOutcome(error=reason))

    try:
        if pool.workers <= 1 or len(work) < SERIAL_BELOW:
            for item in work:
                if cancel is not None and cancel.cancelled:
                    return
                arrived(item, check_file(item[1]))
            return
        pool.run(work, check_file, lambda item: (item[1],), arrived, failed, cancel)
    finally:
        write()
