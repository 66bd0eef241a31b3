"""Technical checks per image: focus, motion blur, clipping, exposure, brightening, noise, size, compression, eyes.

Every check is measured on one canonical decode (`decode_check_frames`: DCT-scaled so that the long
side is at most CHECK_SIDE), so import, the inspector and the loupe get the same values for one
file; focus and motion blur of a larger file on a second, larger one from the same call (DETAIL_SIDE). `measure` gives the numbers (imaging/sharpness.py, tones.py, noise.py do the work);
imaging/judging.py turns them into a verdict (ok / warn / reject) and a reason a photographer
understands, under the thresholds of resources/culling/checks.toml and the shoot type. The numbers
are stored with the verdicts, so a verdict can be judged again without decoding the file.
"""

from __future__ import annotations

import functools
import io
import math
import os
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image

from aesthete_gui.imaging import noise as noise_measures
from aesthete_gui.imaging import sharpness, tones
from aesthete_gui.imaging.decode import (
    Decoded,
    DecodeSize,
    decode_bytes_sizes,
    is_raw_name,
    read_bytes,
)
from aesthete_gui.imaging.faces import Face, detect_faces, faces_available
from aesthete_gui.imaging.judging import (
    CHECK_NAMES,
    VERDICT_RANK,
    Check,
    SetContext,
    Verdict,
    judge,
    judge_stamp,
    worst_verdict,
)
from aesthete_gui.imaging.noise import block_means
from aesthete_gui.imaging.shoot_types import DEFAULT_SHOOT_TYPE
from aesthete_gui.imaging.texture import laplacian
from aesthete_gui.imaging.verdict_models import VerdictModelError, check_rule_values
from aesthete_gui.resources import resource_file

__all__ = [
    "CHECK_NAMES", "VERDICT_RANK", "Analysis", "Check", "SetContext", "Verdict", "analyse_bytes",
    "analyse_decoded", "analyse_path", "checks_for_path", "checks_version", "judge", "measure",
    "rejected", "thresholds", "worst_verdict",
]  # fmt: skip

MEASURE_VERSION = "8"
"""Bump when the measuring code changes (stored checks of another version are measured again on the
next import); a change of thresholds or shoot type only judges the stored measurements again."""
CHECK_SIDE = 768
CHECK_DRAFT_SIDE = 680
"""JPEG DCT scaling may stop at this long side (import makes its thumbnail from the same decode), so
every check frame of a large image has a long side of 680-768 px: a blur of a given share of the
frame spans nearly the same pixels on every check frame (at 512 px a defocus of 0.5 % of the width
was a 2.5 px disc, within the softness of clean frames; at 768 it is 3.8 px). A 24 MP JPEG (6000
px) still decodes at 1/8 (750 px); a 2,400 px one at 1/2, then shrinks to 768."""
DETAIL_SIDE = 1536
DETAIL_DRAFT_SIDE = 1000
DETAIL_GAIN = 1.25
"""Focus and motion blur are measured on a second, larger decode (long side up to DETAIL_SIDE; JPEG
DCT scaling may stop at DETAIL_DRAFT_SIDE, so a 12-24 MP JPEG decodes at 1/4, 1008-1500 px: at 1/2
and shrunk, a 12 MP file cost 2.9 times the import it did without a detail decode) when it is at
least DETAIL_GAIN times the check frame: a defocus of 0.5 % of the width is a 3.8 px disc on the
check frame, within the softness of clean frames, and 5-7.7 px on the detail decode, where a
clean photograph shrunk from a camera file is still crisp (on the fit pool's large photographs the
narrowest subject edges of clean and defocused copies overlapped at 768 px and barely at 1536).
A RAW file has none: its embedded previews differ in size and rendering from LibRaw's own (a 800 px
preview for the check frame and a demosaic for the detail would be two pictures). Everything else
is measured on the check frame."""
TILE_GRID = sharpness.TILE_GRID
MIN_LEVEL_RANGE = 32
"""Fewer tone levels than this between the darkest and brightest used one: "brightened" is not judged."""
LAPLACIAN_NOISE_GAIN = noise_measures.LAPLACIAN_NOISE_GAIN
BLOCK = noise_measures.BLOCK
NOISE_VIEW_SIDE = 1536
"""Noise is judged as it shows at up to this long side (normal viewing size): a frame shrunk from a
larger image is measured on the check frame and scaled back, because resampling averages noise away."""
BICUBIC_NOISE_LOSS = 1.41
"""How much more the bicubic shrink of the check decode lowers the noise estimate than averaging
does, at any shrink factor (measured on white noise; JPEG DCT scaling averages, so has none)."""
BRIGHT_SMOOTH_LUMA = 215.0
"""Blocks this bright with no more detail than noise are a bright smooth area (snow, sky, a backdrop)."""
_DCT_SCALED_FORMATS = frozenset({"JPEG", "MPO"})
_JPEG_LUMA_SUM = 3640
"""Sum of the standard JPEG luminance table (Annex K) that encoders scale by quality."""


REQUIRED_RULES: dict[str, tuple[str, ...]] = {
    "focus": ("face_warn", "face_reject"),
    **{name: ("warn", "reject") for name in ("highlights", "shadows", "brightened", "resolution", "compression", "eyes")},
}
"""The entries each check's verdict cannot do without (the others fall back to "rule not applied")."""


@functools.cache
def thresholds() -> dict[str, dict[str, object]]:
    """The checks' thresholds from resources/culling/checks.toml (read once; VerdictModelError with one
    line when the file is unreadable or a value is not a number)."""
    try:
        with open(resource_file("culling", "checks.toml"), "rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise VerdictModelError(f"checks.toml is not valid TOML: {error}") from None
    missing = [name for name in CHECK_NAMES if not isinstance(data.get(name), dict)]
    if missing:
        raise VerdictModelError(f"checks.toml lacks thresholds for {', '.join(missing)}")
    if not isinstance(data.get("version"), str):
        raise VerdictModelError("checks.toml needs a version string")
    for check, keys in REQUIRED_RULES.items():
        if absent := [k for k in keys if k not in data[check]]:
            raise VerdictModelError(f"checks.toml: [{check}] lacks {', '.join(absent)}")
    check_rule_values({k: v for k, v in data.items() if k in CHECK_NAMES}, "checks.toml")
    return data


def thresholds_version() -> str:
    """The version of checks.toml (part of every stored verdict's stamp)."""
    return str(thresholds()["version"])


def checks_version() -> str:
    """Version of stored measurements: the measuring code, and whether faces were sought."""
    return f"{MEASURE_VERSION}{'+faces' if faces_available() else ''}"


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


def _sharpness(variance: float, noise: float) -> float:
    return float(np.log10(1.0 + max(variance - LAPLACIAN_NOISE_GAIN * noise * noise, 0.0)))


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


def _noise_scale(full_side: int, frame_side: int, source_format: str | None) -> float:
    """Factor from the noise measured on the check frame to the noise at up to NOISE_VIEW_SIDE."""
    if frame_side <= 0 or full_side <= frame_side:
        return 1.0
    shrink = full_side / frame_side
    scale = min(shrink, max(1.0, NOISE_VIEW_SIDE / frame_side))
    octaves = math.log2(shrink)
    if source_format in _DCT_SCALED_FORMATS and abs(octaves - round(octaves)) < 0.03:
        return scale  # JPEG DCT scaling alone: an average, as the scale assumes
    return scale * BICUBIC_NOISE_LOSS


def _face_detail(response: np.ndarray, faces: Sequence[tuple[float, float, float, float]]) -> list[float]:
    """Variance of the Laplacian inside each face box large enough to measure."""
    h, w = response.shape
    out = []
    for x, y, bw, bh in faces:
        box = response[int(y * h): int((y + bh) * h) + 1, int(x * w): int((x + bw) * w) + 1]
        if box.size >= 16:
            out.append(float(box.var()))
    return out


def _tile_detail(grey: np.ndarray, response: np.ndarray) -> np.ndarray:
    """Variance of the Laplacian in each tile of the TILE_GRID grid (row-major)."""
    h, w = grey.shape
    tile = (max(1, w // TILE_GRID), max(1, h // TILE_GRID))
    return np.maximum(block_means(response * response, tile) - block_means(response, tile) ** 2, 0.0).ravel()


def _sharpness_of(
    grey: np.ndarray, tone_levels: np.ndarray, response: np.ndarray, luma_noise: float,
    faces: Sequence[tuple[float, float, float, float]],
) -> tuple[dict[str, float], list[float]]:
    """sharpness.measure_sharpness of one frame and each face's edge spread on it."""
    corrected = np.maximum(_tile_detail(grey, response) - LAPLACIAN_NOISE_GAIN * luma_noise * luma_noise, 0.0)
    sharp = sharpness.measure_sharpness(grey, tone_levels, corrected, luma_noise)
    return sharp, [sharpness.face_spread(grey, box, luma_noise) for box in faces]


def _detail_sharpness(detail: Image.Image, faces: Sequence[tuple[float, float, float, float]]) -> tuple[dict[str, float], list[float]]:
    """_sharpness_of the detail frame, with the sensor noise measured on that frame itself."""
    tone_levels = np.asarray(detail.convert("L"))
    grey = tone_levels.astype(np.float32)
    response = laplacian(grey)
    detail_blocks = block_means(np.abs(response), (BLOCK, BLOCK))
    flat = noise_measures.flat_blocks(block_means(grey, (BLOCK, BLOCK)), detail_blocks)
    return _sharpness_of(grey, tone_levels, response, noise_measures.luma_sigma(detail_blocks, flat), faces)


def detail_wanted(full_size: tuple[int, int], frame_size: tuple[int, int]) -> bool:
    """Whether focus and motion blur of an image this large are measured on a detail decode."""
    return min(max(full_size), DETAIL_SIDE) >= DETAIL_GAIN * max(frame_size)


def measure(
    image: Image.Image,
    full_size: tuple[int, int] | None = None,
    quality: float | None = None,
    faces: Sequence[tuple[float, float, float, float]] = (),
    source_format: str | None = None,
    levels: Sequence[int] | None = None,
    detail: Image.Image | None = None,
) -> dict[str, float]:
    """Measured values of every check on a check frame; `faces` are (x, y, w, h) boxes in 0-1.

    `full_size` and `source_format` say how the frame was made from the file (its noise is scaled
    back to at most NOISE_VIEW_SIDE); `levels`, the file's green level counts as decoded, before
    resampling and colour conversion (Decoded.levels; empty: not judged); `detail`, a larger decode
    of the same file that focus and motion blur are measured on (see DETAIL_GAIN). A check's value
    is under its name, what else its verdict reads under "<check>.<what>"; "face_<i>" is each face's
    edge spread (its eye band; nan when too small to measure).
    """
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    luma = rgb.convert("L")  # Pillow's C conversion: Rec. 601 luma, as 8-bit levels
    tone_levels = np.asarray(luma)
    grey = tone_levels.astype(np.float32)
    response = laplacian(grey)
    grey_blocks = block_means(grey, (BLOCK, BLOCK))
    detail_blocks = block_means(np.abs(response), (BLOCK, BLOCK))
    flat = noise_measures.flat_blocks(grey_blocks, detail_blocks)
    luma_noise = noise_measures.luma_sigma(detail_blocks, flat)
    chroma_noise = noise_measures.chroma_sigma(np.asarray(rgb), flat, detail_blocks.shape[1] if detail_blocks.size else 1)
    whiteness = noise_measures.whiteness(grey, detail_blocks, flat)
    width, height = full_size or image.size
    view = _noise_scale(max(width, height), max(image.size), source_format)

    tiles = _tile_detail(grey, response)
    face_variances = _face_detail(response, faces)
    if detail is None:
        sharp, face_spreads = _sharpness_of(grey, tone_levels, response, luma_noise, faces)
    else:
        sharp, face_spreads = _detail_sharpness(detail, faces)
    face_spread = min((v for v in face_spreads if not math.isnan(v)), default=float("nan"))

    noise_detail = luma_noise / noise_measures.MEAN_ABS_TO_SIGMA
    blown = tones.level_mask(luma, None, tones.BLOWN_LEVEL)
    crushed = tones.level_mask(luma, tones.CRUSHED_LEVEL, None)
    high = tones.lost_areas(tones.block_share(blown), grey_blocks, detail_blocks, noise_detail, bright=True)
    low = tones.lost_areas(tones.block_share(crushed), grey_blocks, detail_blocks, noise_detail, bright=False)
    exposure = tones.exposure_levels(luma)
    bright_smooth = (grey_blocks >= BRIGHT_SMOOTH_LUMA) & (detail_blocks <= tones.SMOOTH_DETAIL + noise_detail)
    blown_area = max(0.0, high["total"] - high["small"])
    fine_detail = max([_sharpness(v, luma_noise) for v in face_variances] or [_sharpness(float(tiles.max()) if tiles.size else 0.0, luma_noise)])
    face_sharpness = {f"face_{i}": v for i, v in enumerate(face_spreads)}
    return face_sharpness | {
        "focus": sharp["spread"] if math.isnan(face_spread) else face_spread,
        "focus.detail": fine_detail,
        "focus.face": face_spread,
        "focus.subject": sharp["spread"],
        "focus.narrow": sharp["narrow"],
        "focus.edges": sharp["edges"],
        "focus.edge_density": sharp["density"],
        "focus.contrast": sharp["contrast"],
        "focus.x": sharp["x"],
        "focus.y": sharp["y"],
        "motion_blur": sharp["width"],
        "motion_blur.narrow": sharp["narrow"],
        "motion_blur.across": sharp["across"],
        "motion_blur.along": sharp["along"],
        "motion_blur.coherence": sharp["coherence"],
        "motion_blur.background": sharp["background"],
        "highlights": high["detail"],
        "highlights.frame": high["total"],
        "highlights.smooth": high["smooth"],
        "highlights.smooth_top": high["smooth_top"],
        "highlights.small": high["small"],
        "highlights.sky": high["sky"],
        "highlights.face": tones.face_blown(blown, faces),
        "shadows": low["detail"],
        "shadows.frame": low["total"],
        "shadows.smooth": low["smooth"],
        "underexposure": exposure["p995"],
        "underexposure.median": exposure["median"],
        "underexposure.p90": exposure["p90"],
        "overexposure": blown_area,
        "overexposure.median": exposure["median"],
        "overexposure.unblown_median": exposure["unblown_median"],
        "overexposure.p10": exposure["p10"],
        "overexposure.p1": exposure["p1"],
        "overexposure.colour": tones.colour_clipped(rgb),
        "overexposure.smooth": high["smooth"] / blown_area if blown_area > 0 else 0.0,
        "overexposure.bright_smooth": float(bright_smooth.mean()) if bright_smooth.size else 0.0,
        # green: the channel a camera exposes best
        "brightened": _brightened(levels if levels is not None else rgb.getchannel("G").histogram()),
        "noise": luma_noise / noise_measures.LUMA_SHARE * view,
        "noise.chroma": chroma_noise * view,
        "noise.whiteness": whiteness,
        "resolution": float(max(width, height)),
        "compression": float("nan") if quality is None else float(quality),
    }


def eye_values(found: Sequence[Face]) -> dict[str, float]:
    """The eyes check's measurements: faces with both eyes closed (a blink), and those closed with an
    expression that explains them (laughing, smiling, kissing). Nothing without faces."""
    if not found:
        return {}
    closed = [f for f in found if f.eyes == "closed"]
    with_intent = {k: sum(f.expression == k for f in closed) for k in ("laughing", "smiling", "kissing")}
    return {
        "eyes": float(len(closed) - sum(with_intent.values())),
        "eyes.closed": float(len(closed)),
        **{f"eyes.{k}": float(v) for k, v in with_intent.items()},
    }


@dataclass(frozen=True)
class Analysis:
    """An image's checks, its faces and the version of the code that measured them."""

    checks: list[Check]
    faces: list[Face]
    version: str


def analyse_decoded(
    decoded: Decoded, data: bytes | None = None, shoot_type: str = DEFAULT_SHOOT_TYPE, detail: Decoded | None = None,
) -> Analysis:
    """Faces and every check of one canonical check decode (data: the file's bytes, for JPEG quality;
    detail: its detail decode from decode_check_frames, when it has one)."""
    found = detect_faces(decoded.image)
    quality = jpeg_quality(data) if data else None
    larger = _detail_frame(decoded, detail)
    values = measure(decoded.image, decoded.full_size, quality, [f.box for f in found], decoded.format, decoded.levels, larger)
    values["faces"] = float(len(found))
    values.update(eye_values(found))
    values["motion_blur.exposure_s"] = _exposure_seconds(decoded)
    faces = [replace(f, sharpness=_finite(values.get(f"face_{i}"))) for i, f in enumerate(found)]
    stamp = judge_stamp(shoot_type, thresholds_version(), SetContext())
    return Analysis(judge(values, shoot_type=shoot_type, judged=stamp), faces, checks_version())


CHECK_SIZES: tuple[DecodeSize, DecodeSize] = ((CHECK_SIDE, CHECK_DRAFT_SIDE), (DETAIL_SIDE, DETAIL_DRAFT_SIDE))
"""The check decode and the detail decode, as decode_bytes_sizes takes them."""


def check_sizes(name: str) -> tuple[DecodeSize, ...]:
    """The decodes the checks of a file need: the check decode, and the detail decode unless RAW."""
    return CHECK_SIZES[:1] if is_raw_name(name) else CHECK_SIZES


def decode_check_frames(data: bytes, name: str) -> tuple[Decoded, Decoded | None]:
    """The check decode and the detail decode of a file's bytes (None for a RAW file), sharing the
    work where the JPEG DCT scale or a format without one allows (raises DecodeError)."""
    decodes = decode_bytes_sizes(data, name, check_sizes(name))
    return decodes[0], (decodes[1] if len(decodes) > 1 else None)


def _detail_frame(decoded: Decoded, detail: Decoded | None) -> Image.Image | None:
    """The detail frame of a large image (None when the check frame is all there is)."""
    if detail is None or decoded.format == "RAW" or not detail_wanted(decoded.full_size, decoded.image.size):
        return None
    return detail.image if max(detail.image.size) >= DETAIL_GAIN * max(decoded.image.size) else None


def _finite(value: float | None) -> float:
    return float(value) if value is not None and math.isfinite(value) else 0.0


def _exposure_seconds(decoded: Decoded) -> float:
    """The exposure time the camera recorded (EXIF), 0 when unknown."""
    try:
        value = decoded.exif.get_ifd(0x8769).get(0x829A) if decoded.exif is not None else None
        seconds = float(value) if value is not None else 0.0
    except (TypeError, ValueError, ZeroDivisionError, KeyError):
        return 0.0
    return seconds if math.isfinite(seconds) and seconds > 0 else 0.0


def analyse_bytes(
    data: bytes, name: str, decoded: Decoded | None = None, shoot_type: str = DEFAULT_SHOOT_TYPE,
    detail: Decoded | None = None,
) -> Analysis:
    """analyse_decoded of a file's bytes; `decoded` and `detail`, when given, must be decode_check_frames'."""
    if decoded is None:
        decoded, detail = decode_check_frames(data, name)
    return analyse_decoded(decoded, data, shoot_type, detail)


def analyse_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes], shoot_type: str = DEFAULT_SHOOT_TYPE) -> Analysis:
    """Faces and checks of one image file: the same values import stores (raises DecodeError)."""
    data = read_bytes(path)
    decoded, detail = decode_check_frames(data, os.fsdecode(path))
    return analyse_decoded(decoded, data, shoot_type, detail)


def checks_for_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes], shoot_type: str = DEFAULT_SHOOT_TYPE) -> list[Check]:
    """Every check of one image file (see analyse_path)."""
    return analyse_path(path, shoot_type).checks


def rejected(checks: Iterable[Check]) -> list[Check]:
    """The checks whose verdict is reject (an image with any is a suggested reject)."""
    return [check for check in checks if check.verdict == "reject"]

