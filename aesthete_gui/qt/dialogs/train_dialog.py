"""Asks how to train a taste adapter: its name, the base scorer, whether to draw the learning curve."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

NAME_RE = re.compile(r"^[\w .-]{1,64}$")


@dataclass(frozen=True)
class TrainOptions:
    """What the user asked for."""

    name: str
    base_scorer: str
    learning_curve: bool


class TrainDialog(QDialog):
    """A small form; `options()` returns the choices once accepted."""

    def __init__(self, scorers: list[str], current_scorer: str, choices: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Train taste adapter")
        intro = QLabel(
            f"The adapter learns from your {choices} recorded choices, on top of the base scorer, "
            "and stays close to it where you gave no evidence. It is first trained on your earlier "
            "choices and tested on the latest ones, then trained on all of them.")
        intro.setWordWrap(True)
        self.name_edit = QLineEdit(time.strftime("taste-%Y%m%d-%H%M"))
        self.scorer_combo = QComboBox()
        self.scorer_combo.addItems(scorers)
        if current_scorer in scorers:
            self.scorer_combo.setCurrentText(current_scorer)
        self.curve_check = QCheckBox("Also draw the learning curve (trains a few more times)")
        self.curve_check.setChecked(True)
        self.error_label = QLabel()
        form = QFormLayout()
        form.addRow("Name:", self.name_edit)
        form.addRow("Base scorer:", self.scorer_combo)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept_if_valid)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.curve_check)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.resize(480, 220)

    def options(self) -> TrainOptions:
        """The options as filled in."""
        return TrainOptions(self.name_edit.text().strip(), self.scorer_combo.currentText(),
                            self.curve_check.isChecked())

    def _accept_if_valid(self) -> None:
        if not NAME_RE.match(self.name_edit.text().strip()):
            self.error_label.setText("Use 1–64 letters, digits, spaces, dots, dashes or underscores.")
            return
        self.accept()
