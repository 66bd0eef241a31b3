"""Names from outside (card file names, EXIF text, templates, user-chosen names) checked before they become paths.

A name that becomes one path component must stay inside its folder: it is refused when it is empty,
`.` or `..`, holds a separator of any platform (`/` or `\\`), a NUL or another control character, or
is absolute. A name longer than the file system allows (NAME_MAX bytes, 255 on common file systems)
is shortened with `fit_name`, which keeps the extension and adds a stable suffix made from a hash of
the whole name, so the same long name always becomes the same short one and two long names that
share a beginning stay apart. A path longer than PATH_MAX (4096 bytes on Linux) cannot be opened
at all: `path_problem` says so, so the caller reports it instead of skipping the file silently.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from aesthete_gui.errors import AestheteError

NAME_MAX = 255
"""Bytes in one file name on ext4, XFS, Btrfs, tmpfs, APFS and NTFS (the fallback when the system does not say)."""
PATH_MAX = 4096
"""Bytes in a whole path on Linux (the fallback when the system does not say)."""
_SUFFIX_BYTES = 9  # "~" and 8 hex digits


class UnsafeName(AestheteError):
    """A name that would not stay inside its folder; the message says which name and why."""


def name_problem(name: str) -> str | None:
    """Why `name` cannot be used as one file or folder name inside a folder, or None when it can."""
    if not name:
        return "it is empty"
    if name in (".", ".."):
        return f"{name!r} names a folder, not a file in it"
    if "/" in name or "\\" in name:
        return "it contains a folder separator (/ or \\)"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "it contains a control character"
    if os.path.isabs(name) or (len(name) > 1 and name[0].isascii() and name[0].isalpha() and name[1] == ":"):
        return "it is an absolute path"
    try:
        os.fsencode(name)
    except UnicodeEncodeError:
        return "it cannot be written as a file name on this system"
    return None


def check_name(name: str, what: str) -> str:
    """`name` when it is safe as one path component; UnsafeName saying which `what` and why otherwise."""
    problem = name_problem(name)
    if problem is not None:
        raise UnsafeName(f"{what} {ascii(name)[1:-1]!r} cannot be used as a file name: {problem}")
    return name


def check_relative(relative: str, what: str) -> str:
    """`relative` (components joined by "/") when every component is a safe name; UnsafeName otherwise."""
    if relative.startswith("/"):
        raise UnsafeName(f"{what} {ascii(relative)[1:-1]!r} must stay inside its folder: it is an absolute path")
    for part in relative.split("/"):
        problem = name_problem(part)
        if problem is not None:
            raise UnsafeName(
                f"{what} {ascii(relative)[1:-1]!r} must stay inside its folder: the part "
                f"{ascii(part)[1:-1]!r} is refused because {problem}"
            )
    return relative


def _nearest_existing(path: Path) -> Path:
    while path != path.parent and not os.path.lexists(path):  # lexists is False for a too-long path
        path = path.parent
    return path


def name_max(folder: str | os.PathLike[str]) -> int:
    """The longest file name (in bytes) the file system at `folder` (or its nearest existing parent) takes."""
    probe = _nearest_existing(Path(folder))
    try:
        return int(os.pathconf(probe, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return NAME_MAX


def path_max(folder: str | os.PathLike[str]) -> int:
    """The longest path (in bytes) the system takes below `folder`."""
    probe = _nearest_existing(Path(folder))
    try:
        return int(os.pathconf(probe, "PC_PATH_MAX"))
    except (OSError, ValueError):
        return PATH_MAX


def _cut(text: str, limit: int) -> str:
    """The longest beginning of `text` that is at most `limit` bytes once encoded (never half a character)."""
    encoded = os.fsencode(text)
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode("utf-8", "ignore") if limit > 0 else ""


def fit_name(name: str, limit: int = NAME_MAX, reserve: int = 0) -> str:
    """`name` when it fits in `limit - reserve` bytes, else its stem cut short plus "~" and 8 hex digits
    of a hash of the whole name, extension kept. `reserve` leaves room for what a caller appends later
    (a " (2)" or a sidecar's ".xmp")."""
    budget = limit - reserve
    if len(os.fsencode(name)) <= budget:
        return name
    stem, extension = os.path.splitext(name)
    if len(os.fsencode(extension)) > 16:  # not an extension, just a dot in a long name
        stem, extension = name, ""
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:8]
    room = budget - len(os.fsencode(extension)) - _SUFFIX_BYTES
    if room < 1:
        raise UnsafeName(f"{ascii(name)[1:-1]!r} cannot be shortened to fit {budget} bytes")
    return f"{_cut(stem, room)}~{digest}{extension}"


def path_problem(path: str | os.PathLike[str]) -> str | None:
    """Why `path` cannot be opened because of its length (a name or the whole path too long), or None."""
    text = os.fspath(path)
    limit = path_max(os.path.dirname(text) or ".")
    size = len(os.fsencode(text))
    if size >= limit:
        return f"the path is {size} bytes long, longer than the {limit} bytes this system allows"
    longest = max((len(os.fsencode(part)) for part in Path(text).parts), default=0)
    if longest > NAME_MAX:
        return f"a name in the path is {longest} bytes long, longer than {NAME_MAX} bytes"
    return None
