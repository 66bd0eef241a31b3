"""Profile tables about opinions: the user's choices, model judgments, scores, runs and adapters."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.store.catalog import CatalogMixin
from aesthete_gui.store.records import (
    AdapterRecord,
    ChoiceRecord,
    Judgment,
    RunRecord,
    StoredJudgment,
)

WINNERS = ("a", "b", "tie")


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


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


def _run(row: dict[str, Any]) -> RunRecord:
    values = dict(row)
    values["params"] = json.loads(values["params"])
    values["result"] = _loads(values["result"])
    return RunRecord(**values)


def _adapter(row: dict[str, Any]) -> AdapterRecord:
    values = dict(row)
    values["metrics"] = json.loads(values["metrics"])
    values["active"] = bool(values["active"])
    values["blob"] = bytes(values["blob"])
    return AdapterRecord(**values)


class OpinionsMixin(CatalogMixin):
    """Choices, judgments, scores, runs, adapters."""

    def _image_id(self, image: int | str) -> int:
        """An image id from an id or a path (a path not yet in the profile is added bare)."""
        if isinstance(image, str):
            return self.ensure_image(image)
        return int(image)

    # -- the user's pairwise choices ---------------------------------------------------------
    def add_choice(
        self,
        image_a: int | str,
        image_b: int | str,
        winner: str,
        dimension: str = "overall",
        session: str | None = None,
        app_state: Mapping[str, Any] | None = None,
    ) -> int:
        """Record one choice (a = shown left/first; winner 'a', 'b' or 'tie'), committed now."""
        return self.add_choices([(image_a, image_b, winner, dimension)], session, app_state)[0]

    def add_choices(
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
            a, b = self._image_id(image_a), self._image_id(image_b)
            if a == b:
                raise ValueError("a choice needs two different images")
            rows.append((a, b, winner, dimension))
        state = None if app_state is None else json.dumps(dict(app_state), default=str)
        now = time.time()
        with self._write() as conn:
            return [
                int(
                    conn.execute(
                        "INSERT INTO choices (image_a, image_b, winner, dimension, created_at, session,"
                        " app_state) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (a, b, winner, dimension, now, session, state),
                    ).lastrowid
                    or 0
                )
                for a, b, winner, dimension in rows
            ]

    def choices(self, dimension: str | None = None) -> list[ChoiceRecord]:
        """The user's choices in the order they were made (optionally one dimension only)."""
        sql = (
            "SELECT c.*, ia.path AS path_a, ib.path AS path_b FROM choices c"
            " JOIN images ia ON ia.id = c.image_a JOIN images ib ON ib.id = c.image_b"
        )
        params: tuple[Any, ...] = ()
        if dimension is not None:
            sql += " WHERE c.dimension = ?"
            params = (dimension,)
        rows = self._rows(sql + " ORDER BY c.created_at, c.id", params)
        return [ChoiceRecord(**{**r, "app_state": _loads(r["app_state"])}) for r in rows]

    def judged_pairs(self, dimension: str | None = None) -> set[frozenset[int]]:
        """The unordered image-id pairs the user has already chosen between (cheap: ids only)."""
        sql, params = "SELECT image_a, image_b FROM choices", ()
        if dimension is not None:
            sql, params = sql + " WHERE dimension = ?", (dimension,)
        return {frozenset((r["image_a"], r["image_b"])) for r in self._rows(sql, params)}

    def choice_count(self, dimension: str | None = None) -> int:
        """How many choices were recorded (on one dimension, when given)."""
        if dimension is None:
            return int(self._scalar("SELECT COUNT(*) FROM choices"))
        return int(self._scalar("SELECT COUNT(*) FROM choices WHERE dimension = ?", (dimension,)))

    def delete_choice(self, choice_id: int) -> bool:
        """Remove one choice (undo); True when it existed."""
        with self._write() as conn:
            return conn.execute("DELETE FROM choices WHERE id = ?", (choice_id,)).rowcount > 0

    # -- model judgments ---------------------------------------------------------------------
    def add_judgment(
        self,
        record: Judgment,
        run_id: int | None = None,
        preset: str | None = None,
        preset_version: str | None = None,
    ) -> int:
        """Store one engine judgment record (parsed or not, raw text kept); return its id."""
        protocol, items, outcome, stages = _judgment_columns(record)
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO judgments (judge_id, protocol, items, outcome, raw, parsed, rationale,"
                " stages, seconds, run_id, preset, preset_version, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.judge_id, protocol, json.dumps(items), json.dumps(outcome),
                    record.raw, int(record.parsed), record.rationale, json.dumps(list(stages)),
                    float(record.seconds), run_id, preset, preset_version, time.time(),
                ),
            )  # fmt: skip
            return int(cursor.lastrowid or 0)

    def stored_judgments(
        self, run_id: int | None = None, protocol: str | None = None
    ) -> list[StoredJudgment]:
        """Judgments with their ids, run and preset, in the order stored."""
        sql, params = "SELECT * FROM judgments WHERE 1", []
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
            for r in self._rows(sql + " ORDER BY id", params)
        ]

    def latest_explained_judgment(self, item: str) -> Judgment | None:
        """The newest judgment that shows `item` and carries an explanation (stages or rationale)."""
        row = self._row(
            "SELECT * FROM judgments WHERE (stages != '[]' OR rationale != '')"
            " AND EXISTS (SELECT 1 FROM json_each(judgments.items) WHERE value = ?)"
            " ORDER BY id DESC LIMIT 1",
            (item,),
        )
        return _judgment_from_row(row) if row else None

    def judgments(self, run_id: int | None = None, protocol: str | None = None) -> list[Judgment]:
        """The engine records stored (optionally one run / one protocol), in the order stored."""
        return [s.judgment for s in self.stored_judgments(run_id, protocol)]

    # -- scores ------------------------------------------------------------------------------
    def put_scores(
        self,
        image_id: int | str,
        scorer_id: str,
        scores: Mapping[str, float | None],
        scorer_version: str = "",
        preset: str = "",
        preset_version: str = "",
    ) -> None:
        """Store (replace) one scorer's per-dimension scores of one image."""
        self.put_scores_many(
            scorer_id, [(image_id, scores)], scorer_version, preset, preset_version
        )

    def put_scores_many(
        self,
        scorer_id: str,
        scores_by_image: Iterable[tuple[int | str, Mapping[str, float | None]]],
        scorer_version: str = "",
        preset: str = "",
        preset_version: str = "",
    ) -> None:
        """Store (replace) one scorer's per-dimension scores of several images in one transaction."""
        now = time.time()
        rows = []
        for image_id, scores in scores_by_image:
            unknown = set(scores) - set(DIMENSIONS)
            if unknown:
                raise ValueError(f"unknown dimensions {sorted(unknown)}; expected {DIMENSIONS}")
            values = [None if scores.get(d) is None else float(scores[d]) for d in DIMENSIONS]  # type: ignore[arg-type]
            image = self._image_id(image_id)
            rows.append((image, scorer_id, scorer_version, preset, preset_version, *values, now))
        if not rows:
            return
        with self._write() as conn:
            conn.executemany(
                "INSERT INTO scores (image_id, scorer_id, scorer_version, preset, preset_version,"
                f" {', '.join(DIMENSIONS)}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (image_id, scorer_id) DO UPDATE SET"
                " scorer_version = excluded.scorer_version, preset = excluded.preset,"
                " preset_version = excluded.preset_version, "
                + ", ".join(f"{d} = excluded.{d}" for d in DIMENSIONS)
                + ", updated_at = excluded.updated_at",
                rows,
            )

    def scores(self, scorer_id: str) -> dict[int, dict[str, float]]:
        """{image id: {dimension: score}} for one scorer (missing dimensions left out)."""
        rows = self._rows("SELECT * FROM scores WHERE scorer_id = ? ORDER BY image_id", (scorer_id,))
        return {r["image_id"]: {d: r[d] for d in DIMENSIONS if r[d] is not None} for r in rows}

    def scorer_versions(self, scorer_id: str) -> dict[int, str]:
        """The scorer version behind each image's stored scores of `scorer_id`, by image id."""
        rows = self._rows("SELECT image_id, scorer_version FROM scores WHERE scorer_id = ?", (scorer_id,))
        return {r["image_id"]: r["scorer_version"] or "" for r in rows}

    def score_provenance(self, image_id: int, scorer_id: str) -> dict[str, str] | None:
        """Which scorer version and rubric preset (name, version) produced an image's stored scores."""
        row = self._row(
            "SELECT scorer_version, preset, preset_version FROM scores WHERE image_id = ? AND scorer_id = ?",
            (image_id, scorer_id),
        )
        return {key: row[key] or "" for key in ("scorer_version", "preset", "preset_version")} if row else None

    def scorers(self) -> list[str]:
        """Scorer ids that have stored scores."""
        return [r["scorer_id"] for r in self._rows("SELECT DISTINCT scorer_id FROM scores ORDER BY 1")]

    # -- runs --------------------------------------------------------------------------------
    def create_run(self, kind: str, params: Mapping[str, Any] | None = None) -> int:
        """Start recording a run of `kind` with its parameters; return its id."""
        now = time.time()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO runs (kind, params, status, created_at, updated_at)"
                " VALUES (?, ?, 'running', ?, ?)",
                (kind, json.dumps(dict(params or {}), default=str), now, now),
            )
            return int(cursor.lastrowid or 0)

    def update_run(
        self,
        run_id: int,
        status: str | None = None,
        done: int | None = None,
        total: int | None = None,
        result: Any = None,
    ) -> None:
        """Update a run's status, progress and/or result (arguments left None stay unchanged)."""
        sets, params = ["updated_at = ?"], [time.time()]
        for column, value in (("status", status), ("done", done), ("total", total)):
            if value is not None:
                sets.append(f"{column} = ?")
                params.append(value)
        if result is not None:
            sets.append("result = ?")
            params.append(json.dumps(result, default=str))
        if status in ("done", "failed", "cancelled", "interrupted"):
            sets.append("finished_at = ?")
            params.append(time.time())
        with self._write() as conn:
            if conn.execute(f"UPDATE runs SET {', '.join(sets)} WHERE id = ?", (*params, run_id)).rowcount == 0:
                raise KeyError(f"no run with id {run_id}")

    def close_interrupted_runs(self, kind: str) -> int:
        """Mark runs of `kind` still 'running' whose process is gone (kill -9, crash) 'interrupted'."""
        stale = []
        for row in self._rows("SELECT id, params FROM runs WHERE kind = ? AND status = 'running'", (kind,)):
            pid = json.loads(row["params"] or "{}").get("pid")
            if not isinstance(pid, int) or not _process_alive(pid):
                stale.append(row["id"])
        for run_id in stale:
            self.update_run(run_id, status="interrupted")
        return len(stale)

    def run(self, run_id: int) -> RunRecord | None:
        """One run, or None."""
        row = self._row("SELECT * FROM runs WHERE id = ?", (run_id,))
        return _run(row) if row else None

    def runs(self, kind: str | None = None) -> list[RunRecord]:
        """Runs (optionally of one kind), oldest first."""
        if kind is None:
            return [_run(r) for r in self._rows("SELECT * FROM runs ORDER BY id")]
        return [_run(r) for r in self._rows("SELECT * FROM runs WHERE kind = ? ORDER BY id", (kind,))]

    # -- adapters ----------------------------------------------------------------------------
    def save_adapter(
        self, name: str, base_scorer: str, blob: bytes, metrics: Mapping[str, Any] | None = None
    ) -> int:
        """Store (or replace, keeping its id and active state) a named adapter; return its id."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO adapters (name, base_scorer, blob, metrics, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
                " base_scorer = excluded.base_scorer, blob = excluded.blob,"
                " metrics = excluded.metrics, created_at = excluded.created_at",
                (name, base_scorer, bytes(blob), json.dumps(dict(metrics or {}), default=str),
                 time.time()),
            )  # fmt: skip
            return int(conn.execute("SELECT id FROM adapters WHERE name = ?", (name,)).fetchone()[0])

    def adapters(self) -> list[AdapterRecord]:
        """Every stored adapter, oldest first."""
        return [_adapter(r) for r in self._rows("SELECT * FROM adapters ORDER BY id")]

    def adapter(self, name: str) -> AdapterRecord | None:
        """The adapter called `name`, or None."""
        row = self._row("SELECT * FROM adapters WHERE name = ?", (name,))
        return _adapter(row) if row else None

    def set_active_adapter(self, name: str | None) -> None:
        """Make `name` the one active adapter (None: no adapter active)."""
        with self._write() as conn:
            conn.execute("UPDATE adapters SET active = 0 WHERE active = 1")
            if name is not None and conn.execute(
                "UPDATE adapters SET active = 1 WHERE name = ?", (name,)
            ).rowcount == 0:
                raise KeyError(f"no adapter named {name!r}")

    def active_adapter(self) -> AdapterRecord | None:
        """The active adapter, or None."""
        row = self._row("SELECT * FROM adapters WHERE active = 1")
        return _adapter(row) if row else None


def _process_alive(pid: int) -> bool:
    """True when a process with this id exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
