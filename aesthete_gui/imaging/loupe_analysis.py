"""What the loupe shows beside the pixels: an RGB histogram with clipping, and focus-peaking edges."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HISTOGRAM_MAX_PIXELS = 4_000_000
"""Above this the histogram is computed on an evenly strided sample (same shape, a fraction of the work)."""
PEAKING_THRESHOLD = 0.18
"""Edge magnitude (0..1 of full scale, Sobel-like) above which a pixel counts as sharp."""


@dataclass(frozen=True)
class Histogram:
    """Counts per level (256) for R, G, B, and the share of pixels clipped to black / to white."""

    counts: np.ndarray  # shape (3, 256)
    clipped_black: float  # share of pixels with every channel at 0
    clipped_white: float  # share of pixels with any channel at 255

    @property
    def clipping(self) -> bool:
        """True when a visible share (>= 0.1 %) of the frame is clipped at either end."""
        return self.clipped_black >= 0.001 or self.clipped_white >= 0.001


def rgb_histogram(rgb: np.ndarray) -> Histogram:
    """The histogram of an (H, W, 3) uint8 image; large frames are sampled on a regular grid."""
    if rgb.ndim != 3 or rgb.shape[2] < 3:
        raise ValueError(f"expected an (H, W, 3) RGB array, got shape {rgb.shape}")
    step = max(1, int(np.ceil(np.sqrt(rgb.shape[0] * rgb.shape[1] / HISTOGRAM_MAX_PIXELS))))
    sample = rgb[::step, ::step, :3]
    counts = np.stack([np.bincount(sample[..., c].ravel(), minlength=256)[:256] for c in range(3)])
    total = max(1, sample.shape[0] * sample.shape[1])
    black = float(np.count_nonzero((sample == 0).all(axis=2))) / total
    white = float(np.count_nonzero((sample == 255).any(axis=2))) / total
    return Histogram(counts, black, white)


def focus_peaking_mask(rgb: np.ndarray, threshold: float = PEAKING_THRESHOLD) -> np.ndarray:
    """A boolean (H, W) mask of pixels whose local luminance gradient is above `threshold`."""
    luma = rgb[..., :3].astype(np.float32) @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    luma /= 255.0
    gx = np.zeros_like(luma)
    gy = np.zeros_like(luma)
    gx[:, 1:-1] = luma[:, 2:] - luma[:, :-2]
    gy[1:-1, :] = luma[2:, :] - luma[:-2, :]
    return np.hypot(gx, gy) > threshold
