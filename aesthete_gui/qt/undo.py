"""One undo history for marks and choices across all views (the context's QUndoStack).

Marks: the view changes at once, the profile (and XMP) is written in order by one background
writer, and every change is a QUndoCommand so Ctrl+Z restores the previous marks. Only the fields
a key changed are written, so a field another program changed meanwhile is never written back with
the window's older value; marks changed elsewhere (the command line, a sidecar sync) are read back
into the view when the profile announces them. Choices (a
Compare key, a Set verdict) are recorded through services/choices.py as a QUndoCommand on the same
stack, so one Ctrl+Z in any view takes back the last mark or choice, wherever it was made."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QUndoCommand, QUndoStack

from aesthete_gui.services.library_marks import SidecarNotWritten

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


MarkWriter = Callable[[int, Mapping[str, Any], str], None]
"""Writes the changed fields (some of stars, flag, label) of one image, saying who changed them."""

FIELDS = ("stars", "flag", "label")


def changed_fields(before: Marks, after: Marks) -> dict[str, Any]:
    """The fields that differ, by name, with their new values."""
    return {name: new for name, old, new in zip(FIELDS, before, after, strict=True) if old != new}


def write_mark_with_services(context: AppContext) -> MarkWriter:
    """The writer used by the app: services.library.mark_image (profile + XMP sidecar when enabled)."""
    from aesthete_gui.services import library

    def write(image_id: int, fields: Mapping[str, Any], source: str) -> None:
        library.mark_image(
            context.profile,
            image_id,
            **fields,
            write_xmp=bool(context.settings.get("xmp_enabled", True)),
            naming=context.settings.get("xmp_naming") or "auto",
            source=source,  # type: ignore[arg-type]
        )

    return write


class _MarkCommand(QUndoCommand):
    def __init__(self, controller: MarkController, changes: list[MarkChange], text: str) -> None:
        super().__init__(text)
        self._controller = controller
        self._changes = changes
        self._done_once = False

    def redo(self) -> None:
        source = "undo" if self._done_once else "window"  # a later redo comes from Edit ▸ Redo
        self._done_once = True
        self._controller._apply([(c.image_id, c.before, c.after) for c in self._changes], source)

    def undo(self) -> None:
        self._controller._apply([(c.image_id, c.after, c.before) for c in self._changes], "undo")


class MarkController(QObject):
    """Sets stars / flags / labels on images; undoable; writes through one ordered background queue."""

    applied = Signal(object)  # dict: image id -> Marks, emitted at once in the UI thread
    written = Signal(list)  # image ids whose marks reached the profile (and XMP)
    failed = Signal(str)  # a write failed: the reason, for the status bar
    _done = Signal(list, str)  # worker -> UI

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
        for image_id in image_ids:
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

    def _apply(self, changes: list[tuple[int, Marks, Marks]], source: str) -> None:
        """Show `after` at once, then write, in the background, the fields that differ from `before`."""
        self.applied.emit({image_id: after for image_id, _, after in changes})
        items = [(image_id, changed_fields(before, after)) for image_id, before, after in changes]
        self._pending.update(image_id for image_id, _ in items)
        future = self._executor.submit(self._write_all, items, source)
        self._futures = [f for f in self._futures if not f.done()] + [future]

    def _write_all(self, items: list[tuple[int, dict[str, Any]]], source: str) -> None:
        errors = []
        for image_id, fields in items:
            try:
                self._writer(image_id, fields, source)
            except SidecarNotWritten as exc:  # the mark is in the profile; only the sidecar is not
                errors.append(f"mark saved in the profile; {exc}")
            except Exception as exc:  # one failing image must not lose the other marks
                log.warning("writing marks of image %s failed: %s", image_id, exc)
                errors.append(f"could not save the mark of image {image_id}: {exc}")
        self._done.emit([i for i, _ in items], "; ".join(errors))

    @Slot(list, str)
    def _on_done(self, image_ids: list, error: str) -> None:
        self._pending.subtract(image_ids)
        self._pending = +self._pending  # drop the images with nothing queued
        if error:
            self.failed.emit(error)
        self.reload_marks(image_ids)  # fields changed elsewhere while the write waited show now
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
