"""Python's cycle collector runs on the GUI thread only.

A collection that a worker thread happened to set off (any allocation can) destroyed Qt objects there:
`QObject::~QObject` took the object's lock and then waited for the GIL, which the GUI thread held while
it waited for that same lock inside `QApplication.setStyle` — a deadlock seen once in the test suite.
With the automatic collector off, a timer on the GUI thread collects on the same thresholds Python uses,
so Qt objects caught in reference cycles are always destroyed on the thread that owns them.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Turns the automatic collector off and collects on a GUI-thread timer instead."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        self._timer.start(interval_ms)

    def collect(self) -> int:
        """Collect the generations whose counts passed Python's thresholds; how many objects were freed."""
        counts = gc.get_count()
        if counts[0] <= self._thresholds[0]:
            return 0
        generation = 2 if counts[2] > self._thresholds[2] else 1 if counts[1] > self._thresholds[1] else 0
        return gc.collect(generation)


_installed: GuiThreadCollector | None = None


def collect_on_gui_thread(app: QObject) -> GuiThreadCollector:
    """Install the GUI-thread collector once for the application (called on the GUI thread)."""
    global _installed
    if _installed is None:
        _installed = GuiThreadCollector(app)
    return _installed
