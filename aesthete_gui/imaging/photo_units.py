"""A photograph and everything that belongs with it: its RAW+JPEG partners and every XMP sidecar.

A *unit* is one exposure's files in one folder, stems compared without regard to case: a RAW with
the other photographs of its stem (`IMG_0001.CR2` + `IMG_0001.JPG`, the camera's rendering of it)
and every sidecar of them (`IMG_0001.xmp`, `IMG_0001.CR2.xmp`, `img_0001.jpg.XMP`). Lightroom and
Capture One pair a RAW with `IMG_0001.xmp`; darktable and digiKam write `IMG_0001.CR2.xmp`; so
copying or moving one file of a pair without the others either leaves a sidecar behind or pairs a
photograph with another one's sidecar. Ingest, copy and move therefore treat a unit as one thing:
copied, verified and committed together, renamed together (`IMG_0001 (2).CR2` + `IMG_0001 (2).JPG`
+ `IMG_0001 (2).xmp`).

Photographs of one stem without exactly one RAW among them (`IMG_0009.JPG` and a PNG copy
`IMG_0009.png`; two RAWs) are separate photographs, as in Lightroom: each is its own unit with its
own `NAME.EXT.xmp` sidecars (imaging.xmp gives `NAME.xmp` to none of them). Only when such a
`NAME.xmp` is there, which no rule can give to one of them, do they stay one unit, so the sidecar
never changes hands. A destination name is free for a unit only when none of the files there would
join it (a RAW, a `NAME.xmp`, a file of the same name).

Names that differ only in case are different files on most disks (`IMG_0001.JPG` from a camera and
`img_0001.JPG` from a phone): when the files of one stem key are written with several stems and two
of them share an extension, each stem as written is its own group, and a sidecar goes only to the
group whose stem it spells exactly (as imaging.xmp pairs them); a spelling none of them has is
nobody's. A unit never holds
two files whose extensions differ only in case (`IMG_0001.JPG` + `IMG_0001.jpg`, `IMG_0001.xmp` +
`IMG_0001.XMP`): on a case-insensitive disk, or with `{ext_lower}`, they would take one name. Such
photographs are separate units; such a second sidecar is nobody's.

Pure: no file is read here; callers pass folder listings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from aesthete_gui.imaging.raw import is_raw_name

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

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """What tells units apart: two units of one folder may share a stem (`IMG_9.JPG`, `IMG_9.png`),
        or a stem key (`IMG_9.JPG`, `img_9.JPG`)."""
        return self.folder, self.photos


def is_stem_sidecar(name: str) -> bool:
    """True for `NAME.xmp` (Lightroom's, shared by a pair), False for `NAME.EXT.xmp` (one file's)."""
    return is_sidecar_name(name) and not looks_like_photo_name(name[: -len(SIDECAR_SUFFIX)])


def _tails_distinct(names: Sequence[str]) -> bool:
    """Whether no two of `names` have extension parts that differ only in case (or not at all)."""
    tails = [tail_of(n).casefold() for n in names]
    return len(set(tails)) == len(tails)


def one_exposure(photos: Sequence[str]) -> bool:
    """Whether photographs of one stem are one exposure's files: exactly one RAW among them (the
    camera's RAW and its JPEG or HEIF), or a single file; never two files of one extension."""
    return len(photos) == 1 or (sum(map(is_raw_name, photos)) == 1 and _tails_distinct(photos))


def written_stem(name: str) -> str:
    """The stem as written (case kept): `IMG_0001.CR2.xmp` → `IMG_0001`, `img_0001.JPG` → `img_0001`."""
    return name[: len(name) - len(tail_of(name))]


def _one_of_each_tail(names: list[str]) -> tuple[list[str], list[str]]:
    """`names` without a second file whose extension part differs from an earlier one's only in case
    (of `IMG.xmp` and `IMG.XMP` the one imaging.xmp reads, `IMG.xmp`, stays), and those left out."""
    kept: list[str] = []
    extra: list[str] = []
    seen: set[str] = set()
    for name in sorted(names, key=lambda n: (not n.endswith(SIDECAR_SUFFIX), n)):  # `.xmp` is read first
        tail = tail_of(name).casefold()
        (extra if tail in seen else kept).append(name)
        seen.add(tail)
    return kept, extra


def _split(folder: str, members: list[str], sidecars: list[str]) -> tuple[list[PhotoUnit], list[str]]:
    """The units of one stem's photographs and sidecars, and the sidecars none of them takes."""
    stems = sorted({written_stem(m) for m in members})
    if len(stems) > 1 and not _tails_distinct(members + sidecars):  # each spelling is its own group
        units: list[PhotoUnit] = []
        left: list[str] = []
        for stem in stems:
            found, rest = _split(folder, [m for m in members if written_stem(m) == stem],
                                 [s for s in sidecars if written_stem(s) == stem])  # fmt: skip
            units += found
            left += rest
        return units, left + [s for s in sidecars if written_stem(s) not in stems]
    if one_exposure(members) or (_tails_distinct(members) and any(map(is_stem_sidecar, sidecars))):
        kept, left = _one_of_each_tail(sidecars)
        return [PhotoUnit(folder, written_stem(members[0]), tuple(members), tuple(sorted(kept)))], left
    raws = [m for m in members if is_raw_name(m)]
    owners: dict[str, list[str]] = {m: [] for m in members}
    left = []
    for sidecar in sidecars:
        base = sidecar[: -len(SIDECAR_SUFFIX)]
        alike = [m for m in members if m.casefold() == base.casefold()]
        if base in owners:
            owners[base].append(sidecar)
        elif len(alike) == 1:
            owners[alike[0]].append(sidecar)
        elif is_stem_sidecar(sidecar) and len(raws) == 1:  # imaging.xmp gives NAME.xmp to the one RAW
            owners[raws[0]].append(sidecar)
        else:
            left.append(sidecar)
    units = []
    for photo in members:
        kept, extra = _one_of_each_tail(owners[photo])
        left += extra
        units.append(PhotoUnit(folder, written_stem(photo), (photo,), tuple(sorted(kept))))
    return units, left


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
    orphans = []
    for key, members in photos.items():
        found, left = _split(folder, members, sidecars.pop(key, []))
        units += found
        orphans += left
    orphans += [name for names_ in sidecars.values() for name in names_]
    return units, sorted(orphans)


def unit_of(path: str, listing: Iterable[str], is_photo: Callable[[str], bool] = looks_like_photo_name) -> PhotoUnit:
    """The unit of the photograph at `path`, given the names in its folder."""
    folder, name = os.path.split(path)
    key = stem_key(name)
    same = [n for n in listing if stem_key(n) == key]
    if name not in same:
        same.append(name)
    units, _ = group_units(folder, same, lambda n: n == name or is_photo(n))
    return next(u for u in units if name in u.photos)


def joining(existing: Iterable[str], names: Iterable[str]) -> list[str]:
    """The names among `existing` (files of one folder) that the files `names` would share a unit
    with, or collide with (the same name), if they were put there. A name that differs only in case
    is another file where case counts; on a disk where it does not, the caller finds that name
    taken when it looks the name up (services.unit_placement)."""
    mine = list(names)
    taken = set(mine)
    there = list(existing)
    clash = [n for n in there if n in taken]
    units, _ = group_units("", [n for n in there if n not in clash] + mine)
    together = {n for u in units if set(u.names) & set(mine) for n in u.names}
    return [n for n in there if n in clash or n in together]


def exposures(paths: Sequence[str]) -> list[list[str]]:
    """Paths of photographs grouped by exposure: the halves of a RAW+JPEG pair (one folder, one
    stem, one RAW, see one_exposure) together, the unit's lead (the JPEG or HEIF) first; every other
    path alone. Groups come in the order of their first path in `paths`."""
    by_stem: dict[tuple[str, str], list[str]] = {}
    for path in paths:
        folder, name = os.path.split(path)
        by_stem.setdefault((folder, stem_key(name)), []).append(path)
    groups: dict[str, list[str]] = {}
    for (folder, _), members in by_stem.items():
        names = sorted(os.path.basename(p) for p in members)
        if len(members) > 1 and one_exposure(names):
            lead = PhotoUnit(folder, "", tuple(names), ()).lead
            groups[members[0]] = sorted(members, key=lambda p: os.path.basename(p) != lead)
        else:
            groups.update({p: [p] for p in members})
    return [groups[p] for p in paths if p in groups]


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


def describe_partners(unit: PhotoUnit, chosen: str, verb: str) -> str | None:
    """"IMG_0001.CR2 moved with IMG_0001.JPG" when `chosen` has partners, else None."""
    partners = unit.partners_of(chosen)
    if not partners:
        return None
    return f"{', '.join(partners)} {verb} with {chosen}"
