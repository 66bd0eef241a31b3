"""Moves that a kill interrupted are finished by the next copy or move: the record beside the profile.

A move of a photo unit has three steps after its copies are verified in place: the library is
pointed at the copies, the originals are removed, and the move is done. Right before the first
step the move is appended to `<profile>.moves.jsonl` ({"id", "pid", "files": [[source, copy,
hash], …]}), and {"done": id} once the last original is gone. The next `copy-picks` (or the
window's copy or move) with that profile first finishes every move whose process is gone: for
each file whose copy is there with the recorded bytes, the library follows the copy and an
original that still holds those same bytes is removed (it is a duplicate); an original whose
copy is not there, or that changed since, stays. The file is removed when no move is pending.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from aesthete_gui.atomic_write import process_stamp, same_file, stamp_alive, sync_folder
from aesthete_gui.services.verified_copy import file_hash

Follow = Callable[[str, str], None]
"""(original path, copy path): point the library's image at the copy (nothing when it has none)."""


def journal_path(profile_path: str | os.PathLike[str]) -> Path:
    """Where the moves of the profile at `profile_path` are recorded."""
    path = Path(profile_path)
    return path.with_name(path.name + ".moves.jsonl")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[int]:
    """The record opened for appending and locked; reopened when another process removed it meanwhile."""
    while True:
        handle = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        with contextlib.suppress(ImportError, OSError):
            import fcntl

            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            if os.stat(path).st_ino == os.fstat(handle).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(handle)
    try:
        yield handle
    finally:
        os.close(handle)


def _read(path: Path) -> list[dict]:
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return []
    records = []
    for line in lines:
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict):
                records.append(record)
    return records


def begin(profile_path: str | os.PathLike[str], files: list[tuple[str, str, str]]) -> str:
    """Record a move about to change the library and remove originals; its id."""
    entry_id = uuid.uuid4().hex
    entry = {"id": entry_id, **process_stamp(), "files": [list(f) for f in files]}
    path = journal_path(profile_path)
    with _locked(path) as handle:
        os.write(handle, (json.dumps(entry) + "\n").encode("utf-8"))
        os.fsync(handle)
    return entry_id


def done(profile_path: str | os.PathLike[str], entry_id: str) -> None:
    """Record that the move `entry_id` is complete; the record goes when nothing is pending."""
    path = journal_path(profile_path)
    with _locked(path) as handle:
        os.write(handle, (json.dumps({"done": entry_id}) + "\n").encode("utf-8"))
        if not _pending(_read(path), alive_too=True):
            os.unlink(path)


def _alive(record: dict) -> bool:
    """Whether the move was recorded by another process that is still running (not one given its pid since)."""
    return record.get("pid") != os.getpid() and stamp_alive(record)


def _pending(records: list[dict], alive_too: bool = False) -> list[dict]:
    finished = {r["done"] for r in records if isinstance(r.get("done"), str)}
    return [
        r for r in records
        if isinstance(r.get("id"), str) and r["id"] not in finished and isinstance(r.get("files"), list)
        and (alive_too or not _alive(r))
    ]  # fmt: skip


def _same(path: str, digest: str) -> bool:
    try:
        return os.path.isfile(path) and file_hash(path) == digest
    except OSError:
        return False


def aside_name(source: str | os.PathLike[str]) -> str:
    """Where a move parks a sidecar while it checks that the sidecar is still the one copied."""
    folder, name = os.path.split(os.fspath(source))
    return os.path.join(folder, f".{name}.aesthete-moving")


def _settle_aside(source: str, digest: str) -> list[str]:
    """A sidecar a stopped move left parked: removed when it holds the bytes copied, else put back
    under its name (another program's edit), or named in a note when that name is taken."""
    aside = aside_name(source)
    if not os.path.lexists(aside):
        return []
    if _same(aside, digest):
        with contextlib.suppress(OSError):
            os.unlink(aside)
        return []
    try:
        os.link(aside, source)
        os.unlink(aside)
        return [f"{source}: put back, an interrupted move had parked it after another program changed it"]
    except OSError:
        return [f"{aside}: another program's version of {os.path.basename(source)}, parked by an interrupted move; kept"]


def finish_interrupted(profile_path: str | os.PathLike[str], follow: Follow) -> list[str]:
    """Finish the moves a stopped process left half-done (see the module docstring); one note per file
    whose original was removed now or had to stay."""
    path = journal_path(profile_path)
    if not path.exists():
        return []
    notes: list[str] = []
    for entry in _pending(_read(path)):
        for item in entry["files"]:
            if not (isinstance(item, list) and len(item) == 3 and all(isinstance(v, str) for v in item)):
                continue
            source, copy, digest = item
            notes.extend(_settle_aside(source, digest))
            if not _same(copy, digest):
                if os.path.exists(source):
                    notes.append(f"{source}: an interrupted move left it in place (no copy with the same bytes)")
                continue
            if same_file(source, copy):  # a journal written through an alias of the same folder
                notes.append(f"{source}: left in place, its copy {copy} is this same file")
                continue
            follow(source, copy)
            if _same(source, digest):
                with contextlib.suppress(OSError):
                    os.unlink(source)
                    sync_folder(os.path.dirname(source))
                    notes.append(f"{source}: removed, finishing an interrupted move to {copy}")
            elif os.path.exists(source):
                notes.append(f"{source}: changed since an interrupted move copied it to {copy}; both kept")
        done(profile_path, entry["id"])
    return notes
