"""Davidson–Bradley–Terry: agreement with independent fits, invariants, anchors, and Elo cross-check."""

from __future__ import annotations

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import approx_fprime, minimize

from aesthete_gui.engine.bradley_terry import (
    DEFAULT_RIDGE,
    davidson_objective,
    davidson_probabilities,
    fit_davidson,
)
from aesthete_gui.engine.calibration import fit_anchor_calibration
from aesthete_gui.engine.elo import EloParams, elo_ratings
from aesthete_gui.engine.metrics import srcc

from .conftest import simulate_outcomes


def _reference_davidson(n, first, second, score, ridge):
    """A direct, independent Davidson MAP: explicit probabilities, numerical gradients, BFGS."""

    def negative_log_posterior(x):
        q, nu = x[:n], np.exp(x[n])
        wi, wj, tie = np.exp(q[first]), np.exp(q[second]), nu * np.exp((q[first] + q[second]) / 2)
        total = wi + wj + tie
        p = np.where(score == 1.0, wi / total, np.where(score == 0.0, wj / total, tie / total))
        return -np.sum(np.log(p)) + ridge * np.sum(q**2)

    result = minimize(negative_log_posterior, np.zeros(n + 1), method="BFGS", options={"gtol": 1e-9})
    return result.x[:n], float(np.exp(result.x[n]))


def test_davidson_matches_direct_scipy_optimisation_with_ties() -> None:
    rng = np.random.default_rng(7)
    latent = rng.normal(size=12)
    first, second, score = simulate_outcomes(latent, 240, seed=8, tie_band=0.4)
    assert np.any(score == 0.5)
    fit = fit_davidson(12, first, second, score)
    reference_q, reference_nu = _reference_davidson(12, first, second, score, DEFAULT_RIDGE)
    np.testing.assert_allclose(fit.latent, reference_q, atol=1e-3)
    assert fit.tie_strength == pytest.approx(reference_nu, abs=1e-3)
    assert fit.converged


def test_plain_bradley_terry_matches_choix() -> None:
    rng = np.random.default_rng(11)
    latent = rng.normal(size=15)
    first, second, score = simulate_outcomes(latent, 400, seed=12, tie_band=0.0)
    fit = fit_davidson(15, first, second, score, tie_strength=0.0)
    winners = [(int(a), int(b)) if s == 1.0 else (int(b), int(a)) for a, b, s in zip(first, second, score, strict=True)]
    reference = choix.opt_pairwise(15, winners, alpha=DEFAULT_RIDGE, method="BFGS", tol=1e-10)
    np.testing.assert_allclose(fit.latent, reference, atol=1e-3)


def test_analytic_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    latent = rng.normal(size=6)
    first, second, score = simulate_outcomes(latent, 40, seed=4)
    anchors_index, anchors_target = np.array([1, 4]), np.array([-1.0, 1.0])
    point = rng.normal(size=7)

    def value(x):
        return davidson_objective(x[:6], x[6], first, second, score, anchors_index, anchors_target, 0.1, 0.01)[0]

    _, grad_q, d_log_nu = davidson_objective(
        point[:6], point[6], first, second, score, anchors_index, anchors_target, 0.1, 0.01
    )
    numeric = approx_fprime(point, value, 1e-7)
    np.testing.assert_allclose(np.append(grad_q, d_log_nu), numeric, atol=1e-4)


def test_probabilities_sum_to_one_and_mirror() -> None:
    win, tie, loss = davidson_probabilities(np.array([0.3, -2.0]), np.array([-0.1, 1.0]), 0.7)
    np.testing.assert_allclose(win + tie + loss, 1.0)
    mirror_win, mirror_tie, _ = davidson_probabilities(np.array([-0.1, 1.0]), np.array([0.3, -2.0]), 0.7)
    np.testing.assert_allclose(mirror_win, loss)
    np.testing.assert_allclose(mirror_tie, tie)


@st.composite
def connected_data(draw: st.DrawFn):
    n = draw(st.integers(min_value=3, max_value=7))
    # A cycle keeps every item connected; extra random comparisons follow.
    extra = draw(st.integers(min_value=0, max_value=15))
    first = list(range(n)) + draw(st.lists(st.integers(0, n - 1), min_size=extra, max_size=extra))
    offset = [1] * n + draw(st.lists(st.integers(1, n - 1), min_size=extra, max_size=extra))
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n + extra, max_size=n + extra))
    first_a = np.array(first)
    return n, first_a, (first_a + np.array(offset)) % n, np.array(score)


@settings(max_examples=25, deadline=None)
@given(connected_data(), st.randoms(use_true_random=False))
def test_relabeling_permutes_latents(data, random) -> None:
    n, first, second, score = data
    permutation = np.array(random.sample(range(n), n))
    original = fit_davidson(n, first, second, score).latent
    relabeled = fit_davidson(n, permutation[first], permutation[second], score).latent
    np.testing.assert_allclose(relabeled[permutation], original, atol=2e-3)


@settings(max_examples=25, deadline=None)
@given(connected_data())
def test_swapping_a_and_b_with_flipped_outcomes_gives_the_same_fit(data) -> None:
    n, first, second, score = data
    original = fit_davidson(n, first, second, score)
    swapped = fit_davidson(n, second, first, 1.0 - score)
    np.testing.assert_allclose(swapped.latent, original.latent, atol=2e-3)
    assert swapped.tie_strength == pytest.approx(original.tie_strength, rel=1e-2, abs=1e-3)


@settings(max_examples=25, deadline=None)
@given(connected_data())
def test_flipping_every_outcome_mirrors_the_latents(data) -> None:
    n, first, second, score = data
    original = fit_davidson(n, first, second, score).latent
    flipped = fit_davidson(n, first, second, 1.0 - score).latent
    np.testing.assert_allclose(flipped, -original, atol=2e-3)


@st.composite
def round_robin_data(draw: st.DrawFn):
    """Every pair met twice: once tied (so every latent is finite) and once with a drawn outcome."""
    n = draw(st.integers(min_value=3, max_value=6))
    i, j = np.triu_indices(n, k=1)
    drawn = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=i.size, max_size=i.size))
    return n, np.concatenate([i, i]), np.concatenate([j, j]), np.concatenate([np.full(i.size, 0.5), drawn])


@settings(max_examples=60, deadline=None)
@given(round_robin_data())
def test_adding_a_dominated_item_keeps_the_order(data) -> None:
    n, first, second, score = data
    # A near-zero ridge gives the likelihood's own behaviour (the newcomer sinks far below the
    # rest); ν is held at its fitted value because the extra decisive games lower the tie share.
    original = fit_davidson(n, first, second, score, ridge=1e-6)
    before = original.latent
    after = fit_davidson(
        n + 1,
        np.concatenate([first, np.arange(n)]),
        np.concatenate([second, np.full(n, n)]),
        np.concatenate([score, np.ones(n)]),
        tie_strength=original.tie_strength,
        ridge=1e-6,
    ).latent
    assert after[n] == after.min()
    i, j = np.triu_indices(n, k=1)
    separated = np.abs(before[i] - before[j]) > 0.05
    assert np.all(np.sign(after[i] - after[j])[separated] == np.sign(before[i] - before[j])[separated])


def test_anchors_place_the_latent_scale() -> None:
    latent = np.linspace(-1.5, 1.5, 40)
    first, second, score = simulate_outcomes(latent, 800, seed=5)
    fit = fit_davidson(40, first, second, score, anchor_scores={2: 2.0, 20: 3.0, 37: 4.0})
    assert fit.latent[2] < fit.latent[20] < fit.latent[37]
    assert fit.latent[20] == pytest.approx(0.0, abs=0.6)


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="bad comparison"):
        fit_davidson(2, [0], [2], [1.0])
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        fit_davidson(2, [0], [1], [0.7])
    with pytest.raises(ValueError, match="tie_strength fixed at 0"):
        fit_davidson(2, [0], [1], [0.5], tie_strength=0.0)
    with pytest.raises(ValueError, match="non-negative"):
        fit_davidson(2, [0], [1], [1.0], tie_strength=-1.0)
    with pytest.raises(ValueError, match="anchor index"):
        fit_davidson(2, [0], [1], [1.0], anchor_scores={3: 2.0})


def test_anchored_elo_and_anchored_davidson_agree_on_simulated_anchored_data() -> None:
    rng = np.random.default_rng(2026)
    n = 80
    true_score = np.clip(3.0 + rng.normal(size=n), 1.0, 5.0)
    # Five judges vote on each sampled pair, like the paper's expert panel.
    first, second, score = simulate_outcomes(true_score * 1.2, 5 * 330, seed=21, noise=0.8)
    anchor_scores = {}
    for level in (2.0, 3.0, 4.0):
        for index in np.argsort(np.abs(true_score - level))[:2]:
            anchor_scores[int(index)] = level
    elo = elo_ratings(n, first, second, score, EloParams(), anchor_scores=anchor_scores)
    bt = fit_davidson(n, first, second, score, anchor_scores=anchor_scores).latent
    anchors = np.array(sorted(anchor_scores))
    levels = np.array([anchor_scores[i] for i in anchors])
    elo_scores = fit_anchor_calibration(elo[anchors], levels).apply(elo)
    bt_scores = fit_anchor_calibration(bt[anchors], levels).apply(bt)
    assert srcc(elo_scores, bt_scores) >= 0.98
    assert srcc(bt_scores, true_score) > 0.9
    assert np.mean(np.abs(elo_scores - bt_scores)) < 0.3
