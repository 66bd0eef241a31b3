"""The first-run welcome: the three modes, the built-in scorer at work offline, how to add a judge, and "open a folder"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QPixmap, QShowEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from aesthete_gui.qt.task_runner import TaskRunner
    from aesthete_gui.services.first_run import BuiltinCheck

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

JUDGE_WAYS = (
    "A judge is a vision-language model: it explains its picks and adds its own scores. "
    "Models ▸ Model manager sets one up in one of three ways:"
    "<ul style='margin-left:-20px'>"
    "<li><b>Download</b> a listed model (2–8 billion parameters); a progress bar shows the "
    "download and Cancel stops it.</li>"
    "<li><b>Local folder</b>: point to a model you already have on disk.</li>"
    "<li><b>Server</b>: an OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama…) on this "
    "computer or another one.</li></ul>"
)
SAMPLE_SIDE = 150


class WelcomePage(QWidget):
    """Shown while the profile has no photographs (and from Help ▸ Welcome)."""

    open_folder_requested = Signal()
    model_manager_requested = Signal()
    dismissed = Signal()

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self._runner = runner
        self._check_started = False
        self.builtin_check: BuiltinCheck | None = None
        title = QLabel("Welcome to Aesthete", self)
        title.setObjectName("welcomeTitle")
        intro = QLabel(
            "Cull a shoot, compare versions of an image, and teach Aesthete your own taste. "
            "Everything works offline and without a model: import, culling, comparing and taste "
            "learning run on the built-in scorer. A judge model is an optional extra.",
            self,
        )
        intro.setWordWrap(True)
        cards = QHBoxLayout()
        cards.setSpacing(12)
        for heading, key, text in MODES:
            cards.addWidget(self._card(f"<b>{heading}</b>  <span style='color:gray'>({key})</span>", text), 1)
        extras = QHBoxLayout()
        extras.setSpacing(12)
        extras.addWidget(self._builtin_card(), 1)
        extras.addWidget(self._judge_card(), 1)

        self.open_button = QPushButton("Open a folder of photographs…", self)
        self.open_button.setObjectName("primary")
        self.open_button.setDefault(True)
        self.later_button = QPushButton("Not now", self)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.later_button)
        buttons.addStretch(1)

        column = QVBoxLayout()
        column.setSpacing(14)
        column.addStretch(1)
        for widget in (title, intro):
            column.addWidget(widget)
        column.addLayout(cards)
        column.addLayout(extras)
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
        self.judge_button.clicked.connect(self.model_manager_requested)

    def _card(self, heading: str, text: str) -> QFrame:
        card = QFrame(self)
        card.setObjectName("welcomeCard")
        layout = QVBoxLayout(card)
        layout.addWidget(QLabel(heading, card))
        body = QLabel(text, card)
        body.setWordWrap(True)
        body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(body, 1)
        return card

    def _builtin_card(self) -> QFrame:
        card = QFrame(self)
        card.setObjectName("welcomeCard")
        layout = QVBoxLayout(card)
        layout.addWidget(QLabel("<b>Built-in scorer</b>  <span style='color:gray'>(offline, no download)</span>", card))
        row = QHBoxLayout()
        self.sample_label = QLabel(card)
        self.sample_label.setFixedSize(SAMPLE_SIDE, SAMPLE_SIDE * 2 // 3)
        self.sample_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.builtin_scores = QLabel(card)
        self.builtin_scores.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        row.addWidget(self.sample_label, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.builtin_scores, 1)
        layout.addLayout(row)
        self.builtin_status = QLabel("Scoring a test picture on this computer…", card)
        self.builtin_status.setWordWrap(True)
        layout.addWidget(self.builtin_status)
        layout.addStretch(1)
        return card

    def _judge_card(self) -> QFrame:
        card = QFrame(self)
        card.setObjectName("welcomeCard")
        layout = QVBoxLayout(card)
        layout.addWidget(QLabel("<b>Add a judge model</b>  <span style='color:gray'>(optional)</span>", card))
        body = QLabel(JUDGE_WAYS, card)
        body.setWordWrap(True)
        body.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(body, 1)
        self.judge_button = QPushButton("Open the Model manager…", card)
        layout.addWidget(self.judge_button, 0, Qt.AlignmentFlag.AlignLeft)
        return card

    def showEvent(self, event: QShowEvent) -> None:
        """Score the test picture the first time the page is shown."""
        super().showEvent(event)
        if not self._check_started:
            self.start_builtin_check()

    def start_builtin_check(self) -> None:
        """Measure and score the sample picture in a worker; the result fills the scorer card."""
        from aesthete_gui.services.first_run import check_builtin_scorer

        self._check_started = True
        self._runner.submit(
            "Check the built-in scorer", check_builtin_scorer, on_done=self.show_builtin_check,
            on_error=self._builtin_failed, visible=False,
        )  # fmt: skip

    def show_builtin_check(self, check: BuiltinCheck) -> None:
        """Show the test picture and its five scores."""
        self.builtin_check = check
        sample = check.sample.convert("RGB")
        image = QImage(sample.tobytes(), sample.width, sample.height, 3 * sample.width, QImage.Format.Format_RGB888)
        self.sample_label.setPixmap(
            QPixmap.fromImage(image.copy()).scaled(
                self.sample_label.size(), Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
            )
        )
        rows = "".join(
            f"<tr><td>{name.capitalize()}</td><td align='right'>&nbsp;&nbsp;<b>{value:.1f}</b></td></tr>"
            for name, value in check.scores.items()
        )
        self.builtin_scores.setText(f"<table>{rows}</table>")
        self.builtin_status.setText(
            f"✓ Ready: it scored this test picture on this computer in {check.seconds * 1000:.0f} ms, "
            "with no network and no model. It ranks and culls until you teach it your taste."
        )

    def _builtin_failed(self, error: BaseException) -> None:
        self.builtin_status.setText(f"The built-in scorer could not run here: {error}")
