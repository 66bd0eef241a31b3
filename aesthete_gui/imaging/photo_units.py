"""A photograph and everything that belongs with it: its RAW+JPEG partners and every XMP sidecar.

A *unit* is the set of files in one folder that share a stem, compared without regard to case:
`IMG_0001.CR2`, `IMG_0001.JPG` (the partners) and `IMG_0001.xmp`, `IMG_0001.CR2.xmp`,
`img_0001.jpg.XMP` (the sidecars, of one partner or of the pair). Lightroom and Capture One pair a
RAW with `IMG_0001.xmp`; darktable and digiKam write `IMG_0001.CR2.xmp`; so copying or moving one
file of a unit without the others either leaves a sidecar behind or pairs a photograph with
another one's sidecar. Ingest, copy and move therefore treat a unit as one thing: copied, verified
and committed together, renamed together (`IMG_0001 (2).CR2` + `IMG_0001 (2).JPG` +
`IMG_0001 (2).xmp`), and a destination name is free only when no file there has that stem.

Pure: no file is read here; callers pass folder listings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

SIDECAR_SUFFIX = ".xmp"
PHOTO_SUFFIXES = frozenset(
    {
        ".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".tif", ".tiff", ".webp", ".bmp", ".dib",
        ".gif", ".heic", ".heif", ".hif", ".avif", ".3fr", ".ari", ".arw", ".bay", ".cr2",
        ".cr3", ".crw", ".dcr", ".dng", ".erf", ".fff", ".iiq", ".k25", ".kdc", ".mef", ".mos",
        ".mrw", ".nef", ".nrw", ".orf", ".pef", ".raf", ".raw", ".rw2", ".rwl", ".sr2", ".srf",
        ".srw", ".x3f",
    }
)  # fmt: skip
_PREFERRED_LEAD = (".jpg", ".jpeg", ".heic", ".heif", ".hif", ".tif", ".tiff", ".png")


def is_sidecar_name(name: str) -> bool:
    """True for an XMP sidecar's name (`.xmp` in any case)."""
    return name.lower().endswith(SIDECAR_SUFFIX) and len(name) > len(SIDECAR_SUFFIX)


def looks_like_photo_name(name: str) -> bool:
    """True when the extension is one of a photograph (JPEG, HEIC, TIFF, PNG, WebP, RAW formats)."""
    return os.path.splitext(name)[1].lower() in PHOTO_SUFFIXES


def stem_key(name: str) -> str:
    """The stem that pairs files, without regard to case: `IMG_0001.CR2.xmp` → `img_0001`."""
    if is_sidecar_name(name):
        name = name[: -len(SIDECAR_SUFFIX)]
        if looks_like_photo_name(name):
            name = os.path.splitext(name)[0]
        return name.casefold()
    return os.path.splitext(name)[0].casefold()


def tail_of(name: str) -> str:
    """What follows the stem in `name`, kept as written: `.CR2`, `.xmp`, `.JPG.xmp`."""
    if is_sidecar_name(name):
        base = name[: -len(SIDECAR_SUFFIX)]
        if looks_like_photo_name(base):
            base = os.path.splitext(base)[0]
        return name[len(base):]
    return os.path.splitext(name)[1]


@dataclass(frozen=True)
class PhotoUnit:
    """The files of one unit in `folder`: photographs and sidecars, by name (sorted)."""

    folder: str
    stem: str
    photos: tuple[str, ...]
    sidecars: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Every file of the unit, photographs first."""
        return self.photos + self.sidecars

    @property
    def paths(self) -> list[str]:
        """Every file of the unit as a path."""
        return [os.path.join(self.folder, n) for n in self.names]

    @property
    def lead(self) -> str:
        """The photograph whose metadata names the unit: the JPEG or HEIC of a pair, else the first."""
        for suffix in _PREFERRED_LEAD:
            for name in self.photos:
                if name.lower().endswith(suffix):
                    return name
        return self.photos[0]

    def partners_of(self, name: str) -> tuple[str, ...]:
        """The other photographs of the unit."""
        return tuple(p for p in self.photos if p != name)


def group_units(
    folder: str, names: Iterable[str], is_photo: Callable[[str], bool] = looks_like_photo_name
) -> tuple[list[PhotoUnit], list[str]]:
    """The units among the `names` of one folder, and the sidecars that belong to no photograph there."""
    photos: dict[str, list[str]] = {}
    sidecars: dict[str, list[str]] = {}
    for name in sorted(names):
        if is_sidecar_name(name):
            sidecars.setdefault(stem_key(name), []).append(name)
        elif is_photo(name):
            photos.setdefault(stem_key(name), []).append(name)
    units = []
    for key, members in photos.items():
        stem = os.path.splitext(members[0])[0]
        units.append(PhotoUnit(folder, stem, tuple(members), tuple(sidecars.pop(key, []))))
    orphans = [name for names_ in sidecars.values() for name in names_]
    return units, sorted(orphans)


def unit_of(path: str, listing: Iterable[str], is_photo: Callable[[str], bool] = looks_like_photo_name) -> PhotoUnit:
    """The unit of the photograph at `path`, given the names in its folder."""
    folder, name = os.path.split(path)
    key = stem_key(name)
    same = [n for n in listing if stem_key(n) == key]
    if name not in same:
        same.append(name)
    units, _ = group_units(folder, same, lambda n: n == name or is_photo(n))
    return units[0]


def target_name(name: str, new_stem: str) -> str:
    """`name` (a file of a unit) under the unit's new stem; what follows the stem is kept as written."""
    return new_stem + tail_of(name)


def numbered_stems(stem: str, style: str = " ({n})") -> Iterator[str]:
    """`stem`, then `stem (2)`, `stem (3)` … (or another `style` such as "-{n}")."""
    yield stem
    n = 2
    while True:
        yield stem + style.format(n=n)
        n += 1


def stems_in(listing: Iterable[str]) -> dict[str, list[str]]:
    """The names of a folder by stem key (every file that would pair with that stem)."""
    found: dict[str, list[str]] = {}
    for name in listing:
        found.setdefault(stem_key(name), []).append(name)
    return found


def describe_partners(unit: PhotoUnit, chosen: str, verb: str) -> str | None:
    """"IMG_0001.CR2 moved with IMG_0001.JPG" when `chosen` has partners, else None."""
    partners = unit.partners_of(chosen)
    if not partners:
        return None
    return f"{', '.join(partners)} {verb} with {chosen}"
