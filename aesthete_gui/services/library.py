"""Import folders into the profile (parallel, crash-safe, resumable), culling marks with XMP, and export.

An import walks the folders, skips files whose (size, mtime) did not change since the last import
without reading them, and sends the rest to a process pool where each file is read once: hash,
metadata, thumbnails (and features when asked). Results are written in small batches, each its own
committed transaction, so a crash or kill loses at most the batch in flight and the next import
picks up where this one stopped. A file that cannot be imported is stored with status "error" and
the reason; the import goes on.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aesthete_gui.atomic_write import process_stamp
from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.ingest import DISK_FULL
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.safe_text import terminal_text
from aesthete_gui.services.library_checks import check_row
from aesthete_gui.services.library_marks import ExportResult, SidecarNotWritten, export, mark_image
from aesthete_gui.services.library_passes import BATCH_SECONDS, BATCH_SIZE, check_files, read_files
from aesthete_gui.services.library_pool import WorkerPool
from aesthete_gui.services.library_scan import (
    FoundFile,
    display_path,
    normalize_root,
    own_files,
    scan_folder,
    under,
)
from aesthete_gui.services.library_upkeep import (
    GROUPING_STATE,
    regroup_bursts,
    tidy_thumbnail_cache,
)
from aesthete_gui.services.library_worker import FileOutcome
from aesthete_gui.settings import thumbnail_cache_dir
from aesthete_gui.store import ImageUpdate, Profile
from aesthete_gui.store.catalog import insert_features
from aesthete_gui.store.checks import insert_checks
from aesthete_gui.store.grouping import insert_signatures
from aesthete_gui.store.records import ImageStatus

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "GROUPING_STATE",
    "ExportResult",
    "ImportSummary",
    "SidecarNotWritten",
    "export",
    "import_folders",
    "mark_image",
    "regroup_bursts",
    "resolve_image",
    "tidy_thumbnail_cache",
]


@dataclass
class ImportSummary:
    """What an import did."""

    found: int = 0
    imported: int = 0
    unchanged: int = 0
    errors: int = 0
    moved: int = 0
    missing: int = 0
    marks_from_xmp: int = 0
    sidecar_conflicts: int = 0
    bursts: int = 0
    videos: int = 0
    """Video files found and left out (a camera card's clips): Aesthete imports photographs."""
    folders_not_found: list[str] = field(default_factory=list)
    """Folders a rescan left out because they are not there (an unplugged drive)."""
    browsable_seconds: float = 0.0
    """From the start until every file read was in the profile with its thumbnail (the grid complete)."""
    checked_seconds: float = 0.0
    """From the start until the last checks and faces were stored."""
    sidecar_problems: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0
    run_id: int | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)


class CacheDiskFullError(AestheteError):
    """The disk holding the thumbnail cache is full: the import stops (the run ends "failed")."""


def _disk_full(outcome: FileOutcome) -> bool:
    return outcome.ingest.error_kind == DISK_FULL


class _Importer:
    """State of one import run: the batch being collected and the running counts."""

    def __init__(
        self, profile: Profile, cache_dir: str, features: bool, previews: bool, summary: ImportSummary
    ) -> None:
        self.profile = profile
        self.cache_dir = cache_dir
        self.features = features
        self.previews = previews
        self.summary = summary
        self.batch: list[tuple[FoundFile, int, FileOutcome | None, str | None]] = []
        self.batch_started = time.monotonic()
        self.seen: set[str] = set()
        self.sidecar_folders: set[str] = set()
        """Folders where the walk saw an XMP file: only images there can have a sidecar to sync."""
        self.read_ids: list[tuple[int, str]] = []
        """(image id, path) of every file read and stored as ok (their checks come in the second pass)."""
        self.started = time.monotonic()
        """Folders where the walk saw an XMP file: only images there can have a sidecar to sync."""

    def add(self, found: FoundFile, folder_id: int, outcome: FileOutcome | None, problem: str | None) -> None:
        """Queue one file's result; writes the batch when it is full or old enough."""
        if not self.batch:
            self.batch_started = time.monotonic()
        self.batch.append((found, folder_id, outcome, problem))
        if len(self.batch) >= BATCH_SIZE or time.monotonic() - self.batch_started > BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the queued results: one transaction for the images, one for their features."""
        if not self.batch:
            return
        batch, self.batch = self.batch, []
        # the photograph is fine and the disk is not: no error row, the import stops, a rerun reads it
        full = [o.ingest.error for _, _, o, _ in batch if o is not None and _disk_full(o)]
        batch = [item for item in batch if item[2] is None or not _disk_full(item[2])]
        if batch:
            self._write(batch)
        if full:
            raise CacheDiskFullError(f"import stopped: {full[0]}; free some space there and import again "
                                     "(every photograph read so far is kept)")  # fmt: skip

    def _write(self, batch: list[tuple[FoundFile, int, FileOutcome | None, str | None]]) -> None:
        """Write results in one transaction (images, their features, checks and signatures)."""
        updates: list[ImageUpdate] = []
        for found, folder_id, outcome, problem in batch:
            update = self._update(found, folder_id, outcome, problem)
            if update.status == "ok" and outcome is not None:
                self._adopt_moved_file(update)
            updates.append(update)

        def measurements(conn: sqlite3.Connection, ids: list[int]) -> None:
            read = [
                (image_id, outcome.ingest)
                for image_id, update, (_, _, outcome, _) in zip(ids, updates, batch, strict=True)
                if update.status == "ok" and outcome is not None
            ]
            insert_features(conn, [_feature_row(i, ingest.features) for i, ingest in read if ingest.features is not None])
            insert_checks(conn, [check_row(i, ingest.analysis) for i, ingest in read if ingest.analysis is not None])
            insert_signatures(conn, [(ingest.content_hash, ingest.signature) for _, ingest in read
                                     if ingest.signature is not None and ingest.content_hash])  # fmt: skip

        ids, marks_added = self.profile.catalog.write_import_batch(updates, also=measurements)  # one transaction
        self.read_ids += [(image_id, found.path) for image_id, update, (found, _, _, _) in zip(ids, updates, batch, strict=True)
                          if update.status == "ok"]  # fmt: skip
        self.summary.marks_from_xmp += marks_added

    def _update(
        self, found: FoundFile, folder_id: int, outcome: FileOutcome | None, problem: str | None
    ) -> ImageUpdate:
        path = display_path(found.path)
        if outcome is None or not outcome.ingest.ok:
            reason = problem or (outcome.ingest.error if outcome else None) or "unknown error"
            kind = outcome.ingest.error_kind if outcome else None
            status: ImageStatus = "missing" if kind == "missing" and "symbolic link" not in reason else "error"
            self.summary.errors += 1
            self.summary.problems.append((path, reason))
            return ImageUpdate(path=path, folder_id=folder_id, status=status, size=found.size,
                               mtime_ns=found.mtime_ns, error=reason)  # fmt: skip
        result = outcome.ingest
        meta = result.metadata
        exif = meta.to_dict() if meta is not None else {}
        notes = list(result.notes) + ([outcome.xmp_problem] if outcome.xmp_problem else [])
        if outcome.xmp_problem:
            self.summary.sidecar_problems.append((path, outcome.xmp_problem))
        if notes:
            exif["notes"] = notes
        self.summary.imported += 1
        return ImageUpdate(
            path=path,
            folder_id=folder_id,
            status="ok",
            size=found.size if found.size is not None else result.size_bytes,
            mtime_ns=found.mtime_ns,
            content_hash=result.content_hash,
            phash=result.phash,
            width=meta.width if meta else None,
            height=meta.height if meta else None,
            format=meta.format if meta else None,
            capture_time=exif.get("capture_time"),
            exif=exif,
            thumb_path=str(result.thumbs.thumb_path) if result.thumbs else None,
            preview_path=_existing(result.thumbs.preview_path) if result.thumbs else None,
            initial_marks=_sidecar_marks(outcome),
        )

    def _adopt_moved_file(self, update: ImageUpdate) -> None:
        """A new path whose bytes match an image whose file is gone: the same image, moved."""
        if update.content_hash is None or self.profile.catalog.image_by_path(update.path) is not None:
            return
        for candidate in self.profile.catalog.images_by_hash(update.content_hash):
            if candidate.path in self.seen or os.path.lexists(candidate.path):
                continue
            self.profile.catalog.move_image(candidate.id, update.path, update.folder_id, update.size or 0,
                                    update.mtime_ns or 0)  # fmt: skip
            self.summary.moved += 1
            self.summary.imported -= 1
            return


def _sidecar_marks(outcome: FileOutcome) -> tuple[int, Any, str | None] | None:
    """Marks from the file's XMP sidecar, stored only for images without marks (the profile wins)."""
    marks = outcome.xmp
    if marks is None or (marks.stars is None and marks.flag is None and marks.label is None):
        return None
    return (marks.stars or 0, marks.flag, marks.label)


def _existing(path: Path) -> str | None:
    return str(path) if path.is_file() else None


def _feature_row(image_id: int, values: dict[str, float]) -> tuple[int, list[str], np.ndarray, str]:
    from aesthete_gui.imaging.features import FEATURE_NAMES, FEATURE_VERSION, as_vector

    return image_id, list(FEATURE_NAMES), as_vector(values), str(FEATURE_VERSION)


def import_folders(
    profile: Profile,
    dirs: Sequence[str | os.PathLike[str]],
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    workers: int | None = None,
    features: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
    previews: bool = False,
    skip_missing: bool = False,
) -> ImportSummary:
    """Import every image under `dirs` (recursively) into the profile; see the module docstring.
    A folder that is not there raises FileNotFoundError, or with `skip_missing` (a rescan of the
    library, whose drive may be unplugged) is left out, its photographs untouched, and named in
    `folders_not_found`.

    Each image gets its 256 px thumbnail; the ~1024 px preview is made when first shown
    (thumbnails.ensure_thumbnails) unless `previews` (or `features`, which decodes at that size
    anyway) asks for it now.

    Returns the summary; a cancelled import returns early with `cancelled` set, having written every
    result it had, and without marking anything missing (the walk did not finish).
    """
    start = time.monotonic()
    report = progress or (lambda _p: None)
    roots = [normalize_root(d) for d in dirs]
    absent = [root for root in roots if not os.path.isdir(root)]
    if absent and not skip_missing:
        raise FileNotFoundError(f"not a folder: {absent[0]}")
    roots = [root for root in roots if root not in absent]
    cache = str(cache_dir) if cache_dir is not None else str(thumbnail_cache_dir(profile.path))
    summary = ImportSummary(folders_not_found=absent)
    profile.runs.close_interrupted("import")
    summary.run_id = profile.runs.create(
        "import", {"folders": roots, "features": features, "previews": previews, **process_stamp()}
    )
    importer = _Importer(profile, cache, features, previews, summary)
    try:
        total = _run_import(importer, roots, workers, report, cancel)
    except BaseException as error:  # the run never stays "running": it records how it ended
        status = "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"
        summary.seconds = time.monotonic() - start
        result = {**asdict(summary), "error": f"{type(error).__name__}: {error}"}
        with contextlib.suppress(Exception):  # the profile itself failed: report the first error
            profile.runs.update(summary.run_id, status=status, result=result)
        raise
    summary.seconds = time.monotonic() - start
    profile.runs.update(summary.run_id, status="cancelled" if summary.cancelled else "done",
                       done=total, total=total, result=asdict(summary))  # fmt: skip
    return summary


def _run_import(
    importer: _Importer,
    roots: list[str],
    workers: int | None,
    report: ProgressCallback,
    cancel: CancelToken | None,
) -> int:
    """Walk `roots`; read what changed (thumbnails first: the grid can be browsed once they are in),
    mark vanished files, regroup bursts, then measure the checks of what has none; return files read."""
    profile, summary = importer.profile, importer.summary
    known = profile.catalog.file_states()
    have_features = _images_with_current_features(profile) if importer.features else None
    have_checks = profile.checks.checked_ids()
    own = own_files(profile.path, [importer.cache_dir])
    work: list[tuple[FoundFile, int]] = []
    unchecked: list[tuple[int, str]] = []
    changed: set[int] = set()
    folder_ids: dict[str, int] = {}
    videos: list[str] = []
    for root in roots:
        folder_ids[root] = profile.catalog.add_folder(root)
        for found in scan_folder(root, cancel, own, importer.sidecar_folders, videos):
            summary.found += 1
            path = display_path(found.path)
            importer.seen.add(path)
            if summary.found % 500 == 0:
                report(Progress(0, None, f"found {summary.found} files"))
            if found.problem is not None:
                importer.add(found, folder_ids[root], None, found.problem)
                continue
            state = known.get(path)
            if state and (state[1], state[2]) != (found.size, found.mtime_ns):
                changed.add(state[0])  # edited in place: what was measured of it describes other pixels
            if (
                state
                and state[3] == "ok"
                and (state[1], state[2]) == (found.size, found.mtime_ns)
                and (have_features is None or state[0] in have_features)
            ):
                summary.unchanged += 1
                if state[0] not in have_checks:  # measured by older checks: only they run again
                    unchecked.append((state[0], found.path))
                continue
            work.append((found, folder_ids[root]))
    summary.videos = len(videos)
    importer.flush()
    if changed:  # before they are read again: their properties and scores are measured anew
        from aesthete_gui.services.scoring import forget_scores

        profile.catalog.forget_features(sorted(changed))
        forget_scores(profile, sorted(changed))
    total = len(work)
    report(Progress(0, total, f"{summary.found} files found, {total} to read"))
    pool = WorkerPool(workers or os.cpu_count() or 1)
    try:
        try:
            read_files(importer, work, pool, report, cancel)
        finally:
            importer.flush()
        summary.cancelled = bool(cancel is not None and cancel.cancelled)
        if summary.cancelled:
            return total
        _mark_vanished(profile, roots, importer.seen, summary)
        _sync_sidecars(profile, importer.sidecar_folders, summary, report, cancel)
        for folder_id in folder_ids.values():
            profile.catalog.folder_scanned(folder_id)
        summary.browsable_seconds = time.monotonic() - importer.started
        # the catalog announced each batch of images (the grid shows them now), and announces new bursts
        summary.bursts = regroup_bursts(profile, importer.cache_dir, pool=pool)
        unchecked += [(image_id, path) for image_id, path in importer.read_ids if image_id not in have_checks or image_id in changed]
        if unchecked:
            report(Progress(0, len(unchecked), f"checking {len(unchecked)} images"))
            check_files(importer, unchecked, pool, report, cancel)
            summary.cancelled = bool(cancel is not None and cancel.cancelled)
            from aesthete_gui.services.verdicts import rejudge_library

            if not summary.cancelled:
                rejudge_library(profile)  # verdicts that see the new frames' sets and copies (announced)
        summary.checked_seconds = time.monotonic() - importer.started
        if summary.imported or summary.moved or summary.missing:
            tidy_thumbnail_cache(profile, importer.cache_dir)
    finally:
        pool.close()
    return total


def _images_with_current_features(profile: Profile) -> set[int]:
    from aesthete_gui.imaging.features import FEATURE_VERSION

    return profile.catalog.feature_image_ids(str(FEATURE_VERSION))


def _mark_vanished(profile: Profile, roots: Iterable[str], seen: set[str], summary: ImportSummary) -> None:
    gone = [
        image_id
        for path, (image_id, _size, _mtime, status) in profile.catalog.file_states().items()
        if status != "missing" and path not in seen and any(under(path, r) for r in roots)
        and not os.path.lexists(path)
    ]
    if gone:
        profile.catalog.record_missing(gone)
    summary.missing = len(gone)


def _sync_sidecars(
    profile: Profile, sidecar_folders: set[str], summary: ImportSummary, report: ProgressCallback,
    cancel: CancelToken | None,
) -> None:
    """Take sidecar edits made by other programs since the last sync (see services.sidecar_sync), for
    the images in folders that hold XMP files (an image without a sidecar has nothing to sync)."""
    from aesthete_gui.services.sidecar_sync import sync_sidecars

    ids = [image_id for path, (image_id, _size, _mtime, status) in profile.catalog.file_states().items()
           if status == "ok" and os.path.dirname(path) in sidecar_folders]  # fmt: skip
    if not ids:
        return
    synced = sync_sidecars(profile, ids, report, cancel)
    summary.marks_from_xmp += synced.adopted
    summary.sidecar_conflicts = synced.conflicts
    known = {path for path, _ in summary.sidecar_problems}
    summary.sidecar_problems.extend(p for p in synced.problems if p[0] not in known)


_SQLITE_MAX_ID = 2**63 - 1


def _path_exists(text: str) -> bool:
    try:
        return os.path.exists(text)
    except (ValueError, OSError):  # an embedded NUL, a name too long: no such file
        return False


def resolve_image(profile: Profile, image: int | str) -> int:
    """An image id from an id, a stored path or a path on disk; KeyError when it is not in the profile.

    Only plain ASCII digits are an id (not `²`, `1e5` or `-1`); anything else is looked up as a path.
    """
    record = None
    if isinstance(image, int) or (isinstance(image, str) and image.isascii() and image.isdigit()
                                  and not _path_exists(image)):  # fmt: skip
        number = int(image)
        record = profile.catalog.image_by_id(number) if 0 < number <= _SQLITE_MAX_ID else None
    elif isinstance(image, str) and "\x00" not in image:
        record = profile.catalog.image_by_path(image) or profile.catalog.image_by_path(
            os.path.abspath(os.path.expanduser(image))
        )
    if record is None:
        raise KeyError(f"image not in the profile: {terminal_text(image)}")
    return record.id
