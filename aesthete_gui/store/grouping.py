"""What burst grouping remembers between runs (colour signatures, pixel verdicts), the content the
thumbnail cache must keep, and named library state.

These are the grouping's own memory, read by no view: their writes announce no event (the bursts
grouped from them do, through the catalog).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping

import numpy as np

from aesthete_gui.store.repository import Repository, writes


class GroupingRepository(Repository):
    """Colour signatures and crop verdicts by content hash; the library's named state values."""

    def signatures(self) -> dict[str, np.ndarray]:
        """Every stored colour signature (float32 vectors) by content hash."""
        rows = self._db.tuples("SELECT content_hash, signature FROM colour_signatures")
        return {h: np.frombuffer(blob, dtype=np.float32) for h, blob in rows}

    @writes
    def put_signatures(self, rows: Iterable[tuple[str, np.ndarray | bytes]]) -> None:
        """Store (replace) colour signatures in one transaction."""
        with self._db.transaction() as tx:
            insert_signatures(tx.conn, rows)

    def crop_verdicts(self) -> dict[tuple[str, str], bool]:
        """Every remembered pixel verdict: (content hash, content hash) in sorted order -> same picture."""
        rows = self._db.tuples("SELECT first, second, same FROM crop_verdicts")
        return {(a, b): bool(same) for a, b, same in rows}

    @writes
    def put_crop_verdicts(self, verdicts: Mapping[tuple[str, str], bool]) -> None:
        """Remember pixel verdicts (pairs in sorted order) in one transaction."""
        with self._db.transaction() as tx:
            tx.executemany(
                "INSERT OR REPLACE INTO crop_verdicts (first, second, same) VALUES (?, ?, ?)",
                [(a, b, int(same)) for (a, b), same in verdicts.items()],
            )

    @writes
    def forget_unused(self) -> int:
        """Drop signatures and verdicts of content no present image has any more (files edited,
        deleted or gone); returns how many rows went."""
        with self._db.transaction() as tx:
            used = "SELECT content_hash FROM images WHERE content_hash IS NOT NULL AND status != 'missing'"
            gone = tx.execute(f"DELETE FROM colour_signatures WHERE content_hash NOT IN ({used})").rowcount
            gone += tx.execute(
                f"DELETE FROM crop_verdicts WHERE first NOT IN ({used}) OR second NOT IN ({used})"
            ).rowcount
        return int(gone)

    def present_content_hashes(self) -> set[str]:
        """Content hashes of the images whose files are still there (every status but "missing")."""
        rows = self._db.tuples(
            "SELECT DISTINCT content_hash FROM images WHERE content_hash IS NOT NULL AND status != 'missing'"
        )
        return {r[0] for r in rows}

    def library_fingerprint(self) -> str:
        """Changes whenever an image row is written, moved or marked missing, or a burst is edited."""
        images = self._db.tuples("SELECT COUNT(*), TOTAL(updated_at), MAX(updated_at), TOTAL(id) FROM images")[0]
        edited = self._db.tuples(
            "SELECT COUNT(*), TOTAL(i.id * 31 + b.id) FROM images i JOIN bursts b ON b.id = i.burst_id WHERE b.edited = 1"
        )[0]
        return ":".join(repr(v) for v in (*images, *edited))

    def library_state(self, key: str) -> str | None:
        """A named value stored with the library (None when never set)."""
        value = self._db.scalar("SELECT value FROM library_state WHERE key = ?", (key,))
        return None if value is None else str(value)

    @writes
    def set_library_state(self, key: str, value: str | None) -> None:
        """Store (None: forget) a named value."""
        with self._db.transaction() as tx:
            if value is None:
                tx.execute("DELETE FROM library_state WHERE key = ?", (key,))
            else:
                tx.execute("INSERT OR REPLACE INTO library_state (key, value) VALUES (?, ?)", (key, value))


def insert_signatures(conn: sqlite3.Connection, rows: Iterable[tuple[str, np.ndarray | bytes]]) -> None:
    """Store (replace) colour signatures (float32 vectors, or their bytes) inside the caller's write
    transaction."""
    conn.executemany(
        "INSERT OR REPLACE INTO colour_signatures (content_hash, signature) VALUES (?, ?)",
        [(h, v if isinstance(v, bytes) else np.asarray(v, dtype=np.float32).tobytes()) for h, v in rows],
    )
