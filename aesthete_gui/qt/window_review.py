"""The main window's review helpers: one-key filters, the pick count said with each mark, the
inspector following Compare's pair, one named score per view, focus back after dialogs."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from aesthete_gui.qt.window_parts import WindowParts


class ReviewMixin(WindowParts):
    """Mixed into MainWindow (which provides model, inspector, compare, filter_bar, _action, ...)."""

    _picks_shown: int = 0  # the pick count last announced, to say how a mark changed it
    _mark_note: str = ""  # said with the next mark's pick count (frames reached, undo)

    def default_size(self) -> QSize:
        """1280×800, or less on a smaller screen: a 1280×800 window on a 1280×800 laptop put its
        status bar below the screen's edge (the title bar and a panel take room too)."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return QSize(1280, 800)
        room = screen.availableGeometry().size()
        return QSize(min(1280, room.width()), min(800, room.height() - 48))

    def _add_quick_filters(self, view_menu: Any) -> None:
        """View ▸ Quick filters: one key per common filter (the same key again turns it off)."""
        quick = view_menu.addMenu("&Quick filters")
        for text, name, key in (("Picks only", "picks", "Alt+P"), ("Hide rejects", "hide_rejects", "Alt+X"),
                                ("Unrated only", "unrated", "Alt+U"), ("Suggested rejects only", "suggested", "Alt+R"),
                                ("Collapse bursts", "bursts", "Alt+B")):  # fmt: skip
            self._action(quick, text, lambda _=False, n=name: self.filter_bar.toggle_quick(n), key)
        self._action(quick, "Show all flags and stars", self.filter_bar.clear_quick, "Alt+0")

    def refocus(self) -> None:
        """Make this window active again with the keys on the current view (after a dialog closed:
        without it the keys, Ctrl+Z included, may go nowhere until the window is clicked)."""
        self.activateWindow()
        self.raise_()
        self.focus_current_view()

    def compare_suggested_pairs(self) -> None:
        """Compare on the taste service's suggested pairs from the whole library."""
        self.show_view("compare")
        self.compare.compare_suggested_pairs()
        self.refocus()

    def _compare_inspected(self, image_id: int) -> None:
        if self._current_view == "compare":
            self.inspector.show_image(image_id)

    def _shown_score(self, image_id: int) -> tuple[float | None, str] | None:
        row = self.model.row_for(image_id)
        return None if row is None else (self.model.shown_score(row), self.model.score_label())

    def _score_source_changed(self, *_args: object) -> None:
        self._update_model_label()
        self.inspector.refresh_score()

    def _note_next_mark(self, text: str) -> None:
        self._mark_note = text

    def _marks_applied(self, *_args: object) -> None:
        """Update the counts; when the pick count changed, say so ("picks 1 → 20")."""
        self._update_counts()
        picks = self.model.flag_count("pick")
        note, self._mark_note = self._mark_note, ""
        parts = [note] if note else []
        if picks != self._picks_shown:
            parts.append(f"picks {self._picks_shown} → {picks}")
        self._picks_shown = picks
        if parts:
            self.show_message(" · ".join(parts))
