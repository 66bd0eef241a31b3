"""Full-resolution decodes for the 100 % loupe: decoded off the UI thread, kept in memory within a byte
budget (least recently used first out), the next frame decoded ahead; histograms and focus peaking."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtGui import QColor, QImage

from aesthete_gui.imaging.loupe_analysis import Histogram, focus_peaking_mask, rgb_histogram

DEFAULT_BUDGET_BYTES = 768 * 2**20
"""Memory for decoded frames: about seven 24 MP frames (4 bytes a pixel)."""
PEAKING_COLOUR = QColor("#ff2fd0")
CURRENT, AHEAD = 10, 0  # thread-pool priorities: the frame shown before the one read ahead


def array_to_qimage(rgb: np.ndarray) -> QImage:
    """An (H, W, 3) uint8 array as a QImage in the format QPixmap takes without converting (RGB32)."""
    rgb = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
    height, width = rgb.shape[:2]
    image = QImage(rgb.data, width, height, width * 3, QImage.Format.Format_RGB888)
    return image.convertToFormat(QImage.Format.Format_RGB32)  # a deep copy, off the Python buffer


def qimage_to_array(image: QImage) -> np.ndarray:
    """An (H, W, 3) uint8 copy of a QImage's pixels."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = rgb.width(), rgb.height(), rgb.bytesPerLine()
    buffer = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=stride * height)
    return buffer.reshape(height, stride)[:, : width * 3].reshape(height, width, 3).copy()


def peaking_overlay(image: QImage, threshold: float | None = None) -> QImage:
    """A transparent image of `image`'s size with its sharp edges painted in the peaking colour."""
    rgb = qimage_to_array(image)
    mask = focus_peaking_mask(rgb) if threshold is None else focus_peaking_mask(rgb, threshold)
    rgba = np.zeros((*mask.shape, 4), dtype=np.uint8)
    rgba[mask] = (PEAKING_COLOUR.red(), PEAKING_COLOUR.green(), PEAKING_COLOUR.blue(), 255)
    height, width = mask.shape
    return QImage(rgba.data, width, height, width * 4, QImage.Format.Format_RGBA8888).copy()


class _Signals(QObject):
    decoded = Signal(str, QImage, object)  # path, image, Histogram
    failed = Signal(str, str)
    analysed = Signal(str, str, object)  # key, what ("histogram" | "peaking"), Histogram | QImage


class _DecodeTask(QRunnable):
    def __init__(self, path: str, signals: _Signals) -> None:
        super().__init__()
        self._path, self._signals = path, signals

    def run(self) -> None:
        from aesthete_gui.imaging.decode import decode_full_resolution

        try:
            rgb = np.asarray(decode_full_resolution(self._path).image.convert("RGB"))
            image, histogram = array_to_qimage(rgb), rgb_histogram(rgb)
        except Exception as exc:  # a bad file must never take the app down
            self._signals.failed.emit(self._path, str(exc) or type(exc).__name__)
            return
        self._signals.decoded.emit(self._path, image, histogram)


class _AnalyseTask(QRunnable):
    def __init__(self, key: str, what: str, image: QImage, signals: _Signals) -> None:
        super().__init__()
        self._key, self._what, self._image, self._signals = key, what, image, signals

    def run(self) -> None:
        try:
            result = (
                rgb_histogram(qimage_to_array(self._image)) if self._what == "histogram"
                else peaking_overlay(self._image)
            )  # fmt: skip
        except Exception as exc:
            self._signals.failed.emit(self._key, str(exc) or type(exc).__name__)
            return
        self._signals.analysed.emit(self._key, self._what, result)


class FullResolutionCache(QObject):
    """Decodes originals in two worker threads and keeps them, least recently used out first."""

    loaded = Signal(str, QImage)  # path, the full-resolution image
    histogram_ready = Signal(str, object)  # key (a path, or "preview:<path>"), Histogram
    peaking_ready = Signal(str, QImage)  # key, overlay
    failed = Signal(str, str)

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.budget_bytes = budget_bytes
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(2)
        self._images: OrderedDict[str, QImage] = OrderedDict()
        self._histograms: dict[str, Histogram] = {}
        self._pending: dict[str, _DecodeTask] = {}
        self._signals = _Signals(self)
        self._signals.decoded.connect(self._on_decoded)
        self._signals.failed.connect(self._on_failed)
        self._signals.analysed.connect(self._on_analysed)

    @property
    def used_bytes(self) -> int:
        """Bytes held by the decoded frames in memory."""
        return sum(image.sizeInBytes() for image in self._images.values())

    def cached(self, path: str) -> QImage | None:
        """The full-resolution image of `path` when it is in memory (marks it recently used)."""
        image = self._images.get(path)
        if image is not None:
            self._images.move_to_end(path)
        return image

    def cached_paths(self) -> list[str]:
        """Paths in memory, least recently used first."""
        return list(self._images)

    def histogram(self, key: str) -> Histogram | None:
        """The histogram computed for `key`, if any."""
        return self._histograms.get(key)

    def request(self, path: str, ahead: bool = False) -> QImage | None:
        """The image when in memory; else start decoding it (`loaded` follows) and return None."""
        image = self.cached(path)
        if image is None and path not in self._pending:
            task = _DecodeTask(path, self._signals)
            task.setAutoDelete(False)  # kept alive here until it reports, so tryTake never sees a freed task
            self._pending[path] = task
            self._pool.start(task, AHEAD if ahead else CURRENT)
        return image

    def drop_queued(self, keep: set[str]) -> int:
        """Forget the decodes still waiting in the queue, except those of `keep`; returns how many.

        Stepping quickly through a shoot queues a decode per frame passed; without this the frame
        the user stops on waits for all of them. Decodes already running finish and are cached.
        """
        dropped = 0
        for path, task in list(self._pending.items()):
            if path not in keep and self._pool.tryTake(task):
                del self._pending[path]
                dropped += 1
        return dropped

    def analyse(self, key: str, image: QImage, what: str = "histogram") -> None:
        """Compute a histogram or a focus-peaking overlay of `image` off the UI thread."""
        self._pool.start(_AnalyseTask(key, what, image, self._signals), CURRENT)

    def wait_idle(self, msecs: int = 30000) -> bool:
        """Block until background work ends (tests, the benchmark)."""
        return self._pool.waitForDone(msecs)

    def stop(self, msecs: int = 1000) -> None:
        """Closing: drop the decodes not started yet, then wait briefly for the running ones."""
        self._pool.clear()
        self._pool.waitForDone(msecs)

    def clear(self) -> None:
        """Drop every decoded frame."""
        self._images.clear()
        self._histograms.clear()

    def _on_decoded(self, path: str, image: QImage, histogram: Histogram) -> None:
        self._pending.pop(path, None)
        self._images[path] = image
        self._histograms[path] = histogram
        while len(self._images) > 1 and self.used_bytes > self.budget_bytes:
            dropped, _ = self._images.popitem(last=False)
            self._histograms.pop(dropped, None)
        self.loaded.emit(path, image)
        self.histogram_ready.emit(path, histogram)

    def _on_failed(self, key: str, reason: str) -> None:
        self._pending.pop(key, None)
        self.failed.emit(key, reason)

    def _on_analysed(self, key: str, what: str, result: object) -> None:
        if what == "histogram":
            if isinstance(result, Histogram):
                self._histograms[key] = result
            self.histogram_ready.emit(key, result)
        else:
            self.peaking_ready.emit(key, result)
