"""Every technical verdict on real photographs (scikit-image samples) degraded by the test, and the
scenes a photographer shoots on purpose (blue sky, snow, silhouette, panning) that are not defects."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging.checks import (
    CHECK_NAMES,
    MEASURE_VERSION,
    checks_for_path,
    checks_version,
    judge,
    missing_levels,
    rejected,
    thresholds,
    worst_verdict,
)
from aesthete_gui.imaging.ingest import ingest_file

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade

from aesthete_gui.imaging.noise import LUMA_SHARE


def _photo(which: str = "astronaut") -> Image.Image:
    return Image.fromarray(getattr(skdata, which)()).convert("RGB")


def _verdicts(img: Image.Image, path: Path, quality: int | None = None) -> dict[str, tuple[str, str]]:
    saved = degrade.save(img, path, quality)
    return {c.name: (c.verdict, c.reason) for c in checks_for_path(saved)}


@pytest.mark.parametrize("which", ["astronaut", "coffee", "chelsea"])
def test_clean_photographs_are_not_rejected(tmp_path: Path, which: str) -> None:
    verdicts = _verdicts(_photo(which), tmp_path / which)
    assert [n for n in CHECK_NAMES if n != "eyes"] == [n for n in verdicts if n != "eyes"]
    assert [name for name, (verdict, _) in verdicts.items() if verdict == "reject"] == []


def test_missed_focus_is_rejected(tmp_path: Path) -> None:
    verdict, reason = _verdicts(degrade.gaussian_blur(_photo(), 4.0), tmp_path / "soft")["focus"]
    assert verdict == "reject"
    assert "soft" in reason


def test_motion_blur_is_named(tmp_path: Path) -> None:
    verdicts = _verdicts(degrade.motion_blur(_photo("coffee"), 25), tmp_path / "shake")
    assert verdicts["motion_blur"][0] == "reject"
    assert "motion blur" in verdicts["motion_blur"][1]


def test_blown_highlights_name_the_face_and_the_share_of_the_frame(tmp_path: Path) -> None:
    verdicts = _verdicts(degrade.exposure(_photo(), 3.0), tmp_path / "bright")
    verdict, reason = verdicts["highlights"]
    assert verdict == "reject"
    assert reason.startswith("the face is blown on ")
    assert verdicts["overexposure"][0] == "reject"
    assert verdicts["overexposure"][1].startswith("over-exposed: ") and "% of the frame blown" in verdicts["overexposure"][1]


def _with_top(img: Image.Image, top: np.ndarray) -> Image.Image:
    frame = np.asarray(img, dtype=np.float64).copy()
    frame[: top.shape[0]] = top
    return Image.fromarray(np.clip(np.rint(frame), 0, 255).astype(np.uint8))


def test_a_saturated_blue_sky_is_not_blown(tmp_path: Path) -> None:
    # the sky of IMG_0029: blue at 255 on a third of the frame, red and green far below: not clipped
    photo = _photo("coffee")
    rows = photo.height * 2 // 5
    ramp = np.linspace(0.0, 1.0, rows)[:, None]
    sky = np.stack([110 + 50 * ramp, 165 + 40 * ramp, np.full_like(ramp, 255.0)], axis=-1) * np.ones((1, photo.width, 1))
    verdicts = _verdicts(_with_top(photo, sky), tmp_path / "blue_sky", quality=92)
    assert verdicts["highlights"][0] == "ok" and verdicts["overexposure"][0] == "ok"
    assert [n for n, (v, _) in verdicts.items() if v == "reject"] == []


def test_specular_highlights_are_ignored(tmp_path: Path) -> None:
    frame = np.asarray(_photo("coffee")).copy()
    rng = np.random.default_rng(3)
    for _ in range(12):  # glints on the cup and the spoon: a few pixels each
        y, x = rng.integers(10, frame.shape[0] - 10), rng.integers(10, frame.shape[1] - 10)
        frame[y - 2: y + 3, x - 2: x + 3] = 255
    verdicts = _verdicts(Image.fromarray(frame), tmp_path / "glints")
    assert verdicts["highlights"] == ("ok", verdicts["highlights"][1]) and "no detail lost" in verdicts["highlights"][1]
    assert verdicts["overexposure"][0] == "ok"


def test_a_snow_scene_is_a_bright_scene_not_an_over_exposed_one(tmp_path: Path) -> None:
    photo = _photo("astronaut")
    h, w = photo.height, photo.width
    snow = 244.0 - 8.0 * np.linspace(0, 1, h - h * 9 // 20)[:, None, None] + np.random.default_rng(1).normal(0, 1.2, (h - h * 9 // 20, w, 3))
    frame = np.asarray(photo, dtype=np.float64).copy()
    frame[h * 9 // 20:] = snow + np.array([0.0, 0.0, 4.0])
    verdicts = _verdicts(Image.fromarray(np.clip(np.rint(frame), 0, 255).astype(np.uint8)), tmp_path / "snow", quality=92)
    assert verdicts["overexposure"][0] == "ok" and verdicts["overexposure"][1].startswith("bright scene")
    assert [n for n, (v, _) in verdicts.items() if v == "reject"] == []


def test_a_silhouette_is_intent_not_crushed_detail(tmp_path: Path) -> None:
    yy, xx = np.mgrid[:400, :600]
    sky = np.stack([230 - 0.1 * yy, 150 - 0.05 * yy, 90 + 0 * yy], axis=-1).astype(np.float64)
    shape = (((yy - 280) / 130) ** 2 + ((xx - 300) / 120) ** 2 <= 1) | (yy > 345)
    frame = np.where(shape[..., None], 2.0, sky) + np.random.default_rng(2).normal(0, 1, sky.shape)
    verdicts = _verdicts(Image.fromarray(np.clip(np.rint(frame), 0, 255).astype(np.uint8)), tmp_path / "silhouette")
    assert verdicts["shadows"][0] == "ok" and verdicts["shadows"][1].startswith("silhouette against a bright background")
    assert verdicts["underexposure"][0] != "reject"


def _on_backdrop(photo: Image.Image, level: float, centre_y: float, radii: tuple[float, float], seed: int) -> Image.Image:
    """The photograph's subject (an ellipse of it) on a smooth backdrop of one tone, as in a studio."""
    frame = np.asarray(photo, dtype=np.float64)
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[:h, :w]
    subject = (((yy - h * centre_y) / (h * radii[0])) ** 2 + ((xx - w * 0.5) / (w * radii[1])) ** 2) <= 1
    backdrop = level + np.random.default_rng(seed).normal(0.0, 1.0, frame.shape)
    return Image.fromarray(np.clip(np.rint(np.where(subject[..., None], frame, backdrop)), 0, 255).astype(np.uint8))


def test_a_high_key_studio_frame_is_intent_not_over_exposure(tmp_path: Path) -> None:
    # a cup on a blown white seamless backdrop (two thirds of the frame): the cup keeps its tones
    verdicts = _verdicts(_on_backdrop(_photo("coffee"), 255.0, 0.55, (0.33, 0.3), 5), tmp_path / "high_key", quality=92)
    assert verdicts["overexposure"][0] == "warn" and verdicts["overexposure"][1].startswith("high-key: a smooth bright background")
    assert verdicts["highlights"][0] != "reject"
    assert [n for n, (v, _) in verdicts.items() if v == "reject"] == []


def test_a_low_key_studio_portrait_is_intent_not_under_exposure(tmp_path: Path) -> None:
    # a face on a black backdrop (four fifths of the frame)
    verdicts = _verdicts(_on_backdrop(_photo("astronaut"), 4.0, 0.32, (0.3, 0.22), 6), tmp_path / "low_key", quality=92)
    assert verdicts["shadows"] == ("ok", verdicts["shadows"][1]) and verdicts["shadows"][1].startswith("low-key: a smooth black area")
    assert verdicts["underexposure"][0] == "ok" and verdicts["underexposure"][1].startswith("low-key")
    assert [n for n, (v, _) in verdicts.items() if v == "reject"] == []


def test_a_panned_shot_is_not_motion_blur(tmp_path: Path) -> None:
    # the subject (an ellipse of the frame) kept sharp, everything around it streaked sideways
    photo = _photo("coffee")
    frame = np.asarray(photo)
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[:h, :w]
    subject = (((yy - h / 2) / (h * 0.3)) ** 2 + ((xx - w / 2) / (w * 0.22)) ** 2) <= 1
    streaked = np.asarray(degrade.smear(photo, 0.03, angle_deg=0.0))
    panned = Image.fromarray(np.where(subject[..., None], frame, streaked).astype(np.uint8))
    verdicts = _verdicts(panned, tmp_path / "panned", quality=92)
    assert verdicts["motion_blur"][0] == "ok" and verdicts["focus"][0] == "ok"
    assert verdicts["motion_blur"][1].startswith("panning: the subject is sharp and the background streaked")


def test_moderate_smear_and_defocus_are_rejected(tmp_path: Path) -> None:
    photo = _photo("astronaut")
    smeared = _verdicts(degrade.smear(photo, 0.02), tmp_path / "smear", quality=92)
    assert "reject" in (smeared["focus"][0], smeared["motion_blur"][0])
    defocused = _verdicts(degrade.defocus(photo, 0.01), tmp_path / "defocus", quality=92)
    assert defocused["focus"][0] == "reject" and "soft" in defocused["focus"][1]


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
    verdict, reason = _verdicts(degrade.noise(_photo(), 28.0), tmp_path / "noisy", quality=92)["noise"]
    assert verdict == "reject"
    assert reason.startswith("heavy noise")


@pytest.mark.parametrize("which", ["grass", "gravel", "brick", "hubble_deep_field"])
def test_texture_and_star_fields_are_not_noise(tmp_path: Path, which: str) -> None:
    photo = _photo(which)
    assert _verdicts(photo, tmp_path / which)["noise"][0] != "reject"
    assert _verdicts(degrade.noise(photo, 28.0), tmp_path / f"{which}_noisy", quality=92)["noise"][0] == "reject"


def test_noise_on_a_large_image_is_judged_at_its_own_pixels(tmp_path: Path) -> None:
    # 1411 px: the check frame is shrunk to 768 px, which averages much of the noise away
    retina = _photo("retina")
    assert _verdicts(retina, tmp_path / "retina")["noise"][0] == "ok"
    assert _verdicts(degrade.noise(retina, 35.0), tmp_path / "retina_noisy")["noise"][0] == "reject"


def test_noise_reads_the_same_at_any_size_and_format(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    values = []
    for side, quality in ((700, None), (1100, None), (1100, 98), (2400, 98)):
        grey = np.clip(128 + rng.normal(0.0, 10.0, (side * 2 // 3, side)), 0, 255).astype(np.uint8)
        path = degrade.save(Image.fromarray(grey).convert("RGB"), tmp_path / f"flat_{side}_{quality}", quality)
        values.append(next(c.value for c in checks_for_path(path) if c.name == "noise"))
    # sigma 10 on every pixel, alike in the three channels: luma keeps it all, and the value is per
    # channel (luma's share of independent noise is 0.67); the 2400 px one is judged as it shows at
    # 1536 px (10 * 1536 / 2400)
    assert values[:3] == pytest.approx([values[0]] * 3, rel=0.12)
    assert 7.0 < values[0] * LUMA_SHARE < 11.0
    assert values[3] == pytest.approx(values[0] * 1536 / 2400, rel=0.15)


def test_fine_texture_is_not_taken_for_noise(tmp_path: Path) -> None:
    brick = _photo("brick")  # a wall whose texture fills the frame
    assert _verdicts(brick, tmp_path / "brick")["noise"][0] == "ok"
    assert _verdicts(degrade.noise(brick, 35.0), tmp_path / "brick_noisy")["noise"][0] == "reject"


def test_a_brightened_dark_scene_is_caught_by_its_missing_levels(tmp_path: Path) -> None:
    # the rocket at dusk brightened x3 clips too little for the highlight checks
    rocket = _photo("rocket")
    assert _verdicts(rocket, tmp_path / "rocket")["brightened"][0] == "ok"
    verdict, reason = _verdicts(degrade.exposure(rocket, 3.0), tmp_path / "rocket_x3")["brightened"]
    assert verdict == "reject"
    assert reason.startswith("brightened after capture: ")
    assert _verdicts(degrade.exposure(rocket, 1.6), tmp_path / "rocket_x16")["brightened"][0] == "warn"


def test_a_large_lossless_image_is_judged_on_its_levels_before_shrinking(tmp_path: Path) -> None:
    night = _photo("hubble_deep_field")  # 1000 px: shrinking to the check frame fills the gaps
    assert _verdicts(night, tmp_path / "night")["brightened"][0] == "ok"
    assert _verdicts(degrade.exposure(night, 3.0), tmp_path / "night_x3")["brightened"][0] == "reject"


def test_palette_images_are_not_taken_for_brightened_ones(tmp_path: Path) -> None:
    # 256 colours leave most green levels empty, but nothing was brightened: not judged
    photo = _photo("coffee")
    gif = tmp_path / "coffee.gif"
    photo.save(gif)
    palette_png = tmp_path / "coffee_palette.png"
    photo.convert("P", palette=Image.Palette.ADAPTIVE, colors=256).save(palette_png)
    for path in (gif, palette_png):
        brightened = next(c for c in checks_for_path(path) if c.name == "brightened")
        assert math.isnan(brightened.value) and brightened.verdict == "ok"
        assert brightened.reason.startswith("not judged")


def test_flat_and_narrow_toned_frames_are_not_taken_for_brightened_ones(tmp_path: Path) -> None:
    # a grey card, and a smooth sky spanning a few levels: the empty levels beyond their ends are no gaps
    grey = tmp_path / "grey.png"
    Image.new("RGB", (600, 400), (128, 128, 128)).save(grey)
    ramp = np.linspace(118, 138, 600)[None, :, None] + np.random.default_rng(3).normal(0, 0.6, (400, 600, 3))
    sky = tmp_path / "sky.png"
    Image.fromarray(np.clip(np.rint(ramp), 0, 255).astype(np.uint8)).save(sky)
    wide = np.linspace(30, 220, 600)[None, :, None] + np.random.default_rng(4).normal(0, 1.5, (400, 600, 3))
    gradient = tmp_path / "gradient.png"
    Image.fromarray(np.clip(np.rint(wide), 0, 255).astype(np.uint8)).save(gradient)
    for path in (grey, sky, gradient):
        brightened = next(c for c in checks_for_path(path) if c.name == "brightened")
        assert brightened.verdict == "ok", (path.name, brightened)
    assert next(c for c in checks_for_path(gradient) if c.name == "brightened").value < 0.05


def test_missing_levels_of_a_comb_and_of_a_continuous_histogram() -> None:
    continuous = np.full(256, 100)
    comb = np.where(np.arange(256) % 2 == 0, 200, 0)
    assert missing_levels(continuous) == 0.0
    assert missing_levels(comb) == pytest.approx(0.5, abs=0.02)
    assert missing_levels(np.zeros(256)) == 0.0
    assert missing_levels([]) == 0.0  # a source without 8-bit channels is not judged
    # clipped levels (0 and 255) and the few scattered pixels of the tails are not counted as gaps
    bell = np.rint(5_000 * np.exp(-(((np.arange(256) - 120) / 30.0) ** 2))).astype(int)
    bell[[0, 255]] = 50_000
    bell[[10, 20, 230, 240]] = 1
    assert missing_levels(bell) == 0.0


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
    # stored measurements follow the measuring code only; the thresholds' version stamps each verdict
    assert checks_version().split("+")[0] == MEASURE_VERSION
    verdict = judge({"noise": 1.0}, judged="stamp")[0]
    assert verdict.judged == "stamp"


def test_import_stores_the_same_values_the_file_gives(tmp_path: Path) -> None:
    path = degrade.save(degrade.exposure(_photo(), 2.6), tmp_path / "bright", quality=90)
    result = ingest_file(path, tmp_path / "cache", with_preview=False)
    assert result.analysis is not None
    assert result.ok
    assert result.analysis.checks == checks_for_path(path)
    assert result.analysis.version == checks_version()
    with_preview = ingest_file(path, tmp_path / "cache2", with_preview=True)
    assert with_preview.analysis == result.analysis


@pytest.mark.parametrize("size", [(1, 1), (7, 300), (300, 7), (15, 9)])
def test_tiny_and_thin_frames_are_measured(tmp_path: Path, size: tuple[int, int]) -> None:
    img = _photo("coffee").resize(size, Image.Resampling.BOX)
    checks = {c.name: c for c in checks_for_path(degrade.save(img, tmp_path / f"tiny_{size[0]}x{size[1]}"))}
    assert list(checks) == [n for n in CHECK_NAMES if n != "eyes"]  # no face on a frame this small
    assert checks["resolution"].verdict != "ok"
    not_judged = ("compression", "brightened", "focus", "motion_blur")  # NaN: nothing to judge on a frame this small
    assert all(np.isfinite(c.value) for c in checks.values() if c.name not in not_judged)


def _mosaic() -> Image.Image:
    """A 2048 x 1536 frame crisp at its own pixels: real photographs side by side at their own size
    (scikit-image's are 512 px at most; enlarging one would soften it)."""
    frame = Image.new("RGB", (2048, 1536), (118, 112, 104))
    names = ("astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry", "cat")
    for i in range(12):
        img = _photo(names[i % len(names)])
        frame.paste(img.crop((0, 0, min(512, img.width), min(512, img.height))), ((i % 4) * 512, (i // 4) * 512))
    return frame


def test_a_large_frame_is_judged_for_focus_on_its_detail_decode(tmp_path: Path) -> None:
    """A defocus of 0.5 % of the width is a 3.8 px disc on the 768 px check frame, within the softness
    of clean frames; focus and motion blur are measured on a larger decode (here 1/2 scale, 1024 px:
    a 5.1 px disc)."""
    from aesthete_gui.imaging.checks import (
        analyse_path,
        decode_check_frames,
        detail_wanted,
        measure,
    )
    from aesthete_gui.imaging.judging import values_of

    clean = degrade.save(_mosaic(), tmp_path / "clean", quality=92)
    soft = degrade.save(degrade.defocus(_mosaic(), 0.005), tmp_path / "soft", quality=92)
    narrow = {}
    for name, path in (("clean", clean), ("soft", soft)):
        check, detail = decode_check_frames(path.read_bytes(), path.name)
        assert detail is not None and max(check.image.size) == 768 and max(detail.image.size) == 1024
        assert detail_wanted(check.full_size, check.image.size)
        on_check = measure(check.image, check.full_size)["focus.narrow"]
        analysis = analyse_path(path)
        on_detail = values_of([c.as_dict() for c in analysis.checks], len(analysis.faces))["focus.narrow"]
        narrow[name] = (on_check, on_detail)
        verdict = next(c.verdict for c in analysis.checks if c.name == "focus")
        assert verdict == ("ok" if name == "clean" else "reject")
    # the disc widens the narrowest subject edges about twice as much, in pixels, on the detail decode
    # (2.59 -> 3.26 px on the check frame, 2.40 -> 3.76 px on the detail decode when written)
    assert narrow["soft"][1] - narrow["clean"][1] > 1.5 * (narrow["soft"][0] - narrow["clean"][0])
    assert not detail_wanted((900, 600), (768, 512))  # a decode 1.17 times the check frame adds too little
