"""Agreement metrics: SRCC, PLCC, Kendall τ, pairwise / top-1 accuracy, MAE, CCC, Kendall's W, set selection."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from scipy import stats


def _pair(predicted: Sequence[float] | np.ndarray, truth: Sequence[float] | np.ndarray):
    x = np.asarray(predicted, dtype=float)
    y = np.asarray(truth, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("predicted and truth must be 1-D sequences of equal length")
    if x.size < 2:
        raise ValueError("need at least two items")
    return x, y


def _correlation(value: float) -> float:
    # A constant input has no defined correlation; report 0 (no agreement) rather than NaN.
    return 0.0 if not np.isfinite(value) else float(value)


def srcc(predicted: Sequence[float] | np.ndarray, truth: Sequence[float] | np.ndarray) -> float:
    """Spearman rank correlation (0 when either side is constant)."""
    x, y = _pair(predicted, truth)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return _correlation(stats.spearmanr(x, y).statistic)


def plcc(predicted: Sequence[float] | np.ndarray, truth: Sequence[float] | np.ndarray) -> float:
    """Pearson linear correlation (0 when either side is constant)."""
    x, y = _pair(predicted, truth)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return _correlation(stats.pearsonr(x, y).statistic)


def kendall_tau(predicted: Sequence[float] | np.ndarray, truth: Sequence[float] | np.ndarray) -> float:
    """Kendall's τ-b (0 when either side is constant)."""
    x, y = _pair(predicted, truth)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return _correlation(stats.kendalltau(x, y).statistic)


def mae(predicted: Sequence[float] | np.ndarray, truth: Sequence[float] | np.ndarray) -> float:
    """Mean absolute error."""
    x, y = _pair(predicted, truth)
    return float(np.mean(np.abs(x - y)))


def ccc(predicted: Sequence[float] | np.ndarray, truth: Sequence[float] | np.ndarray) -> float:
    """Lin's concordance correlation coefficient (penalises shifts and scale changes too)."""
    x, y = _pair(predicted, truth)
    denominator = x.var() + y.var() + (x.mean() - y.mean()) ** 2
    if denominator == 0:
        return 1.0
    covariance = np.mean((x - x.mean()) * (y - y.mean()))
    return float(2.0 * covariance / denominator)


def pairwise_accuracy(
    predicted: Sequence[float] | np.ndarray, truth: Sequence[float] | np.ndarray
) -> float:
    """Share of item pairs ordered differently in `truth` that `predicted` orders the same way
    (a predicted tie counts one half)."""
    x, y = _pair(predicted, truth)
    i, j = np.triu_indices(x.size, k=1)
    truth_sign = np.sign(y[i] - y[j])
    keep = truth_sign != 0
    if not np.any(keep):
        raise ValueError("truth has no ordered pairs")
    predicted_sign = np.sign(x[i] - x[j])[keep]
    agreement = np.where(predicted_sign == 0, 0.5, (predicted_sign == truth_sign[keep]).astype(float))
    return float(np.mean(agreement))


def preference_accuracy(
    scores: Sequence[float] | np.ndarray,
    first: Sequence[int] | np.ndarray,
    second: Sequence[int] | np.ndarray,
    outcome: Sequence[float] | np.ndarray,
) -> float:
    """Share of observed non-tie preferences (outcome 1 = first preferred, 0 = second) that the
    scores predict (equal scores count one half); ties in the data are skipped."""
    s = np.asarray(scores, dtype=float)
    f = np.asarray(first, dtype=np.int64)
    g = np.asarray(second, dtype=np.int64)
    o = np.asarray(outcome, dtype=float)
    decided = o != 0.5
    if not np.any(decided):
        raise ValueError("no decided (non-tie) preferences")
    difference = (s[f] - s[g])[decided]
    wanted = np.where(o[decided] == 1.0, 1.0, -1.0)
    hits = np.where(difference == 0, 0.5, (np.sign(difference) == wanted).astype(float))
    return float(np.mean(hits))


def top1_accuracy(
    predicted: Sequence[float] | np.ndarray,
    truth: Sequence[float] | np.ndarray,
    groups: Sequence[Hashable] | None = None,
) -> float:
    """Share of groups (e.g. scenes) whose top predicted item is a top item of the truth."""
    x = np.asarray(predicted, dtype=float)
    y = np.asarray(truth, dtype=float)
    if x.shape != y.shape or x.size == 0:
        raise ValueError("predicted and truth must be non-empty and of equal length")
    labels = np.zeros(x.size, dtype=np.int64) if groups is None else np.unique(
        np.asarray(groups, dtype=object), return_inverse=True
    )[1]
    hits = []
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        best = members[np.argmax(x[members])]
        hits.append(y[best] == y[members].max())
    return float(np.mean(hits))


def kendalls_w(ratings: Sequence[Sequence[float]] | np.ndarray) -> float:
    """Kendall's coefficient of concordance for a raters × items matrix, with the tie correction."""
    matrix = np.asarray(ratings, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise ValueError("need a raters × items matrix with at least 2 raters and 2 items")
    raters, items = matrix.shape
    ranks = np.vstack([stats.rankdata(row) for row in matrix])
    totals = ranks.sum(axis=0)
    spread = float(np.sum((totals - totals.mean()) ** 2))
    tie_correction = 0.0
    for row in matrix:
        _, counts = np.unique(row, return_counts=True)
        tie_correction += float(np.sum(counts**3 - counts))
    denominator = raters**2 * (items**3 - items) - raters * tie_correction
    if denominator <= 0:
        return 1.0
    return 12.0 * spread / denominator


def set_orderings(size: int, count: int = 3, seed: int = 0) -> list[tuple[int, ...]]:
    """`count` distinct random orderings of positions 0..size-1 (fewer when size! is smaller)."""
    if size < 1:
        raise ValueError("a set needs at least one item")
    rng = np.random.default_rng(seed)
    distinct = int(np.prod(np.arange(1, size + 1))) if size < 13 else count
    wanted = min(count, distinct)
    seen: list[tuple[int, ...]] = []
    while len(seen) < wanted:
        order = tuple(int(v) for v in rng.permutation(size))
        if order not in seen:
            seen.append(order)
    return seen


def strict_set_accuracy(
    answers: Sequence[Sequence[tuple[Hashable | None, Hashable | None]]],
    truths: Sequence[tuple[Hashable, Hashable]],
) -> float:
    """docs/method.md §3's strict set-selection metric: share of tasks where (best, worst) is right under every
    ordering the task was shown in. `answers[t]` holds one (best, worst) per ordering of task t."""
    if len(answers) != len(truths):
        raise ValueError("one list of answers per task is needed")
    if not truths:
        raise ValueError("no tasks")
    solved = 0
    for per_ordering, (best, worst) in zip(answers, truths, strict=True):
        if per_ordering and all(answer == (best, worst) for answer in per_ordering):
            solved += 1
    return solved / len(truths)
