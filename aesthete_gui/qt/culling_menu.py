"""The main window's culling menu entries: suggested rejects, burst marks, copying or moving picks,
and the Culling ▸ Shoot type menu."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction, QActionGroup

from aesthete_gui.imaging.shoot_types import DEFAULT_SHOOT_TYPE, shoot_types
from aesthete_gui.qt.culling_actions import (
    BURST_MARKS_SETTING,
    accept_suggestions_in_view,
    accepted_note,
    copy_files_job,
    describe_copy,
    dismiss_suggestions,
    dismissed_note,
    thin_bursts,
)
from aesthete_gui.qt.dialogs.export_picks import ExportPicksDialog
from aesthete_gui.qt.dialogs.keep_best import KeepBestDialog
from aesthete_gui.qt.task_runner import JobHandle
from aesthete_gui.qt.window_parts import WindowParts
from aesthete_gui.services.export_picks import going_along, photographs
from aesthete_gui.services.verdicts import SHOOT_TYPE_SETTING, profile_shoot_type, rejudge_library
from aesthete_gui.settings import PAIRS_AS_ONE_KEY, as_flag

EXPORT_FOLDER_SETTING = "export_folder"
EXPORT_MOVE_SETTING = "export_move"
"""The export dialog remembers the last folder and whether it moved."""


class CullingMenuMixin(WindowParts):
    """Mixed into MainWindow (which provides context, model, marks, grid, _action, show_message)."""

    export_dialog: ExportPicksDialog | None = None
    keep_best_dialog: KeepBestDialog | None = None

    def _add_culling_actions(self, file_menu: Any, edit_menu: Any) -> None:
        action = self._action
        before = file_menu.actions()[-2] if len(file_menu.actions()) >= 2 else None  # above "Quit"
        for text, picks_only in (("Copy or move picks to folder…", True), ("Copy or move shown photographs to folder…", False)):
            copy = QAction(text, file_menu)
            copy.triggered.connect(lambda _=False, p=picks_only: self._choose_and_copy(picks_only=p))
            file_menu.insertAction(before, copy)
        # a keyboard-driven cull reaches these without the mouse (X rejects, U unflags: with Ctrl+Shift
        # they act on the suggestions)
        self.accept_suggestions_action = action(edit_menu, "Accept suggested rejects in view", self._accept_suggestions, "Ctrl+Shift+X")
        action(edit_menu, "Dismiss suggested reject", self._dismiss_suggestions, "Ctrl+Shift+U")
        self.keep_best_action = action(edit_menu, "Keep the best of each burst, reject the rest…", self._keep_best_of_bursts)
        self.burst_marks_action = action(edit_menu, "Marks on a collapsed burst apply to all its frames", self._toggle_burst_marks)
        self.burst_marks_action.setCheckable(True)
        self.burst_marks_action.setChecked(bool(self.context.settings.get(BURST_MARKS_SETTING, False)))
        self._add_shoot_type_menu()

    def _dismiss_suggestions(self) -> None:
        self.show_message(dismissed_note(dismiss_suggestions(self.context, self.model, self.marks, self.grid.selected_ids())))

    def _accept_suggestions(self) -> None:
        self.show_message(accepted_note(*accept_suggestions_in_view(self.model, self.marks)))

    def _add_shoot_type_menu(self) -> None:
        """Culling ▸ Shoot type: one radio entry per shoot type (resources/culling/shoot_types.toml)."""
        culling_menu = self.menuBar().addMenu("&Culling")
        # the culling commands here too: a trial looked for Keep the best in this menu, not in Edit
        culling_menu.addAction(self.keep_best_action)
        culling_menu.addAction(self.accept_suggestions_action)
        culling_menu.addSeparator()
        menu = culling_menu.addMenu("Shoot &type")
        group = QActionGroup(menu)
        group.setExclusive(True)
        current = self.context.settings.get(SHOOT_TYPE_SETTING) or profile_shoot_type(self.context.profile)
        self.shoot_type_actions: dict[str, QAction] = {}
        for name, kind in shoot_types().items():
            entry = QAction(kind.label, menu)
            entry.setCheckable(True)
            entry.setChecked(name == current)
            entry.setToolTip(kind.about)
            entry.setStatusTip(kind.about)
            entry.triggered.connect(lambda _=False, n=name: self.set_shoot_type(n))
            group.addAction(entry)
            menu.addAction(entry)
            self.shoot_type_actions[name] = entry
        menu.setToolTipsVisible(True)

    def set_shoot_type(self, name: str) -> JobHandle | None:
        """Make `name` the profile's shoot type and judge the stored checks again under it (a job)."""
        kind = shoot_types().get(name) or shoot_types()[DEFAULT_SHOOT_TYPE]
        self.context.set_setting(SHOOT_TYPE_SETTING, kind.name)
        if kind.name in getattr(self, "shoot_type_actions", {}):
            self.shoot_type_actions[kind.name].setChecked(True)

        def done(result: Any) -> None:
            self.context.signals.library_changed.emit()  # suggested rejects and reasons changed
            self.show_message(f"Shoot type: {kind.label}. {kind.about}")

        return self.context.runner.submit(
            f"Judge the checks for {kind.label}", rejudge_library, self.context.profile, kind.name,
            on_done=done, on_error=lambda exc: self.show_message(f"Judging the checks failed: {exc}"),
        )  # fmt: skip

    def _export_ids(self, picks_only: bool) -> list[int]:
        if picks_only:
            return [r.image_id for r in self.model.all_rows() if r.flag == "pick" and r.status == "ok"]
        return self.model.visible_ids()

    def _choose_and_copy(self, picks_only: bool) -> ExportPicksDialog | None:
        """Open the export dialog (folder, Copy or Move); the export starts when it is accepted."""
        ids = self._export_ids(picks_only)
        count = len(ids)
        if not count:
            self.show_message("Nothing to copy: no picks." if picks_only else "Nothing to copy.")
            return None
        settings = self.context.settings
        what = ("pick" if picks_only else "photograph shown") if count == 1 else ("picks" if picks_only else "photographs shown")
        dialog = ExportPicksDialog(count, what,
                                   str(settings.get(EXPORT_FOLDER_SETTING, "")), bool(settings.get(EXPORT_MOVE_SETTING, False)), self,
                                   along=going_along(self.context.profile, ids))  # fmt: skip
        dialog.accepted.connect(lambda: self._export_chosen(dialog, picks_only))
        dialog.finished.connect(lambda _result: self.refocus())
        self.export_dialog = dialog
        dialog.open()
        return dialog

    def _export_chosen(self, dialog: ExportPicksDialog, picks_only: bool) -> None:
        self.context.set_setting(EXPORT_FOLDER_SETTING, dialog.folder())
        self.context.set_setting(EXPORT_MOVE_SETTING, dialog.wants_move())
        self.copy_to_folder(dialog.folder(), picks_only=picks_only, move=dialog.wants_move(), along=dialog.along)

    def copy_to_folder(
        self, folder: str, picks_only: bool = True, move: bool = False, along: Sequence[tuple[str, str]] | None = None,
    ) -> JobHandle | None:  # fmt: skip
        """Copy (or move) the picks, or the photographs shown, with their sidecars, as a cancellable job
        (`along`: the partners going with them, as the dialog counted them; looked up when None)."""
        ids = self._export_ids(picks_only)
        if not ids:
            self.show_message("Nothing to copy: no picks." if picks_only else "Nothing to copy.")
            return None
        if move:
            self.marks.wait_written()  # a sidecar write still queued must land before its file moves

        def done(result: Any) -> None:
            self.show_message(describe_copy(result, move))  # moved images are announced by the profile

        if along is None:
            along = going_along(self.context.profile, ids)
        total = len(ids) + len(along)  # the count the dialog gave
        return self.context.runner.submit(
            f"{'Move' if move else 'Copy'} {photographs(total)} to {Path(folder).name or folder}",
            copy_files_job,
            self.context.profile,
            ids,
            folder,
            move,
            on_done=done,
            on_error=lambda exc: self.show_message(f"{'Move' if move else 'Copy'} failed: {exc}"),
        )

    def _toggle_burst_marks(self) -> None:
        self.context.set_setting(BURST_MARKS_SETTING, self.burst_marks_action.isChecked())

    def _keep_best_of_bursts(self) -> KeepBestDialog | None:
        """Show every burst with the frame it keeps and the frames it would reject; on Reject, reject
        them as one undoable step (Ctrl+Z right after undoes it)."""
        bursts = thin_bursts(self.model.all_rows(), as_flag(self.context.settings.get(PAIRS_AS_ONE_KEY), False))
        if not bursts:
            self.show_message("No burst frames to reject: every burst is down to its best frame and the frames you marked.")
            return None
        dialog = KeepBestDialog(bursts, self.context.thumbnails, self)
        dialog.accepted.connect(lambda: self._keep_best_confirmed(dialog, len(bursts)))
        # a closed modal dialog leaves no window active on some desktops (and none without a window
        # manager): the keys, Ctrl+Z included, would go nowhere until the user clicked the window
        dialog.finished.connect(lambda _result: self.refocus())
        self.keep_best_dialog = dialog
        dialog.open()
        return dialog

    def _keep_best_confirmed(self, dialog: KeepBestDialog, bursts: int) -> None:
        ids = dialog.rejected_ids()
        self.marks.mark(ids, flag="reject")
        self.show_message(f"Rejected {len(ids)} frames of {bursts} bursts; Ctrl+Z undoes it.")
