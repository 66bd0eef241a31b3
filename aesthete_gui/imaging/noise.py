"""Sensor noise on a check frame, told apart from texture: grain in luminance and speckle in colour.

Both are read from the mean absolute 5-point Laplacian of the flattest quarter of 8 px blocks, where
it sees noise rather than detail. In luminance, a frame filled with fine texture (gravel, grass, a
star field) still reads high there; in colour it does not, because texture is mostly a change of
brightness while sensor noise is independent in each channel (the colour differences R - G and
B - G carry two thirds of it). The verdict weighs the two (docs/method.md §6).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from PIL import Image

from aesthete_gui.imaging.texture import laplacian

BLOCK = 8
LAPLACIAN_NOISE_GAIN = 20.0
"""Variance of the 5-point Laplacian of white noise of unit variance (4 x 1 + 16)."""
MEAN_ABS_TO_SIGMA = float(np.sqrt(np.pi / 2 / LAPLACIAN_NOISE_GAIN))
"""White noise of sigma gives the Laplacian a mean absolute value of sqrt(2 / pi * 20) * sigma."""
MIDTONE = (16.0, 239.0)
"""Near black and white, clipping hides noise: only blocks whose mean lies between these count."""
MAX_CHROMA_BLOCKS = 192
"""Flat blocks the colour noise is read in, at most."""
LUMA_SHARE = float(np.sqrt(0.299**2 + 0.587**2 + 0.114**2))
"""Luma keeps this share of noise that is independent in R, G and B (0.67)."""


def flat_blocks(grey_blocks: np.ndarray, detail_blocks: np.ndarray) -> np.ndarray:
    """Flat indices of the midtone blocks with the least detail (the flattest quarter of them)."""
    flat_grey, flat_detail = grey_blocks.ravel(), detail_blocks.ravel()
    midtone = np.flatnonzero((flat_grey > MIDTONE[0]) & (flat_grey < MIDTONE[1]))
    if midtone.size < 4:
        return np.zeros(0, dtype=np.int64)
    strength = flat_detail[midtone]
    return midtone[strength <= np.percentile(strength, 25)]


def luma_sigma(detail_blocks: np.ndarray, flat: np.ndarray) -> float:
    """Noise sigma (8-bit) of the luma from the mean absolute Laplacian of the flat blocks."""
    if flat.size == 0:
        return 0.0
    return MEAN_ABS_TO_SIGMA * float(detail_blocks.ravel()[flat].mean())


def block_means(values: np.ndarray, block: tuple[int, int]) -> np.ndarray:
    """Mean of a float map over each (width, height) block; remainder rows and columns dropped."""
    h, w = values.shape
    cols, rows = w // block[0], h // block[1]
    if cols == 0 or rows == 0:
        return np.zeros((0, 0), dtype=np.float32)
    box = (0, 0, cols * block[0], rows * block[1])
    frame = Image.fromarray(np.asarray(values, dtype=np.float32))  # mode "F"
    return np.asarray(frame.reduce(block, box=box))  # Pillow's C box filter: fast


def whiteness(grey: np.ndarray, detail_blocks: np.ndarray, flat: np.ndarray) -> float:
    """How the flat blocks' detail falls at half the resolution (NaN without flat blocks).

    The mean absolute Laplacian of the frame averaged over 2 x 2 pixels, over that of the frame, in
    the same flat blocks: white sensor noise halves (about 0.5), while texture and real detail,
    whose energy lies at coarser scales too, keep most of theirs (about 1 and up). `detail_blocks`
    are the full frame's block means of the absolute Laplacian, `flat` the flat blocks' indices.
    """
    rows, cols = detail_blocks.shape
    if flat.size == 0 or rows == 0 or cols == 0:
        return float("nan")
    inner = BLOCK // 2
    half = block_means(grey[: rows * BLOCK, : cols * BLOCK], (2, 2))
    coarse = block_means(np.abs(laplacian(half)), (inner, inner)).ravel()[flat]
    fine = detail_blocks.ravel()[flat]
    return float(coarse.mean() / max(float(fine.mean()), 1e-6))


def chroma_sigma(rgb: np.ndarray, flat: np.ndarray, columns: int) -> float:
    """Noise sigma (8-bit, per channel) from the colour differences R - G and B - G in the flat blocks.

    `rgb` is the (H, W, 3) uint8 check frame, `flat` block indices in a grid `columns` blocks wide.
    Only those blocks (with a one-pixel rim) are filtered: a quarter of the frame's work.
    """
    if flat.size == 0:
        return 0.0
    h, w = rgb.shape[:2]
    rows_idx, cols_idx = np.divmod(flat, columns)
    keep = ((rows_idx + 1) * BLOCK + 1 <= h) & ((cols_idx + 1) * BLOCK + 1 <= w) & (rows_idx > 0) & (cols_idx > 0)
    rows_idx, cols_idx = rows_idx[keep], cols_idx[keep]
    if rows_idx.size == 0:
        return 0.0
    if rows_idx.size > MAX_CHROMA_BLOCKS:  # an even sample of the flat blocks says as much, for less
        keep = np.linspace(0, rows_idx.size - 1, MAX_CHROMA_BLOCKS).astype(np.int64)
        rows_idx, cols_idx = rows_idx[keep], cols_idx[keep]
    total = 0.0
    green = rgb[..., 1].astype(np.int16)
    for channel in (0, 2):
        difference = rgb[..., channel].astype(np.int16) - green
        windows = sliding_window_view(difference, (BLOCK + 2, BLOCK + 2))
        picked = windows[rows_idx * BLOCK - 1, cols_idx * BLOCK - 1].astype(np.float32)
        centre = picked[:, 1:-1, 1:-1]
        response = picked[:, :-2, 1:-1] + picked[:, 2:, 1:-1] + picked[:, 1:-1, :-2] + picked[:, 1:-1, 2:] - 4.0 * centre
        total += float(np.abs(response).mean())
    # each difference holds the noise of two channels: sigma * sqrt(2)
    return MEAN_ABS_TO_SIGMA * total / 2.0 / float(np.sqrt(2.0))
