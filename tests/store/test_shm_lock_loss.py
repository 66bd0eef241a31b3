"""Marks survive a stray close of the profile's -shm or -wal file in a process that holds it (issue 20).

Closing any descriptor of `profile.db-shm` drops SQLite's locks on it: the WAL write lock and the
read marks. Before Aesthete's own writer and checkpoint locks (store/file_guard.py), a command-line
`mark` then wrote the WAL at the same time as the window, which wrote its frames over the
command's and lost its mark while both reported success. These tests play that with real processes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from aesthete_gui.store import file_guard, open_profile
from aesthete_gui.store.marks import store_marks

pytestmark = pytest.mark.skipif(not file_guard.OFD_LOCKS, reason="open-file-description locks are Linux's")


def _profile_with_images(path: Path, count: int) -> list[int]:
    setup = open_profile(path)
    ids = [setup.catalog.ensure_image(str(path.parent / f"IMG_{n}.jpg")) for n in range(count)]
    setup.close()
    return ids


def _stray_read(path: Path) -> None:
    with open(path, "rb") as handle:  # a thumbnailer or file dialog sniffing every file of the folder
        handle.read(100)


def _readable_within(stream: Any, seconds: float) -> bool:
    """True when `stream` has something to read within `seconds` (poll: any descriptor number, a long
    test session has more than select()'s 1,024)."""
    poller = select.poll()
    poller.register(stream, select.POLLIN)
    return bool(poller.poll(seconds * 1000))


def _stored_stars(path: Path) -> dict[int, int]:
    code = (
        "import sqlite3, sys, json; c = sqlite3.connect(sys.argv[1]);"
        "print(json.dumps(dict(c.execute('select image_id, stars from marks').fetchall())))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    return {int(k): int(v) for k, v in json.loads(done.stdout).items()}


OTHER_PROCESS = """
import sys
from aesthete_gui.store import open_profile
profile = open_profile(sys.argv[1], actor="cli")
profile.marks.get(int(sys.argv[2]))
print("ready", flush=True)
sys.stdin.readline()
profile.marks.set(int(sys.argv[2]), stars=5)
print("written", flush=True)
profile.close()
"""


def test_another_process_s_mark_during_a_write_after_a_stray_close_of_shm_is_kept(tmp_path: Path) -> None:
    """The window's write transaction is open when its -shm locks drop; the other process's mark waits."""
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 2)
    holder = open_profile(path)
    holder.marks.set(ids[0], stars=1)
    other = subprocess.Popen([sys.executable, "-c", OTHER_PROCESS, str(path), str(ids[1])], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert other.stdout is not None and other.stdin is not None
    assert other.stdout.readline().strip() == "ready"
    with holder.database.transaction() as tx:
        store_marks(tx, ids[0], stars=2, source="window")
        _stray_read(Path(f"{path}-shm"))  # SQLite's WAL write lock of this process is gone now
        other.stdin.write("go\n")
        other.stdin.flush()
        written = _readable_within(other.stdout, 2.0)  # before the fix it wrote at once
    _, errors = other.communicate(timeout=120)
    assert other.returncode == 0, errors
    assert not written  # it waited for this transaction
    assert holder.marks.get(ids[1]).stars == 5
    holder.marks.set(ids[0], stars=3)
    holder.close()
    assert _stored_stars(path) == {ids[0]: 3, ids[1]: 5}


WRITER = """
import sys, random
from aesthete_gui.store import open_profile
profile = open_profile(sys.argv[1], actor="cli")
rng = random.Random(int(sys.argv[2]))
ids = [int(i) for i in sys.argv[3:]]
for _ in range(150):
    i = rng.choice(ids)
    s = rng.randrange(6)
    profile.marks.set(i, stars=s)
    print(i, s, flush=True)
profile.close()
"""


def _start_writer(path: Path, seed: int, ids: list[int]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(seed), *map(str, ids)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def test_marks_of_several_processes_survive_stray_closes_of_shm_and_wal(tmp_path: Path) -> None:
    """The shape of the attack: the window marks while something in it opens and closes the -shm and
    -wal files, and other processes mark their own images at the same time; every last mark stays."""
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 40)
    holder = open_profile(path, actor="window")
    expected: dict[int, int] = {}
    stop = threading.Event()

    def stray() -> None:
        while not stop.is_set():
            for suffix in ("-shm", "-wal"):
                with contextlib.suppress(OSError):  # not there between two checkpoints
                    _stray_read(Path(f"{path}{suffix}"))
            time.sleep(0.0005)

    def window() -> None:
        n = 0
        while not stop.is_set():
            image = ids[n % 10]
            holder.marks.set(image, stars=n % 6)
            expected[image] = n % 6
            n += 1

    threads = [threading.Thread(target=stray), threading.Thread(target=window)]
    for thread in threads:
        thread.start()
    try:
        writers = [_start_writer(path, k, ids[10 + 10 * k : 20 + 10 * k]) for k in range(3)]
        outputs = [w.communicate(timeout=300) for w in writers]
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    holder.close()
    for writer, (_, errors) in zip(writers, outputs, strict=True):
        assert writer.returncode == 0, errors
    for out, _ in outputs:
        for line in out.split("\n"):
            if line:
                image, stars = map(int, line.split())
                expected[image] = stars
    stored = _stored_stars(path)
    lost = {i: (s, stored.get(i, 0)) for i, s in expected.items() if stored.get(i, 0) != s}
    assert lost == {}, f"{len(lost)} of {len(expected)} marks lost: (expected, stored) {lost}"


READER = """
import sys
from aesthete_gui.store import open_profile
profile = open_profile(sys.argv[1])
with profile.database.using() as conn:
    conn.execute("SELECT COUNT(*) FROM marks").fetchone()
    print("reading", flush=True)
    sys.stdin.readline()
profile.close()
"""


def test_a_checkpoint_waits_until_no_other_process_reads(tmp_path: Path) -> None:
    """SQLite's automatic checkpoint is off; a commit checkpoints when no other process reads."""
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 1)
    holder = open_profile(path)
    guard = holder.database.guard
    assert guard.serialised
    assert holder.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert reader.stdout is not None and reader.stdin is not None
    assert reader.stdout.readline().strip() == "reading"
    holder.marks.set(ids[0], stars=1)
    with holder.database.using() as conn, guard.writing():
        assert guard.frames_to_copy() > 0
        assert not guard.checkpoint_if_due(conn, frames=1)  # the other process reads: not now
    reader.communicate("done\n", timeout=120)
    with holder.database.using() as conn, guard.writing():
        assert guard.checkpoint_if_due(conn, frames=1)
        assert guard.frames_to_copy() == 0
    holder.marks.set(ids[0], stars=2)
    holder.close()
    assert _stored_stars(path) == {ids[0]: 2}


def test_many_commits_keep_the_wal_short(tmp_path: Path) -> None:
    path = tmp_path / "profile.db"
    ids = _profile_with_images(path, 50)
    holder = open_profile(path)
    for n in range(400):
        holder.marks.set(ids[n % 50], stars=n % 6)
    assert holder.database.guard.checkpoints >= 1
    assert holder.database.guard.frames_to_copy() < file_guard.CHECKPOINT_FRAMES
    holder.close()


@pytest.mark.skipif(not file_guard.OFD_LOCKS, reason="Aesthete's own locks are OFD locks (Linux)")
def test_a_write_that_waited_too_long_for_another_process_is_the_one_line_profile_busy(tmp_path: Path) -> None:
    # another Aesthete process stopped (Ctrl+Z) in the middle of a write holds the writer byte
    from aesthete_gui.store.errors import ProfileBusyError, profile_error

    db = tmp_path / "p.db"
    profile = open_profile(db)
    holder = os.open(db, os.O_RDWR)  # its own open file description: its OFD lock conflicts with ours
    try:
        fcntl.fcntl(holder, fcntl.F_OFD_SETLK, file_guard._flock(fcntl.F_WRLCK, file_guard.WRITER_BYTE, 1))
        with pytest.raises(sqlite3.OperationalError) as caught, profile.database.guard.writing(timeout=0.2):
            pass
        assert isinstance(profile_error(caught.value, db), ProfileBusyError)
    finally:
        os.close(holder)
        profile.close()
