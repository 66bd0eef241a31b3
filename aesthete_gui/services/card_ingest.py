"""Ingest from a memory card: copy images to a destination under a renaming template, verify, then import.

Each file is copied to a temporary name inside its destination folder while its bytes are hashed
(XXH3-128), flushed to disk, read back and hashed again, and only then renamed to its final name:
a full disk, a read-only destination, a failure or a cancel never leaves a half-written file under
a real name. An optional second (backup) destination gets the same verified copy. A manifest in
each destination (`.aesthete-ingest.json`) remembers the content hash of every file copied there,
so ingesting the same card again skips what is already there, and sequence numbers continue.
An image's XMP sidecar on the card is copied beside its renamed copy, so its marks come along.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import string
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from aesthete_gui.atomic_write import write_text_atomically
from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.xmp import find_sidecar
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.library_scan import normalize_root, scan_folder
from aesthete_gui.services.verified_copy import (
    copy_verified,
    destination_problem,
    file_hash,
    write_problem,
)

if TYPE_CHECKING:
    from aesthete_gui.services.library import ImportSummary
    from aesthete_gui.store import Profile

DEFAULT_TEMPLATE = "{date:%Y-%m-%d}/{date:%Y%m%d}_{camera}_{seq:04d}{ext}"
"""A folder per day; files named by date, camera and a running number (e.g. 20240612_X-T5_0007.raf)."""
TEMPLATE_FIELDS = ("date", "camera", "seq", "name", "ext")
MANIFEST = ".aesthete-ingest.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class IngestError(AestheteError):
    """An ingest that cannot go on (a destination full, read-only or missing; a bad template)."""


@dataclass
class IngestSummary:
    """What an ingest did: files found, copied, skipped as already there, failed; and the import."""

    found: int = 0
    copied: int = 0
    skipped: int = 0
    backed_up: int = 0
    bytes_copied: int = 0
    cancelled: bool = False
    copies: list[tuple[str, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    imported: ImportSummary | None = None


@dataclass(frozen=True)
class _Source:
    path: str
    size: int
    taken: datetime
    camera: str


def check_template(template: str) -> None:
    """IngestError unless `template` uses only known fields and names a file inside the destination."""
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as error:
        raise IngestError(f"renaming template {template!r} is not valid: {error}") from None
    unknown = sorted({n for n in names if n not in TEMPLATE_FIELDS})
    if unknown:
        raise IngestError(
            f"renaming template: unknown field {{{unknown[0]}}}; use {', '.join(TEMPLATE_FIELDS)}"
        )
    example = render(
        template, _Source("x/IMG_0001.JPG", 0, datetime(2024, 1, 2, 3, 4, 5), "Camera"), 1
    )
    if not Path(example).name or Path(example).is_absolute() or ".." in Path(example).parts:
        raise IngestError(f"renaming template {template!r} must name a file inside the destination")


def render(template: str, source: _Source, seq: int) -> str:
    """The relative destination path of one source file under `template`."""
    original = Path(source.path)
    try:
        relative = template.format(date=source.taken, camera=source.camera, seq=seq,
                                   name=original.stem, ext=original.suffix.lower())  # fmt: skip
    except (ValueError, KeyError, IndexError) as error:
        raise IngestError(f"renaming template {template!r} cannot be applied: {error}") from None
    return relative.replace("\\", "/").lstrip("/")


def _describe(path: str, size: int) -> _Source:
    from aesthete_gui.imaging.metadata import read_metadata

    taken = datetime.fromtimestamp(os.stat(path).st_mtime)
    camera = "unknown-camera"
    try:
        meta = read_metadata(path)
        taken = meta.capture_time.replace(tzinfo=None) if meta.capture_time else taken
        camera = _UNSAFE.sub("-", meta.camera or "").strip("-.") or camera
    except Exception:  # no readable metadata: the file's time and an unknown camera name it
        pass
    return _Source(path, size, taken, camera)


def _load_manifest(root: Path) -> dict[str, object]:
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"next_seq": 1, "files": {}}
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return {"next_seq": 1, "files": {}}
    return data


def _save_manifest(root: Path, manifest: dict[str, object]) -> None:
    write_text_atomically(root / MANIFEST, json.dumps(manifest, indent=1))


def _destination_problem(error: OSError, root: Path) -> IngestError:
    return IngestError(write_problem(error, root))


def _check_destination(root: Path, needed: int) -> None:
    problem = destination_problem(root, needed)
    if problem is not None:
        raise IngestError(problem)


def _copy_verified(source: str, target: Path, cancel: CancelToken | None) -> str | None:
    """Copy to a temporary name beside `target`, verify by hash, rename; the hash, or None if cancelled."""
    return copy_verified(source, target, cancel, prefix=".aesthete-ingest-", replace=True)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _free_name(root: Path, relative: str) -> str:
    """`relative`, or `name-2.ext`, `name-3.ext`… when another file already has that name."""
    candidate, number = Path(relative), 2
    while (root / candidate).exists():
        candidate = Path(relative).with_name(
            f"{Path(relative).stem}-{number}{Path(relative).suffix}"
        )
        number += 1
    return candidate.as_posix()


def _source_hash(path: str) -> str:
    return file_hash(path)


def _copy_sidecar(
    source: str, copied: Path, summary: IngestSummary, cancel: CancelToken | None
) -> None:
    """Copy the source's XMP sidecar beside its renamed copy (same naming style), when it has one."""
    sidecar = find_sidecar(source)
    if sidecar is None:
        return
    full = sidecar.name.lower().startswith(os.path.basename(source).lower() + ".")
    target = copied.with_name(copied.name + ".xmp") if full else copied.with_suffix(".xmp")
    if target.exists():
        return
    try:
        _copy_verified(str(sidecar), target, cancel)
    except OSError as error:
        if error.filename == str(sidecar):
            summary.problems.append(
                (str(sidecar), f"sidecar not copied ({error.strerror or error})")
            )
            return
        raise


def _source_key(path: str, size: int, mtime_ns: int | None) -> str:
    return f"{os.path.basename(path)}|{size}|{mtime_ns}"


def _already_there(root: Path, manifest: dict, key: str, path: str) -> tuple[bool, str | None]:
    """(True, hash) when this file is already in `root`; the source hash when it had to be read."""
    files, sources = manifest["files"], manifest.setdefault("sources", {})
    known = sources.get(key)
    if known in files and (root / files[known]).is_file():
        return True, known
    content = _source_hash(path)
    if content in files and (root / files[content]).is_file():
        sources[key] = content
        return True, content
    return False, content


def _copy_one(
    source: _Source,
    content: str,
    root: Path,
    manifest: dict,
    template: str,
    key: str,
    cancel: CancelToken | None,
) -> str | None:
    """Copy one file into `root` under the template; its relative path, or None when cancelled."""
    seq = int(manifest.get("next_seq", 1))
    relative = _free_name(root, render(template, source, seq))
    copied = _copy_verified(source.path, root / relative, cancel)
    if copied is None:
        return None
    if copied != content:
        _remove(str(root / relative))
        raise OSError(errno.EIO, "the file changed while it was being copied", source.path)
    manifest["files"][content] = relative
    manifest.setdefault("sources", {})[key] = content
    manifest["next_seq"] = seq + 1
    _save_manifest(root, manifest)
    return relative


def ingest_card(
    source: str | os.PathLike[str],
    destination: str | os.PathLike[str],
    template: str = DEFAULT_TEMPLATE,
    backup: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> IngestSummary:
    """Copy every image under `source` into `destination` (and `backup`), renamed, verified, skipping
    files already copied there. Raises IngestError for a missing source, a bad template, or a full or
    read-only destination (the file in progress is removed; files copied before it are kept).
    """
    report = progress or (lambda _p: None)
    source_root = normalize_root(source)
    if not os.path.isdir(source_root):
        raise IngestError(f"not a folder: {source_root}")
    check_template(template)
    roots = [Path(normalize_root(destination))] + ([Path(normalize_root(backup))] if backup else [])
    for root in roots:
        if root == Path(source_root) or Path(source_root) in root.parents:
            raise IngestError(f"destination {root} lies inside the source folder; choose another")
    summary = IngestSummary()
    found = [
        f for f in scan_folder(source_root, cancel) if f.problem is None and f.size is not None
    ]
    summary.found = len(found)
    manifests = [_load_manifest(root) for root in roots]
    plan: list[tuple[str, int, int | None, list[str | None]]] = []
    for index, item in enumerate(found):
        if cancel is not None and cancel.cancelled:
            summary.cancelled = True
            return summary
        report(Progress(index, len(found), f"checking {os.path.basename(item.path)}"))
        key = _source_key(item.path, item.size or 0, item.mtime_ns)
        try:
            checks = [
                _already_there(root, m, key, item.path)
                for root, m in zip(roots, manifests, strict=True)
            ]
        except OSError as error:
            summary.problems.append((item.path, f"cannot be read ({error.strerror or error})"))
            continue
        if all(there for there, _ in checks):
            summary.skipped += 1
            continue
        plan.append(
            (
                item.path,
                item.size or 0,
                item.mtime_ns,
                [None if there else h for there, h in checks],
            )
        )
    for position, root in enumerate(roots):
        _check_destination(
            root, sum(size for _, size, _, wanted in plan if wanted[position] is not None)
        )
    total = sum(size for _, size, _, _ in plan)
    done = 0
    for path, size, mtime_ns, wanted in plan:
        if cancel is not None and cancel.cancelled:
            break
        report(Progress(done, total, f"copying {os.path.basename(path)}"))
        described = _describe(path, size)
        key = _source_key(path, size, mtime_ns)
        for position, (root, manifest) in enumerate(zip(roots, manifests, strict=True)):
            content = wanted[position]
            if content is None:
                continue
            try:
                relative = _copy_one(described, content, root, manifest, template, key, cancel)
            except OSError as error:
                if error.filename == path:
                    summary.problems.append((path, f"cannot be copied ({error.strerror or error})"))
                    break
                raise _destination_problem(error, root) from None
            if relative is None:
                break
            _copy_sidecar(path, root / relative, summary, cancel)
            if position == 0:
                summary.copied += 1
                summary.copies.append((path, str(root / relative)))
            else:
                summary.backed_up += 1
        done += size
        summary.bytes_copied = done
    summary.cancelled = bool(cancel is not None and cancel.cancelled)
    report(Progress(done, total, "copied"))
    return summary


def ingest_and_import(
    profile: Profile,
    source: str | os.PathLike[str],
    destination: str | os.PathLike[str],
    template: str = DEFAULT_TEMPLATE,
    backup: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    workers: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> IngestSummary:
    """ingest_card, then import the destination into the profile (unless cancelled): one job."""
    from aesthete_gui.services.library import import_folders

    summary = ingest_card(source, destination, template, backup, progress, cancel)
    if not summary.cancelled:
        imported = import_folders(
            profile, [destination], progress=progress, cancel=cancel, workers=workers, cache_dir=cache_dir
        )
        summary.imported = imported
        summary.cancelled = imported.cancelled
    return summary
