"""Dialogs opened from the main window's menus (the model manager and the taste panel)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext


def open_model_manager(context: AppContext, parent: QWidget | None = None) -> QDialog:
    """Show the model manager (judge and scorer choice) modally; returns the dialog after it closed."""
    from aesthete_gui.qt.dialogs.model_manager import ModelManagerDialog

    dialog = ModelManagerDialog(context, parent)
    dialog.exec()
    return dialog


def open_taste_panel(context: AppContext, parent: QWidget | None = None) -> QDialog:
    """Show the taste / scores / distillation panel in a non-modal window."""
    from aesthete_gui.qt.widgets.taste_panel import TastePanel

    dialog = QDialog(parent)
    dialog.setWindowTitle("Taste and scores")
    dialog.resize(900, 640)
    layout = QVBoxLayout(dialog)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(TastePanel(context, dialog))
    dialog.show()
    return dialog
