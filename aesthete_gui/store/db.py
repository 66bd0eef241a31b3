"""Open a profile: create the file and its folder, migrate the schema, and hand back a `Profile`."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from aesthete_gui.store.adapters import AdaptersRepository
from aesthete_gui.store.catalog import CatalogRepository
from aesthete_gui.store.change_feed import ChangeFeed
from aesthete_gui.store.checks import ChecksRepository, current_checks_version
from aesthete_gui.store.choices import ChoicesRepository
from aesthete_gui.store.connection import ProfileDatabase
from aesthete_gui.store.errors import (
    NotAProfileError,
    ProfileCannotOpenError,
    ProfileIsFolderError,
    ProfileTooNewError,
    profile_errors,
)
from aesthete_gui.store.grouping import GroupingRepository
from aesthete_gui.store.hub import EventHub
from aesthete_gui.store.judgments import JudgmentsRepository
from aesthete_gui.store.marks import MarksRepository
from aesthete_gui.store.migrations import latest_version, migrate, schema_version
from aesthete_gui.store.records import MarkSource
from aesthete_gui.store.runs import RunsRepository
from aesthete_gui.store.scores import ScoresRepository
from aesthete_gui.store.sidecar_sync import SidecarsRepository


class Profile:
    """The personal profile: one SQLite file, read and written through small repositories.

    `catalog` (folders, images, bursts, features), `marks` (with their history), `checks` (bound to
    the current checks version), `choices`, `judgments`, `scores`, `runs`, `adapters`, `sidecars`
    (sidecar states and sync), `grouping` (what burst grouping remembers between runs). Every
    repository method that changes something commits, then publishes a typed event
    (store/events.py) on `events`, the hub of this open profile; `changes` publishes there what
    other processes committed. Thread-safe: each thread gets its own SQLite connection on first use.
    """

    def __init__(
        self,
        path: Path,
        actor: MarkSource = "script",
        checks_version: Callable[[], str] = current_checks_version,
    ) -> None:
        self.database = ProfileDatabase(path)
        self.catalog = CatalogRepository(self.database)
        self.marks = MarksRepository(self.database, actor)
        self.checks = ChecksRepository(self.database, checks_version)
        self.choices = ChoicesRepository(self.database, self.catalog)
        self.judgments = JudgmentsRepository(self.database)
        self.scores = ScoresRepository(self.database, self.catalog)
        self.runs = RunsRepository(self.database)
        self.adapters = AdaptersRepository(self.database)
        self.sidecars = SidecarsRepository(self.database)
        self.grouping = GroupingRepository(self.database)
        self.changes = ChangeFeed(self.database)

    @property
    def path(self) -> Path:
        """The profile file."""
        return self.database.path

    @property
    def events(self) -> EventHub:
        """The hub every committed change of this open profile is published on."""
        return self.database.hub

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        return int(self.database.scalar("SELECT MAX(version) FROM schema_version") or 0)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's raw connection (migrations and tests; code reads and writes through repositories)."""
        return self.database.conn

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's sqlite_utils view of the file (tests and tools)."""
        return self.database.db

    def integrity_check(self) -> str:
        """SQLite's own `PRAGMA integrity_check` answer ("ok" when the file is sound)."""
        return self.database.integrity_check()

    def close(self) -> None:
        """Close every connection of this profile (the last one in the process checkpoints the WAL)."""
        self.changes.close()
        self.database.close()

    def __enter__(self) -> Profile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_profile(
    path: str | os.PathLike[str],
    actor: MarkSource = "script",
    checks_version: Callable[[], str] = current_checks_version,
) -> Profile:
    """Open (creating when needed) the profile at `path`, migrated to the latest schema.

    `actor` is who marks set through it are attributed to in the mark history ("window", "cli",
    "script"); `checks_version` the technical-checks version its reads answer for (tests pin it).
    Raises a `store.errors.ProfileError` subclass when the file cannot be used as a profile (a folder,
    not SQLite, another program's database, damaged, read-only, locked, a full disk, too new).
    """
    target = Path(path).expanduser()
    if target.is_dir():
        raise ProfileIsFolderError(target)
    if target.parent.exists() and not target.parent.is_dir():
        raise ProfileCannotOpenError(
            target, f"cannot be opened: {target.parent} is a file, not a folder"
        )
    with profile_errors(target, os_errors=True):
        target.parent.mkdir(parents=True, exist_ok=True)
    with profile_errors(target, os_errors=True):
        _check_is_ours(target)
    profile = Profile(target, actor, checks_version)
    try:
        with profile_errors(target, os_errors=True), profile.database.using(), profile.database.guard.writing():
            migrate(profile.conn)
    except BaseException:
        profile.close()
        raise
    return profile


SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first bytes of every SQLite file (the import skips another profile's folders by it)."""


def _check_is_ours(target: Path) -> None:
    """Refuse, before anything is written, a file that is not SQLite, another program's database,
    or a profile from a newer Aesthete (a read-only look: the file keeps its journal mode).

    Only SQLite reads the file: closing a descriptor this process opened on it would drop the locks
    that another open profile of this process holds on the same file (store/file_guard.py).
    """
    if not target.exists() or target.stat().st_size == 0:
        return  # a new profile
    conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "schema_version" not in tables:
            raise NotAProfileError(
                target, "is an SQLite database of another program, not an Aesthete profile", None
            )
        current = schema_version(conn) if tables else 0
    finally:
        conn.close()
    if current > latest_version():
        raise ProfileTooNewError(
            target, f"has schema version {current}, newer than this Aesthete knows ({latest_version()})"
        )
