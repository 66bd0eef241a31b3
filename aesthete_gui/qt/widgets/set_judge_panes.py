"""The Set view's judge panes: the no-judge banner and the three streamed explanation stages."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

STAGES = ("analyser", "critic", "summariser")
STAGE_TITLES = (
    "1 · Analyser — what is in each image",
    "2 · Critic — what the analysis missed",
    "3 · Summariser — the decision",
)
NO_MODEL_TEXT = (
    "<b>No judge model is set up.</b> You can still pick the best and the worst yourself below "
    "and record them. A vision-language judge would add: its own best and worst pick, "
    "checked under several orderings of the set, with a three-stage explanation (facts, "
    "critique, decision) you can verify against the images."
)


class JudgeModelBanner(QFrame):
    """Says that no judge model is set up, what one would add, and offers to set one up."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        banner_text = QLabel(NO_MODEL_TEXT)
        banner_text.setWordWrap(True)
        banner_text.setTextFormat(Qt.TextFormat.RichText)
        self.open_manager_button = QPushButton("Set up a model…")
        layout = QHBoxLayout(self)
        layout.addWidget(banner_text, 1)
        layout.addWidget(self.open_manager_button)


class StageRelay(QObject):
    """Carries stage texts from the judge's worker thread to the UI thread."""

    stage = Signal(int, str, str)


class StageGrid(QGridLayout):
    """The three explanation stages side by side, each a title over a read-only text pane."""

    def __init__(self) -> None:
        super().__init__()
        self.titles: list[QLabel] = []
        self.panes: list[QPlainTextEdit] = []
        for column, title in enumerate(STAGE_TITLES):
            label = QLabel(title)
            pane = QPlainTextEdit()
            pane.setReadOnly(True)
            pane.setPlaceholderText("Waiting for the judge…")
            pane.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            self.addWidget(label, 0, column)
            self.addWidget(pane, 1, column)
            self.titles.append(label)
            self.panes.append(pane)

    def set_visible(self, visible: bool) -> None:
        """Show or hide the stage titles and panes (hidden while no judge is set up)."""
        for widget in (*self.titles, *self.panes):
            widget.setVisible(visible)

    def clear_texts(self) -> None:
        """Empty every stage pane."""
        for pane in self.panes:
            pane.clear()

    def await_judge(self) -> None:
        """Empty the panes for a new run: the first stage is being written, the others wait."""
        for index, pane in enumerate(self.panes):
            pane.clear()
            pane.setPlaceholderText("Waiting for the judge…" if index else "Writing…")

    def show_stage(self, index: int, text: str) -> None:
        """Show one finished stage; the next one is being written."""
        self.panes[index].setPlainText(text)
        if index + 1 < len(self.panes):
            self.panes[index + 1].setPlaceholderText("Writing…")

    def show_texts(self, texts: Sequence[str]) -> None:
        """Show the stage texts of a finished verdict (as many as there are panes)."""
        for index, text in enumerate(texts[: len(self.panes)]):
            self.panes[index].setPlainText(text)
