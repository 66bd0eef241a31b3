"""Copy or move picked (or any chosen) images with their XMP sidecars into a folder.

Each file is written under a temporary name in the destination and renamed when complete, so a
failure (read-only folder, full disk) or a cancel never leaves a half-copied file. Names that are
taken get " (2)", " (3)" … and the sidecar follows its image's new name.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aesthete_gui.imaging.xmp import find_sidecar
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.store import Profile


class ExportPicksError(Exception):
    """The destination cannot take the files (not a folder, read-only, not enough space)."""


@dataclass
class CopiedPicks:
    """What an export did: (source, destination) per image, files skipped with why, cancelled or not."""

    destination: str
    copied: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False


def picked_image_ids(profile: Profile, flag: str | None = "pick") -> list[int]:
    """Ids of the usable images flagged `flag` (every usable image when None)."""
    marks = profile.marks()
    return [
        image.id
        for image in profile.images(status="ok")
        if flag is None or (marks.get(image.id) is not None and marks[image.id].flag == flag)
    ]


def _free_name(folder: Path, name: str, taken: set[str]) -> str:
    stem, suffix = os.path.splitext(name)
    candidate, n = name, 1
    while candidate.casefold() in taken or (folder / candidate).exists():
        n += 1
        candidate = f"{stem} ({n}){suffix}"
    taken.add(candidate.casefold())
    return candidate


def _sidecar_name(image: Path, sidecar: Path, new_image_name: str) -> str:
    """The sidecar's name next to the renamed image, in the same style (<name>.xmp or <stem>.xmp)."""
    if sidecar.name.lower().startswith(image.name.lower() + "."):
        return new_image_name + sidecar.name[len(image.name):]
    return os.path.splitext(new_image_name)[0] + sidecar.suffix


def _copy_atomic(source: Path, target: Path) -> None:
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".aesthete-copy-")
    try:
        with os.fdopen(handle, "wb") as out, open(source, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        shutil.copystat(source, temp)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _check_destination(folder: Path, needed: int) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ExportPicksError(f"cannot create the destination folder {folder}: {error.strerror or error}") from error
    if not os.access(folder, os.W_OK):
        raise ExportPicksError(f"the destination folder {folder} is read-only")
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise ExportPicksError(
            f"not enough space in {folder}: the files need {needed / 1e6:.1f} MB, {free / 1e6:.1f} MB are free"
        )


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
    when a write fails midway (the files finished before it stay, complete).
    """
    folder = Path(destination).expanduser()
    report = progress or (lambda _p: None)
    records = [r for r in (profile.image_by_id(i) for i in image_ids) if r is not None]
    result = CopiedPicks(destination=str(folder))
    sources = []
    for record in records:
        path = Path(record.path)
        if not path.is_file():
            result.skipped.append((record.path, "file not found"))
            continue
        sources.append((record, path, find_sidecar(path)))
    needed = sum(p.stat().st_size + (s.stat().st_size if s else 0) for _, p, s in sources)
    _check_destination(folder, needed)
    taken: set[str] = set()
    for done, (record, path, sidecar) in enumerate(sources):
        if cancel is not None and cancel.cancelled:
            result.cancelled = True
            break
        name = _free_name(folder, path.name, taken)
        target = folder / name
        try:
            _copy_atomic(path, target)
            if sidecar is not None:
                _copy_atomic(sidecar, folder / _free_name(folder, _sidecar_name(path, sidecar, name), taken))
        except OSError as error:
            target.unlink(missing_ok=True)  # never an image without the sidecar it came with
            raise ExportPicksError(f"could not write {target}: {error.strerror or error}") from error
        if move:
            stat = target.stat()
            profile.move_image(record.id, str(target), None, stat.st_size, stat.st_mtime_ns)
            path.unlink()
            if sidecar is not None:
                sidecar.unlink()
        result.copied.append((str(path), str(target)))
        report(Progress(done + 1, len(sources), name))
    return result
