"""Lean reads of the whole library for the grid: plain tuples of the few columns it shows, so that
opening a 50,000-image profile parses no EXIF and no check JSON it does not need."""

from __future__ import annotations

import json
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.store.connection import ProfileConnection

GridImage = tuple[int, str, str | None, int | None, int | None, str, str | None]
"""(id, path, capture_time, folder_id, burst_id, status, error)."""


class LibraryReadsMixin(ProfileConnection):
    """Whole-library reads shaped for the grid."""

    def grid_images(self) -> list[GridImage]:
        """Every image as a GridImage tuple, ordered by path."""
        return self.conn.execute(
            "SELECT id, path, capture_time, folder_id, burst_id, status, error FROM images ORDER BY path"
        ).fetchall()

    def grid_marks(self) -> dict[int, tuple[int, str | None, str | None]]:
        """(stars, flag, label) of every marked image, by id."""
        rows = self.conn.execute("SELECT image_id, stars, flag, label FROM marks")
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def score_rows(self, scorer_id: str) -> dict[int, tuple[float | None, ...]]:
        """Scorer `scorer_id`'s scores by image id, one value (or None) per engine dimension, in order."""
        columns = ", ".join(DIMENSIONS)
        rows = self.conn.execute(f"SELECT image_id, {columns} FROM scores WHERE scorer_id = ?", (scorer_id,))
        return {r[0]: r[1:] for r in rows}

    def closed_eyes_ids(self, version: str) -> set[int]:
        """Images whose stored faces (checks of `version`) include one with both eyes closed."""
        rows = self.conn.execute(
            "SELECT image_id FROM image_checks WHERE version = ? AND EXISTS"
            " (SELECT 1 FROM json_each(faces) WHERE json_extract(value, '$.eyes') = 'closed')",
            (version,),
        )
        return {r[0] for r in rows}

    def burst_member_checks(self, version: str) -> dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
        """(checks, faces) of `version` of the images in bursts (what choosing a burst's best frame reads)."""
        rows = self.conn.execute(
            "SELECT c.image_id, c.checks, c.faces FROM image_checks c JOIN images i ON i.id = c.image_id"
            " WHERE i.burst_id IS NOT NULL AND c.version = ?",
            (version,),
        )
        return {r[0]: (json.loads(r[1]), json.loads(r[2])) for r in rows}

    def check_findings(self, version: str) -> dict[int, list[dict[str, Any]]]:
        """The stored checks (of `version`) of images with something to say: a warning or reject
        verdict, or membership of a bracket / panorama / focus stack (a "sequence" check)."""
        rows = self.conn.execute(
            "SELECT image_id, checks FROM image_checks WHERE version = ? AND (worst != 'ok' OR checks LIKE ?)",
            (version, '%"sequence"%'),
        )
        return {r[0]: json.loads(r[1]) for r in rows}
