"""The user's pairwise choices: which of two images they preferred, on which dimension."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.store.catalog import CatalogRepository
from aesthete_gui.store.connection import ProfileDatabase
from aesthete_gui.store.events import ChoicesChanged
from aesthete_gui.store.records import WINNERS, ChoiceRecord
from aesthete_gui.store.repository import Repository, writes


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


class ChoicesRepository(Repository):
    """Record, list and remove choices (images named by id, or by a path added bare when unknown)."""

    def __init__(self, database: ProfileDatabase, catalog: CatalogRepository) -> None:
        super().__init__(database)
        self._catalog = catalog

    @writes
    def add(
        self,
        image_a: int | str,
        image_b: int | str,
        winner: str,
        dimension: str = "overall",
        session: str | None = None,
        app_state: Mapping[str, Any] | None = None,
    ) -> int:
        """Record one choice (a = shown left/first; winner 'a', 'b' or 'tie'), committed now."""
        return self.add_many([(image_a, image_b, winner, dimension)], session, app_state)[0]

    @writes
    def add_many(
        self,
        choices: Iterable[tuple[int | str, int | str, str, str]],
        session: str | None = None,
        app_state: Mapping[str, Any] | None = None,
    ) -> list[int]:
        """Record choices `(image a, image b, winner, dimension)` in ONE transaction; their ids.

        Every choice is checked before anything is written, so a bad one records none.
        """
        rows = []
        for image_a, image_b, winner, dimension in choices:
            if winner not in WINNERS:
                raise ValueError(f"winner must be one of {WINNERS}, got {winner!r}")
            if dimension not in DIMENSIONS:
                raise ValueError(f"unknown dimension {dimension!r}; expected one of {DIMENSIONS}")
            a, b = self._catalog.image_id(image_a), self._catalog.image_id(image_b)
            if a == b:
                raise ValueError("a choice needs two different images")
            rows.append((a, b, winner, dimension))
        state = None if app_state is None else json.dumps(dict(app_state), default=str)
        now = time.time()
        with self._db.transaction() as tx:
            ids = [
                int(
                    tx.execute(
                        "INSERT INTO choices (image_a, image_b, winner, dimension, created_at, session,"
                        " app_state) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (a, b, winner, dimension, now, session, state),
                    ).lastrowid
                    or 0
                )
                for a, b, winner, dimension in rows
            ]
            tx.announce(ChoicesChanged(tuple(dict.fromkeys(i for a, b, _, _ in rows for i in (a, b)))))
        return ids

    def all(self, dimension: str | None = None) -> list[ChoiceRecord]:
        """The user's choices in the order they were made (optionally one dimension only)."""
        sql = (
            "SELECT c.*, ia.path AS path_a, ib.path AS path_b FROM choices c"
            " JOIN images ia ON ia.id = c.image_a JOIN images ib ON ib.id = c.image_b"
        )
        params: tuple[Any, ...] = ()
        if dimension is not None:
            sql += " WHERE c.dimension = ?"
            params = (dimension,)
        rows = self._db.rows(sql + " ORDER BY c.created_at, c.id", params)
        return [ChoiceRecord(**{**r, "app_state": _loads(r["app_state"])}) for r in rows]

    def judged_pairs(self, dimension: str | None = None) -> set[frozenset[int]]:
        """The unordered image-id pairs the user has already chosen between (cheap: ids only)."""
        sql, params = "SELECT image_a, image_b FROM choices", tuple[Any, ...]()
        if dimension is not None:
            sql, params = sql + " WHERE dimension = ?", (dimension,)
        return {frozenset((r["image_a"], r["image_b"])) for r in self._db.rows(sql, params)}

    def count(self, dimension: str | None = None) -> int:
        """How many choices were recorded (on one dimension, when given)."""
        if dimension is None:
            return int(self._db.scalar("SELECT COUNT(*) FROM choices"))
        return int(self._db.scalar("SELECT COUNT(*) FROM choices WHERE dimension = ?", (dimension,)))

    @writes
    def delete(self, choice_id: int) -> bool:
        """Remove one choice (undo); True when it existed."""
        return self.delete_many([choice_id]) > 0

    @writes
    def delete_many(self, choice_ids: Iterable[int]) -> int:
        """Remove choices (undo) in one transaction; how many existed."""
        ids = [int(i) for i in choice_ids]
        removed, images = 0, []
        with self._db.transaction() as tx:
            for choice_id in ids:
                row = tx.execute("SELECT image_a, image_b FROM choices WHERE id = ?", (choice_id,)).fetchone()
                if row is None:
                    continue
                tx.execute("DELETE FROM choices WHERE id = ?", (choice_id,))
                removed += 1
                images += [row[0], row[1]]
            tx.announce(ChoicesChanged(tuple(dict.fromkeys(images))))
        return removed
