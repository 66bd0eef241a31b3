"""Culling keys always reach the current image: a key pressed while a combo box, button, check box or
tab bar of the window has focus is handed to the current view (and focus goes back to it). Text
fields keep their keys, except Ctrl+Z / Ctrl+Shift+Z when they have no typing of their own to undo
(then it is the window's undo of the last mark); lists and trees outside the views keep their arrows."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

ARROWS = frozenset({Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down})
CULLING_KEYS = ARROWS | frozenset(
    {getattr(Qt.Key, f"Key_{n}") for n in range(10)}
    | {Qt.Key.Key_P, Qt.Key.Key_X, Qt.Key.Key_U, Qt.Key.Key_Z, Qt.Key.Key_E, Qt.Key.Key_W, Qt.Key.Key_N}
)
"""Arrows, 0-5 stars, 6-9 labels, P / X / U flags, Z zoom, E focus peaking, W why, N survey (Ctrl+Z is
a window shortcut). W and N too: a trial's first W went to the library tree, focused at start, and
did nothing until a thumbnail was clicked."""


def is_text_input(widget: QWidget | None) -> bool:
    """True for a widget that takes typed text: an editable line, spin box or text editor."""
    if isinstance(widget, QLineEdit | QAbstractSpinBox):
        return not widget.isReadOnly() if isinstance(widget, QLineEdit) else True
    if isinstance(widget, QTextEdit | QPlainTextEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return False


def is_culling_key(event: QKeyEvent) -> bool:
    """A culling key without Ctrl / Alt / Meta (Shift allowed: Shift+Z is 200 %)."""
    blocked = (
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
    )
    return event.key() in CULLING_KEYS and not (event.modifiers() & blocked)


class CullingKeyRouter(QObject):
    """An application event filter for one window; `target()` gives the current view's key widget."""

    def __init__(self, window: QWidget, target: Callable[[], QWidget | None]) -> None:
        super().__init__(window)
        self._window = window
        self._target = target
        self._forwarding = False  # a forwarded key the view ignores climbs to its parents: never forward it again
        app = QApplication.instance()  # a window exists, so the application does
        if app is not None:
            app.installEventFilter(self)

    def detach(self) -> None:
        """Stop routing (the window closes)."""
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Redirect culling keys that would land on a control instead of the current view."""
        if not isinstance(event, QKeyEvent) or not isinstance(watched, QWidget):
            return False  # both kinds below are key events (PySide hands them over as QKeyEvent)
        if event.type() == QEvent.Type.ShortcutOverride:
            return self._window_undo_wins(watched, event)
        if self._forwarding or event.type() != QEvent.Type.KeyPress:
            return False
        if watched.window() is not self._window or not is_culling_key(event):
            return False
        target = self._target()
        if target is None or not target.isVisible() or watched is target or target.isAncestorOf(watched):
            return False
        if is_text_input(watched):
            return False
        if isinstance(watched, QAbstractItemView) and event.key() in ARROWS:
            return False  # the library tree and other lists keep their arrows
        target.setFocus(Qt.FocusReason.OtherFocusReason)
        forwarded = QKeyEvent(event.type(), event.key(), event.modifiers(), event.text())
        self._forwarding = True
        try:
            QApplication.sendEvent(target, forwarded)
        finally:
            self._forwarding = False
        return True

    def _window_undo_wins(self, watched: QWidget, event: QKeyEvent) -> bool:
        """Ctrl+Z / Ctrl+Shift+Z in a text field with nothing of its own to undo (the file-name box
        after a search) is the window's undo of the last mark: the field would swallow it."""
        if watched.window() is not self._window or not isinstance(watched, QLineEdit) or watched.isReadOnly():
            return False
        if event.matches(QKeySequence.StandardKey.Undo) and not watched.isUndoAvailable():
            event.ignore()
            return True
        if event.matches(QKeySequence.StandardKey.Redo) and not watched.isRedoAvailable():
            event.ignore()
            return True
        return False
