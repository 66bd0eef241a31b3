"""A small RGB histogram with clipping indicators (black / white triangles light up when clipped)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from aesthete_gui.imaging.loupe_analysis import Histogram

CHANNEL_COLOURS = (QColor(230, 60, 60, 150), QColor(70, 200, 70, 150), QColor(70, 120, 240, 150))
CLIP_ON, CLIP_OFF = QColor("#ff4040"), QColor("#555555")


class HistogramWidget(QWidget):
    """Paints the three channel histograms over each other; empty until `set_histogram`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("histogram")
        self._histogram: Histogram | None = None
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setToolTip("RGB histogram; the triangles light up when shadows (left) or highlights "
                        "(right) are clipped")  # fmt: skip

    def sizeHint(self) -> QSize:
        """A strip that fits beside the loupe's caption."""
        return QSize(220, 64)

    @property
    def histogram(self) -> Histogram | None:
        """The histogram shown."""
        return self._histogram

    def set_histogram(self, histogram: Histogram | None) -> None:
        """Show `histogram` (None clears it)."""
        self._histogram = histogram
        tip = ""
        if histogram is not None:
            tip = (f"Clipped: {histogram.clipped_black:.1%} black, {histogram.clipped_white:.1%} white")
        self.setStatusTip(tip)
        self.update()

    def paintEvent(self, _event) -> None:
        """Background, three filled channel curves, two clipping triangles."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        area = QRectF(self.rect()).adjusted(10, 2, -10, -2)
        painter.fillRect(self.rect(), QColor(20, 20, 20))
        histogram = self._histogram
        if histogram is None:
            return
        counts = histogram.counts.astype(np.float64)
        peak = float(np.percentile(counts[:, 1:255], 99.5)) or float(counts.max()) or 1.0
        painter.setPen(Qt.PenStyle.NoPen)
        for channel, colour in enumerate(CHANNEL_COLOURS):
            path = QPainterPath(QPointF(area.left(), area.bottom()))
            for level in range(256):
                height = min(1.0, counts[channel, level] / peak) * area.height()
                path.lineTo(area.left() + level / 255 * area.width(), area.bottom() - height)
            path.lineTo(area.right(), area.bottom())
            path.closeSubpath()
            painter.setBrush(colour)
            painter.drawPath(path)
        self._triangle(painter, left=True, on=histogram.clipped_black >= 0.001)
        self._triangle(painter, left=False, on=histogram.clipped_white >= 0.001)

    def _triangle(self, painter: QPainter, left: bool, on: bool) -> None:
        x = 1.0 if left else self.width() - 1.0
        inward = 8.0 if left else -8.0
        painter.setBrush(CLIP_ON if on else CLIP_OFF)
        painter.drawPolygon(QPolygonF([QPointF(x, 2), QPointF(x + inward, 2), QPointF(x, 10)]))
