"""Model cards in the model manager: the card description and the judges table."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from aesthete_gui.services.models import is_installed

if TYPE_CHECKING:
    from aesthete_gui.ml.registry import ModelCard


CARD_COLUMNS = (
    "Model",
    "Parameters",
    "GPU memory (bf16)",
    "CPU memory (fp32)",
    "Licence",
    "Downloaded",
)


def describe_card(card: ModelCard, installed: bool) -> str:
    """Requirements and notes of a model card as a short rich-text paragraph."""
    state = "already downloaded" if installed else "not downloaded"
    return (
        f"<b>{card.id}</b> ({card.family}, {card.parameters_billion:g} B parameters, "
        f"licence {card.licence}) — {state}.<br>Disk ≈ {card.memory_gib_bf16:.1f} GiB; memory "
        f"≈ {card.memory_gib_bf16:.1f} GiB on a GPU (bf16), ≈ {card.memory_gib_float32:.1f} GiB "
        f"on the CPU.<br>{card.notes}"
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
            f"{card.parameters_billion:g} B",
            f"{card.memory_gib_bf16:.1f} GiB",
            f"{card.memory_gib_float32:.1f} GiB",
            card.licence,
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
