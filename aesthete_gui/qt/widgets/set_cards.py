"""The Set view's candidates: one card per image, and the area that lays the set out in rows and
columns chosen so the thumbnails are as large as the room allows (burst frames must be told apart)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.qt.widgets.frame_caption import elide_name

if TYPE_CHECKING:
    from aesthete_gui.qt.thumbnail_loader import ThumbnailLoader
    from aesthete_gui.store.records import ImageRecord

CARD_THUMB = 170
MIN_CARD_THUMB = 68
MAX_CARD_THUMB = 640
CARD_CHROME = 16
"""A card's width beyond its thumbnail (margins and frame)."""
CARD_TEXT = 90
"""A card's height beyond its thumbnail: name, verdict and the Best / Worst buttons."""
CARD_TEXT_STACKED = 120
"""The same when Best and Worst are stacked (narrow cards)."""
CARD_STYLE = (
    "QPushButton#best:checked { background-color: #3f7a4f; color: white; }"
    "QPushButton#worst:checked { background-color: #8a3f3f; color: white; }"
)


class CandidateCard(QFrame):
    """One candidate: thumbnail, name, and the user's Best / Worst buttons."""

    def __init__(self, record: ImageRecord, position: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record = record
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.thumb = QLabel("…")
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.thumb.setFixedSize(CARD_THUMB, CARD_THUMB)
        self._name = f"{position}. {Path(record.path).name}"
        self.name_label = name = QLabel(self._name)
        name.setToolTip(record.path)
        name.setAlignment(Qt.AlignmentFlag.AlignCenter)
        name.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.verdict = QLabel("")
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.best_button = QPushButton("Best")
        self.best_button.setObjectName("best")
        self.worst_button = QPushButton("Worst")
        self.worst_button.setObjectName("worst")
        self.setStyleSheet(CARD_STYLE)
        self._pixmap: QPixmap | None = None
        for button in (self.best_button, self.worst_button):
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._buttons = buttons = QHBoxLayout()
        buttons.addWidget(self.best_button)
        buttons.addWidget(self.worst_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.thumb, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(name)
        layout.addWidget(self.verdict)
        layout.addLayout(buttons)
        self.setFixedWidth(CARD_THUMB + CARD_CHROME)

    def set_pixmap(self, pixmap: QPixmap | None) -> None:
        """Show the thumbnail scaled to the card, or say there is no preview."""
        if pixmap is None or pixmap.isNull():
            self.thumb.setText("no preview")
            return
        self._pixmap = pixmap
        self.thumb.setPixmap(
            pixmap.scaled(
                self.thumb.width(),
                self.thumb.height(),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )

    def buttons_stacked(self) -> bool:
        """True when the card is too narrow for Best and Worst side by side."""
        return self._buttons.direction() == QBoxLayout.Direction.TopToBottom

    def set_thumb_size(self, side: int, height: int | None = None) -> None:
        """Resize the card's thumbnail to side × height (square by default) so the set fits the room."""
        height = side if height is None else height
        if (side, height) == (self.thumb.width(), self.thumb.height()):
            return
        self.thumb.setFixedSize(side, height)
        self.setFixedWidth(side + CARD_CHROME)
        # narrow cards (6-8 images on a small screen) stack Best over Worst instead of squeezing them
        needed = self.best_button.sizeHint().width() + self.worst_button.sizeHint().width() + 8
        self._buttons.setDirection(
            QBoxLayout.Direction.LeftToRight if side >= needed else QBoxLayout.Direction.TopToBottom
        )
        metrics = self.name_label.fontMetrics()  # keep the frame number and extension readable
        self.name_label.setText(elide_name(self._name, side, metrics.horizontalAdvance))
        if self._pixmap is not None:
            self.set_pixmap(self._pixmap)


def best_layout(count: int, width: int, height: int, aspect: float = 1.0) -> tuple[int, int]:
    """(columns, thumbnail width) that make `count` cards as large as they can be in width × height
    pixels, for thumbnails `aspect` times as wide as tall (each card needs CARD_CHROME more in width
    and CARD_TEXT more in height)."""
    best = (count, MIN_CARD_THUMB)
    for columns in range(1, max(1, count) + 1):
        rows = math.ceil(count / columns)
        by_width = (width - 8 * columns) // columns - CARD_CHROME
        by_height = int(((height - 8 * rows) // rows - CARD_TEXT) * aspect)
        side = max(MIN_CARD_THUMB, min(MAX_CARD_THUMB, by_width, by_height))
        if side > best[1]:
            best = (columns, side)
    return best


def thumbnail_aspect(records: Sequence[ImageRecord]) -> float:
    """The width / height the set's thumbnails share (the median of its images, 4:3 to 16:9 landscape
    or the same upright; square when unknown)."""
    ratios = sorted(r.width / r.height for r in records if r.width and r.height)
    if not ratios:
        return 1.0
    return min(16 / 9, max(9 / 16, ratios[len(ratios) // 2]))


class CandidateStrip(QScrollArea):
    """The set's cards in as many rows as make the thumbnails largest; holds the user's pick."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[CandidateCard] = []
        self.columns = 1
        self.aspect = 1.0
        self.cards_host = QWidget()
        self.cards_layout = QGridLayout(self.cards_host)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.setSpacing(8)
        self.cards_layout.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWidgetResizable(True)
        self.setWidget(self.cards_host)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(MIN_CARD_THUMB + CARD_TEXT)
        self.best_group = QButtonGroup(self)
        self.worst_group = QButtonGroup(self)

    def show_records(self, records: Sequence[ImageRecord], thumbnails: ThumbnailLoader) -> None:
        """Replace the cards with one per record, in this order, then fit them to the room."""
        for card in self.cards:
            self.best_group.removeButton(card.best_button)
            self.worst_group.removeButton(card.worst_button)
            card.deleteLater()
        self.cards.clear()
        for position, record in enumerate(records, start=1):
            card = CandidateCard(record, position)
            self.best_group.addButton(card.best_button)
            self.worst_group.addButton(card.worst_button)
            card.set_pixmap(thumbnails.request(record.id))
            if thumbnails.pixmap(record.id) is None:
                card.thumb.setText("loading…")
            self.cards.append(card)
        self.aspect = thumbnail_aspect(records)
        self.fit_cards()

    def thumb_side(self) -> int:
        """The cards' thumbnail's longer side now (px)."""
        return max(self.cards[0].thumb.width(), self.cards[0].thumb.height()) if self.cards else 0

    def fit_cards(self) -> None:
        """Lay the cards out in the rows and columns that make them largest in the visible area."""
        if not self.cards:
            return
        area = self.viewport().size()
        columns, side = best_layout(len(self.cards), area.width(), area.height(), self.aspect)
        for card in self.cards:
            card.set_thumb_size(side, round(side / self.aspect))
        if any(card.buttons_stacked() for card in self.cards):  # taller cards: fit again with that height
            rows = math.ceil(len(self.cards) / columns)
            extra = (CARD_TEXT_STACKED - CARD_TEXT) * rows
            columns, side = best_layout(len(self.cards), area.width(), area.height() - extra, self.aspect)
            for card in self.cards:
                card.set_thumb_size(side, round(side / self.aspect))
        self.columns = columns
        for index, card in enumerate(self.cards):
            self.cards_layout.addWidget(card, index // columns, index % columns)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Fit the cards to the new room."""
        super().resizeEvent(event)
        self.fit_cards()

    def update_thumbnail(self, image_id: int, pixmap: QPixmap | None) -> None:
        """Show a thumbnail that has just loaded on its card."""
        for card in self.cards:
            if card.record.id == image_id:
                card.set_pixmap(pixmap)

    def pick(self, best: int | None = None, worst: int | None = None) -> None:
        """Check the Best and/or Worst button of these images (the others are unchecked)."""
        for card in self.cards:
            if best is not None:
                card.best_button.setChecked(card.record.id == best)
            if worst is not None:
                card.worst_button.setChecked(card.record.id == worst)

    def user_pick(self) -> tuple[int | None, int | None]:
        """The image ids checked Best and Worst (None where not picked)."""
        best = next((c.record.id for c in self.cards if c.best_button.isChecked()), None)
        worst = next((c.record.id for c in self.cards if c.worst_button.isChecked()), None)
        return best, worst

    def mark_verdict(self, best_path: str, worst_path: str) -> None:
        """Label the judge's best and worst cards."""
        for card in self.cards:
            if card.record.path == best_path:
                card.verdict.setText("judge: BEST")
            elif card.record.path == worst_path:
                card.verdict.setText("judge: WORST")

    def clear_verdicts(self) -> None:
        """Remove the judge's labels from every card."""
        for card in self.cards:
            card.verdict.setText("")
