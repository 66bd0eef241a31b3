"""Davidson–Bradley–Terry MAP estimation with ties, tie strength ν and an anchor penalty (docs/method.md §5).

P(i ≻ j) = e^{q_i} / D, P(tie) = ν e^{(q_i+q_j)/2} / D, D = e^{q_i} + e^{q_j} + ν e^{(q_i+q_j)/2}.
The objective is the negative log-likelihood plus λ Σ_anchors (q_i − (s̄_i − 3))² plus a tiny ridge
ρ Σ q² that keeps the latents finite when an item wins or loses every comparison. Everything is
vectorised; the gradient is analytic, optimised with L-BFGS-B.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from aesthete_gui.engine.blas import single_blas_thread
from aesthete_gui.engine.dimensions import SCORE_MID

ANCHOR_WEIGHT = 0.1
DEFAULT_RIDGE = 0.01
MAX_ITERATIONS = 2000
FTOL = 1e-10
GTOL = 1e-6
_LOG_NU_START_RANGE = (-12.0, 6.0)


@dataclass(frozen=True)
class DavidsonFit:
    """Fitted latents (natural-log scale), tie strength ν and optimiser diagnostics."""

    latent: np.ndarray
    tie_strength: float
    objective: float
    iterations: int
    converged: bool


def _outcome_masks(score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    win = score == 1.0
    tie = score == 0.5
    loss = score == 0.0
    if not np.all(win | tie | loss):
        raise ValueError("outcome scores must be 0, 0.5 or 1")
    return win, tie, loss


def davidson_objective(
    q: np.ndarray,
    log_nu: float,
    first: np.ndarray,
    second: np.ndarray,
    score: np.ndarray,
    anchor_index: np.ndarray,
    anchor_target: np.ndarray,
    anchor_weight: float,
    ridge: float,
) -> tuple[float, np.ndarray, float]:
    """Negative log-posterior, its gradient over q and its derivative over log ν."""
    win, tie, loss = _outcome_masks(score)
    sign = win.astype(float) - loss.astype(float)
    return _objective(
        q, log_nu, first, second, sign, tie.astype(float), anchor_index, anchor_target,
        anchor_weight, ridge,
    )


def _objective(
    q: np.ndarray,
    log_nu: float,
    first: np.ndarray,
    second: np.ndarray,
    sign: np.ndarray,
    tie: np.ndarray,
    anchor_index: np.ndarray,
    anchor_target: np.ndarray,
    anchor_weight: float,
    ridge: float,
) -> tuple[float, np.ndarray, float]:
    half = 0.5 * (q[first] - q[second])
    magnitude = np.abs(half)
    # log(e^h + e^-h + ν) = |h| + log(1 + e^{-2|h|} + ν e^{-|h|}), stable for any h.
    shrink = np.exp(-magnitude)
    nu = float(np.exp(log_nu))
    rest = 1.0 + shrink * shrink + nu * shrink
    log_z = magnitude + np.log(rest)
    p_high = 1.0 / rest
    p_low = shrink * shrink / rest
    p_tie = nu * shrink / rest
    positive = half >= 0
    p_diff = np.where(positive, p_high - p_low, p_low - p_high)  # P(first) − P(second)
    tie_count = float(np.sum(tie))
    tie_term = log_nu * tie_count if tie_count else 0.0
    log_lik_sum = float(np.dot(sign, half)) + tie_term - float(np.sum(log_z))
    slope = 0.5 * (sign - p_diff)
    n = q.size
    # weighted counts are floats (numpy's stubs type every bincount as integers)
    grad: np.ndarray = np.bincount(second, slope, n) - np.bincount(first, slope, n)
    value = -log_lik_sum
    residual = q[anchor_index] - anchor_target
    value += anchor_weight * float(np.sum(residual**2)) + ridge * float(np.dot(q, q))
    np.add.at(grad, anchor_index, 2.0 * anchor_weight * residual)
    grad += 2.0 * ridge * q
    d_log_nu = -(tie_count - float(np.sum(p_tie)))
    return value, grad, d_log_nu


def fit_davidson(
    n_items: int,
    first: Sequence[int] | np.ndarray,
    second: Sequence[int] | np.ndarray,
    score: Sequence[float] | np.ndarray,
    anchor_scores: Mapping[int, float] | None = None,
    anchor_weight: float = ANCHOR_WEIGHT,
    tie_strength: float | None = None,
    ridge: float = DEFAULT_RIDGE,
    max_iterations: int = MAX_ITERATIONS,
) -> DavidsonFit:
    """MAP latents; anchors (index -> mean 1..5 rating) are pulled toward s̄ − 3; ν is fitted jointly
    unless `tie_strength` fixes it (0 gives the plain Bradley–Terry model, which allows no ties)."""
    first_a = np.asarray(first, dtype=np.int64)
    second_a = np.asarray(second, dtype=np.int64)
    score_a = np.asarray(score, dtype=float)
    if not first_a.shape == second_a.shape == score_a.shape:
        raise ValueError("first, second and score must have the same length")
    if first_a.size and (
        first_a.min() < 0
        or second_a.min() < 0
        or max(first_a.max(), second_a.max()) >= n_items
        or np.any(first_a == second_a)
    ):
        raise ValueError(f"bad comparison indices for {n_items} items")
    anchors = dict(anchor_scores or {})
    anchor_index = np.asarray(sorted(anchors), dtype=np.int64)
    if anchor_index.size and (anchor_index.min() < 0 or anchor_index.max() >= n_items):
        raise ValueError(f"anchor index out of range for {n_items} items")
    anchor_target = np.asarray([anchors[i] - SCORE_MID for i in anchor_index.tolist()], dtype=float)
    win, tie_mask, loss = _outcome_masks(score_a)
    sign = win.astype(float) - loss.astype(float)
    tie = tie_mask.astype(float)
    fit_nu = tie_strength is None
    fixed_log_nu = 0.0
    if tie_strength is not None:
        if tie_strength < 0:
            raise ValueError("tie_strength must be non-negative")
        if tie_strength == 0.0 and np.any(tie_mask):
            raise ValueError("ties observed but tie_strength fixed at 0 (plain Bradley–Terry)")
        fixed_log_nu = float(np.log(tie_strength)) if tie_strength > 0 else -np.inf

    # Diagonal preconditioning: the optimiser works on y = q·√h with h the Hessian's diagonal at the
    # starting point, so items compared thousands of times (a bridge's pool) and items compared a
    # few times (its other items) converge at the same pace.
    start = _warm_start(n_items, first_a, second_a, sign)
    start_log_nu = fixed_log_nu
    if fit_nu:
        # Two equal items tie with probability ν / (2 + ν): start from the observed tie share.
        tie_share = float(np.mean(tie)) if tie.size else 0.0
        start_nu = max(2.0 * tie_share / max(1.0 - tie_share, 1e-3), 1e-3)
        start_log_nu = float(np.clip(np.log(start_nu), *_LOG_NU_START_RANGE))
    curvature = _curvature(start, start_log_nu, first_a, second_a) + 2.0 * ridge
    curvature[anchor_index] += 2.0 * anchor_weight
    scale = np.sqrt(np.maximum(curvature, 1e-12))

    def fun(y: np.ndarray) -> tuple[float, np.ndarray]:
        q = y[:n_items] / scale
        if fit_nu:
            value, grad_q, d_log_nu = _objective(
                q, y[-1], first_a, second_a, sign, tie, anchor_index, anchor_target,
                anchor_weight, ridge,
            )
            return value, np.append(grad_q / scale, d_log_nu)
        value, grad_q, _ = _objective(
            q, fixed_log_nu, first_a, second_a, sign, tie, anchor_index, anchor_target,
            anchor_weight, ridge,
        )
        return value, grad_q / scale

    x0 = np.zeros(n_items + (1 if fit_nu else 0))
    x0[:n_items] = start * scale
    if fit_nu:
        x0[-1] = start_log_nu
    with single_blas_thread():
        result = minimize(
            fun,
            x0,
            jac=True,
            method="L-BFGS-B",
            options={
                "maxiter": max_iterations,
                "maxfun": 2 * max_iterations,
                "ftol": FTOL,
                "gtol": GTOL,
            },
        )
    latent = (result.x[:-1] if fit_nu else result.x) / scale
    nu = float(np.exp(result.x[-1])) if fit_nu else float(tie_strength or 0.0)
    return DavidsonFit(
        latent=np.array(latent, dtype=float),
        tie_strength=nu,
        objective=float(result.fun),
        iterations=int(result.nit),
        converged=bool(result.success),
    )


def _curvature(q: np.ndarray, log_nu: float, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Diagonal of the negative log-likelihood's Hessian: Σ ¼·(P(i) + P(j) − (P(i) − P(j))²)."""
    p_first, _, p_second = davidson_probabilities(q[first], q[second], float(np.exp(log_nu)))
    weight = 0.25 * (p_first + p_second - (p_first - p_second) ** 2)
    return np.bincount(first, weight, q.size) + np.bincount(second, weight, q.size)


def _warm_start(n_items: int, first: np.ndarray, second: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """Smoothed log-odds of each item's wins (ties half) as a starting point for the optimiser."""
    wins = np.bincount(first, (1.0 + sign) / 2.0, n_items)
    wins += np.bincount(second, (1.0 - sign) / 2.0, n_items)
    games = np.bincount(first, minlength=n_items) + np.bincount(second, minlength=n_items)
    start = np.log((wins + 1.0) / (games - wins + 1.0))
    return start - start.mean()


def davidson_probabilities(
    q_first: float | np.ndarray, q_second: float | np.ndarray, tie_strength: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(P(first wins), P(tie), P(second wins)) under the Davidson model."""
    half = 0.5 * (np.asarray(q_first, dtype=float) - np.asarray(q_second, dtype=float))
    log_nu = np.log(tie_strength) if tie_strength > 0 else -np.inf
    log_z = np.logaddexp(np.logaddexp(half, -half), log_nu)
    return np.exp(half - log_z), np.exp(log_nu - log_z), np.exp(-half - log_z)
