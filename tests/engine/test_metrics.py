"""Agreement metrics against hand-computed values and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from aesthete_gui.engine.metrics import (
    ccc,
    kendall_tau,
    kendalls_w,
    mae,
    pairwise_accuracy,
    plcc,
    preference_accuracy,
    set_orderings,
    srcc,
    strict_set_accuracy,
    top1_accuracy,
)


def test_correlations_match_scipy_and_handle_constants() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=30), rng.normal(size=30)
    assert srcc(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert plcc(x, y) == pytest.approx(stats.pearsonr(x, y).statistic)
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    assert srcc([1, 2, 3], [3, 3, 3]) == 0.0
    assert plcc([1, 1, 1], [1, 2, 3]) == 0.0
    assert kendall_tau([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="equal length"):
        srcc([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="two items"):
        srcc([1], [1])


def test_mae_and_ccc() -> None:
    assert mae([1, 2, 3], [2, 2, 5]) == pytest.approx(1.0)
    assert ccc([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    # A constant shift keeps Pearson at 1 but lowers CCC: 2·(2/3) / (2/3 + 2/3 + 1) = 4/7.
    assert ccc([1, 2, 3], [2, 3, 4]) == pytest.approx(4 / 7)
    assert ccc([2, 2], [2, 2]) == 1.0


def test_pairwise_and_preference_accuracy() -> None:
    assert pairwise_accuracy([1, 2, 3], [1, 2, 3]) == 1.0
    assert pairwise_accuracy([3, 2, 1], [1, 2, 3]) == 0.0
    # Pairs (0,1) tied in prediction -> 1/2; (0,2), (1,2) right.
    assert pairwise_accuracy([1, 1, 3], [1, 2, 3]) == pytest.approx(2.5 / 3)
    with pytest.raises(ValueError, match="no ordered pairs"):
        pairwise_accuracy([1, 2], [5, 5])
    scores = [3.0, 1.0, 2.0]
    assert preference_accuracy(scores, [0, 1, 2], [1, 2, 0], [1.0, 1.0, 0.5]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="non-tie"):
        preference_accuracy(scores, [0], [1], [0.5])


def test_top1_accuracy_per_group() -> None:
    predicted = [0.9, 0.1, 0.5, 0.2, 0.8, 0.1]
    truth = [5, 1, 2, 1, 2, 3]
    assert top1_accuracy(predicted, truth, groups=["a", "a", "b", "b", "c", "c"]) == pytest.approx(2 / 3)
    assert top1_accuracy(predicted, truth) == 1.0


def test_kendalls_w() -> None:
    assert kendalls_w([[1, 2, 3, 4], [1, 2, 3, 4], [10, 20, 30, 40]]) == pytest.approx(1.0)
    assert kendalls_w([[1, 2, 3], [3, 2, 1]]) == pytest.approx(0.0)
    # Two raters, 3 items: ranks 1, 2.5, 2.5, rank sums 2, 4.5, 5.5 -> S = 6.5;
    # W = 12·6.5 / (4·24 − 2·(2³ − 2)) = 78/84.
    assert kendalls_w([[1, 2, 3], [1, 3, 3]]) == pytest.approx(78 / 84)
    with pytest.raises(ValueError, match="raters"):
        kendalls_w([[1, 2, 3]])


def test_strict_set_accuracy_needs_every_ordering_right() -> None:
    truths = [("a", "c"), ("x", "z")]
    answers = [[("a", "c"), ("a", "c"), ("a", "c")], [("x", "z"), ("y", "z"), ("x", "z")]]
    assert strict_set_accuracy(answers, truths) == 0.5
    assert strict_set_accuracy([[]], [("a", "b")]) == 0.0
    with pytest.raises(ValueError, match="one list"):
        strict_set_accuracy([], truths)


def test_set_orderings_are_distinct_permutations() -> None:
    orders = set_orderings(4, count=3, seed=2)
    assert len(set(orders)) == 3
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders)
    assert len(set_orderings(2, count=3)) == 2
