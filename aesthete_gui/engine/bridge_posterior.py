"""The bridge's posterior machinery: pool rating spreads, grid posteriors of the other items, and
their updates from parsed outcomes against rated references (each one counted as evidence)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aesthete_gui.engine.elo import ELO_SCALE
from aesthete_gui.engine.judgments import PairwiseJudgment

GRID_POINTS = 321
LOG10 = np.log(10.0)


def pool_fisher_spread(ratings: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Laplace spread of each pool rating from the Elo likelihood's Fisher information."""
    if first.size == 0:
        return np.full(ratings.size, np.inf)
    expected = 1.0 / (1.0 + np.power(10.0, (ratings[second] - ratings[first]) / ELO_SCALE))
    slope = LOG10 / ELO_SCALE
    information = expected * (1.0 - expected) * slope**2
    total = np.bincount(first, information, ratings.size) + np.bincount(
        second, information, ratings.size
    )
    with np.errstate(divide="ignore"):
        return 1.0 / np.sqrt(total)


class GridPosterior:
    """Grid posteriors of many items' latents on one dimension against frozen pool ratings."""

    def __init__(self, count: int, pool_ratings: np.ndarray) -> None:
        centre = float(np.mean(pool_ratings))
        spread = float(np.std(pool_ratings))
        spread = spread if spread > 1e-6 else ELO_SCALE / 4.0
        low = float(np.min(pool_ratings)) - 2.0 * spread
        high = float(np.max(pool_ratings)) + 2.0 * spread
        self.grid = np.linspace(low, high, GRID_POINTS)
        prior = -0.5 * ((self.grid - centre) / spread) ** 2
        self.log_post = np.tile(prior, (count, 1))

    def update(self, rows: np.ndarray, reference_ratings: np.ndarray, outcome: np.ndarray) -> None:
        """Add outcomes (item's view: 1 win, 0.5 tie, 0 loss) against the given reference ratings."""
        exponent = (reference_ratings[:, None] - self.grid[None, :]) * (LOG10 / ELO_SCALE)
        log_win = -np.logaddexp(0.0, exponent)
        log_loss = -np.logaddexp(0.0, -exponent)
        self.log_post[rows] += outcome[:, None] * log_win + (1.0 - outcome[:, None]) * log_loss

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior means and standard deviations."""
        weights = np.exp(self.log_post - self.log_post.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        mean = weights @ self.grid
        variance = weights @ self.grid**2 - mean**2
        return mean, np.sqrt(np.maximum(variance, 0.0))


def rated_or_all(ratings: np.ndarray, rated: np.ndarray) -> np.ndarray:
    """The rated pool items' ratings (the prior's centre and spread); all of them when none is."""
    return ratings[rated] if rated.any() else ratings


def update_posteriors(
    posteriors: Sequence[GridPosterior],
    dimensions: Sequence[str],
    rows: np.ndarray,
    records: Sequence[PairwiseJudgment],
    others: Sequence[str],
    pool_index: dict[str, int],
    pool_ratings: np.ndarray,
    rated: np.ndarray,
    evidence: np.ndarray,
) -> None:
    """Add each parsed outcome against a reference rated on that dimension; count it as evidence."""
    for column, dimension in enumerate(dimensions):
        keep_rows: list[int] = []
        references: list[int] = []
        outcome: list[float] = []
        for row, record in zip(rows.tolist(), records, strict=True):
            if not record.parsed:
                continue
            value = record.score_for_first(dimension)
            if value is None:
                continue
            item = others[row]
            reference = record.second if record.first == item else record.first
            if not rated[pool_index[reference], column]:
                continue
            evidence[row, column] += 1
            keep_rows.append(row)
            references.append(pool_index[reference])
            outcome.append(value if record.first == item else 1.0 - value)
        if keep_rows:
            posteriors[column].update(
                np.asarray(keep_rows),
                pool_ratings[np.asarray(references), column],
                np.asarray(outcome),
            )
