"""Acting on suggested rejects: accept all in view (they become rejects) or dismiss some; undoable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.item_models import ImageListModel
    from aesthete_gui.qt.undo import MarkController


def suggested_in_view(model: ImageListModel) -> list[int]:
    """Ids of the shown images that are suggested rejects, in view order."""
    rows = (model.row_for(i) for i in model.visible_ids())
    return [row.image_id for row in rows if row is not None and row.suggested_reject]


def accept_suggestions_in_view(model: ImageListModel, marks: MarkController) -> int:
    """Flag every suggested reject in view as rejected, as one undoable step; return how many."""
    ids = suggested_in_view(model)
    if ids:
        marks.mark(ids, flag="reject")
    return len(ids)


class _DismissCommand(QUndoCommand):
    def __init__(self, context: AppContext, image_ids: list[int]) -> None:
        count = len(image_ids)
        super().__init__(f"Dismiss {count} suggested reject{'s' if count > 1 else ''}")
        self._context = context
        self._ids = image_ids

    def redo(self) -> None:
        self._context.profile.dismiss_suggestions(self._ids)
        self._context.signals.marks_changed.emit(list(self._ids))

    def undo(self) -> None:
        self._context.profile.restore_suggestions(self._ids)
        self._context.signals.marks_changed.emit(list(self._ids))


def dismiss_suggestions(context: AppContext, model: ImageListModel, marks: MarkController, image_ids: Sequence[int]) -> int:
    """Stop suggesting the given images as rejects (their marks stay); undoable; return how many."""
    ids = [i for i in image_ids if (row := model.row_for(i)) is not None and row.suggested_reject]
    if ids:
        marks.undo_stack.push(_DismissCommand(context, ids))
    return len(ids)
