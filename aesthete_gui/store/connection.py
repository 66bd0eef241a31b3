"""Per-thread SQLite connections (WAL, busy timeout) and the short write transactions every change uses."""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import sqlite_utils

from aesthete_gui.store.errors import profile_errors
from aesthete_gui.store.events import ProfileEvent, event_json
from aesthete_gui.store.file_guard import FileGuard, guard_for, release_guard
from aesthete_gui.store.hub import EventHub

BUSY_TIMEOUT_MS = 30_000
CHANGE_LOG_KEEP = 2000
"""Change-log entries kept for other processes to read; a reader further behind refreshes everything."""


class Transaction:
    """One open write transaction: run statements, and announce what the change is about."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.events: list[ProfileEvent] = []

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement inside the transaction."""
        return self.conn.execute(sql, tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        """Run one statement for each row inside the transaction."""
        return self.conn.executemany(sql, rows)

    def announce(self, event: ProfileEvent) -> None:
        """Publish `event` once the transaction committed (and log it for other processes)."""
        self.events.append(event)


class ProfileDatabase:
    """One profile file: a SQLite connection per thread, the write transactions, the event hub.

    Reads run in autocommit mode; every write goes through `transaction()`, a `BEGIN IMMEDIATE`
    transaction that commits on leaving the block (so each user action is durable on its own and
    writers never deadlock on a lock upgrade) and then publishes the events it announced. A full
    disk, a lock held too long, a damaged or read-only file surface as `store.errors.ProfileError`
    subclasses; other errors are bugs. Before each write, the file guard (store/file_guard.py)
    makes sure the connections still use the WAL on disk, reopening them all when it was deleted
    or replaced; each write transaction holds the guard's writer lock and each read its checkpoint
    lock, so that Aesthete's processes stay apart even when SQLite's own locks were dropped.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.hub = EventHub()
        self.writer_id = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        """Names this open profile in the change log, so that its own entries are not read back."""
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._closed = False
        self._guard: FileGuard | None = None
        self._guard_key: tuple[int, int] = (0, 0)
        self._first_use = threading.Lock()

    # -- connections -------------------------------------------------------------------------
    def _connect(self) -> tuple[sqlite3.Connection, str]:
        """A new connection that has read the file once (so its WAL is open), and the journal mode."""
        conn = sqlite3.connect(
            str(self.path),
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,  # autocommit; transactions are explicit
            check_same_thread=False,  # only so close() may close other threads' connections
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except BaseException:
            conn.close()  # a file that is not a database, or cannot be written: keep no handle on it
            raise
        with self._all_lock:
            self._all.append(conn)
        return conn, mode

    @property
    def guard(self) -> FileGuard:
        """The file guard, opening this thread's first connection when there is none yet."""
        if self._closed:
            raise sqlite3.ProgrammingError(f"profile {self.path} is closed")
        guard = self._guard
        if guard is not None:
            return guard
        with self._first_use:
            if self._guard is not None:
                return self._guard
            with profile_errors(self.path):
                conn, mode = self._connect()
            guard, key = guard_for(self.path)
            guard.note_journal_mode(mode)
            guard.adopt(conn)
            self._local.db = sqlite_utils.Database(conn)
            self._local.generation = guard.generation
            self._guard, self._guard_key = guard, key
            return guard

    def _thread_db(self, guard: FileGuard) -> sqlite_utils.Database:
        """This thread's connection of the guard's current generation (reopened after a recovery)."""
        database = getattr(self._local, "db", None)
        if database is None or getattr(self._local, "generation", None) != guard.generation:
            with profile_errors(self.path):
                conn, _ = self._connect()
            guard.adopt(conn)
            database = sqlite_utils.Database(conn)
            self._local.db, self._local.generation = database, guard.generation
        return database

    def open_private(self) -> tuple[sqlite3.Connection, int]:
        """A connection of its own for one reader (the change feed), and the guard generation it
        belongs to; a recovery closes it with the others."""
        guard = self.guard
        with profile_errors(self.path):
            conn, _ = self._connect()
        guard.adopt(conn)
        return conn, guard.generation

    @contextmanager
    def using(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, kept from a recovery while the block runs."""
        guard = self.guard
        with guard.use():
            yield self._thread_db(guard).conn

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's sqlite_utils.Database (opened on first use; for tests and tools)."""
        return self._thread_db(self.guard)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's raw sqlite3 connection (migrations, tests)."""
        return self.db.conn

    def settle(self) -> bool:
        """Copy every committed change from the -wal into the profile file itself, where no other
        process reads it (a passive checkpoint); True when it ran. The window calls it at exit, so
        that a copy of the file alone holds the session's changes."""
        with self.using() as conn, profile_errors(self.path), self.guard.writing():
            return self.guard.checkpoint_if_due(conn, frames=1)

    def copy_to(self, target: Path) -> None:
        """Write a whole copy of the profile as committed now to the new file `target` (never
        replacing one: FileExistsError), complete without any -wal file, while others use it. A copy
        that cannot be written raises OSError naming the copy (the profile is not at fault)."""
        from aesthete_gui.atomic_write import link_new, process_tag, sync_folder

        _remove_dead_parts(target)
        part = target.with_name(f".{target.name}.{process_tag()}.part")
        try:
            with self.using() as conn:
                try:
                    copy = sqlite3.connect(part)
                    try:
                        conn.backup(copy)  # one read snapshot: marks written meanwhile are wholly in or out
                        copy.execute("PRAGMA journal_mode = DELETE")  # alone, the copy needs no -wal
                    finally:
                        copy.close()
                except sqlite3.Error as error:  # the profile is read through its own checks; this is the copy
                    raise OSError(errno.EIO, f"the copy could not be written ({error})", str(target)) from error
            with open(part, "rb") as written:
                os.fsync(written.fileno())
            if not link_new(part, target):
                raise FileExistsError(17, "a file of that name is already there", str(target))
            sync_folder(target.parent)
        finally:
            for leftover in (part, *(Path(f"{part}{suffix}") for suffix in PART_COMPANIONS)):
                leftover.unlink(missing_ok=True)

    def close(self) -> None:
        """Close every connection this profile opened, in any thread."""
        with self._all_lock:
            connections, self._all = self._all, []
            already, self._closed = self._closed, True
        if self._guard is not None and not already:
            release_guard(self._guard, self._guard_key, connections)
            return
        for conn in connections:
            with suppress(sqlite3.Error):
                conn.close()

    # -- statements --------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One committed write transaction, then its announced events published on the hub.

        A failure leaves the file as the last commit left it: nothing of this transaction is kept,
        nothing committed before is touched, and nothing is announced.
        """
        self.guard.ensure_sound()  # never write into a WAL file that another process deleted
        with self.using() as conn, profile_errors(self.path):
            if conn.in_transaction:
                raise RuntimeError("a profile write transaction cannot be nested")
            with self.guard.writing():  # the one writer of every Aesthete process on this file
                conn.execute("BEGIN IMMEDIATE")
                tx = Transaction(conn)
                try:
                    yield tx
                    self._log(conn, tx.events)
                    conn.execute("COMMIT")
                except BaseException:
                    # SQLite may already have rolled back by itself (after SQLITE_FULL, for instance)
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                self.guard.checkpoint_if_due(conn)
        for event in tx.events:
            self.hub.publish(event)

    def _log(self, conn: sqlite3.Connection, events: list[ProfileEvent]) -> None:
        """Write the events into the change log, for the profiles other processes have open."""
        if not events:
            return
        now, last = time.time(), 0
        for event in events:  # one or two per transaction: execute() keeps lastrowid at hand
            last = conn.execute(
                "INSERT INTO change_log (writer, event, created_at) VALUES (?, ?, ?)",
                (self.writer_id, event_json(event), now),
            ).lastrowid or 0
        if last % 256 < len(events):  # now and then, forget what every reader has long seen
            conn.execute("DELETE FROM change_log WHERE seq <= ?", (last - CHANGE_LOG_KEEP,))

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Every row of a query, as dicts."""
        with self.using() as conn, profile_errors(self.path):
            cursor = conn.execute(sql, tuple(params))
            names = [d[0] for d in cursor.description or ()]
            return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]

    def tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of a query, as plain tuples (lean reads of the whole library: no dict per row)."""
        with self.using() as conn, profile_errors(self.path):
            return conn.execute(sql, tuple(params)).fetchall()

    def row(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        """The first row of a query, or None."""
        rows = self.rows(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None."""
        with self.using() as conn, profile_errors(self.path):
            row = conn.execute(sql, tuple(params)).fetchone()
        return None if row is None else row[0]

    def integrity_check(self) -> str:
        """SQLite's own `PRAGMA integrity_check` answer ("ok" when the file is sound)."""
        return str(self.scalar("PRAGMA integrity_check"))


PART_COMPANIONS = ("-journal", "-wal", "-shm")
"""What SQLite may keep beside a partial copy (it is in WAL mode until its journal mode is changed)."""


def _remove_dead_parts(target: Path) -> None:
    """Remove the partial copies (and their journals) that a killed backup to `target` left beside it:
    names carrying the writer tag (atomic_write.process_tag) of a process that no longer runs."""
    from aesthete_gui.atomic_write import tag_alive

    prefix = f".{target.name}."
    with suppress(OSError):
        for entry in os.scandir(target.parent):
            name = entry.name
            tail = next((t for t in (*PART_COMPANIONS, "") if name.endswith(".part" + t)), None)
            if not name.startswith(prefix) or tail is None:
                continue
            if tag_alive(name[len(prefix):len(name) - len(".part" + tail)]) is False:
                with suppress(OSError):
                    os.unlink(entry.path)
