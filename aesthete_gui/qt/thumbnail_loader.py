"""Loads thumbnails and previews in background threads and keeps a bounded cache of QPixmaps.

`request(image_id)` returns the pixmap when it is cached and otherwise queues a load; `ready(id)`
fires in the UI thread once it arrives. The queue is last-in-first-out so that the rows a user
scrolls to now load before the ones they scrolled past.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QImage, QPixmap

if TYPE_CHECKING:
    from aesthete_gui.store import Profile

log = logging.getLogger(__name__)

THUMB = "thumb"
PREVIEW = "preview"

ThumbnailResolver = Callable[[int, str], Path | None]
"""(image_id, THUMB | PREVIEW) -> the JPEG to show, or None; called in a worker thread."""


class ThumbnailLoader(QObject):
    """Async QPixmap cache of thumbnails (grid) and previews (loupe, compare)."""

    ready = Signal(int)
    preview_ready = Signal(int)
    _loaded = Signal(int, str, object)  # worker -> UI: id, kind, QImage | error text

    def __init__(
        self,
        resolve: ThumbnailResolver,
        capacity: int = 3000,
        preview_capacity: int = 24,
        workers: int = 2,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._resolve = resolve
        self._cache: dict[str, OrderedDict[int, QPixmap]] = {THUMB: OrderedDict(), PREVIEW: OrderedDict()}
        self._capacity = {THUMB: capacity, PREVIEW: preview_capacity}
        self._failed: set[tuple[int, str]] = set()
        self._pending: list[tuple[int, str]] = []
        self._queued: set[tuple[int, str]] = set()
        self._lock = threading.Condition()
        self._closed = False
        self._loaded.connect(self._on_loaded, Qt.ConnectionType.QueuedConnection)
        self._threads = [
            threading.Thread(target=self._work, name=f"aesthete-thumbs-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def pixmap(self, image_id: int, kind: str = THUMB) -> QPixmap | None:
        """The cached pixmap, or None (does not queue a load)."""
        cache = self._cache[kind]
        pix = cache.get(image_id)
        if pix is not None:
            cache.move_to_end(image_id)
        return pix

    def request(self, image_id: int, kind: str = THUMB) -> QPixmap | None:
        """The cached pixmap; when missing, queue a load and return None (`ready` fires later)."""
        pix = self.pixmap(image_id, kind)
        if pix is not None or (image_id, kind) in self._failed:
            return pix
        key = (image_id, kind)
        with self._lock:
            if key in self._queued:
                if key not in self._pending:
                    return None  # a worker is loading it right now
                # move it to the top of the stack: the user is looking at it now
                self._pending.remove(key)
            self._queued.add(key)
            self._pending.append(key)
            self._lock.notify()
        return None

    def request_preview(self, image_id: int) -> QPixmap | None:
        """The cached 1024 px preview, or None after queueing it (`preview_ready` fires later)."""
        return self.request(image_id, PREVIEW)

    def pending_count(self) -> int:
        """How many loads are queued (for tests and the screenshot option)."""
        with self._lock:
            return len(self._pending)

    def close(self) -> None:
        """Stop the worker threads (queued loads are dropped)."""
        with self._lock:
            self._closed = True
            self._pending.clear()
            self._queued.clear()
            self._lock.notify_all()

    # worker side -------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._pending and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                image_id, kind = self._pending.pop()
            try:
                path = self._resolve(image_id, kind)
                if path is None:
                    raise FileNotFoundError("no thumbnail for this image")
                image = QImage(str(path))
                if image.isNull():
                    raise ValueError(f"cannot read {path}")
                payload: object = image
            except Exception as exc:  # a bad image shows a placeholder, never stops the grid
                payload = str(exc) or type(exc).__name__
            with self._lock:
                self._queued.discard((image_id, kind))
                if self._closed:
                    return
            self._loaded.emit(image_id, kind, payload)

    # UI side -----------------------------------------------------------------------------------

    @Slot(int, str, object)
    def _on_loaded(self, image_id: int, kind: str, payload: object) -> None:
        if not isinstance(payload, QImage):
            self._failed.add((image_id, kind))
            if kind == THUMB:
                self.ready.emit(image_id)
            return
        cache = self._cache[kind]
        cache[image_id] = QPixmap.fromImage(payload)
        while len(cache) > self._capacity[kind]:
            cache.popitem(last=False)
        (self.ready if kind == THUMB else self.preview_ready).emit(image_id)


def profile_thumbnail_resolver(profile: Profile, cache_dir: Path) -> ThumbnailResolver:
    """A resolver that finds (or makes) the cached 256 px thumbnail / 1024 px preview of an image.

    A thumbnail never costs a full decode (the import made it, or an EXIF / draft decode does);
    the preview is made on first view.
    """
    from aesthete_gui.imaging.thumbnails import ensure_thumbnail, ensure_thumbnails, touch

    def resolve(image_id: int, kind: str) -> Path | None:
        record = profile.catalog.image_by_id(image_id)
        if record is None or not record.content_hash:
            return None
        if kind == THUMB:
            if record.thumb_path and Path(record.thumb_path).is_file():
                touch(record.thumb_path)  # recently used: the cache keeps it longest
                return Path(record.thumb_path)
            return Path(ensure_thumbnail(record.path, record.content_hash, cache_dir))
        return Path(ensure_thumbnails(record.path, record.content_hash, cache_dir).preview_path)

    return resolve
