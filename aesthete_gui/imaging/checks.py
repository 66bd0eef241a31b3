"""Technical verdicts per image: focus, motion blur, clipping, exposure, brightening, noise, size, compression.

Every check is measured on one canonical decode (`decode_for_checks`: DCT-scaled so that the long
side is at most CHECK_SIDE), so import, the inspector and the loupe get the same values for one
file. Each check keeps its measured value, a verdict (ok / warn / reject) from the thresholds in
resources/culling/checks.toml, and a one-line reason a photographer understands.
"""

from __future__ import annotations

import functools
import io
import math
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from PIL import Image, ImageChops

from aesthete_gui.imaging.decode import Decoded, decode_bytes, read_bytes
from aesthete_gui.imaging.faces import Face, detect_faces, faces_available
from aesthete_gui.imaging.texture import laplacian
from aesthete_gui.resources import resource_file

MEASURE_VERSION = "3"
"""Bump when the measuring code changes; CHECKS_VERSION also follows the thresholds file."""
CHECK_SIDE = 768
CHECK_DRAFT_SIDE = 512
"""JPEG DCT scaling may stop at this long side (import makes its thumbnail from the same decode), so
every check frame has a long side of 512-768 px: at 256 a 2,400-3,000 px JPEG was judged on a
300-380 px frame, where a frame blurred by 8 px or a face of 15 % of the frame went unseen."""
TILE_GRID = 8
HIGHLIGHT_LEVEL = 250
SHADOW_LEVEL = 5
MIN_LEVEL_RANGE = 32
"""Fewer tone levels than this between the darkest and brightest used one: "brightened" is not judged."""
LAPLACIAN_NOISE_GAIN = 20.0
"""Variance of the 5-point Laplacian of white noise of unit variance (4 x 1 + 16)."""
BLOCK = 8
"""Side of the square blocks noise is measured in (pixels of the check frame)."""
NOISE_VIEW_SIDE = 1536
"""Noise is judged as it shows at up to this long side: a frame shrunk from a larger image is
measured on the check frame and scaled back, because resampling averages noise away."""
BICUBIC_NOISE_LOSS = 1.41
"""How much more the bicubic shrink of the check decode lowers the noise estimate than averaging
does, at any shrink factor (measured on white noise; JPEG DCT scaling averages, so has none)."""
_DCT_SCALED_FORMATS = frozenset({"JPEG", "MPO"})

Verdict = Literal["ok", "warn", "reject"]
VERDICT_RANK: dict[str, int] = {"ok": 0, "warn": 1, "reject": 2}
CHECK_NAMES: tuple[str, ...] = (
    "focus", "motion_blur", "highlights", "shadows", "underexposure", "overexposure", "brightened",
    "noise", "resolution", "compression",
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


def _block_means(values: np.ndarray, block: tuple[int, int]) -> np.ndarray:
    """Mean of a float map over each (width, height) block; remainder rows and columns dropped."""
    h, w = values.shape
    cols, rows = w // block[0], h // block[1]
    if cols == 0 or rows == 0:
        return np.zeros((0, 0), dtype=np.float32)
    box = (0, 0, cols * block[0], rows * block[1])
    frame = Image.fromarray(np.asarray(values, dtype=np.float32))  # mode "F"
    return np.asarray(frame.reduce(block, box=box))  # Pillow's C box filter: fast


def _noise_sigma(grey_blocks: np.ndarray, strength_blocks: np.ndarray) -> float:
    """Noise (sigma, 8-bit units) from the mean absolute Laplacian of the flattest midtone blocks.

    The quarter of blocks with the least Laplacian are the flat ones, where it sees noise rather
    than texture; near black and white clipping hides noise, so only midtone blocks count. White
    noise of sigma gives the 5-point Laplacian a mean absolute value of sqrt(2 / pi * 20) * sigma.
    """
    midtone = (grey_blocks > 16) & (grey_blocks < 239)
    if midtone.sum() < 4:
        return 0.0
    strength = strength_blocks[midtone]
    flat = strength[strength <= np.percentile(strength, 25)]
    return float(np.sqrt(np.pi / 2 / LAPLACIAN_NOISE_GAIN) * flat.mean())


def _sharpness(variance: float, noise: float) -> float:
    return float(np.log10(1.0 + max(variance - LAPLACIAN_NOISE_GAIN * noise * noise, 0.0)))


def _motion_blur(grey: np.ndarray, tiles: Sequence[int]) -> float:
    """1 - weak/strong eigenvalue ratio of the gradient structure tensor summed over `tiles`."""
    h, w = grey.shape
    th, tw = max(1, h // TILE_GRID), max(1, w // TILE_GRID)
    columns = max(1, min(TILE_GRID, w // tw))
    a = b = c = 0.0
    for tile in tiles:
        top, left = (tile // columns) * th, (tile % columns) * tw
        # Sobel over the tile with one pixel of real neighbours (frame borders: the pixel inside)
        y0, y1 = max(top, 1) - 1, min(top + th, h - 1) + 1
        x0, x1 = max(left, 1) - 1, min(left + tw, w - 1) + 1
        part = grey[y0:y1, x0:x1]
        if part.shape[0] < 3 or part.shape[1] < 3:
            continue
        dx = part[:, 2:] - part[:, :-2]
        gx = dx[:-2] + 2.0 * dx[1:-1] + dx[2:]
        dy = part[2:] - part[:-2]
        gy = dy[:, :-2] + 2.0 * dy[:, 1:-1] + dy[:, 2:]
        a += float(np.vdot(gx, gx))
        c += float(np.vdot(gy, gy))
        b += float(np.vdot(gx, gy))
    trace = a + c
    root = np.sqrt(max(((a - c) / 2) ** 2 + b * b, 0.0))
    return 0.0 if trace <= 1e-12 else float(1.0 - max(trace / 2 - root, 0.0) / (trace / 2 + root))


def missing_levels(counts: Sequence[int] | np.ndarray) -> float:
    """Share of the tone levels inside a channel's occupied range that no pixel has (0-1).

    Brightening an 8-bit image after capture stretches its levels apart and leaves gaps (a comb
    histogram), whatever the scene: x1.6 leaves about a fifth of the levels empty, x3 about two
    fifths. Resampling and JPEG compression fill the gaps again, and colour conversion or a palette
    makes gaps of its own, so images are judged on their levels as decoded (Decoded.levels), and
    after JPEG compression this says little (near 0). No counts at all: 0.
    """
    levels = np.asarray(counts, dtype=np.float64)[:256].copy()
    if levels.size < 256:
        return 0.0
    levels[0] = levels[255] = 0.0  # clipped levels are the highlights' and shadows' business
    used = np.flatnonzero(levels)
    if used.size == 0 or used[-1] - used[0] < MIN_LEVEL_RANGE:
        return 0.0  # a flat or narrow-toned frame (grey card, fog, a blank page): nothing to judge
    running = np.concatenate(([0.0], np.cumsum(levels)))
    expected = np.zeros(256)
    expected[4:252] = (running[9:257] - running[0:248]) / 9.0  # mean of the 9 levels around each
    dense = expected >= max(4.0, 1e-4 * float(running[-1]))
    dense[: used[0] + 1] = dense[used[-1]:] = False  # only gaps between used levels, not beyond them
    occupied = int(dense.sum())
    return float(np.count_nonzero(levels[dense] == 0)) / occupied if occupied else 0.0


def _brightened(counts: Sequence[int]) -> float:
    """missing_levels, or NaN (not judged) without 8-bit levels or with too narrow a tonal range."""
    used = np.flatnonzero(np.asarray(counts, dtype=np.float64)[1:255]) if len(counts) >= 256 else np.array([])
    if used.size == 0 or used[-1] - used[0] < MIN_LEVEL_RANGE:
        return float("nan")
    return missing_levels(counts)


def measure(
    image: Image.Image,
    full_size: tuple[int, int] | None = None,
    quality: float | None = None,
    faces: Sequence[tuple[float, float, float, float]] = (),
    source_format: str | None = None,
    levels: Sequence[int] | None = None,
) -> dict[str, float]:
    """Measured values of every check on a check frame; `faces` are (x, y, w, h) boxes in 0-1.

    `full_size` and `source_format` say how the frame was made from the file (its noise is scaled
    back to at most NOISE_VIEW_SIDE); `levels`, the file's green level counts as decoded, before
    resampling and colour conversion (Decoded.levels; empty: not judged). Also "face_<i>": the
    sharpness of each face box large enough.
    """
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    luma = rgb.convert("L")  # Pillow's C conversion: Rec. 601 luma, as 8-bit levels
    grey = np.asarray(luma, dtype=np.float32)
    red, green, blue = rgb.split()
    brightest = np.asarray(ImageChops.lighter(ImageChops.lighter(red, green), blue).histogram(), dtype=np.float64)
    pixels = max(1.0, float(brightest.sum()))
    tones = np.cumsum(np.asarray(luma.histogram(), dtype=np.float64)) / pixels
    response = laplacian(grey)
    detail = response * response
    noise = _noise_sigma(_block_means(grey, (BLOCK, BLOCK)), _block_means(np.abs(response), (BLOCK, BLOCK)))
    h, w = grey.shape
    tile = (max(1, w // TILE_GRID), max(1, h // TILE_GRID))
    tiles = np.maximum(_block_means(detail, tile) - _block_means(response, tile) ** 2, 0.0).ravel()
    sharpest = np.argsort(tiles)[-max(1, tiles.size // 4):]
    subject = float(tiles.max()) if tiles.size else 0.0
    face_variances = [
        float(box.var())
        for x, y, bw, bh in faces
        if (box := response[int(y * h): int((y + bh) * h) + 1, int(x * w): int((x + bw) * w) + 1]).size >= 16
    ]
    if face_variances:
        subject = max(face_variances)  # the face is the subject: a sharp background does not count
    width, height = full_size or image.size
    face_sharpness = {f"face_{i}": _sharpness(v, noise) for i, v in enumerate(face_variances)}
    return face_sharpness | {
        "focus": _sharpness(subject, noise),
        "motion_blur": _motion_blur(grey, [int(t) for t in sharpest]),
        "highlights": float(brightest[HIGHLIGHT_LEVEL:].sum()) / pixels,
        "shadows": float(brightest[: SHADOW_LEVEL + 1].sum()) / pixels,
        "underexposure": float(np.searchsorted(tones, 0.995)) / 255.0,
        "overexposure": float(np.searchsorted(tones, 0.5)) / 255.0,
        # green: the channel a camera exposes best
        "brightened": _brightened(levels if levels is not None else green.histogram()),
        "noise": noise * _noise_scale(max(width, height), max(image.size), source_format),
        "resolution": float(max(width, height)),
        "compression": float("nan") if quality is None else float(quality),
    }


def _noise_scale(full_side: int, frame_side: int, source_format: str | None) -> float:
    """Factor from the noise measured on the check frame to the noise at up to NOISE_VIEW_SIDE."""
    if frame_side <= 0 or full_side <= frame_side:
        return 1.0
    shrink = full_side / frame_side
    scale = min(shrink, max(1.0, NOISE_VIEW_SIDE / frame_side))
    if source_format in _DCT_SCALED_FORMATS:
        return scale
    return scale * BICUBIC_NOISE_LOSS


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
    if name == "brightened":
        if math.isnan(value):
            return "not judged: no 8-bit tone levels, or too few of them"
        if verdict == "ok":
            return f"{pct} of tone levels missing" if value else "tone levels continuous"
        return f"brightened after capture: {pct} of tone levels missing (posterised tones)"
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
    quality = jpeg_quality(data) if data else None
    values = measure(decoded.image, decoded.full_size, quality, [f.box for f in found], decoded.format, decoded.levels)
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
