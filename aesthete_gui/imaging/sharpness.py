"""Focus, motion blur and panning on a check frame, judged where the subject is.

The frame is cut into an 8 x 8 grid of tiles; the tiles with the most fine detail (variance of the
Laplacian) are the candidates for the subject. Two measures per candidate tile:
- *edge spread* in four directions (across, down and both diagonals): the energy of two-pixel
  differences over that of one-pixel differences, sensor noise removed from both. A crisp edge gives
  2, an edge spread over many pixels 4, whatever its contrast; a direction with next to no change
  while the others have plenty counts as fully spread (detail smeared along it).
- *edge width* per orientation: at edge pixels, the gradient over the tone range within 3 pixels
  (a crisp step spans 2 pixels, a blurred one more); the sharpest edges of each orientation (95th
  percentile) give its width. Motion blur widens the edges across the motion and leaves the others
  crisp, so the widest orientation of the subject tells shake from sharpness.
The subject is the few candidate tiles crispest in their worst direction (or the eyes of the
sharpest face), so a shallow depth of field with a sharp subject is not soft. A sharp subject with
the other tiles widened along one common orientation is panning, not motion blur.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TILE_GRID = 8
CANDIDATE_TILES = 24
"""Tiles with the most detail that are measured (of 64): over a third of the frame, so a panned
shot's streaked background is among them as well as its subject."""
SUBJECT_TILES = 4
"""Candidate tiles taken as the subject when there is no face."""
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
"""(dy, dx) of the four directions: across, down, and the two diagonals."""
MIN_EDGE_ENERGY = 4.0
"""Mean squared one-pixel difference (8-bit levels) a tile needs, after noise, to measure its spread."""
FLAT_DIRECTION = 0.05
"""A direction whose one-pixel change has less than this share of the tile's strongest direction's
is taken as fully spread: detail smeared along it leaves next to nothing to measure."""
EDGE_CONTRAST = 30.0
"""Tone range (8-bit levels, within 3 pixels) from which a pixel is on an edge worth measuring."""
EDGE_REACH = 3
MIN_TILE_SIDE = 8
"""Tiles narrower than this (frames under 64 px on a side) are not measured."""
EDGE_QUANTILE = 0.95
MIN_EDGE_PIXELS = 10
"""Edge pixels an orientation needs in a tile to have a width."""
_LEVELS = 512
"""Steepness levels (0-1) of the histogram edge widths are read from."""
EYE_BAND = (0.15, 0.55)
"""Rows of a face box (from its top) that hold the eyes and brows: where focus on a face is judged."""
STREAK_RATIO = 2.0
"""A tile whose edges are this many times wider in one orientation than in another is streaked."""
WIDTH_TILES = 12
"""The candidate tiles crispest in their worst direction whose edge widths are measured (the costly part)."""
BACKGROUND_TILES = 6
"""The least crisp candidate tiles whose edge widths are measured, for a panned background."""
MIN_STREAKS = 4
STREAKED_SHARE = 0.6
"""Share of the least crisp candidate tiles that must be streaked."""
AGREEING = 2 / 3
"""Share of the streaked tiles that must stay crisp along one orientation to call the background panned."""


def _shifted_energy(part: np.ndarray, dy: int, dx: int, lag: int) -> tuple[float, int]:
    """Sum of squared differences between pixels `lag` steps apart along (dy, dx), and their count."""
    h, w = part.shape
    oy, ox = dy * lag, dx * lag
    y0, y1 = max(0, -oy), h - max(0, oy)
    x0, x1 = max(0, -ox), w - max(0, ox)
    if y1 <= y0 or x1 <= x0:
        return 0.0, 0
    difference = part[y0 + oy: y1 + oy, x0 + ox: x1 + ox] - part[y0:y1, x0:x1]
    return float(np.vdot(difference, difference)), difference.size


def spread(part: np.ndarray, noise_sigma: float) -> np.ndarray:
    """Edge spread of a region in each of the four directions (2 crisp .. 4 spread; nan: too flat)."""
    noise_energy = 2.0 * noise_sigma * noise_sigma  # a difference of two noisy pixels
    energies = []
    for dy, dx in DIRECTIONS:
        one, n1 = _shifted_energy(part, dy, dx, 1)
        two, n2 = _shifted_energy(part, dy, dx, 2)
        if n1 == 0 or n2 == 0:
            return np.full(4, np.nan)
        energies.append((one / n1 - noise_energy, two / n2 - noise_energy))
    strongest = max(e1 for e1, _ in energies)
    if strongest < MIN_EDGE_ENERGY:
        return np.full(4, np.nan)  # too flat to tell
    floor = max(MIN_EDGE_ENERGY, FLAT_DIRECTION * strongest)
    return np.array([min(max(e2 / e1, 1.0), 4.0) if e1 >= floor else 4.0 for e1, e2 in energies])


def _running(values: np.ndarray, reach: int, axis: int, op: np.ufunc) -> np.ndarray:
    """Running max or min over 2 * reach + 1 samples along an axis (the ends shrink the window)."""
    out = values.copy()
    size = values.shape[axis]
    for shift in range(1, reach + 1):
        if shift >= size:
            break
        head = [slice(None)] * values.ndim
        tail = [slice(None)] * values.ndim
        head[axis], tail[axis] = slice(shift, None), slice(None, -shift)
        out[tuple(head)] = op(out[tuple(head)], values[tuple(tail)])
        out[tuple(tail)] = op(out[tuple(tail)], values[tuple(head)])
    return out


def edge_widths(parts: np.ndarray, margin: int) -> np.ndarray:
    """Width (pixels) of the sharpest edges of each of four orientations (0°, 45°, 90°, 135° of the
    gradient) in each of a stack of tiles (n, h, w) less a `margin` on every side; (n, 4), nan where
    a tile has too few edges of an orientation. Quantiles are read from one histogram of all tiles."""
    n, h, w = parts.shape
    dx = parts[:, :, 2:] - parts[:, :, :-2]
    gx = (dx[:, :-2] + 2.0 * dx[:, 1:-1] + dx[:, 2:]) / 8.0
    dy = parts[:, 2:] - parts[:, :-2]
    gy = (dy[:, :, :-2] + 2.0 * dy[:, :, 1:-1] + dy[:, :, 2:]) / 8.0
    levels = np.clip(parts, 0, 255).astype(np.uint8)  # tone levels: a quarter of the memory to slide over
    high = _running(_running(levels, EDGE_REACH, 1, np.maximum), EDGE_REACH, 2, np.maximum)
    low = _running(_running(levels, EDGE_REACH, 1, np.minimum), EDGE_REACH, 2, np.minimum)
    inner = (slice(None), slice(margin, h - margin), slice(margin, w - margin))
    outer = (slice(None), slice(margin - 1, h - margin - 1), slice(margin - 1, w - margin - 1))  # gx[i] is part[i + 1]
    tone_range = (high[inner] - low[inner]).astype(np.float32)
    gx, gy = gx[outer], gy[outer]
    edge = tone_range >= EDGE_CONTRAST
    tile_index = np.broadcast_to(np.arange(n)[:, None, None], edge.shape)[edge]
    ax, ay, signs = np.abs(gx[edge]), np.abs(gy[edge]), (gx * gy)[edge]
    steepness = np.hypot(ax, ay) / tone_range[edge]
    orientation = np.where(ax > 2.414 * ay, 0, np.where(ay > 2.414 * ax, 2, np.where(signs > 0, 1, 3)))
    level = np.minimum((steepness * _LEVELS).astype(np.int64), _LEVELS - 1)
    counts = np.bincount((tile_index * 4 + orientation) * _LEVELS + level, minlength=n * 4 * _LEVELS)
    counts = counts.reshape(n, 4, _LEVELS)
    totals = counts.sum(axis=2)
    below = np.cumsum(counts, axis=2) < EDGE_QUANTILE * totals[..., None]
    quantile = (below.sum(axis=2) + 0.5) / _LEVELS  # the level where 95 % of the edges are reached
    return np.where(totals >= MIN_EDGE_PIXELS, 1.0 / np.maximum(quantile, 1e-3), np.nan)


def _tile(grey: np.ndarray, tile: int, margin: int = 0, shape: tuple[int, int] | None = None) -> np.ndarray:
    """A tile of the grid over a frame of `shape` (default: grey's), with `margin` pixels around it
    taken from `grey` (which is then the frame padded by that margin)."""
    h, w = shape or grey.shape
    th, tw = max(1, h // TILE_GRID), max(1, w // TILE_GRID)
    top, left = (tile // TILE_GRID) * th, (tile % TILE_GRID) * tw
    return grey[top: top + th + 2 * margin, left: left + tw + 2 * margin]


def face_spread(grey: np.ndarray, box: tuple[float, float, float, float], noise_sigma: float) -> float:
    """Edge spread in the worst direction over the eye band of a face box (x, y, w, h in 0-1); nan
    when the band is too small or flat."""
    h, w = grey.shape
    x, y, bw, bh = box
    top, bottom = int((y + EYE_BAND[0] * bh) * h), int((y + EYE_BAND[1] * bh) * h)
    part = grey[max(0, top): max(0, bottom), max(0, int(x * w)): max(0, int((x + bw) * w))]
    if part.shape[0] < 6 or part.shape[1] < 6:
        return float("nan")
    values = spread(part, noise_sigma)
    return float("nan") if np.isnan(values).all() else float(np.nanmax(values))


def measure_sharpness(grey: np.ndarray, tile_detail: np.ndarray, noise_sigma: float) -> dict[str, float]:
    """The subject's edge spread and edge width, the background's streaking, and where the subject is.

    `tile_detail` is each tile's noise-corrected Laplacian variance (row-major, TILE_GRID squared).
    Keys: "spread" (subject's worst direction, 2 crisp .. 4 spread), "width" and "narrow" (the
    subject's widest and narrowest orientation, pixels: about 2 crisp), "background" (median widest-orientation width of the other
    candidate tiles when they agree on one orientation, else 0), "x", "y" (subject centre, 0-1).
    """
    nothing = {"spread": float("nan"), "width": float("nan"), "narrow": float("nan"), "background": 0.0, "x": 0.5, "y": 0.5}
    if min(grey.shape) < MIN_TILE_SIDE * TILE_GRID:
        return nothing  # a frame this small has no tiles to measure edges in
    order = [int(t) for t in np.argsort(tile_detail)[::-1][:CANDIDATE_TILES] if tile_detail[t] > 0]
    spreads = [(t, spread(_tile(grey, t), noise_sigma)) for t in order]
    spreads = [(t, v) for t, v in spreads if not np.isnan(v).all()]
    if not spreads:
        return nothing
    ranked = sorted(spreads, key=lambda tv: float(np.nanmax(tv[1])))
    subject = ranked[:SUBJECT_TILES]
    margin = EDGE_REACH + 1
    padded = np.pad(grey, margin, mode="edge")
    # edge widths (the costly part) of the crispest candidates, where the subject is, and of the
    # least crisp ones, where a panned background would be streaked
    crispest = [t for t, _ in ranked[:WIDTH_TILES]]
    softest = [t for t, _ in ranked[WIDTH_TILES:][-BACKGROUND_TILES:]]
    measured = edge_widths(np.stack([_tile(padded, t, margin, grey.shape) for t in crispest + softest]), margin)
    widths = [w for w in measured[: len(crispest)] if np.isfinite(w).sum() >= 2]
    background = [w for w in measured[len(crispest):] if np.isfinite(w).sum() >= 2]
    sharp = sorted(widths, key=lambda w: float(np.nanmax(w)))[:SUBJECT_TILES]
    return {
        "spread": float(np.median([np.nanmax(v) for _, v in subject])),
        "width": float(np.median([np.nanmax(w) for w in sharp])) if sharp else float("nan"),
        "narrow": float(np.median([np.nanmin(w) for w in sharp])) if sharp else float("nan"),
        "background": _streaked(background),
        "x": float(np.mean([(t % TILE_GRID + 0.5) / TILE_GRID for t, _ in subject])),
        "y": float(np.mean([(t // TILE_GRID + 0.5) / TILE_GRID for t, _ in subject])),
    }


def _streaked(widths: Sequence[np.ndarray]) -> float:
    """Median widest-orientation edge width of the streaked tiles (widest at least STREAK_RATIO times
    their narrowest) when most of the least crisp candidates are streaked and stay crisp along one
    common orientation (the direction of the pan), else 0."""
    streaks = [w for w in widths if np.nanmax(w) >= STREAK_RATIO * np.nanmin(w)]
    if len(streaks) < max(MIN_STREAKS, STREAKED_SHARE * len(widths)):
        return 0.0  # a few streaky tiles are texture (grass, hair, a horizon), not a panned background
    crisp = [int(np.nanargmin(w)) for w in streaks]
    common = max(set(crisp), key=crisp.count)
    agreeing = [w for w, d in zip(streaks, crisp, strict=True) if d == common]
    if len(agreeing) < AGREEING * len(streaks):
        return 0.0
    return float(np.median([np.nanmax(w) for w in agreeing]))
