"""Culling actions: accept or dismiss suggested rejects, mark whole bursts, keep the best of each
burst (all undoable), and copy picks to a folder as a job."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QUndoCommand

from aesthete_gui.services import library_checks

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.grid_rows import ImageRow
    from aesthete_gui.qt.item_models import ImageListModel
    from aesthete_gui.qt.undo import MarkController
    from aesthete_gui.store import Profile


def suggested_in_view(model: ImageListModel) -> list[int]:
    """Ids of the shown images that are suggested rejects, in view order, with the frames a collapsed
    burst's tile stands for (those the filter lets through): a trial's Ctrl+Shift+X left the 27
    suggestions behind burst covers alone, without a word."""
    out: dict[int, None] = {}
    for image_id in model.visible_ids():
        row = model.row_for(image_id)
        if row is None:
            continue
        frames = model.burst_frames(row.burst_id) if row.burst_id is not None and model.burst_size(row.burst_id) > 0 else [image_id]
        for frame in frames:
            shown = model.row_for(frame)
            # the flag check covers a row a mark made elsewhere (the command line) reaches only with the
            # next reload; the window's own marks clear the suggestion at once (update_marks)
            if shown is not None and shown.suggested_reject and shown.flag is None:
                out[frame] = None
    return list(out)


def accept_suggestions_in_view(model: ImageListModel, marks: MarkController) -> tuple[int, int]:
    """Flag every suggested reject in view as rejected (collapsed bursts' frames included), as one
    undoable step; (how many, how many of them hidden in collapsed bursts)."""
    ids = suggested_in_view(model)
    if ids:
        marks.mark(ids, flag="reject")
    visible = set(model.visible_ids())
    return len(ids), sum(1 for i in ids if i not in visible)


def accepted_note(count: int, hidden: int) -> str:
    """The status line after accepting suggested rejects."""
    if not count:
        return "No suggested reject in view."
    behind = f" ({hidden} hidden in collapsed bursts)" if hidden else ""
    return f"Rejected {count} suggested frame{'s' if count != 1 else ''}{behind}. Ctrl+Z undoes."


class _DismissCommand(QUndoCommand):
    def __init__(self, context: AppContext, model: ImageListModel, image_ids: list[int]) -> None:
        count = len(image_ids)
        super().__init__(f"Dismiss {count} suggested reject{'s' if count > 1 else ''}")
        self._context = context
        self._model = model
        self._ids = image_ids

    def redo(self) -> None:
        self._model.keep_listed(self._ids)  # dealt with: listed under "Suggested rejects" until the filter changes
        library_checks.dismiss_suggestions(self._context.profile, self._ids)
        # the rows read again at once: a trial's Ctrl+Shift+U changed the profile while the grid kept
        # its "?" badges, its filter and its count until later marks from the command line
        self._model.refresh_check_states(self._ids)

    def undo(self) -> None:
        library_checks.restore_suggestions(self._context.profile, self._ids)
        self._model.refresh_check_states(self._ids)


def dismiss_suggestions(context: AppContext, model: ImageListModel, marks: MarkController, image_ids: Sequence[int]) -> int:
    """Stop suggesting the given images as rejects (their marks stay); undoable; return how many."""
    ids = [i for i in image_ids if (row := model.row_for(i)) is not None and row.suggested_reject]
    if ids:
        marks.undo_stack.push(_DismissCommand(context, model, ids))
    return len(ids)


def dismissed_note(count: int) -> str:
    """The status line after dismissing suggested rejects."""
    if not count:
        return "No suggested reject selected."
    return f"Dismissed {count} suggested reject{'s' if count != 1 else ''}: no longer suggested (your marks unchanged). Ctrl+Z undoes."


BURST_MARKS_SETTING = "burst_marks_all_frames"
"""Setting: a mark on a collapsed burst applies to the frame shown only (False, the default, as in
Lightroom and Bridge) or to every frame of the burst that passes the filter (True)."""


def expand_to_bursts(model: ImageListModel, image_ids: Sequence[int], all_frames: bool = False) -> list[int]:
    """The images a mark on `image_ids` applies to: what is selected; with `all_frames`, also the
    other frames of each collapsed burst selected that pass the filter (never a filtered-out one)."""
    if not all_frames:
        return list(image_ids)
    out: dict[int, None] = {}  # ordered and duplicate-free
    for image_id in image_ids:
        row = model.row_for(image_id)
        if row is not None and row.burst_id is not None and model.burst_size(row.burst_id) > 0:
            out.update(dict.fromkeys(model.burst_frames(row.burst_id)))
        out[image_id] = None
    return list(out)


def selection_note(selected: int, marked: int, covers: int = 0, all_frames: bool = False, target: str = "") -> str:
    """The status bar's "N selected", with what a key marks when that is not simply those N:
    `marked` frames a key reaches in the view shown, `covers` of them collapsed bursts' covers (in
    the grid), `target` naming the one frame a key marks in the survey or the loupe."""
    text = f"{selected:,} selected"
    plural = "s" if covers != 1 else ""
    if covers and all_frames:
        return f"{text} ({covers:,} burst{plural}; marks go to all {marked:,} frames)"
    if covers and marked == selected:
        return f"{text} ({covers:,} burst cover{plural}; marks go to the shown frame{'s' if marked != 1 else ''})"
    if covers:
        what = "a burst cover" if covers == 1 else f"{covers:,} burst covers"
        return f"{text} (keys mark the {marked:,} shown: {what})"
    if marked != selected:
        return f"{text} (keys mark {target or f'the {marked:,} shown'})"
    return text


@dataclass(frozen=True)
class BurstToThin:
    """One burst as "keep the best" would leave it: the frames kept and those it would reject. A
    RAW+JPEG pair is one frame, shown by its JPEG (or HEIF); `partners` holds the other halves."""

    burst_id: int
    kept: list[ImageRow]  # the best frame first, then frames the user marked (those already rejected left out)
    rejected: list[ImageRow]
    partners: dict[int, list[ImageRow]] = field(default_factory=dict)
    pairs_as_one: bool = False
    """A rejected pair's other half is rejected too (the setting "Treat RAW+JPEG pairs as one");
    otherwise only the half shown is, and the other stays as it is."""

    def rejected_ids(self) -> list[int]:
        """What a confirmation rejects: each rejected frame shown, and its other half when pairs are one."""
        out = []
        for row in self.rejected:
            out.append(row.image_id)
            if self.pairs_as_one:
                out += [p.image_id for p in self.partners.get(row.image_id, [])]
        return out


def thin_bursts(rows: Sequence[ImageRow], pairs_as_one: bool = False) -> list[BurstToThin]:
    """What keeping the best of each burst does, burst by burst (in capture order): every frame but
    the best is rejected, never a frame the user already judged (a flag, stars or a colour label:
    a five-star frame is not thrown away) nor a frame of a bracket, panorama or focus stack (its
    frames are used together). A frame the user picked is the best of its burst: the technically
    best frame goes with the rest unless the user marked it too. The halves of a RAW+JPEG pair are one frame: kept together when
    either is the best or was judged, rejected together only when `pairs_as_one`."""
    from aesthete_gui.imaging.photo_units import exposures
    from aesthete_gui.qt.grid_rows import best_of_burst, burst_cover, judged_by_user, marked_by_user

    by_burst: dict[int, list[ImageRow]] = {}
    for row in sorted(rows, key=lambda r: (r.capture_time or "", r.sort_name)):
        if row.burst_id is not None and row.status == "ok":
            by_burst.setdefault(row.burst_id, []).append(row)
    out = []
    for burst_id, group in by_burst.items():
        by_path = {r.path: r for r in group}
        frames = [[by_path[p] for p in paths] for paths in exposures(list(by_path))]
        # the user's pick over the checks' choice (a trial kept both an over-exposed "best" and the pick)
        best = burst_cover(group) if any(r.flag == "pick" for r in group) else best_of_burst(group)
        kept: list[ImageRow] = []
        rejected: list[ImageRow] = []
        partners: dict[int, list[ImageRow]] = {}
        for frame in frames:
            shown = frame[0]
            if len(frame) > 1:
                partners[shown.image_id] = frame[1:]
            if best in frame:
                kept.insert(0, shown)
            elif any(marked_by_user(r) or r.set_kind for r in frame):
                kept.append(shown)
            elif not any(judged_by_user(r) or r.set_kind for r in frame):
                rejected.append(shown)
        if rejected:
            out.append(BurstToThin(burst_id, kept, rejected, partners, pairs_as_one))
    return out


def rest_of_bursts(rows: Sequence[ImageRow], pairs_as_one: bool = False) -> list[int]:
    """Frames to reject when keeping the best of each burst (thin_bursts), as ids."""
    return [i for burst in thin_bursts(rows, pairs_as_one) for i in burst.rejected_ids()]


def copy_files_job(
    profile: Profile, image_ids: Sequence[int], destination: str, move: bool = False, progress: Any = None, cancel: Any = None
) -> Any:
    """Job: copy (or move) images with their sidecars (services.export_picks); returns CopiedPicks.
    Moved photographs stay in the library: a destination outside the imported folders becomes one,
    so the library panel lists where they went."""
    from aesthete_gui.services.export_picks import export_picks

    return export_picks(profile, image_ids, destination, move=move, progress=progress, cancel=cancel)


def describe_copy(result: Any, move: bool = False) -> str:
    """One status-bar line about a finished copy or move."""
    from aesthete_gui.services.export_picks import photographs

    verb = "Moved" if move else "Copied"
    text = f"{verb} {photographs(len(result.copied))} to {result.destination}"
    if getattr(result, "already_there", None):
        text += f"; {len(result.already_there)} already there with the same bytes"
    if result.skipped:
        reasons = sorted({reason for _, reason in result.skipped})
        text += f"; {len(result.skipped)} skipped ({'; '.join(reasons[:2])}{'; …' if len(reasons) > 2 else ''})"
    if getattr(result, "left_behind", None):
        text += f"; {len(result.left_behind)} originals could not be removed (copied, still in place)"
    return text + (" (cancelled)" if result.cancelled else "")
