"""The main window's culling menu entries: suggested rejects, burst marks, copying picks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox

from aesthete_gui.qt.culling_actions import (
    BURST_MARKS_SETTING,
    accept_suggestions_in_view,
    copy_files_job,
    describe_copy,
    dismiss_suggestions,
    keep_best_of_bursts,
    rest_of_bursts,
)
from aesthete_gui.qt.task_runner import JobHandle


class CullingMenuMixin:
    """Mixed into MainWindow (which provides context, model, marks, grid, _action, show_message)."""

    context: Any
    model: Any
    marks: Any
    grid: Any

    def _add_culling_actions(self, file_menu: Any, edit_menu: Any) -> None:
        action = self._action  # type: ignore[attr-defined]
        before = file_menu.actions()[-2] if len(file_menu.actions()) >= 2 else None  # above "Quit"
        for text, picks_only in (("Copy picks to folder…", True), ("Copy shown photographs to folder…", False)):
            copy = QAction(text, file_menu)
            copy.triggered.connect(lambda _=False, p=picks_only: self._choose_and_copy(picks_only=p))
            file_menu.insertAction(before, copy)
        action(edit_menu, "Accept suggested rejects in view", lambda: accept_suggestions_in_view(self.model, self.marks))
        action(edit_menu, "Dismiss suggested reject", lambda: dismiss_suggestions(self.context, self.model, self.marks, self.grid.selected_ids()))
        action(edit_menu, "Keep the best of each burst, reject the rest…", self._keep_best_of_bursts)
        self.burst_marks_action = action(edit_menu, "Marks on a collapsed burst apply to all its frames", self._toggle_burst_marks)
        self.burst_marks_action.setCheckable(True)
        self.burst_marks_action.setChecked(bool(self.context.settings.get(BURST_MARKS_SETTING, True)))

    def _choose_and_copy(self, picks_only: bool) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Copy to folder")
        if folder:
            self.copy_to_folder(folder, picks_only=picks_only)

    def copy_to_folder(self, folder: str, picks_only: bool = True, move: bool = False) -> JobHandle | None:
        """Copy (or move) the picks, or the photographs shown, with their sidecars, as a cancellable job."""
        if picks_only:
            ids = [r.image_id for r in self.model.all_rows() if r.flag == "pick" and r.status == "ok"]
        else:
            ids = self.model.visible_ids()
        if not ids:
            self.show_message("Nothing to copy: no picks." if picks_only else "Nothing to copy.")
            return None
        return self.context.runner.submit(
            f"Copy {len(ids)} photographs to {Path(folder).name or folder}",
            copy_files_job,
            self.context.profile,
            ids,
            folder,
            move,
            on_done=lambda result: self.show_message(describe_copy(result, move)),
            on_error=lambda exc: self.show_message(f"Copy failed: {exc}"),
        )

    def _toggle_burst_marks(self) -> None:
        self.context.set_setting(BURST_MARKS_SETTING, self.burst_marks_action.isChecked())

    def _keep_best_of_bursts(self) -> None:
        """Preview how many frames would be rejected, then do it as one undoable step."""
        count = len(rest_of_bursts(self.model.all_rows()))
        if not count:
            self.statusBar().showMessage("No burst frames to reject", 4000)
            return
        answer = QMessageBox.question(self, "Keep the best of each burst", f"Reject {count} frames (all but the best of each burst; frames you flagged, starred or labelled stay)?")
        if answer == QMessageBox.StandardButton.Yes:
            keep_best_of_bursts(self.model, self.marks)
