"""Focus, motion blur and panning on a check frame, from one pass over its edges.

One gradient (Sobel) and one 7 x 7 tone range of the whole frame give, at every edge pixel (a tone
range of 30 levels or more within 3 px), its *edge width*: the tone range over the gradient. A crisp
step spans 2 px; defocus widens every edge, motion blur widens the edges across the motion and
leaves those along it crisp. The widths are gathered once into a histogram per tile of an 8 x 8
grid and per orientation (0°, 45°, 90°, 135° of the gradient), from which every width measure is
read:
- the *subject*: the few tiles with the most fine detail that are crispest in their worst direction
  by *edge spread* (energy of two-pixel over one-pixel differences in four directions, sensor noise
  removed: 2 crisp, 4 spread over many pixels), or the eyes of the sharpest face; its sharpest
  edges' width in its widest and narrowest orientation;
- the whole frame's sharpest edges per orientation, and how strongly the gradients share one
  orientation (coherence): smear leaves one orientation crisp and the other wide;
- the least crisp half of the detailed tiles: widened along one common orientation while the subject
  is sharp is panning, not motion blur.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TILE_GRID = 8
CANDIDATE_TILES = 24
"""Tiles with the most detail whose spread is measured (of 64): over a third of the frame, so a
panned shot's streaked background is among them as well as its subject."""
SUBJECT_TILES = 4
"""Candidate tiles taken as the subject when there is no face."""
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
"""(dy, dx) of the four directions: across, down, and the two diagonals."""
MIN_EDGE_ENERGY = 4.0
"""Mean squared one-pixel difference (8-bit levels) a tile needs, after noise, to measure its spread."""
FLAT_DIRECTION = 0.05
"""A direction whose one-pixel change has less than this share of the tile's strongest direction's
is taken as fully spread: detail smeared along it leaves next to nothing to measure."""
EDGE_CONTRAST = 30
"""Tone range (8-bit levels, within EDGE_REACH pixels) from which a pixel is on an edge worth measuring."""
EDGE_REACH = 3
MIN_TILE_SIDE = 8
"""Tiles narrower than this (frames under 64 px on a side) are not measured."""
TILE_QUANTILE = 0.95
"""A tile's edge width in one orientation is that of its sharpest 5 % of edge pixels."""
FRAME_QUANTILE = 0.90
"""The frame's edge width in one orientation is that of its sharpest 10 % of edge cores."""
CORE_STEEPNESS = 0.15
"""Edge pixels whose gradient is under this share of their tone range (edges wider than about 7
px: the flanks of an edge, slow gradients) are left out of the frame's widths."""
EDGE_SAMPLE = 2
"""Edge widths are read at every second pixel of every second row: a quarter of the work, and an
edge (at least two pixels across) is never missed."""
MIN_EDGE_PIXELS = 3
"""Sampled edge pixels a tile needs in one orientation to have a width there."""
CONTRAST_QUANTILE = 0.99
SCENE_REACH = 16
"""The scene's contrast is the tone range within SCENE_REACH px that its top 1 % of pixels reach."""
MIN_FRAME_EDGES = 50
"""Sampled edge pixels the frame needs in one orientation to have a width there."""
_LEVELS = 256
"""Steepness levels (0-1) of the histogram widths are read from."""
EYE_BAND = (0.15, 0.55)
"""Rows of a face box (from its top) that hold the eyes and brows: where focus on a face is judged."""
STREAK_RATIO = 2.0
"""A tile whose edges are this many times wider in one orientation than in another is streaked."""
MIN_STREAKS = 4
STREAKED_SHARE = 0.5
"""Share of the least crisp half of the candidate tiles that must be streaked."""
AGREEING = 2 / 3
"""Share of the streaked tiles that must stay crisp along one orientation to call the background panned."""


SOBEL_GAIN = 8
"""`sobel` gives eight times the slope in levels per pixel (whole numbers: int16 arithmetic is fast)."""


def sobel(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sobel derivatives of a uint8 frame as int16, SOBEL_GAIN times the slope (borders replicated)."""
    padded = np.pad(levels, 1, mode="edge").astype(np.int16)
    dx = padded[:, 2:] - padded[:, :-2]
    gx = dx[:-2] + dx[2:] + 2 * dx[1:-1]
    dy = padded[2:] - padded[:-2]
    gy = dy[:, :-2] + dy[:, 2:] + 2 * dy[:, 1:-1]
    return gx, gy


def _running(levels: np.ndarray, axis: int, op: np.ufunc, reach: int = EDGE_REACH) -> np.ndarray:
    """Max or min over the 2 * reach + 1 samples centred on each (ends replicated), by doubling."""
    pad = [(0, 0), (0, 0)]
    pad[axis] = (reach, reach)
    values = np.pad(levels, pad, mode="edge")
    window, span = 1, 2 * reach + 1
    while window < span:
        step = min(window, span - window)
        n = values.shape[axis] - step
        head = values[:n] if axis == 0 else values[:, :n]
        tail = values[step:] if axis == 0 else values[:, step:]
        values = op(head, tail)
        window += step
    return values


def tone_range(levels: np.ndarray, reach: int = EDGE_REACH) -> np.ndarray:
    """Brightest minus darkest level (uint8) within `reach` pixels of each pixel of a uint8 frame."""
    high = _running(_running(levels, 0, np.maximum, reach), 1, np.maximum, reach)
    low = _running(_running(levels, 0, np.minimum, reach), 1, np.minimum, reach)
    return high - low


def scene_contrast(levels: np.ndarray) -> float:
    """The tone range within SCENE_REACH px (read at every EDGE_SAMPLE-th pixel of every EDGE_SAMPLE-th
    row) that the top 1 - CONTRAST_QUANTILE of a uint8 frame's pixels reach: how much contrast the
    scene holds at all. A blur of a few pixels hardly lowers it (it spans edges, whatever their
    steepness); mist, fog or a dim tank have little at any scale."""
    ranges = tone_range(levels[::EDGE_SAMPLE, ::EDGE_SAMPLE], SCENE_REACH // EDGE_SAMPLE).ravel()
    if ranges.size == 0:
        return float("nan")
    top = min(ranges.size - 1, int(CONTRAST_QUANTILE * ranges.size))
    return float(np.partition(ranges, top)[top])


@dataclass(frozen=True)
class EdgeWidths:
    """Edge widths of a frame: per tile and orientation (TILE_GRID², 4) and per orientation over the
    whole frame (4); NaN where too few edges; the coherence of the edges' gradient orientations
    (0: every orientation alike, 1: all one); the share of the frame on an edge's core; and the share
    on an edge at all (a tone range of EDGE_CONTRAST within EDGE_REACH px, however wide the edge:
    a blur widens edges but leaves them there, a bare sky or a nebula has next to none)."""

    tiles: np.ndarray
    frame: np.ndarray
    coherence: float
    cores: float = 0.0
    density: float = 0.0


def _widths(counts: np.ndarray, quantile: float, least: int) -> np.ndarray:
    """Width (1 / steepness) at which `quantile` of each histogram's edges are reached from below;
    NaN for a histogram of fewer than `least` edges."""
    totals = counts.sum(axis=-1)
    below = np.cumsum(counts, axis=-1) < quantile * totals[..., None]
    steepness = (below.sum(axis=-1) + 0.5) / _LEVELS
    with np.errstate(invalid="ignore"):
        return np.where(totals >= least, 1.0 / np.maximum(steepness, 1e-3), np.nan)


def _tile_map(shape: tuple[int, int]) -> np.ndarray:
    """The grid tile (row-major index) of every pixel of the sampled frame, as uint8."""
    h, w = shape
    th, tw = max(1, h // TILE_GRID), max(1, w // TILE_GRID)
    rows = np.minimum(np.arange(0, h, EDGE_SAMPLE) // th, TILE_GRID - 1)
    cols = np.minimum(np.arange(0, w, EDGE_SAMPLE) // tw, TILE_GRID - 1)
    return (rows[:, None] * TILE_GRID + cols[None, :]).astype(np.uint8)


def edge_widths(levels: np.ndarray) -> EdgeWidths:
    """Edge widths of a uint8 frame per tile and orientation, and over the whole frame, read at every
    EDGE_SAMPLE-th pixel of every EDGE_SAMPLE-th row."""
    gx, gy = sobel(levels)
    spread_levels = tone_range(levels)[::EDGE_SAMPLE, ::EDGE_SAMPLE]
    at = np.flatnonzero(spread_levels >= EDGE_CONTRAST)
    if at.size == 0:
        return EdgeWidths(np.full((TILE_GRID * TILE_GRID, 4), np.nan), np.full(4, np.nan), float("nan"), 0.0)
    ex = np.take(gx[::EDGE_SAMPLE, ::EDGE_SAMPLE], at)
    ey = np.take(gy[::EDGE_SAMPLE, ::EDGE_SAMPLE], at)
    ax, ay = np.abs(ex), np.abs(ey)
    # orientation of the gradient: 0 (across), 2 (down) within 22.5°, else the diagonal its signs say
    across, down = ax * 29 > ay * 70, ay * 29 > ax * 70  # tan(67.5°) = 2.414 = 70 / 29
    diagonal = ~(across | down)
    orientation = 2 * down + diagonal * (1 + 2 * ((ex ^ ey) < 0))
    fx, fy = ex.astype(np.float32), ey.astype(np.float32)
    tone = np.take(spread_levels, at).astype(np.float32) * SOBEL_GAIN
    level = np.minimum((np.sqrt(fx * fx + fy * fy) * (_LEVELS / tone)).astype(np.int32), _LEVELS - 1)
    tile = np.take(_tile_map(levels.shape), at).astype(np.int32)
    counts = np.bincount((tile * 4 + orientation) * _LEVELS + level, minlength=TILE_GRID * TILE_GRID * 4 * _LEVELS)
    counts = counts.reshape(TILE_GRID * TILE_GRID, 4, _LEVELS)
    core = counts.sum(axis=0)
    core[:, : int(CORE_STEEPNESS * _LEVELS)] = 0
    jxx, jyy, jxy = float(np.dot(fx, fx)), float(np.dot(fy, fy)), float(np.dot(fx, fy))
    trace = jxx + jyy
    coherence = float(np.sqrt((jxx - jyy) ** 2 + 4.0 * jxy * jxy) / trace) if trace > 0 else float("nan")
    share = float(core.sum()) / max(1, spread_levels.size)
    density = float(at.size) / max(1, spread_levels.size)
    return EdgeWidths(_widths(counts, TILE_QUANTILE, MIN_EDGE_PIXELS), _widths(core, FRAME_QUANTILE, MIN_FRAME_EDGES),
                      coherence, share, density)  # fmt: skip


def _tiles(grey: np.ndarray, picked: Sequence[int]) -> np.ndarray:
    """The picked tiles of the grid (row-major indices) stacked as (n, th, tw) (remainders dropped)."""
    h, w = grey.shape
    th, tw = h // TILE_GRID, w // TILE_GRID
    grid = grey[: th * TILE_GRID, : tw * TILE_GRID].reshape(TILE_GRID, th, TILE_GRID, tw)
    index = np.asarray(picked, dtype=np.int64)
    return grid[index // TILE_GRID, :, index % TILE_GRID, :]


def _energies(parts: np.ndarray, lag: int) -> np.ndarray:
    """Mean squared difference of pixels `lag` apart in each of the four directions, per part: (n, 4)."""
    out = []
    for dy, dx in DIRECTIONS:
        oy, ox = dy * lag, dx * lag
        y0, y1 = max(0, -oy), parts.shape[1] - max(0, oy)
        x0, x1 = max(0, -ox), parts.shape[2] - max(0, ox)
        difference = parts[:, y0 + oy: y1 + oy, x0 + ox: x1 + ox] - parts[:, y0:y1, x0:x1]
        out.append(np.einsum("nij,nij->n", difference, difference) / max(1, difference[0].size))
    return np.stack(out, axis=1)


def spreads(parts: np.ndarray, noise_sigma: float) -> np.ndarray:
    """Edge spread of each of a stack of regions (n, h, w) in the four directions: (n, 4), 2 crisp ..
    4 spread; NaN rows for regions too flat to tell."""
    noise_energy = 2.0 * noise_sigma * noise_sigma  # a difference of two noisy pixels
    one = _energies(parts, 1) - noise_energy
    two = _energies(parts, 2) - noise_energy
    strongest = one.max(axis=1, keepdims=True)
    floor = np.maximum(MIN_EDGE_ENERGY, FLAT_DIRECTION * strongest)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.clip(two / one, 1.0, 4.0)
    out = np.where(one >= floor, ratio, 4.0)  # a direction with next to no change: smeared along it
    out[strongest[:, 0] < MIN_EDGE_ENERGY] = np.nan
    return out


def spread(part: np.ndarray, noise_sigma: float) -> np.ndarray:
    """Edge spread of one region in the four directions (2 crisp .. 4 spread; NaN: too flat)."""
    if min(part.shape) < 3:
        return np.full(4, np.nan)
    return spreads(np.asarray(part, dtype=np.float32)[None], noise_sigma)[0]


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


def _finite_rows(widths: np.ndarray) -> np.ndarray:
    return np.isfinite(widths).sum(axis=1) >= 2


def measure_sharpness(grey: np.ndarray, levels: np.ndarray, tile_detail: np.ndarray, noise_sigma: float) -> dict[str, float]:
    """The subject's edge spread and edge widths, the frame's, the background's streaking, and where
    the subject is.

    `grey` is the check frame (float32) and `levels` the same as uint8; `tile_detail` each tile's
    noise-corrected Laplacian variance (row-major, TILE_GRID squared). Keys: "spread" (subject's
    worst direction, 2 crisp .. 4 spread), "width" and "narrow" (the subject's widest and narrowest
    orientation, px: about 2 crisp), "across" and "along" (the frame's sharpest edges in its widest
    and narrowest orientation), "coherence" (0-1), "edges" (share of the frame on an edge's core:
    how crisp detail there is), "density" (share of the frame on an edge of any width: how much
    there is to judge sharpness by), "contrast" (scene_contrast: how much contrast the scene holds),
    "background" (median widest-orientation width of
    the least crisp candidate tiles when they are streaked along one orientation, else 0), "x", "y"
    (subject centre, 0-1).
    """
    nothing = {"spread": float("nan"), "width": float("nan"), "narrow": float("nan"), "across": float("nan"),
               "along": float("nan"), "coherence": float("nan"), "edges": 0.0, "density": 0.0, "background": 0.0,
               "contrast": float("nan"), "x": 0.5, "y": 0.5}  # fmt: skip
    if min(grey.shape) < MIN_TILE_SIDE * TILE_GRID:
        return nothing  # a frame this small has no tiles to measure edges in
    order = [int(t) for t in np.argsort(tile_detail)[::-1][:CANDIDATE_TILES] if tile_detail[t] > 0]
    if not order:
        return nothing
    measured = spreads(_tiles(grey, order), noise_sigma)
    valid = ~np.isnan(measured).all(axis=1)
    if not valid.any():
        return nothing
    candidates = np.asarray(order)[valid]
    worst = np.nanmax(measured[valid], axis=1)
    ranked = candidates[np.argsort(worst, kind="stable")]
    subject = ranked[:SUBJECT_TILES]
    edges = edge_widths(levels)
    crispest = [t for t in ranked if _finite_rows(edges.tiles[[t]])[0]]
    sharp = sorted(crispest[: 3 * SUBJECT_TILES], key=lambda t: float(np.nanmax(edges.tiles[t])))[:SUBJECT_TILES]
    softest = ranked[len(ranked) // 2:]
    background = [edges.tiles[t] for t in softest if _finite_rows(edges.tiles[[t]])[0]]
    frame = edges.frame
    return {
        "spread": float(np.median(np.sort(worst)[:SUBJECT_TILES])),
        "width": float(np.median([np.nanmax(edges.tiles[t]) for t in sharp])) if sharp else float("nan"),
        "narrow": float(np.median([np.nanmin(edges.tiles[t]) for t in sharp])) if sharp else float("nan"),
        "across": float(np.nanmax(frame)) if np.isfinite(frame).any() else float("nan"),
        "along": float(np.nanmin(frame)) if np.isfinite(frame).any() else float("nan"),
        "coherence": edges.coherence,
        "edges": edges.cores,
        "density": edges.density,
        "contrast": scene_contrast(levels),
        "background": _streaked(background),
        "x": float(np.mean([(t % TILE_GRID + 0.5) / TILE_GRID for t in subject])),
        "y": float(np.mean([(t // TILE_GRID + 0.5) / TILE_GRID for t in subject])),
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
