"""The loupe: one image large. The cached preview shows at once and is replaced by the original decoded
at full resolution off the UI thread; Z (at the subject) / a click toggle fit ↔ 100 % (Shift+Z 200 %),
E toggles focus peaking, an RGB histogram shows clipping; arrows step through the grid's order (the
next frame is decoded ahead), culling keys work as in the grid. The next frame is shown as the last
one was: fit stays fit, 100 % stays 100 % of its own original, at the same place."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolTip, QVBoxLayout, QWidget

from aesthete_gui.imaging.loupe_analysis import Histogram
from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.full_resolution import FullResolutionCache
from aesthete_gui.qt.item_models import ImageListModel
from aesthete_gui.qt.thumbnail_loader import PREVIEW, THUMB
from aesthete_gui.qt.undo import MarkController, marks_for_key
from aesthete_gui.qt.widgets.frame_caption import wrapped_tip
from aesthete_gui.qt.widgets.histogram_widget import HistogramWidget
from aesthete_gui.qt.widgets.zoom_image_view import ViewState, ZoomImageView, subject_centre

EYE_COLOURS: dict[str | None, str] = {"open": "#58c25b", "closed": "#e0574f", "unknown": "#e0a030"}
"""Face box outline in the loupe by eye state."""
PREVIEW_KEY = "preview:"


class LoupeView(QWidget):
    """Shows the current image: preview (or thumbnail) first, then the full-resolution original."""

    back_requested = Signal()
    current_changed = Signal(int)
    full_resolution_shown = Signal(int)  # image id whose original pixels are now on screen

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
        self._image_id: int | None = None
        self._faces: list[dict] = []
        self._path: str | None = None
        self._full_shown = False
        self._peaking = False
        self._direction = +1
        self._carried = ViewState()  # how the last frame was shown: the next one is shown so
        self.full_resolution = full_resolution or FullResolutionCache(parent=self)
        self.setObjectName("loupeView")
        self.view = ZoomImageView(self)
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.caption = QLabel(self)
        self.caption.setObjectName("loupeCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.zoom_label = QLabel(self)
        self.zoom_label.setObjectName("loupeZoom")
        self.histogram = HistogramWidget(self)
        # a long caption is cut at its own edge, whole in its tooltip, never run into the zoom (a trial
        # read "1 face100%")
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bottom = QHBoxLayout()
        bottom.setContentsMargins(6, 2, 6, 2)
        bottom.setSpacing(16)
        bottom.addWidget(self.caption, 1)
        bottom.addWidget(self.zoom_label)
        bottom.addWidget(self.histogram)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        context.thumbnails.preview_ready.connect(self._preview_arrived)
        context.thumbnails.ready.connect(self._thumbnail_arrived)
        marks.applied.connect(self._update_caption)
        context.selection.changed.connect(self._selection_changed)
        self.view.clicked.connect(self._clicked)
        self.view.view_changed.connect(self._update_zoom_label)
        self.full_resolution.loaded.connect(self._full_arrived)
        self.full_resolution.histogram_ready.connect(self._histogram_arrived)
        self.full_resolution.peaking_ready.connect(self._peaking_arrived)

    @property
    def image_id(self) -> int | None:
        """The image shown."""
        return self._image_id

    @property
    def showing_full_resolution(self) -> bool:
        """True once the original's pixels (not the preview) are on screen."""
        return self._full_shown

    @property
    def peaking(self) -> bool:
        """True while focus peaking is painted over the image."""
        return self._peaking

    def show_image(self, image_id: int | None) -> None:
        """Show `image_id`: from memory at full resolution, else its preview while the original decodes."""
        if image_id == self._image_id and image_id is not None and self.view.has_image():
            return
        if self.view.has_image():
            self._carried = self.view.view_state()  # kept through a message ("Loading…") in between
        self._image_id = image_id
        self._faces = self._stored_faces(image_id)
        self.view.set_boxes([(tuple(f["box"]), EYE_COLOURS.get(f.get("eyes"), EYE_COLOURS["unknown"])) for f in self._faces])
        self._full_shown = False
        self.histogram.set_histogram(None)
        row = self._model.row_for(image_id) if image_id is not None else None
        self._path = row.path if row is not None and row.status == "ok" else None
        if image_id is None or (row is not None and row.status != "ok"):
            self.view.set_image(None)
            if image_id is None or row is None:
                self.view.set_message("No image selected")
            else:  # a file import could not read: say why instead of waiting for a preview
                self.view.set_message(f"Cannot show this file: {row.error or row.status}")
            self._update_caption()
            if image_id is not None:
                self.current_changed.emit(image_id)
            return
        self.view.set_source_width(self._source_width(image_id))
        self.full_resolution.drop_queued({self._path} if self._path else set())  # frames passed by
        full = self.full_resolution.request(self._path) if self._path else None
        if full is not None:
            self._show_full(full, new=True)
        else:
            preview = self._context.thumbnails.request_preview(image_id)
            if preview is None:
                preview = self._context.thumbnails.request(image_id, THUMB)
            if preview is not None:
                self._show_preview(preview.toImage(), new=True)
            else:
                self.view.set_image(None)
                self.view.set_message("Loading…")
        self._read_ahead()
        self._update_caption()
        self._update_zoom_label()
        self.current_changed.emit(image_id)

    def _source_width(self, image_id: int) -> int:
        record = self._context.profile.catalog.image_by_id(image_id)
        return int(record.width or 0) if record is not None else 0

    def _display(self, image: QImage, new: bool) -> None:
        """Put `image` on screen. A frame new to the view is shown as the last one was (`_carried`):
        fit stays fit and 100 % stays 100 % of this frame's own original (kept as a scale relative
        to fit, a 100 % view once opened a smaller frame at 129 %), at the same centre. Another copy
        of the frame on screen (thumbnail, preview, original) keeps the zoom and centre: nothing jumps."""
        if new or not self.view.has_image():
            self.view.set_image(image)
            self.view.restore_view_state(self._carried)
        else:
            self.view.replace_image(image)

    def _show_preview(self, image: QImage, new: bool = False) -> None:
        self._display(image, new)
        if self._path:
            self.full_resolution.analyse(PREVIEW_KEY + self._path, image)
        self._refresh_peaking()

    def _show_full(self, image: QImage, new: bool = False) -> None:
        self.view.set_source_width(image.width())
        self._display(image, new)
        self._full_shown = True
        histogram = self.full_resolution.histogram(self._path or "")
        if histogram is not None:
            self.histogram.set_histogram(histogram)
        self._refresh_peaking()
        self._update_zoom_label()
        if self._image_id is not None:
            self.full_resolution_shown.emit(self._image_id)

    def _read_ahead(self) -> None:
        ids = self._model.visible_ids()
        position = self._model.position_of(self._image_id) if self._image_id is not None else None
        if position is None:
            return
        following = position + self._direction
        if 0 <= following < len(ids):
            row = self._model.row_at(following)
            if row.status == "ok":
                self._context.thumbnails.request_preview(row.image_id)  # the next first frame
                self.full_resolution.request(row.path, ahead=True)

    def step(self, offset: int) -> None:
        """Show the next (+1) or previous (−1) image in grid order and select it."""
        ids = self._model.visible_ids()
        if not ids:
            return
        self._direction = +1 if offset >= 0 else -1
        position = self._model.position_of(self._image_id) if self._image_id is not None else None
        target = 0 if position is None else max(0, min(len(ids) - 1, position + offset))
        self._context.selection.set_image_ids([ids[target]])
        self.show_image(ids[target])

    def toggle_actual_size(self, factor: float = 1.0, anchor: QPointF | None = None) -> None:
        """Fit ↔ `factor` × 100 % of the original, centred on `anchor` (fractions of the image); Z
        from fit centres on the frame's subject as its checks stored it (else the middle), as the
        survey does; from a zoomed view it keeps the centre on screen."""
        if abs(self.view.actual_zoom() - factor) < 1e-3:
            self.view.fit()
        else:
            if anchor is None and self.view.zoom == 1.0 and self._image_id is not None:
                subject = subject_centre(self._context.profile.checks.get(self._image_id))
                anchor = QPointF(*subject) if subject is not None else None
            self.view.zoom_to_actual(factor, anchor)
        self._update_zoom_label()

    def set_peaking(self, on: bool) -> None:
        """Paint (or hide) focus peaking: sharp edges in colour over the image."""
        self._peaking = on
        self._refresh_peaking()

    def _refresh_peaking(self) -> None:
        if not self._peaking or not self.view.has_image() or not self._path:
            self.view.set_overlay(None)
            return
        key = ("full:" if self._full_shown else PREVIEW_KEY) + self._path
        self.full_resolution.analyse(key, self.view.image(), "peaking")

    def _clicked(self, point: QPointF) -> None:
        self.toggle_actual_size(1.0, point)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Arrows step, Escape / G go back, Z toggles 100 % (Shift+Z 200 %), E focus peaking, W why, marks."""
        key = event.key()
        QToolTip.hideText()  # an explanation belongs to the frame it was asked for: the next key ends it
        marks = marks_for_key(key, event.modifiers())
        if marks is not None and self._image_id is not None:
            self._marks.mark([self._image_id], **marks)
        elif key in (Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Space):
            self.step(+1)
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Backspace):
            self.step(-1)
        elif key in (Qt.Key.Key_Escape, Qt.Key.Key_G, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.back_requested.emit()
        elif key == Qt.Key.Key_Z and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.toggle_actual_size(2.0 if shift else 1.0)
        elif key == Qt.Key.Key_E:
            self.set_peaking(not self._peaking)
        elif key == Qt.Key.Key_W and not event.modifiers():
            self.explain()
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

    def _full_arrived(self, path: str, image: QImage) -> None:
        if path == self._path and not self._full_shown:
            self._show_full(image)

    def _histogram_arrived(self, key: str, histogram: object) -> None:
        if key == self._path or (key == PREVIEW_KEY + (self._path or "") and not self._full_shown):
            self.histogram.set_histogram(histogram if isinstance(histogram, Histogram) else None)

    def _peaking_arrived(self, key: str, overlay: QImage) -> None:
        expected = ("full:" if self._full_shown else PREVIEW_KEY) + (self._path or "")
        if self._peaking and key == expected:
            self.view.set_overlay(overlay)

    def _preview_arrived(self, image_id: int) -> None:
        if image_id == self._image_id and not self._full_shown:
            pixmap = self._context.thumbnails.pixmap(image_id, PREVIEW)
            if pixmap is not None:
                self._show_preview(pixmap.toImage())

    def _thumbnail_arrived(self, image_id: int) -> None:
        if image_id == self._image_id and not self.view.has_image():
            pixmap = self._context.thumbnails.pixmap(image_id, THUMB)
            if pixmap is not None:
                self._show_preview(pixmap.toImage())

    def _update_zoom_label(self, *_args: object) -> None:
        zoom = self.view.actual_zoom()
        text = f"{zoom:.0%}" if zoom else ""
        if text and not self._full_shown and self._image_id is not None:
            text += "  (preview)"
        self.zoom_label.setText(text)

    def _stored_faces(self, image_id: int | None) -> list[dict]:
        """The faces import found (one small row read)."""
        stored = self._context.profile.checks.get(image_id) if image_id is not None else None
        return [f for f in (stored[1] if stored else []) if len(f.get("box") or ()) == 4]

    def explain(self) -> str:
        """Show why the frame is flagged (its failed checks, why a burst shows it) over the image, as W
        does in the grid; returns the text ("" without a frame)."""
        row = self._model.row_for(self._image_id) if self._image_id is not None else None
        if row is None:
            return ""
        text = self._model.why(row) or f"{row.name}: every check passed; nothing was decided for you."
        # at the image's bottom left (Qt puts it above the point when it does not fit below): the
        # top of a frame, where the subject's head usually is, stays in view; wrapped, not wide
        area = self.view.rect()
        QToolTip.showText(self.view.mapToGlobal(area.bottomLeft() + QPoint(12, -12)), wrapped_tip(text), self.view, area, 15_000)
        return text

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
        suggested = "Suggested reject (W: why)" if row.suggested_reject else ""
        parts = [row.name, place, "★" * row.stars or "no stars", flag, suggested, row.label or "", faces_text]
        self.caption.setText("   ·   ".join(p for p in parts if p))
        self.caption.setToolTip(self.caption.text())
