"""The two latent-to-score calibrations of docs/method.md §5: min-max sigmoid (bridge) and anchor-fitted sigmoid."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from aesthete_gui.engine.dimensions import SCORE_MAX, SCORE_MID, SCORE_MIN

BRIDGE_LAMBDA = 6.0
_SPAN = SCORE_MAX - SCORE_MIN
# Anchor scores at exactly 1 or 5 would sit at ±infinity in logit space; the initial linear
# fit pulls them this far inside the scale (the final fit is done on the score scale itself).
_EDGE_MARGIN = 0.05


class CalibrationError(ValueError):
    """The anchors cannot determine a calibration (too few, or no spread)."""


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def minmax_sigmoid(latent: Sequence[float] | np.ndarray, lam: float = BRIDGE_LAMBDA) -> np.ndarray:
    """Bridge calibration: s = 1 + 4·σ(λ·(q − q_min)/(q_max − q_min) − λ/2); all 3.0 when q has no spread."""
    q = np.asarray(latent, dtype=float)
    if q.size == 0:
        return q.copy()
    low, high = float(np.min(q)), float(np.max(q))
    if not np.isfinite(low) or not np.isfinite(high):
        raise ValueError("latent ratings must be finite")
    if high - low <= 0.0:
        return np.full_like(q, SCORE_MID)
    unit = (q - low) / (high - low)
    return SCORE_MIN + _SPAN * _sigmoid(lam * unit - lam / 2.0)


@dataclass(frozen=True)
class SigmoidCalibration:
    """Anchored calibration s = 1 + 4·σ(a·q + b) with (a, b) fitted on anchors."""

    slope: float
    intercept: float

    def apply(self, latent: Sequence[float] | np.ndarray) -> np.ndarray:
        """Map latent ratings to the 1..5 scale."""
        q = np.asarray(latent, dtype=float)
        return SCORE_MIN + _SPAN * _sigmoid(self.slope * q + self.intercept)


def fit_anchor_calibration(
    anchor_latent: Sequence[float] | np.ndarray, anchor_scores: Sequence[float] | np.ndarray
) -> SigmoidCalibration:
    """Fit (a, b) so that 1 + 4·σ(a·q + b) matches the anchors' mean ratings (least squares on 1..5)."""
    q = np.asarray(anchor_latent, dtype=float)
    s = np.asarray(anchor_scores, dtype=float)
    if q.shape != s.shape or q.ndim != 1:
        raise CalibrationError("anchor latents and scores must be two sequences of equal length")
    if q.size < 2:
        raise CalibrationError(f"calibration needs at least 2 anchors, got {q.size}")
    if np.any((s < SCORE_MIN) | (s > SCORE_MAX)) or not np.all(np.isfinite(s)):
        raise CalibrationError("anchor scores must lie within 1..5")
    if np.ptp(q) <= 0.0 or np.ptp(s) <= 0.0:
        raise CalibrationError("anchors must differ in both latent rating and score to fit a scale")
    unit = np.clip((s - SCORE_MIN) / _SPAN, _EDGE_MARGIN / _SPAN, 1.0 - _EDGE_MARGIN / _SPAN)
    logits = np.log(unit / (1.0 - unit))
    slope0, intercept0 = np.polyfit(q, logits, 1)
    # Work on a standardised latent so that Elo-sized and logit-sized latents condition equally.
    centre, scale = float(np.mean(q)), float(np.std(q))
    z = (q - centre) / scale

    def residuals(params: np.ndarray) -> np.ndarray:
        return SCORE_MIN + _SPAN * _sigmoid(params[0] * z + params[1]) - s

    start = np.array([slope0 * scale, intercept0 + slope0 * centre])
    fit = least_squares(residuals, start, method="lm")
    slope_z, intercept_z = (float(v) for v in fit.x)
    return SigmoidCalibration(slope=slope_z / scale, intercept=intercept_z - slope_z * centre / scale)
