"""The first-run check: the built-in scorer scores a picture drawn in memory, the same every time."""

from __future__ import annotations

import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.jobs import Cancelled, CancelToken
from aesthete_gui.services.first_run import SAMPLE_SIZE, check_builtin_scorer, sample_picture


def test_check_scores_the_sample_on_all_five_dimensions() -> None:
    first, second = check_builtin_scorer(), check_builtin_scorer()
    assert first.sample.size == SAMPLE_SIZE and first.sample.mode == "RGB"
    assert list(first.scores) == list(DIMENSIONS)
    assert all(1.0 <= v <= 5.0 for v in first.scores.values())
    assert first.scores == second.scores  # drawn with a fixed seed: no randomness between runs
    assert first.seconds > 0
    assert first.summary().startswith("technique ") and "overall" in first.summary()
    assert sample_picture((90, 60)).size == (90, 60)


def test_a_cancelled_check_stops() -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        check_builtin_scorer(cancel=token)
