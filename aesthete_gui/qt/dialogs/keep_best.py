"""Before "keep the best of each burst" rejects anything: every burst with the frames it keeps and
the frames it would reject, as thumbnails in a scrolling list, then Reject or Cancel."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from aesthete_gui.qt.culling_actions import BurstToThin
    from aesthete_gui.qt.grid_rows import ImageRow
    from aesthete_gui.qt.thumbnail_loader import ThumbnailLoader

TILE = 112
"""Thumbnail side in the preview (px): large enough to see which frame is soft."""
MAX_BURSTS_SHOWN = 200
"""A preview of more bursts than this lists the first ones and says how many more there are."""
KEEP_STYLE = "QFrame#keep { border: 2px solid #5cb85c; border-radius: 4px; }"
REJECT_STYLE = "QFrame#reject { border: 2px solid #e0574f; border-radius: 4px; }"


class FrameTile(QFrame):
    """One frame: its thumbnail and name, outlined green (kept) or red (to be rejected)."""

    def __init__(self, row: ImageRow, kept: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.row = row
        self.kept = kept
        self.setObjectName("keep" if kept else "reject")
        self.setStyleSheet(KEEP_STYLE if kept else REJECT_STYLE)
        self.thumb = QLabel("…")
        self.thumb.setFixedSize(TILE, TILE)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        caption = QLabel(("✔ keep  " if kept else "✖ reject  ") + row.name)
        caption.setToolTip(row.path)
        caption.setMaximumWidth(TILE + 40)
        caption.setText(caption.fontMetrics().elidedText(caption.text(), Qt.TextElideMode.ElideMiddle, TILE + 40))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.thumb, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(caption)

    def set_pixmap(self, pixmap: QPixmap | None) -> None:
        """Show the thumbnail (scaled to the tile), or keep the placeholder."""
        if pixmap is not None and not pixmap.isNull():
            self.thumb.setPixmap(pixmap.scaled(TILE, TILE, Qt.AspectRatioMode.KeepAspectRatio,
                                               Qt.TransformationMode.SmoothTransformation))  # fmt: skip


class KeepBestDialog(QDialog):
    """Lists what keeping the best of each burst would do; accepted means: reject those frames."""

    def __init__(self, bursts: Sequence[BurstToThin], thumbnails: ThumbnailLoader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keep the best of each burst")
        self._thumbnails = thumbnails
        self.tiles: list[FrameTile] = []
        rejected = sum(len(b.rejected) for b in bursts)
        kept = sum(len(b.kept) for b in bursts)
        self.summary = QLabel(
            f"Reject {rejected} frame{'s' if rejected != 1 else ''} of {len(bursts)} "
            f"burst{'s' if len(bursts) != 1 else ''}, keeping {kept}: the best of each burst (in focus, "
            "eyes open, no clipping, then the score) and every frame you flagged, starred or "
            "labelled. Ctrl+Z undoes it in one step."
        )
        self.summary.setWordWrap(True)
        body = QWidget()
        grid = QGridLayout(body)
        grid.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        for line, burst in enumerate(bursts[:MAX_BURSTS_SHOWN]):
            frames = len(burst.kept) + len(burst.rejected)
            title = QLabel(f"Burst {line + 1}\n{frames} frames")
            title.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            grid.addWidget(title, line, 0)
            for column, (row, keep) in enumerate([(r, True) for r in burst.kept] + [(r, False) for r in burst.rejected], 1):
                tile = FrameTile(row, keep)
                tile.set_pixmap(thumbnails.request(row.image_id))
                grid.addWidget(tile, line, column)
                self.tiles.append(tile)
        if len(bursts) > MAX_BURSTS_SHOWN:
            more = QLabel(f"… and {len(bursts) - MAX_BURSTS_SHOWN} more bursts.")
            grid.addWidget(more, MAX_BURSTS_SHOWN, 0, 1, -1)
        self.scroll = QScrollArea()
        self.scroll.setWidget(body)
        self.scroll.setWidgetResizable(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.reject_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.reject_button.setText(f"Reject {rejected} frame{'s' if rejected != 1 else ''}")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.buttons)
        thumbnails.ready.connect(self._thumbnail_ready)
        self.finished.connect(lambda _result: thumbnails.ready.disconnect(self._thumbnail_ready))
        screen = parent.screen().availableGeometry() if parent is not None and parent.screen() else None
        width = min(1100, int(screen.width() * 0.85)) if screen else 960
        height = min(760, int(screen.height() * 0.8)) if screen else 640
        self.resize(width, height)

    def rejected_ids(self) -> list[int]:
        """The frames listed for rejection, in the order shown."""
        return [t.row.image_id for t in self.tiles if not t.kept]

    def _thumbnail_ready(self, image_id: int) -> None:
        for tile in self.tiles:
            if tile.row.image_id == image_id:
                tile.set_pixmap(self._thumbnails.pixmap(image_id))
