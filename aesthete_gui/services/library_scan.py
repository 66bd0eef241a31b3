"""Walk import folders: candidate image files with their size and mtime, and files that cannot be imported.

Directory symlinks are followed once (a loop back to a folder already walked is skipped); hidden
files and folders, XMP and other sidecars, and files whose extension says they are something else
(video, documents) are skipped. Files with no or an unknown extension are kept when their first
bytes are an image signature, so images are found by content, not by name.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from aesthete_gui.jobs import CancelToken

IMAGE_EXTENSIONS = frozenset(
    {
        ".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".tif", ".tiff", ".webp", ".bmp", ".dib",
        ".gif", ".heic", ".heif", ".hif", ".avif", ".3fr", ".ari", ".arw", ".bay", ".cr2",
        ".cr3", ".crw", ".dcr", ".dng", ".erf", ".fff", ".iiq", ".k25", ".kdc", ".mef", ".mos",
        ".mrw", ".nef", ".nrw", ".orf", ".pef", ".raf", ".raw", ".rw2", ".rwl", ".sr2", ".srf",
        ".srw", ".x3f",
    }
)  # fmt: skip
SKIPPED_EXTENSIONS = frozenset(
    {
        ".xmp", ".xml", ".thm", ".pp3", ".dop", ".on1", ".cos", ".cof", ".cot", ".json", ".txt",
        ".md", ".csv", ".db", ".sqlite", ".lrcat", ".lrdata", ".pdf", ".doc", ".docx", ".zip",
        ".mov", ".mp4", ".m4v", ".avi", ".mts", ".m2ts", ".mkv", ".wav", ".mp3", ".aac", ".lrv",
        ".ini", ".log", ".html", ".py", ".exe", ".dll", ".so",
    }
)  # fmt: skip
_SIGNATURES = (
    b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a", b"II*\x00", b"MM\x00*", b"BM",
)  # fmt: skip


@dataclass(frozen=True)
class FoundFile:
    """One candidate file: `path` as text (None when the name is not UTF-8), size and mtime."""

    path: str
    size: int | None
    mtime_ns: int | None
    problem: str | None = None


def path_text(path: str) -> str | None:
    """The path as storable text, or None when the file name is not valid UTF-8."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return path


def display_path(path: str) -> str:
    """A readable, storable form of any path (undecodable bytes shown as \\xNN escapes)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def looks_like_image(path: str) -> bool:
    """True when the file's first bytes are a known image signature (WebP/HEIF/AVIF included)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return False
    if head.startswith(_SIGNATURES):
        return True
    return (head[:4] == b"RIFF" and head[8:12] == b"WEBP") or head[4:8] == b"ftyp"


def _wanted(name: str, path: str) -> bool:
    suffix = os.path.splitext(name)[1].lower()
    if suffix in IMAGE_EXTENSIONS:
        return True
    if suffix in SKIPPED_EXTENSIONS:
        return False
    return looks_like_image(path)


def scan_folder(root: str | os.PathLike[str], cancel: CancelToken | None = None) -> Iterator[FoundFile]:
    """Every candidate image under `root` (recursive), in a stable (sorted) order."""
    top = os.path.abspath(os.fspath(root))
    visited: set[tuple[int, int]] = set()
    stack = [top]
    while stack:
        if cancel is not None and cancel.cancelled:
            return
        folder = stack.pop()
        try:
            info = os.stat(folder)
        except OSError:
            continue
        key = (info.st_dev, info.st_ino)
        if key in visited:  # a symlink loop or a second link to a folder already walked
            continue
        visited.add(key)
        try:
            with os.scandir(folder) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        subfolders: list[str] = []
        for entry in listed:
            if entry.name.startswith("."):
                continue
            yield from _examine(entry, subfolders)
        stack.extend(reversed(subfolders))


def _examine(entry: os.DirEntry[str], subfolders: list[str]) -> Iterator[FoundFile]:
    path = entry.path
    try:
        is_dir = entry.is_dir(follow_symlinks=True)
    except OSError:
        is_dir = False
    if is_dir:
        subfolders.append(path)
        return
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if entry.is_symlink():
            if os.path.splitext(entry.name)[1].lower() in SKIPPED_EXTENSIONS:
                return
            yield FoundFile(path, None, None, "broken symbolic link: its target does not exist")
        return
    except OSError as error:
        yield FoundFile(path, None, None, f"cannot be examined ({error.strerror or error})")
        return
    if not stat.S_ISREG(info.st_mode):
        return
    if not _wanted(entry.name, path):
        return
    if path_text(path) is None:
        yield FoundFile(path, info.st_size, info.st_mtime_ns,
                        "file name is not valid UTF-8; rename the file to import it")  # fmt: skip
        return
    yield FoundFile(path, info.st_size, info.st_mtime_ns)


def under(path: str, root: str) -> bool:
    """True when `path` lies inside folder `root`."""
    root = root.rstrip(os.sep) + os.sep
    return path.startswith(root)


def normalize_root(folder: str | os.PathLike[str]) -> str:
    """The absolute text form of an import folder (symlinks kept as the user named them)."""
    return os.path.abspath(os.fspath(Path(folder).expanduser()))
