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
from aesthete_gui.services.events import MarksChanged, emit
from aesthete_gui.services.sidecar_sync import sidecar_state_now, sync_image, sync_sidecars
from aesthete_gui.store import MarkRecord, Profile
from aesthete_gui.store.catalog import UNSET, Unset
from aesthete_gui.store.sidecar_sync import (
    MarkHistoryEntry,
    SidecarState,
    SyncChange,
    add_mark_history,
    record_sidecar_state,
    record_sidecar_states,
    sidecar_states,
)

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


def set_mark(
    profile: Profile,
    image_id: int,
    stars: int | Unset | None = UNSET,
    flag: str | Unset | None = UNSET,
    label: str | Unset | None = UNSET,
    write_xmp: bool = False,
    naming: Naming = "auto",
) -> MarkRecord:
    """Store marks in the profile (committed first), then merge them into the sidecar when asked.

    Before a sidecar write, edits another program made to the sidecar are taken into the profile
    first (services.sidecar_sync), so the fields this mark does not change keep the newer sidecar
    values; a sidecar value this mark replaces goes into the image's mark history.
    Raises SidecarNotWritten (the profile keeps the mark) when the sidecar cannot be written.
    """
    before = profile.mark_for(image_id) if write_xmp else None
    external = _take_sidecar_edits(profile, image_id) if write_xmp else None
    mark = profile.set_mark(image_id, stars=stars, flag=flag, label=label)
    emit(profile, MarksChanged((image_id,)))
    if write_xmp:
        if external is not None and before is not None and _overwrites_edit(before, external, mark):
            when = external.state.mtime_ns / 1e9 if external.state else mark.updated_at
            entry = MarkHistoryEntry(image_id, "sidecar", *external.marks, when,  # type: ignore[misc]
                                     "replaced by a later mark made here")  # fmt: skip
            add_mark_history(profile, [entry])
        _write_checked(profile, image_id, mark, naming)
    return mark


def _overwrites_edit(before: MarkRecord, external: SyncChange, mark: MarkRecord) -> bool:
    """True when the mark replaces a field that the sidecar edit had just changed."""
    assert external.marks is not None
    old = (before.stars, before.flag, before.label)
    new = (mark.stars, mark.flag, mark.label)
    return any(e != o and n != e for o, e, n in zip(old, external.marks, new, strict=True))


def _take_sidecar_edits(profile: Profile, image_id: int) -> SyncChange | None:
    """Sync the image's sidecar into the profile; the change when it brought marks from the sidecar."""
    try:
        change = sync_image(profile, image_id)
    except (XmpError, OSError):
        return None  # the write below refuses an unreadable sidecar and says why
    return change if change is not None and change.marks is not None else None


def _write_checked(profile: Profile, image_id: int, mark: MarkRecord, naming: Naming) -> Path:
    """Write the marks into the sidecar and remember its new state; SidecarNotWritten on failure."""
    image = profile.image_by_id(image_id)
    if image is None:
        raise KeyError(f"no image with id {image_id}")
    try:
        target = write_sidecar(image.path, mark.stars, mark.flag, mark.label, naming=naming)
    except SidecarWriteError as error:
        raise SidecarNotWritten(error.path, error.reason) from error
    with contextlib.suppress(XmpError, OSError):  # else the next sync reads it and finds it agrees
        record_sidecar_state(profile, sidecar_state_now(image_id, target))
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
    marks = profile.marks()
    scores = {scorer: profile.scores(scorer) for scorer in profile.scorers()}
    rows = []
    for image in profile.images():
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
    ids = sorted(profile.marks())
    result = ExportResult(0, None)
    sync_sidecars(profile, ids, cancel=cancel)
    marks = profile.marks()
    images = {image.id: image for image in profile.images()}
    seen = sidecar_states(profile, ids)
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
            mark = profile.mark_for(image_id)
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
            record_sidecar_states(profile, written)
            written = []
        if progress is not None:
            progress(Progress(done, len(ids), image.path))
    record_sidecar_states(profile, written)
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
