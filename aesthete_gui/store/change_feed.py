"""Changes other processes commit, published on this profile's hub (the window sees a CLI mark).

Every write transaction also writes its events into the profile's `change_log` table, tagged with
the writing profile's id. `ChangeFeed.poll()` asks SQLite, on a connection of its own, whether
anything was committed since the last poll (`PRAGMA data_version`, a few microseconds when nothing
was); only then does it read the new log entries and publish those written by anyone else. A commit
that wrote no entry (a program using SQLite directly) and a gap in the log (more changes than it
keeps) are published as `ChangedElsewhere`. Each poll also runs the file guard's check, so a
window that only reads still reopens its connections soon after its WAL was replaced.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from typing import TYPE_CHECKING

from aesthete_gui.store.errors import profile_errors
from aesthete_gui.store.events import ChangedElsewhere, ProfileEvent, event_from_json

if TYPE_CHECKING:
    from aesthete_gui.store.connection import ProfileDatabase

POLL_INTERVAL_MS = 300
"""How often the window polls (a CLI mark shows within this, plus the time to re-read the row)."""


class ChangeFeed:
    """Publishes what other writers committed to the profile since the last `poll()`."""

    def __init__(self, database: ProfileDatabase) -> None:
        self._db = database
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._generation = -1
        self._data_version: int | None = None
        self._last_seq = 0
        self._started = False

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._generation != self._db.guard.generation:
            self._conn, self._generation = self._db.open_private()
            self._data_version = None  # a new connection counts from its own start
        return self._conn

    def start(self) -> None:
        """Start from now: what was committed before is not published."""
        with self._lock, self._db.using(), profile_errors(self._db.path):
            conn = self._connection()
            self._data_version = int(conn.execute("PRAGMA data_version").fetchone()[0])
            self._last_seq = int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM change_log").fetchone()[0])
            self._started = True

    def poll(self) -> int:
        """Publish the changes other writers committed since the last poll; how many events."""
        if not self._started:
            self.start()
            return 0
        self._db.guard.ensure_sound()
        with self._lock:
            with self._db.using(), profile_errors(self._db.path):
                conn = self._connection()
                version = int(conn.execute("PRAGMA data_version").fetchone()[0])
                if version == self._data_version:
                    return 0
                self._data_version = version
                rows = conn.execute(
                    "SELECT seq, writer, event FROM change_log WHERE seq > ? ORDER BY seq", (self._last_seq,)
                ).fetchall()
            events = self._events(rows)
        for event in events:
            self._db.hub.publish(event)
        return len(events)

    def _events(self, rows: list[tuple[int, str, str]]) -> list[ProfileEvent]:
        """The events of other writers among the new log entries (ChangedElsewhere when unnamed)."""
        if not rows or (self._last_seq and rows[0][0] != self._last_seq + 1):
            if rows:
                self._last_seq = rows[-1][0]
            return [ChangedElsewhere()]  # a commit without an entry, or entries already pruned
        self._last_seq = rows[-1][0]
        events = []
        for _seq, writer, text in rows:
            if writer == self._db.writer_id:
                continue
            event = event_from_json(text)
            events.append(event if event is not None else ChangedElsewhere())
        return list(dict.fromkeys(events))  # one ChangedElsewhere is enough

    def close(self) -> None:
        """Stop polling (the profile closes its connection with the others)."""
        with self._lock, contextlib.suppress(sqlite3.Error):
            if self._conn is not None:
                self._conn.close()
            self._conn = None
