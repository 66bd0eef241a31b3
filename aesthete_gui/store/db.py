"""Open a profile: create the file and its folder, migrate the schema, and hand back a `Profile`."""

from __future__ import annotations

import os
import shlex
import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from aesthete_gui.settings import profile_path_text_problem
from aesthete_gui.store.adapters import AdaptersRepository
from aesthete_gui.store.catalog import CatalogRepository
from aesthete_gui.store.change_feed import ChangeFeed
from aesthete_gui.store.checks import ChecksRepository, current_checks_version
from aesthete_gui.store.choices import ChoicesRepository
from aesthete_gui.store.connection import ProfileDatabase
from aesthete_gui.store.errors import (
    NoProfileError,
    NotAProfileError,
    ProfileCannotOpenError,
    ProfileDamagedError,
    ProfileIsFolderError,
    ProfileReadOnlyError,
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

    def settle(self) -> bool:
        """Copy committed changes from the -wal into the file itself (ProfileDatabase.settle)."""
        return self.database.settle()

    def copy_to(self, target: str | os.PathLike[str]) -> None:
        """A whole copy of the profile as committed now, in a new file (ProfileDatabase.copy_to)."""
        self.database.copy_to(Path(target))

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
    *,
    create: bool = True,
) -> Profile:
    """Open (creating when needed, unless `create` is False) the profile at `path`, migrated to the
    latest schema.

    `actor` is who marks set through it are attributed to in the mark history ("window", "cli",
    "script"); `checks_version` the technical-checks version its reads answer for (tests pin it).
    Raises a `store.errors.ProfileError` subclass when the file cannot be used as a profile (a folder,
    not SQLite, another program's database, damaged, read-only, locked, a full disk, too new).
    """
    target = Path(path).expanduser()
    with profile_errors(target, os_errors=True):  # a name too long for the file system is said in one line
        _check_usable_path(target)
    with profile_errors(target, os_errors=True):
        _check_journals_writable(target)  # before SQLite reads the file: a reader writes to the -shm
        if not _check_is_ours(target) and not create:
            raise _no_profile(target)
        target.parent.mkdir(parents=True, exist_ok=True)
    profile = Profile(target, actor, checks_version)
    try:
        with profile_errors(target, os_errors=True), profile.database.using(), profile.database.guard.writing():
            migrate(profile.conn)
    except BaseException:
        profile.close()
        raise
    return profile


SQLITE_SMALLEST = 512
"""No SQLite database file is smaller than one page of the smallest page size."""
SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first bytes of every SQLite file (the import skips another profile's folders by it)."""


def _check_usable_path(target: Path) -> None:
    """Refuse a path no profile can live at: not valid UTF-8 (thumbnail paths stored in the profile
    are text), a name with a stray space or a control character, a folder, under a file, a device, pipe or socket (SQLite would put its journal beside
    /dev/null), or a file with several names (hard links)."""
    try:
        os.fsencode(target).decode("utf-8")
    except UnicodeDecodeError:
        raise ProfileCannotOpenError(
            target, "cannot be used: its path is not valid UTF-8", "Rename the file or the folder above it, or choose another path."
        ) from None
    # every route meets here (--profile, $AESTHETE_PROFILE, the window's dialog, a remembered path):
    # "p.db " opened a new, empty profile beside the real one
    problem = profile_path_text_problem(str(target))
    if problem:
        raise ProfileCannotOpenError(target, f"cannot be used ('{target}'): {problem}", "Check the name for a stray space or a pasted line break.")
    if target.is_dir():
        raise ProfileIsFolderError(target)
    if target.parent.exists() and not target.parent.is_dir():
        raise ProfileCannotOpenError(target, f"cannot be opened: {target.parent} is a file, not a folder")
    if target.exists() and not target.is_file():
        raise ProfileCannotOpenError(
            target, "cannot be used: it is a device, a pipe or a socket, not a file", "Give the path of a profile file."
        )
    names = target.stat().st_nlink if target.exists() else 1
    if names > 1:  # SQLite names its journal after the path: each name had its own, and marks were lost
        raise ProfileCannotOpenError(
            target, f"cannot be used: the file has {names} names (hard links)",
            "Each name gets its own journal, so changes saved through one name are lost when the profile is "
            "opened through another. Keep one name: copy the file (cp) and use the copy, or remove the other names.",
        )


def _check_journals_writable(target: Path) -> None:
    """Refuse, naming it, a read-only -wal or -shm file beside a writable profile.

    Listing a read-only profile leaves them read-only (SQLite makes them with the profile's mode and
    cannot remove them without writing); once the profile was writable again, every open failed with
    "make the file and its folder writable", which it already was. They are not changed here: one may
    be a hard link to another file, or belong to another program, and the -wal may hold committed
    changes, so deleting it could lose them."""
    real = target.resolve()  # SQLite keeps them beside the file a link points to
    if not os.access(real, os.W_OK):
        return  # a read-only profile: read-only journals are what listing it leaves
    for suffix in ("-wal", "-shm"):
        journal = real.with_name(real.name + suffix)
        if journal.is_file() and not os.access(journal, os.W_OK):
            raise ProfileReadOnlyError(
                target, f"cannot be written: {journal} beside it is read-only (left so by listing the profile while it was read-only)",
                f"Make it writable (chmod u+w {shlex.quote(str(journal))}); do not delete it, it may hold saved changes.",
            )


def _check_is_ours(target: Path) -> bool:
    """Refuse, before anything is written, a file that is not SQLite, another program's database,
    or a profile from a newer Aesthete (a read-only look: the file keeps its journal mode). True when
    a profile is there; False when nothing is yet (no file, an empty one, an SQLite file without a
    table: a profile copied without the -wal that held everything).

    Only SQLite reads the file: closing a descriptor this process opened on it would drop the locks
    that another open profile of this process holds on the same file (store/file_guard.py).
    """
    size = target.stat().st_size if target.exists() else 0
    if size == 0:
        return False  # a new profile
    if size < SQLITE_SMALLEST:
        # SQLite takes a file of one byte for an empty database and would make it a profile. No live
        # database is this small, so reading it here drops no lock this process holds on the file.
        if target.read_bytes().startswith(SQLITE_MAGIC[:size]):
            raise ProfileDamagedError(target)  # a profile cut short inside its header
        raise NotAProfileError(target, f"is not an Aesthete profile: not an SQLite database ({size} byte{'' if size == 1 else 's'})", None)
    conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        objects = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
        tables = {name for kind, name in objects if kind == "table"}
        marked = any(conn.execute(f"PRAGMA {pragma}").fetchone()[0] for pragma in ("application_id", "user_version"))
        # a database with views or triggers only, or marked as its own by another program, is not ours either
        ours = "schema_version" in tables and {"version", "applied_at"} <= {
            row[1] for row in conn.execute("PRAGMA table_info(schema_version)")
        }  # another tool's schema_version table (Flyway's old default) is not ours
        if (tables and not ours) or (not tables and (objects or marked)):
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
    return bool(tables)


def _no_profile(target: Path) -> NoProfileError:
    """Why nothing usable is at `target`; a file with content names the likeliest cause (a trial
    copied a profile with `cp` while the window had it open: its changes were all in the -wal)."""
    if target.is_file() and target.stat().st_size > 0:
        return NoProfileError(
            target, "there is no profile here: an SQLite file that holds no profile table",
            "If it is a copy of a profile made while Aesthete had it open, the changes were still in the "
            "original's -wal file beside it: copy a profile in use with `aesthete --profile ORIGINAL backup COPY`.",
        )
    return NoProfileError(target)
