"""Focus, motion blur and panning on a check frame, judged where the subject is.

Two measures per tile of an 8 x 8 grid:
- the noise-corrected variance of the Laplacian (how much fine detail there is), which finds the
  candidate subject: the face when there is one, else the tiles with the most detail;
- the *edge spread* along four directions (across, down and both diagonals): the energy of two-pixel
  differences over that of one-pixel differences. A crisp edge gives 2, an edge spread over many
  pixels 4, whatever its contrast; sensor noise is removed from both first. A defocused subject
  spreads in every direction; motion blur in one (the others stay crisp); a panned shot has a crisp
  subject and a background spread in one direction.
The subject is the set of detailed tiles whose edges are crispest in their worst direction, so a
shallow depth of field with a sharp subject is not soft: only the subject is judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TILE_GRID = 8
CANDIDATE_TILES = 24
"""Tiles with the most detail whose edge spread is measured (of 64)."""
SUBJECT_TILES = 4
"""Tiles taken as the subject when there is no face."""
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
"""(dy, dx) of the four directions: across, down, and the two diagonals."""
DIRECTION_NAMES = ("horizontal", "vertical", "diagonal", "diagonal")
MIN_EDGE_ENERGY = 4.0
"""Mean squared one-pixel difference (8-bit levels) a tile needs, after noise, to measure its spread."""
FLAT_DIRECTION = 0.05
"""A direction whose one-pixel change has less than this share of the tile's strongest direction's
is taken as fully spread: detail smeared along it leaves next to nothing to measure."""


@dataclass(frozen=True)
class TileSpread:
    """Edge spread of one tile in each of the four directions (2 crisp .. 4 spread), nan: too flat."""

    index: int
    spread: tuple[float, float, float, float]

    @property
    def worst(self) -> float:
        return float(np.nanmax(self.spread))

    @property
    def best(self) -> float:
        return float(np.nanmin(self.spread))

    @property
    def direction(self) -> int:
        return int(np.nanargmax(self.spread))


def _spread(part: np.ndarray, noise_sigma: float) -> tuple[float, float, float, float]:
    """Edge spread of a region in each of the four directions (2 crisp .. 4 spread; nan: too flat)."""
    noise_energy = 2.0 * noise_sigma * noise_sigma  # a difference of two noisy pixels
    energies = []
    for dy, dx in DIRECTIONS:
        one, n1 = _shifted_energy(part, dy, dx, 1)
        two, n2 = _shifted_energy(part, dy, dx, 2)
        if n1 == 0 or n2 == 0:
            return (float("nan"),) * 4
        energies.append((one / n1 - noise_energy, two / n2 - noise_energy))
    strongest = max(e1 for e1, _ in energies)
    if strongest < MIN_EDGE_ENERGY:
        return (float("nan"),) * 4  # too flat to tell
    # a direction with next to no one-pixel change while others have plenty is smeared along it
    return tuple(
        float(np.clip(e2 / e1, 1.0, 4.0)) if e1 >= max(MIN_EDGE_ENERGY, FLAT_DIRECTION * strongest) else 4.0
        for e1, e2 in energies
    )  # type: ignore[return-value]


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


def tile_spread(grey: np.ndarray, tile: int, noise_sigma: float, grid: int = TILE_GRID) -> TileSpread:
    """Edge spread of one tile of a grid x grid partition of `grey` (8-bit levels, float32)."""
    h, w = grey.shape
    th, tw = max(1, h // grid), max(1, w // grid)
    top, left = (tile // grid) * th, (tile % grid) * tw
    return TileSpread(tile, _spread(grey[top: top + th, left: left + tw], noise_sigma))


EYE_BAND = (0.15, 0.55)
"""Rows of a face box (from its top) that hold the eyes and brows: where focus on a face is judged."""


def face_spread(grey: np.ndarray, box: tuple[float, float, float, float], noise_sigma: float) -> float:
    """Mean edge spread over the eye band of a face box (x, y, w, h in 0-1); nan when too small or flat."""
    h, w = grey.shape
    x, y, bw, bh = box
    top, bottom = int((y + EYE_BAND[0] * bh) * h), int((y + EYE_BAND[1] * bh) * h)
    part = grey[max(0, top): max(0, bottom), max(0, int(x * w)): max(0, int((x + bw) * w))]
    if part.shape[0] < 6 or part.shape[1] < 6:
        return float("nan")
    spreads = _spread(part, noise_sigma)
    return float("nan") if all(np.isnan(spreads)) else float(np.nanmean(spreads))


def tiles_in_boxes(boxes: Sequence[tuple[float, float, float, float]], grid: int = TILE_GRID) -> list[int]:
    """Indices of the tiles whose centre lies inside any of the (x, y, w, h) boxes (0-1 of the frame)."""
    out = []
    for tile in range(grid * grid):
        cy, cx = ((tile // grid) + 0.5) / grid, ((tile % grid) + 0.5) / grid
        if any(x <= cx <= x + bw and y <= cy <= y + bh for x, y, bw, bh in boxes):
            out.append(tile)
    return out


def measure_spread(
    grey: np.ndarray,
    tile_detail: np.ndarray,
    noise_sigma: float,
    faces: Sequence[tuple[float, float, float, float]] = (),
) -> dict[str, float]:
    """Subject edge spread, motion-blur anisotropy on the subject and in the background, and where
    the subject is; `tile_detail` is each tile's noise-corrected Laplacian variance (row-major).

    Keys: "spread" (subject, 2 crisp .. 4 spread), "anisotropy" (subject: worst minus best
    direction), "background" (the same on the other detailed tiles, when they agree on one
    direction, else 0), "x", "y" (the subject's centre, 0-1).
    """
    order = np.argsort(tile_detail)[::-1][:CANDIDATE_TILES]
    face_tiles = set(tiles_in_boxes(faces))
    wanted = [int(t) for t in order if tile_detail[t] > 0] + [t for t in face_tiles if t not in set(order)]
    spreads = [s for s in (tile_spread(grey, t, noise_sigma) for t in wanted) if not all(np.isnan(s.spread))]
    if not spreads:
        return {"spread": float("nan"), "anisotropy": 0.0, "background": 0.0, "x": 0.5, "y": 0.5}
    on_face = [s for s in spreads if s.index in face_tiles]
    subject = on_face or sorted(spreads, key=lambda s: s.worst)[:SUBJECT_TILES]
    others = [s for s in spreads if s not in subject]
    grid = TILE_GRID
    return {
        "spread": float(np.median([np.nanmean(s.spread) for s in subject])),
        "anisotropy": float(np.median([s.worst - s.best for s in subject])),
        "background": _agreeing_anisotropy(others),
        "x": float(np.mean([(s.index % grid + 0.5) / grid for s in subject])),
        "y": float(np.mean([(s.index // grid + 0.5) / grid for s in subject])),
    }


def _agreeing_anisotropy(tiles: Sequence[TileSpread]) -> float:
    """Median anisotropy of the tiles when at least two thirds of them are spread most in one
    direction (a streaked background), else 0."""
    if len(tiles) < 4:
        return 0.0
    directions = [t.direction for t in tiles]
    common = max(set(directions), key=directions.count)
    agreeing = [t for t in tiles if t.direction == common]
    if len(agreeing) < 2 * len(tiles) / 3:
        return 0.0
    return float(np.median([t.worst - t.best for t in agreeing]))
