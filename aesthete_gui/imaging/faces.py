"""Faces, whether their eyes are open or closed, and the mouth's expression (the optional "faces"
extra: the LiteRT interpreter).

A face detector finds the faces on the whole frame and a landmark network measures each one's eyelids
(imaging/face_models.py; the weights ship with the package, nothing is fetched at run time). An eye's
openness is the gap between its lids over its width. Eyes are "closed" only when both are clearly
shut, "open" when they are clearly open, and "unknown" when the measure cannot be trusted: a face too
small for its lids to be seen, a head turned to profile, a face the landmark network doubts. Without
the interpreter package `detect_faces` returns no faces and `unavailable_reason` says how to install it.

The same mesh gives the mouth: its width against the span of the eyes, and the gap between the lips.
A wide mouth is a smile, a wide and open one a laugh, a narrow pursed one a kiss; eyes closed in such
a moment are an expression, not a blink (imaging/judging.py only warns about them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from PIL import Image

from aesthete_gui.imaging import face_models

INSTALL_HINT = "face checks unavailable: install the faces extra (pip install 'aesthete-gui[faces]')"
MIN_PRESENCE = 0.5
"""Below this face-presence score from the landmark network, a detection is not a face and is dropped."""
TRUSTED_PRESENCE = 0.9
"""Below this presence the face is kept but its eye state is "unknown"."""
MIN_EYE_FACE_PX = 40
"""Faces narrower than this (frame pixels) are kept but too small to judge the eyes: "unknown"."""
MIN_EYE_WIDTH_RATIO = 0.6
"""Narrower eye over wider eye below this: the head is turned too far to trust the lids ("unknown")."""
CLOSED_BELOW = 0.10
"""Eye openness (lid gap / eye width) under which an eye counts as closed."""
OPEN_FROM = 0.18
"""Eye openness from which an eye counts as open; between the two the eye is undecided."""

SMILE_WIDTH = 0.63
"""Mouth width over the span of the outer eye corners from which the mouth is smiling (neutral mouths
measure 0.50-0.60 on the benchmark faces, broad smiles 0.63-0.72)."""
LAUGH_WIDTH = 0.58
LAUGH_GAP = 0.2
"""A mouth at least this wide whose lips part by at least this share of its width is laughing."""
KISS_WIDTH = 0.42
KISS_GAP = 0.08
"""A closed mouth narrower than this (lips pursed) is a kiss; no benchmark face measures under 0.44."""
MOUTH_CORNERS = (61, 291)
INNER_LIPS = (13, 14)
EYE_CORNERS = (33, 263)

# Mesh points of each eye: the two corners, then three upper-lid points facing three lower-lid points.
RIGHT_EYE = {"corners": (33, 133), "upper": (160, 159, 158), "lower": (144, 145, 153)}
LEFT_EYE = {"corners": (263, 362), "upper": (387, 386, 385), "lower": (373, 374, 380)}

EyeState = Literal["open", "closed", "unknown"]
Expression = Literal["laughing", "smiling", "kissing"]


@dataclass(frozen=True)
class Face:
    """One face: box (x, y, width, height) as fractions of the frame, eye state, sharpness (the edge
    spread of its eye band, imaging/sharpness.py: about 2 crisp, 3.3 and up soft; 0 not measured),
    eye openness, and the mouth's expression."""

    box: tuple[float, float, float, float]
    eyes: EyeState
    sharpness: float = 0.0
    openness: tuple[float, float] | None = None
    """(right, left) lid gap / eye width, None when the eyes were not measured."""
    expression: Expression | None = None
    mouth: tuple[float, float] | None = None
    """(mouth width / eye span, lip gap / mouth width), None when not measured."""

    def as_dict(self) -> dict[str, Any]:
        """The stored / CLI form: {box, eyes, sharpness, openness, expression, mouth}."""
        openness = None if self.openness is None else [round(v, 3) for v in self.openness]
        return {
            "box": [round(v, 4) for v in self.box],
            "eyes": self.eyes,
            "sharpness": round(self.sharpness, 3),
            "openness": openness,
            "expression": self.expression,
            "mouth": None if self.mouth is None else [round(v, 3) for v in self.mouth],
        }


def unavailable_reason() -> str | None:
    """None when face checks work, else what to install (or, with the package there, what failed)."""
    problem = face_models.load_problem()
    if problem is None:
        return None
    if problem == "missing":
        return INSTALL_HINT
    return f"face checks unavailable: the face networks shipped with Aesthete could not be loaded ({problem})"


def faces_available() -> bool:
    """True when the interpreter package and the shipped weights load."""
    return face_models.networks() is not None


def eye_openness(points: np.ndarray, eye: dict[str, tuple[int, ...]]) -> tuple[float, float]:
    """(lid gap / eye width, eye width) of one eye from mesh points (x, y in any one pixel scale)."""
    xy = points[:, :2]
    width = float(np.linalg.norm(xy[eye["corners"][0]] - xy[eye["corners"][1]]))
    gaps = np.linalg.norm(xy[list(eye["upper"])] - xy[list(eye["lower"])], axis=1)
    return float(gaps.mean()) / max(width, 1e-6), width


def mouth_shape(points: np.ndarray) -> tuple[float, float]:
    """(mouth width / span of the outer eye corners, gap between the inner lips / mouth width)."""
    xy = points[:, :2]
    width = float(np.linalg.norm(xy[MOUTH_CORNERS[0]] - xy[MOUTH_CORNERS[1]]))
    span = float(np.linalg.norm(xy[EYE_CORNERS[0]] - xy[EYE_CORNERS[1]]))
    gap = float(np.linalg.norm(xy[INNER_LIPS[0]] - xy[INNER_LIPS[1]]))
    return width / max(span, 1e-6), gap / max(width, 1e-6)


def expression_of(mouth: tuple[float, float]) -> Expression | None:
    """Laughing, smiling or kissing from the mouth's shape; None for a neutral (or talking) mouth."""
    width, gap = mouth
    if width >= LAUGH_WIDTH and gap >= LAUGH_GAP:
        return "laughing"
    if width >= SMILE_WIDTH:
        return "smiling"
    if width <= KISS_WIDTH and gap <= KISS_GAP:
        return "kissing"
    return None


def eye_state(
    openness: tuple[float, float], eye_widths: tuple[float, float], face_px: float, presence: float
) -> EyeState:
    """Open, closed or unknown from both eyes' openness, how frontal and large the face is, and presence."""
    if face_px < MIN_EYE_FACE_PX or presence < TRUSTED_PRESENCE:
        return "unknown"
    if min(eye_widths) < MIN_EYE_WIDTH_RATIO * max(eye_widths):
        return "unknown"  # turned towards profile: the far eye's lids are foreshortened
    if max(openness) < CLOSED_BELOW:
        return "closed"
    if min(openness) >= OPEN_FROM:
        return "open"
    return "unknown"  # half-closed, squinting, or one eye unlike the other: no evidence either way


def detect_faces(image: Image.Image) -> list[Face]:
    """Faces in an RGB image with their eye state, largest first; [] when none or the extra is missing."""
    nets = face_models.networks()
    if nets is None:
        return []
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    width, height = rgb.size
    with nets.lock:
        found = [(d, face_models.landmarks(nets, rgb, d)) for d in face_models.detect(nets, rgb)]
    faces: list[tuple[float, Face]] = []
    for detection, mesh in found:
        if mesh.presence < MIN_PRESENCE:
            continue
        right, right_width = eye_openness(mesh.points, RIGHT_EYE)
        left, left_width = eye_openness(mesh.points, LEFT_EYE)
        x, y, w, h = detection.box
        eyes = eye_state((right, left), (right_width, left_width), max(w, h), mesh.presence)
        x0, y0 = max(0.0, x), max(0.0, y)
        x1, y1 = min(float(width), x + w), min(float(height), y + h)
        if x1 <= x0 or y1 <= y0:
            continue
        box = (x0 / width, y0 / height, (x1 - x0) / width, (y1 - y0) / height)
        mouth = mouth_shape(mesh.points)
        expression = expression_of(mouth) if eyes != "unknown" or max(w, h) >= MIN_EYE_FACE_PX else None
        faces.append((w * h, Face(box, eyes, openness=(right, left), expression=expression, mouth=mouth)))
    return [face for _, face in sorted(faces, key=lambda item: -item[0])]
