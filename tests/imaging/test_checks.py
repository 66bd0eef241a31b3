"""Every technical verdict on real photographs (scikit-image samples) degraded by the test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging.checks import (
    CHECK_NAMES,
    checks_for_path,
    checks_version,
    judge,
    rejected,
    thresholds,
    worst_verdict,
)
from aesthete_gui.imaging.ingest import ingest_file

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade


def _photo(which: str = "astronaut") -> Image.Image:
    return Image.fromarray(getattr(skdata, which)()).convert("RGB")


def _verdicts(img: Image.Image, path: Path, quality: int | None = None) -> dict[str, tuple[str, str]]:
    saved = degrade.save(img, path, quality)
    return {c.name: (c.verdict, c.reason) for c in checks_for_path(saved)}


@pytest.mark.parametrize("which", ["astronaut", "coffee", "chelsea"])
def test_clean_photographs_are_not_rejected(tmp_path: Path, which: str) -> None:
    verdicts = _verdicts(_photo(which), tmp_path / which)
    assert list(verdicts) == list(CHECK_NAMES)
    assert [name for name, (verdict, _) in verdicts.items() if verdict == "reject"] == []


def test_missed_focus_is_rejected(tmp_path: Path) -> None:
    verdict, reason = _verdicts(degrade.gaussian_blur(_photo(), 4.0), tmp_path / "soft")["focus"]
    assert verdict == "reject"
    assert "soft" in reason


def test_motion_blur_is_named(tmp_path: Path) -> None:
    verdicts = _verdicts(degrade.motion_blur(_photo("coffee"), 25), tmp_path / "shake")
    assert verdicts["motion_blur"][0] == "reject"
    assert "motion blur" in verdicts["motion_blur"][1]


def test_blown_highlights_give_the_clipped_share(tmp_path: Path) -> None:
    verdicts = _verdicts(degrade.exposure(_photo(), 3.0), tmp_path / "bright")
    verdict, reason = verdicts["highlights"]
    assert verdict == "reject"
    assert reason.startswith("highlights clipped on ") and reason.endswith(" % of the frame")
    assert verdicts["overexposure"][0] == "reject"


def test_under_exposure_rejected_but_a_dark_night_scene_is_not(tmp_path: Path) -> None:
    dark = _verdicts(degrade.exposure(_photo("chelsea"), 0.2), tmp_path / "dark")
    assert dark["underexposure"][0] == "reject"
    assert "under-exposed" in dark["underexposure"][1]
    # the Hubble deep field: a black sky with bright stars is dark, not under-exposed
    night = _verdicts(_photo("hubble_deep_field"), tmp_path / "night")
    assert night["underexposure"][0] == "ok"
    assert night["shadows"][0] != "reject"


def test_crushed_shadows_warn_and_never_reject_alone() -> None:
    checks = {c.name: c for c in judge({"shadows": 0.9})}
    assert checks["shadows"].verdict == "warn"
    assert "crushed" in checks["shadows"].reason


def test_heavy_noise_is_rejected(tmp_path: Path) -> None:
    verdict, reason = _verdicts(degrade.noise(_photo(), 35.0), tmp_path / "noisy")["noise"]
    assert verdict == "reject"
    assert "noise" in reason


def test_a_thumbnail_is_too_small_to_use(tmp_path: Path) -> None:
    verdict, reason = _verdicts(degrade.downscale(_photo(), 40), tmp_path / "tiny")["resolution"]
    assert verdict == "reject"
    assert reason.startswith("too small to use")


def test_heavy_jpeg_compression_is_rejected_and_png_not_judged(tmp_path: Path) -> None:
    assert _verdicts(_photo(), tmp_path / "heavy", quality=6)["compression"][0] == "reject"
    assert _verdicts(_photo(), tmp_path / "fine", quality=92)["compression"][0] == "ok"
    png = _verdicts(_photo(), tmp_path / "lossless")["compression"]
    assert png == ("ok", "not a JPEG: compression not judged")


def test_worst_verdict_and_rejected() -> None:
    checks = judge({"noise": 1.0, "resolution": 40.0})
    assert worst_verdict(checks) == "reject"
    assert [c.name for c in rejected(checks)] == ["resolution"]
    assert worst_verdict([]) == "ok"


def test_thresholds_come_from_one_versioned_file() -> None:
    limits = thresholds()
    assert set(CHECK_NAMES) <= set(limits)
    assert checks_version().split("+")[0].endswith("." + str(limits["version"]))


def test_import_stores_the_same_values_the_file_gives(tmp_path: Path) -> None:
    path = degrade.save(degrade.exposure(_photo(), 2.6), tmp_path / "bright", quality=90)
    result = ingest_file(path, tmp_path / "cache", with_preview=False)
    assert result.analysis is not None
    assert result.ok
    assert result.analysis.checks == checks_for_path(path)
    assert result.analysis.version == checks_version()
    with_preview = ingest_file(path, tmp_path / "cache2", with_preview=True)
    assert with_preview.analysis == result.analysis
