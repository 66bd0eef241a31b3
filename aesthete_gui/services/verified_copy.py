"""Copy a file so that nothing is lost or half-written: card ingest and picks export both use it.

The bytes go to a temporary name beside the target while they are hashed (XXH3-128), are flushed
to disk, read back and hashed again; only a copy of the right size and hash is renamed to the
target (never over a file that appeared there meanwhile), and the folder entry is flushed too. On
any failure or a cancel the temporary file is removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from pathlib import Path

import xxhash

from aesthete_gui.jobs import CancelToken

CHUNK = 1 << 20


class _Cancelled(Exception):
    pass


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


def _place(temp: str, target: Path) -> None:
    """Rename `temp` to `target` unless something is there already (FileExistsError then)."""
    try:
        os.link(temp, target)  # fails when the name is taken: a rename would replace that file
    except FileExistsError:
        raise
    except OSError:  # no hard links here (FAT/exFAT cards, some network shares)
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "a file with this name appeared meanwhile", str(target)) from None
        os.replace(temp, target)
        return
    os.unlink(temp)


def copy_verified(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    cancel: CancelToken | None = None,
    *,
    prefix: str = ".aesthete-copy-",
    suffix: str = ".part",
    replace: bool = False,
) -> str | None:
    """Copy `source` to `target` as the module docstring says; the content hash, or None if
    cancelled (nothing is left behind then). `replace` lets the copy take the place of an existing
    target; without it an existing target raises FileExistsError. OSError on any failure."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
    try:
        digest = xxhash.xxh3_128()
        size = 0
        with open(source, "rb") as reader, os.fdopen(handle, "wb") as writer:
            while chunk := reader.read(CHUNK):
                if cancel is not None and cancel.cancelled:
                    raise _Cancelled
                digest.update(chunk)
                writer.write(chunk)
                size += len(chunk)
            writer.flush()
            os.fsync(writer.fileno())
        if os.stat(temp).st_size != size or file_hash(temp) != digest.hexdigest():
            raise OSError(errno.EIO, "the copy does not match the original (size or hash differs)", str(target))
        with contextlib.suppress(OSError):
            shutil.copystat(source, temp)
        if replace:
            os.replace(temp, target)
        else:
            _place(temp, target)
        sync_folder(target.parent)
    except _Cancelled:
        _remove(temp)
        return None
    except BaseException:
        _remove(temp)
        raise
    return digest.hexdigest()


def write_problem(error: OSError, folder: str | os.PathLike[str]) -> str:
    """A photographer's sentence for a failed write into `folder` (full, read-only, other)."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"destination is full: {folder} (free space and try again; nothing half-written was kept)"
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"destination is read-only: {folder} ({error.strerror}); choose a folder you can write"
    return f"cannot write to {folder}: {error.strerror or error}"


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
