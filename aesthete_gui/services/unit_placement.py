"""Give the staged files of one photo unit their names in a folder, together and without replacing anything.

Run under the folder's lock (atomic_write.folder_lock). A stem is free when no file in the folder
would join the unit under it (imaging.photo_units.joining: a file of the same name, a RAW for a
JPEG or the other way round, a `NAME.xmp`; on a disk where case does not count, a file whose name
differs only in case): an orphan `IMG_0001.xmp` there makes `IMG_0001` taken,
so the unit becomes `IMG_0001 (2).jpg` + `IMG_0001 (2).xmp` and the orphan is left as it is; an
`IMG_0001.JPG` there leaves `IMG_0001` free for a PNG `IMG_0001.png`, a photograph of its own. A caller may accept a taken stem whose files
are this unit's own, already there with the same bytes (a rerun): those members are not placed
again. Each file is placed with verified_copy.place (never over a file); when another program takes
one of the names meanwhile, the members already placed are taken back and the next stem is tried.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aesthete_gui.imaging.photo_units import joining, stem_key
from aesthete_gui.services.verified_copy import Staged, discard, place, take_back

MAX_TRIES = 10_000
Accept = Callable[[str, list[str]], "set[str] | None"]
"""(candidate stem, names in the folder that would join the unit under it, maybe none) → the tails already there (an
empty set when the stem is free), or None when the stem is taken. Without it: free when no name pairs."""


@dataclass
class Placement:
    """Where a unit went: its stem, the files placed (tail → path) and the tails that were already there."""

    stem: str
    placed: dict[str, Path] = field(default_factory=dict)
    already: set[str] = field(default_factory=set)
    orphans: list[str] = field(default_factory=list)
    """Names in the folder that made an earlier stem taken without belonging to the unit."""


def _listing(folder: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return found
    for name in names:
        found.setdefault(stem_key(name), []).append(name)
    return found


def place_unit(
    folder: Path,
    stems: Iterable[str],
    members: Mapping[str, Staged | None],
    accept: Accept | None = None,
    before: Callable[[str, dict[str, Path]], None] | None = None,
) -> Placement:
    """Place `members` (tail → staged copy; None for a member that needs no copy) under the first free
    stem of `stems` in `folder`; `before(stem, targets)` runs right before the files get their names."""
    listing = _listing(folder)
    taken_by: list[str] = []
    for tries, stem in enumerate(stems):
        if tries >= MAX_TRIES:
            break
        existing = joining(listing.get(stem_key(stem + ".x"), []), [stem + tail for tail in members])
        verdict = _free_when_alone(existing) if accept is None else accept(stem, existing)
        aliases = _aliases(folder, listing.get(stem_key(stem + ".x"), []), [stem + tail for tail in members])
        if aliases:  # a disk where case does not count: another spelling holds the name
            verdict = None
            existing = existing + aliases
        if verdict is None:
            taken_by.extend(n for n in existing if n not in taken_by)
            continue
        already = verdict
        todo = {tail: staged for tail, staged in members.items() if tail not in already and staged is not None}
        targets = {tail: folder / (stem + tail) for tail in todo}
        if before is not None:
            before(stem, targets)
        placed: dict[str, Path] = {}
        try:
            for tail, staged in todo.items():
                place(staged.temp, targets[tail])
                placed[tail] = targets[tail]
        except FileExistsError:
            _take_back(todo, placed)
            listing = _listing(folder)
            continue
        except BaseException:
            _take_back(todo, placed)
            raise
        for tail in already:
            discard(members.get(tail))
        return Placement(stem, placed, already, taken_by)
    raise OSError(errno.EEXIST, "no free name found for this photograph", str(folder))


def _aliases(folder: Path, listed: list[str], names: list[str]) -> list[str]:
    """The files listed in `folder` that a name of `names` would reach although spelled otherwise: on
    a case-insensitive disk (FAT, exFAT, macOS, Windows) `img_1.jpg` opens `IMG_1.JPG`."""
    found = []
    for name in names:
        if name in listed or not any(n.casefold() == name.casefold() for n in listed):
            continue
        try:
            os.lstat(folder / name)
        except OSError:
            continue
        found += [n for n in listed if n.casefold() == name.casefold() and n not in found]
    return found


def _free_when_alone(existing: list[str]) -> set[str] | None:
    return None if existing else set()


def _take_back(todo: dict[str, Staged], placed: dict[str, Path]) -> None:
    for tail, target in placed.items():
        take_back(todo[tail], target)
