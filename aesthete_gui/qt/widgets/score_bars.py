"""Five horizontal bars showing an image's scores (1..5) per dimension, with the scorer named."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from aesthete_gui.engine.dimensions import DIMENSIONS, SCORE_MAX, SCORE_MIN

ROW_HEIGHT = 18
LABEL_WIDTH = 92
VALUE_WIDTH = 36


class ScoreBars(QWidget):
    """Paints one bar per dimension; missing scores are drawn as an empty track with "–"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scores: dict[str, float | None] = dict.fromkeys(DIMENSIONS)
        self._caption = ""
        self._highlight: str | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_scores(self, scores: Mapping[str, float | None] | None, caption: str = "") -> None:
        """Show `scores` (keys are dimensions; others ignored) and a caption such as the scorer id."""
        self._scores = {d: (scores or {}).get(d) for d in DIMENSIONS}
        self._caption = caption
        self.updateGeometry()
        self.update()

    def set_highlight(self, dimension: str | None) -> None:
        """Draw the row of `dimension` in the accent colour (the dimension being compared)."""
        self._highlight = dimension
        self.update()

    def scores(self) -> dict[str, float | None]:
        """The scores shown."""
        return dict(self._scores)

    def _rows(self) -> int:
        return len(DIMENSIONS) + (1 if self._caption else 0)

    def sizeHint(self) -> QSize:
        """Wide enough for label, bar and value; one row per dimension."""
        return QSize(LABEL_WIDTH + VALUE_WIDTH + 120, self._rows() * ROW_HEIGHT + 4)

    def minimumSizeHint(self) -> QSize:
        """Never squeezed below one readable row per dimension."""
        return QSize(LABEL_WIDTH + VALUE_WIDTH + 40, self._rows() * ROW_HEIGHT + 4)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Label, track, filled bar and value per dimension."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_colour = palette.color(palette.ColorRole.WindowText)
        track = QColor(text_colour)
        track.setAlpha(40)
        accent = palette.color(palette.ColorRole.Highlight)
        bar_left = LABEL_WIDTH
        bar_width = max(10, self.width() - LABEL_WIDTH - VALUE_WIDTH - 6)
        for row, dim in enumerate(DIMENSIONS):
            top = 2 + row * ROW_HEIGHT
            value = self._scores.get(dim)
            painter.setPen(text_colour)
            font = painter.font()
            font.setBold(dim == self._highlight)
            painter.setFont(font)
            painter.drawText(
                QRectF(0, top, LABEL_WIDTH - 6, ROW_HEIGHT),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                dim.capitalize(),
            )
            track_rect = QRectF(bar_left, top + 4, bar_width, ROW_HEIGHT - 8)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(track)
            painter.drawRoundedRect(track_rect, 3, 3)
            if value is not None:
                share = (min(SCORE_MAX, max(SCORE_MIN, value)) - SCORE_MIN) / (SCORE_MAX - SCORE_MIN)
                fill = QColor(accent) if dim == self._highlight else QColor("#7f9fbf")
                painter.setBrush(fill)
                painter.drawRoundedRect(
                    QRectF(track_rect.left(), track_rect.top(), track_rect.width() * share,
                           track_rect.height()), 3, 3)
            painter.setPen(text_colour)
            painter.drawText(
                QRectF(bar_left + bar_width + 4, top, VALUE_WIDTH, ROW_HEIGHT),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                f"{value:.2f}" if value is not None else "–",
            )
        if self._caption:
            font = painter.font()
            font.setBold(False)
            painter.setFont(font)
            caption_colour = QColor(text_colour)
            caption_colour.setAlpha(160)
            painter.setPen(caption_colour)
            painter.drawText(
                QRectF(0, 2 + len(DIMENSIONS) * ROW_HEIGHT, self.width(), ROW_HEIGHT),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                self._caption,
            )
        painter.end()
