"""Culling marks (stars, pick/reject, colour label) with optional XMP sidecars, and library export."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from aesthete_gui.atomic_write import write_text_atomically
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.imaging.xmp import (
    Naming,
    SidecarWriteError,
    XmpError,
    find_sidecar,
    write_sidecar,
)
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.safe_text import spreadsheet_cell
from aesthete_gui.services.sidecar_sync import sidecar_state_now, sync_image, sync_sidecars
from aesthete_gui.store import MarkRecord, Profile
from aesthete_gui.store.records import UNSET, MarkSource, SidecarState, Unset

ExportFormat = Literal["csv", "json", "xmp"]
EXPORT_FORMATS: tuple[str, ...] = ("csv", "json", "xmp")
STATE_BATCH = 200
"""Sidecar states recorded per transaction during an XMP export."""


class SidecarNotWritten(Exception):
    """The mark is saved in the profile, but its XMP sidecar was not written: "sidecar not written: path: why"."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"sidecar not written: {path}: {reason}")


def mark_image(
    profile: Profile,
    image_id: int,
    stars: int | Unset | None = UNSET,
    flag: str | Unset | None = UNSET,
    label: str | Unset | None = UNSET,
    write_xmp: bool = False,
    naming: Naming = "auto",
    source: MarkSource | None = None,
) -> MarkRecord:
    """Mark an image as the user asked: the profile, and its XMP sidecar when `write_xmp`.

    `profile.marks.set` is the database half. Before a sidecar write, edits another program made to
    the sidecar are taken into the profile first (services.sidecar_sync), so the fields this mark
    does not change keep the newer sidecar values, and a sidecar value this mark replaces goes into
    the image's mark history. Only the fields given change. `source` says who marks (default: the
    profile's actor). Raises SidecarNotWritten (the profile keeps the mark) when the sidecar cannot
    be written.
    """
    if write_xmp:
        _take_sidecar_edits(profile, image_id)
    mark = profile.marks.set(image_id, stars=stars, flag=flag, label=label, source=source)
    if write_xmp:
        _write_checked(profile, image_id, mark, naming)
    return mark


def _take_sidecar_edits(profile: Profile, image_id: int) -> None:
    """Sync the image's sidecar into the profile (the check before a write)."""
    try:
        sync_image(profile, image_id)
    except (XmpError, OSError):
        return  # the write below refuses an unreadable sidecar and says why


def _write_checked(profile: Profile, image_id: int, mark: MarkRecord, naming: Naming) -> Path:
    """Write the marks into the sidecar and remember its new state; SidecarNotWritten on failure."""
    image = profile.catalog.image_by_id(image_id)
    if image is None:
        raise KeyError(f"no image with id {image_id}")
    try:
        target = write_sidecar(image.path, mark.stars, mark.flag, mark.label, naming=naming)
    except SidecarWriteError as error:
        raise SidecarNotWritten(error.path, error.reason) from error
    with contextlib.suppress(XmpError, OSError):  # else the next sync reads it and finds it agrees
        profile.sidecars.record(sidecar_state_now(image_id, target))
    return target


@dataclass
class ExportResult:
    """How many images an export covered, where it went and what could not be written."""

    count: int
    destination: str | None
    text: str | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)


def library_rows(profile: Profile) -> list[dict[str, Any]]:
    """One JSON-ready dict per image: file facts, marks, burst and every scorer's scores."""
    marks = profile.marks.all()
    scores = {scorer: profile.scores.of_scorer(scorer) for scorer in profile.scores.scorers()}
    rows = []
    for image in profile.catalog.images():
        mark = marks.get(image.id)
        rows.append(
            {
                "id": image.id,
                "path": image.path,
                "status": image.status,
                "error": image.error,
                "stars": mark.stars if mark else 0,
                "flag": mark.flag if mark else None,
                "label": mark.label if mark else None,
                "burst": image.burst_id,
                "capture_time": image.capture_time,
                "camera": image.camera,
                "lens": image.lens,
                "width": image.width,
                "height": image.height,
                "content_hash": image.content_hash,
                "scores": {s: by_image[image.id] for s, by_image in scores.items() if image.id in by_image},
            }
        )
    return rows


def _csv_text(rows: list[dict[str, Any]]) -> str:
    """CSV of the rows; text cells that a spreadsheet would run as a formula start with an apostrophe."""
    scorers = sorted({s for r in rows for s in r["scores"]})
    score_columns = [f"{s}:{d}" for s in scorers for d in DIMENSIONS]
    base = [k for k in (rows[0] if rows else {"id": 0}) if k != "scores"] or ["id"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(base + score_columns)
    for row in rows:
        values = ["" if row.get(k) is None else spreadsheet_cell(row[k]) for k in base]
        for column in score_columns:
            scorer, dim = column.rsplit(":", 1)
            value = row["scores"].get(scorer, {}).get(dim)
            values.append("" if value is None else f"{value:.4f}")
        writer.writerow(values)
    return out.getvalue()


def _write_text(dest: str | os.PathLike[str], text: str) -> str:
    return str(write_text_atomically(dest, text))


def export(
    profile: Profile,
    fmt: str,
    dest: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    naming: Naming = "auto",
) -> ExportResult:
    """Export the library: `csv`/`json` to `dest` (text returned when None), or `xmp` sidecars.

    XMP export writes a sidecar for every present image that has marks; files that vanished or
    whose sidecar cannot be written are listed in `problems`, the rest are written.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
    if fmt in ("csv", "json"):
        rows = library_rows(profile)
        text = _csv_text(rows) if fmt == "csv" else json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
        if dest is None:
            return ExportResult(len(rows), None, text)
        return ExportResult(len(rows), _write_text(dest, text))
    return _export_xmp(profile, progress, cancel, naming)


def _export_xmp(
    profile: Profile, progress: ProgressCallback | None, cancel: CancelToken | None, naming: Naming
) -> ExportResult:
    """Write every marked image's sidecar: one batched sync first, then the writes.

    Edits other programs made are taken in by one `sync_sidecars` pass; a sidecar that changed again
    after that pass (its size or mtime moved) is synced once more right before its write, so an edit
    made during a long export is not overwritten either.
    """
    ids = sorted(profile.marks.all())
    result = ExportResult(0, None)
    sync_sidecars(profile, ids, cancel=cancel)
    marks = profile.marks.all()
    images = {image.id: image for image in profile.catalog.images()}
    seen = profile.sidecars.states(ids)
    written: list[SidecarState] = []
    for done, image_id in enumerate(ids, start=1):
        if cancel is not None and cancel.cancelled:
            break
        image = images.get(image_id)
        if image is None or image.status == "missing" or not os.path.isfile(image.path):
            result.problems.append((image.path if image else str(image_id), "image file not found"))
            continue
        mark = marks.get(image_id, MarkRecord(image_id))
        if _changed_since(seen.get(image_id), image.path):
            _take_sidecar_edits(profile, image_id)
            mark = profile.marks.get(image_id)
        try:
            target = write_sidecar(image.path, mark.stars, mark.flag, mark.label, naming=naming)
            result.count += 1
        except SidecarWriteError as error:
            result.problems.append((image.path, str(SidecarNotWritten(error.path, error.reason))))
            continue
        except ValueError as error:
            result.problems.append((image.path, str(error)))
            continue
        with contextlib.suppress(XmpError, OSError):  # else the next sync reads it and finds it agrees
            written.append(sidecar_state_now(image_id, target))
        if len(written) >= STATE_BATCH:
            profile.sidecars.record_many(written)
            written = []
        if progress is not None:
            progress(Progress(done, len(ids), image.path))
    profile.sidecars.record_many(written)
    return result


def _changed_since(known: SidecarState | None, image_path: str) -> bool:
    """True when the image's sidecar is not the one (same size and mtime) the sync just recorded."""
    sidecar = find_sidecar(image_path)
    if sidecar is None:
        return False
    if known is None or known.sidecar_path != str(sidecar):
        return True
    try:
        info = os.stat(sidecar)
    except OSError:
        return True
    return (info.st_size, info.st_mtime_ns) != (known.size, known.mtime_ns)
