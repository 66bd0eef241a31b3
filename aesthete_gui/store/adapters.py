"""Trained personal taste adapters: weights blob, held-out metrics, and which one is active."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from aesthete_gui.store.events import AdaptersChanged
from aesthete_gui.store.records import AdapterRecord
from aesthete_gui.store.repository import Repository, writes


def _adapter(row: dict[str, Any]) -> AdapterRecord:
    values = dict(row)
    values["metrics"] = json.loads(values["metrics"])
    values["active"] = bool(values["active"])
    values["blob"] = bytes(values["blob"])
    return AdapterRecord(**values)


class AdaptersRepository(Repository):
    """Save, list and switch adapters (at most one active)."""

    @writes
    def save(self, name: str, base_scorer: str, blob: bytes, metrics: Mapping[str, Any] | None = None) -> int:
        """Store (or replace, keeping its id and active state) a named adapter; return its id."""
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO adapters (name, base_scorer, blob, metrics, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
                " base_scorer = excluded.base_scorer, blob = excluded.blob,"
                " metrics = excluded.metrics, created_at = excluded.created_at",
                (name, base_scorer, bytes(blob), json.dumps(dict(metrics or {}), default=str),
                 time.time()),
            )  # fmt: skip
            adapter_id = int(tx.execute("SELECT id FROM adapters WHERE name = ?", (name,)).fetchone()[0])
            tx.announce(AdaptersChanged())
        return adapter_id

    def all(self) -> list[AdapterRecord]:
        """Every stored adapter, oldest first."""
        return [_adapter(r) for r in self._db.rows("SELECT * FROM adapters ORDER BY id")]

    def get(self, name: str) -> AdapterRecord | None:
        """The adapter called `name`, or None."""
        row = self._db.row("SELECT * FROM adapters WHERE name = ?", (name,))
        return _adapter(row) if row else None

    @writes
    def set_active(self, name: str | None) -> None:
        """Make `name` the one active adapter (None: no adapter active)."""
        with self._db.transaction() as tx:
            tx.execute("UPDATE adapters SET active = 0 WHERE active = 1")
            if name is not None and tx.execute(
                "UPDATE adapters SET active = 1 WHERE name = ?", (name,)
            ).rowcount == 0:
                raise KeyError(f"no adapter named {name!r}")
            tx.announce(AdaptersChanged())

    def active(self) -> AdapterRecord | None:
        """The active adapter, or None."""
        row = self._db.row("SELECT * FROM adapters WHERE active = 1")
        return _adapter(row) if row else None
