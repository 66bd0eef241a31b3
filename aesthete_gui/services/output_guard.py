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

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from aesthete_gui.atomic_write import exchange, link_new, same_file, sync_folder, write_temporary
from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.photo_units import PHOTO_SUFFIXES

if TYPE_CHECKING:
    from aesthete_gui.store import Profile

PROTECTED_SUFFIXES = PHOTO_SUFFIXES | {".xmp", ".db", ".sqlite", ".sqlite3", ".aesthete", ".jxl", ".psd", ".psb", ".xcf", ".kra"}
"""A report is never written to a file with one of these suffixes."""
PROFILE_COMPANIONS = ("", "-wal", "-shm", "-journal", ".settings.json", ".settings.json.bak", ".lock")
"""Files beside a profile that belong to it (SQLite's journals, the settings, the lock)."""
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal", ".settings.json", ".settings.json.bak", ".settings.json.unreadable",
                      ".moves.jsonl", ".aesthete-ingest.jsonl", ".aesthete-owner")  # fmt: skip
"""Names that end so belong to some profile or to an ingest, whichever profile is open (or none)."""


class ProtectedOutputError(AestheteError):
    """The output path names a file Aesthete must never write a report over."""


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


def write_report(dest: str | os.PathLike[str], text: str, profile: Profile | None = None) -> Path:
    """Write a report to `dest` as check_report_target allows, whole or not at all; what it replaces
    is checked once more *after* the swap (it is in hand then) and swapped back when it turns out to
    be a protected file: a file exchanged under the name between the check and the write (a third
    attack swapped a JPEG and an earlier export in a loop: 1 round in 15 replaced the JPEG)."""
    target = check_report_target(dest, profile)
    if target.is_symlink() and target.is_file():  # a link to an earlier export: that file is updated
        target = check_report_target(os.path.realpath(target), profile)
    mode = 0o644
    with contextlib.suppress(OSError):
        mode = os.stat(target).st_mode & 0o7777
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary: Path | None = write_temporary(target.parent, text.encode("utf-8"), mode)
    try:
        assert temporary is not None
        if link_new(temporary, target):  # a new name: never replaces anything
            temporary = None
        elif exchange(temporary, target):
            what = _sniffed(temporary) if not temporary.is_symlink() else None
            if what is not None:
                exchange(temporary, target)  # put it back: ours is at `temporary` again
                raise ProtectedOutputError(f"not written: {target} became {what} while the report was written; "
                                           "it was put back (nothing was changed)")  # fmt: skip
        else:  # no atomic exchange here: the check right before the rename is all there is
            what = _protected(target, profile)
            if what is not None:
                raise ProtectedOutputError(f"not written: {target} is {what}; choose another file name for the report "
                                           "(nothing was changed)")  # fmt: skip
            os.replace(temporary, target)
            temporary = None
        sync_folder(target.parent)
        return target
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _protected(target: Path, profile: Profile | None) -> str | None:
    exists = os.path.lexists(target)
    if exists and target.is_dir():
        return "a folder"
    if exists and os.path.exists(target) and not target.is_file():
        return "not a regular file (a device, a pipe or a terminal); leave --output out to print the report"
    if profile is not None:
        base = profile.path
        for suffix in PROFILE_COMPANIONS:
            companion = base.with_name(base.name + suffix)
            if target == companion or (exists and same_file(target, companion)):
                return "the profile" if not suffix else f"one of the profile's own files ({companion.name})"
    # any profile's companions, the current one's or another's (rank --output knows no profile)
    name = target.name
    if any(name.endswith(suffix) for suffix in COMPANION_SUFFIXES) or _in_companion_folder(target):
        return "one of a profile's own files"
    # every photograph the library holds has one of these suffixes or is sniffed below; a new file
    # named so is refused too: a report called IMG_2.JPG would be taken for a broken photograph
    suffix = target.suffix.lower()
    if suffix in PROTECTED_SUFFIXES:
        kind = "an XMP sidecar" if suffix == ".xmp" else "a photograph" if suffix in PHOTO_SUFFIXES else "a database"
        return f"{'' if exists else 'named as '}{kind}"
    if exists and os.path.exists(target):
        return _sniffed(target)  # a photograph without a suffix, a profile named without one
    return None


def _sniffed(target: Path) -> str | None:
    """What an existing file is by its first bytes, when it is something a report must not replace."""
    try:
        with open(target, "rb") as handle:
            head = handle.read(512)
    except OSError:
        return None
    if head.startswith(b"SQLite format 3\x00") or head[:4] in (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83"):
        return "a database (an Aesthete profile or its journal?)"
    if any(head.startswith(magic) for magic in _PHOTO_MAGIC) or head[4:8] == b"ftyp" or (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
        return "a photograph"
    if b"<x:xmpmeta" in head or head.startswith(b"<?xpacket"):
        return "an XMP sidecar"
    return None


_PHOTO_MAGIC = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"II*\x00", b"MM\x00*", b"GIF87a", b"GIF89a", b"BM", b"FUJIFILMCCD-RAW",
                b"IIRO", b"IIRS", b"MMOR", b"IIU\x00", b"FOVb", b"II\x1a\x00\x00\x00HEAPCCDR", b"\xff\x0a",
                b"\x00\x00\x00\x0cJXL \r\n\x87\n", b"8BPS", b"\x00MRM", b"AT&TFORM")  # fmt: skip
"""First bytes of JPEG, PNG, TIFF (and the TIFF-based RAW formats), GIF, BMP, Fuji RAF, Olympus ORF,
Panasonic RW2, Sigma X3F, Canon CRW, JPEG XL (bare and boxed), Photoshop, Minolta MRW and DjVu files."""


def _in_companion_folder(target: Path) -> bool:
    """Inside a profile's thumbnail cache or model folder (`<profile>.thumbs/`, `<profile>.models/`)."""
    for folder in target.parents:
        for suffix in (".thumbs", ".models"):
            if folder.name.endswith(suffix) and folder.with_name(folder.name[: -len(suffix)]).is_file():
                return True
    return False
