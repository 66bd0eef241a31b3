"""Profile locks benchmark: which defence keeps every mark after a stray open()/close() of the
profile, and what the defences and the cross-process change feed cost per write and per poll.

Scenario (real `aesthete mark` subprocesses): a long-lived process holds the profile, reads 100
bytes of the file with open()/close(), then the command line and the holder take turns marking
four images. Each defence is switched off in turn: the OFD locks (store/file_guard.OFD_LOCKS) and
the check before each write (FileGuard.ensure_sound).

    python benchmarks/profile_locks.py [--writes 2000]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
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
    writes = parser.parse_args().writes
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d')}")  # fmt: skip
    print("\n| OFD locks | check before write | marks kept (of 4) | holder wrote into a deleted WAL |")
    print("| --- | --- | --- | --- |")
    for ofd, check in ((False, False), (False, True), (True, False), (True, True)):
        with tempfile.TemporaryDirectory() as folder:
            kept, deleted = _scenario(Path(folder), ofd, check)
        print(f"| {'on' if ofd else 'off'} | {'on' if check else 'off'} | {kept} | {'yes' if deleted else 'no'} |")
    with tempfile.TemporaryDirectory() as folder:
        rows = _costs(Path(folder), writes)
    print(f"\n| operation ({writes} calls, best of 3 rounds for writes) | µs per call |")
    print("| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value:.1f} |")


if __name__ == "__main__":
    main()
