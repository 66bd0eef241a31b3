"""Profile side of XMP two-way sync: each sidecar as last seen, and the mark values that lost a conflict.

Functions take the open `Profile` (any `ProfileConnection`); every change commits before it returns.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aesthete_gui.store.connection import ProfileConnection
from aesthete_gui.store.records import normalize_label

Marks = tuple[int, str | None, str | None]
"""(stars, flag, label) as the marks table stores them."""


@dataclass(frozen=True)
class SidecarState:
    """An image's sidecar when the profile and it last agreed: where, size, mtime, content hash, when."""

    image_id: int
    sidecar_path: str
    size: int
    mtime_ns: int
    content_hash: str
    synced_at: float


@dataclass(frozen=True)
class MarkHistoryEntry:
    """A value that lost to a later change on the other side: from the `source`, made at `changed_at`."""

    image_id: int
    source: str
    stars: int | None
    flag: str | None
    label: str | None
    changed_at: float
    reason: str
    recorded_at: float = 0.0


@dataclass(frozen=True)
class SyncChange:
    """What one sync decided for an image; applied only if its marks are still as they were read."""

    image_id: int
    expected_updated_at: float
    marks: Marks | None = None
    state: SidecarState | None = None
    history: tuple[MarkHistoryEntry, ...] = ()
    unreadable: tuple[str, ...] = ()  # sidecar values that could not be read (the profile kept its own)


def sidecar_states(
    profile: ProfileConnection, image_ids: Iterable[int] | None = None
) -> dict[int, SidecarState]:
    """The recorded sidecar state by image id (all images, or only `image_ids`)."""
    wanted = None if image_ids is None else set(image_ids)
    if wanted is not None and len(wanted) <= 500:
        marks = ", ".join("?" * len(wanted))
        rows = profile._rows(
            f"SELECT * FROM sidecar_sync WHERE image_id IN ({marks})", sorted(wanted)
        )
    else:
        rows = profile._rows("SELECT * FROM sidecar_sync")
    return {
        r["image_id"]: SidecarState(**r) for r in rows if wanted is None or r["image_id"] in wanted
    }


def record_sidecar_state(profile: ProfileConnection, state: SidecarState) -> None:
    """Remember how the image's sidecar looks now that the profile and it agree (synced now)."""
    with profile._write() as conn:
        _put_state(conn, state, synced_at=time.time())


def record_sidecar_states(profile: ProfileConnection, states: Sequence[SidecarState]) -> None:
    """Remember many sidecars' states at once (one transaction), e.g. after an XMP export."""
    if not states:
        return
    now = time.time()
    with profile._write() as conn:
        for state in states:
            _put_state(conn, state, synced_at=now)


def add_mark_history(profile: ProfileConnection, entries: Sequence[MarkHistoryEntry]) -> None:
    """Record values that lost to a later change."""
    with profile._write() as conn:
        _put_history(conn, entries, time.time())


def mark_history(profile: ProfileConnection, image_id: int) -> list[MarkHistoryEntry]:
    """The image's recorded losing values, oldest first."""
    rows = profile._rows(
        "SELECT image_id, source, stars, flag, label, changed_at, reason, recorded_at"
        " FROM mark_history WHERE image_id = ? ORDER BY id",
        (image_id,),
    )
    return [MarkHistoryEntry(**r) for r in rows]


def forget_sidecar_states(profile: ProfileConnection, image_ids: Iterable[int]) -> None:
    """Forget the recorded sidecar of these images (e.g. after undo deleted the sidecar we created)."""
    ids = sorted(set(image_ids))
    if not ids:
        return
    with profile._write() as conn:
        conn.executemany("DELETE FROM sidecar_sync WHERE image_id = ?", [(i,) for i in ids])


def apply_sync_changes(profile: ProfileConnection, changes: Sequence[SyncChange]) -> list[int]:
    """Apply decided changes in one transaction; return the ids whose marks changed.

    A change whose image's marks were modified after the decision (their `updated_at` moved) is
    skipped whole: the next sync decides again with the new value.
    """
    now = time.time()
    changed: list[int] = []
    with profile._write() as conn:
        for change in changes:
            row = conn.execute(
                "SELECT updated_at FROM marks WHERE image_id = ?", (change.image_id,)
            ).fetchone()
            if (float(row[0]) if row else 0.0) != change.expected_updated_at:
                continue
            if change.marks is not None:
                stars, flag, label = change.marks
                conn.execute(
                    "INSERT INTO marks (image_id, stars, flag, label, updated_at) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (image_id) DO UPDATE SET stars = excluded.stars,"
                    " flag = excluded.flag, label = excluded.label, updated_at = excluded.updated_at",
                    (change.image_id, stars, flag, normalize_label(label), now),
                )
                changed.append(change.image_id)
            if change.state is not None:
                _put_state(conn, change.state, synced_at=now)
            _put_history(conn, change.history, now)
    return changed


def _put_state(
    conn: sqlite3.Connection, state: SidecarState, synced_at: float | None = None
) -> None:
    conn.execute(
        "INSERT INTO sidecar_sync (image_id, sidecar_path, size, mtime_ns, content_hash, synced_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (image_id) DO UPDATE SET"
        " sidecar_path = excluded.sidecar_path, size = excluded.size, mtime_ns = excluded.mtime_ns,"
        " content_hash = excluded.content_hash, synced_at = excluded.synced_at",
        (state.image_id, state.sidecar_path, state.size, state.mtime_ns, state.content_hash,
         state.synced_at if synced_at is None else synced_at),
    )  # fmt: skip


def _put_history(conn: sqlite3.Connection, entries: Sequence[MarkHistoryEntry], now: float) -> None:
    for e in entries:
        conn.execute(
            "INSERT INTO mark_history (image_id, source, stars, flag, label, changed_at, reason,"
            " recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (e.image_id, e.source, e.stars, e.flag, e.label, e.changed_at, e.reason, now),
        )
