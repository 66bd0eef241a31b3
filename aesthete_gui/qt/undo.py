"""One undo history for marks and choices across all views (the context's QUndoStack).

Marks: the view changes at once, the profile (and XMP) is written in order by one background
writer, and every change is a QUndoCommand so Ctrl+Z restores the previous marks. A write changes
only the fields the key changed (services.library_marks.mark_image, the same path as the command
line, saying who changed them: the window or an undo), so a field another program changed meanwhile
is never written back with the window's older value. Marks changed elsewhere (the command line, a
sidecar sync, an edit a write found in the sidecar) are read back into the view when the profile
announces them, and after each batch of writes. Undo also puts every sidecar the step wrote back to
its bytes before the step (deleting the sidecars it created), unless another program changed the
sidecar since: then only the marks are taken back in it, its other edits kept, and the status bar
says so. Undo and redo are compare-and-set: a field goes back only where the profile (having taken
in the sidecar's edits) still holds the value the step wrote; a field the command line or another
program changed since keeps its newer value, in the profile, the sidecar and the view, and the
status bar says so in one line. Choices (a Compare key, a Set verdict) are recorded through services/choices.py as a
QUndoCommand on the same stack, so one Ctrl+Z in any view takes back the last mark or choice,
wherever it was made."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QUndoCommand, QUndoStack

from aesthete_gui.services.library_marks import SidecarEdit, SidecarNotWritten
from aesthete_gui.settings import PAIRS_AS_ONE_KEY, as_flag
from aesthete_gui.store.records import MarkSource

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.services.choices import ChoiceBatch

log = logging.getLogger(__name__)

Marks = tuple[int, str | None, str | None]
"""(stars, flag, label) of one image."""

_KEEP = object()


@dataclass(frozen=True)
class MarkChange:
    """One image's marks before and after a culling key."""

    image_id: int
    before: Marks
    after: Marks


MarkWriter = Callable[[int, Mapping[str, Any], MarkSource, list[SidecarEdit] | None, bool, Mapping[str, Any] | None], None]
"""Writes the changed fields (some of stars, flag, label) of one image: (image id, fields, who changed
them, the journal that collects the sidecar bytes before the write for undo, whether the sidecar may
be written, the values the fields must still hold to change (undo, redo; None: change them anyway))."""

FIELDS = ("stars", "flag", "label")


def changed_fields(before: Marks, after: Marks) -> dict[str, Any]:
    """The fields that differ, by name, with their new values."""
    return {name: new for name, old, new in zip(FIELDS, before, after, strict=True) if old != new}


def _held(values: Marks, names: Iterable[str]) -> dict[str, Any]:
    """The values of these fields in `values`."""
    return {name: values[FIELDS.index(name)] for name in names}


def write_mark_with_services(context: AppContext) -> MarkWriter:
    """The writer used by the app: services.library_marks.mark_image (profile + XMP sidecar when
    enabled), the one function the command line's `mark` uses too."""
    from aesthete_gui.services import library_marks

    def write(
        image_id: int,
        fields: Mapping[str, Any],
        source: MarkSource,
        journal: list[SidecarEdit] | None,
        sidecar: bool,
        expected: Mapping[str, Any] | None,
    ) -> None:
        library_marks.mark_image(
            context.profile,
            image_id,
            **fields,
            write_xmp=sidecar and as_flag(context.settings.get("xmp_enabled"), True),
            naming=context.settings.get("xmp_naming") or "auto",
            journal=journal,
            pairs_as_one=as_flag(context.settings.get(PAIRS_AS_ONE_KEY), False),
            source=source,
            expected=expected,
        )

    return write


class _MarkCommand(QUndoCommand):
    def __init__(self, controller: MarkController, changes: list[MarkChange], text: str) -> None:
        super().__init__(text)
        self._controller = controller
        self._changes = changes
        self._journal: list[SidecarEdit] = []  # the sidecar writes of the latest redo
        self._done_once = False

    def redo(self) -> None:
        again = self._done_once  # a later redo comes from Edit ▸ Redo: compare-and-set, like undo
        self._done_once = True
        self._journal = []
        self._controller._apply(self._changes, self._journal, "undo" if again else "window", again)

    def undo(self) -> None:
        self._controller._revert(self._changes, self._journal)


class MarkController(QObject):
    """Sets stars / flags / labels on images; undoable; writes through one ordered background queue."""

    marked = Signal(list)  # image ids this window's step (a mark, its undo or redo) changes, just before `applied`
    applied = Signal(object)  # dict: image id -> Marks, emitted at once in the UI thread
    written = Signal(list)  # image ids whose marks reached the profile (and XMP)
    changed_elsewhere = Signal(object)  # dict: image id -> Marks, changed by another program (after `applied`)
    failed = Signal(str)  # a write failed: the reason, for the status bar
    notice = Signal(str)  # something the user should know about a finished write or undo
    _done = Signal(list, str, str)  # worker -> UI: ids, errors, notice

    def __init__(
        self,
        context: AppContext,
        current: Callable[[int], Marks | None] | None = None,
        writer: MarkWriter | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._current = current
        self._writer = writer or write_mark_with_services(context)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aesthete-marks")
        self._futures: list[Future] = []
        self._pending: Counter[int] = Counter()  # queued writes per image (UI thread only)
        self.undo_stack: QUndoStack = context.undo_stack
        self._done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)
        context.signals.marks_changed.connect(self.reload_marks)

    def marks_of(self, image_id: int) -> Marks:
        """The marks shown for an image now (view state, which leads the background writes)."""
        if self._current is not None:
            marks = self._current(image_id)
            if marks is not None:
                return marks
        record = self._context.profile.marks.get(image_id)
        return (record.stars, record.flag, record.label)

    @Slot(list)
    def reload_marks(self, image_ids: Iterable[int]) -> None:
        """Show the stored marks of these images where they differ from the view (a change made
        elsewhere); images with a write of ours still queued wait for it."""
        ids = [i for i in image_ids if not self._pending[i]]
        if not ids:
            return
        stored = self._context.profile.marks.of(ids)
        fresh = {i: (m.stars, m.flag, m.label) for i, m in stored.items()}
        changed = {i: marks for i, marks in fresh.items() if self.marks_of(i) != marks}
        if changed:
            self.applied.emit(changed)
            self.changed_elsewhere.emit(changed)

    def with_pair_halves(self, image_ids: Iterable[int]) -> list[int]:
        """The images a mark applies to: with "Treat RAW+JPEG pairs as one", each pair's other half too."""
        ids = list(image_ids)
        if not as_flag(self._context.settings.get(PAIRS_AS_ONE_KEY), False):
            return ids
        from aesthete_gui.services.library_marks import pair_partners

        return pair_partners(self._context.profile, ids)

    def mark(
        self,
        image_ids: Iterable[int],
        stars: Any = _KEEP,
        flag: Any = _KEEP,
        label: Any = _KEEP,
        toggle_label: bool = False,
    ) -> None:
        """Change the given marks of the images as one undoable step (toggle_label clears a same label)."""
        changes = []
        for image_id in self.with_pair_halves(image_ids):
            before = self.marks_of(image_id)
            new_label = before[2] if label is _KEEP else label
            if toggle_label and label is not _KEEP and before[2] == label:
                new_label = None
            after = (
                before[0] if stars is _KEEP else int(stars),
                before[1] if flag is _KEEP else flag,
                new_label,
            )
            if after != before:
                changes.append(MarkChange(image_id, before, after))
        if changes:
            self.undo_stack.push(_MarkCommand(self, changes, _describe(stars, flag, label, len(changes))))

    def wait_written(self, timeout: float = 10.0) -> None:
        """Block until queued writes finished (tests and shutdown only; never from a view)."""
        wait(list(self._futures), timeout=timeout)

    def close(self) -> None:
        """Finish queued writes, then stop the writer thread."""
        self._executor.shutdown(wait=True)

    def _submit(self, job: Callable[[], None]) -> None:
        future = self._executor.submit(job)
        self._futures = [f for f in self._futures if not f.done()] + [future]

    def _apply(self, changes: list[MarkChange], journal: list[SidecarEdit], source: MarkSource, again: bool = False) -> None:
        """Show `after` at once, then write, in the background, the fields that differ from `before`
        (`again`, a redo: only where they still hold `before`)."""
        self._pending.update(c.image_id for c in changes)
        self.marked.emit([c.image_id for c in changes])
        self.applied.emit({c.image_id: c.after for c in changes})
        items = [_item(c.image_id, c.before, c.after, again) for c in changes]
        finish = self._redo_notice if again else None
        self._submit(lambda: self._write_all(items, source, journal, {c.image_id for c in changes}, finish))

    def _revert(self, changes: list[MarkChange], journal: list[SidecarEdit]) -> None:
        """Show `before` at once, then put the sidecars back and write the fields back where they still
        hold `after`, in the background."""
        self._pending.update(c.image_id for c in changes)
        self.marked.emit([c.image_id for c in changes])
        self.applied.emit({c.image_id: c.before for c in changes})
        items = [_item(c.image_id, c.after, c.before, True) for c in changes]
        self._submit(lambda: self._undo_all(items, list(journal)))

    def _write_all(self, items: list[_Item], source: MarkSource, journal: list[SidecarEdit] | None,
                   sidecar_ids: set[int], finish: Callable[[list[_Item]], str] | None = None) -> None:  # fmt: skip
        """Write each image's fields, then `finish` (on this thread), whose answer goes to the status bar."""
        errors = []
        for image_id, fields, expected in items:
            try:
                self._writer(image_id, fields, source, journal, image_id in sidecar_ids, expected)
            except SidecarNotWritten as exc:  # the mark is in the profile; only the sidecar is not
                errors.append(f"mark saved in the profile; {exc}")
            except Exception as exc:  # one failing image must not lose the other marks
                log.warning("writing marks of image %s failed: %s", image_id, exc)
                errors.append(f"could not save the mark of image {image_id}: {exc}")
        notice = ""
        if finish is not None:
            try:
                notice = finish(items)
            except Exception as exc:  # the marks are written; only the notice is lost
                log.warning("after the marks were written: %s", exc)
        self._done.emit([i for i, _, _ in items], "; ".join(errors), notice)

    def _left_elsewhere(self, items: list[_Item]) -> set[int]:
        """The images where a field the step meant to change holds another writer's newer value."""
        from aesthete_gui.store.records import comparable

        stored = self._context.profile.marks.of(i for i, _, _ in items)
        return {
            image_id
            for image_id, fields, _ in items
            if any(comparable(name, getattr(stored[image_id], name)) != comparable(name, value)
                   for name, value in fields.items())
        }  # fmt: skip

    def _undo_all(self, items: list[_Item], journal: list[SidecarEdit]) -> None:
        """Undo on the writer thread: sidecars back to their bytes, then the marks in the profile
        where they still hold what the step wrote."""
        from aesthete_gui.services.library_marks import undo_sidecar_edits

        restored, changed = undo_sidecar_edits(self._context.profile, journal) if journal else (set(), set())

        def finish(written: list[_Item]) -> str:
            left = self._left_elsewhere(written)
            self._sidecars_agree(left & restored)
            notice = _left_notice("Undo", len(left)) if left else ""
            others = len(changed - left)
            if others:
                notice = "; ".join(filter(None, [notice,
                    f"{others} sidecar{'s were' if others > 1 else ' was'} changed by another program since "
                    "the mark: only the marks were taken back there, its other edits kept"]))  # fmt: skip
            return notice

        self._write_all(items, "undo", None, {i for i, _, _ in items if i not in restored}, finish)

    def _redo_notice(self, items: list[_Item]) -> str:
        left = self._left_elsewhere(items)
        return _left_notice("Redo", len(left)) if left else ""

    def _sidecars_agree(self, image_ids: set[int]) -> None:
        """Write the profile's marks into sidecars the undo put back to their old bytes, for the images
        whose newer marks from elsewhere stayed in the profile (a `mark --no-xmp`, say)."""
        if not image_ids or not as_flag(self._context.settings.get("xmp_enabled"), True):
            return
        from aesthete_gui.services.library_marks import write_mark_to_sidecar

        for image_id in sorted(image_ids):
            mark = self._context.profile.marks.get(image_id)
            try:
                write_mark_to_sidecar(self._context.profile, image_id, mark, mark, insist=FIELDS,
                                      naming=self._context.settings.get("xmp_naming") or "auto",
                                      pairs_as_one=as_flag(self._context.settings.get(PAIRS_AS_ONE_KEY), False))  # fmt: skip
            except Exception as exc:  # the profile holds the marks; the next sync writes them
                log.warning("sidecar of image %s not brought back in line after undo: %s", image_id, exc)

    @Slot(list, str, str)
    def _on_done(self, image_ids: list, error: str, notice: str) -> None:
        self._pending.subtract(image_ids)
        self._pending = +self._pending  # drop the images with nothing queued
        if error:
            self.failed.emit(error)
        if notice:
            self.notice.emit(notice)
        # fields changed elsewhere while the write waited, or found in the sidecar by the write, show now
        self.reload_marks(image_ids)
        self.written.emit(image_ids)  # the profile announced each mark (signals.marks_changed)


class _ChoiceCommand(QUndoCommand):
    """Choices recorded together; undo removes them, redo records them again (new ids)."""

    def __init__(
        self,
        context: AppContext,
        batch: ChoiceBatch,
        text: str,
        on_undo: Callable[[], None] | None,
        on_redo: Callable[[list[int]], None] | None,
    ) -> None:
        super().__init__(text)
        self._context = context
        self._batch = batch
        self._on_undo = on_undo
        self._on_redo = on_redo
        self.choice_ids: list[int] = []
        self._done_once = False

    def redo(self) -> None:
        from aesthete_gui.services.choices import add_choices

        self.choice_ids = add_choices(self._context.profile, self._batch)
        if self._done_once and self._on_redo is not None:
            self._on_redo(self.choice_ids)
        self._done_once = True

    def undo(self) -> None:
        from aesthete_gui.services.choices import remove_choices

        remove_choices(self._context.profile, self.choice_ids)
        if self._on_undo is not None:
            self._on_undo()


def record_choices(
    context: AppContext,
    batch: ChoiceBatch,
    text: str,
    on_undo: Callable[[], None] | None = None,
    on_redo: Callable[[list[int]], None] | None = None,
) -> list[int]:
    """Record choices through the service as one step on the shared undo stack; their ids.

    `on_undo` runs after Ctrl+Z removed them (e.g. show that pair again), `on_redo` after a redo
    recorded them again, whichever view is on screen then.
    """
    command = _ChoiceCommand(context, batch, text, on_undo, on_redo)
    context.undo_stack.push(command)  # push runs redo(): the choices are written now
    return list(command.choice_ids)


_Item = tuple[int, dict[str, Any], dict[str, Any] | None]
"""One image's write: (image id, the fields to set, the values they must still hold, or None)."""


def _item(image_id: int, start: Marks, end: Marks, guarded: bool) -> _Item:
    """The write that takes an image's marks from `start` to `end` (compare-and-set when `guarded`)."""
    fields = changed_fields(start, end)
    return image_id, fields, (_held(start, fields) if guarded else None)


def _left_notice(step: str, count: int) -> str:
    """The status-bar line for marks an undo or redo left because they were changed elsewhere."""
    what = f"the marks of {count} images as they are: they were" if count > 1 else "1 mark as it is: it was"
    return f"{step} left {what} changed elsewhere since (the command line or another program)"


def _describe(stars: Any, flag: Any, label: Any, count: int) -> str:
    what = []
    if stars is not _KEEP:
        what.append(f"{stars} stars" if stars else "no stars")
    if flag is not _KEEP:
        what.append({"pick": "pick", "reject": "reject"}.get(flag or "", "unflag"))
    if label is not _KEEP:
        what.append(f"label {label}" if label else "no label")
    suffix = f" on {count} images" if count > 1 else ""
    return "Mark " + ", ".join(what) + suffix


LABEL_KEYS: dict[int, str] = {
    Qt.Key.Key_6: "Red",
    Qt.Key.Key_7: "Yellow",
    Qt.Key.Key_8: "Green",
    Qt.Key.Key_9: "Blue",
}
STAR_KEYS: dict[int, int] = {getattr(Qt.Key, f"Key_{n}"): n for n in range(6)}


def marks_for_key(key: int, modifiers: Qt.KeyboardModifier) -> dict[str, Any] | None:
    """The `MarkController.mark` arguments for a Lightroom culling key, or None for other keys."""
    if modifiers & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
        return None
    if key in STAR_KEYS:
        return {"stars": STAR_KEYS[key]}
    if key in LABEL_KEYS:
        return {"label": LABEL_KEYS[key], "toggle_label": True}
    if key == Qt.Key.Key_P:
        return {"flag": "pick"}
    if key == Qt.Key.Key_X:
        return {"flag": "reject"}
    if key == Qt.Key.Key_U:
        return {"flag": None}
    return None
