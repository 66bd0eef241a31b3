"""Stored technical verdicts, faces and suggested rejects (a state of its own, never a user mark).

The repository is bound to the current checks version (the measuring code and whether faces were
sought: `imaging.checks.checks_version`): every read answers for measurements of that version only,
so older ones count as not measured until a rescan measures again, and no caller can forget to say
which version it means. What the verdicts were judged under (thresholds, shoot type, the frame's
set) is stamped on each stored check instead: `services.verdicts.rejudge_library` judges rows with
an old stamp again from their stored measurements and writes them back here, under the same
checks version.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from aesthete_gui.store.connection import ProfileDatabase
from aesthete_gui.store.events import ChecksMeasured, SuggestionsChanged
from aesthete_gui.store.repository import Repository, writes

CheckRow = tuple[int, str, Sequence[dict[str, Any]], Sequence[dict[str, Any]], str]
"""(image_id, version measured with, checks as dicts, faces as dicts, worst verdict)."""

Checks = tuple[list[dict[str, Any]], list[dict[str, Any]]]
"""(checks, faces) of one image as stored."""


def current_checks_version() -> str:
    """The version of the verdicts this Aesthete measures (imported only when first needed)."""
    from aesthete_gui.imaging.checks import checks_version

    return checks_version()


class ChecksRepository(Repository):
    """Technical checks per image and the suggested rejects derived from them, of one checks version."""

    def __init__(self, database: ProfileDatabase, version: Callable[[], str] = current_checks_version) -> None:
        super().__init__(database)
        self._version = version

    @property
    def version(self) -> str:
        """The checks version every read answers for."""
        return self._version()

    @writes
    def put_many(self, rows: Iterable[CheckRow]) -> None:
        """Store (replace) several images' checks and faces in one transaction (each row says the
        version it was measured with)."""
        rows = list(rows)
        with self._db.transaction() as tx:
            insert_checks(tx.conn, rows)
            tx.announce(ChecksMeasured(tuple(r[0] for r in rows)))

    @writes
    def put_judged(self, rows: Iterable[CheckRow], read_at: dict[int, float]) -> list[int]:
        """Store checks judged again from those read when each row's updated_at was `read_at[id]`: a row
        changed since (an import that measured its edited file again) keeps its newer checks. The ids
        left as they were."""
        rows = list(rows)
        now = time.time()
        left: list[int] = []  # a few at most: the rows an import wrote meanwhile
        with self._db.transaction() as tx:
            for image_id, version, checks, faces, worst in rows:
                cursor = tx.conn.execute(
                    "UPDATE image_checks SET version = ?, checks = ?, faces = ?, worst = ?, updated_at = ?"
                    " WHERE image_id = ? AND updated_at = ?",
                    (str(version), json.dumps(list(checks)), json.dumps(list(faces)), worst, now, image_id, read_at.get(image_id)),
                )
                if cursor.rowcount == 0:
                    left.append(image_id)
            skipped = set(left)
            tx.announce(ChecksMeasured(tuple(r[0] for r in rows if r[0] not in skipped)))
        return left

    def get(self, image_id: int) -> Checks | None:
        """(checks, faces) of one image, None when it has none of the current version."""
        row = self._db.row(
            "SELECT checks, faces FROM image_checks WHERE image_id = ? AND version = ?", (image_id, self.version)
        )
        return None if row is None else (json.loads(row["checks"]), json.loads(row["faces"]))

    def all(self) -> dict[int, Checks]:
        """Every image's (checks, faces) of the current version, by image id."""
        rows = self._db.rows("SELECT image_id, checks, faces FROM image_checks WHERE version = ?", (self.version,))
        return {r["image_id"]: (json.loads(r["checks"]), json.loads(r["faces"])) for r in rows}

    def all_read_at(self) -> tuple[dict[int, Checks], dict[int, float]]:
        """all(), and when each row was last written (updated_at), for put_judged."""
        rows = self._db.rows("SELECT image_id, checks, faces, updated_at FROM image_checks WHERE version = ?", (self.version,))
        return ({r["image_id"]: (json.loads(r["checks"]), json.loads(r["faces"])) for r in rows},
                {r["image_id"]: r["updated_at"] for r in rows})  # fmt: skip

    def written_mark(self) -> str:
        """Changes whenever a row is written (how many there are, the latest write): for a caller that
        remembers what it last found in them."""
        count, latest = self._db.tuples("SELECT COUNT(*), MAX(updated_at) FROM image_checks")[0]
        return f"{count}:{latest!r}"

    def any_judged_otherwise(self, versions: str) -> bool:
        """Whether a stored row holds a verdict judged under other `versions` (the part of a judge stamp
        before its shoot type) than these: judged by an older Aesthete. One query, nothing parsed; a row
        without stamps (none was ever judged with one) is not counted."""
        needle = json.dumps({"judged": f"{versions}:"})[1:-1].rstrip('"')  # '"judged": "<versions>:' as stored
        row = self._db.row(
            "SELECT 1 FROM image_checks WHERE version = ? AND instr(checks, '\"judged\": \"') > 0 AND instr(checks, ?) = 0 LIMIT 1",
            (self.version, needle),
        )
        return row is not None

    def checked_ids(self) -> set[int]:
        """Ids of images whose stored checks are of the current version."""
        rows = self._db.rows("SELECT image_id FROM image_checks WHERE version = ?", (self.version,))
        return {r["image_id"] for r in rows}

    def outdated_count(self) -> int:
        """How many images have stored checks of another version only (measured by an older Aesthete):
        what a rescan measures again."""
        row = self._db.row("SELECT COUNT(*) AS n FROM image_checks WHERE version != ?", (self.version,))
        return int(row["n"]) if row is not None else 0

    def rejected_ids(self) -> set[int]:
        """Ids of images whose current checks include a reject verdict."""
        rows = self._db.rows(
            "SELECT image_id FROM image_checks WHERE version = ? AND worst = 'reject'", (self.version,)
        )
        return {r["image_id"] for r in rows}

    def suggested_rejects(self) -> set[int]:
        """Images with a current reject verdict that the user neither flagged nor dismissed."""
        rows = self._db.rows(
            "SELECT c.image_id FROM image_checks c"
            " JOIN images i ON i.id = c.image_id AND i.status = 'ok'"
            " LEFT JOIN marks m ON m.image_id = c.image_id"
            " LEFT JOIN dismissed_suggestions d ON d.image_id = c.image_id"
            " WHERE c.worst = 'reject' AND m.flag IS NULL AND d.image_id IS NULL AND c.version = ?",
            (self.version,),
        )
        return {r["image_id"] for r in rows}

    def closed_eyes_ids(self) -> set[int]:
        """Images whose current stored faces include one with both eyes closed."""
        rows = self._db.tuples(
            "SELECT image_id FROM image_checks WHERE version = ? AND EXISTS"
            " (SELECT 1 FROM json_each(faces) WHERE json_extract(value, '$.eyes') = 'closed')",
            (self.version,),
        )
        return {r[0] for r in rows}

    def burst_member_checks(self) -> dict[int, Checks]:
        """Current (checks, faces) of the images in bursts (what choosing a burst's best frame reads)."""
        rows = self._db.tuples(
            "SELECT c.image_id, c.checks, c.faces FROM image_checks c JOIN images i ON i.id = c.image_id"
            " WHERE i.burst_id IS NOT NULL AND c.version = ?",
            (self.version,),
        )
        return {r[0]: (json.loads(r[1]), json.loads(r[2])) for r in rows}

    def findings(self) -> dict[int, list[dict[str, Any]]]:
        """The current stored checks of images with something to say: a warning or reject verdict,
        or membership of a bracket / panorama / focus stack (a "sequence" check)."""
        rows = self._db.tuples(
            "SELECT image_id, checks FROM image_checks WHERE version = ? AND (worst != 'ok' OR checks LIKE ?)",
            (self.version, '%"sequence"%'),
        )
        return {r[0]: json.loads(r[1]) for r in rows}

    @writes
    def dismiss_suggestions(self, image_ids: Iterable[int]) -> None:
        """Stop suggesting these images as rejects (the user's marks stay as they are)."""
        ids = [int(i) for i in image_ids]
        now, version = time.time(), self.version
        with self._db.transaction() as tx:
            tx.executemany(
                "INSERT OR REPLACE INTO dismissed_suggestions (image_id, version, dismissed_at)"
                " VALUES (?, ?, ?)",
                [(i, version, now) for i in ids],
            )
            tx.announce(SuggestionsChanged(tuple(ids)))

    @writes
    def restore_suggestions(self, image_ids: Iterable[int]) -> None:
        """Undo dismiss_suggestions for these images."""
        ids = [int(i) for i in image_ids]
        with self._db.transaction() as tx:
            tx.executemany("DELETE FROM dismissed_suggestions WHERE image_id = ?", [(i,) for i in ids])
            tx.announce(SuggestionsChanged(tuple(ids)))


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
