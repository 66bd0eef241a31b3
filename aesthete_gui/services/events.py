"""Changes announce themselves: services emit a profile event after each committed change.

One small observer per profile file. A service commits, then calls `emit(profile, event)`; whoever
shows the profile subscribes (the GUI through qt/profile_events.py, which re-emits on the UI
thread). Subscribers are called synchronously on the emitting thread, in subscription order; one
that raises is logged and the others still run, so a broken view never undoes a committed change.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MarksChanged:
    """Ratings, flags, labels or verdict marks of these images changed."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class ChoicesChanged:
    """Pairwise choices were recorded or removed (`image_ids`: the images involved, when known)."""

    image_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ScoresChanged:
    """Stored scores of one scorer changed (`image_ids`: the images written, when known)."""

    scorer_id: str
    image_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ImagesImported:
    """An import added or refreshed images."""

    count: int


@dataclass(frozen=True)
class ChecksMeasured:
    """The technical checks and faces of these images were stored (an import's second pass)."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class AdaptersChanged:
    """A taste adapter was trained, switched on or off, or removed."""


ProfileEvent = MarksChanged | ChoicesChanged | ScoresChanged | ImagesImported | ChecksMeasured | AdaptersChanged
Subscriber = Callable[[ProfileEvent], None]

_lock = threading.Lock()
_subscribers: dict[str, list[Subscriber]] = {}


def _key(profile: Any) -> str:
    path = getattr(profile, "path", None)
    return str(Path(path).resolve()) if path is not None else f"memory:{id(profile)}"


def subscribe(profile: Any, subscriber: Subscriber) -> Callable[[], None]:
    """Call `subscriber(event)` after every change to this profile; returns the unsubscribe function."""
    key = _key(profile)
    with _lock:
        _subscribers.setdefault(key, []).append(subscriber)

    def unsubscribe() -> None:
        with _lock:
            listeners = _subscribers.get(key, [])
            if subscriber in listeners:
                listeners.remove(subscriber)
            if not listeners:
                _subscribers.pop(key, None)

    return unsubscribe


def emit(profile: Any, event: ProfileEvent) -> None:
    """Tell this profile's subscribers about a committed change."""
    with _lock:
        listeners = list(_subscribers.get(_key(profile), ()))
    for listener in listeners:
        try:
            listener(event)
        except Exception:
            log.exception("a profile event subscriber failed on %r", event)
