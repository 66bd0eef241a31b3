"""Shared simulated data for the engine tests."""

from __future__ import annotations

import numpy as np


def simulate_outcomes(
    latent: np.ndarray, n_pairs: int, seed: int, noise: float = 1.0, tie_band: float = 0.3
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random distinct pairs judged by a Thurstone observer with a tie band; score from first's side."""
    rng = np.random.default_rng(seed)
    n = latent.size
    first = rng.integers(0, n, n_pairs)
    second = (first + rng.integers(1, n, n_pairs)) % n
    difference = latent[first] - latent[second] + noise * rng.normal(size=n_pairs)
    score = np.where(difference > tie_band, 1.0, np.where(difference < -tie_band, 0.0, 0.5))
    return first, second, score
