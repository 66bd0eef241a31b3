"""The export dialog: where to put the picks (or the photographs shown), and whether to copy or move
them; it names every photograph that goes along without being chosen (a RAW+JPEG partner), so the
count the job and the status bar give afterwards is the one read here."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.qt.file_dialogs import choose_folder
from aesthete_gui.services.export_picks import photographs

COPY_HINT = (
    "The originals stay where they are. A RAW+JPEG pair and every sidecar go together; files "
    "already there with the same bytes are not copied again."
)
MOVE_HINT = (
    "A RAW+JPEG pair and every sidecar move together; each original is removed once its copy is "
    "verified. The library follows the files, so marks, scores and checks stay with them."
)
MIN_WIDTH = 520
MAX_NAMED = 4
"""Partners named one by one in the dialog; the rest are counted."""


def along_text(along: Sequence[tuple[str, str]]) -> str:
    """"IMG_0001.CR2 goes with IMG_0001.JPG (same exposure)", one a line, the rest counted."""
    lines = [f"{partner} goes with {chosen} (its RAW+JPEG partner: one exposure)" for partner, chosen in along[:MAX_NAMED]]
    if len(along) > MAX_NAMED:
        lines.append(f"… and {len(along) - MAX_NAMED} more")
    return "\n".join(lines)
HINT_INDENT = 26
"""The explanations sit under their radio button's text, not under its circle."""


class ExportPicksDialog(QDialog):
    """Folder and Copy / Move for an export of `count` photographs (`what` names them: "picks", …)."""

    def __init__(
        self, count: int, what: str, folder: str = "", move: bool = False, parent: QWidget | None = None,
        along: Sequence[tuple[str, str]] = (),
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.along = list(along)
        """The photographs going along (partner, chosen), counted once for the heading and the job's title."""
        self.setWindowTitle("Copy or move photographs")
        self.setMinimumWidth(MIN_WIDTH)
        layout = QVBoxLayout(self)
        sidecars = "its XMP sidecar" if count + len(along) == 1 else "their XMP sidecars"
        if along:
            heading = f"{count} {what}, {len(along)} RAW+JPEG partner{'s' if len(along) != 1 else ''} going with them " \
                      f"({photographs(count + len(along))}) and {sidecars}, to the folder:"  # fmt: skip
        else:
            heading = f"{count} {what} and {sidecars}, to the folder:"
        self.heading = QLabel(heading)
        self.heading.setWordWrap(True)
        layout.addWidget(self.heading)
        self.along_note = QLabel(along_text(along))
        self.along_note.setWordWrap(True)
        self.along_note.setVisible(bool(along))
        layout.addWidget(self.along_note)
        row = QHBoxLayout()
        self.folder_edit = QLineEdit(folder)
        self.folder_edit.setPlaceholderText("a folder (created when missing)")
        self.folder_edit.textChanged.connect(self._update)
        self.browse_button = QPushButton("Choose…")
        self.browse_button.clicked.connect(self._browse)
        row.addWidget(self.folder_edit, 1)
        row.addWidget(self.browse_button)
        layout.addLayout(row)
        self.copy_radio = QRadioButton("&Copy")
        self.move_radio = QRadioButton("&Move")
        group = QButtonGroup(self)
        self.copy_hint = QLabel(COPY_HINT)
        self.move_hint = QLabel(MOVE_HINT)
        # Each choice over its own explanation, both always shown: no text changes size when the
        # choice changes, so nothing is squeezed into the radio buttons or the buttons below.
        for radio, hint in ((self.copy_radio, self.copy_hint), (self.move_radio, self.move_hint)):
            group.addButton(radio)
            hint.setWordWrap(True)
            hint.setContentsMargins(HINT_INDENT, 0, 0, 4)
            layout.addWidget(radio, 0, Qt.AlignmentFlag.AlignLeft)
            layout.addWidget(hint)
        (self.move_radio if move else self.copy_radio).setChecked(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addSpacing(6)
        layout.addWidget(self.buttons)
        # a wrapped label's minimum height is one line: reserve what its text needs at the narrowest
        margins = layout.contentsMargins()
        narrowest = MIN_WIDTH - margins.left() - margins.right() - HINT_INDENT
        for hint in (self.copy_hint, self.move_hint):
            hint.setMinimumHeight(hint.heightForWidth(narrowest + HINT_INDENT))
        group.buttonToggled.connect(self._update)
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
        self.copy_hint.setEnabled(not self.wants_move())  # the choice not taken is drawn muted
        self.move_hint.setEnabled(self.wants_move())
        self.ok_button.setEnabled(bool(self.folder()))

    def _browse(self) -> None:
        chosen = choose_folder(self, "Destination folder", self.folder())
        if chosen:
            self.folder_edit.setText(chosen)
