"""Compare's two image panes: side by side, zoom-linked, captioned, previews decoded off the UI."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from aesthete_gui.qt.widgets.zoom_image_view import PreviewLoader, ZoomImageView, link_views

if TYPE_CHECKING:
    from aesthete_gui.qt.thumbnail_loader import ThumbnailLoader
    from aesthete_gui.store.records import ImageRecord


class ComparePanes(QSplitter):
    """The left and right image of a pair, each over its caption; zoom and pan move both."""

    def __init__(self, thumbnails: ThumbnailLoader, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self._thumbnails = thumbnails
        self._shown: tuple[ImageRecord, ImageRecord] | None = None
        self.loader = PreviewLoader(self)
        self.loader.loaded.connect(self._on_preview_loaded)
        self.loader.failed.connect(self._on_preview_failed)
        self.left_view = ZoomImageView()
        self.right_view = ZoomImageView()
        link_views([self.left_view, self.right_view])
        self.left_caption = QLabel()
        self.right_caption = QLabel()
        for view, caption in (
            (self.left_view, self.left_caption),
            (self.right_view, self.right_caption),
        ):
            caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
            caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            pane = QWidget()
            pane_layout = QVBoxLayout(pane)
            pane_layout.setContentsMargins(2, 2, 2, 2)
            pane_layout.addWidget(view, 1)
            pane_layout.addWidget(caption)
            self.addWidget(pane)
        self.setChildrenCollapsible(False)

    def show_images(self, left: ImageRecord, right: ImageRecord) -> None:
        """Show two images: the sharp preview when decoded, else the cached small one meanwhile."""
        self._shown = (left, right)
        for view, caption, record in (
            (self.left_view, self.left_caption, left),
            (self.right_view, self.right_caption, right),
        ):
            caption.setText(
                f"{'◀ ' if view is self.left_view else ''}{Path(record.path).name}"
                f"{' ▶' if view is self.right_view else ''}"
            )
            caption.setToolTip(record.path)
            cached = self.loader.cached(record.path)
            if cached is not None:
                view.set_image(cached)
                continue
            preview = self._thumbnails.pixmap(record.id, "preview")
            if preview is not None:
                view.set_image(preview.toImage())
            else:
                view.set_message("Loading…")
            self.loader.request(record.path)

    def show_nothing(self) -> None:
        """Empty both panes and their captions."""
        self._shown = None
        self.left_view.set_message("")
        self.right_view.set_message("")
        self.left_caption.setText("")
        self.right_caption.setText("")

    def fit(self) -> None:
        """Fit both images to their panes."""
        self.left_view.fit()
        self.right_view.fit()

    def _on_preview_loaded(self, path: str, image: QImage) -> None:
        if self._shown is None:
            return
        left, right = self._shown
        if path == left.path:
            self.left_view.set_image(image)
        if path == right.path:
            self.right_view.set_image(image)

    def _on_preview_failed(self, path: str, reason: str) -> None:
        if self._shown is None:
            return
        for view, record in zip((self.left_view, self.right_view), self._shown, strict=True):
            if record.path == path:
                view.set_message(f"Cannot show this image:\n{reason}")
