"""Clipping and exposure as a photographer reads them: what was lost, not what is merely bright or dark.

A pixel is blown when its luminance is at the top (250 of 255 or more: every channel near full, a
saturated blue sky is not blown) and crushed when its luminance is at the bottom (5 or less). Lost
areas are found on a grid of 8 px blocks and sorted by what surrounds them:
- *small*: specular highlights and points of light (a glint, a lamp, a star): ignored;
- *smooth*: a bright or dark area continuing into smooth tones around it (an overcast sky, snow, a
  white or black backdrop, a silhouette): a property of the scene, at most a warning;
- *detail*: an area whose surroundings hold texture (clouds, lace, foliage, skin pores pushed over
  the top): detail was lost, and its share of the frame is what the highlight and shadow checks judge.
A blown area that reaches the top edge of the frame and holds no detail inside (lost all through, or
as flat as noise) is *sky* (an overcast or hazy sky behind trees and roofs): smooth, whatever its
surroundings hold, because the detail around it belongs to the subject, not to the sky.
Faces are judged on their own: the share of each face box that is blown.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image
from scipy import ndimage

BLOCK = 8
BLOWN_LEVEL = 250
CRUSHED_LEVEL = 5
LOST_BLOCK = 0.15
"""A block is lost when at least this share of its pixels is blown (or crushed)."""
SMALL_AREA = 0.002
"""Lost areas smaller than this share of the frame are specular highlights or points of light."""
LIGHT_AREA = 0.02
"""A blown area up to this share of the frame with nothing bright around it is a light source or a
window (a crushed one, a hole of black), not detail lost."""
SOLID = 0.8
"""Share of a lost area's blocks lost entirely for it to be one smooth area rather than torn texture."""
RING_BLOCKS = 2
"""Width of the surroundings examined around a lost area (blocks)."""
RING_SHARE = 0.25
"""A lost area with fewer continuing neighbours than this share of its own blocks mostly meets other
tones directly (a backdrop behind a subject, snow against trees): judged by itself, not by the few
textured neighbours it touches."""
BRIGHT_NEIGHBOUR = 170.0
DARK_NEIGHBOUR = 60.0
"""Neighbouring blocks at least this bright (at most this dark, for shadows) continue the lost area."""
SMOOTH_DETAIL = 2.5
"""Mean absolute Laplacian (8-bit levels) under which the continuation is smooth, besides noise."""


def level_mask(luma: Image.Image, low: int | None, high: int | None) -> Image.Image:
    """A 0/255 mask of luma at or above `high` (or at or below `low`)."""
    if high is not None:
        return luma.point([255 if v >= high else 0 for v in range(256)])
    return luma.point([255 if v <= (low or 0) else 0 for v in range(256)])


def block_share(mask: Image.Image, block: int = BLOCK) -> np.ndarray:
    """Share (0-1) of each block's pixels set in a 0/255 mask (remainder rows/columns dropped)."""
    cols, rows = mask.width // block, mask.height // block
    if cols == 0 or rows == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return np.asarray(mask.reduce(block, box=(0, 0, cols * block, rows * block)), dtype=np.float32) / 255.0


def lost_areas(
    share: np.ndarray,
    block_luma: np.ndarray,
    block_detail: np.ndarray,
    noise_detail: float,
    bright: bool,
) -> dict[str, float]:
    """Shares of the frame lost in small, smooth and detail-bearing areas, and where the smooth ones sit.

    `share`: per block, the share of its pixels blown (or crushed); `block_luma` and `block_detail`:
    the block's mean luma and mean absolute Laplacian; `noise_detail`: what noise alone gives the
    latter. Returns {"total", "small", "smooth", "detail", "smooth_top", "smooth_bottom", "sky"}
    ("sky": the blown areas at the top edge without detail inside, also counted in "smooth").
    """
    cells = max(1, share.size)
    out = {"total": float(share.sum()) / cells, "small": 0.0, "smooth": 0.0, "detail": 0.0, "smooth_top": 0.0,
           "smooth_bottom": 0.0, "sky": 0.0}  # fmt: skip
    lost = share >= LOST_BLOCK
    out["small"] = float(share[~lost].sum()) / cells
    if not lost.any():
        return out
    labels, count = ndimage.label(lost, structure=np.ones((3, 3)))
    sizes = ndimage.sum_labels(share, labels, index=np.arange(1, count + 1)) / cells
    grown = ndimage.grey_dilation(labels, size=(2 * RING_BLOCKS + 1,) * 2)
    continuing = (block_luma >= BRIGHT_NEIGHBOUR) if bright else (block_luma <= DARK_NEIGHBOUR)
    ring = (grown > 0) & ~lost & continuing
    limit = SMOOTH_DETAIL + noise_detail
    ring_count = ndimage.sum_labels(ring, grown, index=np.arange(1, count + 1))
    ring_sum = ndimage.sum_labels(block_detail, grown * ring, index=np.arange(1, count + 1))
    ring_detail = ring_sum / np.maximum(ring_count, 1)  # mean detail around each area
    solid = ndimage.mean(share >= 0.95, labels, index=np.arange(1, count + 1))
    inside = ndimage.mean(block_detail, labels, index=np.arange(1, count + 1))  # detail within each area
    blocks = ndimage.sum_labels(lost, labels, index=np.arange(1, count + 1))
    rows = np.arange(share.shape[0])[:, None] / max(1, share.shape[0] - 1)
    centre_y = ndimage.mean(np.broadcast_to(rows, share.shape), labels, index=np.arange(1, count + 1))
    top_row = ndimage.minimum(np.broadcast_to(rows, share.shape), labels, index=np.arange(1, count + 1))
    for k in range(count):
        size = float(sizes[k])
        if size < SMALL_AREA:
            out["small"] += size
            continue
        if ring_count[k] == 0 and size < LIGHT_AREA:
            # nothing around it continues the tone: a light source or a window (bright), a hole of
            # black against light (dark): the edge of the scene's range, not a loss of its detail
            out["small" if bright else "smooth"] += size
            continue
        # without neighbours continuing its tone, a large area meets other tones directly (snow
        # against trees, a sky against a ridge, a backdrop against the subject): smooth when lost
        # all through or without detail inside, torn when clipping cut through texture
        flat_inside = solid[k] >= SOLID or float(inside[k]) <= limit
        sky = bright and float(top_row[k]) == 0.0 and flat_inside
        if ring_count[k] < RING_SHARE * blocks[k]:
            smooth = flat_inside
        else:
            smooth = sky or float(ring_detail[k]) <= limit
        if sky:
            out["sky"] += size
        if smooth:
            out["smooth"] += size
            out["smooth_top" if centre_y[k] < 0.5 else "smooth_bottom"] += size
        else:
            out["detail"] += size
    return out


def face_blown(blown: Image.Image, faces: Sequence[tuple[float, float, float, float]]) -> float:
    """The largest share of a face box whose pixels are blown (0 without faces)."""
    worst = 0.0
    for x, y, w, h in faces:
        box = (int(x * blown.width), int(y * blown.height), int((x + w) * blown.width) + 1, int((y + h) * blown.height) + 1)
        crop = np.asarray(blown.crop(box), dtype=np.float32)
        if crop.size >= 16:
            worst = max(worst, float(crop.mean()) / 255.0)
    return worst


_AT_TOP = [1 if v >= BLOWN_LEVEL else 0 for v in range(256)] * 3


def colour_clipped(rgb: Image.Image) -> float:
    """Share of pixels with two or three channels at the top (250 or more): blown white, or a colour
    burnt out to its brightest (an over-exposed flower, skin or sunset). One channel at the top is a
    saturated colour that kept its tone (a deep blue sky), not clipping."""
    tops = rgb.point(_AT_TOP).convert("L", (1.0, 1.0, 1.0, 0.0))  # channels at the top per pixel, 0-3
    counts = tops.histogram()
    return float(sum(counts[2:4])) / max(1, rgb.width * rgb.height)


def exposure_levels(luma: Image.Image) -> dict[str, float]:
    """Tone levels of the luma (0-1): the 99.5th and 90th percentiles, the median, the 10th and 1st
    percentiles, and the median of the pixels that are not blown."""
    counts = np.asarray(luma.histogram(), dtype=np.float64)
    tones = np.cumsum(counts) / max(1.0, float(counts.sum()))
    unblown = np.cumsum(counts[:BLOWN_LEVEL]) / max(1.0, float(counts[:BLOWN_LEVEL].sum()))
    return {
        "p995": float(np.searchsorted(tones, 0.995)) / 255.0,
        "p90": float(np.searchsorted(tones, 0.90)) / 255.0,
        "median": float(np.searchsorted(tones, 0.5)) / 255.0,
        "p10": float(np.searchsorted(tones, 0.10)) / 255.0,
        "p1": float(np.searchsorted(tones, 0.01)) / 255.0,
        "unblown_median": float(np.searchsorted(unblown, 0.5)) / 255.0,
    }
