"""Where a report (an export, a ranking) may be written: never over a photograph, a sidecar, a database
or the profile's own files, whatever path the user typed.

An export's destination is the user's to choose, and writing over a previous export is what they
asked for; but `export --output shoot/IMG_0001.JPG` or `--output profile.db` once replaced a
photograph and the whole profile with a few hundred bytes of CSV, and said "3 images exported".
The rule is by what the target *is*, checked before anything is written: the profile file and the
files SQLite and Aesthete keep beside it (by name, and by identity, so another spelling of the same
file is caught), and any file whose name says photograph, sidecar or database (which covers every
photograph of the library and its sidecars: the import reads no other names).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.photo_units import PHOTO_SUFFIXES

if TYPE_CHECKING:
    from aesthete_gui.store import Profile

PROTECTED_SUFFIXES = PHOTO_SUFFIXES | {".xmp", ".db", ".sqlite", ".sqlite3", ".aesthete"}
"""A report is never written to a file with one of these suffixes."""
PROFILE_COMPANIONS = ("", "-wal", "-shm", "-journal", ".settings.json", ".settings.json.bak", ".lock")
"""Files beside a profile that belong to it (SQLite's journals, the settings, the lock)."""


class ProtectedOutputError(AestheteError):
    """The output path names a file Aesthete must never write a report over."""


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_report_target(dest: str | os.PathLike[str], profile: Profile | None = None) -> Path:
    """The absolute path a report may be written to; raises ProtectedOutputError when `dest` is (or
    is another name of) the profile or a file beside it, a photograph or sidecar of the library, or
    an existing photograph, sidecar or database file."""
    target = Path(os.path.abspath(os.fspath(dest)))
    what = _protected(target, profile)
    if what is not None:
        raise ProtectedOutputError(f"not written: {target} is {what}; choose another file name for the report "
                                   "(nothing was changed)")  # fmt: skip
    return target


def _protected(target: Path, profile: Profile | None) -> str | None:
    exists = target.exists()
    if exists and target.is_dir():
        return "a folder"
    if profile is not None:
        base = profile.path
        for suffix in PROFILE_COMPANIONS:
            companion = base.with_name(base.name + suffix)
            if target == companion or (exists and _same_file(target, companion)):
                return "the profile" if not suffix else f"one of the profile's own files ({companion.name})"
    # every photograph the library holds has one of these suffixes (the import reads no others), so
    # this also covers the library's photographs and their sidecars; a new file named so is refused
    # too: a report called IMG_2.JPG would be taken for a broken photograph by the next import
    suffix = target.suffix.lower()
    if suffix in PROTECTED_SUFFIXES:
        kind = "an XMP sidecar" if suffix == ".xmp" else "a photograph" if suffix in PHOTO_SUFFIXES else "a database"
        return f"{'' if exists else 'named as '}{kind}"
    return None
