"""Calibrations: the bridge's min-max sigmoid and the anchor-fitted sigmoid."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aesthete_gui.engine.calibration import (
    CalibrationError,
    SigmoidCalibration,
    fit_anchor_calibration,
    minmax_sigmoid,
)


def test_minmax_sigmoid_maps_extremes_inside_the_scale() -> None:
    scores = minmax_sigmoid([1200.0, 1500.0, 1800.0])
    low = 1 + 4 / (1 + math.exp(3))
    assert scores.tolist() == pytest.approx([low, 3.0, 6.0 - low])
    assert scores.min() > 1.0 and scores.max() < 5.0


def test_minmax_sigmoid_is_monotone_and_shift_invariant() -> None:
    q = np.random.default_rng(0).normal(size=50)
    scores = minmax_sigmoid(q)
    assert np.all(np.diff(scores[np.argsort(q)]) >= 0)
    np.testing.assert_allclose(minmax_sigmoid(q * 400 + 1500), scores)


def test_minmax_sigmoid_edge_cases() -> None:
    assert minmax_sigmoid([2.0, 2.0, 2.0]).tolist() == [3.0, 3.0, 3.0]
    assert minmax_sigmoid([]).size == 0
    with pytest.raises(ValueError, match="finite"):
        minmax_sigmoid([1.0, float("nan")])


def test_anchor_fit_recovers_a_known_curve() -> None:
    truth = SigmoidCalibration(slope=0.004, intercept=-6.0)
    q = np.array([1100.0, 1200.0, 1500.0, 1550.0, 1900.0, 1950.0])
    fitted = fit_anchor_calibration(q, truth.apply(q))
    assert fitted.slope == pytest.approx(0.004, rel=1e-4)
    assert fitted.intercept == pytest.approx(-6.0, rel=1e-4)


def test_anchor_fit_handles_boundary_levels_and_noise() -> None:
    fitted = fit_anchor_calibration([-2.0, -1.0, 0.0, 1.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0])
    scores = fitted.apply([-2.0, 0.0, 2.0])
    assert scores[0] < 2.0 and scores[1] == pytest.approx(3.0, abs=1e-6) and scores[2] > 4.0
    assert fitted.slope > 0


@pytest.mark.parametrize(
    ("latent", "scores", "message"),
    [
        ([0.0], [3.0], "at least 2 anchors"),
        ([0.0, 0.0], [2.0, 4.0], "differ"),
        ([0.0, 1.0], [3.0, 3.0], "differ"),
        ([0.0, 1.0], [0.5, 3.0], "within 1..5"),
        ([0.0, 1.0, 2.0], [2.0, 3.0], "equal length"),
    ],
)
def test_anchor_fit_rejects_unusable_anchors(latent, scores, message) -> None:
    with pytest.raises(CalibrationError, match=message):
        fit_anchor_calibration(latent, scores)
