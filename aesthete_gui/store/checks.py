"""Stored technical verdicts, faces and suggested rejects (a state of its own, never a user mark)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from typing import Any

from aesthete_gui.store.connection import ProfileConnection

CheckRow = tuple[int, str, Sequence[dict[str, Any]], Sequence[dict[str, Any]], str]
"""(image_id, version, checks as dicts, faces as dicts, worst verdict)."""


class ChecksMixin(ProfileConnection):
    """Technical checks per image and the suggested rejects derived from them."""

    def put_checks_many(self, rows: Iterable[CheckRow]) -> None:
        """Store (replace) several images' checks and faces in one transaction."""
        with self._write() as conn:
            insert_checks(conn, rows)

    def stored_checks(self, image_id: int, version: str | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """(checks, faces) of one image as stored, None when absent (or of another version)."""
        row = self._row("SELECT version, checks, faces FROM image_checks WHERE image_id = ?", (image_id,))
        if row is None or (version is not None and row["version"] != version):
            return None
        return json.loads(row["checks"]), json.loads(row["faces"])

    def all_checks(self, version: str | None = None) -> dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
        """Every image's stored (checks, faces), by image id; with `version`, only checks of that version
        (older ones wait for the next rescan to be measured again, and count as not checked)."""
        rows = self._rows(
            "SELECT image_id, checks, faces FROM image_checks WHERE ? IS NULL OR version = ?", (version, version)
        )
        return {r["image_id"]: (json.loads(r["checks"]), json.loads(r["faces"])) for r in rows}

    def checked_image_ids(self, version: str) -> set[int]:
        """Ids of images whose stored checks are of `version`."""
        rows = self._rows("SELECT image_id FROM image_checks WHERE version = ?", (version,))
        return {r["image_id"] for r in rows}

    def rejected_image_ids(self, version: str) -> set[int]:
        """Ids of images whose stored checks of `version` include a reject verdict."""
        rows = self._rows("SELECT image_id FROM image_checks WHERE version = ? AND worst = 'reject'", (version,))
        return {r["image_id"] for r in rows}

    def suggested_rejects(self, version: str | None = None) -> set[int]:
        """Images with a reject verdict that the user neither flagged nor dismissed (with `version`:
        a verdict of that version only)."""
        rows = self._rows(
            "SELECT c.image_id FROM image_checks c"
            " JOIN images i ON i.id = c.image_id AND i.status = 'ok'"
            " LEFT JOIN marks m ON m.image_id = c.image_id"
            " LEFT JOIN dismissed_suggestions d ON d.image_id = c.image_id"
            " WHERE c.worst = 'reject' AND m.flag IS NULL AND d.image_id IS NULL"
            " AND (? IS NULL OR c.version = ?)",
            (version, version),
        )
        return {r["image_id"] for r in rows}

    def dismiss_suggestions(self, image_ids: Iterable[int], version: str = "") -> None:
        """Stop suggesting these images as rejects (the user's marks stay as they are)."""
        now = time.time()
        with self._write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO dismissed_suggestions (image_id, version, dismissed_at)"
                " VALUES (?, ?, ?)",
                [(int(i), version, now) for i in image_ids],
            )

    def restore_suggestions(self, image_ids: Iterable[int]) -> None:
        """Undo dismiss_suggestions for these images."""
        with self._write() as conn:
            conn.executemany("DELETE FROM dismissed_suggestions WHERE image_id = ?", [(int(i),) for i in image_ids])

    def accept_suggestions(self, image_ids: Iterable[int] | None = None) -> list[int]:
        """Make the suggested rejects among `image_ids` (all when None) the user's reject flags,
        in one transaction; return the ids changed (undo with `unaccept_suggestions`)."""
        chosen = self.suggested_rejects()
        if image_ids is not None:
            chosen &= {int(i) for i in image_ids}
        now = time.time()
        with self._write() as conn:
            for image_id in sorted(chosen):
                conn.execute(
                    "INSERT INTO marks (image_id, flag, updated_at) VALUES (?, 'reject', ?)"
                    " ON CONFLICT (image_id) DO UPDATE SET flag = 'reject', updated_at = excluded.updated_at"
                    " WHERE marks.flag IS NULL",
                    (image_id, now),
                )
        return sorted(chosen)

    def unaccept_suggestions(self, image_ids: Iterable[int]) -> None:
        """Undo accept_suggestions: the reject flags go, and the images are suggested again."""
        now = time.time()
        with self._write() as conn:
            conn.executemany(
                "UPDATE marks SET flag = NULL, updated_at = ? WHERE image_id = ? AND flag = 'reject'",
                [(now, int(i)) for i in image_ids],
            )


def insert_checks(conn: sqlite3.Connection, rows: Iterable[CheckRow]) -> None:
    """Store (replace) checks and faces inside the caller's write transaction."""
    now = time.time()
    values = [
        (image_id, str(version), json.dumps(list(checks)), json.dumps(list(faces)), worst, now)
        for image_id, version, checks, faces, worst in rows
    ]
    conn.executemany(
        "INSERT OR REPLACE INTO image_checks (image_id, version, checks, faces, worst, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        values,
    )
