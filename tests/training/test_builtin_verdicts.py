"""The built-in scorer respects the technical verdicts on real photographs degraded by the test, never
rewards noise, and spreads clean frames over the scale."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.engine.builtin_scorer import REJECT_CEILING, BuiltinScorer
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.imaging.checks import checks_for_path, rejected
from aesthete_gui.imaging.features import FEATURE_NAMES, as_vector, compute_features

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import culling_data as degrade


def _pair(tmp_path: Path, which: str, transform) -> tuple[dict[str, float], dict[str, float], Path]:  # type: ignore[no-untyped-def]
    img = Image.fromarray(getattr(skdata, which)()).convert("RGB")
    original = degrade.save(img, tmp_path / f"{which}_original")
    copy = degrade.save(transform(img), tmp_path / f"{which}_copy")
    clean_scores, copy_scores = BuiltinScorer().score_paths([str(original), str(copy)])
    return clean_scores, copy_scores, copy


@pytest.mark.parametrize(
    ("which", "transform"),
    [
        ("astronaut", lambda i: degrade.exposure(i, 2.6)),
        ("coffee", lambda i: degrade.exposure(i, 2**-2.5)),  # the moderate level (-2.3 EV only warns since the six-split fit)
        ("chelsea", lambda i: degrade.gaussian_blur(i, 4.0)),
        ("astronaut", lambda i: degrade.noise(i, 35.0)),
        ("coffee", lambda i: degrade.downscale(i, 40)),
    ],
    ids=["brightened", "darkened", "blurred", "noisy", "tiny"],
)
def test_a_rejected_copy_never_outscores_its_original(tmp_path: Path, which: str, transform) -> None:  # type: ignore[no-untyped-def]
    clean, copy, path = _pair(tmp_path, which, transform)
    assert rejected(checks_for_path(path)), "the copy should carry a reject verdict"
    assert copy["technique"] < clean["technique"]
    assert copy["overall"] < clean["overall"]


def test_a_brightened_night_scene_is_not_better(tmp_path: Path) -> None:
    clean, copy, path = _pair(tmp_path, "hubble_deep_field", lambda i: degrade.exposure(i, 2.6))
    # it clips too little for the highlight checks; its missing tone levels give it away
    assert [c.name for c in rejected(checks_for_path(path))] == ["brightened"]
    assert copy["technique"] < clean["technique"]
    assert copy["overall"] < clean["overall"]


def test_a_reject_verdict_scores_below_every_frame_without_one() -> None:
    rows = np.stack([as_vector(compute_features(Image.fromarray(getattr(skdata, which)()).convert("RGB"))) for which in ("astronaut", "moon", "camera", "coffee")])
    features = np.concatenate([rows, rows])
    verdicts = np.array([False] * 4 + [True] * 4)
    scores = BuiltinScorer().score_arrays(None, FEATURE_NAMES, features, rejected=verdicts)
    for dimension in ("technique", "overall"):
        column = scores[:, DIMENSIONS.index(dimension)]
        assert column[verdicts].max() < column[~verdicts].min()
        # within each group the rules still order the frames the same way
        assert list(np.argsort(column[:4])) == list(np.argsort(column[4:]))
    # the other dimensions do not depend on the verdict
    others = [DIMENSIONS.index(d) for d in DIMENSIONS if d not in ("technique", "overall")]
    assert np.allclose(scores[:4, others], scores[4:, others])
    with pytest.raises(ValueError, match="rows"):
        BuiltinScorer().score_arrays(None, FEATURE_NAMES, features, rejected=verdicts[:3])


def test_a_dark_night_scene_is_not_punished_as_under_exposed(tmp_path: Path) -> None:
    night, darker, path = _pair(tmp_path, "hubble_deep_field", lambda i: degrade.exposure(i, 0.2))
    assert rejected(checks_for_path(path))
    assert night["technique"] > darker["technique"] and night["technique"] > 1.0 + 4.0 * REJECT_CEILING


@pytest.mark.parametrize(("which", "sigma"), [("astronaut", 8.0), ("coffee", 12.0), ("chelsea", 28.0)])
def test_noise_is_never_rewarded_as_detail(tmp_path: Path, which: str, sigma: float) -> None:
    clean, noisy, _ = _pair(tmp_path, which, lambda i: degrade.noise(i, sigma))
    for dimension in DIMENSIONS:
        if dimension != "composition":  # the layout does not change with grain
            assert noisy[dimension] < clean[dimension], dimension


def test_clean_frames_spread_over_the_scale(tmp_path: Path) -> None:
    names = ("astronaut", "coffee", "chelsea", "rocket", "camera", "hubble_deep_field")
    paths = []
    for which in names:
        img = Image.fromarray(getattr(skdata, which)()).convert("RGB")
        paths.append(str(degrade.save(img, tmp_path / which, 92)))
    scores = BuiltinScorer().score_paths(paths)
    for dimension in DIMENSIONS:
        column = [s[dimension] for s in scores]
        assert len({round(v, 2) for v in column}) == len(names), dimension  # continuous: no ties in clumps
        assert max(column) - min(column) > 0.6, dimension


def test_stored_measurements_score_like_a_fresh_analysis(tmp_path: Path) -> None:
    from aesthete_gui.imaging.checks import analyse_path
    from aesthete_gui.imaging.judging import values_of

    img = Image.fromarray(skdata.coffee())
    path = degrade.save(img, tmp_path / "coffee", 92)
    analysis = analyse_path(path)
    row = as_vector(compute_features(Image.open(path).convert("RGB")))[np.newaxis]
    measured = [values_of([c.as_dict() for c in analysis.checks], len(analysis.faces))]
    with_checks = BuiltinScorer().score_arrays(None, FEATURE_NAMES, row, rejected=np.array([False]), measures=measured)
    without = BuiltinScorer().score_arrays(None, FEATURE_NAMES, row)
    assert with_checks.shape == without.shape == (1, 5)
    assert np.all((with_checks >= 1.0) & (with_checks <= 5.0))
    with pytest.raises(ValueError, match="measures has 2 rows"):
        BuiltinScorer().score_arrays(None, FEATURE_NAMES, row, measures=measured * 2)
