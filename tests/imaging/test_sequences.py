"""Exposure brackets, panoramas and focus stacks recognised from metadata (and thumbnails for panoramas)."""

from __future__ import annotations

import numpy as np
from skimage import data as skdata

from aesthete_gui.imaging.sequences import Shot, find_sets, side_by_side

CAMERA = "Test Camera"
VIEW = 0x0F0F_0F0F_0F0F_0F0F
OTHER_VIEWS = (0x1234_5678_9ABC_DEF0, 0xFEDC_BA98_7654_3210, 0x0F1E_2D3C_4B5A_6978)


def _shot(key: str, t: float, **kwargs: object) -> Shot:
    fields = {"camera": CAMERA, "exposure_time": 1 / 125, "f_number": 8.0, "iso": 100.0, "focal_length": 35.0, "phash": VIEW}
    fields.update(kwargs)
    return Shot(key=key, capture_time=t, **fields)  # type: ignore[arg-type]


def test_a_bracket_by_exposure_bias_is_one_set_named_with_its_steps() -> None:
    shots = [_shot("a", 0.0, exposure_bias=-2.0, exposure_time=1 / 500), _shot("b", 0.4, exposure_bias=0.0),
             _shot("c", 0.8, exposure_bias=2.0, exposure_time=1 / 30), _shot("later", 60.0)]  # fmt: skip
    sets = find_sets(shots)
    assert [(s.kind, s.keys) for s in sets] == [("bracket", ("a", "b", "c"))]
    assert sets[0].describe() == "exposure bracket of 3 frames (-2, 0, +2 EV)"


def test_a_manual_bracket_by_exposure_time_and_the_cameras_bracket_mode() -> None:
    manual = [_shot(k, i * 2.0, exposure_time=t) for i, (k, t) in enumerate((("a", 1 / 500), ("b", 1 / 125), ("c", 1 / 30)))]
    assert [s.kind for s in find_sets(manual)] == ["bracket"]
    auto = [_shot(k, i * 0.3, exposure_mode=2) for i, k in enumerate("xyz")]
    assert [s.keys for s in find_sets(auto)] == [("x", "y", "z")]


def test_a_burst_of_one_exposure_is_no_set() -> None:
    burst = [_shot(k, i * 0.2) for i, k in enumerate("abcdef")]
    assert find_sets(burst) == []
    drifting = [_shot(k, i * 0.2, exposure_time=t) for i, (k, t) in enumerate((("a", 1 / 125), ("b", 1 / 140), ("c", 1 / 110)))]
    assert find_sets(drifting) == []  # metering drift of a fraction of a stop is not a bracket


def test_a_metered_burst_in_changing_light_is_no_bracket_but_a_rendered_one_is() -> None:
    # aperture priority: a cloud passes and the meter moves the shutter two stops, but the frames come
    # out alike (the camera made up for the light): no set, so its blurred frames are still suggested
    metered = [_shot("sun", 0.0, exposure_time=1 / 500, midtones=0.45), _shot("cloud", 0.5, exposure_time=1 / 125, midtones=0.47),
               _shot("sun2", 1.0, exposure_time=1 / 500, midtones=0.44)]  # fmt: skip
    assert find_sets(metered) == []
    # the same shutter times turned by hand: the longer exposures render brighter, as light does
    turned = [_shot("a", 0.0, exposure_time=1 / 500, midtones=0.25), _shot("b", 2.0, exposure_time=1 / 125, midtones=0.46),
              _shot("c", 4.0, exposure_time=1 / 30, midtones=0.72)]  # fmt: skip
    assert [(s.kind, s.keys) for s in find_sets(turned)] == [("bracket", ("a", "b", "c"))]
    # near white the light adds little that can show, and that little is enough
    bright = [_shot("a", 0.0, exposure_time=1 / 250, midtones=0.90), _shot("b", 1.0, exposure_time=1 / 125, midtones=0.95)]
    assert [s.kind for s in find_sets(bright)] == ["bracket"]
    # a bias the photographer set is a bracket whatever the frames look like (the camera says so)
    biased = [_shot("a", 0.0, exposure_bias=-1.0, midtones=0.45), _shot("b", 0.5, exposure_bias=1.0, midtones=0.45)]
    assert [s.kind for s in find_sets(biased)] == ["bracket"]


def test_a_high_iso_frame_beside_a_clean_one_is_no_bracket() -> None:
    # the same shutter and aperture at ISO 200 and 25600: gain, not light (the trial shoot's noisy copies)
    shots = [_shot("clean", 0.0, iso=200.0), _shot("noisy", 3.0, iso=25600.0)]
    assert find_sets(shots) == []


def test_frames_of_another_camera_or_a_minute_later_are_not_in_the_set() -> None:
    shots = [_shot("a", 0.0, exposure_bias=-1.0), _shot("b", 0.5, exposure_bias=1.0, camera="Other"), _shot("c", 90.0, exposure_bias=1.0)]
    assert find_sets(shots) == []


def test_a_focus_stack_is_the_same_view_sharp_in_moving_places() -> None:
    spots = ((0.5, 0.9), (0.5, 0.6), (0.5, 0.3), (0.5, 0.1))
    stack = [_shot(f"f{i}", i * 0.5, sharp_at=spot) for i, spot in enumerate(spots)]
    assert [(s.kind, len(s.keys)) for s in find_sets(stack)] == [("focus_stack", 4)]
    still = [_shot(f"s{i}", i * 0.5, sharp_at=(0.5, 0.5)) for i in range(4)]
    assert find_sets(still) == []  # a burst of a still subject: the same place stays sharp
    with_a_soft_frame = [_shot(f"b{i}", i * 0.5, sharp_at=spot, crisp=i != 2) for i, spot in enumerate(spots)]
    assert find_sets(with_a_soft_frame) == []  # the blurred frame of a burst is no slice of a stack
    wandering = [_shot(f"w{i}", i * 0.5, sharp_at=spot) for i, spot in enumerate(((0.5, 0.2), (0.5, 0.8), (0.5, 0.2), (0.5, 0.8)))]
    assert find_sets(wandering) == []  # back and forth: a burst whose sharpest tile hops, not a stack


def test_a_hand_held_burst_whose_sharpest_tile_hops_one_way_is_no_stack() -> None:
    # held10 trial: five sharp frames of a hand-held burst, 8, 6, 2 and 8 pHash bits apart, were called a
    # focus stack (their sharpest tiles happened to move one way) and left out of culling
    base = 0x5A5A_0F0F_3C3C_9696
    views = [base, base ^ 0xFF, base ^ 0xFF ^ 0x3F00, base ^ 0xFF ^ 0x3F00 ^ 0x3_0000, base ^ 0xFF ^ 0x3F00 ^ 0x3_0000 ^ 0xFF00_0000]
    spots = ((0.2, 0.5), (0.3, 0.5), (0.45, 0.5), (0.6, 0.5), (0.7, 0.5))
    burst = [_shot(f"h{i}", i * 0.125, sharp_at=spot, phash=view) for i, (spot, view) in enumerate(zip(spots, views, strict=True))]
    assert find_sets(burst) == []
    tripod = [_shot(f"t{i}", i * 0.5, sharp_at=spot, phash=base ^ (1 << i)) for i, spot in enumerate(spots)]
    assert [(s.kind, len(s.keys)) for s in find_sets(tripod)] == [("focus_stack", 5)]  # refocusing moves a bit or two


def test_a_panorama_needs_overlapping_views_when_the_thumbnails_can_tell() -> None:
    pano = [_shot(f"p{i}", i * 2.0, phash=view) for i, view in enumerate(OTHER_VIEWS)]
    assert [(s.kind, len(s.keys)) for s in find_sets(pano)] == [("panorama", 3)]  # metadata alone: 3 frames
    assert find_sets(pano, overlaps=lambda a, b: False) == []
    assert [len(s.keys) for s in find_sets(pano[:2], overlaps=lambda a, b: True)] == [2]


def test_thumbnails_side_by_side_overlap_and_unrelated_ones_do_not() -> None:
    grey = np.asarray(skdata.camera(), dtype=np.float32)[::4, ::4]  # 128 x 128
    left, right = grey[:, :80], grey[:, 48:]  # 32 columns in common
    assert side_by_side(left, right)
    other = np.asarray(skdata.coins(), dtype=np.float32)[:128, :80]
    assert not side_by_side(left, other)


def test_a_burst_frame_drifted_a_little_or_blurred_is_no_panorama_neighbour() -> None:
    """Two frames of one burst of a soft scene, the view moved by 2 % and one of them smeared, match as
    they stand: their wide edge strips match too (a soft scene correlates at any shift), but that is
    one view, not the overlap of a panorama's neighbours (it was taken for one: a trial shoot's
    burst of seven became a panorama, and its blurred frames were never suggested)."""
    from scipy import ndimage

    grey = ndimage.gaussian_filter(np.asarray(skdata.camera(), dtype=np.float32)[::4, ::4], 3)  # 128 x 128
    frame, drifted = grey[:, :124], grey[:, 3:127]
    assert not side_by_side(frame, drifted)
    assert not side_by_side(frame, ndimage.uniform_filter1d(drifted, 5, axis=1))
    assert side_by_side(grey[:, :80], grey[:, 48:])  # a real shift of the same soft scene still overlaps
