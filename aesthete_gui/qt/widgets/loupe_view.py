"""The loupe: one image large (zoom with the wheel, double click for detail), arrows step through the
grid's order, culling keys work as in the grid."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.item_models import ImageListModel
from aesthete_gui.qt.thumbnail_loader import PREVIEW, THUMB
from aesthete_gui.qt.undo import MarkController, marks_for_key
from aesthete_gui.qt.widgets.zoom_image_view import ZoomImageView

EYE_COLOURS: dict[str | None, str] = {"open": "#58c25b", "closed": "#e0574f", "unknown": "#e0a030"}
"""Face box outline in the loupe by eye state."""


class LoupeView(QWidget):
    """Shows the current image's 1024 px preview (its thumbnail until the preview arrives)."""

    back_requested = Signal()
    current_changed = Signal(int)

    def __init__(
        self,
        context: AppContext,
        model: ImageListModel,
        marks: MarkController,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._model = model
        self._marks = marks
        self._image_id: int | None = None
        self._faces: list[dict] = []
        self.setObjectName("loupeView")
        self.view = ZoomImageView(self)
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.caption = QLabel(self)
        self.caption.setObjectName("loupeCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        context.thumbnails.preview_ready.connect(self._preview_arrived)
        context.thumbnails.ready.connect(self._thumbnail_arrived)
        marks.applied.connect(self._update_caption)
        context.selection.changed.connect(self._selection_changed)

    @property
    def image_id(self) -> int | None:
        """The image shown."""
        return self._image_id

    def show_image(self, image_id: int | None) -> None:
        """Show `image_id` (preview when cached, else its thumbnail while the preview loads)."""
        self._image_id = image_id
        self._faces = self._stored_faces(image_id)
        self.view.set_boxes([(tuple(f["box"]), EYE_COLOURS.get(f.get("eyes"), EYE_COLOURS["unknown"])) for f in self._faces])
        if image_id is None:
            self.view.set_image(None)
            self.view.set_message("No image selected")
            self._update_caption()
            return
        preview = self._context.thumbnails.request_preview(image_id)
        if preview is not None:
            self.view.set_image(preview.toImage())
        else:
            thumb = self._context.thumbnails.request(image_id, THUMB)
            if thumb is not None:
                self.view.set_image(thumb.toImage())
            else:
                self.view.set_image(None)
                self.view.set_message("Loading…")
        self._update_caption()
        self.current_changed.emit(image_id)

    def step(self, offset: int) -> None:
        """Show the next (+1) or previous (−1) image in grid order and select it."""
        ids = self._model.visible_ids()
        if not ids:
            return
        position = self._model.position_of(self._image_id) if self._image_id is not None else None
        target = 0 if position is None else max(0, min(len(ids) - 1, position + offset))
        self._context.selection.set_image_ids([ids[target]])
        self.show_image(ids[target])

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Arrows step, Escape / G go back to the grid, culling keys mark the image shown."""
        key = event.key()
        marks = marks_for_key(key, event.modifiers())
        if marks is not None and self._image_id is not None:
            self._marks.mark([self._image_id], **marks)
        elif key in (Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Space):
            self.step(+1)
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Backspace):
            self.step(-1)
        elif key in (Qt.Key.Key_Escape, Qt.Key.Key_G, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.back_requested.emit()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.view.zoom_by(1.25)
        elif key == Qt.Key.Key_Minus:
            self.view.zoom_by(0.8)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def _selection_changed(self, ids: list) -> None:
        if self.isVisible() and ids and ids[-1] != self._image_id:
            self.show_image(ids[-1])

    def _preview_arrived(self, image_id: int) -> None:
        if image_id == self._image_id:
            pixmap = self._context.thumbnails.pixmap(image_id, PREVIEW)
            if pixmap is not None:
                self.view.set_image(pixmap.toImage())

    def _thumbnail_arrived(self, image_id: int) -> None:
        if image_id == self._image_id and not self.view.has_image():
            pixmap = self._context.thumbnails.pixmap(image_id, THUMB)
            if pixmap is not None:
                self.view.set_image(pixmap.toImage())

    def _stored_faces(self, image_id: int | None) -> list[dict]:
        """The faces import found (one small row read)."""
        stored = self._context.profile.stored_checks(image_id) if image_id is not None else None
        return [f for f in (stored[1] if stored else []) if len(f.get("box") or ()) == 4]

    def _update_caption(self, *_args: object) -> None:
        row = self._model.row_for(self._image_id) if self._image_id is not None else None
        if row is None:
            self.caption.setText("")
            return
        position = self._model.position_of(row.image_id)
        place = f"{position + 1} of {self._model.rowCount()}" if position is not None else ""
        flag = {"pick": "Pick", "reject": "Rejected"}.get(row.flag or "", "")
        faces = self._faces
        eyes = ", ".join(f"eyes {f.get('eyes', 'unknown')}" for f in faces)
        faces_text = f"{len(faces)} face{'s' if len(faces) > 1 else ''} ({eyes})" if faces else ""
        suggested = "Suggested reject" if row.suggested_reject else ""
        parts = [row.name, place, "★" * row.stars or "no stars", flag, suggested, row.label or "", faces_text]
        self.caption.setText("   ·   ".join(p for p in parts if p))
