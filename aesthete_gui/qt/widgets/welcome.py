"""The first-run welcome: what Aesthete does, its three modes, and a button to open a folder."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

MODES: tuple[tuple[str, str, str], ...] = (
    (
        "Grid — cull",
        "Ctrl+1",
        "Every photograph of a shoot at once. Arrows move, 0–5 set stars, P picks, X rejects, "
        "6–9 add colour labels, Ctrl+Z undoes. Marks are saved at once and written to XMP "
        "sidecars that Lightroom, darktable, digiKam and Capture One read.",
    ),
    (
        "Compare — teach",
        "Ctrl+3",
        "Two images side by side. ← or → says which one you prefer, ↓ calls it a tie. "
        "Each choice teaches Aesthete your taste; it shows how often it already predicts you.",
    ),
    (
        "Set — choose",
        "Ctrl+4",
        "Two to eight images or a burst. A judge model names the best and the worst and shows "
        "its reasoning step by step; you accept or overrule it, and both count as your choice.",
    ),
)


class WelcomePage(QWidget):
    """Shown while the profile has no photographs (and from Help ▸ Welcome)."""

    open_folder_requested = Signal()
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        title = QLabel("Welcome to Aesthete", self)
        title.setObjectName("welcomeTitle")
        intro = QLabel(
            "Cull a shoot, compare versions of an image, and teach Aesthete your own taste. "
            "Everything works without a model: import, culling, comparing and taste learning "
            "run on the built-in scorer; a judge model (Models ▸ Model manager) adds scores "
            "from a vision-language model and explanations.",
            self,
        )
        intro.setWordWrap(True)
        cards = QHBoxLayout()
        cards.setSpacing(12)
        for heading, key, text in MODES:
            card = QFrame(self)
            card.setObjectName("welcomeCard")
            card_layout = QVBoxLayout(card)
            name = QLabel(f"<b>{heading}</b>  <span style='color:gray'>({key})</span>", card)
            body = QLabel(text, card)
            body.setWordWrap(True)
            body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            card_layout.addWidget(name)
            card_layout.addWidget(body, 1)
            cards.addWidget(card, 1)
        self.open_button = QPushButton("Open a folder of photographs…", self)
        self.open_button.setObjectName("primary")
        self.open_button.setDefault(True)
        self.later_button = QPushButton("Not now", self)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.later_button)
        buttons.addStretch(1)

        column = QVBoxLayout()
        column.setSpacing(16)
        column.addStretch(1)
        column.addWidget(title)
        column.addWidget(intro)
        column.addLayout(cards)
        column.addLayout(buttons)
        column.addStretch(2)
        box = QWidget(self)
        box.setLayout(column)
        box.setMaximumWidth(980)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addWidget(box, 8)
        outer.addStretch(1)
        self.open_button.clicked.connect(self.open_folder_requested)
        self.later_button.clicked.connect(self.dismissed)
