"""The fast crop matcher gives today's answers: on a varied set of pairs made from real photographs
(crops, resized, re-compressed and edited copies; panned, rotated, mirrored, damaged and unrelated
pictures; the other half of a stereo pair) and on the import tests' small frames, it says yes or no
exactly where the frozen reference (tests/imaging/crop_match_reference.py) does, and finds the same
size of crop within a pixel."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging import crop_match
from aesthete_gui.imaging.bursts import Frame, group_bursts
from aesthete_gui.imaging.crop_groups import ThumbnailMatcher
from tests.imaging import crop_match_reference as reference
from tests.imaging.crop_pairs import Pair, frame_pairs, import_test_frames, photo_pairs, view

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "camera", "retina", "hubble_deep_field", "grass")


@pytest.fixture(scope="module")
def photo_set() -> list[Pair]:
    photos = [Image.fromarray(getattr(skdata, name)()).convert("RGB") for name in PHOTOS]
    left, right, _ = skdata.stereo_motorcycle()
    stereo = Pair("stereo pair", view(Image.fromarray(left)), view(Image.fromarray(right)), False)
    return [*photo_pairs(photos, seed=3, unrelated=40), stereo]


@pytest.fixture(scope="module")
def frame_set() -> list[Pair]:
    return frame_pairs(import_test_frames(30), 60)


def _disagreements(pairs: list[Pair]) -> tuple[list[str], int]:
    """What differs between the two matchers on `pairs`, and how many pairs the reference calls one frame."""
    out, yes = [], 0
    for n, pair in enumerate(pairs):
        expected = reference.same_frame(pair.first, pair.second)
        yes += expected
        if crop_match.same_frame(pair.first, pair.second) != expected:
            out.append(f"{n} {pair.kind}: same_frame")
        for crop, whole in ((pair.first, pair.second), (pair.second, pair.first)):
            old, new = reference.match_crop(crop, whole), crop_match.match_crop(crop, whole)
            if old is None or new is None:
                if old is not new:
                    out.append(f"{n} {pair.kind}: match_crop {old} / {new}")
                continue
            pixel = 1.0 / whole.grey.shape[1]
            if old.same_frame != new.same_frame or abs(old.width_fraction - new.width_fraction) > pixel * 1.01:
                out.append(f"{n} {pair.kind}: match_crop {old} / {new}")
            elif not np.allclose([new.score, new.weakest_tile, new.worst_residual],
                                 [old.score, old.weakest_tile, old.worst_residual], atol=1e-6):  # fmt: skip
                out.append(f"{n} {pair.kind}: numbers {old} / {new}")
    return out, yes


def test_the_pair_set_is_varied(photo_set: list[Pair]) -> None:
    kinds = {pair.kind for pair in photo_set}
    assert {"resized", "recompressed", "crop 50 %", "brightness edit", "panned", "rotated crop", "mirrored",
            "moved subject", "half blank", "small crop", "unrelated", "stereo pair"} <= kinds  # fmt: skip
    assert sum(pair.should_match for pair in photo_set) >= 40
    assert sum(not pair.should_match for pair in photo_set) >= 50


def test_same_answers_as_the_reference_on_real_photographs(photo_set: list[Pair]) -> None:
    different, yes = _disagreements(photo_set)
    assert different == []
    assert 30 <= yes <= len(photo_set) - 40  # both answers are exercised


def test_same_answers_on_the_import_tests_frames(frame_set: list[Pair]) -> None:
    """Their shared gradient sends nearly every pair through the whole fine search."""
    different, _ = _disagreements(frame_set)
    assert different == []


def test_grouping_untimed_frames_gives_the_same_groups_and_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    views = import_test_frames(30)
    frames = [Frame(key) for key in range(len(views))]
    fast = ThumbnailMatcher(lambda key: views[key])  # type: ignore[index]
    fast_groups = group_bursts(frames, matcher=fast)
    from aesthete_gui.imaging import crop_groups

    monkeypatch.setattr(crop_groups, "same_frame", reference.same_frame)
    slow = ThumbnailMatcher(lambda key: views[key])  # type: ignore[index]
    assert group_bursts(frames, matcher=slow) == fast_groups
    assert slow._verdicts == fast._verdicts and fast.comparisons > 30


def test_the_plane_fit_is_the_least_squares_one() -> None:
    """The closed-form brightness plane equals numpy's least-squares fit, on odd shapes too."""
    rng = np.random.default_rng(5)
    for h, w in ((1, 1), (1, 7), (7, 1), (2, 90), (64, 64), (61, 97), (120, 160)):
        grey = rng.normal(100, 30, (h, w)) + np.arange(w)[np.newaxis] * 0.7
        assert np.allclose(crop_match._without_slope(grey), reference._without_slope(grey), atol=1e-9)
