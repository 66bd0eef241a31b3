"""Elo and anchored Elo ratings over pairwise outcomes (docs/method.md §5, hyperparameters of seed 000 table 11).

Comparisons are given as three parallel arrays: `first` and `second` item indices and `score`, the
outcome from the first item's point of view (1 win, 0.5 tie, 0 loss).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from aesthete_gui.engine.dimensions import SCORE_MID

ELO_SCALE = 400.0


@dataclass(frozen=True)
class EloParams:
    """Anchored Elo hyperparameters; the defaults are docs/method.md §5's."""

    initial: float = 1500.0
    k: float = 32.0
    k_anchor: float = 6.0
    decay: float = 0.995
    passes: int = 150
    seed: int = 42
    anchor_pull: float = 0.15
    level_gap: float = 400.0


@dataclass(frozen=True)
class Comparisons:
    """Pairwise outcomes as index arrays over `items` (score from the first item's side)."""

    items: tuple[Hashable, ...]
    first: np.ndarray
    second: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return int(self.first.size)

    @property
    def n_items(self) -> int:
        """Number of distinct items."""
        return len(self.items)

    def index(self) -> dict[Hashable, int]:
        """Item -> position in `items`."""
        return {item: i for i, item in enumerate(self.items)}


def index_comparisons(
    rows: Iterable[tuple[Hashable, Hashable, float]], items: Sequence[Hashable] | None = None
) -> Comparisons:
    """Turn (a, b, score-for-a) rows into index arrays; items keep first-seen order unless given."""
    order: dict[Hashable, int] = {}
    if items is not None:
        for item in items:
            order.setdefault(item, len(order))
    first: list[int] = []
    second: list[int] = []
    score: list[float] = []
    for a, b, value in rows:
        if a == b:
            raise ValueError(f"an item cannot be compared with itself: {a!r}")
        if value not in (0.0, 0.5, 1.0):
            raise ValueError(f"outcome score must be 0, 0.5 or 1, got {value!r}")
        first.append(order.setdefault(a, len(order)))
        second.append(order.setdefault(b, len(order)))
        score.append(float(value))
    return Comparisons(
        items=tuple(order),
        first=np.asarray(first, dtype=np.int64),
        second=np.asarray(second, dtype=np.int64),
        score=np.asarray(score, dtype=float),
    )


def expected_score(rating: float | np.ndarray, opponent: float | np.ndarray) -> float | np.ndarray:
    """Elo expectation E = 1 / (1 + 10^((q_opponent − q) / 400))."""
    return 1.0 / (1.0 + np.power(10.0, (np.asarray(opponent) - np.asarray(rating)) / ELO_SCALE))


def anchor_targets(
    anchor_scores: Mapping[int, float], params: EloParams = EloParams()
) -> dict[int, float]:
    """Level-mapped Elo targets: initial + gap·(s̄ − 3), so adjacent levels sit `level_gap` apart."""
    return {
        index: params.initial + params.level_gap * (float(score) - SCORE_MID)
        for index, score in anchor_scores.items()
    }


def elo_ratings(
    n_items: int,
    first: Sequence[int] | np.ndarray,
    second: Sequence[int] | np.ndarray,
    score: Sequence[float] | np.ndarray,
    params: EloParams = EloParams(),
    anchor_scores: Mapping[int, float] | None = None,
) -> np.ndarray:
    """Ratings after `passes` shuffled passes of Elo updates; anchors (index -> mean 1..5 rating) are
    updated with the smaller step K_a and pulled toward their level-mapped targets after each pass."""
    first_list = [int(v) for v in np.asarray(first, dtype=np.int64)]
    second_list = [int(v) for v in np.asarray(second, dtype=np.int64)]
    score_list = [float(v) for v in np.asarray(score, dtype=float)]
    if not len(first_list) == len(second_list) == len(score_list):
        raise ValueError("first, second and score must have the same length")
    for i, j in zip(first_list, second_list, strict=True):
        if not (0 <= i < n_items and 0 <= j < n_items) or i == j:
            raise ValueError(f"bad comparison indices ({i}, {j}) for {n_items} items")
    ratings = [params.initial] * n_items
    targets = anchor_targets(anchor_scores or {}, params)
    for index in targets:
        if not 0 <= index < n_items:
            raise ValueError(f"anchor index {index} out of range for {n_items} items")
    is_anchor = [False] * n_items
    for index in targets:
        is_anchor[index] = True
    pair_has_anchor = [is_anchor[i] or is_anchor[j] for i, j in zip(first_list, second_list, strict=True)]
    rng = np.random.default_rng(params.seed)
    m = len(first_list)
    for pass_index in range(params.passes):
        step = params.k * params.decay**pass_index
        step_anchor = params.k_anchor * params.decay**pass_index
        for position in rng.permutation(m).tolist():
            i = first_list[position]
            j = second_list[position]
            expected = 1.0 / (1.0 + 10.0 ** ((ratings[j] - ratings[i]) / ELO_SCALE))
            k = step_anchor if pair_has_anchor[position] else step
            delta = k * (score_list[position] - expected)
            ratings[i] += delta
            ratings[j] -= delta
        for index, target in targets.items():
            ratings[index] += params.anchor_pull * (target - ratings[index])
    return np.asarray(ratings, dtype=float)
