"""Model cards in the model manager: the card description and the judges table (licence, download,
memory and the expected speed on this machine)."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from aesthete_gui.services.models import installed_path, is_installed

if TYPE_CHECKING:
    from aesthete_gui.ml.registry import ModelCard


CARD_COLUMNS = (
    "Model",
    "Licence",
    "Parameters",
    "Download",
    "Memory: GPU (bf16) / CPU (fp32)",
    "Speed on this machine",
    "Downloaded",
)
SPEED_COLUMN = CARD_COLUMNS.index("Speed on this machine")
DETECTING = "measuring this machine…"


def licence_text(card: ModelCard) -> str:
    """The licence, and whether it allows commercial use."""
    if card.permissive:
        return f"{card.licence} (commercial use allowed)"
    return f"{card.licence}: check it before any commercial use"


def disk_text(card: ModelCard) -> str:
    """The download's size (the bf16 weights), or the size on disk once downloaded."""
    folder = installed_path(card.id)
    if folder is not None:
        size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
        return f"{size / 2**30:.1f} GiB on disk"
    return f"≈ {card.memory_gib_bf16:.1f} GiB"


def describe_card(card: ModelCard, installed: bool, speed: str = DETECTING) -> str:
    """Licence, size, memory need and expected speed of a model card as a short rich-text paragraph."""
    state = "already downloaded" if installed else "not downloaded"
    return (
        f"<b>{html.escape(card.id)}</b> ({card.family}, {card.parameters_billion:g} B parameters) — {state}."
        f"<br>Licence: {html.escape(licence_text(card))}."
        f"<br>Download {disk_text(card)}; memory ≈ {card.memory_gib_bf16:.1f} GiB on a GPU (bf16), "
        f"≈ {card.memory_gib_float32:.1f} GiB on the CPU. Speed here: {html.escape(speed)}."
        f"<br>{html.escape(card.notes)}"
    )


def judge_cards_table(cards: Sequence[ModelCard], on_pick: Callable[[str], None]) -> QTableWidget:
    """A read-only table of the judge cards' sizes, licence and download state; a click picks one."""
    judges = [c for c in cards if c.role == "judge"]
    table = QTableWidget(len(judges), len(CARD_COLUMNS))
    table.setHorizontalHeaderLabels(CARD_COLUMNS)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
    for row, card in enumerate(judges):
        values = (
            card.id,
            licence_text(card),
            f"{card.parameters_billion:g} B",
            disk_text(card),
            f"{card.memory_gib_bf16:.1f} / {card.memory_gib_float32:.1f} GiB",
            DETECTING,
            "yes" if is_installed(card.id) else "no",
        )
        for column, value in enumerate(values):
            item = QTableWidgetItem(value)
            item.setToolTip(value)
            table.setItem(row, column, item)
    header = table.horizontalHeader()
    licence = CARD_COLUMNS.index("Licence")
    for column in range(len(CARD_COLUMNS)):
        mode = (
            QHeaderView.ResizeMode.Stretch
            if column == licence
            else QHeaderView.ResizeMode.ResizeToContents
        )
        header.setSectionResizeMode(column, mode)
    table.setTextElideMode(Qt.TextElideMode.ElideRight)
    table.setWordWrap(False)
    table.cellClicked.connect(lambda row, _column: on_pick(judges[row].id))
    return table
