"""Confidence-weighted ranking-fidelity reward of docs/method.md §6 (seed 000, eqs. 4–8) in plain numpy.

For two images i and z and one dimension: the Thurstone probability that i ranks above z is
p_pred = Φ((ŝ_i − ŝ_z) / sqrt(σ_i² + σ_z² + ε)); the target p_gt is 1 / 0 / 0.5 by the order of the
pseudo-scores s̃; their agreement is the fidelity F = sqrt(p_pred·p_gt) + sqrt((1−p_pred)(1−p_gt));
each pair is weighted by w = min(|s̃_i − s̃_z| / τ_w, 1) so near-ties (noisy pseudo-labels) count
less. The reward averages Σ w·F / Σ w over the dimensions that have any weight.

The torch loss in `losses.py` computes the same numbers; tests check they agree.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

DEFAULT_TAU_W = 0.5
"""Score gap (on the 1–5 scale) from which a pair gets full weight; the paper does not give its value."""
DEFAULT_SIGMA = 0.35
"""Spread assumed for a deterministic prediction (one score per image) in the Thurstone model."""
EPSILON = 1e-6


def pair_weights(pseudo_i: np.ndarray, pseudo_z: np.ndarray, tau_w: float = DEFAULT_TAU_W) -> np.ndarray:
    """Confidence weight min(|s̃_i − s̃_z| / τ_w, 1) (eq. 7), elementwise."""
    if tau_w <= 0:
        raise ValueError("tau_w must be positive")
    return np.minimum(np.abs(np.asarray(pseudo_i) - np.asarray(pseudo_z)) / tau_w, 1.0)


def target_probability(pseudo_i: np.ndarray, pseudo_z: np.ndarray) -> np.ndarray:
    """p_gt (eq. 5): 1 where s̃_i > s̃_z, 0 where smaller, 0.5 on ties."""
    diff = np.asarray(pseudo_i, dtype=float) - np.asarray(pseudo_z, dtype=float)
    return np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5))


def fidelity(p_pred: np.ndarray, p_gt: np.ndarray) -> np.ndarray:
    """Bhattacharyya agreement of two Bernoulli distributions (eq. 6)."""
    p_pred = np.clip(p_pred, 0.0, 1.0)
    return np.sqrt(p_pred * p_gt) + np.sqrt((1.0 - p_pred) * (1.0 - p_gt))


def ranking_fidelity_reward(
    predicted: np.ndarray,
    pseudo: np.ndarray,
    sigma: float | np.ndarray = DEFAULT_SIGMA,
    tau_w: float = DEFAULT_TAU_W,
) -> float:
    """Reward of a batch of predictions (n, D) against pseudo-scores (n, D) over all ordered pairs.

    `sigma` is a scalar or an (n, D) array of per-image spreads. Returns a value in [0, 1]
    (1 = every weighted pair ordered as the pseudo-scores with full confidence); NaN when no pair
    carries weight (all pseudo-scores equal, or fewer than two images).
    """
    predicted = _as_matrix(predicted, "predicted")
    pseudo = _as_matrix(pseudo, "pseudo")
    if predicted.shape != pseudo.shape:
        raise ValueError(f"shapes differ: predicted {predicted.shape}, pseudo {pseudo.shape}")
    spread = np.broadcast_to(np.asarray(sigma, dtype=float), predicted.shape)
    n, dims = predicted.shape
    off_diagonal = ~np.eye(n, dtype=bool)
    per_dimension: list[float] = []
    for d in range(dims):
        delta = predicted[:, d, None] - predicted[None, :, d]
        scale = np.sqrt(spread[:, d, None] ** 2 + spread[None, :, d] ** 2 + EPSILON)
        p_pred = ndtr(delta / scale)
        p_gt = target_probability(pseudo[:, d, None], pseudo[None, :, d])
        weight = pair_weights(pseudo[:, d, None], pseudo[None, :, d], tau_w) * off_diagonal
        total = weight.sum()
        if total > 0:
            per_dimension.append(float((weight * fidelity(p_pred, p_gt)).sum() / total))
    return float(np.mean(per_dimension)) if per_dimension else math.nan


def per_sample_rank_reward(
    sample_scores: np.ndarray,
    partner_means: np.ndarray,
    sample_sigma: np.ndarray,
    partner_sigma: np.ndarray,
    pseudo_self: np.ndarray,
    pseudo_partners: np.ndarray,
    tau_w: float = DEFAULT_TAU_W,
) -> float:
    """R_rank for one sampled answer of image i (eq. 8) against its partners z in the batch.

    `sample_scores` (D,) is this answer's scores; `partner_means` (m, D) the partners' mean scores
    over their samples; `sample_sigma` (D,) the spread of image i's samples and `partner_sigma`
    (m, D) the partners'; `pseudo_self` (D,) and `pseudo_partners` (m, D) the pseudo-scores.
    Dimensions without weight are skipped; NaN when none has any.
    """
    sample_scores = np.asarray(sample_scores, dtype=float)
    partner_means = _as_matrix(partner_means, "partner_means")
    delta = sample_scores[None, :] - partner_means
    scale = np.sqrt(np.asarray(sample_sigma, float)[None, :] ** 2 + np.asarray(partner_sigma, float) ** 2 + EPSILON)
    p_pred = ndtr(delta / scale)
    p_gt = target_probability(np.asarray(pseudo_self, float)[None, :], pseudo_partners)
    weight = pair_weights(np.asarray(pseudo_self, float)[None, :], pseudo_partners, tau_w)
    totals = weight.sum(axis=0)
    usable = totals > 0
    if not usable.any():
        return math.nan
    per_dimension = (weight * fidelity(p_pred, p_gt)).sum(axis=0)[usable] / totals[usable]
    return float(per_dimension.mean())


def _as_matrix(values: np.ndarray, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(f"{name} must be (n, D); got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return array


def group_rank_rewards(
    sample_scores: list[dict[str, float | None] | None],
    image_keys: list[str],
    pseudo: list[dict[str, float]],
    dimensions: tuple[str, ...],
    tau_w: float = DEFAULT_TAU_W,
) -> list[float]:
    """R_rank (eq. 8) for every sampled answer of a GRPO batch; 0 for answers that did not parse.

    `sample_scores[k]` is answer k's parsed scores (None where it did not parse), `image_keys[k]`
    which image it was about, `pseudo[k]` that image's pseudo-scores. Partners z are the batch's
    other images: their mean score and spread over their own valid answers (σ_i likewise over image
    i's answers, DEFAULT_SIGMA when fewer than two). With no partner answer in a dimension, the
    partner's pseudo-score stands in for its prediction.
    """
    keys = list(dict.fromkeys(image_keys))
    dims = len(dimensions)
    means = np.full((len(keys), dims), np.nan)
    spreads = np.full((len(keys), dims), DEFAULT_SIGMA)
    targets = np.full((len(keys), dims), np.nan)
    for row, key in enumerate(keys):
        members = [k for k, name in enumerate(image_keys) if name == key]
        targets[row] = [pseudo[members[0]][d] for d in dimensions]
        for col, dim in enumerate(dimensions):
            samples = [sample_scores[k] for k in members]
            values = [float(v) for s in samples if s is not None and (v := s.get(dim)) is not None]
            if values:
                means[row, col] = float(np.mean(values))
            if len(values) >= 2:
                spreads[row, col] = float(np.std(values))
    predicted_partner = np.where(np.isnan(means), targets, means)
    rewards: list[float] = []
    for k, key in enumerate(image_keys):
        scores = sample_scores[k]
        row = keys.index(key)
        partners = [r for r in range(len(keys)) if r != row]
        if scores is None or not partners:
            rewards.append(0.0)
            continue
        per_dimension: list[float] = []
        for col, dim in enumerate(dimensions):
            value = scores.get(dim)
            if value is None:
                per_dimension.append(0.0)  # a missing dimension earns nothing
                continue
            reward = per_sample_rank_reward(
                np.array([value]),
                predicted_partner[partners, col : col + 1],
                spreads[row, col : col + 1],
                spreads[partners, col : col + 1],
                targets[row, col : col + 1],
                targets[partners, col : col + 1],
                tau_w,
            )
            if not math.isnan(reward):
                per_dimension.append(reward)
        rewards.append(float(np.mean(per_dimension)) if per_dimension else 0.0)
    return rewards
