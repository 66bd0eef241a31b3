"""XMP two-way sync: sidecar edits made by other programs reach the profile, and never get overwritten.

A sidecar counts as changed elsewhere when its size or mtime differ from what was recorded at the
last sync and its content hash differs too (a touch alone changes nothing). Then:
- only the sidecar changed: its marks are taken into the profile;
- both changed since the last sync: the later change wins (sidecar mtime against the profile's
  mark time) and the losing value goes into the image's mark history;
- the profile's marks changed and the sidecar changed only elsewhere (its marks as last seen: the
  state records them): the profile keeps its marks, no conflict; the sidecar is *behind* (a write
  of the marks failed, on a full disk say) and `write_back` brings it up to date.
Sync runs on a rescan (import), right before every sidecar write (services.library_marks), and
whenever the app asks (`sync_sidecars`, e.g. when its window regains focus). A field whose value
the sidecar holds but Aesthete cannot read (a rating of 99) is never taken into the profile: the
profile keeps its value for that field and the sync lists the sidecar among its problems.

Which sidecar belongs to an image follows imaging.xmp's rule, with the profile's setting
"raw_jpeg_pairs_as_one" (`sidecar_rules`). A sync also removes temporary files that an earlier,
killed write of ours left beside the sidecars.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aesthete_gui.atomic_write import link_new, remove_leftovers
from aesthete_gui.imaging.hashing import content_hash_bytes
from aesthete_gui.imaging.photo_units import SIDECAR_SUFFIX, looks_like_photo_name
from aesthete_gui.imaging.xmp import (
    Naming,
    SidecarWriteError,
    XmpError,
    XmpMarks,
    find_sidecar,
    folders_listed_once,
    our_marks_on_top,
    read_sidecar,
    read_sidecar_bytes,
    read_xmp_bytes,
)
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.settings import PAIRS_AS_ONE_KEY, XMP_ENABLED_KEY, as_flag, profile_settings
from aesthete_gui.store import ImageRecord, MarkRecord, Profile
from aesthete_gui.store.records import HeldMarks, MarkHistoryEntry, Marks, SidecarState, SyncChange

BATCH = 200
"""Decisions applied per committed transaction."""


@dataclass
class SyncSummary:
    """What a sync did: images looked at, marks taken from sidecars, conflicts, unreadable sidecars."""

    checked: int = 0
    adopted: int = 0
    conflicts: int = 0
    profile_kept: int = 0
    behind: int = 0
    """Sidecars whose marks are behind the profile's (a write of them failed); rewritten with write_back."""
    written_back: int = 0
    """Sidecars written with the profile's marks by write_back."""
    not_written: int = 0
    """Sidecars write_back meant to write but could not (each named in `problems`)."""
    changed_ids: list[int] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class SidecarRules:
    """The profile's sidecar settings, the same for the window and the command line."""

    write: bool = True
    pairs_as_one: bool = False


def sidecar_rules(profile: Profile) -> SidecarRules:
    """The sidecar settings stored beside the profile (`<profile>.settings.json`, see settings.py)."""
    stored = profile_settings(Path(profile.path))  # one read of the file for both values
    return SidecarRules(as_flag(stored.get(XMP_ENABLED_KEY), True), as_flag(stored.get(PAIRS_AS_ONE_KEY), False))


def clean_leftovers(folders: Iterable[str | os.PathLike[str]], started: float) -> int:
    """Remove temporary sidecar files an earlier, killed run of ours left in `folders`; how many."""
    distinct = {os.fspath(folder) for folder in folders}
    return sum(len(remove_leftovers(folder, started, merge=our_marks_on_top)) for folder in distinct)


@dataclass(frozen=True)
class _Seen:
    state: SidecarState
    marks: XmpMarks


def sidecar_view(
    stars: int | None, flag: str | None, label: str | None
) -> tuple[int | None, str | None, str | None]:
    """Marks as a sidecar can hold them: a reject is Rating -1, so its stars are not kept there."""
    return (None if flag == "reject" else int(stars or 0), flag, label)


def _look(image: ImageRecord, known: SidecarState | None, pairs_as_one: bool) -> _Seen | SidecarState | None:
    """The sidecar now: None when absent or unchanged, a refreshed state when only its stat changed."""
    sidecar = find_sidecar(image.path, pairs_as_one)
    if sidecar is None:
        return None
    info = os.stat(sidecar)
    same_file = known is not None and known.sidecar_path == str(sidecar)
    if (
        same_file
        and known is not None
        and (info.st_size, info.st_mtime_ns) == (known.size, known.mtime_ns)
    ):
        return None
    data = read_sidecar_bytes(sidecar)
    state = SidecarState(
        image.id, str(sidecar), len(data), info.st_mtime_ns, content_hash_bytes(data), 0.0
    )
    if same_file and known is not None and known.content_hash == state.content_hash:
        return replace(state, held=known.held)
    marks = read_xmp_bytes(sidecar, data)
    return _Seen(replace(state, held=held_marks(marks)), marks)


def held_marks(xmp: XmpMarks) -> HeldMarks | None:
    """The marks a sidecar holds, in the form its state records them (None when one of them cannot
    be read: such a sidecar is never taken as behind the profile, nor rewritten for it)."""
    return None if xmp.unreadable else (xmp.stars, xmp.flag, xmp.label)


NEVER_WRITTEN = ""
"""The content hash recorded for a sidecar whose first write failed (a full disk): it holds nothing
yet, and it is behind the profile's marks until a write creates it."""


def unwritten_state(image_id: int, sidecar: str | os.PathLike[str]) -> SidecarState:
    """The state of a sidecar a mark could not create: no marks held, behind until written."""
    return SidecarState(image_id, str(sidecar), 0, 0, NEVER_WRITTEN, 0.0, (0, None, None))


def _behind(image: ImageRecord, mark: MarkRecord, known: SidecarState | None) -> SyncChange | None:
    """A sidecar unchanged since last seen whose marks differ from the profile's (a write of them
    failed, or marks were made with sidecars off): the profile keeps its marks, the sidecar is behind.
    A sidecar whose first write failed is behind too, though no file is there."""
    if known is None or known.held is None:
        return None
    held = marks_from_sidecar(XmpMarks(*known.held), mark)
    if sidecar_view(*held) == sidecar_view(mark.stars, mark.flag, mark.label):
        return None
    if not os.path.isfile(known.sidecar_path) and known.content_hash != NEVER_WRITTEN:
        return None  # removed since: not behind, gone (never written anew here)
    return SyncChange(image.id, mark.updated_at, behind=True)


def marks_from_sidecar(xmp: XmpMarks, mark: MarkRecord) -> Marks:
    """The marks a sidecar gives the profile: the profile keeps its value wherever the sidecar's
    cannot be read (and its stars under a reject, which Rating -1 does not carry)."""
    rating_unreadable = xmp.is_unreadable("xmp:Rating")
    stars = mark.stars if xmp.flag == "reject" or rating_unreadable else int(xmp.stars or 0)
    flag = xmp.flag if xmp.flag is not None or not rating_unreadable else mark.flag
    label = mark.label if xmp.is_unreadable("xmp:Label") else xmp.label
    return (stars, flag, label)


def _decide(
    image: ImageRecord, mark: MarkRecord, known: SidecarState | None, pairs_as_one: bool = False
) -> SyncChange | None:
    """What to do about one image (XmpError / OSError when its sidecar cannot be read)."""
    carried = _carry_old_name(image, known)
    if carried is not None:
        return SyncChange(image.id, mark.updated_at, state=carried)
    seen = _look(image, known, pairs_as_one)
    if seen is None:
        return _behind(image, mark, known)
    if isinstance(seen, SidecarState):  # touched, not changed
        behind = _behind(image, mark, known)
        return replace(behind, state=seen) if behind else SyncChange(image.id, mark.updated_at, state=seen)
    xmp = seen.marks
    return replace(_settle(image, mark, known, seen), unreadable=xmp.unreadable)


def _carry_old_name(image: ImageRecord, known: SidecarState | None) -> SidecarState | None:
    """Before today's rule, `A.png.JPG` was given `A.png.xmp`, which is now only a photograph `A.png`'s
    (imaging.xmp): a second attack saw such a sidecar ignored, then taken by an `A.png` imported later.
    The sidecar this profile recorded under the old name, unchanged since, is renamed to
    `A.png.JPG.xmp` when that name is free; its new state, or None when nothing was carried."""
    if known is None:
        return None
    old, path = Path(known.sidecar_path), Path(image.path)
    if old.parent != path.parent or old.name != path.stem + SIDECAR_SUFFIX or not looks_like_photo_name(path.stem):
        return None
    new = path.with_name(path.name + SIDECAR_SUFFIX)
    try:
        if os.path.lexists(new) or not old.is_file() or old.is_symlink():
            return None
        owner = path.stem.casefold()  # a photograph `A.png` here owns that sidecar now: never taken from it
        if any(name.casefold() == owner for name in os.listdir(path.parent)):
            return None
        if content_hash_bytes(read_sidecar_bytes(old)) != known.content_hash:
            return None  # edited since it was recorded: left to whoever edited it
        if not link_new(old, new):  # the hard link keeps its bytes and time; the old name goes
            return None
    except (OSError, XmpError):
        return None
    return replace(known, sidecar_path=str(new))


def _settle(image: ImageRecord, mark: MarkRecord, known: SidecarState | None, seen: _Seen) -> SyncChange:
    """Sidecar and profile differ (or not): which side wins, and what goes into the mark history."""
    xmp = seen.marks
    from_sidecar: Marks = marks_from_sidecar(xmp, mark)
    if sidecar_view(*from_sidecar) == sidecar_view(mark.stars, mark.flag, mark.label):
        return SyncChange(image.id, mark.updated_at, state=seen.state)
    if known is not None and known.held is not None:
        return _merge_fields(image, mark, known.held, seen)
    profile_changed = mark.updated_at > (known.synced_at if known is not None else 0.0)
    if not profile_changed:
        return SyncChange(image.id, mark.updated_at, marks=from_sidecar, state=seen.state)
    if known is not None and known.held is not None and known.held == seen.state.held:
        # another program changed the sidecar (a keyword, a crop) but not its marks, which are as last
        # seen: the profile's later mark (whose write failed: a full disk) is no conflict, and stays
        return SyncChange(image.id, mark.updated_at, state=seen.state, behind=True)
    sidecar_time = seen.state.mtime_ns / 1e9
    if sidecar_time > mark.updated_at:
        lost = MarkHistoryEntry(image.id, "profile", mark.stars, mark.flag, mark.label, mark.updated_at,
                                "conflict: the sidecar was changed later")  # fmt: skip
        return SyncChange(
            image.id, mark.updated_at, marks=from_sidecar, state=seen.state, history=(lost,)
        )
    lost = MarkHistoryEntry(image.id, "sidecar", xmp.stars, xmp.flag, xmp.label, sidecar_time,
                            "conflict: the profile was changed later")  # fmt: skip
    return SyncChange(image.id, mark.updated_at, state=seen.state, history=(lost,))


def _merge_fields(image: ImageRecord, mark: MarkRecord, held: HeldMarks, seen: _Seen) -> SyncChange:
    """Field by field against what the sidecar held when the two last agreed: a field only the other
    program changed is taken, one only this profile changed is kept (the sidecar is then behind), and
    only a field both changed is settled by time. An attack lost a label set here (its sidecar write had
    failed) when another program later changed only the rating: the whole mark went to the later side.
    The rating and a reject are one field, as in the sidecar (a reject is Rating -1)."""
    xmp = seen.marks
    base = _fields(sidecar_view(*marks_from_sidecar(XmpMarks(*held), mark)))
    ours = _fields(sidecar_view(mark.stars, mark.flag, mark.label))
    theirs = _fields(sidecar_view(*marks_from_sidecar(xmp, mark)))
    sidecar_time = seen.state.mtime_ns / 1e9
    merged: list[Any] = []
    profile_lost = sidecar_lost = False
    for b, o, t in zip(base, ours, theirs, strict=True):
        if t in (b, o):
            merged.append(o)
        elif o == b:
            merged.append(t)
        elif sidecar_time > mark.updated_at:  # both changed it: the later change wins
            merged.append(t)
            profile_lost = True
        else:
            merged.append(o)
            sidecar_lost = True
    rating, picked, label = merged
    flag = "reject" if rating == REJECTED else "pick" if picked else None
    stars = mark.stars if rating == REJECTED else int(rating or 0)
    result: Marks = (stars, flag, label)
    history: list[MarkHistoryEntry] = []
    if profile_lost:
        history.append(MarkHistoryEntry(image.id, "profile", mark.stars, mark.flag, mark.label, mark.updated_at,
                                        "conflict: the sidecar was changed later"))  # fmt: skip
    if sidecar_lost:
        history.append(MarkHistoryEntry(image.id, "sidecar", xmp.stars, xmp.flag, xmp.label, sidecar_time,
                                        "conflict: the profile was changed later"))  # fmt: skip
    now = _fields(sidecar_view(*result))
    return SyncChange(image.id, mark.updated_at, marks=result if now != ours else None, state=seen.state,
                      history=tuple(history), behind=now != theirs)  # fmt: skip


REJECTED = "reject"


def _fields(view: tuple[int | None, str | None, str | None]) -> tuple[Any, bool, str | None]:
    """Marks as the sidecar's fields: the rating (stars, or REJECTED: Rating -1), picked, the label."""
    stars, flag, label = view
    return (REJECTED if flag == "reject" else int(stars or 0), flag == "pick", label)


def sidecar_state_now(image_id: int, sidecar: str | os.PathLike[str]) -> SidecarState:
    """The state of a sidecar as it is on disk now (after we wrote it)."""
    data = read_sidecar_bytes(sidecar)
    info = os.stat(sidecar)
    return SidecarState(
        image_id, str(Path(sidecar)), len(data), info.st_mtime_ns, content_hash_bytes(data), 0.0,
        held_marks(read_xmp_bytes(sidecar, data)),
    )


def sync_image(profile: Profile, image_id: int, pairs_as_one: bool | None = None) -> SyncChange | None:
    """Sync one image's sidecar into the profile (the check before a write); the change applied, if any.
    `pairs_as_one` (None: the profile's setting) picks the sidecar of a RAW+JPEG pair's half.

    Raises XmpError / OSError when the sidecar exists but cannot be read (the write then refuses too).
    """
    image = profile.catalog.image_by_id(image_id)
    if image is None:
        return None
    pairs = sidecar_rules(profile).pairs_as_one if pairs_as_one is None else pairs_as_one
    change = _decide(image, profile.marks.get(image_id), profile.sidecars.states([image_id]).get(image_id),
                     pairs)  # fmt: skip
    if change is None:
        return None
    profile.sidecars.apply_sync([change])  # the repository announces the marks it changed
    return change


def sync_sidecars(
    profile: Profile,
    image_ids: Iterable[int] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    write_back: bool = False,
    naming: Naming = "auto",
) -> SyncSummary:
    """Bring the profile and the images' sidecars together (all present images, or `image_ids`).

    With `write_back`, a sidecar that lost a conflict is rewritten with the profile's marks. An
    unreadable sidecar, or one holding a value that cannot be read, is listed in `problems` and
    left alone. Changed marks are announced by the profile's sidecars repository, one event per batch.
    """
    started = time.time()
    wanted = None if image_ids is None else set(image_ids)
    images = [i for i in profile.catalog.images(status="ok") if wanted is None or i.id in wanted]
    pairs_as_one = sidecar_rules(profile).pairs_as_one
    clean_leftovers((os.path.dirname(i.path) for i in images), started)
    marks = profile.marks.all()
    known = profile.sidecars.states(wanted)
    summary = SyncSummary()
    with folders_listed_once():
        _sync_each(profile, images, marks, known, pairs_as_one, summary, progress, cancel, write_back, naming)
    return summary


def _sync_each(profile: Profile, images: list[ImageRecord], marks: dict[int, MarkRecord],
               known: dict[int, SidecarState], pairs_as_one: bool, summary: SyncSummary,
               progress: ProgressCallback | None, cancel: CancelToken | None, write_back: bool,
               naming: Naming) -> None:  # fmt: skip
    pending: list[SyncChange] = []
    for done, image in enumerate(images, start=1):
        if cancel is not None and cancel.cancelled:
            break
        summary.checked += 1
        try:
            change = _decide(image, marks.get(image.id, MarkRecord(image.id)), known.get(image.id), pairs_as_one)
            if change is not None and change.unreadable:
                summary.problems.append((image.path, "sidecar value unreadable, left as it is: "
                                         + "; ".join(change.unreadable)))  # fmt: skip
        except (XmpError, OSError) as error:
            summary.problems.append((image.path, str(error)))
            change = None
        if change is not None:
            pending.append(change)
        if len(pending) >= BATCH:
            _apply(profile, pending, summary, write_back, naming, pairs_as_one)
            pending = []
        if progress is not None and (done % 100 == 0 or done == len(images)):
            progress(Progress(done, len(images), image.path))
    _apply(profile, pending, summary, write_back, naming, pairs_as_one)


def _apply(profile: Profile, changes: list[SyncChange], summary: SyncSummary, write_back: bool,
           naming: Naming, pairs_as_one: bool) -> None:  # fmt: skip
    if not changes:
        return
    changed = set(profile.sidecars.apply_sync(changes))
    summary.changed_ids.extend(sorted(changed))
    summary.adopted += len(changed)
    for change in changes:
        if change.history:  # a field changed on both sides, settled by time
            summary.conflicts += 1
            summary.profile_kept += change.marks is None
        elif change.behind:
            summary.behind += 1
        if write_back and (change.behind or (change.history and change.marks is None)):
            _write_back(profile, change.image_id, summary, naming, pairs_as_one)


def _write_back(profile: Profile, image_id: int, summary: SyncSummary, naming: Naming,
                pairs_as_one: bool | None = None) -> None:  # fmt: skip
    """Put the profile's marks into a sidecar that is behind them or lost a conflict: compare-and-swap
    against the sidecar as this sync recorded it, so a field another program changes meanwhile keeps
    its new value and is taken into the profile (an attack: 16 of 300 ratings another program set
    during `sync-xmp --write-back` were overwritten with the older marks, with no trace)."""
    from aesthete_gui.services.library_marks import SidecarNotWritten, write_mark_to_sidecar

    image, mark = profile.catalog.image_by_id(image_id), profile.marks.get(image_id)
    if image is None:
        return
    rules = sidecar_rules(profile)
    pairs = rules.pairs_as_one if pairs_as_one is None else pairs_as_one
    state = profile.sidecars.states([image_id]).get(image_id)
    if not os.path.isfile(image.path):  # an attack: write-back made a sidecar beside a deleted photo
        summary.problems.append((image.path, "the photograph is not there: no sidecar written for it"))
        summary.not_written += 1
        return
    if not rules.write and find_sidecar(image.path, pairs) is None:
        summary.problems.append((image.path, "sidecars are off for this profile: none created (`aesthete mark --xmp` writes one)"))
        summary.not_written += 1
        return
    try:
        if state is not None and state.held is not None:
            stars, flag, label = marks_from_sidecar(XmpMarks(*state.held), mark)
        else:  # not recorded (an older profile): as the sidecar holds them now
            stars, flag, label = marks_from_sidecar(read_sidecar(image.path, pairs) or XmpMarks(), mark)
        agreed = MarkRecord(image_id, int(stars or 0), flag, label)  # type: ignore[arg-type]
        write_mark_to_sidecar(profile, image_id, mark, agreed, insist=(), naming=naming, pairs_as_one=pairs)
        summary.written_back += 1
    except (SidecarNotWritten, SidecarWriteError, XmpError, OSError) as error:
        summary.problems.append((image.path, str(error)))
        summary.not_written += 1

