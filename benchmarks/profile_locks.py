"""Profile locks benchmark: which defence keeps every mark after a stray open()/close() of the
profile, and what the defences and the cross-process change feed cost per write and per poll.

Scenario (real `aesthete mark` subprocesses): a long-lived process holds the profile, reads 100
bytes of the file with open()/close(), then the command line and the holder take turns marking
four images. Each defence is switched off in turn: the OFD locks (store/file_guard.OFD_LOCKS) and
the check before each write (FileGuard.ensure_sound).

Second scenario (-shm): the holder marks ten images in a loop while a thread of it opens and closes
the -shm and -wal files (a thumbnailer sniffing the folder), and three other processes mark ten
images each, `--marks` times; with Aesthete's own writer and checkpoint locks
(store/file_guard.OWN_LOCKS) on and off, `--rounds` times each. Then what those locks cost.

    python benchmarks/profile_locks.py [--writes 2000] [--marks 150] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from aesthete_gui.store import file_guard, open_profile
from aesthete_gui.store.connection import ProfileDatabase
from aesthete_gui.store.file_guard import FileGuard

CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]


def _scenario(folder: Path, ofd: bool, check: bool) -> tuple[int, bool]:
    """(marks kept of 4, whether the holder ever held a deleted WAL)."""
    path = folder / "profile.db"
    setup = open_profile(path)
    ids = [setup.catalog.ensure_image(str(folder / f"IMG_{n}.jpg")) for n in range(4)]
    setup.close()
    file_guard.OFD_LOCKS = ofd and sys.platform.startswith("linux")
    original = FileGuard.ensure_sound
    if not check:
        FileGuard.ensure_sound = lambda self: False  # type: ignore[method-assign]
    deleted = False
    try:
        holder = open_profile(path)
        holder.catalog.image_count()
        with open(path, "rb") as handle:
            handle.read(100)
        for n, image_id in enumerate(ids):
            if n % 2 == 0:
                subprocess.run([*CLI, "--profile", str(path), "mark", str(image_id), "--stars", str(n + 1)],
                               check=True, capture_output=True, timeout=300)  # fmt: skip
            else:
                holder.marks.set(image_id, stars=n + 1)
                deleted |= any(
                    os.readlink(f"/proc/self/fd/{fd}").endswith("-wal (deleted)")
                    for fd in os.listdir("/proc/self/fd")
                    if os.path.exists(f"/proc/self/fd/{fd}")
                )
        holder.close()
    finally:
        FileGuard.ensure_sound = original  # type: ignore[method-assign]
        file_guard.OFD_LOCKS = sys.platform.startswith("linux")
    check_profile = open_profile(path)
    kept = sum(check_profile.marks.get(i).stars == n + 1 for n, i in enumerate(ids))
    check_profile.close()
    return kept, deleted


WRITER = """
import sys, random
from aesthete_gui.store import file_guard, open_profile
file_guard.OWN_LOCKS = sys.argv[2] == "on"
profile = open_profile(sys.argv[1], actor="cli")
rng = random.Random(int(sys.argv[3]))
ids = [int(i) for i in sys.argv[5:]]
for _ in range(int(sys.argv[4])):
    i, s = rng.choice(ids), rng.randrange(6)
    profile.marks.set(i, stars=s)
    print(i, s, flush=True)
profile.close()
"""


def _shm_scenario(folder: Path, own_locks: bool, marks: int) -> tuple[int, int, str, str]:
    """(marks expected, marks differing, integrity, first error) after the -shm scenario."""
    path = folder / "profile.db"
    setup = open_profile(path)
    ids = [setup.catalog.ensure_image(str(folder / f"IMG_{n}.jpg")) for n in range(40)]
    setup.close()
    file_guard.OWN_LOCKS = own_locks
    holder = open_profile(path, actor="window")
    expected: dict[int, int] = {}
    errors: list[str] = []
    stop = threading.Event()

    def stray() -> None:
        while not stop.is_set():
            for suffix in ("-shm", "-wal"):
                with contextlib.suppress(OSError), open(f"{path}{suffix}", "rb") as handle:
                    handle.read(100)
            time.sleep(0.0005)

    def window() -> None:
        n = 0
        while not stop.is_set():
            try:
                holder.marks.set(ids[n % 10], stars=n % 6)
                expected[ids[n % 10]] = n % 6
            except Exception as error:  # the damage being measured
                errors.append(repr(error))
            n += 1

    threads = [threading.Thread(target=stray), threading.Thread(target=window)]
    for thread in threads:
        thread.start()
    state = "on" if own_locks else "off"
    writers = []
    for k in range(3):
        command = [sys.executable, "-c", WRITER, str(path), state, str(k), str(marks), *map(str, ids[10 + 10 * k : 20 + 10 * k])]
        writers.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = [w.communicate(timeout=600) for w in writers]
    stop.set()
    for thread in threads:
        thread.join()
    with contextlib.suppress(Exception):
        holder.close()
    file_guard.OWN_LOCKS = True
    for writer, (out, err) in zip(writers, outputs, strict=True):
        if writer.returncode:
            errors.append(err.strip().splitlines()[-1] if err.strip() else f"exit {writer.returncode}")
        for line in out.split("\n"):
            if line:
                image, stars = map(int, line.split())
                expected[image] = stars
    try:
        con = sqlite3.connect(path)
        integrity = str(con.execute("PRAGMA integrity_check").fetchone()[0])
        stored = dict(con.execute("SELECT image_id, stars FROM marks").fetchall())
        con.close()
    except sqlite3.Error as error:
        integrity, stored = repr(error), {}
    differing = sum(stored.get(i, 0) != s for i, s in expected.items())
    return len(expected), differing, integrity, errors[0] if errors else ""


def _lock_costs(folder: Path, writes: int) -> list[tuple[str, float]]:
    """Mark writes and one-row reads with Aesthete's own locks on and off (two files, interleaved)."""
    profiles = {}
    for state in (True, False):
        file_guard.OWN_LOCKS = state
        profile = open_profile(folder / f"own-{state}.db")
        profiles[state] = (profile, profile.catalog.ensure_image("/photos/a.jpg"))
    file_guard.OWN_LOCKS = True
    stars = iter(range(10**9))
    names = {(True, "w"): "mark write, own locks on", (False, "w"): "mark write, own locks off",
             (True, "r"): "one-row read, own locks on", (False, "r"): "one-row read, own locks off"}  # fmt: skip
    rounds: dict[str, list[float]] = {name: [] for name in names.values()}
    for _ in range(3):
        for state, (profile, image_id) in profiles.items():
            rounds[names[state, "w"]].append(
                _per_call_us(lambda p=profile, i=image_id: p.marks.set(i, stars=next(stars) % 6), writes))
            rounds[names[state, "r"]].append(
                _per_call_us(lambda p=profile, i=image_id: p.marks.get(i), writes * 5))
    for profile, _ in profiles.values():
        profile.close()
    return [(name, min(values)) for name, values in rounds.items()]


def _per_call_us(func: object, count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        func()  # type: ignore[operator]
    return 1e6 * (time.perf_counter() - start) / count


def _costs(folder: Path, writes: int) -> list[tuple[str, float]]:
    path = folder / "costs.db"
    profile = open_profile(path)
    image_id = profile.catalog.ensure_image("/photos/a.jpg")
    profile.changes.start()
    original, log = FileGuard.ensure_sound, ProfileDatabase._log
    stars = iter(range(10**9))
    rounds: dict[str, list[float]] = {
        "mark write (as shipped)": [], "mark write, guard check off": [], "mark write, change log off": [],
    }  # fmt: skip
    for _ in range(3):  # interleaved, so that load changes hit all alike
        rounds["mark write (as shipped)"].append(
            _per_call_us(lambda: profile.marks.set(image_id, stars=next(stars) % 6), writes))
        FileGuard.ensure_sound = lambda self: False  # type: ignore[method-assign]
        rounds["mark write, guard check off"].append(
            _per_call_us(lambda: profile.marks.set(image_id, stars=next(stars) % 6), writes))
        FileGuard.ensure_sound = original  # type: ignore[method-assign]
        ProfileDatabase._log = lambda self, conn, events: None  # type: ignore[method-assign]
        rounds["mark write, change log off"].append(
            _per_call_us(lambda: profile.marks.set(image_id, stars=next(stars) % 6), writes))
        ProfileDatabase._log = log  # type: ignore[method-assign]
    rows = [(name, min(values)) for name, values in rounds.items()]
    guard = profile.database.guard
    rows.append(("the check itself (stat -wal and -shm)", _per_call_us(guard.stale_reason, writes * 5)))
    if os.path.exists("/proc/locks"):
        def read_locks() -> None:
            with open("/proc/locks") as table:
                table.read()

        rows.append(("rejected: read /proc/locks", _per_call_us(read_locks, writes)))
    rows.append(("poll, nothing committed", _per_call_us(profile.changes.poll, writes * 5)))
    other = open_profile(path)

    def poll_after_a_commit() -> None:
        other.marks.set(image_id, stars=next(stars) % 6)
        profile.changes.poll()

    both = _per_call_us(poll_after_a_commit, writes // 4)
    alone = _per_call_us(lambda: other.marks.set(image_id, stars=next(stars) % 6), writes // 4)
    rows.append(("poll after another writer's mark", both - alone))
    other.close()
    profile.close()
    return rows


def main() -> None:
    """Print the scenario table and the cost table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--marks", type=int, default=150, help="marks per other process (-shm scenario)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of the -shm scenario per setting")
    args = parser.parse_args()
    writes = args.writes
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d')}")  # fmt: skip
    print("\n| OFD locks | check before write | marks kept (of 4) | holder wrote into a deleted WAL |")
    print("| --- | --- | --- | --- |")
    for ofd, check in ((False, False), (False, True), (True, False), (True, True)):
        with tempfile.TemporaryDirectory() as folder:
            kept, deleted = _scenario(Path(folder), ofd, check)
        print(f"| {'on' if ofd else 'off'} | {'on' if check else 'off'} | {kept} | {'yes' if deleted else 'no'} |")
    print(f"\n| own locks | run | images marked (3 processes × {args.marks} marks + the holder) | last mark differs | integrity | first error |")
    print("| --- | --- | --- | --- | --- | --- |")
    for own in (False, True):
        for run in range(args.rounds):
            with tempfile.TemporaryDirectory() as folder:
                total, differing, integrity, error = _shm_scenario(Path(folder), own, args.marks)
            integrity = " / ".join(integrity.split("\n"))
            print(f"| {'on' if own else 'off'} | {run + 1} | {total} | {differing} | {integrity} | {error[:80]} |")
    with tempfile.TemporaryDirectory() as folder:
        rows = _costs(Path(folder), writes)
        rows += _lock_costs(Path(folder), writes)
    print(f"\n| operation ({writes} calls, best of 3 rounds for writes) | µs per call |")
    print("| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value:.1f} |")


if __name__ == "__main__":
    main()
