"""The judge-source pages of the model manager: local folder, hub model with its card, server."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.qt.dialogs.model_manager_cards import (
    DETECTING,
    SPEED_COLUMN,
    describe_card,
    judge_cards_table,
)
from aesthete_gui.services.models import default_judge, expected_speed, is_installed

if TYPE_CHECKING:
    from aesthete_gui.ml.registry import ModelCard
    from aesthete_gui.services.models import DeviceInfo


class FolderPage(QWidget):
    """A local model folder: its path, Browse… and Check buttons, and what the check found."""

    def __init__(self) -> None:
        super().__init__()
        self.folder_edit = QLineEdit()
        self.folder_edit.setPlaceholderText("A folder with config.json and *.safetensors")
        self.browse_button = QPushButton("Browse…")
        self.inspect_button = QPushButton("Check")
        self.folder_info = QLabel()
        self.folder_info.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        row.addWidget(self.browse_button)
        row.addWidget(self.inspect_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.folder_info)
        layout.addStretch(1)


class HubPage(QWidget):
    """A hub model id with the known judges listed (licence, download, memory, speed here), its
    card's needs, and a Download button. A permissively licensed judge is preselected."""

    def __init__(self, cards: list[ModelCard]) -> None:
        super().__init__()
        self._cards = cards
        self._speeds: dict[str, str] = {}
        self.hub_combo = QComboBox()
        self.hub_combo.setEditable(True)
        for card in self._cards:
            if card.role == "judge":
                self.hub_combo.addItem(card.id)
        preselected = default_judge(self._cards)
        if preselected is not None:
            self.hub_combo.setCurrentText(preselected.id)
        self.hub_combo.currentTextChanged.connect(self.show_card)
        self.download_button = QPushButton("Download")
        self.download_button.setToolTip(
            "Downloads the model's safetensors weights into the "
            "standard Hugging Face cache (network needed once)"
        )
        self.card_info = QLabel()
        self.card_info.setWordWrap(True)
        self.card_info.setTextFormat(Qt.TextFormat.RichText)
        self.cards_table = judge_cards_table(self._cards, self.hub_combo.setCurrentText)
        row = QHBoxLayout()
        row.addWidget(self.hub_combo, 1)
        row.addWidget(self.download_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.card_info)
        layout.addWidget(QLabel("Judges known to work (from the model cards):"))
        layout.addWidget(self.cards_table, 1)

    def show_card(self, model_id: str, extra: str = "") -> None:
        """Show the card of `model_id` (or that it has none), then `extra` on its own line."""
        card = next((c for c in self._cards if c.id == model_id.strip()), None)
        if card is None:
            text = (
                f"<b>{model_id}</b> has no model card: it may work if it is a Qwen-VL style "
                "model; its size is shown after download."
                if model_id.strip()
                else ""
            )
        else:
            text = describe_card(card, is_installed(card.id), self._speeds.get(card.id, DETECTING))
        self.card_info.setText(text + (f"<br>{html.escape(extra)}" if extra else ""))

    def show_speeds(self, device: DeviceInfo | None) -> None:
        """Fill the speed column (and the card shown) for `device` (None: it could not be measured)."""
        judges = [c for c in self._cards if c.role == "judge"]
        for row, card in enumerate(judges):
            self._speeds[card.id] = expected_speed(card, device) if device is not None else "unknown"
            item = self.cards_table.item(row, SPEED_COLUMN)
            if item is not None:  # judge_cards_table fills every cell
                item.setText(self._speeds[card.id])
                item.setToolTip(self._speeds[card.id])
        self.show_card(self.hub_combo.currentText())


class ServerPage(QWidget):
    """An OpenAI-compatible server: its URL with a connection test, the model name, a privacy note."""

    def __init__(self) -> None:
        super().__init__()
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("http://localhost:8000/v1")
        self.server_model_edit = QLineEdit()
        self.server_model_edit.setPlaceholderText("model name the server serves")
        self.test_button = QPushButton("Test connection")
        self.server_info = QLabel()
        self.server_info.setWordWrap(True)
        form = QFormLayout()
        url_row = QHBoxLayout()
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.test_button)
        form.addRow("Server URL:", url_row)
        form.addRow("Model:", self.server_model_edit)
        key_note = QLabel(
            "Images are sent to this server when the judge runs; nothing is sent before. If the "
            "server needs an API key, set it in the AESTHETE_API_KEY environment variable (or the "
            "system keyring under “aesthete” and this URL); it is never stored in the profile."
        )
        key_note.setWordWrap(True)
        key_note.setEnabled(False)  # muted: a note, not a control
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(self.server_info)
        layout.addWidget(key_note)
        layout.addStretch(1)
