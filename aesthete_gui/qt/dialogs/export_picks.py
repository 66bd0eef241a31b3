"""The export dialog: where to put the picks (or the photographs shown), and whether to copy or move them."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

COPY_HINT = (
    "The originals stay where they are. A RAW+JPEG pair and every sidecar go together; files "
    "already there with the same bytes are not copied again."
)
MOVE_HINT = (
    "A RAW+JPEG pair and every sidecar move together; each original is removed once its copy is "
    "verified. The library follows the files, so marks, scores and checks stay with them."
)


class ExportPicksDialog(QDialog):
    """Folder and Copy / Move for an export of `count` photographs (`what` names them: "picks", …)."""

    def __init__(self, count: int, what: str, folder: str = "", move: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Copy or move photographs")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"{count} {what} and their XMP sidecars, to the folder:"))
        row = QHBoxLayout()
        self.folder_edit = QLineEdit(folder)
        self.folder_edit.setPlaceholderText("a folder (created when missing)")
        self.folder_edit.textChanged.connect(self._update)
        self.browse_button = QPushButton("Choose…")
        self.browse_button.clicked.connect(self._browse)
        row.addWidget(self.folder_edit, 1)
        row.addWidget(self.browse_button)
        layout.addLayout(row)
        self.copy_radio = QRadioButton("Copy")
        self.move_radio = QRadioButton("Move")
        (self.move_radio if move else self.copy_radio).setChecked(True)
        choice = QHBoxLayout()
        for radio in (self.copy_radio, self.move_radio):
            radio.toggled.connect(self._update)
            choice.addWidget(radio)
        choice.addStretch(1)
        layout.addLayout(choice)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._update()

    @property
    def ok_button(self) -> QPushButton:
        """The button that starts the export ("Copy" or "Move")."""
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def folder(self) -> str:
        """The destination as typed or chosen (whitespace trimmed)."""
        return self.folder_edit.text().strip()

    def wants_move(self) -> bool:
        """True when the user chose Move."""
        return self.move_radio.isChecked()

    def _update(self) -> None:
        self.ok_button.setText("Move" if self.wants_move() else "Copy")
        self.hint.setText(MOVE_HINT if self.wants_move() else COPY_HINT)
        self.ok_button.setEnabled(bool(self.folder()))

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Destination folder", self.folder())
        if chosen:
            self.folder_edit.setText(chosen)
