"""What ingest copied into a destination: an append-only record that concurrent ingests merge, never overwrite.

`.aesthete-ingest.jsonl` in the destination holds one JSON object a line: `{"hash", "path", "seq",
"inode", "size", "mtime_ns"}` for each file about to get its name (written *before* the name, so a
kill in between leaves a record of a file that is not there, which a rerun copies again, and never
a file nobody knows about), and `{"source", "hash"}` to remember a card file's hash by name, size
and time. Lines are appended under the destination's folder lock, so two ingests into one library
see each other's files and sequence numbers. "Already there" means the same bytes: a recorded file
counts only while it is the very file written (same inode, size and time) or hashes the same.
Appends are all or nothing: a short write is continued, a failed one (a full disk) is cut back to
the length before. A line that does not parse (a torn write of an older version, a crash) is
ignored, and the next append starts on a new line; the files such a line named are found by their
bytes among the files no line names (`unrecorded`), so a rerun copies none of them again. The JSON manifest of earlier versions
(`.aesthete-ingest.json`) is read as a starting point and never written again.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from aesthete_gui.atomic_write import same_file
from aesthete_gui.imaging.photo_units import stem_key
from aesthete_gui.services.verified_copy import file_hash

JOURNAL = ".aesthete-ingest.jsonl"
LEGACY_MANIFEST = ".aesthete-ingest.json"


@dataclass(frozen=True)
class Recorded:
    """One file ingest wrote: its path under the destination and what it was when written."""

    path: str
    inode: int | None = None
    size: int | None = None
    mtime_ns: int | None = None


class IngestJournal:
    """The merged record of every ingest into one destination (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.by_hash: dict[str, list[Recorded]] = {}
        self.sources: dict[str, str] = {}
        self.next_seq = 1
        self.torn = False
        """Whether a line could not be read: the files it named are found by unrecorded()."""
        self._paths: set[str] = set()
        self._unrecorded: dict[Path, dict[int, list[str]]] = {}
        self._offset = 0
        self._read_legacy()
        self.refresh()

    def _read_legacy(self) -> None:
        try:
            data = json.loads((self.root / LEGACY_MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict):
            return
        for digest, path in (data.get("files") or {}).items():
            if isinstance(digest, str) and isinstance(path, str):
                self._paths.add(path)
                self.by_hash.setdefault(digest, []).append(Recorded(path))
        for key, digest in (data.get("sources") or {}).items():
            if isinstance(key, str) and isinstance(digest, str):
                self.sources[key] = digest
        seq = data.get("next_seq")
        if isinstance(seq, int):
            self.next_seq = max(self.next_seq, seq)

    def refresh(self) -> None:
        """Read the lines other ingests appended since the last look."""
        try:
            with open(self.root / JOURNAL, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next look
        self._offset += end
        self.torn = self.torn or end < len(data)
        for line in data[:end].splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                self.torn = True
                continue
            if isinstance(record, dict):
                self._apply(record)

    def _apply(self, record: dict) -> None:
        digest = record.get("hash")
        if not isinstance(digest, str):
            return
        if isinstance(record.get("source"), str):
            self.sources[record["source"]] = digest
        if isinstance(record.get("path"), str) and _inside(record["path"]):
            self._paths.add(record["path"])
            self.by_hash.setdefault(digest, []).append(
                Recorded(record["path"], record.get("inode"), record.get("size"), record.get("mtime_ns"))
            )
        if isinstance(record.get("seq"), int):
            self.next_seq = max(self.next_seq, record["seq"] + 1)

    def append(self, records: list[dict]) -> None:
        """Add `records` (each a line), all or none; call under the destination's folder lock.

        A short write is continued until every byte is down; any failure (a full disk) cuts the file
        back to its length before, so no torn line stays and the OSError reaches the caller. A torn
        last line an older version or a crash left is closed first: the new records start on a line
        of their own (the torn one does not parse and is ignored)."""
        if not records:
            return
        text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode("utf-8")
        handle = os.open(self.root / JOURNAL, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            before = os.fstat(handle).st_size
            if before and os.pread(handle, 1, before - 1) != b"\n":
                text = b"\n" + text
            try:
                _write_all(handle, text)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.ftruncate(handle, before)
                raise
        finally:
            os.close(handle)
        self.refresh()

    def find(self, digest: str, within: set[str] | None = None, source: str | None = None) -> Recorded | None:
        """Where a file with these bytes was written and still is. With `within` (folder/stem keys of a
        unit's photographs) only a file pairing with them counts, and it counts while it exists: tools
        rewrite sidecars in place. A photograph counts only while its bytes hash to `digest` (its size,
        inode and time once sufficed: a copy damaged in place with its time kept was "the same
        bytes"), only inside the destination once links in its path are followed, and never when it
        is the card file `source` itself."""
        root = os.path.realpath(self.root)
        for recorded in self.by_hash.get(digest, []):
            path = self.root / recorded.path
            try:
                info = os.lstat(path)  # a link is never "the copy": it may lead back to the card
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or not _within(os.path.realpath(path), root):
                continue  # a linked or mounted folder in the path may lead out of the destination
            if source is not None and same_file(source, path):
                continue
            if within is not None:
                folder, name = os.path.split(recorded.path)
                if f"{folder}/{stem_key(name)}" in within:
                    return recorded
                continue
            try:
                if recorded.size in (None, info.st_size) and file_hash(path) == digest:
                    return recorded
            except OSError:
                continue
        return None

    def unrecorded(self, folder: Path, digest: str, size: int) -> Recorded | None:
        """A file directly in `folder` with these bytes that no line records, when a line was torn
        (its record lost; otherwise every file ingest named is recorded first); None if there is none.
        Only files no line names are looked at, and only those of the same size are hashed."""
        if not self.torn:
            return None
        index = self._unrecorded.get(folder)
        if index is None:
            index = self._unrecorded[folder] = {}
            try:
                entries = list(os.scandir(folder))
            except OSError:
                entries = []
            for entry in entries:
                relative = (folder / entry.name).relative_to(self.root).as_posix()
                if entry.name.startswith(".") or relative in self._paths:
                    continue
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(info.st_mode):
                        index.setdefault(info.st_size, []).append(entry.name)
        for name in index.get(size, []):
            try:
                info = os.stat(folder / name)
                if info.st_size == size and file_hash(folder / name) == digest:
                    return Recorded((folder / name).relative_to(self.root).as_posix(), info.st_ino, size, info.st_mtime_ns)
            except OSError:
                continue
        return None

def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _inside(relative: str) -> bool:
    """Whether a journal line's path names a file inside the destination (relative, without ".."):
    lines are data from disk, and one naming the card itself once made an ingest say every
    photograph was "already there" in an empty destination."""
    parts = PurePosixPath(relative).parts
    return bool(parts) and not PurePosixPath(relative).is_absolute() and ".." not in parts


def _write_all(handle: int, data: bytes) -> None:
    """os.write until every byte is written (it may write fewer); OSError when the disk refuses."""
    view = memoryview(data)
    while view:
        written = os.write(handle, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]
