"""Runs of long jobs (import, bridge, distillation, …): parameters, progress, status and result.

A run never stays "running" because the disk filled: starting one lays down `<profile>.reserve`
(RESERVE_BYTES beside the profile, best effort), and when the write of how a run ended finds the
disk full, that file is removed and the write tried once more, so the run ends "failed" with its
reason. The next run lays the reserve down again. A run this process started and no longer runs
(its end could not be written even so) is closed "interrupted" by the next close_interrupted here,
as one of a process that is gone is.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aesthete_gui.atomic_write import process_tag, stamp_alive, tag_alive
from aesthete_gui.store.errors import ProfileDiskFullError
from aesthete_gui.store.events import RunChanged
from aesthete_gui.store.records import RunRecord
from aesthete_gui.store.repository import Repository, writes

ENDED = ("done", "failed", "cancelled", "interrupted")
RESERVE_SUFFIX = ".reserve"
RESERVE_BYTES = 256 * 1024
"""Room freed to record a run's end on a full disk (a few WAL frames; SQLite may need more)."""
_ACTIVE: set[tuple[str, int]] = set()
"""(profile path, run id) of the runs this process is running now."""


RESERVE_MAGIC = b"Aesthete run reserve 1\n"
"""How a reserve file of ours begins: only such a regular file is ever reused or removed."""


def reserve_path(profile_path: str | os.PathLike[str]) -> Path:
    """The file that keeps room on the profile's disk to record how a run ended (beside the profile
    itself when its path is a link: the room must be on the disk the profile is on)."""
    return Path(os.path.realpath(profile_path) + RESERVE_SUFFIX)


def _ours(path: Path, complete: bool) -> bool:
    """Whether `path` is a reserve file of ours (a regular file, not a link, beginning with
    RESERVE_MAGIC; `complete`: at its full size). Nothing else at that name is ever opened for
    writing, truncated or removed (an attack: a profile named `wedding.reserve`, a link to a
    precious file and a FIFO were there; the first two were overwritten, the FIFO hung the import)."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > RESERVE_BYTES or (complete and info.st_size != RESERVE_BYTES):
            return False
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            return os.read(descriptor, len(RESERVE_MAGIC)) == RESERVE_MAGIC
        finally:
            os.close(descriptor)
    except OSError:
        return False


def lay_reserve(profile_path: str | os.PathLike[str]) -> bool:
    """Make sure our reserve is there at its full size; False when it cannot be, or when something
    that is not ours stands at its name (left alone). It is written under a name of this process's
    own and linked into place whole, so the reserve's name never holds a file cut short (an attack:
    a kill between creating and writing it left an empty file no later run would touch)."""
    path = reserve_path(profile_path)
    if _ours(path, complete=True):
        return True
    if _ours(path, complete=False):  # a reserve of ours of an older kind, or cut short: laid again
        with contextlib.suppress(OSError):
            path.unlink()
    _remove_stale_drafts(path)
    draft = path.with_name(f"{path.name}.{process_tag()}.tmp")
    try:
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError:
        return False  # the disk is full, or something else is there: nothing of it is touched
    try:
        with os.fdopen(descriptor, "wb") as stream:
            # not zeros: a compressing file system would keep no room for them
            stream.write(RESERVE_MAGIC + os.urandom(RESERVE_BYTES - len(RESERVE_MAGIC)))
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(FileExistsError):  # another process laid it meanwhile: theirs stands
            os.link(draft, path, follow_symlinks=False)
        return _ours(path, complete=True)
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            draft.unlink()  # ours: made just now with O_EXCL


def _remove_stale_drafts(path: Path) -> None:
    """Remove drafts of the reserve that processes now gone left (`<reserve>.<writer tag>.tmp`, ours only)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            head, _, tail = entry.name.removeprefix(path.name + ".").partition(".")
            # a draft under our own tag is a dead run's too (we remove ours before returning): in a
            # container every run may have the same id (an attack saw such a draft block the reserve for good)
            stale = (entry.name.startswith(path.name + ".") and tail == "tmp"
                     and (head in (process_tag(), str(os.getpid())) or tag_alive(head) is False))  # fmt: skip
            if stale and _ours(Path(entry.path), complete=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def release_reserve(profile_path: str | os.PathLike[str]) -> bool:
    """Remove our reserve to free its room; False when there was none of ours."""
    path = reserve_path(profile_path)
    if not _ours(path, complete=False):
        return False
    try:
        path.unlink()
        return True
    except OSError:
        return False


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
        _ACTIVE.add((str(self._db.path), run_id))
        lay_reserve(self._db.path)  # after the commit: no file beside a profile that refuses writes
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
        """Update a run's status, progress and/or result (arguments left None stay unchanged).

        An ended status that finds the disk full frees the reserve and is written again."""
        if status not in ENDED:
            self._update(run_id, status, done, total, result)
            if status == "running":
                _ACTIVE.add((str(self._db.path), run_id))
            return
        _ACTIVE.discard((str(self._db.path), run_id))
        try:
            self._update(run_id, status, done, total, result)
        except ProfileDiskFullError:
            if not release_reserve(self._db.path):
                raise
            self._update(run_id, status, done, total, result)

    @writes
    def _update(
        self, run_id: int, status: str | None, done: int | None, total: int | None, result: Any
    ) -> None:
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
        """Mark runs of `kind` still 'running' whose process is gone (kill -9, crash), or that this
        process started and no longer runs, 'interrupted'."""
        stale = []
        running = "SELECT id, params FROM runs WHERE kind = ? AND status = 'running'"
        for row in self._db.rows(running, (kind,)):
            params = json.loads(row["params"] or "{}")
            params = params if isinstance(params, dict) else {}
            ours_ended = params.get("pid") == os.getpid() and (str(self._db.path), row["id"]) not in _ACTIVE
            if not stamp_alive(params) or ours_ended:
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
