"""Walk import folders: candidate image files with their size and mtime, and files that cannot be imported.

Directory symlinks are followed once (a loop back to a folder already walked is skipped); hidden
files and folders, XMP and other sidecars, and files whose extension says they are something else
(video, documents) are skipped. Files with no or an unknown extension are kept when their first
bytes are an image signature, so images are found by content, not by name. The profile's own files
(its database and -wal/-shm/-journal files, `<profile>.thumbs`, `<profile>.models` and any other
`<profile>.*` folder beside it, and the thumbnail cache) are never imported, wherever they lie.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from aesthete_gui.imaging.photo_units import PHOTO_SUFFIXES
from aesthete_gui.jobs import CancelToken
from aesthete_gui.store.db import SQLITE_MAGIC

IMAGE_EXTENSIONS = PHOTO_SUFFIXES
SKIPPED_EXTENSIONS = frozenset(
    {
        ".xmp", ".xml", ".thm", ".pp3", ".dop", ".on1", ".cos", ".cof", ".cot", ".json", ".txt",
        ".md", ".csv", ".db", ".sqlite", ".lrcat", ".lrdata", ".pdf", ".doc", ".docx", ".zip",
        ".mov", ".mp4", ".m4v", ".avi", ".mts", ".m2ts", ".mkv", ".wav", ".mp3", ".aac", ".lrv",
        ".ini", ".log", ".html", ".py", ".exe", ".dll", ".so",
    }
)  # fmt: skip
VIDEO_EXTENSIONS = frozenset({".mov", ".mp4", ".m4v", ".avi", ".mts", ".m2ts", ".mkv"})
"""Videos a camera card holds beside its photographs: left out of an import, and counted so it says so."""
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


_DATABASE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def _folder_key(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


@dataclass(frozen=True)
class OwnFiles:
    """The profile's own files and folders, which an import must skip."""

    home: tuple[int, int] | None = None
    database_names: frozenset[str] = frozenset()
    folder_prefix: str | None = None
    folder_keys: frozenset[tuple[int, int]] = frozenset()
    folder_paths: frozenset[str] = field(default_factory=frozenset)

    def owns_folder(self, path: str, key: tuple[int, int], parent: tuple[int, int] | None) -> bool:
        """True for a folder the profile owns (compared by identity, so symlinks do not hide it)."""
        if key in self.folder_keys or os.path.realpath(path) in self.folder_paths:
            return True
        prefix = self.folder_prefix
        return prefix is not None and parent == self.home and os.path.basename(path).startswith(prefix)

    def owns_file(self, name: str, parent: tuple[int, int] | None) -> bool:
        """True for the profile database and its journal files."""
        return parent is not None and parent == self.home and name in self.database_names


def own_files(profile_path: str | os.PathLike[str], folders: Iterable[str | os.PathLike[str]] = ()) -> OwnFiles:
    """What belongs to the profile at `profile_path`, plus any other `folders` it uses (caches)."""
    profile = os.path.abspath(os.fspath(profile_path))
    name = os.path.basename(profile)
    owned = [os.path.abspath(os.fspath(f)) for f in folders]
    keys = {key for key in map(_folder_key, owned) if key is not None}
    return OwnFiles(
        home=_folder_key(os.path.dirname(profile)),
        database_names=frozenset(name + suffix for suffix in _DATABASE_SUFFIXES),
        folder_prefix=name + ".",
        folder_keys=frozenset(keys),
        folder_paths=frozenset(os.path.realpath(f) for f in owned),
    )


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


def scan_folder(
    root: str | os.PathLike[str],
    cancel: CancelToken | None = None,
    own: OwnFiles | None = None,
    sidecar_folders: set[str] | None = None,
    videos: list[str] | None = None,
    off_limits: list[str] | None = None,
) -> Iterator[FoundFile]:
    """Every candidate image under `root` (recursive), in a stable (sorted) order; `own` is skipped.
    Folders holding any XMP file are added to `sidecar_folders` (only their images can have one);
    the videos left out are added to `videos`. With `off_limits`, a folder link leading outside
    `root` (links followed) is not walked but added to that list (a card's link to / would walk the
    whole disk)."""
    top = os.path.abspath(os.fspath(root))
    real_top = os.path.realpath(top)
    own = own or OwnFiles()
    visited: set[tuple[int, int]] = set()
    stack: list[tuple[str, tuple[int, int] | None]] = [(top, _folder_key(os.path.dirname(top)))]
    while stack:
        if cancel is not None and cancel.cancelled:
            return
        folder, parent = stack.pop()
        key = _folder_key(folder)
        if key is None or key in visited:  # gone, or a symlink loop / second link already walked
            continue
        visited.add(key)
        if off_limits is not None and folder != top and not _within(os.path.realpath(folder), real_top):
            off_limits.append(folder)
            continue
        if own.owns_folder(folder, key, parent) or _another_profiles_folder(folder):
            continue
        try:
            with os.scandir(folder) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        subfolders: list[str] = []
        for entry in listed:
            if entry.name.startswith(".") or own.owns_file(entry.name, key):
                continue
            if sidecar_folders is not None and entry.name[-4:].lower() == ".xmp":
                sidecar_folders.add(folder)
            if videos is not None and os.path.splitext(entry.name)[1].lower() in VIDEO_EXTENSIONS:
                videos.append(entry.path)
            yield from _examine(entry, subfolders)
        stack.extend((sub, key) for sub in reversed(subfolders))


def _within(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _another_profiles_folder(folder: str) -> bool:
    """True for `<name>.thumbs` (or any `<name>.<kind>`) beside an SQLite file `<name>`: the cache of
    another profile kept in the shoot folder, whose thumbnails must not be imported as photographs."""
    head, base = os.path.split(folder)
    owner, dot, _ = base.rpartition(".")
    if not dot or not owner:
        return False
    try:
        with open(os.path.join(head, owner), "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


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
