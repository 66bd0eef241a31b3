"""Marks never vanish when something in the process opens and closes the profile file (issue 20).

On POSIX systems closing any descriptor of a file drops every fcntl lock the process holds on it.
Before the file guard, a long-lived process (the window) that read 100 bytes of its profile lost its
locks; the next command-line run then checkpointed and deleted the WAL, the window wrote into the
deleted file, and its own last checkpoint copied old pages over the command's marks. These tests
play that sequence with real processes: the `aesthete mark` command in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aesthete_gui.store import Profile, file_guard, open_profile

CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]


def _cli_mark(profile: Path, image_id: int, stars: int) -> None:
    done = subprocess.run([*CLI, "--profile", str(profile), "mark", str(image_id), "--stars", str(stars)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr


def _profile_with_images(path: Path, count: int) -> list[int]:
    setup = open_profile(path)
    ids = [setup.catalog.ensure_image(str(path.parent / f"IMG_{n}.jpg")) for n in range(count)]
    setup.close()
    return ids


def _stars_in_a_fresh_process(path: Path, ids: list[int]) -> list[int]:
    code = (
        "import sys, json; from aesthete_gui.store import open_profile;"
        "p = open_profile(sys.argv[1]); print(json.dumps([p.marks.get(int(i)).stars for i in sys.argv[2:]]))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path), *map(str, ids)],
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    return [int(v) for v in done.stdout.strip().strip("[]").split(",")]


def _deleted_profile_files() -> list[str]:
    """This process's descriptors on files that no longer exist under their name (Linux)."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if "profile.db" in target and target.endswith("(deleted)"):
            found.append(target)
    return found


def _stray_read(path: Path) -> None:
    with open(path, "rb") as handle:  # what a file dialog's type sniffing does
        handle.read(100)


def _interleave(holder: Profile, path: Path, ids: list[int]) -> None:
    """The window and the command line take turns marking; the window's file was opened elsewhere."""
    holder.marks.get(ids[0])
    _stray_read(path)
    _cli_mark(path, ids[1], 1)
    holder.marks.set(ids[2], stars=2)
    assert _deleted_profile_files() == []
    _cli_mark(path, ids[3], 3)
    holder.marks.set(ids[4], stars=4)
    assert [holder.marks.get(i).stars for i in ids[1:]] == [1, 2, 3, 4]  # the window sees them all


def _stars_after_closing(path: Path, ids: list[int]) -> list[int]:
    reopened = open_profile(path)
    try:
        return [reopened.marks.get(i).stars for i in ids]
    finally:
        reopened.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd is Linux's")
def test_a_stray_open_and_close_of_the_profile_loses_no_mark(tmp_path: Path) -> None:
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 5)
    holder = open_profile(path)
    _interleave(holder, path, ids)
    holder.close()
    assert _stars_after_closing(path, ids[1:]) == [1, 2, 3, 4]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd is Linux's")
def test_without_ofd_locks_a_deleted_wal_is_noticed_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the kernel has no OFD locks (macOS), the check before each write does the job alone."""
    monkeypatch.setattr(file_guard, "OFD_LOCKS", False)
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 5)
    holder = open_profile(path)
    _interleave(holder, path, ids)
    holder.close()
    assert _stars_after_closing(path, ids[1:]) == [1, 2, 3, 4]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd is Linux's")
def test_a_wal_deleted_by_hand_is_never_written_into(tmp_path: Path) -> None:
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 2)
    holder = open_profile(path)
    holder.marks.set(ids[0], stars=3)
    holder.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink()
    holder.marks.set(ids[1], stars=4)  # the guard reopens the connections first
    assert _deleted_profile_files() == []
    assert _stars_in_a_fresh_process(path, ids) == [3, 4]  # another process sees the new mark at once
    holder.close()


@pytest.mark.skipif(not file_guard.OFD_LOCKS, reason="open-file-description locks are Linux's")
def test_another_process_cannot_take_the_last_users_lock_after_a_stray_close(tmp_path: Path) -> None:
    path = tmp_path / "profile.db"
    _profile_with_images(path, 1)
    holder = open_profile(path)
    holder.catalog.image_count()
    assert holder.database.guard.ofd_locked
    _stray_read(path)
    probe = (
        "import fcntl, struct, os, sys; fd = os.open(sys.argv[1], os.O_RDWR);"
        f"lock = struct.pack('hhqqi', fcntl.F_WRLCK, 0, {file_guard.SHARED_FIRST}, {file_guard.SHARED_SIZE}, 0);"
        "lock += bytes(-len(lock) % 8)\n"
        "try:\n fcntl.fcntl(fd, fcntl.F_SETLK, lock); print('alone')\n"
        "except OSError:\n print('not alone')"
    )
    answer = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True,
                            timeout=60, check=True).stdout.strip()  # fmt: skip
    holder.close()
    assert answer == "not alone"
    after = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True,
                           timeout=60, check=True).stdout.strip()  # fmt: skip
    assert after == "alone"  # closing the profile gives the file back


def test_closing_one_of_two_profiles_on_a_file_keeps_the_others_hold(tmp_path: Path) -> None:
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 1)
    first, second = open_profile(path), open_profile(path)
    first.marks.set(ids[0], stars=1)
    first.close()
    second.marks.set(ids[0], stars=2)
    assert second.marks.get(ids[0]).stars == 2
    second.close()
    assert not Path(f"{path}-wal").exists()  # the last one to close checkpoints and removes the WAL
    reopened = open_profile(path)
    assert reopened.marks.get(ids[0]).stars == 2
    reopened.close()



def test_opening_a_profile_reads_its_file_only_through_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second open of a profile in the same process (the window switching to it) must not open()
    and close() the file itself: that close would drop the first one's locks."""
    import builtins
    import io

    path = tmp_path / "profile.db"
    _profile_with_images(path, 1)
    first = open_profile(path)
    opened: list[str] = []
    real_open = builtins.open

    def recording_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(os.fspath(file) if isinstance(file, str | os.PathLike) else repr(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", recording_open)
    monkeypatch.setattr(io, "open", recording_open)
    second = open_profile(path)
    monkeypatch.undo()
    assert [name for name in opened if "profile.db" in name] == []
    second.close()
    first.close()
