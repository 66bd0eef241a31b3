"""Personal scores back on the 1–5 scale: the personal order, the base scorer's spread."""

from __future__ import annotations

import numpy as np

SCALE_LOW, SCALE_HIGH = 1.0, 5.0


def onto_base_scale(utility: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Personal scores on the 1–5 scale: the library's base scores, sorted, dealt out in the
    personal order (a quantile mapping).

    So the personal ranking keeps the base's spread exactly (the same histogram, the same meaning
    of "above 4") while its order is the adapter's. Where the base has tied scores a nudge of at
    most 1e-6 keeps the personal order strict, so sorting by the stored score reproduces it.
    """
    utility = np.asarray(utility, dtype=float)
    count = utility.shape[0]
    if count == 0:
        return np.zeros(0)
    ladder = np.sort(np.clip(np.asarray(base, dtype=float), SCALE_LOW, SCALE_HIGH))
    if ladder[-1] - ladder[0] < 1e-9:  # a flat base has no spread to match: spread evenly
        ladder = np.linspace(SCALE_LOW, SCALE_HIGH, count) if count > 1 else ladder
    ladder = ladder + 1e-6 * np.arange(count) / count
    if ladder[-1] > SCALE_HIGH:
        ladder = SCALE_LOW + (ladder - SCALE_LOW) * (SCALE_HIGH - SCALE_LOW) / (ladder[-1] - SCALE_LOW)
    scores = np.empty(count)
    scores[np.argsort(utility, kind="stable")] = ladder
    return scores
