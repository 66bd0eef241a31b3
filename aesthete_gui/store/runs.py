"""Runs of long jobs (import, bridge, distillation, …): parameters, progress, status and result."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from aesthete_gui.atomic_write import process_alive
from aesthete_gui.store.events import RunChanged
from aesthete_gui.store.records import RunRecord
from aesthete_gui.store.repository import Repository, writes

ENDED = ("done", "failed", "cancelled", "interrupted")


def _run(row: dict[str, Any]) -> RunRecord:
    values = dict(row)
    values["params"] = json.loads(values["params"])
    values["result"] = None if values["result"] is None else json.loads(values["result"])
    return RunRecord(**values)


class RunsRepository(Repository):
    """Start, update and list runs."""

    @writes
    def create(self, kind: str, params: Mapping[str, Any] | None = None) -> int:
        """Start recording a run of `kind` with its parameters; return its id."""
        now = time.time()
        with self._db.transaction() as tx:
            run_id = int(
                tx.execute(
                    "INSERT INTO runs (kind, params, status, created_at, updated_at)"
                    " VALUES (?, ?, 'running', ?, ?)",
                    (kind, json.dumps(dict(params or {}), default=str), now, now),
                ).lastrowid
                or 0
            )
            tx.announce(RunChanged(run_id, kind, "running"))
        return run_id

    @writes
    def update(
        self,
        run_id: int,
        status: str | None = None,
        done: int | None = None,
        total: int | None = None,
        result: Any = None,
    ) -> None:
        """Update a run's status, progress and/or result (arguments left None stay unchanged)."""
        sets, params = ["updated_at = ?"], list[Any]([time.time()])
        for column, value in (("status", status), ("done", done), ("total", total)):
            if value is not None:
                sets.append(f"{column} = ?")
                params.append(value)
        if result is not None:
            sets.append("result = ?")
            params.append(json.dumps(result, default=str))
        if status in ENDED:
            sets.append("finished_at = ?")
            params.append(time.time())
        with self._db.transaction() as tx:
            if tx.execute(f"UPDATE runs SET {', '.join(sets)} WHERE id = ?", (*params, run_id)).rowcount == 0:
                raise KeyError(f"no run with id {run_id}")
            kind, now = tx.execute("SELECT kind, status FROM runs WHERE id = ?", (run_id,)).fetchone()
            tx.announce(RunChanged(run_id, str(kind), str(now)))

    @writes
    def close_interrupted(self, kind: str) -> int:
        """Mark runs of `kind` still 'running' whose process is gone (kill -9, crash) 'interrupted'."""
        stale = []
        for row in self._db.rows("SELECT id, params FROM runs WHERE kind = ? AND status = 'running'", (kind,)):
            pid = json.loads(row["params"] or "{}").get("pid")
            if not isinstance(pid, int) or not process_alive(pid):
                stale.append(row["id"])
        for run_id in stale:
            self.update(run_id, status="interrupted")
        return len(stale)

    def get(self, run_id: int) -> RunRecord | None:
        """One run, or None."""
        row = self._db.row("SELECT * FROM runs WHERE id = ?", (run_id,))
        return _run(row) if row else None

    def all(self, kind: str | None = None) -> list[RunRecord]:
        """Runs (optionally of one kind), oldest first."""
        if kind is None:
            return [_run(r) for r in self._db.rows("SELECT * FROM runs ORDER BY id")]
        return [_run(r) for r in self._db.rows("SELECT * FROM runs WHERE kind = ? ORDER BY id", (kind,))]
