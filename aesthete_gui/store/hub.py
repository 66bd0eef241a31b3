"""The profile's event hub: one per open profile, fed only by its repositories (and its change feed).

Subscribers are called synchronously on the publishing thread, in subscription order, after the
change was committed; one that raises is logged and the others still run, so a broken view never
undoes a committed change.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from aesthete_gui.store.events import ProfileEvent

log = logging.getLogger(__name__)

Subscriber = Callable[[ProfileEvent], None]


class EventHub:
    """Who listens to one open profile's changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call `subscriber(event)` after every committed change; returns the unsubscribe function."""
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe

    def publish(self, event: ProfileEvent) -> None:
        """Tell every subscriber about a committed change (called by repositories and the change feed)."""
        with self._lock:
            listeners = list(self._subscribers)
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("a profile event subscriber failed on %r", event)
