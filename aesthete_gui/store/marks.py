"""The user's culling marks (stars, pick/reject, colour label), who set them, and every earlier value."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aesthete_gui.store.connection import ProfileDatabase, Transaction
from aesthete_gui.store.events import MarksChanged
from aesthete_gui.store.records import (
    SOURCE_NAMES,
    UNSET,
    Flag,
    MarkHistoryEntry,
    MarkRecord,
    MarkSource,
    Unset,
    comparable,
    normalize_label,
)
from aesthete_gui.store.repository import Repository, writes

_CHUNK = 500
"""Image ids per IN (...) query (SQLite allows 999 parameters in older builds)."""


def store_marks(
    tx: Transaction,
    image_id: int,
    stars: int | Unset | None = UNSET,
    flag: str | Unset | None = UNSET,
    label: str | Unset | None = UNSET,
    source: str = "",
    reason: str | None = None,
    when: float | None = None,
) -> MarkRecord:
    """Set the given marks of one image inside `tx` (None clears a flag/label, stars None = 0).

    The value replaced, when it differs, goes into the mark history with who had set it and when,
    and `reason` (default: who replaced it). The current marks are read inside the transaction, so
    concurrent changes of different fields of one image never lose each other.
    """
    row = tx.execute(
        "SELECT stars, flag, label, updated_at, source FROM marks WHERE image_id = ?", (image_id,)
    ).fetchone()
    old = (int(row[0]), row[1], row[2]) if row else (0, None, None)
    new_stars = old[0] if stars is UNSET else int(stars or 0)
    if not 0 <= new_stars <= 5:
        raise ValueError(f"stars must be 0..5, got {new_stars}")
    new_flag = _checked_flag(old[1] if flag is UNSET else (flag or None))
    new_label = old[2] if label is UNSET else normalize_label(label)
    if row is None and tx.execute("SELECT 1 FROM images WHERE id = ?", (image_id,)).fetchone() is None:
        raise KeyError(f"no image with id {image_id}")
    now = time.time() if when is None else when  # a sync passes its own time: marks and state agree
    if row is not None and (new_stars, new_flag, new_label) != old:
        why = reason or f"replaced by {SOURCE_NAMES.get(source, source)}"
        entry = MarkHistoryEntry(image_id, str(row[4] or ""), old[0], old[1], old[2], float(row[3]), why)
        insert_history(tx.conn, [entry], now)
    tx.execute(
        "INSERT INTO marks (image_id, stars, flag, label, updated_at, source) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (image_id) DO UPDATE SET stars = excluded.stars, flag = excluded.flag,"
        " label = excluded.label, updated_at = excluded.updated_at, source = excluded.source",
        (image_id, new_stars, new_flag, new_label, now, source),
    )
    return MarkRecord(image_id, new_stars, new_flag, new_label, now, source)


def _checked_flag(value: object) -> Flag | None:
    """`value` as a flag (one of FLAGS or None), else a ValueError."""
    if value is None:
        return None
    if value == "pick":
        return "pick"
    if value == "reject":
        return "reject"
    raise ValueError(f"flag must be 'pick', 'reject' or None, got {value!r}")


def insert_history(conn: sqlite3.Connection, entries: Sequence[MarkHistoryEntry], now: float) -> None:
    """Record earlier mark values inside the caller's write transaction."""
    conn.executemany(
        "INSERT INTO mark_history (image_id, source, stars, flag, label, changed_at, reason, recorded_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(e.image_id, e.source, e.stars, e.flag, e.label, e.changed_at, e.reason, now) for e in entries],
    )


def _mark(row: dict[str, Any]) -> MarkRecord:
    """A marks row as a record (the table holds only what store_marks checked)."""
    return MarkRecord(**row)


class MarksRepository(Repository):
    """Marks of the profile's images; `actor` is who a change is attributed to when no source is given."""

    def __init__(self, database: ProfileDatabase, actor: MarkSource = "script") -> None:
        super().__init__(database)
        self.actor: str = actor

    def get(self, image_id: int) -> MarkRecord:
        """The marks of one image (no stars, no flag, no label when never marked)."""
        row = self._db.row("SELECT * FROM marks WHERE image_id = ?", (image_id,))
        return _mark(row) if row else MarkRecord(image_id=image_id)

    def all(self) -> dict[int, MarkRecord]:
        """Every stored mark by image id."""
        return {r["image_id"]: _mark(r) for r in self._db.rows("SELECT * FROM marks")}

    def grid_marks(self) -> dict[int, tuple[int, str | None, str | None]]:
        """(stars, flag, label) of every marked image, by id (a lean read for the grid)."""
        return {r[0]: (r[1], r[2], r[3]) for r in self._db.tuples("SELECT image_id, stars, flag, label FROM marks")}

    def of(self, image_ids: Iterable[int]) -> dict[int, MarkRecord]:
        """The marks of these images by id (unmarked images get an empty record)."""
        wanted = sorted(set(image_ids))
        found: dict[int, MarkRecord] = {}
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            for row in self._db.rows(f"SELECT * FROM marks WHERE image_id IN ({marks})", chunk):
                found[row["image_id"]] = _mark(row)
        return {i: found.get(i, MarkRecord(image_id=i)) for i in wanted}

    def history(self, image_id: int) -> list[MarkHistoryEntry]:
        """The image's earlier mark values, oldest first."""
        rows = self._db.rows(
            "SELECT image_id, source, stars, flag, label, changed_at, reason, recorded_at"
            " FROM mark_history WHERE image_id = ? ORDER BY id",
            (image_id,),
        )
        return [MarkHistoryEntry(**r) for r in rows]

    @writes
    def set(
        self,
        image_id: int,
        stars: int | Unset | None = UNSET,
        flag: str | Unset | None = UNSET,
        label: str | Unset | None = UNSET,
        source: MarkSource | None = None,
    ) -> MarkRecord:
        """Change the given marks of one image (database only: sidecars are the services' job)."""
        with self._db.transaction() as tx:
            mark = store_marks(tx, image_id, stars, flag, label, source or self.actor)
            tx.announce(MarksChanged((image_id,)))
        return mark

    @writes
    def set_unless_changed(
        self,
        image_id: int,
        expected: Mapping[str, Any],
        stars: int | Unset | None = UNSET,
        flag: str | Unset | None = UNSET,
        label: str | Unset | None = UNSET,
        source: MarkSource | None = None,
    ) -> tuple[MarkRecord, frozenset[str]]:
        """Change each given field only where it still holds its `expected` value (compare-and-set,
        for undo and redo); the marks afterwards and the fields left because another writer changed
        them since. A field given without an expected value is set as `set` would."""
        values = {"stars": stars, "flag": flag, "label": label}
        with self._db.transaction() as tx:
            row = tx.execute("SELECT stars, flag, label FROM marks WHERE image_id = ?", (image_id,)).fetchone()
            now = dict(zip(("stars", "flag", "label"), row or (0, None, None), strict=True))
            left = frozenset(
                name
                for name, value in values.items()
                if value is not UNSET and name in expected
                and comparable(name, now[name]) != comparable(name, expected[name])
            )  # fmt: skip
            wanted = {name: (UNSET if name in left else value) for name, value in values.items()}
            if all(value is UNSET for value in wanted.values()):
                mark = None  # nothing left to change: no write, no event
            else:
                mark = store_marks(tx, image_id, **wanted, source=source or self.actor)  # type: ignore[arg-type]
                tx.announce(MarksChanged((image_id,)))
        return (mark or self.get(image_id)), left
