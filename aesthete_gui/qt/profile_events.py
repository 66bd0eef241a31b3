"""The Qt side of the profile events: re-emits services/events.py events as AppSignals on the UI thread.

Services emit from whatever thread did the work; this relay lives in the UI thread, so Qt queues
an event from a worker to the UI thread and delivers one from the UI thread at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from aesthete_gui.services import events

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppSignals


class ProfileEventRelay(QObject):
    """Subscribes to one profile's events and turns each into the matching AppSignals signal."""

    _received = Signal(object)

    def __init__(self, profile: object, signals: AppSignals, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._signals = signals
        self._received.connect(self._dispatch)
        self._unsubscribe = events.subscribe(profile, self._received.emit)

    def close(self) -> None:
        """Stop listening (the profile is being closed)."""
        self._unsubscribe()

    @Slot(object)
    def _dispatch(self, event: object) -> None:
        signals = self._signals
        if isinstance(event, events.MarksChanged):
            signals.marks_changed.emit(list(event.image_ids))
        elif isinstance(event, events.ChoicesChanged):
            signals.choices_changed.emit()
        elif isinstance(event, events.ScoresChanged):
            signals.scores_changed.emit()
        elif isinstance(event, events.ImagesImported):
            signals.library_changed.emit()
        elif isinstance(event, events.ChecksMeasured):
            signals.checks_changed.emit(list(event.image_ids))
        elif isinstance(event, events.AdaptersChanged):
            signals.adapters_changed.emit()
