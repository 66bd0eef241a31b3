"""Copy or move picked (or any chosen) images with their RAW+JPEG partners and XMP sidecars into a folder.

A photograph goes with its unit (imaging.photo_units): its same-stem partners in its folder and every
sidecar of any of them, all or none, and the summary says so ("IMG_0001.CR2 moved with
IMG_0001.JPG"). Every file goes through services.verified_copy: written under a temporary name in
the destination, flushed, read back and compared by hash, then given its name without replacing
anything. A unit takes the first stem that no file in the destination pairs with (`IMG_0001`,
`IMG_0001 (2)` …), so an orphan `IMG_0001.xmp` already there is never adopted: it is left as it is
and reported. A unit whose files are already there with the same bytes is not copied again (said
so); for a move that finishes the move. A move points the library at the copies (marks, scores and
checks stay, both halves of a pair) and removes the originals only after every copy of the unit is
verified; a move a kill interrupted is finished by the next run (services.move_journal). A cancel
stops inside the file in progress and leaves no temporary file; an original that changed while it
was copied, vanished or cannot be read stays where it was, reported, and the rest goes on.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aesthete_gui.atomic_write import folder_lock, same_file, sync_folder
from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.photo_units import (
    PhotoUnit,
    describe_partners,
    numbered_stems,
    tail_of,
    unit_of,
)
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.safe_names import fit_name, name_max, path_max
from aesthete_gui.services import move_journal
from aesthete_gui.services.library_scan import under
from aesthete_gui.services.unit_placement import Placement, place_unit
from aesthete_gui.services.verified_copy import (
    Staged,
    clean_own_temps,
    destination_problem,
    discard,
    file_hash,
    read_problem,
    stage,
    take_back,
    write_problem,
)
from aesthete_gui.store import ImageRecord, Profile


class ExportPicksError(AestheteError):
    """The destination cannot take the files (not a folder, read-only, full)."""


@dataclass
class CopiedPicks:
    """What an export did: (source, destination) per photograph copied, those already there with the
    same bytes, files skipped with why, notes (partners carried along, orphans left alone), cancelled."""

    destination: str
    moved: bool = False
    copied: list[tuple[str, str]] = field(default_factory=list)
    already_there: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    left_behind: list[tuple[str, str]] = field(default_factory=list)
    """Moved images whose original could not be removed afterwards (the library follows the copy)."""
    notes: list[str] = field(default_factory=list)
    cleaned: int = 0
    cancelled: bool = False


def picked_image_ids(profile: Profile, flag: str | None = "pick") -> list[int]:
    """Ids of the usable images flagged `flag` (every usable image when None)."""
    marks = profile.marks.all()
    return [
        image.id
        for image in profile.catalog.images(status="ok")
        if flag is None or (marks.get(image.id) is not None and marks[image.id].flag == flag)
    ]


def going_along(profile: Profile, image_ids: Sequence[int]) -> list[tuple[str, str]]:
    """The photographs an export takes along without being chosen: (partner, chosen) file names for
    each RAW+JPEG partner of a chosen image (imaging.photo_units), so the dialog can say so first."""
    chosen = {r.path for i in image_ids if (r := profile.catalog.image_by_id(i)) is not None}
    listings: dict[str, list[str]] = {}
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for path in sorted(chosen):
        folder, name = os.path.split(path)
        if folder not in listings:
            try:
                listings[folder] = os.listdir(folder)
            except OSError:
                listings[folder] = []
        if name not in listings[folder]:
            continue
        unit = unit_of(path, listings[folder])
        for partner in unit.partners_of(name):
            if os.path.join(folder, partner) not in chosen and (partner, name) not in seen:
                seen.add((partner, name))
                out.append((partner, name))
    return out


def photographs(count: int) -> str:
    """"1 photograph", "3 photographs": the one word every count of an export uses."""
    return f"{count} photograph{'' if count == 1 else 's'}"


@dataclass
class _Unit:
    unit: PhotoUnit
    chosen: list[str]
    records: dict[str, ImageRecord]
    before: dict[str, os.stat_result] = field(default_factory=dict)

    def path(self, name: str) -> Path:
        return Path(self.unit.folder) / name


def _plan(profile: Profile, image_ids: Sequence[int], folder: Path, move: bool, result: CopiedPicks) -> list[_Unit]:
    """The units that can go, in order of their first chosen photograph; the others in result.skipped."""
    units: dict[tuple[str, tuple[str, ...]], _Unit] = {}
    listings: dict[str, list[str]] = {}
    same: dict[Path, bool] = {}  # per source folder: is it the destination by another path?
    for image_id in image_ids:
        record = profile.catalog.image_by_id(image_id)
        if record is None:
            continue
        path = Path(record.path)
        if not path.is_file():
            result.skipped.append((record.path, "file not found"))
            continue
        if move and path.parent not in same:
            same[path.parent] = _same_folder(path.parent, folder)
        if move and same[path.parent]:
            result.skipped.append((record.path, "already in that folder"))
            continue
        if move and not os.access(path.parent, os.W_OK | os.X_OK):
            result.skipped.append((record.path, "cannot be moved: its folder is read-only (copy it instead)"))
            continue
        parent = str(path.parent)
        if parent not in listings:
            try:
                listings[parent] = os.listdir(parent)
            except OSError as error:
                result.skipped.append((record.path, read_problem(error)))
                continue
        unit = unit_of(str(path), listings[parent])
        key = unit.key
        if key not in units:
            records = {n: r for n in unit.photos if (r := profile.catalog.image_by_path(str(path.parent / n))) is not None}
            units[key] = _Unit(unit, [], records)
        units[key].chosen.append(path.name)
    return list(units.values())


def _stems(unit: PhotoUnit, folder: Path):
    limit = name_max(folder)
    longest = max(len(os.fsencode(tail_of(n))) for n in unit.names)
    for stem in numbered_stems(unit.stem):
        yield fit_name(stem, limit, reserve=longest)


def export_picks(
    profile: Profile,
    image_ids: Sequence[int],
    destination: str | os.PathLike[str],
    *,
    move: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CopiedPicks:
    """Copy (or move) the images' units into `destination`; see the module docstring.

    Raises ExportPicksError before anything is written when the folder cannot take the files, and
    when a write fails midway (the units finished before it stay, complete; nothing half-written).
    """
    # absolute: the library records where moved photographs went, and a relative path would name
    # another file from another working directory
    folder = Path(os.path.abspath(Path(destination).expanduser()))
    report = progress or (lambda _p: None)
    started = time.time()
    result = CopiedPicks(destination=str(folder), moved=move)
    result.notes.extend(move_journal.finish_interrupted(profile.path, lambda s, c: _follow(profile, s, c)))
    units = _plan(profile, image_ids, folder, move, result)
    needed = 0
    for item in units:
        for name in item.unit.names:
            try:
                item.before[name] = item.path(name).stat()
                needed += item.before[name].st_size
            except OSError:
                pass
    problem = destination_problem(folder, needed)
    if problem is not None:
        raise ExportPicksError(problem)
    result.cleaned = clean_own_temps(folder, started)
    # counted in photographs, as the job's title is: a RAW+JPEG pair is one unit and two photographs
    total, reached = sum(len(u.unit.photos) for u in units), 0
    for done, item in enumerate(units):
        if cancel is not None and cancel.cancelled:
            result.cancelled = True
            break
        try:
            finished = _export_unit(profile, item, folder, move, cancel, result)
        except ExportPicksError as error:
            # said with what is where: the units before it went (whole), the rest stayed
            if move and result.copied:
                adopt_destination(profile, [target for _, target in result.copied])
            verb = "moved" if move else "copied"
            raise ExportPicksError(f"{error} — {photographs(len(result.copied))} {verb} before it; "
                                   f"{photographs(sum(len(u.chosen) for u in units[done:]))} not {verb} "
                                   "(still where they were)") from error  # fmt: skip
        if not finished:
            result.cancelled = True
            break
        reached += len(item.unit.photos)
        report(Progress(reached, total, item.chosen[0]))
    if move and result.copied:
        adopt_destination(profile, [target for _, target in result.copied])
    return result


def adopt_destination(profile: Profile, moved_paths: Sequence[str]) -> int | None:
    """Record the folder moved photographs are in as a library folder when no imported folder holds
    them, and file them under it (so the library lists where they went); its id, or None."""
    from aesthete_gui.services.library_scan import normalize_root

    records = [r for r in map(profile.catalog.image_by_path, moved_paths) if r is not None and r.folder_id is None]
    if not records:
        return None
    folder_id = profile.catalog.add_folder(normalize_root(str(Path(records[0].path).parent)))
    for record in records:
        profile.catalog.move_image(record.id, record.path, folder_id, record.size or 0, record.mtime_ns or 0)
    return folder_id


def _stage_unit(item: _Unit, folder: Path, cancel: CancelToken | None, result: CopiedPicks) -> dict[str, Staged] | None:
    """Verified temporary copies of the unit's files (by name); {} when a photograph of it cannot be
    read (reported), None when cancelled. ExportPicksError when the destination fails."""
    staged: dict[str, Staged] = {}
    for name in item.unit.names:
        source = item.path(name)
        try:
            copy = stage(source, folder, cancel if name in item.unit.photos else None, sidecar=name in item.unit.sidecars)
        except OSError as error:
            if error.filename == str(source):
                result.skipped.append((str(source), read_problem(error)))
                if name in item.unit.sidecars:
                    continue  # a sidecar that vanished: the photographs go without it
                for done in staged.values():
                    discard(done)
                return {}
            for done in staged.values():
                discard(done)
            raise ExportPicksError(write_problem(error, folder)) from error
        if copy is None:
            for done in staged.values():
                discard(done)
            return None
        staged[name] = copy
    return staged


def _export_unit(
    profile: Profile, item: _Unit, folder: Path, move: bool, cancel: CancelToken | None, result: CopiedPicks
) -> bool:
    """Copy (or move) one unit; False when cancelled."""
    staged = _stage_unit(item, folder, cancel, result)
    if staged is None:
        return False
    if not staged:
        return True
    if move:
        for name, copy in staged.items():
            _mark_copy(copy.temp, item.path(name), copy.digest)
    members = {tail_of(name): copy for name, copy in staged.items()}
    by_tail = {tail_of(name): name for name in staged}
    longest = max(len(os.fsencode(tail)) for tail in members)
    final = len(os.fsencode(str(folder / item.unit.stem))) + longest + 16  # room for " (NN)"
    if max(final, len(os.fsencode(str(folder))) + 48) >= path_max(folder):  # and for a temporary name
        for copy in staged.values():
            discard(copy)
        result.skipped.append((str(item.path(item.chosen[0])), f"not copied: the destination path would be longer "
                                                                f"than {path_max(folder)} bytes, the limit of this system"))  # fmt: skip
        return True
    ours = {r.id for r in item.records.values()}

    def accept(stem: str, existing: list[str]) -> set[str] | None:
        for tail, name in by_tail.items():
            held = profile.catalog.image_by_path(str(folder / (stem + tail))) if name in item.unit.photos else None
            if held is not None and held.id not in ours:
                return None  # the library keeps this name for another image (its file may be missing)
        if not existing:
            return set()
        wanted = {stem + tail: tail for tail in members}
        if not all(n in wanted for n in existing) or not any(by_tail[wanted[n]] in item.unit.photos for n in existing):
            return None
        if all(_same_bytes(folder / n, members[wanted[n]]) for n in existing):
            return {wanted[n] for n in existing}
        return None

    try:
        with folder_lock(folder):
            placement = place_unit(folder, _stems(item.unit, folder), members, accept)
    except OSError as error:
        raise ExportPicksError(write_problem(error, folder)) from error
    finally:
        for copy in staged.values():
            discard(copy)
    sync_folder(folder)
    targets = {by_tail[t]: folder / (placement.stem + t) for t in members}
    if move and not _finish_move(profile, item, targets, placement, staged, result):
        return True
    _report(item, targets, placement, move, folder, result)
    return True


def _same_bytes(path: Path, staged: Staged) -> bool:
    try:
        return path.stat().st_size == staged.size and file_hash(path) == staged.digest
    except OSError:
        return False


def _report(item: _Unit, targets: dict[str, Path], placement: Placement, move: bool, folder: Path, result: CopiedPicks) -> None:
    verb = "moved" if move else "copied"
    for name in item.unit.photos:
        if name not in targets:
            continue
        pair = (str(item.path(name)), str(targets[name]))
        (result.already_there if tail_of(name) in placement.already else result.copied).append(pair)
    if not placement.placed and not move:
        return  # all already there: nothing went anywhere this time
    for chosen in item.chosen:
        note = describe_partners(item.unit, chosen, verb)
        if note and not any(p in item.chosen for p in item.unit.partners_of(chosen)):
            result.notes.append(note)
    if placement.orphans and placement.placed:
        left = ", ".join(sorted(placement.orphans))
        result.notes.append(f"left {left} in {folder} untouched (it belongs to no photograph {verb} here); "
                            f"{item.chosen[0]} went in as {targets[item.chosen[0]].name}")  # fmt: skip


def _take_back_unit(placement: Placement, staged: dict[str, Staged]) -> None:
    """Undo a unit's move before the library follows it: the copies placed are taken back, the staged
    ones discarded (the originals were never touched)."""
    for tail, path in placement.placed.items():
        take_back(staged[next(n for n in staged if tail_of(n) == tail)], path)
    for copy in staged.values():
        discard(copy)


def _finish_move(
    profile: Profile, item: _Unit, targets: dict[str, Path], placement: Placement, staged: dict[str, Staged],
    result: CopiedPicks,
) -> bool:  # fmt: skip
    """Point the library at the verified copies, then remove the originals; False (and the copies placed
    now taken back) when an original changed meanwhile, or when a file found already there was not
    put there by a move of this original (see _mark_copy)."""
    for tail in placement.already:
        name = next(n for n in staged if tail_of(n) == tail)
        if not _marked_copy(targets[name], item.path(name), staged[name].digest):
            _take_back_unit(placement, staged)
            result.skipped.append((str(item.path(name)), f"an identical file is already at {targets[name]}, not put there "
                                   "by a move of this one: the original stays (if that file is your copy, remove the "
                                   "original yourself)"))  # fmt: skip
            return False
    for name, before in item.before.items():
        if name not in targets:
            continue
        try:
            now = item.path(name).stat()
        except OSError:
            now = None
        if now is None or (now.st_size, now.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
            _take_back_unit(placement, staged)
            result.skipped.append((str(item.path(name)), "changed while it was being moved; left where it was"))
            return False
    files = [(str(item.path(n)), str(t), staged[n].digest) for n, t in targets.items()]
    try:
        entry = move_journal.begin(profile.path, files)
    except OSError as error:  # the profile's disk is full: this unit is not moved, its copies taken back
        _take_back_unit(placement, staged)
        where = os.path.dirname(os.path.abspath(profile.path))
        raise ExportPicksError(f"the move could not be recorded beside the profile, in {where} ({error.strerror or error}): "
                               "free space there and run it again") from error  # fmt: skip
    for name, record in item.records.items():
        if name in targets:
            _follow_record(profile, record, targets[name])
    _carry_sidecar_state(profile, item, targets)
    for name in item.unit.photos + item.unit.sidecars:
        if name not in targets:
            continue
        why = _remove_original(item.path(name), targets[name], staged[name].digest, name in item.unit.sidecars)
        if why is not None:
            result.left_behind.append((str(item.path(name)), why))
    sync_folder(item.unit.folder)
    move_journal.done(profile.path, entry)
    for target in targets.values():
        _unmark(target)
    return True


MOVED_FROM = "user.aesthete.moved-from"
"""Extended attribute on a move's copy: the original's path and hash. A rerun after a kill finds the
copies a move placed "already there" and finishes the move by removing the originals; a file with
the same bytes that carries no such mark (the original itself, seen through a cached network or
FUSE mount of its folder, or a copy made by hand) never leads to removing an original."""


def _mark_copy(path: Path, source: Path, digest: str) -> None:
    with contextlib.suppress(OSError):  # a file system without user attributes: such a rerun keeps the original
        os.setxattr(path, MOVED_FROM, f"{digest} {os.path.abspath(source)}".encode())


def _marked_copy(path: Path, source: Path, digest: str) -> bool:
    """Whether `path` is a regular file (not a link: its target's attributes would be read), not the
    original itself, carrying this move's mark."""
    try:
        if path.is_symlink() or not path.is_file() or same_file(path, source):
            return False
        return os.getxattr(path, MOVED_FROM, follow_symlinks=False) == f"{digest} {os.path.abspath(source)}".encode()
    except OSError:
        return False


def _unmark(path: Path) -> None:
    """The mark has done its work once the original is gone: `cp -a` or `rsync -X` must not carry it
    onto other files (a fourth attack copied marked files back over the originals)."""
    with contextlib.suppress(OSError):
        os.removexattr(path, MOVED_FROM, follow_symlinks=False)


def _same_folder(a: Path, b: Path) -> bool:
    """Whether two folder paths are one folder: by path, by identity (a bind mount, a second mount
    of one file system or a case-insensitive name reach it by another path), and by a probe: a file
    made in one that shows up in the other (an overlay, FUSE or network mount of the source gives its files
    other devices and inodes; a move through one once removed every original as "already there")."""
    if a.resolve() == b.resolve() or same_file(a, b):
        return True
    if not b.is_dir():
        return False  # `b` does not exist yet: a new folder is no other folder
    # both ways: an overlay shows the source's new files in its view, but keeps its own writes apart
    return _shows_up(a, b) or _shows_up(b, a)


def _shows_up(made_in: Path, seen_in: Path) -> bool:
    """Whether a probe file made in `made_in` is seen in `seen_in` (False when none can be made)."""
    probe = f".aesthete-probe-{os.getpid()}-{secrets.token_hex(6)}"
    try:
        fd = os.open(made_in / probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError:
        return False  # cannot write there: the folder checks that follow say why
    os.close(fd)
    try:
        return os.path.lexists(seen_in / probe)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(made_in / probe)


def _remove_original(source: Path, target: Path, digest: str, sidecar: bool) -> str | None:
    """Remove a moved original; why it stays (None when removed). Never when the copy *is* the
    original by another path. A sidecar is first renamed aside and removed only if it still holds
    the bytes copied: another program's edit saved meanwhile stays where it was (put back)."""
    try:
        if os.path.samefile(source, target):
            return "left in place: its copy is this same file, reached by another path"
    except OSError as error:
        return f"copied, but the original could not be examined ({error.strerror or error})"
    if not sidecar:
        try:
            source.unlink()
        except OSError as error:
            return f"copied, but the original could not be removed ({error.strerror or error})"
        return None
    aside = Path(move_journal.aside_name(source))
    try:
        os.rename(source, aside)
        if file_hash(aside) == digest:
            aside.unlink()
            return None
        try:
            os.link(aside, source)  # fails rather than replace a sidecar written there since
            aside.unlink()
            return "changed by another program while it was being moved: left where it was (the copy holds the earlier version)"
        except FileExistsError:
            return f"changed by another program while it was being moved: its edited version is kept as {aside.name}"
    except OSError as error:
        return f"copied, but the original could not be removed ({error.strerror or error})"


def _follow_record(profile: Profile, record: ImageRecord, target: Path) -> None:
    stat = target.stat()
    profile.catalog.move_image(record.id, str(target), _library_folder(profile, target), stat.st_size, stat.st_mtime_ns)


def _follow(profile: Profile, source: str, copy: str) -> None:
    """The library's image at `source` (if any) follows its copy (an interrupted move being finished)."""
    record = profile.catalog.image_by_path(source)
    if record is not None and profile.catalog.image_by_path(copy) is None:
        _follow_record(profile, record, Path(copy))


def _library_folder(profile: Profile, path: Path) -> int | None:
    """The imported folder that holds `path` (the innermost), or None."""
    holders = [f for f in profile.catalog.folders() if under(str(path), f.path)]
    return max(holders, key=lambda f: len(f.path)).id if holders else None


def _carry_sidecar_state(profile: Profile, item: _Unit, targets: dict[str, Path]) -> None:
    """The profile's record of the sidecar it last agreed with follows the sidecar to its new place."""
    from aesthete_gui.services.sidecar_sync import sidecar_state_now

    known = profile.sidecars.states([r.id for r in item.records.values()])
    for record in item.records.values():
        state = known.get(record.id)
        if state is None:
            continue
        name = Path(state.sidecar_path).name
        if Path(state.sidecar_path).parent == Path(item.unit.folder) and name in targets:
            profile.sidecars.record(sidecar_state_now(record.id, targets[name]))
