"""Profile errors a user can act on, told apart from bugs by SQLite's result codes and OS error numbers.

SQLite reports what went wrong as a result code (`sqlite_errorcode` on Python's sqlite3 errors):
CORRUPT and NOTADB mean a damaged or foreign file, FULL a full disk, READONLY and CANTOPEN a file
or folder that cannot be written, BUSY/LOCKED another writer holding the lock past the busy
timeout, IOERR a disk fault. Those become a `ProfileError` subclass whose message says what to do;
every other error (a misuse of the API, a constraint the code should have checked) stays a bug.
"""

from __future__ import annotations

import errno
import os
import shlex
import sqlite3
from pathlib import Path
from typing import Literal

from aesthete_gui.errors import AestheteError

# SQLite primary result codes (https://sqlite.org/rescode.html); extended codes keep them in the low byte.
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26

FULL_DISK_BYTES = 1 << 20
"""Below this much free space an I/O error is reported as a full disk (SQLite gives no errno)."""

KEEP_SAFE = "The change that failed was not made; everything saved before it is kept."
"""Said after a profile error: true of one action and of a long job alike (an import that filled the
disk had saved its first photographs: an attack read \"Nothing was changed by this action\" after 60)."""


class ProfileError(AestheteError):
    """A profile file that cannot be used as it is; the message names the file and what to do."""

    reason = "cannot be used"
    advice = ""

    def __init__(
        self, path: Path | str | None, reason: str | None = None, advice: str | None = None
    ) -> None:
        self.path = None if path is None else Path(path)
        self.reason = reason or self.reason
        self.advice = self.advice if advice is None else advice
        where = f"profile {self.path}" if self.path is not None else "the profile"
        super().__init__(f"{where}: {self.reason}. {self.advice}".strip())

    def __reduce__(self) -> tuple[type[ProfileError], tuple[Path | None, str, str]]:
        # rebuilt from its parts when it crosses a process boundary (a worker pool)
        return (type(self), (self.path, self.reason, self.advice))


class NotAProfileError(ProfileError):
    """The file is not an SQLite database (another kind of file, encrypted, or a foreign database)."""

    reason = "is not an Aesthete profile (not an SQLite database, or an encrypted one)"
    advice = "Check the --profile path; give a new file name to start a new profile."


class ProfileDamagedError(ProfileError):
    """SQLite found the file damaged (malformed pages, a truncated file)."""

    reason = "the file is damaged (SQLite: database disk image is malformed)"
    advice = (
        "Keep a copy of the file as it is, then restore the profile from a backup, or recover what "
        "can be read with `sqlite3 PROFILE .recover | sqlite3 NEW.db`."
    )


class ProfileIsFolderError(ProfileError):
    """A folder was given where the profile file belongs."""

    reason = "is a folder, not a profile file"
    advice = "Give the path of a file inside it, for example --profile FOLDER/aesthete.db."


class ProfileReadOnlyError(ProfileError):
    """The file, its folder or its file system cannot be written; Aesthete saves every change at once."""

    reason = "cannot be written"
    advice = (
        "Aesthete saves every change to the profile at once: make the file and its folder writable, "
        "or copy the profile to a writable place and use --profile COPY. " + KEEP_SAFE
    )


class ProfileBusyError(ProfileError):
    """Another connection held the write lock for longer than the busy timeout."""

    reason = "is busy: another program (or another Aesthete) kept it locked for too long"
    advice = "Wait until that program has finished or close it, then try again. " + KEEP_SAFE


class ProfileDiskFullError(ProfileError):
    """The disk (or the user's quota) holding the profile is full."""

    reason = "the disk holding it is full"
    advice = "Free some space on that disk and try again. " + KEEP_SAFE


class ProfileDiskError(ProfileError):
    """The operating system reported an input/output error while reading or writing the file."""

    reason = "the disk reported an error while reading or writing it"
    advice = "Check the disk (is it still connected?) and try again; if it persists, copy the profile elsewhere."


class ProfileCannotOpenError(ProfileError):
    """The file cannot be opened at all (missing folder, no permission to read it)."""

    reason = "cannot be opened"
    advice = "Check that the file and its folder exist and that you may read and write them."


class NoProfileError(ProfileError):
    """Nothing is at the path yet (no file, an empty one, an SQLite file without a table) and the caller
    asked not to start a profile there: a mistyped path must not become an empty profile."""

    reason = "there is no profile here: nothing was ever imported into it"

    def __init__(self, path: Path | str | None, reason: str | None = None, advice: str | None = None) -> None:
        where = shlex.quote(str(path)) if path is not None else "PROFILE"
        super().__init__(path, reason, advice if advice is not None else
                         f"Check the path, or start a profile there with: aesthete --profile {where} import FOLDER")


class ProfileTooNewError(ProfileError):
    """The profile was written by a newer Aesthete (a schema version this one does not know)."""

    reason = "was written by a newer Aesthete"
    advice = "Update Aesthete to open it."


def primary_code(error: sqlite3.Error) -> int | None:
    """SQLite's primary result code of `error` (None for errors raised by Python itself)."""
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


def read_only_reason(path: Path) -> str | None:
    """Why `path` (a profile file, existing or not) cannot be written, or None when it looks writable."""
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is None:
        return None
    if os.statvfs(existing).f_flag & os.ST_RDONLY:
        return "it is on a read-only file system"
    if existing == path:
        if not os.access(path, os.W_OK):
            return "the file is not writable"
        existing = path.parent
    if not os.access(existing, os.W_OK):
        if existing == path.parent:
            return "its folder is not writable (SQLite keeps its journal files beside the profile)"
        return f"the folder {existing} is not writable"
    return None


def disk_is_full(path: Path) -> bool:
    """True when the file system holding `path` has (almost) no space left for this user."""
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is None:
        return False
    stats = os.statvfs(existing)
    return stats.f_bavail * stats.f_frsize < FULL_DISK_BYTES


def _from_sqlite(error: sqlite3.Error, path: Path | None) -> ProfileError | None:
    code = primary_code(error)
    detail = f"SQLite: {error}"
    if code == SQLITE_NOTADB:
        return NotAProfileError(path)
    if code == SQLITE_CORRUPT:
        return ProfileDamagedError(path, f"the file is damaged ({detail})")
    if code == SQLITE_FULL:
        return ProfileDiskFullError(path)
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        return ProfileBusyError(path)
    if code == SQLITE_READONLY:
        why = read_only_reason(path) if path is not None else None
        return ProfileReadOnlyError(path, f"cannot be written: {why or detail}")
    if code == SQLITE_IOERR:
        if path is not None and disk_is_full(path):  # SQLite reports ENOSPC on -shm/-wal as IOERR
            return ProfileDiskFullError(path)
        return ProfileDiskError(
            path, f"the disk reported an error while reading or writing it ({detail})"
        )
    if code == SQLITE_CANTOPEN:
        return _cannot_open(path, detail)
    return None


def _cannot_open(path: Path | None, detail: str) -> ProfileError:
    if path is None:
        return ProfileCannotOpenError(path, f"cannot be opened ({detail})")
    try:
        return _why_cannot_open(path, detail)
    except OSError:  # a folder on the way that may not be entered: finding out why fails the same way
        return ProfileCannotOpenError(path, f"cannot be opened ({detail}): a folder on its path may not be entered")


def _why_cannot_open(path: Path, detail: str) -> ProfileError:
    if path.is_dir():
        return ProfileIsFolderError(path)
    if path.exists() and not os.access(path, os.R_OK):
        return ProfileCannotOpenError(path, "cannot be opened: you may not read the file")
    why = read_only_reason(path)
    if why is not None:
        return ProfileReadOnlyError(path, f"cannot be written: {why}")
    if not path.parent.is_dir():
        return ProfileCannotOpenError(path, f"cannot be opened: its folder {path.parent} does not exist")
    return ProfileCannotOpenError(path, f"cannot be opened ({detail})")


def _from_os(error: OSError, path: Path | None) -> ProfileError | None:
    number = error.errno
    if number in (errno.ENOSPC, errno.EDQUOT):
        return ProfileDiskFullError(path)
    if number == errno.EISDIR:
        return ProfileIsFolderError(path)
    if number == errno.EROFS:
        return ProfileReadOnlyError(path, "cannot be written: it is on a read-only file system")
    if number in (errno.EACCES, errno.EPERM):
        if path is not None:  # find out which: unreadable file, read-only file or folder
            return _cannot_open(path, f"{error.strerror}: {error.filename}")
        return ProfileReadOnlyError(path, f"cannot be written: {error.strerror} ({error.filename})")
    if number == errno.EIO:
        return ProfileDiskError(path)
    if number in (errno.ENAMETOOLONG, errno.ELOOP, errno.ENOTDIR):
        return ProfileCannotOpenError(path, f"cannot be opened: {error.strerror}", "Check the --profile path; choose a shorter one.")
    return None


def profile_error(error: BaseException, path: Path | None = None) -> ProfileError | None:
    """The `ProfileError` that `error` means for the profile at `path`; None when `error` is a bug."""
    if isinstance(error, ProfileError):
        return error
    if isinstance(error, sqlite3.Error):
        return _from_sqlite(error, path)
    if isinstance(error, OSError):
        return _from_os(error, path)
    return None


class profile_errors:  # lower case: used like a function, `with profile_errors(path):`
    """Re-raise known SQLite failures (and OS ones, when asked) inside the block as a `ProfileError`.

    OS errors are translated only where the block touches nothing but the profile's own files, so
    that an unreadable image read inside a write transaction is not blamed on the profile. (A class,
    not a generator: it wraps every query, and this costs a fraction of a microsecond.)
    """

    __slots__ = ("_caught", "_path")

    def __init__(self, path: Path | None, *, os_errors: bool = False) -> None:
        self._path = path
        self._caught = (sqlite3.Error, OSError) if os_errors else (sqlite3.Error,)

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: object
    ) -> Literal[False]:  # never swallows: a known error is raised again as a ProfileError
        if error is None or not isinstance(error, self._caught):
            return False
        known = profile_error(error, self._path)
        if known is None:
            return False
        raise known from error
