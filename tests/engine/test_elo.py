"""Elo and anchored Elo: expectations, invariants (hypothesis) and anchoring behaviour."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aesthete_gui.engine.elo import (
    EloParams,
    anchor_targets,
    elo_ratings,
    expected_score,
    index_comparisons,
)
from aesthete_gui.engine.metrics import srcc

from .conftest import simulate_outcomes

FAST = EloParams(passes=20)


@st.composite
def comparison_data(draw: st.DrawFn) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(min_value=2, max_value=8))
    m = draw(st.integers(min_value=1, max_value=30))
    first = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)))
    offset = np.array(draw(st.lists(st.integers(1, n - 1), min_size=m, max_size=m)))
    score = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=m, max_size=m)))
    return n, first, (first + offset) % n, score


def test_expected_score_follows_the_400_point_scale() -> None:
    assert expected_score(1500, 1500) == pytest.approx(0.5)
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500, 1900) == pytest.approx(1 / 11)


def test_elo_recovers_a_clear_order() -> None:
    latent = np.linspace(-2, 2, 30)
    first, second, score = simulate_outcomes(latent, 900, seed=1, noise=0.5)
    ratings = elo_ratings(30, first, second, score)
    assert srcc(ratings, latent) > 0.95
    # Updates are zero-sum, so the mean stays at the initial rating.
    assert ratings.mean() == pytest.approx(1500.0)


@settings(max_examples=40, deadline=None)
@given(comparison_data(), st.randoms(use_true_random=False))
def test_relabeling_items_permutes_ratings(data, random) -> None:
    n, first, second, score = data
    permutation = np.array(random.sample(range(n), n))
    original = elo_ratings(n, first, second, score, FAST)
    relabeled = elo_ratings(n, permutation[first], permutation[second], score, FAST)
    np.testing.assert_allclose(relabeled[permutation], original, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(comparison_data())
def test_swapping_a_and_b_with_flipped_outcomes_changes_nothing(data) -> None:
    n, first, second, score = data
    original = elo_ratings(n, first, second, score, FAST)
    swapped = elo_ratings(n, second, first, 1.0 - score, FAST)
    np.testing.assert_allclose(swapped, original, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(comparison_data())
def test_a_dominated_item_ends_lowest(data) -> None:
    n, first, second, score = data
    newcomer = n
    extra_first = np.concatenate([first, np.arange(n)])
    extra_second = np.concatenate([second, np.full(n, newcomer)])
    extra_score = np.concatenate([score, np.ones(n)])
    ratings = elo_ratings(n + 1, extra_first, extra_second, extra_score, FAST)
    assert ratings[newcomer] == ratings.min()
    assert ratings[newcomer] < 1500.0


def test_anchors_pull_toward_level_targets() -> None:
    params = EloParams()
    assert anchor_targets({0: 2.0, 1: 3.0, 2: 4.0}, params) == {0: 1100.0, 1: 1500.0, 2: 1900.0}
    latent = np.linspace(-1, 1, 20)
    first, second, score = simulate_outcomes(latent, 300, seed=3)
    plain = elo_ratings(20, first, second, score, params)
    anchored = elo_ratings(20, first, second, score, params, anchor_scores={0: 2.0, 10: 3.0, 19: 4.0})
    assert abs(anchored[19] - 1900.0) < abs(plain[19] - 1900.0)
    assert anchored[0] < anchored[10] < anchored[19]


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="bad comparison"):
        elo_ratings(2, [0], [0], [1.0])
    with pytest.raises(ValueError, match="same length"):
        elo_ratings(3, [0, 1], [1], [1.0])
    with pytest.raises(ValueError, match="anchor index"):
        elo_ratings(2, [0], [1], [1.0], anchor_scores={5: 3.0})


def test_index_comparisons_keeps_first_seen_order_and_checks_rows() -> None:
    comparisons = index_comparisons([("x", "y", 1.0), ("z", "x", 0.5)])
    assert comparisons.items == ("x", "y", "z")
    assert comparisons.first.tolist() == [0, 2]
    assert comparisons.second.tolist() == [1, 0]
    assert comparisons.score.tolist() == [1.0, 0.5]
    assert len(comparisons) == 2
    with pytest.raises(ValueError, match="itself"):
        index_comparisons([("x", "x", 1.0)])
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        index_comparisons([("x", "y", 2.0)])
