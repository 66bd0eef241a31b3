"""Open a profile: create the file and its folder, migrate the schema, and hand back a `Profile`."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from aesthete_gui.store.checks import ChecksMixin
from aesthete_gui.store.errors import (
    NotAProfileError,
    ProfileCannotOpenError,
    ProfileIsFolderError,
    ProfileTooNewError,
    profile_errors,
)
from aesthete_gui.store.grouping import GroupingMixin
from aesthete_gui.store.library_reads import LibraryReadsMixin
from aesthete_gui.store.migrations import latest_version, migrate, schema_version
from aesthete_gui.store.opinions import OpinionsMixin


class Profile(ChecksMixin, GroupingMixin, LibraryReadsMixin, OpinionsMixin):
    """The personal profile: library, marks, choices, judgments, scores, runs, adapters.

    Thread-safe: each thread gets its own SQLite connection on first use. Every public method that
    changes something commits before it returns.
    """

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        return int(self._scalar("SELECT MAX(version) FROM schema_version") or 0)


def open_profile(path: str | os.PathLike[str]) -> Profile:
    """Open (creating when needed) the profile at `path`, migrated to the latest schema.

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
    profile = Profile(target)
    try:
        with profile_errors(target, os_errors=True):
            migrate(profile.conn)
    except BaseException:
        profile.close()
        raise
    return profile


SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_is_ours(target: Path) -> None:
    """Refuse, before anything is written, a file that is not SQLite, another program's database,
    or a profile from a newer Aesthete (a read-only look: the file keeps its journal mode)."""
    if not target.exists() or target.stat().st_size == 0:
        return  # a new profile
    with target.open("rb") as handle:
        if handle.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise NotAProfileError(target)
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
