"""Profile side of XMP two-way sync: each sidecar as last seen, and the sync's decisions applied."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence

from aesthete_gui.store.connection import ProfileDatabase
from aesthete_gui.store.events import MarksChanged, SidecarStatesChanged
from aesthete_gui.store.marks import insert_history, store_marks
from aesthete_gui.store.records import HeldMarks, MarkHistoryEntry, SidecarState, SyncChange
from aesthete_gui.store.repository import Repository, writes

__all__ = ["MarkHistoryEntry", "SidecarState", "SidecarsRepository", "SyncChange"]


class SidecarsRepository(Repository):
    """The recorded state of each image's sidecar, and marks taken from sidecars."""

    def __init__(self, database: ProfileDatabase) -> None:
        super().__init__(database)

    def states(self, image_ids: Iterable[int] | None = None) -> dict[int, SidecarState]:
        """The recorded sidecar state by image id (all images, or only `image_ids`)."""
        wanted = None if image_ids is None else set(image_ids)
        if wanted is not None and len(wanted) <= 500:
            marks = ", ".join("?" * len(wanted))
            rows = self._db.rows(f"SELECT * FROM sidecar_sync WHERE image_id IN ({marks})", sorted(wanted))
        else:
            rows = self._db.rows("SELECT * FROM sidecar_sync")
        return {
            r["image_id"]: SidecarState(**(dict(r) | {"held": _held_from_json(r["held"])}))
            for r in rows if wanted is None or r["image_id"] in wanted
        }  # fmt: skip

    @writes
    def record(self, state: SidecarState) -> None:
        """Remember how the image's sidecar looks now that the profile and it agree (synced now)."""
        self.record_many([state])

    @writes
    def record_many(self, states: Sequence[SidecarState]) -> None:
        """Remember many sidecars' states at once (one transaction), e.g. after an XMP export."""
        if not states:
            return
        now = time.time()
        with self._db.transaction() as tx:
            for state in states:
                _put_state(tx.conn, state, synced_at=now)
            tx.announce(SidecarStatesChanged(tuple(s.image_id for s in states)))

    @writes
    def forget(self, image_ids: Iterable[int]) -> None:
        """Forget the recorded sidecar of these images (e.g. after undo deleted the sidecar we created)."""
        ids = sorted(set(image_ids))
        if not ids:
            return
        with self._db.transaction() as tx:
            tx.executemany("DELETE FROM sidecar_sync WHERE image_id = ?", [(i,) for i in ids])
            tx.announce(SidecarStatesChanged(tuple(ids)))

    @writes
    def apply_sync(self, changes: Sequence[SyncChange]) -> list[int]:
        """Apply decided changes in one transaction; return the ids whose marks changed.

        A change whose image's marks were modified after the decision (their `updated_at` moved) is
        skipped whole: the next sync decides again with the new value. Marks taken from a sidecar are
        attributed to "sidecar"; the profile value they replace goes into the mark history (with the
        reason of the change's "profile" history entry, when it gives one).
        """
        now = time.time()
        changed: list[int] = []
        states: list[int] = []
        with self._db.transaction() as tx:
            for change in changes:
                row = tx.execute(
                    "SELECT updated_at FROM marks WHERE image_id = ?", (change.image_id,)
                ).fetchone()
                if (float(row[0]) if row else 0.0) != change.expected_updated_at:
                    continue
                replaced = [e for e in change.history if e.source == "profile"]
                if change.marks is not None:
                    reason = replaced[0].reason if replaced else "replaced by the sidecar's marks (edited elsewhere)"
                    store_marks(tx, change.image_id, *change.marks, source="sidecar", reason=reason, when=now)
                    changed.append(change.image_id)
                if change.state is not None:
                    _put_state(tx.conn, change.state, synced_at=now)
                    states.append(change.image_id)
                kept = [e for e in change.history if change.marks is None or e.source != "profile"]
                insert_history(tx.conn, kept, now)
            if changed:
                tx.announce(MarksChanged(tuple(changed)))
            if states:
                tx.announce(SidecarStatesChanged(tuple(states)))
        return changed


def _put_state(conn: sqlite3.Connection, state: SidecarState, synced_at: float | None = None) -> None:
    conn.execute(
        "INSERT INTO sidecar_sync (image_id, sidecar_path, size, mtime_ns, content_hash, synced_at, held)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (image_id) DO UPDATE SET"
        " sidecar_path = excluded.sidecar_path, size = excluded.size, mtime_ns = excluded.mtime_ns,"
        " content_hash = excluded.content_hash, synced_at = excluded.synced_at, held = excluded.held",
        (state.image_id, state.sidecar_path, state.size, state.mtime_ns, state.content_hash,
         state.synced_at if synced_at is None else synced_at,
         None if state.held is None else json.dumps(list(state.held))),
    )  # fmt: skip


def _held_from_json(text: str | None) -> HeldMarks | None:
    """The stored marks a sidecar held (None when not recorded, or not in the stored form)."""
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    if not (isinstance(value, list) and len(value) == 3):
        return None
    stars, flag, label = value
    if not (stars is None or (isinstance(stars, int) and not isinstance(stars, bool))):
        return None
    if flag not in (None, "pick", "reject") or not (label is None or isinstance(label, str)):
        return None
    return (stars, flag, label)
