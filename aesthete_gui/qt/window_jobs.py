"""The main window's job menu: import, rescan, score, distil, train, and the dialogs that start jobs.

A mixin of MainWindow (it uses the window's context, model, message line and views); every job is
a function of `qt/actions.py` run by the TaskRunner, so the UI thread only starts and reports them.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QMessageBox, QPushButton

from aesthete_gui.engine.scorers import BUILTIN
from aesthete_gui.qt import actions
from aesthete_gui.qt.file_dialogs import choose_folder
from aesthete_gui.qt.task_runner import JobHandle
from aesthete_gui.qt.window_parts import WindowParts

log = logging.getLogger(__name__)

PARTIAL_RELOAD_S = 2.0
"""While an import runs, the grid re-reads the rows committed so far at most this often."""


class JobMenuMixin(WindowParts):
    """Menu actions that start jobs; mixed into MainWindow."""

    _last_partial_reload: float = 0.0
    _import_problems: tuple[str, list[str]]
    _imports_started: int = 0

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept folders dragged from a file manager."""
        if _dropped_folders(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Import the dropped folders as one job."""
        folders = _dropped_folders(event.mimeData())
        if folders:
            event.acceptProposedAction()
            self.import_folders(folders)

    def choose_and_import(self) -> None:
        """Ask for a folder (starting in the last one opened, else the home folder), then import it."""
        folder = choose_folder(self, "Open a folder of photographs", self.start_folder())
        self.refocus()
        if folder:
            self.import_folders([Path(folder)])

    def start_folder(self) -> str:
        """Where *Open folder* starts: the parent of the last folder opened when it still exists (its
        siblings are the likely next shoots), else the home folder — never the program's folder."""
        for recent in self.context.settings.get("recent_folders") or []:
            parent = Path(str(recent)).expanduser().parent
            if parent.is_dir():
                return str(parent)
        return str(Path.home())

    def import_folders(self, folders: list[Path], skip_missing: bool = False) -> JobHandle:
        """Import folders in the background; the grid fills as batches land (`skip_missing`: a rescan
        leaves out a folder that is not there, checked in the job, not here: a network folder can hang)."""
        self.context.set_setting("welcome_done", True)
        recent = [str(f) for f in folders] + list(self.context.settings.get("recent_folders") or [])
        self.context.set_setting("recent_folders", list(dict.fromkeys(recent))[:10])
        if self._current_view == "welcome":
            self.show_view("grid")
        self.import_report_button.hide()  # an earlier import's problems; this one reports its own
        self._imports_started += 1
        names = ", ".join(f.name or str(f) for f in folders)
        handle = self.context.runner.submit(
            f"Import {names}",
            actions.import_job,
            self.context.profile,
            [str(f) for f in folders],
            self.context.cache_dir,
            skip_missing=skip_missing,
            on_done=self._import_done,
            on_error=lambda exc: self.show_message(f"Import failed: {exc}"),
        )
        handle.progress.connect(self._import_progress)
        return handle

    def _import_progress(self, _progress: object) -> None:
        # show what has landed so far: batches are committed as the import goes
        now = time.monotonic()
        if now - self._last_partial_reload > PARTIAL_RELOAD_S:
            self._last_partial_reload = now
            self.model.reload()

    def rescan_library(self) -> JobHandle | None:
        """Import every known folder again (new, changed and vanished files)."""
        folders = [Path(f.path) for f in self.context.profile.catalog.folders()]
        return self.import_folders(folders, skip_missing=True) if folders else None

    def remeasure_outdated(self) -> JobHandle:
        """Rescan the library's folders when photographs were checked by an older Aesthete: their
        verdicts are hidden until measured again, and a rescan measures only them (and what changed).
        The count runs in a worker: the window's start-up never waits on the profile's disk."""

        def count(progress: object = None, cancel: object = None) -> tuple[int, bool, bool]:
            from aesthete_gui.services.library_upkeep import grouping_outdated
            from aesthete_gui.services.verdicts import verdicts_outdated

            profile = self.context.profile
            return profile.checks.outdated_count(), grouping_outdated(profile), verdicts_outdated(profile)

        return self.context.runner.submit("Looking for outdated checks", count, on_done=self._remeasure_if_outdated,
                                          on_error=lambda exc: log.warning("could not count outdated checks: %s", exc),
                                          visible=False)  # fmt: skip

    def _remeasure_if_outdated(self, due: tuple[int, bool, bool]) -> None:
        outdated, regroup, rejudge = due
        if (outdated or regroup) and self.rescan_library() is not None:
            # the import's own upkeep groups again (in a worker process for a large library) and judges again
            self.show_message(f"{outdated} photographs were checked by an older version of Aesthete: measuring them again (Jobs panel)"
                              if outdated else "Grouping the bursts again for this version of Aesthete (Jobs panel)")  # fmt: skip
        elif rejudge:  # only judging changed: from the stored measurements, nothing is read again
            self.context.runner.submit("Judging the checks again for this version", self._rejudge, on_done=self._rejudged,
                                       on_error=lambda exc: self.show_message(f"Judging the checks failed: {exc}"))  # fmt: skip

    def _rejudge(self, progress: object = None, cancel: object = None) -> object:
        from aesthete_gui.services.verdicts import rejudge_library

        return rejudge_library(self.context.profile, cancel=cancel)

    def _rejudged(self, result: object) -> None:
        self.context.signals.library_changed.emit()  # suggested rejects and reasons
        self.show_message("Verdicts judged again for this version of Aesthete")

    def _import_done(self, summary: object) -> None:
        # the import service announced the new images (signals.library_changed)
        text = actions.describe_import(summary)
        if getattr(summary, "imported", 0):
            # import checks but does not score: a held10 trial waited for scores that never came
            text += " · not scored yet: Scoring ▸ Score library (Ctrl+Shift+R) scores them"
        self.show_message(text)
        self._show_import_report(text, actions.import_problems(summary))

    def _show_import_report(self, text: str, problems: list[str]) -> None:
        if problems:
            self._import_problems = (text, problems)
            self.import_report_button.setText(f"⚠ {len(problems)} not taken in: details")
            self.import_report_button.show()

    def restore_import_report(self) -> JobHandle:
        """Put the last import's report button back (a window start): it stays until the next import,
        and a restart lost it while its files stayed unreadable (a trial). Read from the import's run
        in the profile, in a worker: the window's start never waits on the profile's disk."""
        started = self._imports_started

        def restored(summary: object) -> None:
            if self._imports_started == started:  # an import begun meanwhile reports its own
                self._show_import_report(actions.describe_import(summary), actions.import_problems(summary))

        return self.context.runner.submit("Reading the last import's report", actions.last_import_summary,
                                          self.context.profile, on_done=restored,
                                          on_error=lambda exc: log.warning("could not read the last import's report: %s", exc),
                                          visible=False)  # fmt: skip

    def _add_import_report_button(self) -> None:
        # the status line passes in seconds (a trial missed that a truncated frame was never imported);
        # a button stays in the status bar until the next import, and a box would take the keys from the culling
        self._import_problems = ("", [])
        self.import_report_button = QPushButton(self)
        self.import_report_button.setFlat(True)
        self.import_report_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.import_report_button.setToolTip("The files and folders the last import could not take in, and why")
        self.import_report_button.clicked.connect(self._open_import_report)
        self.import_report_button.hide()
        self.statusBar().addPermanentWidget(self.import_report_button)

    def _open_import_report(self) -> None:
        text, problems = self._import_problems
        count = len(problems)
        box = QMessageBox(QMessageBox.Icon.Warning, "Import: some files need a look", text, QMessageBox.StandardButton.Close, self)
        box.setInformativeText(f"{count} file{'s' if count != 1 else ''} or folder{'s' if count != 1 else ''} could not be "
                               "taken in; Aesthete changed none of them. Details lists each with the reason.")  # fmt: skip
        box.setDetailedText("\n".join(problems))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.import_report = box  # the button stays until the next import: the list can be read again
        box.open()

    def score_selection(self) -> JobHandle | None:
        """Score the selected images with the chosen scorer."""
        ids = self.context.selection.image_ids()
        if not ids:
            self.show_message("Select images to score first (or Scoring ▸ Score library).")
            return None
        return self._score(ids, f"Score {len(ids)} selected")

    def score_library(self) -> JobHandle:
        """Score every image of the profile with the chosen scorer."""
        return self._score(None, "Score library")

    def _score(self, ids: list[int] | None, name: str) -> JobHandle:
        scorer = self.context.settings.get("scorer") or BUILTIN
        return self.context.runner.submit(
            f"{name} ({scorer})",
            actions.score_job,
            self.context.profile,
            ids,
            scorer,
            self.context.settings.get("preset"),
            judge=actions.configured_judge(self.context.settings),
            on_done=self._scored,
            on_error=lambda exc: self.show_message(f"Scoring failed: {exc}"),
            gpu=actions.scorer_uses_gpu(scorer),
        )

    def _scored(self, result: object) -> None:
        # the scoring service announced the stored scores (signals.scores_changed)
        count = len(getattr(result, "scores", {}))
        unreadable = len(getattr(result, "unreadable", ()))
        self.show_message(f"Scored {count} images." + (f" {unreadable} could not be read." if unreadable else ""))

    def fill_scorer_menu(self, menu) -> None:
        """List every registered scorer that can score now; choosing one makes it the scorer used."""
        menu.clear()
        current = self.context.settings.get("scorer") or BUILTIN
        for entry in actions.scorer_entries(self.context.profile, actions.configured_judge(self.context.settings)):
            action = menu.addAction(entry.label)
            action.setCheckable(True)
            action.setChecked(entry.scorer_id == current)
            action.setToolTip(entry.scorer_id)
            action.triggered.connect(lambda _=False, s=entry.scorer_id: self.context.set_setting("scorer", s))

    def distil(self) -> JobHandle | None:
        """Distil a fast scorer from the configured judge (a job)."""
        judge = actions.configured_judge(self.context.settings)
        if judge is None:
            QMessageBox.information(
                self,
                "Distil a fast scorer",
                "Distillation learns from a judge model, and none is configured yet.\n\n"
                "Open Models ▸ Model manager to choose a local model folder or a server. "
                "Everything else in Aesthete works without one.",
            )
            return None
        return self.context.runner.submit(
            "Distil fast scorer",
            actions.distil_job,
            self.context.profile,
            judge,
            self.context.settings.get("preset"),
            on_done=lambda _r: self.show_message("Distillation finished."),
            on_error=lambda exc: self.show_message(f"Distillation failed: {exc}"),
            gpu=True,
        )

    def train_adapter(self) -> JobHandle:
        """Train the personal taste adapter from the user's choices (a job)."""
        return self.context.runner.submit(
            "Train taste adapter",
            actions.train_job,
            self.context.profile,
            actions.base_scorer_for(self.context.settings.get("scorer")),
            on_done=self._adapter_trained,
            on_error=lambda exc: self.show_message(f"Training failed: {exc}"),
        )

    def _adapter_trained(self, result: object) -> None:
        self.show_message(actions.describe_training(result))

    def show_taste_panel(self) -> None:
        """Open the taste / scores / distillation panel (plots, agreement)."""
        from aesthete_gui.qt.dialogs import open_taste_panel
        from aesthete_gui.qt.widgets.taste_panel import TastePanel

        dialog = open_taste_panel(self.context, self)
        # Esc closes it wherever the keyboard is inside; it takes the keyboard when it opens (a new
        # window is not always made active, and Esc then reached the grid instead)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), dialog, dialog.reject, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        dialog.finished.connect(lambda _result: self.refocus())
        dialog.activateWindow()
        dialog.raise_()
        panel = dialog.findChild(TastePanel)
        if panel is not None:
            panel.compare_requested.connect(dialog.accept)
            panel.compare_requested.connect(self.compare_suggested_pairs)
        self.taste_dialog = dialog

    def open_model_manager(self) -> None:
        """Open the model manager dialog (judge and scorer choice)."""
        from aesthete_gui.qt.dialogs import open_model_manager

        open_model_manager(self.context, self)
        self._update_model_label()


def _dropped_folders(mime: QMimeData) -> list[Path]:
    """The local folders among dropped URLs (files and remote URLs are ignored)."""
    if not mime.hasUrls():
        return []
    paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    return [p for p in paths if p.is_dir()]
