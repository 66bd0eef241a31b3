"""Numbered schema migrations: each runs once, in order, in its own transaction with the version bump."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: dict[int, Migration] = {}


def migration(number: int) -> Callable[[Migration], Migration]:
    """Register a migration under `number` (numbers are unique and only ever appended)."""

    def register(func: Migration) -> Migration:
        if number in MIGRATIONS:
            raise ValueError(f"migration {number} registered twice")
        MIGRATIONS[number] = func
        return func

    return register


def latest_version() -> int:
    """The schema version after every migration ran."""
    return max(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """The version the database is at (0 for a new file)."""
    has_table = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if not has_table:
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database to the latest version; return it. Newer-than-known files are refused."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        current = schema_version(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    if current > latest_version():
        raise RuntimeError(
            f"profile schema version {current} is newer than this Aesthete knows "
            f"({latest_version()}); update Aesthete to open it"
        )
    for number in sorted(n for n in MIGRATIONS if n > current):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if schema_version(conn) >= number:
                conn.execute("ROLLBACK")
                continue
            MIGRATIONS[number](conn)
            conn.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                (number, time.time()),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    return schema_version(conn)


def _script(conn: sqlite3.Connection, sql: str) -> None:
    # executescript() would COMMIT our transaction first; run statements one by one instead.
    for statement in sql.split(";"):
        if statement.strip():
            conn.execute(statement)


@migration(1)
def _initial_schema(conn: sqlite3.Connection) -> None:
    _script(
        conn,
        """
        CREATE TABLE folders (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            added_at REAL NOT NULL,
            scanned_at REAL
        );
        CREATE TABLE bursts (
            id INTEGER PRIMARY KEY,
            label TEXT,
            edited INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        );
        CREATE TABLE images (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL,
            content_hash TEXT,
            phash TEXT,
            size INTEGER,
            mtime_ns INTEGER,
            width INTEGER,
            height INTEGER,
            format TEXT,
            capture_time TEXT,
            exif TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'error', 'missing')),
            error TEXT,
            burst_id INTEGER REFERENCES bursts(id) ON DELETE SET NULL,
            thumb_path TEXT,
            preview_path TEXT,
            added_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX images_content_hash ON images(content_hash);
        CREATE INDEX images_folder ON images(folder_id);
        CREATE INDEX images_burst ON images(burst_id);
        CREATE INDEX images_status ON images(status);
        CREATE TABLE features (
            image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
            version TEXT NOT NULL,
            names TEXT NOT NULL,
            vector BLOB NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            params TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'pending',
            done INTEGER NOT NULL DEFAULT 0,
            total INTEGER,
            result TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            finished_at REAL
        );
        CREATE INDEX runs_kind ON runs(kind);
        CREATE TABLE judgments (
            id INTEGER PRIMARY KEY,
            judge_id TEXT NOT NULL,
            protocol TEXT NOT NULL CHECK (protocol IN ('pairwise', 'pointwise', 'set')),
            items TEXT NOT NULL,
            outcome TEXT NOT NULL,
            raw TEXT NOT NULL DEFAULT '',
            parsed INTEGER NOT NULL,
            rationale TEXT NOT NULL DEFAULT '',
            stages TEXT NOT NULL DEFAULT '[]',
            seconds REAL NOT NULL DEFAULT 0,
            run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            preset TEXT,
            preset_version TEXT,
            created_at REAL NOT NULL
        );
        CREATE INDEX judgments_run ON judgments(run_id);
        CREATE TABLE choices (
            id INTEGER PRIMARY KEY,
            image_a INTEGER NOT NULL REFERENCES images(id),
            image_b INTEGER NOT NULL REFERENCES images(id),
            winner TEXT NOT NULL CHECK (winner IN ('a', 'b', 'tie')),
            dimension TEXT NOT NULL DEFAULT 'overall',
            created_at REAL NOT NULL,
            session TEXT,
            app_state TEXT
        );
        CREATE INDEX choices_dimension ON choices(dimension);
        CREATE TABLE scores (
            id INTEGER PRIMARY KEY,
            image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
            scorer_id TEXT NOT NULL,
            scorer_version TEXT NOT NULL DEFAULT '',
            preset TEXT NOT NULL DEFAULT '',
            preset_version TEXT NOT NULL DEFAULT '',
            technique REAL,
            coloration REAL,
            composition REAL,
            mood REAL,
            overall REAL,
            updated_at REAL NOT NULL,
            UNIQUE (image_id, scorer_id)
        );
        CREATE INDEX scores_scorer ON scores(scorer_id);
        CREATE TABLE adapters (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            base_scorer TEXT NOT NULL,
            blob BLOB NOT NULL,
            metrics TEXT NOT NULL DEFAULT '{}',
            active INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        );
        CREATE UNIQUE INDEX adapters_one_active ON adapters(active) WHERE active = 1;
        CREATE TABLE marks (
            image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
            stars INTEGER NOT NULL DEFAULT 0 CHECK (stars BETWEEN 0 AND 5),
            flag TEXT CHECK (flag IN ('pick', 'reject')),
            label TEXT,
            updated_at REAL NOT NULL
        )
        """,
    )


@migration(2)
def _image_checks(conn: sqlite3.Connection) -> None:
    # Technical verdicts per image (imaging/checks.py) and the faces found, measured at import;
    # `version` says which measuring code and thresholds produced them (others are recomputed).
    # A suggested reject is derived (a reject verdict, no user flag); dismissing one is stored.
    _script(
        conn,
        """
        CREATE TABLE image_checks (
            image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
            version TEXT NOT NULL,
            checks TEXT NOT NULL,
            faces TEXT NOT NULL DEFAULT '[]',
            worst TEXT NOT NULL CHECK (worst IN ('ok', 'warn', 'reject')),
            updated_at REAL NOT NULL
        );
        CREATE INDEX image_checks_worst ON image_checks(worst);
        CREATE TABLE dismissed_suggestions (
            image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
            version TEXT NOT NULL,
            dismissed_at REAL NOT NULL
        )
        """,
    )


@migration(3)
def _sidecar_sync(conn: sqlite3.Connection) -> None:
    # What each image's XMP sidecar looked like when the profile and the sidecar last agreed, and
    # the values that lost when both sides changed (the image's mark history).
    _script(
        conn,
        """
        CREATE TABLE sidecar_sync (
            image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
            sidecar_path TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            synced_at REAL NOT NULL
        );
        CREATE TABLE mark_history (
            id INTEGER PRIMARY KEY,
            image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
            source TEXT NOT NULL CHECK (source IN ('profile', 'sidecar')),
            stars INTEGER,
            flag TEXT,
            label TEXT,
            changed_at REAL NOT NULL,
            reason TEXT NOT NULL,
            recorded_at REAL NOT NULL
        );
        CREATE INDEX mark_history_image ON mark_history(image_id)
        """,
    )


@migration(4)
def _grouping_memory(conn: sqlite3.Connection) -> None:
    # What burst grouping keeps between runs, keyed by content hash (the pixels, wherever the file
    # lives): each image's colour signature (measured at import from its thumbnail, so grouping never
    # reads thumbnails to find candidates), the pixel verdict of every pair of images compared
    # ("one is a crop of the other" or not), and small named values such as the fingerprint of the
    # library the stored bursts were grouped from (an unchanged library is not grouped again).
    _script(
        conn,
        """
        CREATE TABLE colour_signatures (
            content_hash TEXT PRIMARY KEY,
            signature BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE crop_verdicts (
            first TEXT NOT NULL,
            second TEXT NOT NULL,
            same INTEGER NOT NULL CHECK (same IN (0, 1)),
            PRIMARY KEY (first, second)
        ) WITHOUT ROWID;
        CREATE TABLE library_state (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )
        """,
    )


@migration(5)
def _mark_sources_and_change_log(conn: sqlite3.Connection) -> None:
    # Who set each image's current marks (window, cli, sidecar, undo, ...); the mark history now
    # keeps every earlier value with who set it, not only values that lost a sync conflict, so its
    # source is no longer limited to 'profile' / 'sidecar'. The change log carries each committed
    # change's events to the profiles other processes have open (store/change_feed.py); its seq
    # only grows, because pruning never deletes the newest entry (no AUTOINCREMENT needed).
    _script(
        conn,
        """
        ALTER TABLE marks ADD COLUMN source TEXT NOT NULL DEFAULT '';
        CREATE TABLE mark_history_new (
            id INTEGER PRIMARY KEY,
            image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
            source TEXT NOT NULL,
            stars INTEGER,
            flag TEXT,
            label TEXT,
            changed_at REAL NOT NULL,
            reason TEXT NOT NULL,
            recorded_at REAL NOT NULL
        );
        INSERT INTO mark_history_new SELECT id, image_id, source, stars, flag, label, changed_at,
            reason, recorded_at FROM mark_history;
        DROP TABLE mark_history;
        ALTER TABLE mark_history_new RENAME TO mark_history;
        CREATE INDEX mark_history_image ON mark_history(image_id);
        CREATE TABLE change_log (
            seq INTEGER PRIMARY KEY,
            writer TEXT NOT NULL,
            event TEXT NOT NULL,
            created_at REAL NOT NULL
        )
        """,
    )


@migration(6)
def _sidecar_marks_as_seen(conn: sqlite3.Connection) -> None:
    # The marks each sidecar held when last seen (JSON [stars, flag, label] as read from it; NULL
    # where not recorded yet): a sync tells another program's edit of the marks from an edit of
    # anything else in the sidecar, so a mark whose sidecar write failed is not lost to a keyword.
    _script(conn, "ALTER TABLE sidecar_sync ADD COLUMN held TEXT")
