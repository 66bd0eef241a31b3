"""The inspector's "Earlier values": an image's mark history as rows (when, what, who set it).

The mark history keeps, for each change, the whole marks an image had before it and who had set
them last. Only the fields a change replaced are earlier values: a colour label that every later
change kept is still in force and is not listed (a trial saw "Green — set by the command line" among
the earlier values while Green was the label). Each field is attributed to the change that set it,
not to whoever last changed another field of the image."""

from __future__ import annotations

import time
from collections.abc import Sequence

from aesthete_gui.store.records import SOURCE_NAMES, MarkHistoryEntry, comparable

SHOWN = 8
"""The newest earlier values shown (the whole history stays in the profile)."""

FIELDS = ("stars", "flag", "label")
Marks = tuple[int | None, str | None, str | None]


def describe_marks(stars: int | None, flag: str | None, label: str | None) -> str:
    """Marks in a few words: "3★ · pick · Red", "no marks"."""
    parts = [f"{stars}★"] if stars else []
    parts += [p for p in (flag, label) if p]
    return " · ".join(parts) or "no marks"


def describe_fields(values: dict[str, object]) -> str:
    """Some fields' values in a few words: "2★ · no flag", "Green", "no stars"."""
    words = {"stars": lambda v: f"{v}★" if v else "no stars", "flag": lambda v: str(v) if v else "no flag",
             "label": lambda v: str(v) if v else "no label"}  # fmt: skip
    return " · ".join(words[name](values[name]) for name in FIELDS if name in values)


def _fields(marks: Marks) -> tuple[object, ...]:
    return tuple(comparable(name, value) for name, value in zip(FIELDS, marks, strict=True))


def earlier_values(history: Sequence[MarkHistoryEntry], current: Marks, shown: int = SHOWN) -> list[tuple[str, str]]:
    """(when it was set, "value — set by whom") for the newest earlier values, newest first: for each
    entry of the history (oldest first), the fields the next value (the next entry, or `current`, the
    marks in force) replaced, each with the entry that set it; an entry that replaced nothing is left out."""
    values = [_fields((e.stars, e.flag, e.label)) for e in history]
    following = [*values[1:], _fields(current)]
    rows: list[tuple[str, str]] = []
    for index in range(len(history) - 1, -1, -1):
        before, after = values[index], following[index]
        changed = [n for n in range(len(FIELDS)) if before[n] != after[n]]
        if not changed:
            continue
        # who set each replaced field: the oldest entry of the run that held it unchanged up to here
        groups: dict[int, dict[str, object]] = {}
        for n in changed:
            start = index
            while start > 0 and values[start - 1][n] == before[n]:
                start -= 1
            groups.setdefault(start, {})[FIELDS[n]] = before[n]
        for start in sorted(groups, reverse=True):
            setter = history[start]
            whole_entry_empty = not any(before) and len(groups) == 1
            what = "no marks" if whole_entry_empty else describe_fields(groups[start])
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(setter.changed_at)) if setter.changed_at else "earlier"
            rows.append((when, f"{what} — set by {SOURCE_NAMES.get(setter.source, setter.source)}"))
            if len(rows) == shown:
                return rows
    return rows
