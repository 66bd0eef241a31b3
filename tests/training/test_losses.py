"""Ranking-fidelity reward (numpy) and loss (torch): values, agreement, gradients, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from aesthete_gui.training.losses import ranking_fidelity_loss
from aesthete_gui.training.reward import (
    fidelity,
    pair_weights,
    per_sample_rank_reward,
    ranking_fidelity_reward,
    target_probability,
)


def test_fidelity_is_one_for_matching_certain_orders_and_zero_for_opposite() -> None:
    assert fidelity(np.array(1.0), np.array(1.0)) == pytest.approx(1.0)
    assert fidelity(np.array(0.0), np.array(1.0)) == pytest.approx(0.0)
    assert fidelity(np.array(0.5), np.array(0.5)) == pytest.approx(1.0)


def test_target_and_weights_follow_pseudo_score_order_and_gap() -> None:
    assert list(target_probability(np.array([3.0, 2.0, 2.5]), np.array([2.0, 3.0, 2.5]))) == [1.0, 0.0, 0.5]
    weights = pair_weights(np.array([3.0, 3.0, 3.0]), np.array([3.1, 3.5, 5.0]), tau_w=0.5)
    assert weights == pytest.approx([0.2, 1.0, 1.0])


def test_reward_prefers_correct_order_over_reversed() -> None:
    rng = np.random.default_rng(0)
    pseudo = rng.uniform(1, 5, size=(12, 5))
    good = ranking_fidelity_reward(pseudo, pseudo)
    bad = ranking_fidelity_reward(-pseudo, pseudo)
    assert good > 0.9
    assert bad < 0.3


def test_reward_hand_computed_two_images_one_dimension() -> None:
    predicted = np.array([[3.5], [3.0]])
    pseudo = np.array([[4.0], [2.0]])
    p = 0.5 * (1 + math.erf(0.5 / math.sqrt(2 * 0.25 + 1e-6) / math.sqrt(2)))
    # both ordered pairs weigh 1; (i=0, z=1): p_gt 1 -> sqrt(p); (1, 0): p_gt 0 -> sqrt(p) too
    expected = math.sqrt(p)
    assert ranking_fidelity_reward(predicted, pseudo, sigma=0.5) == pytest.approx(expected, abs=1e-9)


def test_reward_is_nan_without_weighted_pairs_and_rejects_bad_input() -> None:
    assert math.isnan(ranking_fidelity_reward(np.ones((3, 5)), np.full((3, 5), 2.0)))
    with pytest.raises(ValueError, match="shapes differ"):
        ranking_fidelity_reward(np.ones((3, 5)), np.ones((4, 5)))
    with pytest.raises(ValueError, match="NaN"):
        ranking_fidelity_reward(np.array([[1.0], [np.nan]]), np.ones((2, 1)))
    with pytest.raises(ValueError, match="tau_w"):
        pair_weights(np.ones(2), np.ones(2), tau_w=0)


def test_torch_loss_matches_numpy_reward() -> None:
    rng = np.random.default_rng(1)
    predicted = rng.uniform(1, 5, size=(9, 5))
    pseudo = rng.uniform(1, 5, size=(9, 5))
    reward = ranking_fidelity_reward(predicted, pseudo, sigma=0.4, tau_w=0.7)
    loss = ranking_fidelity_loss(torch.tensor(predicted), torch.tensor(pseudo), sigma=0.4, tau_w=0.7)
    assert float(loss) == pytest.approx(1 - reward, abs=1e-3)


def test_torch_loss_gradient_moves_predictions_toward_pseudo_order() -> None:
    pseudo = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    predicted = torch.tensor([[4.0], [3.0], [2.0], [1.0]], requires_grad=True)
    optimiser = torch.optim.SGD([predicted], lr=0.5)
    first = None
    for _ in range(200):
        optimiser.zero_grad()
        loss = ranking_fidelity_loss(predicted, pseudo)
        first = float(loss.detach()) if first is None else first
        loss.backward()
        optimiser.step()
    assert float(loss.detach()) < first
    order = torch.argsort(predicted[:, 0]).tolist()
    assert order == [0, 1, 2, 3]


def test_torch_loss_without_weight_is_zero_and_differentiable() -> None:
    predicted = torch.tensor([[2.0], [3.0]], requires_grad=True)
    loss = ranking_fidelity_loss(predicted, torch.tensor([[3.0], [3.0]]))
    loss.backward()
    assert float(loss) == 0.0
    with pytest.raises(ValueError):
        ranking_fidelity_loss(predicted, torch.ones(3, 1))


def test_per_sample_reward_rewards_answers_on_the_right_side() -> None:
    partners = np.array([[2.0, 2.0], [4.0, 4.0]])
    pseudo_partners = np.array([[2.0, 2.0], [4.0, 4.0]])
    sigma = np.full(2, 0.3)
    partner_sigma = np.full((2, 2), 0.3)
    right = per_sample_rank_reward(np.array([3.0, 3.0]), partners, sigma, partner_sigma, np.array([3.0, 3.0]), pseudo_partners)
    wrong = per_sample_rank_reward(np.array([5.0, 1.0]), partners, sigma, partner_sigma, np.array([3.0, 3.0]), pseudo_partners)
    assert right > wrong
    assert math.isnan(per_sample_rank_reward(np.array([3.0]), np.array([[3.0]]), np.ones(1), np.ones((1, 1)), np.array([3.0]), np.array([[3.0]])))
