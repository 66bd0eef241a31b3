"""Scores per image and scorer: five dimensions, with the scorer version and rubric preset behind them."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.store.catalog import CatalogRepository
from aesthete_gui.store.connection import ProfileDatabase
from aesthete_gui.store.events import ScoresChanged
from aesthete_gui.store.repository import Repository, writes


class ScoresRepository(Repository):
    """Stored scores (services/scoring.py is their single writer)."""

    def __init__(self, database: ProfileDatabase, catalog: CatalogRepository) -> None:
        super().__init__(database)
        self._catalog = catalog

    @writes
    def put(
        self,
        image_id: int | str,
        scorer_id: str,
        scores: Mapping[str, float | None],
        scorer_version: str = "",
        preset: str = "",
        preset_version: str = "",
    ) -> None:
        """Store (replace) one scorer's per-dimension scores of one image."""
        self.put_many(scorer_id, [(image_id, scores)], scorer_version, preset, preset_version)

    @writes
    def put_many(
        self,
        scorer_id: str,
        scores_by_image: Iterable[tuple[int | str, Mapping[str, float | None]]],
        scorer_version: str = "",
        preset: str = "",
        preset_version: str = "",
    ) -> None:
        """Store (replace) one scorer's per-dimension scores of several images in one transaction."""
        now = time.time()
        rows: list[tuple[Any, ...]] = []
        images: list[int] = []
        for image_id, scores in scores_by_image:
            unknown = set(scores) - set(DIMENSIONS)
            if unknown:
                raise ValueError(f"unknown dimensions {sorted(unknown)}; expected {DIMENSIONS}")
            values = [None if (value := scores.get(d)) is None else float(value) for d in DIMENSIONS]
            image = self._catalog.image_id(image_id)
            images.append(image)
            rows.append((image, scorer_id, scorer_version, preset, preset_version, *values, now))
        if not rows:
            return
        with self._db.transaction() as tx:
            tx.executemany(
                "INSERT INTO scores (image_id, scorer_id, scorer_version, preset, preset_version,"
                f" {', '.join(DIMENSIONS)}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (image_id, scorer_id) DO UPDATE SET"
                " scorer_version = excluded.scorer_version, preset = excluded.preset,"
                " preset_version = excluded.preset_version, "
                + ", ".join(f"{d} = excluded.{d}" for d in DIMENSIONS)
                + ", updated_at = excluded.updated_at",
                rows,
            )
            tx.announce(ScoresChanged(scorer_id, tuple(images)))

    @writes
    def forget(self, image_ids: Iterable[int]) -> None:
        """Drop every scorer's scores of these images (their files' content changed)."""
        ids = [int(i) for i in image_ids]
        if not ids:
            return
        with self._db.transaction() as tx:
            scorers = [r[0] for r in tx.execute("SELECT DISTINCT scorer_id FROM scores")]
            tx.executemany("DELETE FROM scores WHERE image_id = ?", [(i,) for i in ids])
            for scorer_id in scorers:
                tx.announce(ScoresChanged(scorer_id, tuple(ids)))

    def of_scorer(self, scorer_id: str) -> dict[int, dict[str, float]]:
        """{image id: {dimension: score}} for one scorer (missing dimensions left out)."""
        rows = self._db.rows("SELECT * FROM scores WHERE scorer_id = ? ORDER BY image_id", (scorer_id,))
        return {r["image_id"]: {d: r[d] for d in DIMENSIONS if r[d] is not None} for r in rows}

    def score_rows(self, scorer_id: str) -> dict[int, tuple[float | None, ...]]:
        """One scorer's scores by image id, one value (or None) per engine dimension, in order (a
        lean read for the grid)."""
        columns = ", ".join(DIMENSIONS)
        rows = self._db.tuples(f"SELECT image_id, {columns} FROM scores WHERE scorer_id = ?", (scorer_id,))
        return {r[0]: r[1:] for r in rows}

    def scorer_versions(self, scorer_id: str) -> dict[int, str]:
        """The scorer version behind each image's stored scores of `scorer_id`, by image id."""
        rows = self._db.rows("SELECT image_id, scorer_version FROM scores WHERE scorer_id = ?", (scorer_id,))
        return {r["image_id"]: r["scorer_version"] or "" for r in rows}

    def provenance(self, image_id: int, scorer_id: str) -> dict[str, str] | None:
        """Which scorer version and rubric preset (name, version) produced an image's stored scores."""
        row = self._db.row(
            "SELECT scorer_version, preset, preset_version FROM scores WHERE image_id = ? AND scorer_id = ?",
            (image_id, scorer_id),
        )
        return {key: row[key] or "" for key in ("scorer_version", "preset", "preset_version")} if row else None

    def scorers(self) -> list[str]:
        """Scorer ids that have stored scores."""
        return [r["scorer_id"] for r in self._db.rows("SELECT DISTINCT scorer_id FROM scores ORDER BY 1")]
