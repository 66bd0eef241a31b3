"""What the main window's mixins (review helpers, culling menu, job menu) use of the window.

For the type checker each mixin is a QMainWindow with these members; at run time it is a plain class
that MainWindow mixes in, and MainWindow provides every member (mypy checks that its definitions fit).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PySide6.QtGui import QAction, QKeySequence
    from PySide6.QtWidgets import QMainWindow

    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.item_models import ImageListModel
    from aesthete_gui.qt.undo import MarkController
    from aesthete_gui.qt.widgets.compare_view import CompareView
    from aesthete_gui.qt.widgets.filter_bar import FilterBar
    from aesthete_gui.qt.widgets.grid_view import GridView
    from aesthete_gui.qt.widgets.inspector import Inspector

    class WindowParts(QMainWindow):
        """The members of MainWindow its mixins call."""

        context: AppContext
        model: ImageListModel
        marks: MarkController
        grid: GridView
        compare: CompareView
        inspector: Inspector
        filter_bar: FilterBar
        _current_view: str

        def _action(
            self,
            menu: Any,
            text: str,
            slot: Callable[..., object],
            shortcut: str | QKeySequence.StandardKey | None = None,
        ) -> QAction: ...
        def show_message(self, text: str, msecs: int = 6000) -> None: ...
        def show_view(self, key: str) -> None: ...
        def focus_current_view(self) -> None: ...
        def refocus(self) -> None: ...
        def compare_suggested_pairs(self) -> None: ...
        def _update_counts(self, *_args: object) -> None: ...
        def _update_model_label(self) -> None: ...

else:
    WindowParts = object
