"""File and folder choosers that never read the files they list.

Qt's own file dialog (and the GTK one the platform may put in its place, in this process) guesses
each listed file's type by opening it and reading its first bytes, the profile's -wal and -shm
files included. Closing such a read drops every lock this process holds on that file, which let
another process delete the WAL of the profile open in the window (store/file_guard.py). These
dialogs are Qt's own, with an icon provider that decides by name alone.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileInfo
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QWidget

PROFILE_FILTER = "Aesthete profile (*.aesthete.db *.db)"


class NamesOnlyIconProvider(QFileIconProvider):
    """Folder and file icons and type names from the file name alone (no content sniffing)."""

    def icon(self, what: QFileIconProvider.IconType | QFileInfo) -> QIcon:
        """A folder or a plain file icon; the stock icons for the dialog's own buttons."""
        if isinstance(what, QFileInfo):
            kind = QFileIconProvider.IconType.Folder if what.isDir() else QFileIconProvider.IconType.File
            return super().icon(kind)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:
        """"Folder", or the file's suffix in capitals ("DB file")."""
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} file" if suffix else "File"


class _NamesOnlyDialog(QFileDialog):
    """A file dialog holding its names-only icon provider (Qt does not take ownership of it)."""

    def __init__(self, parent: QWidget | None, title: str) -> None:
        super().__init__(parent, title)
        self.names_only = NamesOnlyIconProvider()


def _dialog(parent: QWidget | None, title: str, start: str) -> QFileDialog:
    # No start path in the constructor: given a file there, the dialog reads it at once, before an
    # icon provider can be set.
    dialog = _NamesOnlyDialog(parent, title)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setIconProvider(dialog.names_only)
    dialog.setProperty("names_only_icons", True)
    if start:
        dialog.setDirectory(start)
    return dialog


def choose_folder(parent: QWidget | None, title: str, start: str = "") -> str:
    """Ask for an existing folder; "" when the user cancels."""
    dialog = _dialog(parent, title, start)
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
        return ""
    return dialog.selectedFiles()[0]


def choose_profile_file(parent: QWidget | None, title: str, current: Path | None) -> str:
    """Ask for a profile file to open or create (beside `current`); "" when the user cancels."""
    dialog = _dialog(parent, title, str(current.parent) if current is not None else "")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setOption(QFileDialog.Option.DontConfirmOverwrite, True)
    dialog.setNameFilter(PROFILE_FILTER)
    if current is not None:
        dialog.selectFile(current.name)
    if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
        return ""
    return dialog.selectedFiles()[0]
