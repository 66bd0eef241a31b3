"""The colour-closest frames of each frame without a capture time, found through an index instead of
comparing every pair.

A colour signature (imaging.crop_match.signature) is two normalised histograms side by side; the
likeness of two signatures is their histogram intersection, sum(min(a, b)). Comparing every pair
grows with the square of the library (45 minutes a grouping at 50,000 frames). Instead the
signatures are projected onto their 12 main axes (a principal-component basis computed from the
library itself) and a k-d tree hands out each frame's nearest frames in that space; only those are
compared exactly, and the most alike of them that pass the filters are the candidates. Signatures
that are alike are near in the projection, so the candidates are nearly always the ones comparing
every pair would find (`exhaustive_candidates`, kept for the tests and the benchmark, which measure
the agreement); a library of at most 2 x FETCH frames is simply compared in full.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.spatial import cKDTree

from aesthete_gui.imaging.crop_match import MIN_CONTAINMENT, containment

FETCH = 128
"""Nearest frames (in the projection) compared exactly with each frame."""
WIDER_FETCH = 512
"""Fetched instead when fewer than the wanted number of those passed the filters."""
AXES = 12
"""Principal axes the signatures are projected onto."""
_BASIS_SAMPLE = 5000
"""At most this many signatures (evenly spread) fit the basis."""

Admissible = Callable[[int, int], bool]
"""(frame index, candidate index) -> whether the candidate may be counted (compatible, another group)."""


def _order(likeness: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Indices into `positions` by likeness, most alike first, ties by position."""
    return np.lexsort((positions, -likeness))


class SignatureIndex:
    """Signatures of n frames (rows of `histograms`) and a k-d tree over their main axes."""

    def __init__(self, histograms: np.ndarray) -> None:
        self.histograms = np.ascontiguousarray(histograms, dtype=np.float32)
        self._tree: cKDTree | None = None
        self._projected = np.zeros((len(self.histograms), 0))
        if len(self.histograms) > 2 * FETCH:
            values = self.histograms.astype(np.float64)
            centre = values.mean(axis=0)
            sample = values[:: max(1, len(values) // _BASIS_SAMPLE)] - centre
            _, _, axes = np.linalg.svd(sample, full_matrices=False)
            self._projected = (values - centre) @ axes[:AXES].T
            self._tree = cKDTree(self._projected)
        self.fetched = 0
        """Frames whose exact likeness was computed (a measure of the work saved)."""

    def __len__(self) -> int:
        return len(self.histograms)

    def _measure(self, p: int, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact likeness and the either-way containment test of frame p against `positions`."""
        self.fetched += len(positions)
        others = self.histograms[positions]
        mine = np.broadcast_to(self.histograms[p], others.shape)
        fits = np.maximum(containment(mine, others), containment(others, mine)) >= MIN_CONTAINMENT
        likeness = np.minimum(mine, others).sum(axis=1)
        return likeness, fits & (positions != p)

    def nearest(self, frames: Sequence[int], fetch: int) -> np.ndarray:
        """Positions of each frame's `fetch` nearest frames in the projection (one query for all)."""
        if self._tree is None:
            raise ValueError("a library this small has no index: compare every frame instead")
        _, found = self._tree.query(self._projected[list(frames)], k=fetch, workers=-1)
        return np.asarray(found, dtype=np.int64).reshape(len(frames), fetch)

    def pick(self, p: int, positions: np.ndarray, count: int, admissible: Admissible) -> list[int]:
        """The `count` (or fewer) most alike admissible frames among `positions` that could nest with p."""
        likeness, fits = self._measure(p, positions)
        chosen: list[int] = []
        for k in _order(likeness, positions):
            if len(chosen) == count:
                break
            q = int(positions[k])
            if fits[k] and admissible(p, q):
                chosen.append(q)
        return chosen

    def closest_many(self, frames: Sequence[int], count: int, admissible: Admissible) -> list[list[int]]:
        """For each of `frames` (frame p), the `count` most alike frames q (by likeness, ties by index)
        that could nest with p (one's histograms fit inside the other's) and that `admissible(p, q)`
        accepts; the tree is queried for all of them at once."""
        n = len(self)
        if self._tree is None:  # a small library: compare everything
            everything = np.arange(n)
            return [self.pick(p, everything, count, admissible) for p in frames]
        found: list[list[int]] = []
        short: list[int] = []
        for row, (p, positions) in enumerate(zip(frames, self.nearest(frames, FETCH), strict=True)):
            found.append(self.pick(p, positions, count, admissible))
            if len(found[-1]) < count:
                short.append(row)
        if short:  # most near frames were filtered out (one group, another camera): look further
            wider = min(n, WIDER_FETCH)
            for row, positions in zip(short, self.nearest([frames[r] for r in short], wider), strict=True):
                found[row] = self.pick(frames[row], positions, count, admissible)
        return found


def exhaustive_candidates(index: SignatureIndex, p: int, count: int, admissible: Admissible) -> list[int]:
    """SignatureIndex.closest_many for frame p by comparing it with every frame (the reference it
    must equal)."""
    return index.pick(p, np.arange(len(index)), count, admissible)


def candidate_pairs(
    index: SignatureIndex, frames: Sequence[int], count: int, admissible: Admissible, exhaustive: bool = False
) -> list[tuple[int, int]]:
    """For each of `frames` (positions in the index), its `count` closest admissible frames, as
    (low, high) position pairs without repeats, in the order found."""
    seen: set[tuple[int, int]] = set()
    out = []
    if exhaustive:
        lists = [exhaustive_candidates(index, p, count, admissible) for p in frames]
    else:
        lists = index.closest_many(frames, count, admissible)
    for p, found in zip(frames, lists, strict=True):
        for q in found:
            pair = (min(p, q), max(p, q))
            if pair not in seen:
                seen.add(pair)
                out.append(pair)
    return out
