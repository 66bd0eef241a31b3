"""The loupe's histogram counts every level and flags clipping; focus peaking finds hard edges only."""

from __future__ import annotations

import numpy as np

from aesthete_gui.imaging.loupe_analysis import focus_peaking_mask, rgb_histogram


def test_histogram_counts_levels_and_reports_clipping() -> None:
    rgb = np.full((10, 10, 3), 128, dtype=np.uint8)
    rgb[0, :, :] = 255  # one row blown out
    rgb[1, :, 0] = 0  # red at 0 on one row: not black (green, blue are not)
    histogram = rgb_histogram(rgb)
    assert histogram.counts.shape == (3, 256)
    assert histogram.counts[1, 128] == 90 and histogram.counts[1, 255] == 10
    assert histogram.counts[0, 0] == 10
    assert histogram.clipped_white == 0.1 and histogram.clipped_black == 0.0
    assert histogram.clipping


def test_histogram_of_an_unclipped_frame_has_no_clipping() -> None:
    rgb = np.random.default_rng(1).integers(20, 230, (50, 40, 3), dtype=np.uint8)
    histogram = rgb_histogram(rgb)
    assert int(histogram.counts[2].sum()) == 50 * 40
    assert not histogram.clipping


def test_focus_peaking_marks_the_hard_edge_and_not_the_gradient() -> None:
    rgb = np.zeros((20, 40, 3), dtype=np.uint8)
    rgb[:, :, :] = np.linspace(0, 60, 40, dtype=np.uint8)[None, :, None]  # a soft ramp
    rgb[:, 20:, :] = 250  # a hard edge at column 20
    mask = focus_peaking_mask(rgb)
    assert mask[10, 19] and mask[10, 20]
    assert not mask[10, 5:17].any() and not mask[10, 23:38].any()
