"""A zoomable, pannable image view whose zoom and pan can be linked to other views, and a loader
that decodes previews off the UI thread."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QPointF, QRectF, QRunnable, Qt, QThreadPool, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap, QWheelEvent
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

PREVIEW_MAX_SIDE = 2048
SIGNAL_CLICKED = "2clicked(QPointF)"
ZOOM_STEP = 1.25
MAX_ZOOM = 32.0


def subject_centre(stored: tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]]] | None) -> tuple[float, float] | None:
    """Where a frame's subject is, as fractions of its width and height: the centre the technical
    checks stored with the focus check (`measures` "x" and "y", imaging/sharpness.py), from a frame's
    stored (checks, faces); None when nothing usable is stored. A 100 % view from fit is centred
    there, in the loupe and the survey alike (the middle of a frame is often blank wall)."""
    checks = stored[0] if stored else ()
    focus = next((c for c in checks if c.get("name") == "focus"), None)
    measures = (focus or {}).get("measures") or {}
    # a number from 0 to 1 (NaN fails every comparison)
    x, y = (float(v) if isinstance(v, int | float) and not isinstance(v, bool) and 0.0 <= v <= 1.0 else None
            for v in (measures.get("x"), measures.get("y")))  # fmt: skip
    return (x, y) if x is not None and y is not None else None


def decode_preview(path: str, max_side: int = PREVIEW_MAX_SIDE) -> QImage:
    """Decode `path` (any format the imaging layer reads) to an RGB QImage no larger than `max_side`."""
    from aesthete_gui.imaging.decode import open_image

    img = open_image(path, max_side=max_side).convert("RGB")
    data = img.tobytes()
    qimage = QImage(data, img.width, img.height, img.width * 3, QImage.Format.Format_RGB888)
    return qimage.copy()  # detach from the Python buffer before it goes away


class _DecodeSignals(QObject):
    finished = Signal(str, QImage)
    failed = Signal(str, str)


class _DecodeTask(QRunnable):
    def __init__(self, path: str, max_side: int, signals: _DecodeSignals) -> None:
        super().__init__()
        self._path = path
        self._max_side = max_side
        self._signals = signals

    def run(self) -> None:
        try:
            image = decode_preview(self._path, self._max_side)
        except Exception as exc:  # a bad file must never take the app down (docs/method.md §8)
            self._signals.failed.emit(self._path, str(exc) or type(exc).__name__)
            return
        self._signals.finished.emit(self._path, image)


class PreviewLoader(QObject):
    """Decodes previews in a small thread pool and keeps the last few in memory."""

    loaded = Signal(str, QImage)
    failed = Signal(str, str)

    def __init__(self, parent: QObject | None = None, cache_size: int = 8) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(2)
        self._cache: OrderedDict[str, QImage] = OrderedDict()
        self._cache_size = cache_size
        self._pending: set[str] = set()
        self._signals = _DecodeSignals(self)
        self._signals.finished.connect(self._on_finished)
        self._signals.failed.connect(self._on_failed)

    def cached(self, path: str) -> QImage | None:
        """The decoded preview of `path` when it is in memory."""
        image = self._cache.get(path)
        if image is not None:
            self._cache.move_to_end(path)
        return image

    def request(self, path: str, max_side: int = PREVIEW_MAX_SIDE) -> None:
        """Emit `loaded(path, image)` soon: from memory at once, else after a background decode."""
        image = self.cached(path)
        if image is not None:
            self.loaded.emit(path, image)
            return
        if path in self._pending:
            return
        self._pending.add(path)
        self._pool.start(_DecodeTask(path, max_side, self._signals))

    def wait_idle(self, msecs: int = 30000) -> bool:
        """Block until background decodes finish (used when closing and by tests)."""
        return self._pool.waitForDone(msecs)

    def _on_finished(self, path: str, image: QImage) -> None:
        self._pending.discard(path)
        self._cache[path] = image
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        self.loaded.emit(path, image)

    def _on_failed(self, path: str, reason: str) -> None:
        self._pending.discard(path)
        self.failed.emit(path, reason)


@dataclass(frozen=True)
class ViewState:
    """How a view shows its image, to show the next one the same way: the zoom relative to fit
    (1.0 = fit), the visible centre (fractions of the image) and, when pixel-exact, the factor of the
    original (1.0 = 100 %), which wins over the relative zoom."""

    zoom: float = 1.0
    cx: float = 0.5
    cy: float = 0.5
    pixel_exact: float | None = None


class ZoomImageView(QGraphicsView):
    """Shows one image fitted to the view; wheel zooms around the cursor, drag pans, F refits.

    `view_changed(zoom, cx, cy)` reports the zoom relative to "fit" and the visible centre as
    fractions of the image, so views of images with different sizes can follow each other. A view
    zoomed pixel-exact (`zoom_to_actual`: 100 %, 200 %) stays so (`pixel_exact`) through a new image,
    a new original width and a new view size, and its followers show their own originals at that
    factor: 100 % is a mode, not a scale relative to fit (a frame opened after a larger one at 100 %
    showed 129 %).
    """

    view_changed = Signal(float, float, float)
    clicked = Signal(QPointF)  # a click without a drag: the point as fractions of the image

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scene = QGraphicsScene(self)
        self.setScene(self._scene)
        self._pixmap_item = QGraphicsPixmapItem()
        self._pixmap_item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self._scene.addItem(self._pixmap_item)
        self._overlay_item = QGraphicsPixmapItem(self._pixmap_item)
        self._overlay_item.setVisible(False)
        self._message_item = self._scene.addText("")
        self._message_item.setDefaultTextColor(QColor("#b0b0b0"))
        self._zoom = 1.0
        self._actual: float | None = None  # pixel-exact: the original at this factor (1.0 = 100 %)
        self._syncing = False
        self._boxes: list[tuple[tuple[float, float, float, float], str]] = []
        self.overlay_items: list[QGraphicsRectItem] = []
        self._source_width = 0  # the original's width in pixels, for "100 %" (0 = the image's own)
        # Fit never enlarges a frame past 100 % of the original (as Lightroom's Fit does for small
        # images); True stretches small frames to fill the view. Only with a known original width.
        self.enlarge_small = False
        self._press_at: QPointF | None = None
        self.setRenderHints(QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QColor("#1e1e1e"))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # The owning view handles the keyboard (choices); the image only reacts to the mouse.
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.horizontalScrollBar().valueChanged.connect(self._emit_view_changed)
        self.verticalScrollBar().valueChanged.connect(self._emit_view_changed)

    @property
    def zoom(self) -> float:
        """Magnification relative to the fitted image (1.0 = whole image visible)."""
        return self._zoom

    @property
    def pixel_exact(self) -> float | None:
        """The factor of the original shown pixel-exact (1.0 = 100 %), kept whatever image or view
        size comes next; None at fit or after a free zoom (wheel, + / −)."""
        return self._actual

    def view_state(self) -> ViewState:
        """The zoom and centre shown, to show another image the same way (`restore_view_state`)."""
        centre = self.centre_fraction()
        return ViewState(self._zoom, centre.x(), centre.y(), self._actual)

    def restore_view_state(self, state: ViewState) -> None:
        """Show the image as `state` says: fit, pixel-exact at its factor of this image's original, or
        its zoom relative to fit; at its centre (fractions of the image). Emits `view_changed`."""
        if state.pixel_exact is not None:
            self.zoom_to_actual(state.pixel_exact, QPointF(state.cx, state.cy))
        elif state.zoom == 1.0:
            self.fit()
            self._emit_view_changed()
        else:
            self.set_view_state(state.zoom, state.cx, state.cy)
            self._emit_view_changed()

    def has_image(self) -> bool:
        """True when an image (not a message) is shown."""
        return not self._pixmap_item.pixmap().isNull()

    def set_image(self, image: QImage | None) -> None:
        """Show `image` fitted to the view (None clears it)."""
        self._message_item.setPlainText("")
        pixmap = QPixmap.fromImage(image) if image is not None else QPixmap()
        self._pixmap_item.setPixmap(pixmap)
        self._overlay_item.setVisible(False)
        self._scene.setSceneRect(QRectF(pixmap.rect()) if not pixmap.isNull() else QRectF())
        self._draw_boxes()
        self.fit()

    def set_boxes(self, boxes: Sequence[tuple[tuple[float, float, float, float], str]]) -> None:
        """Outline regions given as (x, y, width, height) fractions of the image, each in a colour."""
        self._boxes = list(boxes)
        self._draw_boxes()

    def _draw_boxes(self) -> None:
        for item in self.overlay_items:
            self._scene.removeItem(item)
        self.overlay_items = []
        size = self._pixmap_item.pixmap().size()
        if size.isEmpty():
            return
        for (x, y, w, h), colour in self._boxes:
            item = QGraphicsRectItem(x * size.width(), y * size.height(), w * size.width(), h * size.height(), self._pixmap_item)
            pen = QPen(QColor(colour), 2)
            pen.setCosmetic(True)  # the same width at every zoom
            item.setPen(pen)
            self.overlay_items.append(item)
    def replace_image(self, image: QImage) -> None:
        """Swap in `image` (the same picture at another resolution) keeping zoom and centre on screen."""
        if not self.has_image():
            self.set_image(image)
            return
        centre = self.centre_fraction()
        pixmap = QPixmap.fromImage(image)
        self._pixmap_item.setPixmap(pixmap)
        self._scene.setSceneRect(QRectF(pixmap.rect()))
        self._draw_boxes()
        self._fit_overlay()
        self._apply_zoom(centre)

    def image(self) -> QImage:
        """The pixels shown (the source image, before any scaling on screen)."""
        return self._pixmap_item.pixmap().toImage()

    def set_source_width(self, width: int) -> None:
        """The original's width, so that 100 % means one original pixel per screen pixel (and fit
        stops there for a frame smaller than the view)."""
        changed = max(0, int(width)) != self._source_width
        self._source_width = max(0, int(width))
        if changed and self.has_image():
            self._apply_zoom(self.centre_fraction())

    def set_overlay(self, overlay: QImage | None) -> None:
        """Paint `overlay` (any resolution, stretched to the image) over the image; None hides it."""
        if overlay is None or overlay.isNull():
            self._overlay_item.setVisible(False)
            self._overlay_item.setPixmap(QPixmap())
            return
        self._overlay_item.setPixmap(QPixmap.fromImage(overlay))
        self._fit_overlay()
        self._overlay_item.setVisible(True)

    def _fit_overlay(self) -> None:
        overlay = self._overlay_item.pixmap()
        if not overlay.isNull() and self.has_image():
            self._overlay_item.setScale(self._pixmap_item.pixmap().width() / overlay.width())

    def actual_zoom(self) -> float:
        """Screen pixels per original pixel (1.0 = 100 %)."""
        rect = self._scene.sceneRect()
        if not self.has_image() or rect.isEmpty():
            return 0.0
        return self.transform().m11() * rect.width() / (self._source_width or rect.width())

    def zoom_to_actual(self, factor: float = 1.0, anchor: QPointF | None = None) -> None:
        """Show the original at `factor` (1.0 = 100 %), `anchor` (fractions of the image) centred."""
        rect = self._scene.sceneRect()
        if not self.has_image() or rect.isEmpty():
            return
        centre = anchor if anchor is not None else self.centre_fraction()
        source = self._source_width or rect.width()
        # below 1.0 (smaller than fit) when the original is smaller than the view: 100 % is 100 %
        self._zoom = factor * source / rect.width() / self._fit_scale()
        self._actual = factor
        self._apply_zoom(centre)
        self._emit_view_changed()

    def set_message(self, text: str) -> None:
        """Replace the image by a short centred message (loading, unreadable file…)."""
        self._pixmap_item.setPixmap(QPixmap())
        self._overlay_item.setVisible(False)
        self._message_item.setPlainText(text)
        self._scene.setSceneRect(self._message_item.boundingRect())
        self.resetTransform()
        self._zoom = 1.0
        self._actual = None

    def fit(self) -> None:
        """Fit the whole image into the view."""
        self._zoom = 1.0
        self._actual = None
        self._apply_zoom(QPointF(0.5, 0.5))

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Multiply the zoom by `factor`, keeping `anchor` (fractions of the image) in the centre."""
        centre = anchor if anchor is not None else self.centre_fraction()
        self._zoom = min(MAX_ZOOM, max(1.0, self._zoom * factor))
        self._actual = None
        self._apply_zoom(centre)
        self._emit_view_changed()

    def centre_fraction(self) -> QPointF:
        """The visible centre as fractions (0..1) of the image width and height."""
        rect = self._scene.sceneRect()
        if rect.isEmpty():
            return QPointF(0.5, 0.5)
        centre = self.mapToScene(self.viewport().rect().center())
        return QPointF(
            min(1.0, max(0.0, (centre.x() - rect.left()) / rect.width())),
            min(1.0, max(0.0, (centre.y() - rect.top()) / rect.height())),
        )

    def set_view_state(self, zoom: float, cx: float, cy: float, pixel_exact: float | None = None) -> None:
        """Follow another view: same centre fraction, and the same relative zoom, or with
        `pixel_exact` this image's own original at that factor (does not re-emit)."""
        self._syncing = True
        try:
            self._zoom = min(MAX_ZOOM, max(1.0, zoom))
            self._actual = pixel_exact
            self._apply_zoom(QPointF(cx, cy))
        finally:
            self._syncing = False

    def _fit_scale(self) -> float:
        rect = self._scene.sceneRect()
        viewport = self.viewport().rect()
        if rect.isEmpty() or viewport.isEmpty():
            return 1.0
        fit = min(viewport.width() / rect.width(), viewport.height() / rect.height())
        if self._source_width and not self.enlarge_small:
            # a frame smaller than the view is shown at 100 %, never blown up past its own pixels
            fit = min(fit, self._source_width / rect.width())
        return fit

    def _apply_zoom(self, centre: QPointF) -> None:
        if not self.has_image():
            return
        self.resetTransform()
        rect = self._scene.sceneRect()
        if self._actual is not None and not rect.isEmpty():
            # pixel-exact: the factor of this original, whatever its size, the view's or the shown copy's
            self._zoom = self._actual * (self._source_width or rect.width()) / rect.width() / self._fit_scale()
        scale = self._fit_scale() * self._zoom
        actual = scale * rect.width() / (self._source_width or rect.width())
        if abs(actual - round(actual)) < 1e-3 and round(actual) >= 1:
            # exactly 100 % / 200 % of the original: no resampling blur from a rounding error
            scale = round(actual) * (self._source_width or rect.width()) / rect.width()
        self.scale(scale, scale)
        self.centerOn(rect.left() + centre.x() * rect.width(), rect.top() + centre.y() * rect.height())

    def _emit_view_changed(self) -> None:
        if self._syncing or not self.has_image():
            return
        centre = self.centre_fraction()
        self.view_changed.emit(self._zoom, centre.x(), centre.y())

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Zoom in or out around the point under the mouse."""
        if not self.has_image():
            return
        steps = event.angleDelta().y() / 120
        if steps == 0:
            return
        rect = self._scene.sceneRect()
        under_mouse = self.mapToScene(event.position().toPoint())
        before = self.centre_fraction()
        anchor = QPointF(
            (under_mouse.x() - rect.left()) / rect.width(),
            (under_mouse.y() - rect.top()) / rect.height(),
        )
        factor = ZOOM_STEP**steps
        new_zoom = min(MAX_ZOOM, max(1.0, self._zoom * factor))
        ratio = self._zoom / new_zoom
        # Move the centre toward the point under the mouse so that point stays put on screen.
        centre = QPointF(
            anchor.x() + (before.x() - anchor.x()) * ratio,
            anchor.y() + (before.y() - anchor.y()) * ratio,
        )
        self._zoom = new_zoom
        self._actual = None
        self._apply_zoom(centre)
        self._emit_view_changed()
        event.accept()

    def image_fraction_at(self, position: QPointF) -> QPointF:
        """The point under viewport `position` as fractions (0..1) of the image."""
        rect = self._scene.sceneRect()
        point = self.mapToScene(position.toPoint())
        return QPointF(
            min(1.0, max(0.0, (point.x() - rect.left()) / max(1.0, rect.width()))),
            min(1.0, max(0.0, (point.y() - rect.top()) / max(1.0, rect.height()))),
        )

    def mousePressEvent(self, event) -> None:
        """Remember where a press starts, to tell a click from a drag."""
        self._press_at = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        """A release close to its press is a click: `clicked` carries the point on the image."""
        super().mouseReleaseEvent(event)
        start, self._press_at = self._press_at, None
        if start is not None and self.has_image() and event.button() == Qt.MouseButton.LeftButton:
            moved = event.position() - start
            if abs(moved.x()) + abs(moved.y()) < 4:
                self.clicked.emit(self.image_fraction_at(event.position()))

    def mouseDoubleClickEvent(self, event) -> None:
        """Double click toggles between fit and 100 %-ish (4x fit) unless clicks are handled outside."""
        if self.receivers(SIGNAL_CLICKED) == 0:
            self.zoom_by(4.0 if self._zoom == 1.0 else 1.0 / self._zoom)
        event.accept()

    def resizeEvent(self, event) -> None:
        """Keep the zoom (pixel-exact, or relative to fit) and centre when the view changes size."""
        centre = self.centre_fraction()
        super().resizeEvent(event)
        self._apply_zoom(centre)


def link_views(views: Sequence[ZoomImageView]) -> None:
    """Make every view follow the zoom and pan of whichever one the user moves."""
    for view in views:
        others = [other for other in views if other is not view]

        def follow(zoom: float, cx: float, cy: float, targets=others, source=view) -> None:
            # 100 % in one frame is 100 % of each frame's own original, whatever their sizes
            for target in targets:
                target.set_view_state(zoom, cx, cy, source.pixel_exact)

        view.view_changed.connect(follow)
