"""Quantitative image properties (docs/method.md §7, seeds 002/003) and the photographer's technical checks.

Everything is computed with numpy/scipy from pixels alone (no weights). Global properties use a copy
whose long side is at most ANALYSIS_SIDE; sharpness, motion blur and noise use up to DETAIL_SIDE
pixels because downscaling hides exactly what they look for.
"""

from __future__ import annotations

import functools
import os

import numpy as np
from PIL import Image

from aesthete_gui.imaging.colour import YUV_MATRIX, luminance, rgb8_to_lab
from aesthete_gui.imaging.decode import Decoded, decode_bytes, read_bytes
from aesthete_gui.imaging.texture import (
    EDGE_THRESHOLD,
    Gradients,
    cell_sums,
    edge_orientation_entropies,
    entropy_bits,
    fourier_slope_and_sigma,
    fractal_dimension_2d,
    fractal_dimension_3d,
    gradients,
    hoyer_sparsity,
    laplacian,
    phog_measures,
    second_difference_response,
)
from aesthete_gui.imaging.thumbnails import PREVIEW_DRAFT_SIDE, PREVIEW_SIDE

FEATURE_VERSION = "2"
"""Stored vectors of another version are recomputed; "2": every path measures one decode."""
ANALYSIS_SIDE = 512
DETAIL_SIDE = 1024
SHARPNESS_GRID = 8
HIGHLIGHT_LEVEL = 250  # 8-bit value of the brightest channel at/above which a pixel counts as blown
SHADOW_LEVEL = 5  # 8-bit value of the brightest channel at/below which a pixel counts as crushed

FEATURE_NAMES: tuple[str, ...] = (
    # basic
    "image_megapixels", "aspect_ratio", "rms_contrast", "luminance_entropy", "complexity",
    "edge_density",
    # colour
    "colour_entropy", "rgb_mean_r", "rgb_mean_g", "rgb_mean_b", "lab_mean_l", "lab_mean_a",
    "lab_mean_b", "hsv_mean_h", "hsv_mean_s", "hsv_mean_v", "rgb_std_r", "rgb_std_g", "rgb_std_b",
    "lab_std_l", "lab_std_a", "lab_std_b", "hsv_std_h", "hsv_std_s", "hsv_std_v",
    # composition and balance
    "mirror_symmetry_lr", "mirror_symmetry_tb", "balance", "mass_centre_x", "mass_centre_y",
    "mass_centre_distance",
    # texture and frequency
    "fourier_slope", "fourier_sigma", "fractal_dimension_2d", "fractal_dimension_3d",
    "self_similarity", "anisotropy", "homogeneity",
    # visual complexity
    "edge_orientation_entropy_1", "edge_orientation_entropy_2", "sparsity", "variability",
    # simple statistics of seed 003 (DEAR)
    "dear_std", "dear_lightness", "dear_saturation", "dear_hue", "dear_u", "dear_v",
    # photographer's technical checks
    "sharpness_peak", "sharpness_p90", "motion_blur_hint", "noise_sigma", "clipped_highlights",
    "crushed_shadows", "colourfulness",
)  # fmt: skip


def _fit(img: Image.Image, side: int) -> Image.Image:
    if max(img.size) <= side:
        return img
    scale = side / max(img.size)
    size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
    return img.resize(size, Image.Resampling.BOX)  # area averaging: fast and alias-free


def _circular_mean_std(hue: np.ndarray, weights: np.ndarray | None = None) -> tuple[float, float]:
    """Mean and circular standard deviation of hues in [0, 1) (both in hue units)."""
    angle = hue * 2 * np.pi
    w = np.ones_like(angle) if weights is None else weights
    total = float(w.sum())
    if total <= 0:
        return 0.0, 0.0
    c, s = float((np.cos(angle) * w).sum() / total), float((np.sin(angle) * w).sum() / total)
    resultant = min(1.0, np.hypot(c, s))
    mean = (np.arctan2(s, c) / (2 * np.pi)) % 1.0
    std = np.sqrt(-2.0 * np.log(max(resultant, 1e-12))) / (2 * np.pi)
    return float(mean), float(std)


def _mirror_correlation(grey: np.ndarray, axis: int) -> float:
    """Pearson correlation of the image with its mirror image (1 = perfectly symmetric)."""
    mirrored = np.flip(grey, axis=axis)
    a, b = grey - grey.mean(), mirrored - mirrored.mean()
    denominator = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return 1.0 if denominator < 1e-12 else float((a * b).sum() / denominator)


@functools.lru_cache(maxsize=8)
def _diagonal_masks(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixels above the main diagonal and above the anti-diagonal (cached: shapes repeat in a shoot)."""
    u = (np.arange(w) + 0.5)[None, :] / w
    v = (np.arange(h) + 0.5)[:, None] / h
    return u > v, u + v < 1.0


def _balance_and_centre(weight: np.ndarray) -> tuple[float, float, float, float]:
    """Balance of visual weight (gradient energy) over both axes and both diagonals, and its centre."""
    h, w = weight.shape
    total = float(weight.sum())
    if total <= 0:
        return 1.0, 0.5, 0.5, 0.0
    columns, rows = weight.sum(axis=0), weight.sum(axis=1)
    cx = float(columns @ (np.arange(w) + 0.5) / total / w)
    cy = float(rows @ (np.arange(h) + 0.5) / total / h)
    above_diagonal, above_anti_diagonal = _diagonal_masks(h, w)
    halves = (
        float(columns[: w // 2].sum()) + (float(columns[w // 2]) / 2 if w % 2 else 0.0),
        float(rows[: h // 2].sum()) + (float(rows[h // 2]) / 2 if h % 2 else 0.0),
        float(weight[above_diagonal].sum()),
        float(weight[above_anti_diagonal].sum()),
    )
    imbalance = [abs(2 * half - total) / total for half in halves]
    distance = float(np.hypot(cx - 0.5, cy - 0.5) / np.hypot(0.5, 0.5))
    return 1.0 - float(np.mean(imbalance)), cx, cy, distance


def _sharpness_tiles(grey255: np.ndarray) -> np.ndarray:
    """Variance of the Laplacian in each tile of a SHARPNESS_GRID x SHARPNESS_GRID partition."""
    response = laplacian(grey255)
    sums = cell_sums(response, SHARPNESS_GRID)
    squares = cell_sums(response * response, SHARPNESS_GRID)
    h, w = response.shape
    count = max(1, (h // SHARPNESS_GRID) * (w // SHARPNESS_GRID))
    return np.maximum(squares / count - (sums / count) ** 2, 0.0)


def _motion_blur_hint(grad: Gradients, tile_sharpness: np.ndarray) -> float:
    """1 - (weak/strong) eigenvalue ratio of the gradient structure tensor in the sharpest tiles.

    Motion blur removes detail along the direction of motion only, so the remaining gradients line
    up; near 0 for isotropic detail, towards 1 for streaked detail (or strongly striped subjects).
    """
    jxx = cell_sums(grad.gx * grad.gx, SHARPNESS_GRID)
    jyy = cell_sums(grad.gy * grad.gy, SHARPNESS_GRID)
    jxy = cell_sums(grad.gx * grad.gy, SHARPNESS_GRID)
    count = max(1, tile_sharpness.size // 4)
    sharpest = np.argsort(tile_sharpness)[-count:]
    a, c, b = float(jxx[sharpest].sum()), float(jyy[sharpest].sum()), float(jxy[sharpest].sum())
    trace = a + c
    if trace <= 1e-12:
        return 0.0
    root = np.sqrt(max(((a - c) / 2) ** 2 + b * b, 0.0))
    strong, weak = trace / 2 + root, trace / 2 - root
    return float(1.0 - max(weak, 0.0) / strong)


def _noise_sigma(grey255: np.ndarray, grad: Gradients) -> float:
    """Immerkær's fast noise estimate (8-bit units) over the flatter half of the image."""
    response = np.abs(second_difference_response(grey255))
    edge_strength = grad.magnitude[1:-1, 1:-1]
    flat = edge_strength <= np.median(edge_strength[::3, ::3])  # a subsample is plenty for a median
    if not flat.any():
        return 0.0
    return float(np.sqrt(np.pi / 2) * response[flat].mean() / 6.0)


def compute_features(img: Image.Image, original_size: tuple[int, int] | None = None) -> dict[str, float]:
    """All FEATURE_NAMES for an RGB image; original_size is the full-resolution size when img is a preview."""
    img = img if img.mode == "RGB" else img.convert("RGB")
    width, height = original_size or img.size
    detail = _fit(img, DETAIL_SIDE)
    small = _fit(detail, ANALYSIS_SIDE)
    rgb8 = np.asarray(small)
    rgb = rgb8.astype(np.float32) / 255.0
    grey = luminance(rgb)
    grad = gradients(grey)
    lab = rgb8_to_lab(rgb8)
    hsv = np.asarray(small.convert("HSV"), dtype=np.float32) / 255.0  # Pillow's C conversion, 8-bit
    f: dict[str, float] = {
        "image_megapixels": width * height / 1e6,
        "aspect_ratio": width / max(height, 1),
        "rms_contrast": float(grey.std()),
        "luminance_entropy": entropy_bits(np.bincount(np.rint(grey * 255).astype(np.int64).ravel(), minlength=256)),
        "complexity": float(grad.magnitude.mean()),
        "edge_density": float((grad.magnitude > EDGE_THRESHOLD).mean()),
    }
    quantised = (rgb8 // 32).astype(np.int64)
    colour_bins = quantised[..., 0] * 64 + quantised[..., 1] * 8 + quantised[..., 2]
    f["colour_entropy"] = entropy_bits(np.bincount(colour_bins.ravel(), minlength=512))
    hue_mean, hue_std = _circular_mean_std(hsv[..., 0])
    for prefix, values in (("rgb", rgb), ("lab", lab), ("hsv", hsv)):
        planes = np.ascontiguousarray(np.moveaxis(values, -1, 0)).reshape(3, -1)
        means, stds = planes.mean(axis=1), planes.std(axis=1)  # planar: ~15x faster than axis=0
        for k, channel in enumerate(prefix):
            f[f"{prefix}_mean_{channel}"] = float(means[k])
            f[f"{prefix}_std_{channel}"] = float(stds[k])
    f["hsv_mean_h"], f["hsv_std_h"] = hue_mean, hue_std
    f["mirror_symmetry_lr"] = _mirror_correlation(grey, axis=1)
    f["mirror_symmetry_tb"] = _mirror_correlation(grey, axis=0)
    balance, cx, cy, distance = _balance_and_centre(grad.magnitude)
    f.update(balance=balance, mass_centre_x=cx, mass_centre_y=cy, mass_centre_distance=distance)
    f["fourier_slope"], f["fourier_sigma"] = fourier_slope_and_sigma(grey)
    f["fractal_dimension_2d"] = fractal_dimension_2d(grad.magnitude > EDGE_THRESHOLD)
    f["fractal_dimension_3d"] = fractal_dimension_3d(grey)
    similarity, anisotropy, homogeneity, variability = phog_measures(grad)
    f.update(self_similarity=similarity, anisotropy=anisotropy, homogeneity=homogeneity, variability=variability)
    f["edge_orientation_entropy_1"], f["edge_orientation_entropy_2"] = edge_orientation_entropies(grad)
    f["sparsity"] = hoyer_sparsity(grad.magnitude)
    rgb_means = np.array([f["rgb_mean_r"], f["rgb_mean_g"], f["rgb_mean_b"]])
    f.update(_dear_statistics(rgb, hsv, YUV_MATRIX @ rgb_means))
    f.update(_technical_checks(detail, rgb8))
    return {name: float(f[name]) for name in FEATURE_NAMES}


def _dear_statistics(rgb: np.ndarray, hsv: np.ndarray, mean_yuv: np.ndarray) -> dict[str, float]:
    """Seed 003's simple statistics: grey std, HLS lightness and saturation, hue, mean U and V.

    YUV is linear in RGB, so the mean U and V come straight from the mean R, G, B.
    """
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    high, low = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    lightness = (high + low) / 2
    spread = high - low
    denominator = np.where(lightness < 0.5, high + low, 2.0 - high - low)
    saturation = np.where(spread > 0, spread / np.maximum(denominator, 1e-6), 0.0)
    hue, _ = _circular_mean_std(hsv[..., 0], weights=hsv[..., 1])
    return {
        "dear_std": float(((r + g + b) / 3).std()),
        "dear_lightness": float(lightness.mean()),
        "dear_saturation": float(saturation.mean()),
        "dear_hue": hue,
        "dear_u": float(mean_yuv[1]),
        "dear_v": float(mean_yuv[2]),
    }


def _technical_checks(detail: Image.Image, rgb8: np.ndarray) -> dict[str, float]:
    """Sharpness of the sharpest region, motion blur hint, noise, clipping, colourfulness."""
    grey255 = np.asarray(detail.convert("L"), dtype=np.float32)
    tiles = _sharpness_tiles(grey255)
    grad = gradients(grey255 / 255.0)
    brightest = np.maximum(np.maximum(rgb8[..., 0], rgb8[..., 1]), rgb8[..., 2])
    channels = rgb8.astype(np.float32)
    rg = channels[..., 0] - channels[..., 1]
    yb = 0.5 * (channels[..., 0] + channels[..., 1]) - channels[..., 2]
    colourfulness = np.hypot(rg.std(), yb.std()) + 0.3 * np.hypot(rg.mean(), yb.mean())
    return {
        "sharpness_peak": float(np.log10(1.0 + tiles.max())),
        "sharpness_p90": float(np.log10(1.0 + np.percentile(tiles, 90))),
        "motion_blur_hint": _motion_blur_hint(grad, tiles),
        "noise_sigma": _noise_sigma(grey255, grad),
        "clipped_highlights": float((brightest >= HIGHLIGHT_LEVEL).mean()),
        "crushed_shadows": float((brightest <= SHADOW_LEVEL).mean()),
        "colourfulness": float(colourfulness),
    }


def feature_vector(img: Image.Image, original_size: tuple[int, int] | None = None) -> np.ndarray:
    """compute_features as a float32 vector in FEATURE_NAMES order."""
    return as_vector(compute_features(img, original_size))


def as_vector(values: dict[str, float]) -> np.ndarray:
    """A features dict as a float32 vector in FEATURE_NAMES order (NaN for a missing name)."""
    return np.array([float(values.get(name, np.nan)) for name in FEATURE_NAMES], dtype=np.float32)


def decode_for_features(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> Decoded:
    """The one decode features are measured on: import's ~1024 px preview (raises DecodeError)."""
    return decode_bytes(read_bytes(path), os.fsdecode(path), PREVIEW_SIDE, PREVIEW_DRAFT_SIDE)


def decoded_features(decoded: Decoded) -> dict[str, float]:
    """All FEATURE_NAMES of a decode_for_features result, sized by the full-resolution image."""
    return compute_features(decoded.image, original_size=decoded.full_size)


def features_for_path(
    path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
) -> dict[str, float]:
    """All FEATURE_NAMES of an image file, the same on every path (raises DecodeError)."""
    return decoded_features(decode_for_features(path))
