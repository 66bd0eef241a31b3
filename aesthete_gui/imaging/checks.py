"""Technical verdicts per image: focus, motion blur, clipping, exposure, noise, size, compression.

Every check is measured on one canonical decode (`decode_for_checks`: DCT-scaled so that the long
side is at most CHECK_SIDE), so import, the inspector and the loupe get the same values for one
file. Each check keeps its measured value, a verdict (ok / warn / reject) from the thresholds in
resources/culling/checks.toml, and a one-line reason a photographer understands.
"""

from __future__ import annotations

import functools
import io
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from PIL import Image

from aesthete_gui.imaging.decode import Decoded, decode_bytes, read_bytes
from aesthete_gui.imaging.faces import Face, detect_faces, faces_available
from aesthete_gui.imaging.texture import cell_sums, gradients, laplacian, second_difference_response
from aesthete_gui.resources import resource_file

MEASURE_VERSION = "1"
"""Bump when the measuring code changes; CHECKS_VERSION also follows the thresholds file."""
CHECK_SIDE = 768
CHECK_DRAFT_SIDE = 256
"""JPEG DCT scaling may stop at this long side: the same decode import makes its thumbnail from."""
TILE_GRID = 8
HIGHLIGHT_LEVEL = 250
SHADOW_LEVEL = 5
LAPLACIAN_NOISE_GAIN = 20.0
"""Variance of the 5-point Laplacian of white noise of unit variance (4 x 1 + 16)."""

Verdict = Literal["ok", "warn", "reject"]
VERDICT_RANK: dict[str, int] = {"ok": 0, "warn": 1, "reject": 2}
CHECK_NAMES: tuple[str, ...] = (
    "focus", "motion_blur", "highlights", "shadows", "underexposure", "overexposure", "noise",
    "resolution", "compression",
)  # fmt: skip
# The standard JPEG luminance table (Annex K) that encoders scale by quality.
_JPEG_LUMA_SUM = 3640


@dataclass(frozen=True)
class Check:
    """One technical check of one image: measured value, verdict and the reason in plain words."""

    name: str
    value: float
    verdict: Verdict
    reason: str

    def as_dict(self) -> dict[str, object]:
        """The CLI / JSON form: {name, value, verdict, reason}."""
        return {"name": self.name, "value": self.value, "verdict": self.verdict, "reason": self.reason}


@functools.cache
def thresholds() -> dict[str, dict[str, object]]:
    """The checks' thresholds from resources/culling/checks.toml (read once)."""
    with open(resource_file("culling", "checks.toml"), "rb") as handle:
        data = tomllib.load(handle)
    missing = [name for name in CHECK_NAMES if name not in data]
    if missing:
        raise ValueError(f"checks.toml lacks thresholds for {missing}")
    return data


def checks_version() -> str:
    """Version of stored verdicts: measuring code, thresholds file, and whether faces were sought."""
    return f"{MEASURE_VERSION}.{thresholds()['version']}{'+faces' if faces_available() else ''}"


def decode_for_checks(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> tuple[Decoded, bytes]:
    """The canonical decode checks are measured on, and the file's bytes (raises DecodeError)."""
    data = read_bytes(path)
    return decode_bytes(data, os.fsdecode(path), CHECK_SIDE, CHECK_DRAFT_SIDE), data


def jpeg_quality(data: bytes) -> float | None:
    """Quality (0-100) a JPEG was saved at, estimated from its luminance quantisation table."""
    if not data.startswith(b"\xff\xd8"):
        return None
    try:
        with Image.open(io.BytesIO(data)) as img:
            tables = getattr(img, "quantization", None) or {}
    except Exception:  # an unreadable header is judged by the decoder, not here
        return None
    if 0 not in tables:
        return None
    scale = 100.0 * float(sum(tables[0])) / _JPEG_LUMA_SUM
    quality = 5000.0 / scale if scale > 100 else (200.0 - scale) / 2.0
    return float(np.clip(quality, 0.0, 100.0))


def _tile_variances(values: np.ndarray) -> np.ndarray:
    h, w = values.shape
    count = max(1, (h // TILE_GRID) * (w // TILE_GRID))
    sums, squares = cell_sums(values, TILE_GRID), cell_sums(values * values, TILE_GRID)
    return np.maximum(squares / count - (sums / count) ** 2, 0.0)


def _noise_sigma(grey: np.ndarray, magnitude: np.ndarray) -> float:
    """Immerkaer's fast noise estimate (8-bit units) over the flatter half of the frame."""
    if min(grey.shape) < 3:
        return 0.0
    response = np.abs(second_difference_response(grey))
    edges = magnitude[1:-1, 1:-1]
    # clipping hides noise near black and white, so only midtones count
    inner = grey[1:-1, 1:-1]
    midtone = (inner > 12) & (inner < 243)
    flat = (edges <= np.median(edges[::3, ::3])) & midtone
    if flat.sum() < 64:
        return 0.0
    return float(np.sqrt(np.pi / 2) * response[flat].mean() / 6.0)


def _sharpness(variance: float, noise: float) -> float:
    return float(np.log10(1.0 + max(variance - LAPLACIAN_NOISE_GAIN * noise * noise, 0.0)))


def measure(
    image: Image.Image,
    full_size: tuple[int, int] | None = None,
    quality: float | None = None,
    faces: Sequence[tuple[float, float, float, float]] = (),
) -> dict[str, float]:
    """Measured values of every check on a check frame; `faces` are (x, y, w, h) boxes in 0-1.

    Also "face_<i>": the sharpness of each face box that is large enough to measure.
    """
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    luma8 = np.asarray(rgb.convert("L"))  # Pillow's C conversion: Rec. 601 luma, as 8-bit levels
    grey = luma8.astype(np.float32)
    r, g, b = (np.asarray(band) for band in rgb.split())
    brightest = np.maximum(np.maximum(r, g), b)
    levels = np.cumsum(np.bincount(luma8.ravel(), minlength=256)) / max(1, luma8.size)
    grad = gradients(grey)
    noise = _noise_sigma(grey, grad.magnitude)
    response = laplacian(grey)
    tiles = _tile_variances(response)
    sharpest = np.argsort(tiles)[-max(1, tiles.size // 4):]
    subject = float(tiles.max()) if tiles.size else 0.0
    h, w = grey.shape
    face_variances = [
        float(box.var())
        for x, y, bw, bh in faces
        if (box := response[int(y * h): int((y + bh) * h) + 1, int(x * w): int((x + bw) * w) + 1]).size >= 16
    ]
    if face_variances:
        subject = max(face_variances)  # the face is the subject: a sharp background does not count
    jxx = cell_sums(grad.gx * grad.gx, TILE_GRID)[sharpest]
    jyy = cell_sums(grad.gy * grad.gy, TILE_GRID)[sharpest]
    jxy = cell_sums(grad.gx * grad.gy, TILE_GRID)[sharpest]
    a, c, b = float(jxx.sum()), float(jyy.sum()), float(jxy.sum())
    trace = a + c
    root = np.sqrt(max(((a - c) / 2) ** 2 + b * b, 0.0))
    motion = 0.0 if trace <= 1e-12 else float(1.0 - max(trace / 2 - root, 0.0) / (trace / 2 + root))
    width, height = full_size or image.size
    face_sharpness = {f"face_{i}": _sharpness(v, noise) for i, v in enumerate(face_variances)}
    return face_sharpness | {
        "focus": _sharpness(subject, noise),
        "motion_blur": motion,
        "highlights": float(np.count_nonzero(brightest >= HIGHLIGHT_LEVEL)) / brightest.size,
        "shadows": float(np.count_nonzero(brightest <= SHADOW_LEVEL)) / brightest.size,
        "underexposure": float(np.searchsorted(levels, 0.995)) / 255.0,
        "overexposure": float(np.searchsorted(levels, 0.5)) / 255.0,
        "noise": noise,
        "resolution": float(max(width, height)),
        "compression": float("nan") if quality is None else float(quality),
    }


def _level(value: float, limits: Mapping[str, object]) -> Verdict:
    above = limits.get("direction", "above") == "above"
    warn, reject = float(limits["warn"]), float(limits["reject"])  # type: ignore[arg-type]
    if above:
        return "reject" if value >= reject else "warn" if value >= warn else "ok"
    return "reject" if value <= reject else "warn" if value <= warn else "ok"


def _reason(name: str, value: float, verdict: Verdict, values: Mapping[str, float]) -> str:
    pct = f"{value * 100:.0f} %"
    if name == "focus":
        subject = "the face" if values.get("faces", 0) else "even the sharpest part of the frame"
        return f"{subject} is soft (sharpness {value:.2f})" if verdict != "ok" else f"subject sharp ({value:.2f})"
    if name == "motion_blur":
        return "detail smeared in one direction: motion blur" if verdict != "ok" else "no sign of motion blur"
    if name == "highlights":
        return f"highlights clipped on {pct} of the frame"
    if name == "shadows":
        return f"shadows crushed to black on {pct} of the frame"
    if name == "underexposure":
        if verdict == "ok":
            return f"brightest tones reach {pct} of full scale"
        return f"under-exposed: even the brightest tones reach only {pct} of full scale"
    if name == "overexposure":
        if verdict == "ok":
            return f"midtones at {pct}"
        return f"over-exposed: midtones at {pct} with {values['highlights'] * 100:.0f} % clipped"
    if name == "noise":
        return f"{'heavy ' if verdict == 'reject' else ''}noise (σ {value:.1f} of 255)"
    if name == "resolution":
        return f"{'too small to use: ' if verdict == 'reject' else ''}long side {value:.0f} px"
    if np.isnan(value):
        return "not a JPEG: compression not judged"
    if verdict == "ok":
        return f"JPEG quality ≈ {value:.0f}"
    return f"heavily compressed JPEG (quality ≈ {value:.0f}): blocky detail"


def judge(values: Mapping[str, float], limits: Mapping[str, Mapping[str, object]] | None = None) -> list[Check]:
    """Verdicts and reasons for measured values (thresholds from checks.toml unless given)."""
    limits = limits or thresholds()
    out: list[Check] = []
    for name in CHECK_NAMES:
        if name not in values:
            continue
        value = float(values[name])
        rule = limits[name]
        verdict: Verdict = "ok" if np.isnan(value) else _level(value, rule)
        if name == "motion_blur" and values.get("focus", 0.0) >= float(rule["soft_below"]):  # type: ignore[arg-type]
            verdict = "ok"  # a crisp subject: strongly oriented detail is the subject, not a smear
        if name == "overexposure" and values.get("highlights", 0.0) < float(rule["min_clipped"]):  # type: ignore[arg-type]
            verdict = "ok"
        out.append(Check(name, value, verdict, _reason(name, value, verdict, values)))
    return out


@dataclass(frozen=True)
class Analysis:
    """An image's checks, its faces and the version of the code and thresholds that made them."""

    checks: list[Check]
    faces: list[Face]
    version: str


def analyse_decoded(decoded: Decoded, data: bytes | None = None) -> Analysis:
    """Faces and every check of one canonical check decode (data: the file's bytes, for JPEG quality)."""
    found = detect_faces(decoded.image)
    values = measure(decoded.image, decoded.full_size, jpeg_quality(data) if data else None, [f.box for f in found])
    values["faces"] = float(len(found))
    faces = [replace(f, sharpness=values.get(f"face_{i}", 0.0)) for i, f in enumerate(found)]
    return Analysis(judge(values), faces, checks_version())


def analyse_bytes(data: bytes, name: str, decoded: Decoded | None = None) -> Analysis:
    """analyse_decoded of a file's bytes; `decoded`, when given, must be the canonical check decode."""
    if decoded is None:
        decoded = decode_bytes(data, name, CHECK_SIDE, CHECK_DRAFT_SIDE)
    return analyse_decoded(decoded, data)


def analyse_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> Analysis:
    """Faces and checks of one image file: the same values import stores (raises DecodeError)."""
    decoded, data = decode_for_checks(path)
    return analyse_decoded(decoded, data)


def checks_for_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> list[Check]:
    """Every check of one image file (see analyse_path)."""
    return analyse_path(path).checks


def worst_verdict(checks: Iterable[Check]) -> Verdict:
    """The most severe verdict among the checks ("ok" for none)."""
    worst: Verdict = "ok"
    for check in checks:
        if VERDICT_RANK[check.verdict] > VERDICT_RANK[worst]:
            worst = check.verdict
    return worst


def rejected(checks: Iterable[Check]) -> list[Check]:
    """The checks whose verdict is reject (an image with any is a suggested reject)."""
    return [check for check in checks if check.verdict == "reject"]
