"""Copy or move picked (or any chosen) images with their XMP sidecars into a folder.

Every file goes through services.verified_copy: written under a temporary name in the destination,
flushed to disk, read back and compared by size and hash, then renamed into place without replacing
anything. Names that are taken (on disk, or by another image of the library) get " (2)", " (3)" …
and the sidecar follows its image's new name. A move removes the source and its sidecar only after
both copies are verified and the library points at the new file, so marks, scores and checks stay
with the image; a source that changed while it was copied stays where it was. A cancel stops inside
the file in progress: its temporary copy is removed and its source is untouched.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.xmp import find_sidecar
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.library_scan import under
from aesthete_gui.services.verified_copy import (
    copy_verified,
    destination_problem,
    sync_folder,
    write_problem,
)
from aesthete_gui.store import ImageRecord, Profile


class ExportPicksError(AestheteError):
    """The destination cannot take the files (not a folder, read-only, full)."""


@dataclass
class CopiedPicks:
    """What an export did: (source, destination) per image, files skipped with why, cancelled or not."""

    destination: str
    moved: bool = False
    copied: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    left_behind: list[tuple[str, str]] = field(default_factory=list)
    """Moved images whose original could not be removed afterwards (the library follows the copy)."""
    cancelled: bool = False


def picked_image_ids(profile: Profile, flag: str | None = "pick") -> list[int]:
    """Ids of the usable images flagged `flag` (every usable image when None)."""
    marks = profile.marks.all()
    return [
        image.id
        for image in profile.catalog.images(status="ok")
        if flag is None or (marks.get(image.id) is not None and marks[image.id].flag == flag)
    ]


def _free_name(folder: Path, name: str, taken: set[str], profile: Profile) -> str:
    """`name`, or "stem (2).ext", "stem (3).ext" … when a file or a library image has it."""
    stem, suffix = os.path.splitext(name)
    candidate, n = name, 1
    while (
        candidate.casefold() in taken
        or os.path.lexists(folder / candidate)
        or profile.catalog.image_by_path(str(folder / candidate)) is not None
    ):
        n += 1
        candidate = f"{stem} ({n}){suffix}"
    taken.add(candidate.casefold())
    return candidate


def _sidecar_name(image: Path, sidecar: Path, new_image_name: str) -> str:
    """The sidecar's name next to the renamed image, in the same style (<name>.xmp or <stem>.xmp)."""
    if sidecar.name.lower().startswith(image.name.lower() + "."):
        return new_image_name + sidecar.name[len(image.name):]
    return os.path.splitext(new_image_name)[0] + sidecar.suffix


def _remove(*paths: Path | None) -> None:
    for path in paths:
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()


@dataclass
class _Item:
    record: ImageRecord
    path: Path
    sidecar: Path | None


def _plan(profile: Profile, image_ids: Sequence[int], folder: Path, move: bool, result: CopiedPicks) -> list[_Item]:
    """The images that can go, in order; the others in result.skipped with why."""
    items = []
    for image_id in image_ids:
        record = profile.catalog.image_by_id(image_id)
        if record is None:
            continue
        path = Path(record.path)
        if not path.is_file():
            result.skipped.append((record.path, "file not found"))
        elif move and path.parent.resolve() == folder.resolve():
            result.skipped.append((record.path, "already in that folder"))
        elif move and not os.access(path.parent, os.W_OK | os.X_OK):
            result.skipped.append((record.path, "cannot be moved: its folder is read-only (copy it instead)"))
        else:
            items.append(_Item(record, path, find_sidecar(path)))
    return items


def export_picks(
    profile: Profile,
    image_ids: Sequence[int],
    destination: str | os.PathLike[str],
    *,
    move: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CopiedPicks:
    """Copy (or move) the images and their sidecars into `destination`; see the module docstring.

    Raises ExportPicksError before anything is written when the folder cannot take the files, and
    when a write fails midway (the files finished before it stay, complete; nothing half-written).
    """
    folder = Path(destination).expanduser()
    report = progress or (lambda _p: None)
    result = CopiedPicks(destination=str(folder), moved=move)
    items = _plan(profile, image_ids, folder, move, result)
    needed = sum(i.path.stat().st_size + (i.sidecar.stat().st_size if i.sidecar else 0) for i in items)
    problem = destination_problem(folder, needed)
    if problem is not None:
        raise ExportPicksError(problem)
    taken: set[str] = set()
    for done, item in enumerate(items):
        if cancel is not None and cancel.cancelled:
            result.cancelled = True
            break
        name = _free_name(folder, item.path.name, taken, profile)
        target = folder / name
        before = item.path.stat()
        try:
            copied = copy_verified(item.path, target, cancel)
        except OSError as error:
            if error.filename == str(item.path):
                result.skipped.append((str(item.path), f"cannot be read ({error.strerror or error})"))
                continue
            raise ExportPicksError(write_problem(error, folder)) from error
        if copied is None:
            result.cancelled = True
            break
        sidecar_target = None
        if item.sidecar is not None:
            sidecar_target = folder / _free_name(folder, _sidecar_name(item.path, item.sidecar, name), taken, profile)
            try:
                copy_verified(item.sidecar, sidecar_target)  # not cancelled: never an image without its sidecar
            except OSError as error:
                _remove(target)
                raise ExportPicksError(write_problem(error, folder)) from error
        if move and not _finish_move(profile, item, target, sidecar_target, before, result):
            continue
        result.copied.append((str(item.path), str(target)))
        report(Progress(done + 1, len(items), name))
    return result


def _finish_move(
    profile: Profile, item: _Item, target: Path, sidecar_target: Path | None, before: os.stat_result, result: CopiedPicks
) -> bool:
    """Point the library at the verified copy, then remove the source and its sidecar; False (and
    the copy removed) when the source changed meanwhile."""
    now = item.path.stat()
    if (now.st_size, now.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        _remove(target, sidecar_target)
        result.skipped.append((str(item.path), "changed while it was being moved; left where it was"))
        return False
    stat = target.stat()
    try:
        profile.catalog.move_image(item.record.id, str(target), _library_folder(profile, target), stat.st_size, stat.st_mtime_ns)
        if item.sidecar is not None and sidecar_target is not None:
            _carry_sidecar_state(profile, item, sidecar_target)
    except BaseException:
        _remove(target, sidecar_target)  # the library still points at the untouched source
        raise
    for source in (item.path, item.sidecar):
        if source is None:
            continue
        try:
            source.unlink()
        except OSError as error:
            result.left_behind.append((str(source), f"copied, but the original could not be removed ({error.strerror or error})"))
    sync_folder(item.path.parent)
    return True


def _library_folder(profile: Profile, path: Path) -> int | None:
    """The imported folder that holds `path` (the innermost), or None."""
    holders = [f for f in profile.catalog.folders() if under(str(path), f.path)]
    return max(holders, key=lambda f: len(f.path)).id if holders else None


def _carry_sidecar_state(profile: Profile, item: _Item, sidecar_target: Path) -> None:
    """The profile's record of the sidecar it last agreed with follows the sidecar to its new place."""
    from aesthete_gui.services.sidecar_sync import sidecar_state_now

    known = profile.sidecars.states([item.record.id]).get(item.record.id)
    if known is not None and Path(known.sidecar_path) == item.sidecar:
        profile.sidecars.record(sidecar_state_now(item.record.id, sidecar_target))
