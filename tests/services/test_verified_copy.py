"""The last step of every copy never replaces a file: renameat2(RENAME_NOREPLACE), else link-then-unlink,
else a name claimed with O_EXCL; temporary files nobody holds locked are cleaned; sources that are not regular
files are refused without waiting; the folder lock is exclusive."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aesthete_gui.atomic_write import folder_lock
from aesthete_gui.services import verified_copy
from aesthete_gui.services.verified_copy import (
    clean_own_temps,
    discard,
    place,
    release,
    stage,
    take_back,
)


def _no_renameat2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verified_copy, "_rename_noreplace", lambda _t, _target: False)


def _no_links(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", refuse)


@pytest.mark.parametrize("mechanism", ["renameat2", "link", "o_excl"])
def test_placing_never_replaces_a_file_that_is_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mechanism: str) -> None:
    if mechanism != "renameat2":
        _no_renameat2(monkeypatch)
    if mechanism == "o_excl":
        _no_links(monkeypatch)
    source = tmp_path / "card.jpg"
    source.write_bytes(b"our photograph")
    theirs = tmp_path / "IMG_0001.jpg"
    theirs.write_bytes(b"another card's photograph")
    staged = stage(source, tmp_path)
    assert staged is not None
    with pytest.raises(FileExistsError):
        place(staged.temp, theirs)
    assert theirs.read_bytes() == b"another card's photograph" and staged.temp.read_bytes() == b"our photograph"
    place(staged.temp, tmp_path / "IMG_0001-2.jpg")
    assert (tmp_path / "IMG_0001-2.jpg").read_bytes() == b"our photograph" and not staged.temp.exists()
    take_back(staged, tmp_path / "IMG_0001-2.jpg")  # undoing a placement gives the temporary name back
    assert staged.temp.read_bytes() == b"our photograph" and not (tmp_path / "IMG_0001-2.jpg").exists()


def test_a_copy_that_meets_a_taken_name_leaves_no_temporary_file(tmp_path: Path) -> None:
    source, target = tmp_path / "a.jpg", tmp_path / "out" / "a.jpg"
    source.write_bytes(b"x" * 3000)
    first = stage(source, target.parent)
    assert first is not None
    place(first.temp, target)
    release(first)
    second = stage(source, target.parent)
    assert second is not None
    with pytest.raises(FileExistsError):
        place(second.temp, target)
    discard(second)  # what every caller does when the placement fails
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.jpg"]


def test_a_rerun_removes_unlocked_temporary_files_only_whatever_their_pid(tmp_path: Path) -> None:
    import fcntl

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    names = {
        f".aesthete-ingest-{dead}-abc123.part": False,  # nobody holds it: removed
        f".aesthete-copy-{os.getppid()}-abc123.part": False,  # a live pid says nothing (another namespace's?)
        f".aesthete-copy-{dead}-held.part": True,  # a copy in progress holds its lock: kept
        ".aesthete-ingest-legacy1.part": False,  # an older name without pid
        "holiday.part": True,  # not ours
        ".aesthete-ingest.jsonl": True,
    }
    for name in names:
        (tmp_path / name).write_bytes(b"partial")
    held = os.open(tmp_path / f".aesthete-copy-{dead}-held.part", os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        assert clean_own_temps(tmp_path, started=time.time() + 1) == 3
        assert {p.name for p in tmp_path.iterdir()} == {n for n, kept in names.items() if kept}
        (tmp_path / "new").mkdir()
        (tmp_path / "new" / ".aesthete-copy-1-fresh.part").write_bytes(b"just made")
        assert clean_own_temps(tmp_path / "new", started=time.time() - 60) == 0  # changed since this run began
    finally:
        os.close(held)


def test_a_staged_copy_holds_its_lock_until_it_is_placed_or_discarded(tmp_path: Path) -> None:
    source = tmp_path / "a.jpg"
    source.write_bytes(b"x" * 5000)
    staged = stage(source, tmp_path / "dest")
    assert staged is not None and staged.lock is not None
    assert clean_own_temps(tmp_path / "dest", started=time.time() + 1) == 0 and staged.temp.exists()
    discard(staged)
    assert staged.lock is None and not staged.temp.exists()


def test_a_fifo_device_or_link_is_refused_without_waiting(tmp_path: Path) -> None:
    from aesthete_gui.services.verified_copy import NotRegularFile, file_hash

    os.mkfifo(tmp_path / "pipe.xmp")
    (tmp_path / "zero.xmp").symlink_to("/dev/zero")
    (tmp_path / "big.xmp").write_bytes(b" " * (8 * 1024 * 1024 + 1))
    for name, sidecar, reason in (("pipe.xmp", False, "a FIFO (named pipe)"), ("zero.xmp", False, "a character device"),
                                  ("zero.xmp", True, "a symbolic link"), ("big.xmp", True, "larger than 8 MiB")):  # fmt: skip
        with pytest.raises(NotRegularFile) as refused:
            stage(tmp_path / name, tmp_path / "dest", sidecar=sidecar)
        assert refused.value.filename == str(tmp_path / name) and refused.value.strerror.startswith(reason)
    with pytest.raises(NotRegularFile):
        file_hash(tmp_path / "pipe.xmp")
    assert not (tmp_path / "dest").exists()  # refused before anything was written


def test_the_folder_lock_keeps_other_processes_waiting(tmp_path: Path) -> None:
    probe = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY)\n"
             "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB); print('free')\n"
             "except BlockingIOError:\n    print('held')\n")  # fmt: skip
    ask = lambda: subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True).stdout.strip()  # noqa: E731
    with folder_lock(tmp_path):
        assert ask() == "held"
    assert ask() == "free"
