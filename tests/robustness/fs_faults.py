"""Real file-system faults for tests: read-only files and folders, and a disk that fills up.

Permissions do not stop root, so as root the helpers use what does: the immutable attribute
(`chattr +i`) for a read-only file, a read-only bind mount for a read-only folder, and a small tmpfs
for a full disk. As another user they use `chmod`; a full disk then falls back to nothing and the
test is skipped (SQLite's `max_page_count` covers SQLITE_FULL for every user elsewhere).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def is_root() -> bool:
    """True when permission bits do not apply to this process."""
    return os.geteuid() == 0


def _run(*command: str) -> bool:
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


@contextmanager
def read_only_file(path: Path) -> Iterator[str]:
    """Make `path` unwritable for this process for the block; yields the mechanism used."""
    if not is_root():
        mode = path.stat().st_mode
        path.chmod(0o444)
        try:
            yield "chmod 444"
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None or not _run("chattr", "+i", str(path)):
        pytest.skip("running as root and `chattr +i` is not available here")
    try:
        yield "chattr +i (root)"
    finally:
        _run("chattr", "-i", str(path))


@contextmanager
def read_only_folder(folder: Path) -> Iterator[Path]:
    """A read-only view of `folder` for the block: `folder` itself (chmod 555) or a read-only bind mount."""
    if not is_root():
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(mode)
        return
    view = folder.with_name(folder.name + "-ro")
    view.mkdir()
    if not _run("mount", "--bind", str(folder), str(view)):
        view.rmdir()
        pytest.skip("running as root and bind mounts are not permitted here")
    try:
        if not _run("mount", "-o", "remount,ro,bind", str(view)):
            pytest.skip("running as root and read-only remounts are not permitted here")
        yield view
    finally:
        _run("umount", str(view))
        view.rmdir()


@contextmanager
def small_disk(folder: Path, size_kib: int) -> Iterator[Path]:
    """`folder` as a tmpfs of `size_kib` KiB for the block (needs root); a real ENOSPC when it fills."""
    folder.mkdir(parents=True, exist_ok=True)
    if not is_root() or not _run(
        "mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(folder)
    ):
        pytest.skip("a small tmpfs needs root and mount permission")
    try:
        yield folder
    finally:
        _run("umount", str(folder))


@contextmanager
def overlay_of(lower: Path, view: Path) -> Iterator[Path]:
    """`view` shows `lower`'s files through an overlay mount (needs root): the same files under other
    device and inode numbers, as a FUSE or network mount of a local folder gives them."""
    upper, work = view.with_name(view.name + "-upper"), view.with_name(view.name + "-work")
    for folder in (view, upper, work):
        folder.mkdir(parents=True, exist_ok=True)
    options = f"lowerdir={lower},upperdir={upper},workdir={work}"
    if not is_root() or not _run("mount", "-t", "overlay", "overlay", "-o", options, str(view)):
        pytest.skip("an overlay mount needs root and mount permission")
    try:
        yield view
    finally:
        _run("umount", str(view))
