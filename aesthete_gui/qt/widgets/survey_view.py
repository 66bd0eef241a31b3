"""Survey: 2–8 frames (a selection or a burst) side by side at equal size, zoom and pan synchronised,
marks per frame with the usual keys; ←/→ (or a click) choose the frame the keys act on, and past the
edge slide a longer run along. Previews
first; once the user zooms in, the originals are decoded at full resolution (shared with the loupe)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.full_resolution import FullResolutionCache
from aesthete_gui.qt.item_models import ImageListModel
from aesthete_gui.qt.thumbnail_loader import PREVIEW, THUMB
from aesthete_gui.qt.undo import MarkController, marks_for_key
from aesthete_gui.qt.widgets.frame_caption import FrameCaption
from aesthete_gui.qt.widgets.zoom_image_view import ZoomImageView, link_views, subject_centre

MIN_FRAMES, MAX_FRAMES = 2, 8
EMPTY_MESSAGE = "Select 2–8 frames, or a frame of a burst, then open Survey."
GRID_SHAPES = {2: (1, 2), 3: (1, 3), 4: (2, 2), 5: (2, 3), 6: (2, 3), 7: (2, 4), 8: (2, 4)}
"""Rows and columns for each number of frames: every frame gets the same size."""


def frames_around(ids: list[int], active: int | None, limit: int) -> list[int]:
    """At most `limit` of `ids` in order: the first ones, or those ending at `active` when it lies
    further on (the frame the user is on is always among them)."""
    start = ids.index(active) - limit + 1 if active in ids and ids.index(active) >= limit else 0
    return ids[start : start + limit]


class SurveyCell(QFrame):
    """One frame of the survey: its image and a caption with its marks; outlined when active."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("surveyCell")
        self.setFrameShape(QFrame.Shape.Box)
        self.setLineWidth(2)
        self.image_id: int | None = None
        self.path: str | None = None
        self.full_shown = False
        self.view = ZoomImageView(self)
        self.caption = FrameCaption(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)
        self.set_active(False)

    def set_active(self, active: bool) -> None:
        """Outline the frame the keys act on."""
        colour = "#4a90d9" if active else "transparent"
        self.setStyleSheet(f"#surveyCell {{ border: 2px solid {colour}; }}")


class SurveyView(QWidget):
    """Frames side by side; `frames_changed` after `set_frames`, `back_requested` on Escape."""

    back_requested = Signal()
    open_requested = Signal(int)  # Enter: show the active frame in the loupe

    def __init__(
        self,
        context: AppContext,
        model: ImageListModel,
        marks: MarkController,
        parent: QWidget | None = None,
        full_resolution: FullResolutionCache | None = None,
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._model = model
        self._marks = marks
        self.full_resolution = full_resolution or FullResolutionCache(parent=self)
        self._ids: list[int] = []
        self._active = 0
        self.setObjectName("surveyView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.cells = [SurveyCell(self) for _ in range(MAX_FRAMES)]
        link_views([cell.view for cell in self.cells])
        for index, cell in enumerate(self.cells):
            cell.view.clicked.connect(lambda _point, i=index: self.set_active(i))
            cell.view.view_changed.connect(self._zoomed)
        self.full_resolution.loaded.connect(self._full_arrived)
        self._all: list[int] = []
        self._left_out = 0
        self._from_selection = True
        self.message = QLabel(EMPTY_MESSAGE, self)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.grid = QGridLayout()
        self.grid.setSpacing(4)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self.message)
        outer.addLayout(self.grid, 1)
        context.thumbnails.preview_ready.connect(self._preview_arrived)
        marks.applied.connect(self._update_captions)
        # the rows change after a mark too (an undone reject brings the checks' suggestion back when
        # the rows are read again): a trial saw "no stars" where "? suggested reject" belonged
        model.dataChanged.connect(self._rows_changed)
        model.modelReset.connect(self._rows_changed)
        self._show_cells()

    @property
    def image_ids(self) -> list[int]:
        """The frames surveyed, in order."""
        return list(self._ids)

    @property
    def active_id(self) -> int | None:
        """The frame the culling keys act on."""
        return self._ids[self._active] if self._ids else None

    def set_frames(self, ids: list[int], active: int | None = None, selected: bool = True) -> None:
        """Survey `ids` in their order, at most eight at a time: the first eight, or the eight ending at
        `active` when it lies further on (the message above the frames says which; ← and → past the
        edge slide the eight along); `active` is the frame the keys act on first. `selected`: the
        frames are the user's selection (the frames shown stay selected, never the ones left out);
        else they are the burst of the one frame the user was on, and the selection follows the
        outlined frame alone (back in the grid a key must not mark the whole burst the survey showed)."""
        self._from_selection = selected
        self._all = list(dict.fromkeys(ids))
        self._show_window(frames_around(self._all, active, MAX_FRAMES), active)

    def _show_window(self, shown: list[int], active: int | None) -> None:
        """Show these frames (a run of `_all`), `active` outlined."""
        self._ids = shown
        self._left_out = len(self._all) - len(shown)
        self._active = shown.index(active) if active in shown else 0
        self._show_cells()
        for cell, image_id in zip(self.cells, self._ids, strict=False):
            cell.image_id = image_id
            row = self._model.row_for(image_id)
            cell.path = row.path if row is not None and row.status == "ok" else None
            cell.full_shown = False
            cell.view.set_source_width(self._source_width(image_id))
            self._load(cell)
        self._update_captions()
        self.set_active(self._active)

    def step(self, step: int) -> None:
        """Outline the next (+1) or previous (-1) frame; past the edge of the eight shown, the eight
        slide along by one so that every frame of a longer burst or selection can be reached (a trial
        surveyed a 10-frame burst and could never see two of its frames)."""
        if not self._ids:
            return
        if 0 <= self._active + step < len(self._ids):
            self.set_active(self._active + step)
            return
        position = self._all.index(self._ids[self._active]) + step
        if not 0 <= position < len(self._all):
            return
        start = position - len(self._ids) + 1 if step > 0 else position
        self._show_window(self._all[start : start + len(self._ids)], self._all[position])

    def _source_width(self, image_id: int) -> int:
        record = self._context.profile.catalog.image_by_id(image_id)
        return int(record.width or 0) if record is not None else 0

    def _show_cells(self) -> None:
        for cell in self.cells:
            self.grid.removeWidget(cell)
            cell.hide()
        count = len(self._ids)
        left_out = self._left_out
        first = self._all.index(self._ids[0]) + 1 if self._ids else 0
        shown = f"frames {first}–{first + count - 1}; ← and → past the edge bring the others in"
        self.message.setText(EMPTY_MESSAGE if count < MIN_FRAMES else
                             f"{count} of {count + left_out} frames shown ({shown}): the survey compares at most {MAX_FRAMES}."
                             if self._from_selection else
                             f"{count} of this burst's {count + left_out} frames shown ({shown}): the survey compares at "
                             f"most {MAX_FRAMES}; select the frames to compare in the grid.")  # fmt: skip
        self.message.setVisible(count < MIN_FRAMES or left_out > 0)
        if count < MIN_FRAMES:
            return
        rows, columns = GRID_SHAPES[count]
        for index in range(count):
            self.grid.addWidget(self.cells[index], index // columns, index % columns)
            self.cells[index].show()
        for row in range(2):
            self.grid.setRowStretch(row, 1 if row < rows else 0)
        for column in range(4):
            self.grid.setColumnStretch(column, 1 if column < columns else 0)

    def _load(self, cell: SurveyCell) -> None:
        assert cell.image_id is not None
        pixmap = self._context.thumbnails.request_preview(cell.image_id)
        if pixmap is None:
            pixmap = self._context.thumbnails.request(cell.image_id, THUMB)
        if pixmap is not None:
            cell.view.set_image(pixmap.toImage())
        else:
            cell.view.set_image(None)
            cell.view.set_message("Loading…")

    def _zoomed(self, zoom: float, *_centre: float) -> None:
        """Zoomed in: decode the originals, so that 100 % shows their own pixels."""
        if zoom <= 1.0:
            return
        for cell in self.cells[: len(self._ids)]:
            if cell.path and not cell.full_shown:
                image = self.full_resolution.request(cell.path)
                if image is not None:
                    self._show_full(cell, image)

    def _full_arrived(self, path: str, image: QImage) -> None:
        for cell in self.cells[: len(self._ids)]:
            if cell.path == path and not cell.full_shown:
                self._show_full(cell, image)

    @staticmethod
    def _show_full(cell: SurveyCell, image: QImage) -> None:
        cell.full_shown = True  # first: replacing the image re-emits the zoom, which lands here again
        cell.view.set_source_width(image.width())
        cell.view.replace_image(image)  # same zoom and centre: the frames stay in step

    def _preview_arrived(self, image_id: int) -> None:
        for cell in self.cells[: len(self._ids)]:
            if cell.image_id == image_id and not cell.full_shown:
                pixmap = self._context.thumbnails.pixmap(image_id, PREVIEW)
                if pixmap is not None:
                    cell.view.replace_image(pixmap.toImage())

    def set_active(self, index: int) -> None:
        """Make frame `index` the one the keys act on; it becomes the shared current image."""
        if not self._ids:
            return
        self._active = max(0, min(len(self._ids) - 1, index))
        for position, cell in enumerate(self.cells):
            cell.set_active(position == self._active and position < len(self._ids))
        active = self._ids[self._active]
        others = [i for i in self._ids if i != active]
        # back in the grid a key marks the selection: it holds only frames the survey showed (with more
        # than eight selected, frames never shown were marked by the next key: photographer's re-check),
        # and only the outlined one when the survey showed a burst from one frame
        if not self._from_selection:
            self._context.selection.set_image_ids([active])
            return
        self._context.selection.set_image_ids([*others, active])  # the current image is the last

    def toggle_actual_size(self, factor: float = 1.0) -> None:
        """Fit ↔ `factor` × 100 % in every frame (zoom and pan follow the active frame); from fit,
        centred on the active frame's subject as its checks stored it (else its centre): a burst of a
        chandelier showed blank wall in every frame at 100 %."""
        view = self.cells[self._active].view
        if abs(view.actual_zoom() - factor) < 1e-3:
            view.fit()
            view.zoom_by(1.0)  # tell the linked frames
        else:
            view.zoom_to_actual(factor, self._subject_anchor() if view.zoom == 1.0 else None)

    def _subject_anchor(self) -> QPointF:
        """The active frame's subject (fractions of the frame), or its centre when none is stored."""
        active = self.active_id
        subject = subject_centre(self._context.profile.checks.get(active)) if active is not None else None
        return QPointF(*subject) if subject is not None else QPointF(0.5, 0.5)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """←/→ choose the frame, culling keys mark it, Z zooms all, Enter opens it, Escape goes back."""
        key = event.key()
        marks = marks_for_key(key, event.modifiers())
        if marks is not None and self.active_id is not None:
            self._marks.mark([self.active_id], **marks)
        elif key in (Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Tab):
            self.step(1)
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Backtab):
            self.step(-1)
        elif key == Qt.Key.Key_Z and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.toggle_actual_size(2.0 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1.0)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.active_id is not None:
            self.open_requested.emit(self.active_id)
        elif key in (Qt.Key.Key_Escape, Qt.Key.Key_G):
            self.back_requested.emit()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def focusNextPrevChild(self, _next: bool) -> bool:
        """Tab moves between frames, not out of the survey."""
        return False

    def _rows_changed(self, *_args: object) -> None:
        if self.isVisible():  # the grid's rows change often (thumbnails, an import): captions only when shown
            self._update_captions()

    def _update_captions(self, *_args: object) -> None:
        for cell in self.cells[: len(self._ids)]:
            row = self._model.row_for(cell.image_id) if cell.image_id is not None else None
            if row is None:
                cell.caption.set_caption("", [])
                continue
            flag = {"pick": "Pick", "reject": "Rejected"}.get(row.flag or "", "")
            # what the grid's amber "?" and closed-eye badges say: frames are compared here, so the
            # checks' suggestion must show too (the trial's survey showed marks only)
            suggested = "? suggested reject" if row.suggested_reject and not row.flag else ""
            eyes = "eyes closed" if row.eyes_closed else ""
            stars = "★" * row.stars or ("" if flag or row.label or suggested else "no stars")  # short: room for the name
            cell.caption.set_caption(row.name, [stars, flag, suggested, eyes, row.label or ""])
