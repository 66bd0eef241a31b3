"""What is on a card: its photo units (photographs with their RAW+JPEG partners and sidecars), the files
that are not photographs (counted by extension, so the summary can say what was left), and the
files or folders that cannot be read (each reported, never skipped without a word).

Only what lies on the card is copied: a photograph that is a symbolic link whose target (links
followed) lies outside the card, or a folder link leading off the card, is named once among the
problems and left alone, and its photographs are not counted as the card's (an attack: a card file
`pw.jpg -> /etc/passwd` was copied into the library, imported and counted as a photograph). A link
to a file on the card is copied as that file is (the same bytes: one copy)."""

from __future__ import annotations

import os
import stat
from collections import Counter
from dataclasses import dataclass, field

import xxhash

from aesthete_gui.imaging.photo_units import (
    PhotoUnit,
    group_units,
    is_sidecar_name,
    looks_like_photo_name,
)
from aesthete_gui.jobs import CancelToken
from aesthete_gui.services.library_scan import scan_folder
from aesthete_gui.services.verified_copy import (
    SIDECAR_LIMIT,
    describe_kind,
    file_hash,
    open_regular,
    read_problem,
)

QUICK_BYTES = 64 * 1024
ORPHAN_SIDECAR = ".xmp without a photograph"


@dataclass
class CardFile:
    """One file of a unit on the card: path, name, whether it is a photograph, size and time; its
    content hash once known."""

    path: str
    name: str
    photo: bool
    size: int
    mtime_ns: int
    digest: str | None = None
    _quick: str | None = None

    def quick_key(self) -> str:
        """Name, size, time and a hash of the first 64 KiB (EXIF: camera serial, capture time), recorded
        with each copy. Only a hint: two files may share all of it (a time-lapse's frames stored
        bottom-up), so whether a file is already there is always decided by the hash of every byte."""
        if self._quick is None:
            digest = xxhash.xxh3_64()
            reader, _ = open_regular(self.path, follow_links=self.photo)
            with reader:
                digest.update(reader.read(QUICK_BYTES))
            self._quick = f"{self.name}|{self.size}|{self.mtime_ns}|{digest.hexdigest()}"
        return self._quick

    def content_hash(self) -> str:
        """The hash of every byte (read once, then kept)."""
        if self.digest is None:
            self.digest = file_hash(self.path)
        return self.digest


@dataclass
class CardUnit:
    """A unit on the card and its files (photographs first)."""

    unit: PhotoUnit
    files: list[CardFile]

    @property
    def photos(self) -> list[CardFile]:
        """The unit's photographs."""
        return [f for f in self.files if f.photo]

    @property
    def lead(self) -> CardFile:
        """The photograph whose metadata names the unit (the JPEG of a RAW+JPEG pair)."""
        photos = self.photos
        return next((f for f in photos if f.name == self.unit.lead), photos[0])


@dataclass
class CardContents:
    """Units to copy, files left (by extension), and problems (path, reason)."""

    units: list[CardUnit] = field(default_factory=list)
    not_copied: Counter[str] = field(default_factory=Counter)
    problems: list[tuple[str, str]] = field(default_factory=list)

    @property
    def photo_count(self) -> int:
        """Photographs found."""
        return sum(len(u.photos) for u in self.units)


def _walk(root: str, contents: CardContents) -> dict[str, list[str]]:
    """Every folder under `root` (hidden ones skipped) with its file names; unreadable folders reported."""
    folders: dict[str, list[str]] = {}

    def report(error: OSError) -> None:
        contents.problems.append((error.filename or root, f"folder {read_problem(error)}"))

    for folder, subfolders, names in os.walk(root, onerror=report):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        folders[folder] = [n for n in names if not n.startswith(".")]
    return folders


def scan_card(root: str, cancel: CancelToken | None = None) -> CardContents:
    """The units on the card under `root`, in a stable order (see the module docstring)."""
    contents = CardContents()
    photos: dict[str, set[str]] = {}
    off_card: list[str] = []
    for found in scan_folder(root, cancel, off_limits=off_card):
        if found.problem is not None or found.size is None:
            contents.problems.append((found.path, found.problem or "cannot be examined"))
            continue
        folder, name = os.path.split(found.path)
        photos.setdefault(folder, set()).add(name)
    listings = _walk(root, contents)
    card = os.path.realpath(root)
    named: set[str] = set()
    for folder in off_card:  # not walked: a link to / would have walked the whole disk
        _name_link_off_card(folder, root, card, contents, named)
    for folder in photos.keys() - listings.keys():  # reached through a folder link
        if not _on_card(folder, card):
            _name_link_off_card(folder, root, card, contents, named)
            continue
        try:
            listings[folder] = [n for n in os.listdir(folder) if not n.startswith(".")]
        except OSError as error:
            contents.problems.append((folder, f"folder {read_problem(error)}"))
    found_here = {os.path.realpath(os.path.join(f, n)) for f, names in photos.items() for n in names}
    for folder in sorted(listings):
        here = photos.get(folder, set())
        reported = {os.path.basename(p) for p, _ in contents.problems if os.path.dirname(p) == folder}
        units, orphans = group_units(folder, listings[folder], here.__contains__)
        contents.not_copied[ORPHAN_SIDECAR] += len(orphans)
        carried = {n for u in units for n in u.names} | reported
        for name in listings[folder]:
            # a photograph found under another path (a folder link on the card) is no "not copied" file
            if (name not in carried and not is_sidecar_name(name) and name not in here
                    and os.path.realpath(os.path.join(folder, name)) not in found_here):  # fmt: skip
                kind = _special(os.path.join(folder, name)) if looks_like_photo_name(name) else None
                if kind is not None:
                    contents.problems.append((os.path.join(folder, name), f"{kind}, not a file that can be copied; skipped"))
                    continue
                contents.not_copied[os.path.splitext(name)[1] or "(no extension)"] += 1
        for unit in units:
            files = _files(unit, contents, root, card, named)
            if any(f.photo for f in files):
                contents.units.append(CardUnit(unit, files))
    contents.not_copied = Counter({k: v for k, v in contents.not_copied.items() if v})
    return contents


def _special(path: str) -> str | None:
    """What the name is when it is neither a regular file nor gone (a FIFO, a device …), else None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return None if stat.S_ISREG(info.st_mode) else describe_kind(info)


def _on_card(path: str, card: str) -> bool:
    """Whether `path`, links followed, lies on the card whose real path is `card`."""
    real = os.path.realpath(path)
    return real == card or real.startswith(card.rstrip(os.sep) + os.sep)


def _name_link_off_card(path: str, root: str, card: str, contents: CardContents, named: set[str]) -> None:
    """Report the link through which `path` (under `root`, the card as named) leaves the card: the
    first name on its way down whose real path is off the card (the file itself, or a folder link
    above it, named once for everything under it)."""
    here = root
    for part in os.path.relpath(path, root).split(os.sep):
        here = os.path.join(here, part)
        if not _on_card(here, card):
            break
    if here in named:
        return
    named.add(here)
    kind = "folder" if os.path.isdir(here) else "file"
    contents.problems.append((here, f"a symbolic link to a {kind} outside the card ({os.path.realpath(here)}); "
                                    f"not copied (copy that {kind} itself if it belongs in the library)"))  # fmt: skip


def _files(unit: PhotoUnit, contents: CardContents, root: str, card: str, named: set[str]) -> list[CardFile]:
    """The unit's files that can be copied; the others reported: a name that is not a regular file (a
    FIFO would block the copy forever, a device never ends), a photograph whose real path lies off
    the card (`card`, the card's real path: a link to /etc/passwd), a sidecar that is a symbolic link
    (it may point anywhere, `/dev/zero` included) or larger than any sidecar."""
    files = []
    for name in unit.names:
        path = os.path.join(unit.folder, name)
        photo = name in unit.photos
        try:
            info = os.stat(path) if photo else os.lstat(path)
        except OSError as error:
            contents.problems.append((path, read_problem(error)))
            continue
        if photo and not _on_card(path, card):
            _name_link_off_card(path, root, card, contents, named)
            continue
        if stat.S_ISLNK(info.st_mode):
            contents.problems.append((path, "a symbolic link; a sidecar is copied only as a file of its own; skipped"))
            continue
        if not stat.S_ISREG(info.st_mode):
            contents.problems.append((path, f"{describe_kind(info)}, not a file that can be copied; skipped"))
            continue
        if not photo and info.st_size > SIDECAR_LIMIT:
            contents.problems.append((path, f"larger than {SIDECAR_LIMIT >> 20} MiB, more than any sidecar; skipped"))
            continue
        files.append(CardFile(path, name, photo, info.st_size, info.st_mtime_ns))
    return files
