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


class ThurstoneJudge:
    """A scripted pairwise judge: Thurstone noise, a tie band, a bias toward the item shown first,
    and an optional share of unparsable replies. Items are named "item-<index>"."""

    judge_id = "thurstone-test"

    def __init__(
        self,
        latent: np.ndarray,
        noise: float = 0.5,
        tie_band: float = 0.1,
        first_bias: float = 0.1,
        unparsed_share: float = 0.0,
        seed: int = 0,
    ) -> None:
        from aesthete_gui.engine.dimensions import DIMENSIONS

        self.latent = np.asarray(latent, dtype=float).reshape(len(latent), -1)
        self.dimensions = DIMENSIONS[-self.latent.shape[1] :] if self.latent.shape[1] < 5 else DIMENSIONS
        self.noise = noise
        self.tie_band = tie_band
        self.first_bias = first_bias
        self.unparsed_share = unparsed_share
        self.rng = np.random.default_rng(seed)
        self.batches: list[int] = []

    def judge_pairs(self, pairs, progress=None, cancel=None):
        from aesthete_gui.engine.judgments import PairwiseJudgment

        self.batches.append(len(pairs))
        first = np.array([int(a.split("-")[1]) for a, _ in pairs])
        second = np.array([int(b.split("-")[1]) for _, b in pairs])
        noise = self.noise * self.rng.normal(size=(len(pairs), self.latent.shape[1]))
        difference = self.latent[first] - self.latent[second] + self.first_bias + noise
        labels = np.where(difference > self.tie_band, "A", np.where(difference < -self.tie_band, "B", "TIE"))
        unparsed = self.rng.random(len(pairs)) < self.unparsed_share
        records = []
        for (a, b), row, bad in zip(pairs, labels.tolist(), unparsed.tolist(), strict=True):
            if bad:
                records.append(PairwiseJudgment(a, b, parsed=False, raw="I cannot decide.", judge_id=self.judge_id))
            else:
                outcome = dict(zip(self.dimensions, row, strict=True))
                records.append(PairwiseJudgment(a, b, outcome=outcome, judge_id=self.judge_id))
        return records

    @property
    def calls(self) -> int:
        return sum(self.batches)


def item_names(count: int) -> list[str]:
    """Names the scripted judge understands."""
    return [f"item-{i}" for i in range(count)]
