"""Profile errors a user can act on (not SQLite, damaged, a folder, read-only, busy, disk full) vs bugs.

Every case uses a real file: bytes written by the test, a real second connection holding the lock,
real permissions (chmod, or `chattr +i` / a read-only bind mount as root) and a real full disk
(SQLite's page limit on the file, and a small tmpfs as root).
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from aesthete_gui.errors import AestheteError
from aesthete_gui.store import (
    NotAProfileError,
    Profile,
    ProfileBusyError,
    ProfileDamagedError,
    ProfileDiskFullError,
    ProfileError,
    ProfileIsFolderError,
    ProfileReadOnlyError,
    open_profile,
)
from aesthete_gui.store import connection as connection_module
from aesthete_gui.store.errors import profile_error
from tests.robustness.fs_faults import read_only_file, read_only_folder, small_disk


def _profile_with_folders(path: Path, count: int) -> None:
    profile = open_profile(path)
    for n in range(count):
        profile.catalog.add_folder(f"/photos/{n}")
    profile.close()  # the last connection checkpoints the WAL into the file


def _folders(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [row[0] for row in conn.execute("SELECT path FROM folders ORDER BY id")]
    finally:
        conn.close()


@pytest.mark.parametrize(
    "content",
    [b"hello, not a database\n" * 40, bytes(range(256)) * 64, b"\xff\xd8\xff\xe0" + b"\x00" * 5000],
    ids=["text", "random-like", "jpeg-header"],
)
def test_a_file_that_is_not_sqlite_is_refused_and_left_untouched(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "p.db"
    path.write_bytes(content)
    with pytest.raises(NotAProfileError, match="not an Aesthete profile") as caught:
        open_profile(path)
    assert isinstance(caught.value, AestheteError) and caught.value.path == path
    assert path.read_bytes() == content


def test_another_programs_database_is_refused_without_adding_tables(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(NotAProfileError, match="another program"):
        open_profile(path)
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["contacts"]
    conn.close()


@pytest.mark.parametrize("content", [b"x", b"\n", b"ab" * 200], ids=["one-byte", "newline", "under-a-page"])
def test_a_file_too_small_to_be_sqlite_is_refused_and_left_untouched(tmp_path: Path, content: bytes) -> None:
    # SQLite takes a one-byte file for an empty database: `images` made `echo > n.db` a profile
    path = tmp_path / "n.db"
    path.write_bytes(content)
    with pytest.raises(NotAProfileError, match="not an SQLite database"):
        open_profile(path)
    assert path.read_bytes() == content


def _refused_untouched(path: Path, *statements: str) -> None:
    """Another program's database made by `statements` is refused and keeps every byte."""
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(NotAProfileError, match="another program"):
        open_profile(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("setup", ["CREATE VIEW answer AS SELECT 42", "PRAGMA application_id = 7", "PRAGMA user_version = 3"])
def test_another_programs_database_without_tables_is_refused_untouched(tmp_path: Path, setup: str) -> None:
    # the scratch table makes the file and is dropped again
    _refused_untouched(tmp_path / "other.db", "CREATE TABLE scratch (a)", setup, "DROP TABLE scratch")


def test_another_tools_schema_version_table_is_not_taken_for_ours(tmp_path: Path) -> None:
    # Flyway's old default table name: the open tried to migrate it, switched the file to WAL mode and
    # ended in a traceback ("table schema_version has no column named applied_at")
    _refused_untouched(tmp_path / "flyway.db", "CREATE TABLE schema_version (installed_rank INT, version TEXT, description TEXT)",
                       "INSERT INTO schema_version VALUES (1, '1', 'init')", "CREATE TABLE customers (id INT)")  # fmt: skip


def test_a_profile_with_two_names_is_refused_before_either_loses_a_change(tmp_path: Path) -> None:
    # hard links: each name got its own -wal, and a mark made through one name was gone when the
    # profile was read through the other (an attack this round, with the window open on one name)
    import os

    path = tmp_path / "p.db"
    _profile_with_folders(path, 2)
    os.link(path, tmp_path / "p2.db")
    before = path.read_bytes()
    for name in (path, tmp_path / "p2.db"):
        with pytest.raises(ProfileError, match="2 names"):
            open_profile(name)
    assert path.read_bytes() == before and not (tmp_path / "p2.db-wal").exists()
    (tmp_path / "p2.db").unlink()
    open_profile(path).close()
    assert _folders(path) == ["/photos/0", "/photos/1"]


def test_a_pipe_a_path_that_is_not_utf8_and_a_name_too_long_are_refused_in_one_error(tmp_path: Path) -> None:
    import os

    pipe = tmp_path / "fifo.db"
    os.mkfifo(pipe)
    with pytest.raises(ProfileError, match="a device, a pipe or a socket"):
        open_profile(pipe)
    assert not (tmp_path / "fifo.db-journal").exists() and not (tmp_path / "fifo.db-wal").exists()
    odd = tmp_path / os.fsdecode(b"bad\xff.db")
    with pytest.raises(ProfileError, match="not valid UTF-8"):
        open_profile(odd)
    assert not odd.exists()
    with pytest.raises(ProfileError):  # the file system's "File name too long", not an OSError traceback
        open_profile(tmp_path / ("n" * 300 + ".db"))


def test_a_journal_left_read_only_beside_a_writable_profile_is_named_and_left_alone(tmp_path: Path, monkeypatch) -> None:
    # listing a read-only profile left its -wal and -shm read-only; made writable again, the profile
    # failed every open with "make the file and its folder writable", which it already was. They are
    # named now, not changed: one may be a hard link to another file, and a -wal may hold saved changes.
    import os

    real_access = os.access

    def as_a_user(path, mode, **kwargs):  # root may write anything: judge by the permission bits
        if mode == os.W_OK and Path(path).exists():
            return bool(Path(path).stat().st_mode & 0o200)
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr("aesthete_gui.store.db.os.access", as_a_user)
    path = tmp_path / "p.db"
    _profile_with_folders(path, 2)
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n" * 100)
    notes.chmod(0o444)
    os.link(notes, tmp_path / "p.db-shm")  # a read-only file under the journal's name
    (tmp_path / "p.db-wal").write_bytes(b"")
    (tmp_path / "p.db-wal").chmod(0o444)
    link = tmp_path / "link.db"
    link.symlink_to(path)  # journals live beside the file a link points to
    for name in (path, link):
        with pytest.raises(ProfileReadOnlyError, match=r"p\.db-(wal|shm) beside it is read-only"):
            open_profile(name)
    assert notes.read_text() == "keep me\n" * 100 and notes.stat().st_mode & 0o777 == 0o444
    assert (tmp_path / "p.db-wal").stat().st_mode & 0o777 == 0o444
    (tmp_path / "p.db-shm").unlink()
    (tmp_path / "p.db-wal").chmod(0o644)  # what the message says to do
    open_profile(path).close()
    assert _folders(path) == ["/photos/0", "/photos/1"]


@pytest.mark.parametrize("keep", [50, 4096, 0.5], ids=["inside-header", "first-page", "half"])
def test_a_truncated_profile_is_reported_damaged_and_left_untouched(
    tmp_path: Path, keep: float
) -> None:
    path = tmp_path / "p.db"
    _profile_with_folders(path, 3)
    data = path.read_bytes()
    cut = data[: int(len(data) * keep) if isinstance(keep, float) else keep]
    path.write_bytes(cut)
    with pytest.raises(ProfileDamagedError, match=r"damaged.*recover"):
        open_profile(path)
    assert path.read_bytes() == cut


def test_a_damaged_table_page_is_reported_when_read(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    _profile_with_folders(path, 3)
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'folders'").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + page_size] = b"\xa5" * page_size
    path.write_bytes(bytes(data))
    profile = open_profile(path)  # the schema pages are sound; the folders page is not
    try:
        with pytest.raises(ProfileDamagedError, match="malformed"):
            profile.catalog.folders()
    finally:
        profile.close()


def test_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "profile.db"
    folder.mkdir()
    with pytest.raises(ProfileIsFolderError, match="is a folder"):
        open_profile(folder)
    assert list(folder.iterdir()) == []


def test_a_read_only_file_reads_but_refuses_writes_and_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    _profile_with_folders(path, 2)
    with read_only_file(path):
        profile = open_profile(path)
        try:
            assert [f.path for f in profile.catalog.folders()] == ["/photos/0", "/photos/1"]
            with pytest.raises(
                ProfileReadOnlyError, match=r"not writable.*make the file and its folder writable"
            ):
                profile.catalog.add_folder("/photos/new")
        finally:
            profile.close()
    assert _folders(path) == ["/photos/0", "/photos/1"]


def test_a_profile_in_a_read_only_folder_is_refused_with_the_reason(tmp_path: Path) -> None:
    folder = tmp_path / "profiles"
    folder.mkdir()
    _profile_with_folders(folder / "p.db", 2)
    with read_only_folder(folder) as view:
        for name in ("p.db", "new.db", "sub/new.db"):
            with pytest.raises(ProfileReadOnlyError, match="cannot be written"):
                open_profile(view / name)
    assert _folders(folder / "p.db") == ["/photos/0", "/photos/1"]
    assert sorted(p.name for p in folder.iterdir()) == ["p.db"]


def test_a_lock_held_past_the_busy_timeout_is_reported_busy(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(connection_module, "BUSY_TIMEOUT_MS", 150)
    path = tmp_path / "p.db"
    _profile_with_folders(path, 1)
    profile = open_profile(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ProfileBusyError):
            open_profile(path)  # opening checks the schema under the write lock too
        with pytest.raises(ProfileBusyError, match=r"locked for too long.*try again"):
            profile.catalog.add_folder("/photos/late")
        other.execute("ROLLBACK")
        profile.catalog.add_folder("/photos/late")  # the lock is gone: the same call now works
        assert [f.path for f in profile.catalog.folders()] == ["/photos/0", "/photos/late"]
    finally:
        other.close()
        profile.close()


def _fill_until_full(profile: Profile) -> int:
    """Add folders until the profile reports a full disk; returns how many were committed."""
    committed = 0
    with pytest.raises(ProfileDiskFullError, match=r"full.*everything saved before it is kept"):
        for n in range(100_000):
            profile.catalog.add_folder(f"/photos/{n:06d}/" + "x" * 400)
            committed += 1
    return committed


def test_disk_full_page_limit_keeps_every_earlier_commit(tmp_path: Path) -> None:
    """SQLITE_FULL from SQLite's page limit on this connection (the same code a full disk gives)."""
    path = tmp_path / "p.db"
    profile = open_profile(path)
    try:
        pages = profile.conn.execute("PRAGMA page_count").fetchone()[0]
        profile.conn.execute(f"PRAGMA max_page_count = {pages + 8}")
        committed = _fill_until_full(profile)
        assert committed > 10
        assert len(profile.catalog.folders()) == committed
        assert profile.integrity_check() == "ok"
        profile.conn.execute("PRAGMA max_page_count = 1000000")
        profile.catalog.add_folder("/photos/after")  # space again: writing works again
        assert len(profile.catalog.folders()) == committed + 1
    finally:
        profile.close()


def test_disk_full_on_a_real_small_file_system_keeps_every_earlier_commit(tmp_path: Path) -> None:
    """ENOSPC from a 400 KiB tmpfs (root only): the profile reports it and reopens with every commit."""
    with small_disk(tmp_path / "disk", 400) as disk:
        path = disk / "p.db"
        profile = open_profile(path)
        try:
            committed = _fill_until_full(profile)
            assert committed > 0 and len(profile.catalog.folders()) == committed
            assert profile.integrity_check() == "ok"
        finally:
            profile.close()
        reopened = open_profile(path)
        try:
            assert len(reopened.catalog.folders()) == committed
        finally:
            reopened.close()


def test_bugs_are_not_dressed_up_as_profile_errors(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    try:
        with (
            pytest.raises(sqlite3.OperationalError, match="no such table"),
            profile.database.transaction() as conn,
        ):
            conn.execute("INSERT INTO no_such_table VALUES (1)")
        with pytest.raises(sqlite3.IntegrityError), profile.database.transaction() as conn:
            conn.execute("INSERT INTO folders (path, added_at) VALUES (NULL, 0)")
        profile.catalog.add_folder("/photos/ok")  # the failed transactions were rolled back
        assert [f.path for f in profile.catalog.folders()] == ["/photos/ok"]
    finally:
        profile.close()
    assert profile_error(ValueError("x")) is None
    assert profile_error(sqlite3.ProgrammingError("closed")) is None


@pytest.mark.parametrize(
    ("number", "kind"),
    [
        (errno.ENOSPC, ProfileDiskFullError),
        (errno.EDQUOT, ProfileDiskFullError),
        (errno.EROFS, ProfileReadOnlyError),
        (errno.EISDIR, ProfileIsFolderError),
        (errno.ENOENT, type(None)),
    ],
)
def test_os_errors_map_by_errno(number: int, kind: type) -> None:
    known = profile_error(OSError(number, "why", "/x/p.db"), Path("/x/p.db"))
    assert isinstance(known, kind)
    if known is not None:
        assert isinstance(known, ProfileError) and str(known).startswith("profile /x/p.db: ")


def test_permission_denied_names_what_is_not_permitted(tmp_path: Path) -> None:
    denied = OSError(errno.EACCES, "Permission denied", str(tmp_path))
    assert isinstance(profile_error(denied, None), ProfileReadOnlyError)
    folder = tmp_path / "profiles"
    folder.mkdir()
    with read_only_folder(folder) as view:
        known = profile_error(denied, view / "sub" / "p.db")
    assert isinstance(known, ProfileReadOnlyError) and "cannot be written" in str(known)


@pytest.mark.parametrize("journal", ["-wal", "-shm"])
def test_garbage_journal_files_beside_the_profile_lose_nothing(tmp_path: Path, journal: str) -> None:
    """SQLite checks every WAL frame's checksum and rebuilds the index: junk left there is ignored."""
    path = tmp_path / "p.db"
    _profile_with_folders(path, 3)
    Path(f"{path}{journal}").write_bytes(bytes(range(256)) * 200)
    profile = open_profile(path)
    try:
        assert [f.path for f in profile.catalog.folders()] == ["/photos/0", "/photos/1", "/photos/2"]
        assert profile.integrity_check() == "ok"
        profile.catalog.add_folder("/photos/3")
    finally:
        profile.close()
    assert _folders(path)[-1] == "/photos/3"


def test_a_profile_error_survives_pickling_between_processes(tmp_path: Path) -> None:
    import pickle

    error = ProfileReadOnlyError(tmp_path / "p.db", "cannot be written: the file is not writable")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is ProfileReadOnlyError and str(copy) == str(error) and copy.path == error.path
