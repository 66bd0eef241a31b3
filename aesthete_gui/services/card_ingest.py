"""Ingest from a memory card: copy photographs to a destination under a renaming template, verify, then import.

A photograph travels with everything that belongs to it (imaging.photo_units): its RAW+JPEG
partner and every XMP sidecar get the same new stem (`20240612_R5_0007.CR2`, `…_0007.JPG`,
`…_0007.xmp`), are copied and verified together, and get their names together. Each file is copied
to a temporary name in its destination folder while its bytes are hashed (XXH3-128), flushed, read
back and hashed again, and is then given its name without ever replacing a file there
(services.verified_copy): a full disk, a read-only destination, a kill or a cancel never leaves a
half-written file under a real name, and never costs another file its place.

Names are chosen under the destination's folder lock from an append-only record of every ingest
into it (services.ingest_journal), so two ingests into one library (two card readers) keep every
photograph: a name that is taken, or any file pairing with that stem, gives `…_0007-2.JPG`. A file
counts as already there only when the same bytes are (a hash of every byte), never because a name
is taken; a file whose record line was torn is found by its bytes. A
rerun completes what an interrupted one left half-done (a photograph there, its sidecar or partner
not yet), and removes the temporary files a killed run left. A card file that vanishes or cannot be
read is skipped and reported; the others go on. The card's extension case is kept (`.JPG` stays
`.JPG`) unless the template ends with `{ext_lower}`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import string
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from aesthete_gui.atomic_write import folder_lock, same_file, sync_folder
from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.photo_units import numbered_stems, stem_key, tail_of
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.safe_names import UnsafeName, check_relative, fit_name, name_max, path_max
from aesthete_gui.services.card_scan import CardFile, CardUnit, scan_card
from aesthete_gui.services.ingest_journal import JOURNAL, IngestJournal, Recorded
from aesthete_gui.services.library_scan import normalize_root
from aesthete_gui.services.unit_placement import place_unit
from aesthete_gui.services.verified_copy import (
    Staged,
    clean_own_temps,
    destination_problem,
    discard,
    file_hash,
    read_problem,
    stage,
    write_problem,
)

if TYPE_CHECKING:
    from aesthete_gui.services.library import ImportSummary
    from aesthete_gui.store import Profile

DEFAULT_TEMPLATE = "{date:%Y-%m-%d}/{date:%Y%m%d}_{camera}_{seq:04d}{ext}"
"""A folder per day; files named by date, camera and a running number (e.g. 20240612_X-T5_0007.RAF)."""
TEMPLATE_FIELDS = ("date", "camera", "seq", "number", "name", "ext", "ext_lower")
_DIGITS = re.compile(r"\d+")
EXTENSION_FIELDS = ("{ext}", "{ext_lower}")
MANIFEST = JOURNAL
NUMBERING = "-{n}"
_RESERVED = 24  # bytes kept free in a file name for "-NN" and the longest extension plus ".xmp"
_TEMP_NAME_BYTES = 48  # "/.aesthete-ingest-<pid>-XXXXXXXX.part"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class IngestError(AestheteError):
    """An ingest that cannot go on (a destination full, read-only or missing; a bad template)."""


@dataclass
class IngestSummary:
    """What an ingest did: photographs found, copied, already there, backed up; sidecars copied; files
    left on the card by kind; units a rerun completed; temporary files removed; problems; the import."""

    found: int = 0
    copied: int = 0
    skipped: int = 0
    backed_up: int = 0
    sidecars: int = 0
    completed: int = 0
    cleaned: int = 0
    bytes_copied: int = 0
    cancelled: bool = False
    not_copied: dict[str, int] = field(default_factory=dict)
    copies: list[tuple[str, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    imported: ImportSummary | None = None


@dataclass(frozen=True)
class _Source:
    path: str
    size: int
    taken: datetime
    camera: str


def check_template(template: str) -> None:
    """IngestError unless `template` uses only known fields, ends with the extension and names a file
    inside the destination."""
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as error:
        raise IngestError(f"renaming template {template!r} is not valid: {error}") from None
    unknown = sorted({n for n in names if n not in TEMPLATE_FIELDS})
    if unknown:
        raise IngestError(
            f"renaming template: unknown field {{{unknown[0]}}}; use {', '.join(TEMPLATE_FIELDS)}"
        )
    if not template.endswith(EXTENSION_FIELDS):
        raise IngestError(f"renaming template {template!r} must end with {{ext}} or {{ext_lower}}: a RAW and "
                          "its JPEG keep their own extensions and share the rest of the name")  # fmt: skip
    example = _Source("x/IMG_0001.JPG", 0, datetime(2024, 1, 2, 3, 4, 5), "Camera")
    try:
        stem = render_stem(template, example, "IMG_0001", 1)
    except UnsafeName:
        stem = ""
    if not stem or stem.startswith("/") or ".." in stem.split("/") or not os.path.basename(stem):
        raise IngestError(f"renaming template {template!r} must name a file inside the destination")


def file_number(name: str, seq: int) -> int:
    """The camera's own number of a card file: the last run of digits in its stem (`IMG_0023` → 23,
    `IMG_0022_small` → 22); the running number `seq` when the name has none."""
    runs = _DIGITS.findall(name)
    return int(runs[-1][-9:]) if runs else seq


def render_stem(template: str, source: _Source, name: str, seq: int) -> str:
    """The destination path of a unit without its extension (components joined by "/"), every part
    checked to stay inside the destination (UnsafeName names the part and why)."""
    body = template[: template.rindex("{ext")]
    try:
        relative = body.format(date=source.taken, camera=source.camera, seq=seq, number=file_number(name, seq), name=name)
    except (ValueError, KeyError, IndexError, AttributeError) as error:
        raise IngestError(f"renaming template {template!r} cannot be applied: {error}") from None
    return check_relative(relative, "the name made from the card file")


def _describe(path: str, size: int) -> _Source:
    from aesthete_gui.imaging.metadata import read_metadata

    taken = datetime.fromtimestamp(os.stat(path).st_mtime)
    camera = "unknown-camera"
    try:
        meta = read_metadata(path)
        taken = meta.capture_time.replace(tzinfo=None) if meta.capture_time else taken
        camera = _UNSAFE.sub("-", meta.camera or "").strip("-.") or camera
    except Exception:  # no readable metadata: the file's time and an unknown camera name it
        pass
    return _Source(path, size, taken, camera)


def _describe_unit(card_unit: CardUnit) -> _Source | None:
    """Date and camera of the unit from its lead photograph (or another, when the lead vanished)."""
    for card_file in sorted(card_unit.photos, key=lambda f: f is not card_unit.lead):
        try:
            return _describe(card_file.path, card_file.size)
        except OSError:
            continue
    return None


def _tail(card_file: CardFile, lower: bool) -> str:
    """The file's extension part as the destination writes it (`.JPG`, `.JPG.xmp`; lowered on request)."""
    tail = tail_of(card_file.name)
    if not lower:
        return tail
    if card_file.photo:
        return tail.lower()
    head = tail[: -len(".xmp")]
    return head.lower() + tail[len(head):]


class _Destination:
    """One destination root (the library, or the backup) during one ingest."""

    def __init__(self, root: Path, started: float, summary: IngestSummary, main: bool = True) -> None:
        self.root = root
        self.main = main
        self.journal = IngestJournal(root)
        self.started = started
        self.summary = summary
        self.cleaned: set[Path] = set()
        self.learned: list[dict] = []

    def clean(self, folder: Path) -> None:
        """Remove temporary files of killed runs in `folder`, once per run."""
        if folder not in self.cleaned:
            self.cleaned.add(folder)
            self.summary.cleaned += clean_own_temps(folder, self.started)

    def there(self, card_file: CardFile, beside: set[str] | None = None) -> Recorded | None:
        """Where this card file's bytes already are in the destination, or None. A sidecar counts only
        beside its own photographs (`beside`: their paths' stem keys), since sidecars of different
        photographs may hold the same bytes; it may have been edited there since."""
        key = card_file.quick_key()
        known = self.journal.sources.get(key)
        digest = card_file.content_hash()  # a quick key match proves nothing: same first 64 KiB ≠ same bytes
        if card_file.photo:
            found = self.journal.find(digest, source=card_file.path)
        else:
            found = self.journal.find(digest, within=beside or set(), source=card_file.path)
        if found is not None and known != digest:
            self.learned.append({"source": key, "hash": digest})
        return found

    def unit_there(self, card_unit: CardUnit) -> dict[str, Recorded]:
        """The files of the unit already in the destination (by card file name)."""
        there = {f.name: r for f in card_unit.photos if (r := self.there(f)) is not None}
        beside = {_pair_key(r.path) for r in there.values()}
        for card_file in card_unit.files:
            if not card_file.photo and beside and (r := self.there(card_file, beside)) is not None:
                there[card_file.name] = r
        return there

    def unrecorded(
        self, card_unit: CardUnit, missing: list[CardFile], there: dict[str, Recorded], folder: Path, lower: bool
    ) -> dict[str, Recorded]:  # fmt: skip
        """The `missing` files that are in `folder` although their record line was torn: photographs by
        their bytes, sidecars by name and bytes beside the unit's photographs. Each is recorded again now."""
        if not self.journal.torn:
            return {}
        found = {f.name: r for f in missing if f.photo and (r := self.journal.unrecorded(folder, f.content_hash(), f.size))}
        files = {f.name: f for f in card_unit.files}
        stems = {_recorded_stem(r.path, files[n], lower) for n, r in {**there, **found}.items() if files[n].photo}
        for card_file in (f for f in missing if not f.photo):
            for stem in sorted(stems):
                path = self.root / (stem + _tail(card_file, lower))
                with contextlib.suppress(OSError):
                    if path.is_file() and file_hash(path) == card_file.content_hash():
                        info = path.stat()
                        found[card_file.name] = Recorded(path.relative_to(self.root).as_posix(), info.st_ino,
                                                         info.st_size, info.st_mtime_ns)  # fmt: skip
                        break
        if not found:
            return found
        with folder_lock(self.root):
            self.journal.append([{"hash": files[n].content_hash(), "path": r.path, "inode": r.inode, "size": r.size,
                                  "mtime_ns": r.mtime_ns} for n, r in found.items()])  # fmt: skip
        return found

    def remember_sources(self) -> None:
        """Record the card files found already there by their hash, so a rerun need not read them whole."""
        if self.learned:
            with folder_lock(self.root):
                self.journal.append(self.learned)
            self.learned = []


def _pair_key(relative: str) -> str:
    """A recorded path's folder and stem key: the files that pair with it share it."""
    folder, name = os.path.split(relative)
    return f"{folder}/{stem_key(name)}"


def _check_destination(root: Path, needed: int) -> None:
    problem = destination_problem(root, needed)
    if problem is not None:
        raise IngestError(problem)


def _stage_all(
    missing: list[CardFile], folder: Path, cancel: CancelToken | None, summary: IngestSummary
) -> dict[str, tuple[CardFile, Staged]] | None:
    """Verified temporary copies of the missing files in `folder`; None when cancelled (none kept)."""
    staged: dict[str, tuple[CardFile, Staged]] = {}
    for card_file in missing:
        try:
            copy = stage(card_file.path, folder, cancel, "ingest", sidecar=not card_file.photo)
        except OSError as error:
            if error.filename == card_file.path:
                summary.problems.append((card_file.path, read_problem(error)))
                continue
            for _, done in staged.values():
                discard(done)
            raise IngestError(write_problem(error, folder)) from None
        if copy is None:
            for _, done in staged.values():
                discard(done)
            return None
        if copy.digest != card_file.content_hash():
            discard(copy)
            summary.problems.append((card_file.path, "changed while it was being copied; skipped"))
            continue
        staged[card_file.name] = (card_file, copy)
    return staged


def _copy_unit(
    card_unit: CardUnit, destination: _Destination, template: str, cancel: CancelToken | None
) -> list[tuple[CardFile, Path]] | None:
    """Copy the unit's files that are not in `destination` yet; (card file, new path) for each, or None
    when cancelled. Problems with single files go to the summary."""
    summary, root, journal = destination.summary, destination.root, destination.journal
    lower = template.endswith("{ext_lower}")
    there = destination.unit_there(card_unit)
    missing = [f for f in card_unit.files if f.name not in there]
    if not any(f.photo for f in card_unit.files if f.name in there or f in missing):
        return []
    if not missing:  # another ingest into this folder copied the whole unit since the plan was made
        if destination.main:
            summary.skipped += sum(f.photo for f in card_unit.files)
        return []
    if destination.main:  # a unit partly there: its photographs that are there count as already there
        summary.skipped += sum(f.photo for f in card_unit.files if f.name in there)
    lead = card_unit.lead
    described = _describe_unit(card_unit)
    if described is None:  # every photograph of the unit vanished (the card was pulled)
        summary.problems += [(f.path, read_problem(OSError(errno.ENOENT, "gone", f.path))) for f in card_unit.photos]
        return []
    try:
        stem = _fitted(root, render_stem(template, described, card_unit.unit.stem, journal.next_seq), card_unit, lower)
    except UnsafeName as error:
        summary.problems.append((lead.path, f"not copied: {error}"))
        return []
    if stem is None:
        summary.problems.append((lead.path, f"not copied: the destination path would be longer than "
                                            f"{path_max(root)} bytes, the limit of this system"))  # fmt: skip
        return []
    folder = root / os.path.dirname(stem)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IngestError(write_problem(error, folder)) from None
    destination.clean(folder)
    try:
        found = destination.unrecorded(card_unit, missing, there, folder, lower)
    except OSError as error:
        raise IngestError(write_problem(error, root)) from None
    if found:
        there.update(found)
        missing = [f for f in missing if f.name not in found]
        if destination.main:  # already there after all, under names no record had
            summary.skipped += sum(f.photo for f in card_unit.files if f.name in found)
        if not missing:
            return []
    staged = _stage_all(missing, folder, cancel, summary)
    if staged is None:
        return None
    if not any(f.photo for f, _ in staged.values()) and not any(f.photo for f in card_unit.files if f.name in there):
        for _, copy in staged.values():  # its photographs vanished: a sidecar alone would be an orphan
            discard(copy)
        return []
    try:
        with folder_lock(root):
            journal.refresh()
            return _place(card_unit, destination, template, described, staged, there, lower)
    except OSError as error:
        raise IngestError(write_problem(error, folder)) from None
    finally:
        for _, copy in staged.values():
            discard(copy)  # anything not placed (placed copies have left their temporary names)


def _fitted(root: Path, stem: str, card_unit: CardUnit, lower: bool) -> str | None:
    """`stem` with its file name part shortened to fit the file system; None when the path is too long."""
    head, name = os.path.split(stem)
    name = fit_name(name, name_max(root), reserve=_RESERVED)
    fitted = f"{head}/{name}" if head else name
    longest = max(len(os.fsencode(_tail(f, lower))) for f in card_unit.files)
    final = len(os.fsencode(str(root / fitted))) + longest + 8  # room for "-NN"
    temporary = len(os.fsencode(str((root / fitted).parent))) + _TEMP_NAME_BYTES
    if max(final, temporary) >= path_max(root):
        return None
    return fitted


def _recorded_stem(relative: str, card_file: CardFile, lower: bool) -> str:
    """A recorded relative path of a photograph without its extension part."""
    tail = _tail(card_file, lower)
    return relative[: -len(tail)] if tail and relative.endswith(tail) else os.path.splitext(relative)[0]


def _place(
    card_unit: CardUnit, destination: _Destination, template: str, described: _Source,
    staged: dict[str, tuple[CardFile, Staged]], there: dict[str, Recorded], lower: bool,
) -> list[tuple[CardFile, Path]]:  # fmt: skip
    """Under the folder lock: give the staged files their names, beside the unit's files already there."""
    root, journal = destination.root, destination.journal
    for name, recorded in destination.unit_there(card_unit).items():  # another ingest copied them meanwhile
        there[name] = recorded
        if name in staged:
            card_file, copy = staged.pop(name)
            discard(copy)
            if destination.main and card_file.photo:  # counted: three ingests at once left 20 of 30 unsaid
                destination.summary.skipped += 1
    if not staged:
        return []
    members = {_tail(f, lower): copy for f, copy in staged.values()}
    by_tail = {_tail(f, lower): f for f, _ in staged.values()}
    files = {f.name: f for f in card_unit.files}
    present = {_recorded_stem(r.path, files[n], lower) for n, r in there.items() if files[n].photo}
    seq = journal.next_seq

    def record(_stem: str, targets: dict[str, Path]) -> None:
        journal.append([
            {"hash": copy.digest, "path": targets[tail].relative_to(root).as_posix(), "seq": seq,
             "inode": copy.inode, "size": copy.size, "mtime_ns": copy.mtime_ns,
             "source": by_tail[tail].quick_key()}
            for tail, copy in members.items() if tail in targets
        ])  # fmt: skip

    if len(present) == 1:  # complete a unit left half-done, beside its files that are there
        (stem,) = present
        folder = root / os.path.dirname(stem)
        ours = {os.path.basename(r.path) for r in there.values()}
        try:
            placement = place_unit(folder, [os.path.basename(stem)], members,
                                   accept=lambda _s, names: set() if set(names) <= ours else None, before=record)  # fmt: skip
        except FileExistsError:
            placement = None  # its names are taken: the missing files go under a new name below
        if placement is not None:
            destination.summary.completed += sum(f.photo for f in card_unit.files)  # photographs, as it is said
            sync_folder(folder)
            return [(by_tail[t], p) for t, p in placement.placed.items()]
    stem = render_stem(template, described, card_unit.unit.stem, seq)
    stem = _fitted(root, stem, card_unit, lower) or stem
    folder = root / os.path.dirname(stem)
    folder.mkdir(parents=True, exist_ok=True)
    placement = place_unit(folder, numbered_stems(os.path.basename(stem), NUMBERING), members, before=record)
    sync_folder(folder)
    return [(by_tail[t], p) for t, p in placement.placed.items()]


def _within_folder(inner: Path, outer: Path) -> bool:
    """Whether `inner` is `outer` or lies inside it, by path or by identity: an existing folder on
    `inner`'s path (itself or an ancestor) that is `outer` reached another way (a bind mount, a
    symlink), even when `inner` does not exist yet."""
    if inner == outer or outer in inner.parents:
        return True
    if not os.path.isdir(outer):
        return False
    return any(same_file(folder, outer) for folder in (inner, *inner.parents))


def _overlapping(a: Path, b: Path) -> bool:
    """Whether two folders are one, or one lies inside the other (by path or identity)."""
    return _within_folder(a, b) or _within_folder(b, a)


def ingest_card(
    source: str | os.PathLike[str],
    destination: str | os.PathLike[str],
    template: str = DEFAULT_TEMPLATE,
    backup: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> IngestSummary:
    """Copy every photograph unit under `source` into `destination` (and `backup`), renamed and verified,
    skipping what is already there. Raises IngestError for a missing source, a bad template, or a
    full or read-only destination (files finished before it are kept, complete)."""
    report = progress or (lambda _p: None)
    started = time.time()
    source_root = normalize_root(source)
    if not os.path.isdir(source_root):
        raise IngestError(f"not a folder: {source_root}")
    check_template(template)
    roots = [Path(normalize_root(destination))] + ([Path(normalize_root(backup))] if backup else [])
    for root in roots:
        if _within_folder(root, Path(source_root)):
            raise IngestError(f"destination {root} lies inside the source folder; choose another")
        if _within_folder(Path(source_root), root):
            raise IngestError(f"the source folder {source_root} lies inside the destination {root}: its photographs would "
                              "be imported twice (the card's and the copies); copy into a folder beside it")  # fmt: skip
    if backup and _overlapping(roots[0], roots[1]):
        raise IngestError(f"the backup folder {roots[1]} is the destination or lies inside it (or holds it): a backup "
                          "there is no second copy; choose a folder on another disk")  # fmt: skip
    summary = IngestSummary()
    contents = scan_card(source_root, cancel)
    summary.found, summary.not_copied = contents.photo_count, dict(contents.not_copied)
    summary.problems.extend(contents.problems)
    for root in roots:
        _check_destination(root, 0)
    targets = [_Destination(root, started, summary, n == 0) for n, root in enumerate(roots)]
    plan: list[tuple[CardUnit, list[bool]]] = []
    for index, card_unit in enumerate(contents.units):
        if cancel is not None and cancel.cancelled:
            summary.cancelled = True
            return summary
        report(Progress(index, len(contents.units), f"checking {card_unit.unit.lead}"))
        try:
            needs = [len(d.unit_there(card_unit)) < len(card_unit.files) for d in targets]
        except OSError as error:
            summary.problems.append((error.filename or card_unit.unit.lead, read_problem(error)))
            continue
        if not needs[0]:
            summary.skipped += len(card_unit.photos)
        if any(needs):
            plan.append((card_unit, needs))
    for target in targets:
        try:
            target.remember_sources()
        except OSError as error:
            raise IngestError(write_problem(error, target.root)) from None
    for position, root in enumerate(roots):
        _check_destination(root, sum(sum(f.size for f in u.files) for u, needs in plan if needs[position]))
    total = sum(sum(f.size for f in u.files) for u, _ in plan)
    done = 0
    for position_in_plan, (card_unit, needs) in enumerate(plan):
        if cancel is not None and cancel.cancelled:
            summary.cancelled = True
            break
        if not os.path.isdir(source_root):  # the card was pulled: one line, not one per file
            left = sum(len(u.photos) for u, _ in plan[position_in_plan:])
            summary.problems.append((source_root, f"the card is gone (removed?): {left} photographs were not copied; "
                                                  "put it back and run the ingest again to copy them"))  # fmt: skip
            break
        report(Progress(done, total, f"copying {card_unit.unit.lead}"))
        for position, target in enumerate(targets):
            if not needs[position]:
                continue
            copied = _copy_unit(card_unit, target, template, cancel)
            if copied is None:
                summary.cancelled = True
                break
            _count(summary, copied, position == 0)
        if summary.cancelled:
            break
        done += sum(f.size for f in card_unit.files)
        summary.bytes_copied = done
    report(Progress(done, total, "copied"))
    return summary


def _count(summary: IngestSummary, copied: list[tuple[CardFile, Path]], main: bool) -> None:
    for card_file, path in copied:
        if not card_file.photo:
            summary.sidecars += main
        elif main:
            summary.copied += 1
            summary.copies.append((card_file.path, str(path)))
        else:
            summary.backed_up += 1


def ingest_and_import(
    profile: Profile,
    source: str | os.PathLike[str],
    destination: str | os.PathLike[str],
    template: str = DEFAULT_TEMPLATE,
    backup: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    workers: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> IngestSummary:
    """ingest_card, then import the destination into the profile (unless cancelled): one job."""
    from aesthete_gui.services.library import import_folders
    from aesthete_gui.store.runs import lay_reserve

    lay_reserve(profile.path)  # before the copies can fill the disk: the import run can always end
    summary = ingest_card(source, destination, template, backup, progress, cancel)
    if not summary.cancelled:
        imported = import_folders(
            profile, [destination], progress=progress, cancel=cancel, workers=workers, cache_dir=cache_dir
        )
        summary.imported = imported
        summary.cancelled = imported.cancelled
    return summary
