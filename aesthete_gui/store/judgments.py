"""Model judgments as stored: the engine's records (parsed or not, raw text kept) with run and preset."""

from __future__ import annotations

import json
import time
from typing import Any

from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.store.events import JudgmentsAdded
from aesthete_gui.store.records import Judgment, StoredJudgment
from aesthete_gui.store.repository import Repository, writes


def _judgment_columns(record: Judgment) -> tuple[str, list[str], Any, tuple[str, ...]]:
    """(protocol, items in the order shown, outcome JSON value, stages) of an engine record."""
    if isinstance(record, PairwiseJudgment):
        return "pairwise", [record.first, record.second], dict(record.outcome), ()
    if isinstance(record, PointwiseJudgment):
        return "pointwise", [record.item], dict(record.scores), ()
    if isinstance(record, SetJudgment):
        outcome = {
            "best": record.best,
            "worst": record.worst,
            "per_dimension": {d: list(bw) for d, bw in record.per_dimension.items()},
        }
        return "set", list(record.items), outcome, tuple(record.stages)
    raise TypeError(f"not a judgment record: {type(record).__name__}")


def _judgment_from_row(row: dict[str, Any]) -> Judgment:
    items = json.loads(row["items"])
    outcome = json.loads(row["outcome"])
    common = {
        "parsed": bool(row["parsed"]),
        "raw": row["raw"],
        "judge_id": row["judge_id"],
        "rationale": row["rationale"],
        "seconds": row["seconds"],
    }
    if row["protocol"] == "pairwise":
        return PairwiseJudgment(first=items[0], second=items[1], outcome=outcome, **common)
    if row["protocol"] == "pointwise":
        return PointwiseJudgment(item=items[0], scores=outcome, **common)
    return SetJudgment(
        items=tuple(items),
        best=outcome["best"],
        worst=outcome["worst"],
        per_dimension={d: (bw[0], bw[1]) for d, bw in outcome["per_dimension"].items()},
        stages=tuple(json.loads(row["stages"])),
        **common,
    )


class JudgmentsRepository(Repository):
    """Judgments of models (pairwise, pointwise, set), in the order stored."""

    @writes
    def add(
        self,
        record: Judgment,
        run_id: int | None = None,
        preset: str | None = None,
        preset_version: str | None = None,
    ) -> int:
        """Store one engine judgment record (parsed or not, raw text kept); return its id."""
        protocol, items, outcome, stages = _judgment_columns(record)
        with self._db.transaction() as tx:
            cursor = tx.execute(
                "INSERT INTO judgments (judge_id, protocol, items, outcome, raw, parsed, rationale,"
                " stages, seconds, run_id, preset, preset_version, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.judge_id, protocol, json.dumps(items), json.dumps(outcome),
                    record.raw, int(record.parsed), record.rationale, json.dumps(list(stages)),
                    float(record.seconds), run_id, preset, preset_version, time.time(),
                ),
            )  # fmt: skip
            tx.announce(JudgmentsAdded(run_id))
        return int(cursor.lastrowid or 0)

    def stored(self, run_id: int | None = None, protocol: str | None = None) -> list[StoredJudgment]:
        """Judgments with their ids, run and preset, in the order stored."""
        sql, params = "SELECT * FROM judgments WHERE 1", list[Any]()
        if run_id is not None:
            sql += " AND run_id = ?"
            params.append(run_id)
        if protocol is not None:
            sql += " AND protocol = ?"
            params.append(protocol)
        return [
            StoredJudgment(
                id=r["id"],
                judgment=_judgment_from_row(r),
                protocol=r["protocol"],
                run_id=r["run_id"],
                preset=r["preset"],
                preset_version=r["preset_version"],
                created_at=r["created_at"],
            )
            for r in self._db.rows(sql + " ORDER BY id", params)
        ]

    def latest_explained(self, item: str) -> Judgment | None:
        """The newest judgment that shows `item` and carries an explanation (stages or rationale)."""
        row = self._db.row(
            "SELECT * FROM judgments WHERE (stages != '[]' OR rationale != '')"
            " AND EXISTS (SELECT 1 FROM json_each(judgments.items) WHERE value = ?)"
            " ORDER BY id DESC LIMIT 1",
            (item,),
        )
        return _judgment_from_row(row) if row else None

    def records(self, run_id: int | None = None, protocol: str | None = None) -> list[Judgment]:
        """The engine records stored (optionally one run / one protocol), in the order stored."""
        return [s.judgment for s in self.stored(run_id, protocol)]
