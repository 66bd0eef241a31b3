"""The Qt side of the profile events: the profile's hub re-emitted as AppSignals on the UI thread,
and the poll that brings in what other processes committed.

Repositories publish from whatever thread wrote; this relay lives in the UI thread, so Qt queues an
event from a worker to the UI thread and delivers one from the UI thread at once. Library changes
(images imported, moved, regrouped into bursts) arrive in batches during an import: they reload
the grid at once, then at most every LIBRARY_RELOAD_MS while they keep coming. Checks measured by
the import's second pass (or judged again) update their rows in place.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from aesthete_gui.errors import AestheteError
from aesthete_gui.store import events
from aesthete_gui.store.change_feed import POLL_INTERVAL_MS

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppSignals
    from aesthete_gui.store import Profile

log = logging.getLogger(__name__)

LIBRARY_RELOAD_MS = 2000
"""While library events keep coming (an import), the grid re-reads its rows at most this often."""

_LIBRARY_EVENTS = (events.ImagesChanged, events.FoldersChanged, events.BurstsChanged)


class ProfileEventRelay(QObject):
    """Subscribes to one profile's hub and turns each event into the matching AppSignals signal;
    polls the profile for other processes' changes every POLL_INTERVAL_MS."""

    _received = Signal(object)

    def __init__(self, profile: Profile, signals: AppSignals, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._profile = profile
        self._signals = signals
        self._received.connect(self._dispatch)
        self._unsubscribe = profile.events.subscribe(self._received.emit)
        self._library_pending = False
        self._library_timer = QTimer(self, singleShot=True, interval=LIBRARY_RELOAD_MS)
        self._library_timer.timeout.connect(self._library_quiet)
        self._poll_failed = False
        self._poll = QTimer(self, interval=POLL_INTERVAL_MS)
        self._poll.timeout.connect(self.poll)
        self._poll.start()

    def close(self) -> None:
        """Stop listening and polling (the profile is being closed)."""
        self._poll.stop()
        self._library_timer.stop()
        self._unsubscribe()

    @property
    def library_reload_pending(self) -> bool:
        """True while library events that arrived during the last reload wait for the next one."""
        return self._library_pending

    @Slot()
    def poll(self) -> int:
        """Publish what other processes committed since the last poll; how many events."""
        try:
            found = self._profile.changes.poll()
        except (AestheteError, sqlite3.Error) as error:
            if not self._poll_failed:  # said once; the next successful poll clears it
                log.warning("could not look for changes made elsewhere: %s", error)
            self._poll_failed = True
            return 0
        self._poll_failed = False
        return found

    @Slot(object)
    def _dispatch(self, event: object) -> None:
        signals = self._signals
        if isinstance(event, events.MarksChanged | events.SuggestionsChanged):
            signals.marks_changed.emit(list(event.image_ids))
        elif isinstance(event, events.ChoicesChanged):
            signals.choices_changed.emit()
        elif isinstance(event, events.ScoresChanged):
            signals.scores_changed.emit()
        elif isinstance(event, events.ChecksMeasured):
            signals.checks_changed.emit(list(event.image_ids))
        elif isinstance(event, events.AdaptersChanged):
            signals.adapters_changed.emit()
        elif isinstance(event, _LIBRARY_EVENTS):
            self._library_changed()
        elif isinstance(event, events.ChangedElsewhere):
            self._library_changed()
            signals.choices_changed.emit()
            signals.scores_changed.emit()
            signals.adapters_changed.emit()

    def _library_changed(self) -> None:
        if self._library_timer.isActive():
            self._library_pending = True  # once more when the batch of events is over
            return
        self._signals.library_changed.emit()
        self._library_timer.start()

    def _library_quiet(self) -> None:
        if self._library_pending:
            self._library_pending = False
            self._signals.library_changed.emit()
            self._library_timer.start()
