"""The inspector's "Earlier values": an image's mark history as rows (when, what, who set it)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from aesthete_gui.store.records import SOURCE_NAMES, MarkHistoryEntry

SHOWN = 8
"""The newest earlier values shown (the whole history stays in the profile)."""


def describe_marks(stars: int | None, flag: str | None, label: str | None) -> str:
    """Marks in a few words: "3★ · pick · Red", "no marks"."""
    parts = [f"{stars}★"] if stars else []
    parts += [p for p in (flag, label) if p]
    return " · ".join(parts) or "no marks"


def earlier_values(history: Sequence[MarkHistoryEntry], shown: int = SHOWN) -> list[tuple[str, str]]:
    """(when it was set, "value — set by whom") for the newest earlier values, newest first."""
    rows = []
    for entry in list(reversed(history))[:shown]:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.changed_at)) if entry.changed_at else "earlier"
        who = SOURCE_NAMES.get(entry.source, entry.source)
        rows.append((when, f"{describe_marks(entry.stars, entry.flag, entry.label)} — set by {who}"))
    return rows
