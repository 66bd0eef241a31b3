"""Reference choosers of the bridge's stage 2: random (the paper) or adaptive (most informative)."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class ReferenceChooser(Protocol):
    """Chooses the next pool reference for each remaining item (one per item per round)."""

    name: str

    def choose(
        self,
        estimates: np.ndarray,
        spreads: np.ndarray,
        pool_ratings: np.ndarray,
        slopes: np.ndarray,
        used: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Pool positions, one per row. estimates and spreads (m, D) are the items' posterior means
        and standard deviations, pool_ratings (N, D) the frozen ratings, all standardised per
        dimension by the pool's spread; slopes (D,) is the Elo logistic slope on that scale;
        used (m, N) marks references each item has already been compared with."""
        ...


class RandomReferences:
    """The paper's choice: references drawn uniformly without replacement."""

    name = "random"

    def choose(
        self,
        estimates: np.ndarray,
        spreads: np.ndarray,
        pool_ratings: np.ndarray,
        slopes: np.ndarray,
        used: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """A uniformly random unused pool position per item."""
        keys = rng.random(used.shape)
        keys[used] = np.inf
        return np.argmin(keys, axis=1)


class AdaptiveReferences:
    """The unused pool item expected to shrink the item's posterior variance most, summed over the
    dimensions: with one dimension this is the reference nearest the current estimate (a 50/50
    comparison is the most informative); with five it trades the dimensions off by how uncertain
    each still is."""

    name = "adaptive"

    def choose(
        self,
        estimates: np.ndarray,
        spreads: np.ndarray,
        pool_ratings: np.ndarray,
        slopes: np.ndarray,
        used: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """The most informative unused pool position per item."""
        variance = spreads**2  # (m, D)
        # Logistic slope widened by the estimate's own uncertainty (probit approximation).
        slope = slopes[None, :] / np.sqrt(1.0 + np.pi * slopes[None, :] ** 2 * variance / 8.0)
        gap = estimates[:, None, :] - pool_ratings[None, :, :]  # (m, N, D)
        p_win = 1.0 / (1.0 + np.exp(-slope[:, None, :] * gap))
        information = p_win * (1.0 - p_win) * slope[:, None, :] ** 2
        reduction = (
            variance[:, None, :] ** 2 * information / (1.0 + variance[:, None, :] * information)
        )
        gain = reduction.sum(axis=2)
        # A tiny random jitter breaks exact ties without favouring low pool positions.
        gain = gain + 1e-12 * rng.random(gain.shape)
        gain[used] = -np.inf
        return np.argmax(gain, axis=1)


def reference_chooser(choice: str | ReferenceChooser) -> ReferenceChooser:
    """The chooser for "random" or "adaptive", or `choice` itself when it is already one."""
    if not isinstance(choice, str):
        return choice
    if choice == "random":
        return RandomReferences()
    if choice == "adaptive":
        return AdaptiveReferences()
    raise ValueError(f"unknown reference choice {choice!r}; expected 'random' or 'adaptive'")
