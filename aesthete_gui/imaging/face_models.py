"""The two face networks behind imaging/faces.py, run through the LiteRT interpreter (the faces extra).

A single-shot face detector reads the whole frame letterboxed to a 128-pixel square: for every anchor
(a fixed grid of box centres) it gives a score and offsets of the box and six keypoints (eyes, nose,
mouth, ears). It is the short-range variant: it finds faces spanning more than about an eighth of the
frame's long side, in about a millisecond; the full-range variant that also finds smaller faces costs
three to four times as much, more than the import budget allows. `detect` turns those into boxes (anchors, decoding, score threshold, weighted non-maximum
suppression). A landmark network then reads a square crop around each box, turned upright by the
line through the eyes, and gives 468 surface points and a face-presence score (`landmarks`).
The weights ship in resources/faces/ (see its README); nothing is fetched at run time.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from aesthete_gui.resources import ResourceNotFoundError, resource_file

DETECTOR_FILE = "face_detection_short_range.tflite"
DETECTOR_SIDE = 128
ANCHOR_LAYOUT = ((8, 2), (16, 6))
"""(stride, anchors per cell) of the detector's outputs: 16 x 16 cells of 2, then 8 x 8 cells of 6 (896)."""
MIN_SCORE = 0.5
"""Detections below this score are dropped before suppression."""
LANDMARK_FILE = "face_landmark.tflite"
LANDMARK_SIDE = 192
OVERLAP = 0.3
"""Boxes overlapping a stronger one by more than this intersection-over-union are merged into it."""
CROP_SCALE = 1.5
"""The landmark crop is this many times the detected box's longer side (the box is tight on the face)."""


@dataclass(frozen=True)
class Detection:
    """One detected face in frame pixels: box (x, y, w, h), score, and the two eye centres."""

    box: tuple[float, float, float, float]
    score: float
    right_eye: tuple[float, float]  # the subject's right eye: on the left of the picture
    left_eye: tuple[float, float]


@dataclass(frozen=True)
class Mesh:
    """468 face-surface points in an upright crop's pixels (x, y, z), the crop's side in frame pixels, presence."""

    points: np.ndarray
    crop_side: float
    presence: float


class Networks:
    """The detector and the landmark network, loaded once per process with one thread each.

    An interpreter holds its input and output tensors, so one caller at a time: hold `lock`.
    """

    def __init__(self, interpreter_class: Any) -> None:
        self.lock = threading.Lock()
        self.detector = _load(interpreter_class, DETECTOR_FILE)
        self.anchors = _anchors(DETECTOR_SIDE, ANCHOR_LAYOUT)
        self.landmarker = _load(interpreter_class, LANDMARK_FILE)


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Send file descriptor 2 to the null device for a moment.

    The interpreter's native code announces its CPU delegate on stderr the first time one is made in a
    process, and nothing but Aesthete's own messages may reach the terminal. Output from other threads
    in those few milliseconds is lost too; without a usable descriptor 2 nothing is redirected.
    """
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _load(interpreter_class: Any, name: str) -> Any:
    with _native_stderr_silenced():
        interpreter = interpreter_class(model_path=str(resource_file("faces", name)), num_threads=1)
        interpreter.allocate_tensors()
    return interpreter


_load_lock = threading.Lock()
_loaded: tuple[Networks | None, str | None] | None = None


def networks() -> Networks | None:
    """The loaded networks, or None when the interpreter package or the weights are missing."""
    return _load_once()[0]


def load_problem() -> str | None:
    """None when the networks loaded; "missing" without the interpreter package; else what failed."""
    return _load_once()[1]


def reset() -> None:
    """Forget the loaded networks (tests load them again under other conditions)."""
    global _loaded
    with _load_lock:
        _loaded = None


def _load_once() -> tuple[Networks | None, str | None]:
    # One load per process, under a lock: two threads loading at once would both redirect stderr,
    # and the second could put back the null device the first had set.
    global _loaded
    if _loaded is None:
        with _load_lock:
            if _loaded is None:
                _loaded = _try_load()
    return _loaded


def _try_load() -> tuple[Networks | None, str | None]:
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return None, "missing"
    try:
        return Networks(Interpreter), None
    except (ResourceNotFoundError, ValueError, RuntimeError) as error:  # weights missing or unreadable
        return None, f"{type(error).__name__}: {error}"


def _anchors(side: int, layout: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Anchor centres (x, y) in 0-1 in the order of the detector's outputs: per stride, cells row by row,
    each cell's anchors together (they share a centre; the network's box sizes are absolute)."""
    grids = []
    for stride, per_cell in layout:
        cells = math.ceil(side / stride)
        centres = (np.arange(cells, dtype=np.float32) + 0.5) / cells
        ys, xs = np.meshgrid(centres, centres, indexing="ij")
        grids.append(np.repeat(np.stack([xs.ravel(), ys.ravel()], axis=1), per_cell, axis=0))
    return np.concatenate(grids)


def _run(interpreter: Any, tensor: np.ndarray) -> list[np.ndarray]:
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], tensor[None])
    interpreter.invoke()
    return [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]


def _letterbox(image: Image.Image, side: int) -> tuple[np.ndarray, float]:
    """The image scaled to fit a side x side square (top-left, black margin) and the scale used."""
    scale = side / max(image.size)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    canvas = np.zeros((side, side, 3), dtype=np.uint8)
    canvas[: size[1], : size[0]] = np.asarray(image.resize(size, Image.Resampling.BILINEAR, reducing_gap=1.0))
    return canvas, scale


def _suppress(boxes: np.ndarray, scores: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Weighted non-maximum suppression: each strongest box absorbs those overlapping it, score-weighted."""
    order = np.argsort(-scores)
    boxes, scores = boxes[order], scores[order]
    corners = np.concatenate([boxes[:, :2] - boxes[:, 2:4] / 2, boxes[:, :2] + boxes[:, 2:4] / 2], axis=1)
    areas = boxes[:, 2] * boxes[:, 3]
    left = np.ones(len(boxes), dtype=bool)
    kept = []
    for i in range(len(boxes)):
        if not left[i]:
            continue
        top_left = np.maximum(corners[i, :2], corners[:, :2])
        bottom_right = np.minimum(corners[i, 2:], corners[:, 2:])
        inter = np.prod(np.clip(bottom_right - top_left, 0, None), axis=1)
        overlap = inter / np.maximum(areas[i] + areas - inter, 1e-9)
        group = left & (overlap > OVERLAP)
        weights = scores[group][:, None]
        kept.append(((boxes[group] * weights).sum(axis=0) / weights.sum(), float(scores[i])))
        left &= ~group
    return kept


def detect(nets: Networks, image: Image.Image) -> list[Detection]:
    """Faces in an RGB image, strongest first, in the image's pixels."""
    canvas, scale = _letterbox(image, DETECTOR_SIDE)
    outputs = _run(nets.detector, canvas.astype(np.float32) * (2 / 255) - 1)
    regressors, logits = sorted(outputs, key=lambda o: -o.shape[-1])  # 16 numbers per anchor, then 1
    scores = 1 / (1 + np.exp(-np.clip(logits.reshape(-1), -80, 80)))
    chosen = np.flatnonzero(scores >= MIN_SCORE)
    if chosen.size == 0:
        return []
    # Per anchor: box centre, box size, then six keypoints; centres and keypoints are offsets from the anchor.
    decoded = regressors.reshape(-1, 16)[chosen] / DETECTOR_SIDE
    decoded[:, 0:2] += nets.anchors[chosen]
    decoded[:, 4:16] += np.tile(nets.anchors[chosen], 6)
    to_frame = DETECTOR_SIDE / scale
    found = []
    for values, score in _suppress(decoded, scores[chosen]):
        cx, cy, w, h, right_x, right_y, left_x, left_y = (values[:8] * to_frame).tolist()
        found.append(Detection((cx - w / 2, cy - h / 2, w, h), score, (right_x, right_y), (left_x, left_y)))
    return found


def _crop_transform(detection: Detection) -> tuple[float, float, float, float, float]:
    """Centre (x, y), side and the rotation (cos, sin) of the square upright crop around a detection."""
    x, y, w, h = detection.box
    angle = math.atan2(detection.left_eye[1] - detection.right_eye[1], detection.left_eye[0] - detection.right_eye[0])
    return x + w / 2, y + h / 2, max(w, h) * CROP_SCALE, math.cos(angle), math.sin(angle)


def _upright_crop(image: Image.Image, detection: Detection) -> tuple[Image.Image, float]:
    """The LANDMARK_SIDE square crop around a detection, eyes level, and its side in frame pixels."""
    cx, cy, side, cos, sin = _crop_transform(detection)
    # Cut the region the turned square covers and shrink it by a whole factor (a box filter), so the
    # turn itself samples at most 2 region pixels per crop pixel: nearest-neighbour sampling is then
    # enough (eye openness within 0.012 of bilinear's on the benchmark faces) at a sixteenth of its cost.
    reach = side / 2 * (abs(cos) + abs(sin))
    left, top = math.floor(cx - reach), math.floor(cy - reach)
    region = image.crop((left, top, math.ceil(cx + reach), math.ceil(cy + reach)))
    factor = max(1, int(side // LANDMARK_SIDE))
    if factor > 1:
        region = region.reduce(factor)
    unit = side / LANDMARK_SIDE / factor
    centre_x, centre_y = (cx - left) / factor, (cy - top) / factor
    # Image.transform wants, for each crop pixel (u, v), where to read in the region.
    origin_x = centre_x - unit * (cos - sin) * LANDMARK_SIDE / 2
    origin_y = centre_y - unit * (sin + cos) * LANDMARK_SIDE / 2
    coefficients = (unit * cos, -unit * sin, origin_x, unit * sin, unit * cos, origin_y)
    size = (LANDMARK_SIDE, LANDMARK_SIDE)
    return region.transform(size, Image.Transform.AFFINE, coefficients, Image.Resampling.NEAREST), side


def landmarks(nets: Networks, image: Image.Image, detection: Detection) -> Mesh:
    """The face mesh of one detection, measured on a crop turned so the eyes are level."""
    crop, side = _upright_crop(image, detection)
    tensor = np.asarray(crop, dtype=np.float32) * (1 / 255)
    outputs = _run(nets.landmarker, tensor)
    points, logit = sorted(outputs, key=lambda o: -o.size)
    presence = 1 / (1 + math.exp(-float(np.clip(logit.reshape(-1)[0], -80, 80))))
    return Mesh(points.reshape(-1, 3), side, presence)
