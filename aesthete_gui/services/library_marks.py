"""Culling marks (stars, pick/reject, colour label) with optional XMP sidecars, and library export."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from aesthete_gui.atomic_write import FileState
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.imaging.hashing import content_hash_bytes
from aesthete_gui.imaging.xmp import (
    ALL_FIELDS,
    Agreement,
    Naming,
    SidecarWrite,
    SidecarWriteError,
    XmpError,
    find_sidecar,
    folders_listed_once,
    pairs_among,
    restore_sidecar,
    write_marks,
)
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.safe_text import spreadsheet_cell
from aesthete_gui.services.output_guard import check_report_target, write_report
from aesthete_gui.services.sidecar_sync import (
    clean_leftovers,
    held_marks,
    marks_from_sidecar,
    sidecar_rules,
    sidecar_state_now,
    sidecar_view,
    sync_image,
    sync_sidecars,
    unwritten_state,
)
from aesthete_gui.store import MarkRecord, Profile
from aesthete_gui.store.errors import ProfileError
from aesthete_gui.store.records import (
    UNSET,
    MarkHistoryEntry,
    MarkSource,
    SidecarState,
    SyncChange,
    Unset,
)

ExportFormat = Literal["csv", "json", "xmp"]
EXPORT_FORMATS: tuple[str, ...] = ("csv", "json", "xmp")
STATE_BATCH = 200
"""Sidecar states recorded per transaction during an XMP export."""
MARK_FIELDS = ("stars", "flag", "label")


class SidecarNotWritten(Exception):
    """The mark is saved in the profile, but its XMP sidecar was not written: "sidecar not written: path: why"."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"sidecar not written: {path}: {reason}")


@dataclass(frozen=True)
class SidecarEdit:
    """One sidecar write of a mark, kept for undo: the image, the sidecar, its bytes before (None:
    the write created it) and the file the write left."""

    image_id: int
    path: str
    before: bytes | None
    written: FileState


def mark_image(
    profile: Profile,
    image_id: int,
    stars: int | Unset | None = UNSET,
    flag: str | Unset | None = UNSET,
    label: str | Unset | None = UNSET,
    write_xmp: bool = False,
    naming: Naming = "auto",
    journal: list[SidecarEdit] | None = None,
    pairs_as_one: bool | None = None,
    source: MarkSource | None = None,
    expected: Mapping[str, Any] | None = None,
) -> MarkRecord:
    """Mark an image as the user asked: the profile (committed first), then its XMP sidecar when
    `write_xmp`.

    The one path for every mark, from the window and from the command line; `profile.marks.set` is
    its database half. Only the fields given change. Before the write, edits another program made
    to the sidecar are taken into the profile (services.sidecar_sync); the write itself is a
    compare-and-swap (imaging.xmp), and an edit another program makes *during* the write wins for
    the fields it changed and goes into the profile. Every value replaced on the way (the profile's,
    a sidecar value this mark replaces) is kept in the mark history by the marks repository.
    `journal` collects the sidecar's bytes before the write (for undo); `pairs_as_one` (default: the
    profile's setting) picks the sidecar of a RAW+JPEG pair's half; `source` says who marks
    (default: the profile's actor). `expected` (undo, redo) changes a field only where the profile
    (after taking in the sidecar's edits) still holds that value: one another writer changed since
    is left as it is, in the profile and in the sidecar. Raises SidecarNotWritten (the profile
    keeps the mark) when the sidecar cannot be written.
    """
    fields = {name for name, value in zip(MARK_FIELDS, (stars, flag, label), strict=True) if value is not UNSET}
    pairs = sidecar_rules(profile).pairs_as_one if write_xmp and pairs_as_one is None else bool(pairs_as_one)
    if write_xmp:
        _take_sidecar_edits(profile, image_id, pairs)
    agreed = profile.marks.get(image_id) if write_xmp else None
    if expected is None:
        mark = profile.marks.set(image_id, stars=stars, flag=flag, label=label, source=source)
    else:
        mark, left = profile.marks.set_unless_changed(image_id, expected, stars=stars, flag=flag, label=label,
                                                      source=source)  # fmt: skip
        fields -= left
    if agreed is None or (expected is not None and not fields):  # nothing of this undo to write
        return mark
    return write_mark_to_sidecar(profile, image_id, mark, agreed, insist=fields, naming=naming,
                                 pairs_as_one=pairs, journal=journal)  # fmt: skip


def _take_sidecar_edits(profile: Profile, image_id: int, pairs_as_one: bool) -> None:
    """Sync the image's sidecar into the profile (the check before a write)."""
    try:
        sync_image(profile, image_id, pairs_as_one)
    except (XmpError, OSError):
        return  # the write below refuses an unreadable sidecar and says why


def write_mark_to_sidecar(
    profile: Profile,
    image_id: int,
    mark: MarkRecord,
    agreed: MarkRecord,
    insist: Iterable[str] = (),
    naming: Naming = "auto",
    pairs_as_one: bool = False,
    journal: list[SidecarEdit] | None = None,
) -> MarkRecord:
    """Write the profile's marks into the image's sidecar (compare-and-swap) and settle what the
    write found: the marks as they are afterwards (SidecarNotWritten when nothing was written).

    `agreed` is what the profile believed the sidecar held before this change; `insist` the fields
    just set by the user, which go on top of an edit another program makes during the write. Any
    other field that program changed keeps its value and is taken into the profile.
    """
    image = profile.catalog.image_by_id(image_id)
    if image is None:
        raise KeyError(f"no image with id {image_id}")
    known = profile.sidecars.states([image_id]).get(image_id)
    agreement = Agreement((agreed.stars, agreed.flag, agreed.label), known.content_hash if known else None)
    try:
        write = write_marks(image.path, mark.stars, mark.flag, mark.label, ALL_FIELDS, naming,
                            pairs_as_one, insist=set(insist), agreed=agreement)  # fmt: skip
    except SidecarWriteError as error:
        if known is None and not error.lasting and find_sidecar(image.path, pairs_as_one) is None:
            # no sidecar yet: recorded as one that holds nothing, so a sync counts it behind the
            # profile and `--write-back` creates it (an attack: marks made on a full disk never
            # reached a sidecar that did not exist before)
            profile.sidecars.apply_sync([SyncChange(image_id, mark.updated_at, state=unwritten_state(image_id, error.path))])
        raise SidecarNotWritten(error.path, error.reason) from error
    if journal is not None and write.written is not None:
        journal.append(SidecarEdit(image_id, str(write.path), write.before, write.written))
    if profile.sidecars.apply_sync([settle_write(mark, agreed, write, set(insist))]):
        return profile.marks.get(image_id)
    return mark


def settle_write(mark: MarkRecord, agreed: MarkRecord, write: SidecarWrite, insist: set[str]) -> SyncChange:
    """What a finished write means for the profile: the sidecar's new state, the marks another
    program changed during the write (they win), and the values that lost, for the mark history (a
    "profile" entry gives the reason the marks repository records with the profile value it
    replaces; a "sidecar" entry is a value that was never the profile's)."""
    state = SidecarState(mark.image_id, str(write.path), len(write.data),
                         write.written.mtime_ns if write.written else _mtime_ns(write.path),
                         content_hash_bytes(write.data), 0.0, held_marks(write.marks))  # fmt: skip
    now = marks_from_sidecar(write.marks, mark)
    history: list[MarkHistoryEntry] = []
    if write.found is not None:
        found = marks_from_sidecar(write.found, agreed)
        old = (agreed.stars, agreed.flag, agreed.label)
        new = (mark.stars, mark.flag, mark.label)
        for name, f, o, n in zip(MARK_FIELDS, found, old, new, strict=True):
            if name in insist and f != o and f != n:  # the other program set it too; this mark is later
                history.append(MarkHistoryEntry(mark.image_id, "sidecar", *found, time.time(),
                                                "replaced by a later mark made here (the other program "
                                                "changed it while the mark was written)"))  # fmt: skip
                break
    changed = sidecar_view(*now) != sidecar_view(mark.stars, mark.flag, mark.label)
    if changed:
        history.append(MarkHistoryEntry(mark.image_id, "profile", mark.stars, mark.flag, mark.label,
                                        mark.updated_at, "replaced by an edit another program made "
                                        "while this mark was written"))  # fmt: skip
    return SyncChange(mark.image_id, mark.updated_at, marks=now if changed else None, state=state,
                      history=tuple(history))  # fmt: skip


def _mtime_ns(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def undo_sidecar_edits(profile: Profile, edits: Sequence[SidecarEdit]) -> tuple[set[int], set[int]]:
    """Put every sidecar of `edits` back to its bytes before (deleting the ones the writes created),
    newest first, wherever the sidecar is still exactly what the write left. Returns (ids restored,
    ids whose sidecar another program changed since: left as they are)."""
    restored: set[int] = set()
    changed: set[int] = set()
    states: list[SidecarState] = []
    deleted: list[int] = []
    for edit in reversed(edits):
        if edit.image_id in changed:
            continue
        if restore_sidecar(edit.path, edit.before, edit.written):
            restored.add(edit.image_id)
            if edit.before is None:
                deleted.append(edit.image_id)
            else:
                with contextlib.suppress(XmpError, OSError):
                    states.append(sidecar_state_now(edit.image_id, edit.path))
        else:
            changed.add(edit.image_id)
            restored.discard(edit.image_id)
    profile.sidecars.forget(deleted)
    profile.sidecars.record_many(states)
    return restored, changed


@dataclass
class MarkedImages:
    """What marking several images did: their marks now, and the sidecars that were not written."""

    marks: list[MarkRecord] = field(default_factory=list)
    problems: list[SidecarNotWritten] = field(default_factory=list)
    wanted: int = 0
    """How many images the batch was to mark (pair partners included)."""
    stopped: ProfileError | None = None
    """The profile error that ended the batch early (a full disk): `marks` holds those made before it."""

    def raise_if_stopped(self) -> None:
        """Raise the error that stopped the batch, once the caller has said which marks were made."""
        if self.stopped is not None:
            raise self.stopped


def mark_images(
    profile: Profile,
    image_ids: Sequence[int],
    stars: int | Unset | None = UNSET,
    flag: str | Unset | None = UNSET,
    label: str | Unset | None = UNSET,
    write_xmp: bool = True,
    naming: Naming = "auto",
    pairs_as_one: bool | None = None,
    source: MarkSource | None = None,
) -> MarkedImages:
    """Mark several images (mark_image on each, and on the other half of each RAW+JPEG pair when pairs
    are one); a sidecar that cannot be written costs only its own image's sidecar. Temporary files
    an earlier, killed run left beside these sidecars are removed first."""
    started = time.time()
    pairs = sidecar_rules(profile).pairs_as_one if pairs_as_one is None else pairs_as_one
    ids = pair_partners(profile, image_ids) if pairs else list(image_ids)
    if write_xmp:
        folders = (os.path.dirname(image.path) for i in ids if (image := profile.catalog.image_by_id(i)))
        clean_leftovers(folders, started)
    result = MarkedImages(wanted=len(ids))
    with folders_listed_once():
        for image_id in ids:
            try:
                result.marks.append(mark_image(profile, image_id, stars, flag, label, write_xmp, naming,
                                               pairs_as_one=pairs, source=source))  # fmt: skip
            except SidecarNotWritten as error:
                result.problems.append(error)
                result.marks.append(profile.marks.get(image_id))
            except ProfileError as error:  # a full disk: the marks made so far stay, and are told
                result.stopped = error
                break
    return result


def pair_partners(profile: Profile, image_ids: Iterable[int]) -> list[int]:
    """The images a mark on `image_ids` applies to when RAW+JPEG pairs are one: each image and the
    other half of its pair (same folder, same stem, one RAW), in order, without duplicates."""
    out: dict[int, None] = {}
    folders: dict[Path, dict[str, list[str]]] = {}
    for image_id in image_ids:
        out[image_id] = None
        image = profile.catalog.image_by_id(image_id)
        if image is None:
            continue
        path = Path(image.path)
        if path.parent not in folders:
            try:
                folders[path.parent] = pairs_among(os.listdir(path.parent))
            except OSError:
                folders[path.parent] = {}
        for name in folders[path.parent].get(path.name, []):
            partner = profile.catalog.image_by_path(str(path.with_name(name)))
            if partner is not None:
                out[partner.id] = None
    return list(out)


@dataclass
class ExportResult:
    """How many images an export covered, where it went and what could not be written."""

    count: int
    destination: str | None
    text: str | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)


def library_rows(profile: Profile) -> list[dict[str, Any]]:
    """One JSON-ready dict per image: file facts, marks, burst, whether the checks suggest rejecting
    it and why, and every scorer's scores."""
    from aesthete_gui.services.verdicts import suggested_reject_reasons

    marks = profile.marks.all()
    scores = {scorer: profile.scores.of_scorer(scorer) for scorer in profile.scores.scorers()}
    reasons = suggested_reject_reasons(profile)  # a held9 and a held11 trial: the CSV had no such columns
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
                "suggested_reject": image.id in reasons,
                "reasons": "; ".join(reasons.get(image.id, [])),
                "scores": {s: by_image[image.id] for s, by_image in scores.items() if image.id in by_image},
            }
        )
    return rows


def _cell(value: Any) -> str:
    """One CSV cell: empty for nothing or no, "yes" for yes, else the value made safe for spreadsheets."""
    if value is None or value is False:
        return ""
    return "yes" if value is True else str(spreadsheet_cell(value))


def _csv_text(rows: list[dict[str, Any]]) -> str:
    """CSV of the rows; text cells that a spreadsheet would run as a formula start with an apostrophe."""
    scorers = sorted({s for r in rows for s in r["scores"]})
    score_columns = [f"{s}:{d}" for s in scorers for d in DIMENSIONS]
    base = [k for k in (rows[0] if rows else {"id": 0}) if k != "scores"] or ["id"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180; and a name holding a bare \r is quoted
    writer.writerow(base + score_columns)
    for row in rows:
        values = [_cell(row.get(k)) for k in base]
        for column in score_columns:
            scorer, dim = column.rsplit(":", 1)
            value = row["scores"].get(scorer, {}).get(dim)
            values.append("" if value is None else f"{value:.4f}")
        writer.writerow(values)
    return out.getvalue()


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
        if dest is not None:
            check_report_target(dest, profile)
        rows = library_rows(profile)
        text = _csv_text(rows) if fmt == "csv" else json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
        if dest is None:
            return ExportResult(len(rows), None, text)
        return ExportResult(len(rows), str(write_report(dest, text, profile)))
    return _export_xmp(profile, progress, cancel, naming)


def _export_xmp(
    profile: Profile, progress: ProgressCallback | None, cancel: CancelToken | None, naming: Naming
) -> ExportResult:
    """Write every marked image's sidecar: one batched sync first, then the writes.

    Edits other programs made are taken in by one `sync_sidecars` pass (which also removes
    temporary files a killed earlier run left); a sidecar that changed again after that pass is
    synced once more right before its write, and an edit made during the write itself wins for the
    fields it changed (compare-and-swap, see write_mark_to_sidecar) and is taken into the profile.
    """
    ids = sorted(profile.marks.all())
    result = ExportResult(0, None)
    sync_sidecars(profile, ids, cancel=cancel)
    pairs = sidecar_rules(profile).pairs_as_one
    with folders_listed_once():
        _export_each(profile, ids, result, progress, cancel, naming, pairs)
    return result


def _export_each(profile: Profile, ids: list[int], result: ExportResult, progress: ProgressCallback | None,
                 cancel: CancelToken | None, naming: Naming, pairs: bool) -> None:  # fmt: skip
    marks = profile.marks.all()
    images = {image.id: image for image in profile.catalog.images()}
    seen = profile.sidecars.states(ids)
    settled: list[SyncChange] = []
    for done, image_id in enumerate(ids, start=1):
        if cancel is not None and cancel.cancelled:
            break
        image = images.get(image_id)
        if image is None or image.status == "missing" or not os.path.isfile(image.path):
            result.problems.append((image.path if image else str(image_id), "image file not found"))
            continue
        mark, known = marks.get(image_id, MarkRecord(image_id)), seen.get(image_id)
        if _changed_since(known, image.path, pairs):
            _take_sidecar_edits(profile, image_id, pairs)
            mark, known = profile.marks.get(image_id), profile.sidecars.states([image_id]).get(image_id)
        agreement = Agreement((mark.stars, mark.flag, mark.label), known.content_hash if known else None)
        try:
            write = write_marks(image.path, mark.stars, mark.flag, mark.label, ALL_FIELDS, naming, pairs,
                                insist=(), agreed=agreement)  # fmt: skip
            result.count += 1
        except SidecarWriteError as error:
            result.problems.append((image.path, str(SidecarNotWritten(error.path, error.reason))))
            continue
        except ValueError as error:
            result.problems.append((image.path, str(error)))
            continue
        if write.marks.unreadable:
            result.problems.append((image.path, "sidecar value unreadable, left as it is: "
                                    + "; ".join(write.marks.unreadable)))  # fmt: skip
        settled.append(settle_write(mark, mark, write, set()))
        if len(settled) >= STATE_BATCH:
            profile.sidecars.apply_sync(settled)
            settled = []
        if progress is not None:
            progress(Progress(done, len(ids), image.path))
    profile.sidecars.apply_sync(settled)


def _changed_since(known: SidecarState | None, image_path: str, pairs_as_one: bool) -> bool:
    """True when the image's sidecar is not the one (same size and mtime) the sync just recorded."""
    sidecar = find_sidecar(image_path, pairs_as_one)
    if sidecar is None:
        return False
    if known is None or known.sidecar_path != str(sidecar):
        return True
    try:
        info = os.stat(sidecar)
    except OSError:
        return True
    return (info.st_size, info.st_mtime_ns) != (known.size, known.mtime_ns)
