"""The process's hold on one profile file: locks that a stray close() cannot drop, and a check before
every write that the WAL and shared-memory files are still the ones the connections use.

SQLite on Linux and macOS locks a database with fcntl() record locks, which belong to the process
and the file, not to a descriptor: closing *any* descriptor of the file anywhere in the process (a
file dialog reading its first bytes to guess its type, say) silently drops every lock the process
holds on it. Another process then believes it is the last user, checkpoints and deletes the WAL,
and this process goes on writing into the deleted file; its commits are lost when it closes, or
are copied over newer pages by its own last checkpoint.

The same close() also drops SQLite's locks on the -shm file: the WAL write lock and the read marks
that keep a checkpoint from copying pages under a reader or restarting the WAL it reads. Another
process then writes, checkpoints or restarts the WAL at the same time as this one, and marks are
lost or go back to an older value while every commit reports success.

Three defences, measured in docs/benchmarks/profile_locks.md:

1. On Linux, open-file-description (OFD) read locks on descriptors this guard opens itself: one on
   the database file's SHARED byte range, one on the -shm file's "dead man's switch" byte. They
   belong to those descriptors, so a close() elsewhere leaves them in place; while they stand, no
   other process can take the exclusive lock it needs to delete the WAL or to reset the shared
   memory, whatever happened to SQLite's own locks. The descriptors stay open until every
   connection of the process to the file is closed (closing them earlier would itself drop
   SQLite's locks).
2. Everywhere, before each write transaction (and at each `ChangeFeed.poll`): the -wal and -shm
   files on disk are compared, by inode, with the ones this process holds. When they differ (locks
   lost where OFD locks do not exist, or files deleted by hand), every connection of the process to
   the file is closed and reopened before the write, so nothing is written into a deleted file.
3. On Linux, Aesthete's processes also order themselves with OFD locks of their own, on bytes of
   the database's lock page that SQLite never uses, so that SQLite's -shm locks are no longer what
   keeps them apart: the writer byte is held exclusively for a whole write transaction (two
   processes never write the WAL at once), the checkpoint byte is held shared by every process
   while one of its connections reads, and exclusively while a process checkpoints. SQLite's
   automatic checkpoint is turned off on these connections; a commit that leaves a long WAL
   checkpoints it (PASSIVE) when no other process is reading at that moment, so a checkpoint never
   copies pages under another process's reader nor restarts a WAL it reads. Programs other than
   Aesthete (the sqlite3 shell) still rely on SQLite's own locks alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import sqlite3
import struct
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

PENDING_BYTE = 0x40000000
"""SQLite's lock bytes start here in every database file (os_unix.c)."""
SHARED_FIRST = PENDING_BYTE + 2
SHARED_SIZE = 510
"""A reader holds a read lock on these bytes; the last connection to close needs a write lock on them."""
SHM_DEAD_MANS_SWITCH = 128
"""The -shm byte every connection read-locks while it maps the file ((22 + 8) * 4 + 8 in os_unix.c);
a process that can write-lock it believes it is alone and truncates the shared memory."""

WRITER_BYTE = PENDING_BYTE + 1024
"""Aesthete's writer lock: a byte of the lock page (which holds no data) beyond SQLite's lock bytes."""
CHECKPOINT_BYTE = PENDING_BYTE + 1025
"""Aesthete's checkpoint lock: shared while a process reads, exclusive while one checkpoints."""
CHECKPOINT_FRAMES = 1000
"""WAL frames not yet copied into the database after which a commit checkpoints (SQLite's default)."""
_WAL_MX_FRAME = 16
"""Offset in the -shm file of the WAL index header's last valid frame (u32, native byte order)."""
_WAL_BACKFILL = 96
"""Offset of the count of frames already copied into the database (after the header's two copies)."""
BUSY_TIMEOUT_S = 30.0
"""How long a process waits for another one's write or checkpoint (SQLite's busy timeout of the store)."""


def busy_error() -> sqlite3.OperationalError:
    """SQLite's own "database is locked" for a wait on Aesthete's locks that ran out: carrying
    SQLITE_BUSY, so the store's error mapping gives the user its one-line "profile busy"."""
    error = sqlite3.OperationalError("database is locked")
    error.sqlite_errorcode = sqlite3.SQLITE_BUSY
    error.sqlite_errorname = "SQLITE_BUSY"
    return error
LOCK_POLL_S = 0.002
"""How long a process waits between two tries of a lock another Aesthete process holds."""

OFD_LOCKS = sys.platform.startswith("linux") and hasattr(fcntl, "F_OFD_SETLK")
OWN_LOCKS = True
"""Defence 3 in use where OFD locks exist (the benchmark switches it off to measure what it does)."""


@functools.cache
def _flock(kind: int, start: int, length: int) -> bytes:
    """A struct flock (l_type, l_whence, l_start, l_len, l_pid), padded to the platform's size."""
    packed = struct.pack("hhqqi", kind, os.SEEK_SET, start, length, 0)
    return packed + b"\0" * (-len(packed) % struct.calcsize("q"))


def _ofd_read_lock(path: str, start: int, length: int, writable: bool = False) -> tuple[int | None, bool]:
    """(descriptor, locked): a descriptor of `path` holding an OFD read lock on the byte range.

    The descriptor is returned even when the lock failed: it must stay open until the process's
    connections are closed, because closing it would drop their locks. `writable` opens it for
    writing where the file allows (an exclusive lock needs that), read-only otherwise.
    """
    for flags in (os.O_RDWR, os.O_RDONLY) if writable else (os.O_RDONLY,):
        try:
            fd = os.open(path, flags | os.O_CLOEXEC)
        except OSError:
            continue
        return fd, _ofd_lock(fd, start, length)
    return None, False


def _ofd_lock(fd: int, start: int, length: int) -> bool:
    """Take an OFD read lock on the byte range of `fd`'s file; False when it cannot be had now."""
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_RDLCK, start, length))
    except OSError as error:  # a file system without OFD locks, or an exclusive lock held right now
        log.info("no OFD lock on descriptor %s: %s", fd, error)
        return False
    return True


def _ofd_try(fd: int, kind: int, start: int) -> bool:
    """Take (or convert to) an OFD lock of `kind` on one byte now; False when another process holds it."""
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _flock(kind, start, 1))
    except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: held elsewhere
        return False
    return True


def _ofd_wait(fd: int, kind: int, start: int, deadline: float) -> None:
    """Take an OFD lock of `kind` on one byte, waiting for other processes until `deadline`.

    Polled rather than F_OFD_SETLKW, so that a process stopped while holding it cannot hang this one
    past the busy timeout. Raises sqlite3.OperationalError("database is locked") at the deadline,
    which the store reports as a busy profile.
    """
    while not _ofd_try(fd, kind, start):
        if time.monotonic() >= deadline:
            raise busy_error()
        time.sleep(LOCK_POLL_S)


def _ofd_unlock(fd: int, start: int, length: int) -> None:
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_UNLCK, start, length))


def _writable(fd: int | None) -> bool:
    """Whether the descriptor was opened for writing (an exclusive OFD lock needs that)."""
    return fd is not None and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDWR


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


class _Gate:
    """Many statements at a time, or one recovery alone: a recovery waits until no connection of
    the file is in use, and new uses wait until it is done. A thread may nest its uses."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._users = 0
        self._closing = False
        self._depth = threading.local()

    def depth(self) -> int:
        """How many uses this thread holds now."""
        return int(getattr(self._depth, "value", 0))

    @contextlib.contextmanager
    def use(self) -> Iterator[None]:
        depth = self.depth()
        if depth == 0:
            with self._cond:
                while self._closing:
                    self._cond.wait()
                self._users += 1
        self._depth.value = depth + 1
        try:
            yield
        finally:
            self._depth.value = depth
            if depth == 0:
                with self._cond:
                    self._users -= 1
                    if self._users == 0:
                        self._cond.notify_all()

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        """Wait until nobody uses a connection (this thread must hold none), then keep it so."""
        with self._cond:
            while self._closing:
                self._cond.wait()
            self._closing = True
            while self._users:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._closing = False
                self._cond.notify_all()


class FileGuard:
    """Every connection this process has open on one profile file, the OFD locks, and the WAL and
    -shm files those connections use. Shared by all `ProfileDatabase`s open on the same file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.wal_path = f"{path}-wal"
        self.shm_path = f"{path}-shm"
        self.generation = 0
        """Bumped by a recovery: a connection of an older generation was closed and is not used again."""
        self.gate = _Gate()
        self.ofd_locked = False
        """True while this process holds its OFD read lock on the database (Linux)."""
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._owners = 0
        self._db_fd: int | None = None
        self._shm_fd: int | None = None
        self._wal_inode: int | None = None
        self._wal_mode = False
        self._finished = False
        self.serialised = False
        """True when Aesthete's processes order their writes, reads and checkpoints by OFD locks (Linux)."""
        self._writer = threading.Lock()
        self._readers_lock = threading.Lock()
        self._readers = 0
        self.checkpoints = 0
        """Checkpoints this process ran through `checkpoint_if_due` (tests, benchmarks)."""

    # -- connections -------------------------------------------------------------------------
    def adopt(self, conn: sqlite3.Connection) -> None:
        """Register a freshly opened connection (in WAL mode, having read the file once)."""
        with self._lock:
            self._connections.append(conn)
            if self._wal_inode is None and self._wal_mode:
                self._wal_inode = _inode(self.wal_path)
                if OFD_LOCKS:
                    if self._db_fd is None:
                        self._db_fd, db_locked = _ofd_read_lock(str(self.path), SHARED_FIRST, SHARED_SIZE, True)
                        self.ofd_locked = db_locked
                        self.serialised = OWN_LOCKS and db_locked and _writable(self._db_fd)
                    if self._shm_fd is None:
                        self._shm_fd, _ = _ofd_read_lock(self.shm_path, SHM_DEAD_MANS_SWITCH, 1)
            if self.serialised:  # checkpoints run only where no other process reads (checkpoint_if_due)
                conn.execute("PRAGMA wal_autocheckpoint = 0")

    def note_journal_mode(self, mode: str) -> None:
        """Record the journal mode the first connection found (the checks only apply to WAL)."""
        self._wal_mode = mode.lower() == "wal"

    # -- health ------------------------------------------------------------------------------
    def stale_reason(self) -> str | None:
        """Why the connections can no longer be trusted to write (None when they can)."""
        if not self._wal_mode or self._wal_inode is None:
            return None
        wal = _inode(self.wal_path)
        if wal is None:
            return "its WAL file was deleted"
        if wal != self._wal_inode:
            return "its WAL file was replaced"
        if self._shm_fd is not None and _inode(self.shm_path) != os.fstat(self._shm_fd).st_ino:
            return "its shared-memory file was replaced"
        return None

    def ensure_sound(self) -> bool:
        """Recover when the files changed under the connections; True when a recovery ran.

        Called by a thread that holds no connection in use (before a write transaction). An OFD
        lock that could not be had at open (another process was closing at that moment) is tried
        again here.
        """
        if self._db_fd is not None and not self.ofd_locked:
            self.ofd_locked = _ofd_lock(self._db_fd, SHARED_FIRST, SHARED_SIZE)
        if self.gate.depth() or self.stale_reason() is None:
            return False
        with self.gate.alone():
            reason = self.stale_reason()
            if reason is None:
                return False  # another thread recovered meanwhile
            log.warning("profile %s: %s; reopening its connections before writing", self.path, reason)
            with self._lock:
                connections, self._connections = self._connections, []
                self.generation += 1
                self._wal_inode = None
                old_shm, self._shm_fd = self._shm_fd, None
            for conn in connections:  # the OFD lock on the database keeps this from checkpointing
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            if old_shm is not None:
                os.close(old_shm)  # the old -shm file: no connection uses it any more
        return True

    # -- Aesthete's own locks (defence 3) -----------------------------------------------------------
    @contextlib.contextmanager
    def use(self) -> Iterator[None]:
        """Use a connection: kept from a recovery, and, for the outermost use of the thread, counted
        as a reader of the process (the checkpoint byte held shared while any thread reads)."""
        outer = self.gate.depth() == 0
        with self.gate.use():
            if outer:
                self._start_reading()
            try:
                yield
            finally:
                if outer:
                    self._stop_reading()

    def _start_reading(self) -> None:
        with self._readers_lock:
            fd = self._db_fd
            if self.serialised and fd is not None and self._readers == 0:
                _ofd_wait(fd, fcntl.F_RDLCK, CHECKPOINT_BYTE, time.monotonic() + BUSY_TIMEOUT_S)
            self._readers += 1

    def _stop_reading(self) -> None:
        with self._readers_lock:
            self._readers -= 1
            fd = self._db_fd
            if self._readers == 0 and self.serialised and fd is not None:
                _ofd_unlock(fd, CHECKPOINT_BYTE, 1)

    @contextlib.contextmanager
    def writing(self, timeout: float = BUSY_TIMEOUT_S) -> Iterator[None]:
        """Be the one writer of all Aesthete processes (and of this one) while the block runs."""
        if not self._writer.acquire(timeout=timeout):
            raise busy_error()
        try:
            fd = self._db_fd
            if not (self.serialised and fd is not None):
                yield
                return
            _ofd_wait(fd, fcntl.F_WRLCK, WRITER_BYTE, time.monotonic() + timeout)
            try:
                yield
            finally:
                _ofd_unlock(fd, WRITER_BYTE, 1)
        finally:
            self._writer.release()

    def frames_to_copy(self) -> int:
        """WAL frames not yet copied into the database, read from the -shm file (0 when unknown)."""
        if self._shm_fd is None:
            return 0
        try:
            head = os.pread(self._shm_fd, _WAL_BACKFILL + 4, 0)
        except OSError:
            return 0
        if len(head) < _WAL_BACKFILL + 4:
            return 0
        (last,) = struct.unpack_from("=I", head, _WAL_MX_FRAME)
        (copied,) = struct.unpack_from("=I", head, _WAL_BACKFILL)
        return max(0, last - copied)

    def checkpoint_if_due(self, conn: sqlite3.Connection, frames: int = CHECKPOINT_FRAMES) -> bool:
        """Checkpoint (PASSIVE) when the WAL holds `frames` uncopied frames and no other process reads.

        Called by the writer (inside `writing()` and a use of the connection) right after its
        commit; True when it checkpointed. Readers of this process need no lock here: SQLite keeps
        the locks of connections of one process apart in memory, which a close() cannot drop.
        """
        fd = self._db_fd
        if not self.serialised or fd is None or self.frames_to_copy() < frames:
            return False
        with self._readers_lock:
            if not _ofd_try(fd, fcntl.F_WRLCK, CHECKPOINT_BYTE):
                return False  # another process is reading: the next commit tries again
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.checkpoints += 1
        finally:
            with self._readers_lock:
                if self._readers:
                    _ofd_try(fd, fcntl.F_RDLCK, CHECKPOINT_BYTE)  # back to shared: never refused
                else:
                    _ofd_unlock(fd, CHECKPOINT_BYTE, 1)
        return True

    # -- owners ------------------------------------------------------------------------------
    def add_owner(self) -> bool:
        """One more `ProfileDatabase` uses this file; False when this guard was already released."""
        with self._lock:
            if self._finished:
                return False
            self._owners += 1
            return True

    def release(self, connections: list[sqlite3.Connection]) -> bool:
        """Close one owner's connections; True when it was the last owner (the guard is then done).

        The last owner unlocks first, so that its last connection may checkpoint and remove the WAL
        as usual, and closes the guard's own descriptors last, when no connection of the process
        holds a lock that closing them could drop.
        """
        with self.gate.alone() if self.gate.depth() == 0 else contextlib.nullcontext():
            with self._lock:
                self._owners -= 1
                last = self._owners <= 0
                self._finished = last
                mine = set(map(id, connections))
                self._connections = [c for c in self._connections if id(c) not in mine]
                if last:
                    connections = connections + self._connections
                    self._connections = []
                    db_fd, shm_fd = self._db_fd, self._shm_fd
                    self._db_fd = self._shm_fd = None
            if last:
                if db_fd is not None:
                    _ofd_unlock(db_fd, SHARED_FIRST, SHARED_SIZE)
                if shm_fd is not None:
                    _ofd_unlock(shm_fd, SHM_DEAD_MANS_SWITCH, 1)
            for conn in connections:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            if last:
                for fd in (db_fd, shm_fd):
                    if fd is not None:
                        os.close(fd)
        return last


_guards: dict[tuple[int, int], FileGuard] = {}
_guards_lock = threading.Lock()


def guard_for(path: Path) -> tuple[FileGuard, tuple[int, int]]:
    """The guard of the file at `path` (which exists), shared by every profile open on it, and its key."""
    info = os.stat(path)
    key = (info.st_dev, info.st_ino)
    with _guards_lock:
        guard = _guards.get(key)
        if guard is None or not _names_the_file(guard.path, key) or not guard.add_owner():
            # none yet, or one left registered for another file that had this inode before
            guard = _guards[key] = FileGuard(path)
            guard.add_owner()
        return guard, key


def _names_the_file(path: Path, key: tuple[int, int]) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == key


def release_guard(guard: FileGuard, key: tuple[int, int], connections: list[sqlite3.Connection]) -> None:
    """One owner closes its connections and is done with the file."""
    if guard.release(connections):
        with _guards_lock:
            if _guards.get(key) is guard:
                del _guards[key]
