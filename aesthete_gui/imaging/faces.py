"""Faces and whether their eyes are open, from OpenCV's bundled cascades (the optional "faces" extra).

OpenCV's wheel ships its trained cascades, so nothing is fetched at run time; without the package
`detect_faces` returns no faces and `unavailable_reason` says how to install it. Detection runs on
a copy whose long side is FACE_SIDE pixels.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from PIL import Image

FACE_SIDE = 288
EYE_CROP = 160
"""Faces are resized to this many pixels square before the eye search."""
MIN_FACE_PX = 24
"""Smallest face searched for, in pixels of the FACE_SIDE copy."""
INSTALL_HINT = "face checks unavailable: install the faces extra (pip install 'aesthete-gui[faces]')"

EyeState = Literal["open", "closed", "unknown"]


@dataclass(frozen=True)
class Face:
    """One face: box (x, y, width, height) as fractions of the frame, eye state, sharpness."""

    box: tuple[float, float, float, float]
    eyes: EyeState
    sharpness: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """The stored / CLI form: {box, eyes, sharpness}."""
        return {"box": [round(v, 4) for v in self.box], "eyes": self.eyes, "sharpness": round(self.sharpness, 3)}


@functools.cache
def _cascades() -> tuple[Any, Any, Any] | None:
    try:
        import cv2

        folder = cv2.data.haarcascades
        names = ("haarcascade_frontalface_default.xml", "haarcascade_eye.xml", "haarcascade_eye_tree_eyeglasses.xml")
        loaded = tuple(cv2.CascadeClassifier(folder + name) for name in names)
    except (ImportError, AttributeError, OSError):  # no OpenCV, or one without the bundled cascades (5.x)
        return None
    if any(c.empty() for c in loaded):
        return None
    cv2.setNumThreads(1)  # import runs one worker process per core already
    return loaded  # type: ignore[return-value]


def unavailable_reason() -> str | None:
    """None when face checks work, else what to install."""
    return None if _cascades() is not None else INSTALL_HINT


def faces_available() -> bool:
    """True when OpenCV and its cascades can be loaded."""
    return _cascades() is not None


def _eyes_found(face_grey: np.ndarray, eye_cascades: tuple[Any, Any]) -> int:
    import cv2

    crop = cv2.resize(face_grey, (EYE_CROP, EYE_CROP), interpolation=cv2.INTER_AREA)
    upper = crop[: int(EYE_CROP * 0.62)]
    for cascade in eye_cascades:
        for band in (upper, cv2.equalizeHist(upper)):
            eyes = cascade.detectMultiScale(band, scaleFactor=1.1, minNeighbors=3, minSize=(16, 16))
            if len(eyes):
                return len(eyes)
    return 0


def detect_faces(image: Image.Image) -> list[Face]:
    """Frontal faces in an RGB image with their eye state; [] when none or OpenCV is missing."""
    cascades = _cascades()
    if cascades is None:
        return []
    import cv2

    face_cascade, *eye_cascades = cascades
    grey_full = np.asarray(image.convert("L"))
    h, w = grey_full.shape
    scale = min(1.0, FACE_SIDE / max(h, w))
    small = cv2.resize(grey_full, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    found = face_cascade.detectMultiScale(
        cv2.equalizeHist(small), scaleFactor=1.2, minNeighbors=4, minSize=(MIN_FACE_PX, MIN_FACE_PX)
    )
    faces: list[Face] = []
    for x, y, fw, fh in sorted((tuple(int(v) for v in f) for f in found), key=lambda f: -f[2] * f[3]):
        x0, y0 = int(x / scale), int(y / scale)
        x1, y1 = min(w, int((x + fw) / scale)), min(h, int((y + fh) / scale))
        crop = grey_full[y0:y1, x0:x1]
        if crop.size == 0:
            continue
        # The cascades find open eyes; missing them is no proof of closed eyes (glasses, shadow,
        # a turned head), so the state stays unknown rather than raise a false alarm.
        eyes: EyeState = "open" if _eyes_found(crop, tuple(eye_cascades)) else "unknown"  # type: ignore[arg-type]
        faces.append(Face((x0 / w, y0 / h, (x1 - x0) / w, (y1 - y0) / h), eyes))
    return faces
