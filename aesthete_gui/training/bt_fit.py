"""Penalised Bradley–Terry logistic on pair differences: MAP fit, Laplace posterior, evidence search.

The model: logit P(a beats b) = w·(φ(a) − φ(b)) + β·(base(a) − base(b)), with a Gaussian prior
w_j ~ N(0, 1/λ_j) and β ~ N(β₀, 1/SLOPE_PENALTY). `fit_logistic` finds the MAP point, its Laplace
covariance and the Laplace approximation of the log marginal likelihood (the evidence);
`choose_penalties` picks one λ per block of columns by maximising that evidence over a grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

SLOPE_PENALTY = 10.0
"""Prior precision of the base slope around its prior value."""
LAMBDA_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
DEFAULT_LAMBDA = 10.0
SEARCH_SWEEPS = 3


@dataclass(frozen=True)
class LogisticFit:
    """MAP weights and slope, the Laplace covariance of [weights, slope], and the log evidence."""

    weights: np.ndarray
    slope: float
    covariance: np.ndarray
    log_evidence: float
    theta: np.ndarray  # [weights, slope], a warm start for a nearby fit


def fit_logistic(
    x: np.ndarray,
    offset: np.ndarray,
    target: np.ndarray,
    penalties: np.ndarray,
    prior_slope: float,
    start: np.ndarray | None = None,
) -> LogisticFit:
    """MAP fit of the penalised logistic; `target` is 1 (a won), 0 (b won) or 0.5 (tie)."""
    k = x.shape[1]

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, slope = theta[:k], theta[k]
        logit = x @ w + slope * offset
        nll = -(target * log_expit(logit) + (1 - target) * log_expit(-logit)).sum()
        residual = expit(logit) - target
        grad = np.empty_like(theta)
        grad[:k] = x.T @ residual + penalties * w
        grad[k] = float(residual @ offset) + SLOPE_PENALTY * (slope - prior_slope)
        value = (
            nll
            + 0.5 * float(penalties @ (w * w))
            + 0.5 * SLOPE_PENALTY * (slope - prior_slope) ** 2
        )
        return float(value), grad

    if start is None:
        start = np.zeros(k + 1)
        start[k] = prior_slope
    result = minimize(objective, start, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    theta = result.x
    full = np.concatenate([x, offset[:, None]], axis=1)
    p = expit(full @ theta)
    hessian = full.T @ (full * (p * (1 - p))[:, None])
    hessian[np.diag_indices(k + 1)] += np.append(penalties, SLOPE_PENALTY)
    _, log_det = np.linalg.slogdet(hessian)
    log_prior_norm = 0.5 * float(np.log(penalties).sum() + np.log(SLOPE_PENALTY))
    log_evidence = -float(result.fun) - 0.5 * float(log_det) + log_prior_norm
    return LogisticFit(theta[:k], float(theta[k]), np.linalg.inv(hessian), log_evidence, theta)


def choose_penalties(
    x: np.ndarray,
    offset: np.ndarray,
    target: np.ndarray,
    column_blocks: Sequence[str],
    prior_slope: float,
    grid: Sequence[float] = LAMBDA_GRID,
) -> dict[str, float]:
    """One λ per block with the largest evidence: coordinate search over `grid`, block by block."""
    blocks = list(dict.fromkeys(column_blocks))
    chosen = dict.fromkeys(blocks, DEFAULT_LAMBDA)
    seen: dict[tuple[float, ...], float] = {}
    start: np.ndarray | None = None

    def evidence(candidate: dict[str, float]) -> float:
        nonlocal start
        key = tuple(candidate[b] for b in blocks)
        if key not in seen:
            fit = fit_logistic(
                x, offset, target, penalty_vector(column_blocks, candidate), prior_slope, start
            )
            start = fit.theta
            seen[key] = fit.log_evidence
        return seen[key]

    for _ in range(SEARCH_SWEEPS):
        changed = False
        for block in blocks:
            scores = {value: evidence({**chosen, block: value}) for value in grid}
            best = max(scores, key=scores.__getitem__)
            if best != chosen[block]:
                chosen[block], changed = best, True
        if not changed:
            break
    return chosen


def penalty_vector(column_blocks: Sequence[str], penalties: dict[str, float]) -> np.ndarray:
    """The per-column λ for block penalties `penalties` (a block not named gets the default)."""
    return np.array(
        [penalties.get(str(block), DEFAULT_LAMBDA) for block in column_blocks], dtype=float
    )
