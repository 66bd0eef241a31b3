"""Copy a file so that nothing is lost, half-written or replaced: card ingest and picks export both use it.

The bytes go to a temporary name beside the target while they are hashed (XXH3-128), are flushed
to disk, read back and hashed again (`stage`); only a copy of the right size and hash gets its
name (`place`), and never over a file that is there: the final step is
`renameat2(RENAME_NOREPLACE)`, one atomic call that fails when the name is taken. It works on
ext4, tmpfs and overlayfs (measured: 10–21 µs a file, the same as link-then-unlink); where the
kernel or file system lacks it (NFS, some FUSE mounts) a hard link then unlink does the same, and
where there are no hard links either (FAT, exFAT cards) the name is first created with O_EXCL and
then replaced by the copy. On any failure or a cancel the temporary file is removed.

Temporary files are named `.aesthete-<kind>-<pid>-XXXXXXXX.part`; `clean_own_temps` removes the
ones left by a process that no longer runs (a killed ingest or move), so a rerun leaves none.
`folder_lock` serialises Aesthete processes choosing names in one folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

import xxhash

from aesthete_gui.jobs import CancelToken
from aesthete_gui.safe_names import PATH_MAX

CHUNK = 1 << 20
_OWN_TEMP = re.compile(r"^\.aesthete-(?:ingest|copy)-(?:(\d+)-)?[A-Za-z0-9_]+\.part$")
_RENAME_NOREPLACE = 1
_AT_FDCWD = -100
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP}
_NO_LINKS = _UNSUPPORTED | {errno.EPERM, errno.EMLINK, errno.EXDEV}
# the libc function once looked up; False when this libc has none
_renameat2: Callable[..., int] | Literal[False] | None = None


class _Cancelled(Exception):
    pass


@dataclass(frozen=True)
class Staged:
    """A verified copy under a temporary name: where it is, its hash, size, inode and modification time."""

    temp: Path
    digest: str
    size: int
    inode: int
    mtime_ns: int


def file_hash(path: str | os.PathLike[str]) -> str:
    """Hex XXH3-128 of a file's bytes, read in 1 MiB chunks."""
    digest = xxhash.xxh3_128()
    with open(path, "rb") as reader:
        while chunk := reader.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _remove(path: str | os.PathLike[str]) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Flush a folder's entries (a rename or an unlink) to disk, where the system allows it."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def stage(
    source: str | os.PathLike[str], folder: str | os.PathLike[str], cancel: CancelToken | None = None,
    kind: str = "copy",
) -> Staged | None:  # fmt: skip
    """Copy `source` into a temporary file in `folder`, flushed and verified; None if cancelled (nothing
    left behind then). OSError on any failure: its `filename` is `source` when the source could not be read."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".aesthete-{kind}-{os.getpid()}-", suffix=".part", dir=folder)
    try:
        digest = xxhash.xxh3_128()
        size = 0
        with open(source, "rb") as reader, os.fdopen(handle, "wb") as writer:
            while chunk := _read(reader, source):
                if cancel is not None and cancel.cancelled:
                    raise _Cancelled
                digest.update(chunk)
                writer.write(chunk)
                size += len(chunk)
            writer.flush()
            os.fsync(writer.fileno())
        if os.stat(temp).st_size != size or file_hash(temp) != digest.hexdigest():
            raise OSError(errno.EIO, "the copy does not match the original (size or hash differs)", str(folder))
        with contextlib.suppress(OSError):
            shutil.copystat(source, temp)
        info = os.stat(temp)
        return Staged(Path(temp), digest.hexdigest(), size, info.st_ino, info.st_mtime_ns)
    except _Cancelled:
        _remove(temp)
        return None
    except BaseException:
        _remove(temp)
        raise


def _read(reader: BinaryIO, source: str | os.PathLike[str]) -> bytes:
    """The next chunk; an error names the source (a card pulled mid-file), not the destination."""
    try:
        return reader.read(CHUNK)
    except OSError as error:
        raise OSError(error.errno, error.strerror, os.fspath(source)) from error


def discard(staged: Staged | None) -> None:
    """Remove a staged copy that will not be placed."""
    if staged is not None:
        _remove(staged.temp)


def _rename_noreplace(temp: Path, target: Path) -> bool:
    """renameat2(RENAME_NOREPLACE); False when the kernel or file system does not offer it."""
    global _renameat2
    if not sys.platform.startswith("linux"):
        return False
    if _renameat2 is None:
        try:
            _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
        except (OSError, AttributeError):
            _renameat2 = False
    if _renameat2 is False:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(temp), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    if code == errno.EEXIST:
        raise FileExistsError(errno.EEXIST, "a file with this name is already there", str(target))
    raise OSError(code, os.strerror(code), str(target))


def _link_then_unlink(temp: Path, target: Path) -> bool:
    """A hard link under the final name (fails when the name is taken), then the temporary name goes;
    False where the file system has no hard links."""
    try:
        os.link(temp, target)
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, "a file with this name is already there", str(target)) from None
    except OSError as error:
        if error.errno in _NO_LINKS:
            return False
        raise
    os.unlink(temp)
    return True


def place(temp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Give the file at `temp` the name `target` without ever replacing a file there (FileExistsError then)."""
    temp, target = Path(temp), Path(target)
    if _rename_noreplace(temp, target) or _link_then_unlink(temp, target):
        return
    # No hard links (FAT, exFAT): claim the name first, so nothing else can take it meanwhile.
    handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.close(handle)
    os.replace(temp, target)


def take_back(staged: Staged, target: str | os.PathLike[str]) -> None:
    """Undo a placement: `target`, when it still is the placed copy (same inode), gets its temporary
    name back (so it can be placed elsewhere or discarded)."""
    with contextlib.suppress(OSError):
        if os.stat(target).st_ino == staged.inode:
            os.rename(target, staged.temp)


def copy_verified(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    cancel: CancelToken | None = None,
    *,
    kind: str = "copy",
) -> str | None:
    """Stage `source` beside `target` and place it there; the content hash, or None if cancelled.
    FileExistsError when `target` is taken (nothing is replaced), OSError on any other failure."""
    target = Path(target)
    staged = stage(source, target.parent, cancel, kind)
    if staged is None:
        return None
    try:
        place(staged.temp, target)
    except BaseException:
        discard(staged)
        raise
    sync_folder(target.parent)
    return staged.digest


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def clean_own_temps(folder: str | os.PathLike[str], started: float) -> int:
    """Remove the temporary copies in `folder` that a stopped Aesthete process left (its pid is gone,
    or an older name without pid from before `started`); the number removed."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        match = _OWN_TEMP.match(entry.name)
        if match is None:
            continue
        try:
            if match.group(1) is not None:
                pid = int(match.group(1))
                if pid == os.getpid() or _alive(pid):
                    continue
            elif entry.stat(follow_symlinks=False).st_mtime >= started:
                continue
            os.unlink(entry.path)
            removed += 1
        except OSError:
            continue
    return removed


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (flock on the folder itself) for the block; other Aesthete
    processes wait. Where the system has no such lock (Windows, some network file systems) the
    block runs unlocked and the no-replace placement alone keeps files safe."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def write_problem(error: OSError, folder: str | os.PathLike[str]) -> str:
    """A photographer's sentence for a failed write into `folder` (full, read-only, name too long, other)."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"destination is full: {folder} (free space and run it again; nothing half-written was kept)"
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"destination is read-only: {folder} ({error.strerror}); choose a folder you can write"
    if error.errno == errno.ENAMETOOLONG:
        where = error.filename or folder
        return f"name too long for the destination's file system ({error.strerror}): {where}"
    return f"cannot write to {folder}: {error.strerror or error}"


def read_problem(error: OSError) -> str:
    """A photographer's sentence for a source file that could not be read (vanished, unreadable)."""
    if error.errno == errno.ENOENT:
        return "vanished before it could be copied (card removed?); skipped, the rest went on"
    if error.errno == errno.ENAMETOOLONG:
        return f"its path is longer than this system allows ({PATH_MAX} bytes); skipped"
    if error.errno == errno.EIO:
        return f"cannot be read (input/output error: a failing card?); skipped ({error.strerror})"
    return f"cannot be read ({error.strerror or error}); skipped"


def destination_problem(folder: Path, needed: int) -> str | None:
    """Why `folder` (created when missing) cannot take `needed` bytes, or None when it can."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return write_problem(error, folder)
    if not folder.is_dir():
        return f"destination is not a folder: {folder}"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"destination is read-only: {folder}; choose a folder you can write"
    free = shutil.disk_usage(folder).free
    if needed > free:
        return f"destination is full: {folder} has {free / 1e6:.0f} MB free, the new files need {needed / 1e6:.0f} MB"
    return None
