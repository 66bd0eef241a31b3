"""Typed profile events: what one committed change was about.

A repository method that changes data commits, then publishes its events on the profile's own hub
(store/hub.py); the same events, written into the profile's change log inside the transaction,
reach the profiles other processes have open (store/change_feed.py). Every field is JSON-ready.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class MarksChanged:
    """Stars, flags or colour labels of these images changed."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class SuggestionsChanged:
    """Suggested rejects of these images were dismissed or brought back."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class ChecksMeasured:
    """Technical checks and faces of these images were stored: measured (an import's second pass
    writes them in batches, one event per batch) or judged again from their stored measurements."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class ImagesChanged:
    """Images were added, re-read by an import, moved, or found missing."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class FoldersChanged:
    """Folders were added or finished scanning."""

    folder_ids: tuple[int, ...]


@dataclass(frozen=True)
class BurstsChanged:
    """Images were grouped into bursts again, or a burst was edited by hand."""

    image_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class FeaturesChanged:
    """Feature vectors of these images were stored."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class ChoicesChanged:
    """Pairwise choices were recorded or removed (`image_ids`: the images involved, when known)."""

    image_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class JudgmentsAdded:
    """Model judgments were stored (for the run `run_id`, when they belong to one)."""

    run_id: int | None = None


@dataclass(frozen=True)
class ScoresChanged:
    """Stored scores of one scorer changed (`image_ids`: the images written)."""

    scorer_id: str
    image_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class RunChanged:
    """A run (import, distillation, …) started, progressed or ended."""

    run_id: int
    kind: str
    status: str


@dataclass(frozen=True)
class AdaptersChanged:
    """A taste adapter was trained, switched on or off, or removed."""


@dataclass(frozen=True)
class SidecarStatesChanged:
    """The recorded state of these images' XMP sidecars changed (after a sync or a write)."""

    image_ids: tuple[int, ...]


@dataclass(frozen=True)
class ChangedElsewhere:
    """Another program changed the profile in a way no event names (it wrote no change-log entry,
    or more changes happened than the log keeps): everything shown may be stale."""


ProfileEvent = (
    MarksChanged | SuggestionsChanged | ChecksMeasured | ImagesChanged | FoldersChanged
    | BurstsChanged | FeaturesChanged | ChoicesChanged | JudgmentsAdded | ScoresChanged
    | RunChanged | AdaptersChanged | SidecarStatesChanged | ChangedElsewhere
)  # fmt: skip

_TYPES: dict[str, type[Any]] = {
    kind.__name__: kind
    for kind in (
        MarksChanged, SuggestionsChanged, ChecksMeasured, ImagesChanged, FoldersChanged,
        BurstsChanged, FeaturesChanged, ChoicesChanged, JudgmentsAdded, ScoresChanged,
        RunChanged, AdaptersChanged, SidecarStatesChanged, ChangedElsewhere,
    )
}  # fmt: skip


def event_json(event: ProfileEvent) -> str:
    """The event as one line of JSON for the change log: its type name and its fields."""
    return json.dumps({"type": type(event).__name__, **asdict(event)}, separators=(",", ":"))


def event_from_json(text: str) -> ProfileEvent | None:
    """The event a change-log line describes; None for a type this Aesthete does not know."""
    try:
        values = json.loads(text)
        kind = _TYPES[values.pop("type")]
        arguments = {
            f.name: tuple(values[f.name]) if isinstance(values[f.name], list) else values[f.name]
            for f in fields(kind)
            if f.name in values
        }
        return kind(**arguments)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
