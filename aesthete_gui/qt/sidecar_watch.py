"""Sync XMP sidecars when the app comes back to the front: edits made meanwhile in other programs show up.

When the application becomes active again after being in the background, one hidden job runs
services.sidecar_sync.sync_sidecars off the UI thread; changed marks reach the views through the
profile's MarksChanged event. A sync already running is not started twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication

from aesthete_gui.services.sidecar_sync import SyncSummary, sync_sidecars
from aesthete_gui.settings import as_flag

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.task_runner import JobHandle


class SidecarWatcher(QObject):
    """Starts a sidecar sync job each time the application regains focus."""

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._was_away = False
        self._job: JobHandle | None = None
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.applicationStateChanged.connect(self.application_state_changed)

    def application_state_changed(self, state: Qt.ApplicationState) -> None:
        """Remember leaving; on coming back, sync (once at a time)."""
        if state != Qt.ApplicationState.ApplicationActive:
            self._was_away = True
            return
        if self._was_away:
            self._was_away = False
            self.sync_now()

    def sync_now(self) -> JobHandle | None:
        """Run one sync job now unless one is still running; returns its handle."""
        if self._job is not None and not self._job.done:
            return None
        settings = self._context.settings
        self._job = self._context.runner.submit(
            "Sync XMP sidecars",
            sync_sidecars,
            self._context.profile,
            write_back=as_flag(settings.get("xmp_enabled"), True),
            naming=settings.get("xmp_naming") or "auto",
            visible=False,
            on_done=self._synced,
        )
        return self._job

    def _synced(self, summary: SyncSummary) -> None:
        if summary.adopted or summary.conflicts:  # marks changed elsewhere: re-read the rows
            self._context.signals.library_changed.emit()
