"""The catalog: folders, images, bursts and feature vectors of the profile's library."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from aesthete_gui.store.events import (
    BurstsChanged,
    FeaturesChanged,
    FoldersChanged,
    ImagesChanged,
    MarksChanged,
)
from aesthete_gui.store.records import (
    BurstRecord,
    FolderRecord,
    ImageRecord,
    ImageUpdate,
    normalize_label,
)
from aesthete_gui.store.repository import Repository, writes

GridImage = tuple[int, str, str | None, int | None, int | None, str, str | None]
"""(id, path, capture_time, folder_id, burst_id, status, error): one image as the grid reads it."""


def _image(row: dict[str, Any]) -> ImageRecord:
    values = dict(row)
    values["exif"] = json.loads(values["exif"] or "{}")
    values["phash"] = int(values["phash"], 16) if values["phash"] else None
    return ImageRecord(**values)


def _phash_text(value: int | None) -> str | None:
    return None if value is None else f"{value & (2**64 - 1):016x}"


class CatalogRepository(Repository):
    """Folders, images, bursts, features."""

    # -- folders -----------------------------------------------------------------------------
    @writes
    def add_folder(self, path: str) -> int:
        """The id of the folder at `path`, recorded now if new."""
        with self._db.transaction() as tx:
            added = tx.execute(
                "INSERT OR IGNORE INTO folders (path, added_at) VALUES (?, ?)", (path, time.time())
            ).rowcount
            folder_id = int(tx.execute("SELECT id FROM folders WHERE path = ?", (path,)).fetchone()[0])
            if added:
                tx.announce(FoldersChanged((folder_id,)))
        return folder_id

    @writes
    def folder_scanned(self, folder_id: int) -> None:
        """Record that a scan of the folder finished."""
        with self._db.transaction() as tx:
            tx.execute("UPDATE folders SET scanned_at = ? WHERE id = ?", (time.time(), folder_id))
            tx.announce(FoldersChanged((folder_id,)))

    def folders(self) -> list[FolderRecord]:
        """Every imported folder."""
        return [FolderRecord(**r) for r in self._db.rows("SELECT * FROM folders ORDER BY path")]

    # -- images ------------------------------------------------------------------------------
    def images(self, status: str | None = None, folder_id: int | None = None) -> list[ImageRecord]:
        """Images ordered by path, optionally only those with `status` and/or in one folder."""
        sql, params = "SELECT * FROM images WHERE 1", list[Any]()
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        if folder_id is not None:
            sql += " AND folder_id = ?"
            params.append(folder_id)
        return [_image(r) for r in self._db.rows(sql + " ORDER BY path", params)]

    def grid_images(self) -> list[GridImage]:
        """Every image as a GridImage tuple, ordered by path (a lean read: no EXIF parsed)."""
        return self._db.tuples(
            "SELECT id, path, capture_time, folder_id, burst_id, status, error FROM images ORDER BY path"
        )

    def image_by_path(self, path: str) -> ImageRecord | None:
        """The image stored under exactly this path, or None."""
        row = self._db.row("SELECT * FROM images WHERE path = ?", (str(path),))
        return _image(row) if row else None

    def image_by_id(self, image_id: int) -> ImageRecord | None:
        """The image with this id, or None."""
        row = self._db.row("SELECT * FROM images WHERE id = ?", (image_id,))
        return _image(row) if row else None

    def image_ids(self, status: str | None = None) -> list[int]:
        """Image ids ordered by path (with `status`, when given), without loading the records."""
        if status is None:
            return [r["id"] for r in self._db.rows("SELECT id FROM images ORDER BY path")]
        return [r["id"] for r in self._db.rows("SELECT id FROM images WHERE status = ? ORDER BY path", (status,))]

    def images_by_hash(self, content_hash: str) -> list[ImageRecord]:
        """Images whose file bytes hash to `content_hash` (exact duplicates and moved files)."""
        rows = self._db.rows("SELECT * FROM images WHERE content_hash = ? ORDER BY id", (content_hash,))
        return [_image(r) for r in rows]

    def image_count(self, status: str | None = None) -> int:
        """How many images (with `status`, when given)."""
        if status is None:
            return int(self._db.scalar("SELECT COUNT(*) FROM images"))
        return int(self._db.scalar("SELECT COUNT(*) FROM images WHERE status = ?", (status,)))

    def file_states(self) -> dict[str, tuple[int, int | None, int | None, str]]:
        """{path: (id, size, mtime_ns, status)} for every image: what a rescan compares against."""
        rows = self._db.rows("SELECT path, id, size, mtime_ns, status FROM images")
        return {r["path"]: (r["id"], r["size"], r["mtime_ns"], r["status"]) for r in rows}

    @writes
    def ensure_image(self, path: str) -> int:
        """The id of the image at `path`, adding a bare row (not yet imported) when unknown."""
        now = time.time()
        with self._db.transaction() as tx:
            added = tx.execute(
                "INSERT OR IGNORE INTO images (path, added_at, updated_at) VALUES (?, ?, ?)",
                (str(path), now, now),
            ).rowcount
            image_id = int(tx.execute("SELECT id FROM images WHERE path = ?", (str(path),)).fetchone()[0])
            if added:
                tx.announce(ImagesChanged((image_id,)))
        return image_id

    @writes
    def image_id(self, image: int | str) -> int:
        """An image id from an id or a path (a path not yet in the profile is added bare)."""
        if isinstance(image, str):
            return self.ensure_image(image)
        return int(image)

    @writes
    def write_images(self, updates: Sequence[ImageUpdate]) -> list[int]:
        """Insert or update images by path in ONE committed transaction; return their ids."""
        return self.write_import_batch(updates)[0]

    @writes
    def write_import_batch(
        self,
        updates: Sequence[ImageUpdate],
        also: Callable[[sqlite3.Connection, list[int]], None] | None = None,
    ) -> tuple[list[int], int]:
        """write_images, plus each update's `initial_marks` for images that have no marks yet, plus
        whatever `also(conn, ids)` writes about those images (their features and checks).

        Returns (ids, how many marks were added); all of it commits together, so a crash never
        leaves an image whose measurements are missing.
        """
        now = time.time()
        ids: list[int] = []
        marked: list[int] = []
        with self._db.transaction() as tx:
            conn = tx.conn
            for u in updates:
                values = (
                    u.folder_id, u.content_hash, _phash_text(u.phash), u.size, u.mtime_ns,
                    u.width, u.height, u.format, u.capture_time, json.dumps(u.exif, default=str),
                    u.status, u.error, u.thumb_path, u.preview_path,
                )  # fmt: skip
                conn.execute(
                    "INSERT INTO images (path, folder_id, content_hash, phash, size, mtime_ns,"
                    " width, height, format, capture_time, exif, status, error, thumb_path,"
                    " preview_path, added_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (path) DO UPDATE SET folder_id = excluded.folder_id,"
                    " content_hash = excluded.content_hash, phash = excluded.phash,"
                    " size = excluded.size, mtime_ns = excluded.mtime_ns, width = excluded.width,"
                    " height = excluded.height, format = excluded.format,"
                    " capture_time = excluded.capture_time, exif = excluded.exif,"
                    " status = excluded.status, error = excluded.error,"
                    " thumb_path = excluded.thumb_path, preview_path = excluded.preview_path,"
                    " updated_at = excluded.updated_at",
                    (u.path, *values, now, now),
                )
                image_id = int(conn.execute("SELECT id FROM images WHERE path = ?", (u.path,)).fetchone()[0])
                ids.append(image_id)
                if u.initial_marks is not None:
                    stars, flag, label = u.initial_marks
                    if conn.execute(
                        "INSERT OR IGNORE INTO marks (image_id, stars, flag, label, updated_at, source)"
                        " VALUES (?, ?, ?, ?, ?, 'import')",
                        (image_id, stars, flag, normalize_label(label), now),
                    ).rowcount:
                        marked.append(image_id)
            if also is not None:
                also(conn, ids)
            if ids:
                tx.announce(ImagesChanged(tuple(ids)))
            if marked:
                tx.announce(MarksChanged(tuple(marked)))
        return ids, len(marked)

    @writes
    def move_image(
        self, image_id: int, new_path: str, folder_id: int | None, size: int, mtime_ns: int
    ) -> None:
        """Point an image (found again under another name) at its new path; it is ok again."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE images SET path = ?, folder_id = ?, size = ?, mtime_ns = ?, status = 'ok',"
                " error = NULL, updated_at = ? WHERE id = ?",
                (new_path, folder_id, size, mtime_ns, time.time(), image_id),
            )
            tx.announce(ImagesChanged((image_id,)))

    @writes
    def record_missing(self, image_ids: Iterable[int]) -> None:
        """Record that these images' files vanished (their marks, choices and scores are kept)."""
        ids = list(image_ids)
        if not ids:
            return
        with self._db.transaction() as tx:
            tx.executemany(
                "UPDATE images SET status = 'missing', error = 'file not found', updated_at = ?"
                " WHERE id = ?",
                [(time.time(), i) for i in ids],
            )
            tx.announce(ImagesChanged(tuple(ids)))

    # -- bursts ------------------------------------------------------------------------------
    def bursts(self) -> list[BurstRecord]:
        """Every burst with its images in capture order (then path)."""
        members: dict[int, list[int]] = {}
        for row in self._db.rows(
            "SELECT id, burst_id FROM images WHERE burst_id IS NOT NULL"
            " ORDER BY capture_time IS NULL, capture_time, path"
        ):
            members.setdefault(row["burst_id"], []).append(row["id"])
        return [
            BurstRecord(
                id=r["id"],
                image_ids=tuple(members.get(r["id"], ())),
                label=r["label"],
                edited=bool(r["edited"]),
                created_at=r["created_at"],
            )
            for r in self._db.rows("SELECT * FROM bursts ORDER BY id")
        ]

    @writes
    def set_burst(
        self, image_ids: Sequence[int], burst_id: int | None = None, edited: bool = True
    ) -> int | None:
        """Put images into a burst (a new one when burst_id is None); return its id.

        Fewer than two images in a new burst just takes them out of their bursts (returns None).
        Bursts left with fewer than two images are dissolved. `edited` marks a user's change, which
        automatic regrouping then leaves alone.
        """
        ids = list(image_ids)
        with self._db.transaction() as tx:
            conn = tx.conn
            if burst_id is None and len(ids) >= 2:
                cursor = conn.execute(
                    "INSERT INTO bursts (edited, created_at) VALUES (?, ?)", (int(edited), time.time())
                )
                burst_id = int(cursor.lastrowid or 0)
            elif burst_id is not None:
                if conn.execute("SELECT 1 FROM bursts WHERE id = ?", (burst_id,)).fetchone() is None:
                    raise KeyError(f"no burst with id {burst_id}")
                if edited:
                    conn.execute("UPDATE bursts SET edited = 1 WHERE id = ?", (burst_id,))
            conn.executemany(
                "UPDATE images SET burst_id = ? WHERE id = ?", [(burst_id, i) for i in ids]
            )
            _dissolve_small_bursts(conn)
            tx.announce(BurstsChanged(tuple(ids)))
        return burst_id

    @writes
    def replace_automatic_bursts(self, groups: Sequence[Sequence[int]]) -> list[int]:
        """Replace every burst the user did not edit by `groups` (images in edited bursts stay)."""
        created: list[int] = []
        with self._db.transaction() as tx:
            conn = tx.conn
            conn.execute(
                "UPDATE images SET burst_id = NULL WHERE burst_id IN"
                " (SELECT id FROM bursts WHERE edited = 0)"
            )
            conn.execute("DELETE FROM bursts WHERE edited = 0")
            held = {
                r[0] for r in conn.execute("SELECT id FROM images WHERE burst_id IS NOT NULL")
            }
            for group in groups:
                members = [i for i in group if i not in held]
                if len(members) < 2:
                    continue
                cursor = conn.execute(
                    "INSERT INTO bursts (edited, created_at) VALUES (0, ?)", (time.time(),)
                )
                burst_id = int(cursor.lastrowid or 0)
                conn.executemany(
                    "UPDATE images SET burst_id = ? WHERE id = ?", [(burst_id, i) for i in members]
                )
                created.append(burst_id)
            tx.announce(BurstsChanged())
        return created

    # -- features ----------------------------------------------------------------------------
    @writes
    def put_features(
        self, image_id: int, names: Sequence[str], vector: Sequence[float] | np.ndarray, version: str
    ) -> None:
        """Store (replace) the feature vector of one image."""
        self.put_features_many([(image_id, names, vector, version)])

    @writes
    def put_features_many(
        self, rows: Iterable[tuple[int, Sequence[str], Sequence[float] | np.ndarray, str]]
    ) -> None:
        """Store several images' feature vectors in one transaction."""
        rows = list(rows)
        with self._db.transaction() as tx:
            insert_features(tx.conn, rows)
            tx.announce(FeaturesChanged(tuple(r[0] for r in rows)))

    @writes
    def forget_features(self, image_ids: Sequence[int]) -> None:
        """Drop the feature vectors of these images (their files' content changed: they describe
        pixels that are gone, and a scorer must measure the new ones)."""
        ids = [int(i) for i in image_ids]
        if not ids:
            return
        with self._db.transaction() as tx:
            tx.executemany("DELETE FROM features WHERE image_id = ?", [(i,) for i in ids])
            tx.announce(FeaturesChanged(tuple(ids)))

    def feature_image_ids(self, version: str) -> set[int]:
        """Ids of images that have a feature vector of `version`."""
        rows = self._db.rows("SELECT image_id FROM features WHERE version = ?", (str(version),))
        return {r["image_id"] for r in rows}

    def features(self, version: str | None = None) -> tuple[list[int], list[str], np.ndarray]:
        """(image ids, feature names, float32 matrix n × d) for one feature version.

        Without `version`, the most recently written version is used; vectors of other versions
        (other names) are left out, so the matrix is always consistent.
        """
        if version is None:
            version = self._db.scalar("SELECT version FROM features ORDER BY updated_at DESC LIMIT 1")
            if version is None:
                return [], [], np.zeros((0, 0), dtype=np.float32)
        rows = self._db.rows(
            "SELECT image_id, names, vector FROM features WHERE version = ? ORDER BY image_id",
            (str(version),),
        )
        if not rows:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        names = json.loads(rows[-1]["names"])
        kept = [r for r in rows if json.loads(r["names"]) == names]
        matrix = np.stack([np.frombuffer(r["vector"], dtype=np.float32) for r in kept])
        return [r["image_id"] for r in kept], names, matrix


def _dissolve_small_bursts(conn: Any) -> None:
    conn.execute(
        "UPDATE images SET burst_id = NULL WHERE burst_id IN (SELECT burst_id FROM images"
        " WHERE burst_id IS NOT NULL GROUP BY burst_id HAVING COUNT(*) < 2)"
    )
    conn.execute("DELETE FROM bursts WHERE id NOT IN (SELECT burst_id FROM images"
                 " WHERE burst_id IS NOT NULL)")  # fmt: skip


def insert_features(
    conn: sqlite3.Connection, rows: Iterable[tuple[int, Sequence[str], Sequence[float] | np.ndarray, str]]
) -> None:
    """Store (replace) feature vectors inside the caller's write transaction."""
    now = time.time()
    values = []
    for image_id, names, vector, version in rows:
        array = np.asarray(vector, dtype=np.float32).ravel()
        if array.size != len(names):
            raise ValueError(f"{len(names)} feature names for a vector of {array.size} values")
        values.append((image_id, str(version), json.dumps(list(names)), array.tobytes(), now))
    conn.executemany(
        "INSERT OR REPLACE INTO features (image_id, version, names, vector, updated_at) VALUES (?, ?, ?, ?, ?)",
        values,
    )
