"""The Set view's candidates: one card per image, and the strip that lays the set out in a row."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QBoxLayout,
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from aesthete_gui.qt.thumbnail_loader import ThumbnailLoader
    from aesthete_gui.store.records import ImageRecord

CARD_THUMB = 170
MIN_CARD_THUMB = 68
MAX_CARD_THUMB = 220
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
        self.setFixedWidth(CARD_THUMB + 16)

    def set_pixmap(self, pixmap: QPixmap | None) -> None:
        """Show the thumbnail scaled to the card, or say there is no preview."""
        if pixmap is None or pixmap.isNull():
            self.thumb.setText("no preview")
            return
        self._pixmap = pixmap
        side = self.thumb.width()
        self.thumb.setPixmap(
            pixmap.scaled(
                side,
                side,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )

    def buttons_stacked(self) -> bool:
        """True when the card is too narrow for Best and Worst side by side."""
        return self._buttons.direction() == QBoxLayout.Direction.TopToBottom

    def set_thumb_size(self, side: int) -> None:
        """Resize the card so a whole set fits the view's width."""
        if side == self.thumb.width():
            return
        self.thumb.setFixedSize(side, side)
        self.setFixedWidth(side + 16)
        # narrow cards (6-8 images on a small screen) stack Best over Worst instead of squeezing them
        needed = self.best_button.sizeHint().width() + self.worst_button.sizeHint().width() + 8
        self._buttons.setDirection(
            QBoxLayout.Direction.LeftToRight if side >= needed else QBoxLayout.Direction.TopToBottom
        )
        self.name_label.setText(
            self.name_label.fontMetrics().elidedText(self._name, Qt.TextElideMode.ElideMiddle, side)
        )
        if self._pixmap is not None:
            self.set_pixmap(self._pixmap)


class CandidateStrip(QScrollArea):
    """The set's cards in a row, sized so the whole set fits the width; holds the user's pick."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[CandidateCard] = []
        self.cards_host = QWidget()
        self.cards_layout = QHBoxLayout(self.cards_host)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.addStretch(1)
        self.setWidgetResizable(True)
        self.setWidget(self.cards_host)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFixedHeight(CARD_THUMB + 110)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.best_group = QButtonGroup(self)
        self.worst_group = QButtonGroup(self)

    def show_records(self, records: Sequence[ImageRecord], thumbnails: ThumbnailLoader) -> None:
        """Replace the cards with one per record, in this order, then fit them to the width."""
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
            self.cards_layout.insertWidget(self.cards_layout.count() - 1, card)
            self.cards.append(card)
        self.fit_cards()

    def fit_cards(self) -> None:
        """Size the cards so the whole set fits the visible width."""
        if not self.cards:
            return
        spacing = self.cards_layout.spacing()
        share = (self.viewport().width() - 4) // len(self.cards) - spacing - 16
        side = max(MIN_CARD_THUMB, min(MAX_CARD_THUMB, share))
        for card in self.cards:
            card.set_thumb_size(side)
        stacked = any(card.buttons_stacked() for card in self.cards)
        self.setFixedHeight(side + (140 if stacked else 110))

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
