"""Scenes whose measures cannot be trusted or that are dark or bright on purpose: at most a warning, named.

Each test writes a real or realistic image (scikit-image's photographs, or a scene built the way a
camera would record it) and reads the verdicts the file gets, as import does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from scipy import ndimage
from skimage import data as skdata

from aesthete_gui.imaging.checks import checks_for_path
from aesthete_gui.imaging.judging import judge
from aesthete_gui.imaging.tones import lost_areas

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade


def _verdicts(img: Image.Image, path: Path, quality: int | None = 92) -> dict[str, tuple[str, str]]:
    saved = degrade.save(img, path, quality)
    return {c.name: (c.verdict, c.reason) for c in checks_for_path(saved)}


def _bare_sky(seed: int = 3) -> Image.Image:
    """A clear sky with faint high haze: a blue gradient, soft cloud wisps, a little sensor noise."""
    rng = np.random.default_rng(seed)
    h, w = 1000, 1500
    rows = np.linspace(0.0, 1.0, h)[:, None, None]
    top, horizon = np.array([60.0, 110.0, 190.0]), np.array([150.0, 190.0, 230.0])
    sky = top + (horizon - top) * rows**1.5 + np.zeros((h, w, 3))
    wisps = ndimage.gaussian_filter(rng.normal(0.0, 1.0, (h, w)), 40.0)
    sky += (wisps / np.abs(wisps).max() * 18.0)[..., None]
    sky += rng.normal(0.0, 1.2, (h, w, 3))
    return Image.fromarray(np.clip(np.rint(sky), 0, 255).astype(np.uint8))


def test_a_bare_sky_has_too_little_detail_to_judge_sharpness(tmp_path: Path) -> None:
    verdicts = _verdicts(_bare_sky(), tmp_path / "sky")
    for name in ("focus", "motion_blur"):
        verdict, reason = verdicts[name]
        assert verdict != "reject", reason
        if verdict == "warn":
            assert reason.startswith(("too little detail to judge sharpness", "sharpness not measured")), reason
    # a photograph with detail, defocused, is still a reject: the rule needs the frame to lack edges
    soft = _verdicts(degrade.defocus(Image.fromarray(skdata.coffee()), 0.01), tmp_path / "soft")
    assert soft["focus"][0] == "reject" and soft["focus"][1].startswith("soft")


def test_too_few_edges_makes_a_soft_score_a_warning() -> None:
    soft = {"focus": 3.6, "focus.subject": 3.6, "focus.narrow": 3.4, "motion_blur.coherence": 0.1, "resolution": 1500.0}
    rejected = {c.name: c for c in judge(soft | {"focus.edge_density": 0.2})}["focus"]
    assert rejected.verdict == "reject"
    warned = {c.name: c for c in judge(soft | {"focus.edge_density": 0.0001})}["focus"]
    assert warned.verdict == "warn" and warned.reason.startswith("too little detail to judge sharpness")


def test_a_scene_soft_by_nature_only_warns_and_says_why() -> None:
    soft = {"focus": 3.6, "focus.subject": 3.6, "focus.narrow": 3.4, "motion_blur.coherence": 0.1, "resolution": 1500.0,
            "focus.edge_density": 0.2}
    assert {c.name: c for c in judge(soft | {"focus.contrast": 150.0})}["focus"].verdict == "reject"
    misty = {c.name: c for c in judge(soft | {"focus.contrast": 45.0})}["focus"]
    assert misty.verdict == "warn" and misty.reason.startswith("a scene soft by nature? Its tones span only 45 of 255 levels anywhere")
    # a frame whose contrast could not be measured is judged as before
    assert {c.name: c for c in judge(soft | {"focus.contrast": float("nan")})}["focus"].verdict == "reject"


def test_a_soft_face_in_an_equally_soft_frame_warns_and_a_face_focus_missed_is_a_reject() -> None:
    portrait = {"faces": 1.0, "focus.face": 3.5, "focus.narrow": 2.8, "motion_blur.coherence": 0.2, "resolution": 512.0,
                "focus.edge_density": 0.3, "focus.contrast": 150.0}
    enlarged = {c.name: c for c in judge(portrait | {"focus": 3.5, "focus.subject": 3.1})}["focus"]
    assert enlarged.verdict == "warn", enlarged.reason
    assert "but so is the whole frame (its crispest detail 3.10)" in enlarged.reason
    # the background crisp and the face soft: focus missed the face
    missed = {c.name: c for c in judge(portrait | {"focus": 3.5, "focus.subject": 2.2})}["focus"]
    assert missed.verdict == "reject" and missed.reason.startswith("the face is soft (edge spread of its eyes 3.50")
    # the whole frame soft enough for the frame's own model: a reject as well
    # (a large file's focus is measured on its 1536 px detail decode: defocused copies read about these)
    blurred = {c.name: c for c in judge(portrait | {"focus": 3.5, "focus.subject": 3.7, "focus.narrow": 4.3, "motion_blur": 4.9,
                                                    "resolution": 2400.0})}["focus"]  # fmt: skip
    assert blurred.verdict == "reject", blurred.reason


def _mist(img: Image.Image, keep: float) -> Image.Image:
    """The frame seen through mist: its tones pulled towards a light grey, `keep` of the contrast left."""
    rgb = np.asarray(img, dtype=np.float64)
    return Image.fromarray(np.clip(np.rint(175.0 + (rgb - rgb.mean()) * keep), 0, 255).astype(np.uint8))


def test_a_soft_misty_scene_is_measured_as_such_and_not_rejected_for_focus(tmp_path: Path) -> None:
    coffee = Image.fromarray(skdata.coffee())
    misty = degrade.defocus(_mist(coffee, 0.2), 0.01)
    saved = degrade.save(misty, tmp_path / "mist", 92)
    focus = next(c for c in checks_for_path(saved) if c.name == "focus")
    assert focus.measures["contrast"] < 80 and focus.verdict == "warn", focus.reason
    assert focus.reason.startswith("a scene soft by nature?"), focus.reason
    # the same blur on the clear scene keeps its contrast and is a reject
    clear = next(c for c in checks_for_path(degrade.save(degrade.defocus(coffee, 0.01), tmp_path / "clear", 92)) if c.name == "focus")
    assert clear.measures["contrast"] >= 80 and clear.verdict == "reject", clear.reason


@pytest.mark.parametrize("sigma", [1.5, 4.0, 8.0, 16.0])
def test_a_clear_scene_blurred_is_never_taken_for_a_scene_soft_by_nature(tmp_path: Path, sigma: float) -> None:
    # the first contrast measure (within 3 px) fell with the blur itself: blurred frames became warnings
    from PIL import ImageFilter

    for name, photo in (("coffee", skdata.coffee()), ("astronaut", skdata.astronaut())):
        blurred = Image.fromarray(photo).filter(ImageFilter.GaussianBlur(sigma))
        focus = next(c for c in checks_for_path(degrade.save(blurred, tmp_path / f"{name}{sigma}", 92)) if c.name == "focus")
        assert focus.verdict == "reject", (name, sigma, focus.reason)
        assert not focus.reason.startswith("a scene soft by nature"), (name, sigma, focus.reason)


def _star_field(seed: int = 5) -> Image.Image:
    """A deep-sky frame: an even near-black sky with faint noise and a few hundred stars, the
    brightest about half of full scale (a long exposure stretched gently, as a camera saves it)."""
    rng = np.random.default_rng(seed)
    h, w = 1200, 1800
    sky = np.full((h, w), 14.0) + ndimage.gaussian_filter(rng.normal(0.0, 1.0, (h, w)), 60.0) * 40.0
    sky += rng.normal(0.0, 1.5, (h, w))
    stars = np.zeros((h, w))
    count = 4000
    ys, xs = rng.integers(0, h, count), rng.integers(0, w, count)
    stars[ys, xs] = rng.pareto(1.6, count) * 900.0 + 300.0
    sky += np.minimum(ndimage.gaussian_filter(stars, 1.3), 200.0)
    tint = np.array([0.95, 1.0, 1.08])
    rgb = sky[..., None] * tint + rng.normal(0.0, 0.8, (h, w, 3))
    return Image.fromarray(np.clip(np.rint(rgb), 0, 255).astype(np.uint8))


def test_a_star_field_is_dark_on_purpose(tmp_path: Path) -> None:
    verdicts = _verdicts(_star_field(), tmp_path / "stars")
    verdict, reason = verdicts["underexposure"]
    assert verdict != "reject", reason
    if verdict == "warn":
        assert reason.startswith("night sky: dark on purpose"), reason
    assert verdicts["noise"][0] != "reject", verdicts["noise"][1]
    # a daylight photograph 2.5 stops too dark keeps its spread of tones: still under-exposed
    dark = _verdicts(degrade.exposure(Image.fromarray(skdata.chelsea()), 2.0**-2.5), tmp_path / "dark")
    assert dark["underexposure"][0] == "reject" and dark["underexposure"][1].startswith("under-exposed")


def _terraces() -> Image.Image:
    """Close texture in brightness only (scikit-image's grass, tinted green and tiled to a frame):
    fine detail everywhere, the same in every channel, as foliage or rice terraces are."""
    grass = np.asarray(skdata.grass(), dtype=np.float64)
    tiled = np.tile(grass, (2, 3))
    stretched = np.clip((tiled - tiled.mean()) * 1.6 + 120.0, 0, 255)
    rgb = stretched[..., None] * np.array([0.92, 1.0, 0.85]) + np.array([10.0, 20.0, 5.0])
    return Image.fromarray(np.clip(np.rint(rgb), 0, 255).astype(np.uint8))


def test_texture_in_brightness_only_is_not_heavy_noise(tmp_path: Path) -> None:
    photo = _terraces()
    verdict, reason = _verdicts(photo, tmp_path / "terraces")["noise"]
    assert verdict != "reject", reason
    # the same frame shot at high ISO speckles in colour too: heavy noise
    noisy, why = _verdicts(degrade.noise(photo, 28.0), tmp_path / "terraces_noisy")["noise"]
    assert noisy == "reject" and why.startswith("heavy noise"), why


def test_grain_without_colour_or_pixel_fineness_only_warns() -> None:
    texture = {"noise": 30.0, "noise.chroma": 3.0, "noise.whiteness": 1.0}  # the model alone: a reject
    checks = {c.name: c for c in judge(texture)}
    assert checks["noise"].verdict == "warn" and "texture rather than sensor noise" in checks["noise"].reason
    sensor = {"noise": 30.0, "noise.chroma": 25.0, "noise.whiteness": 1.0}
    assert {c.name: c for c in judge(sensor)}["noise"].verdict == "reject"
    monochrome = {"noise": 30.0, "noise.chroma": 3.0, "noise.whiteness": 0.5}  # pixel-fine: still sensor noise
    assert {c.name: c for c in judge(monochrome)}["noise"].verdict == "reject"


def _overcast_street() -> Image.Image:
    """A street under a flat overcast sky blown to white: the sky's top third (with an uneven
    roofline), a stone facade below it, and scikit-image's coffee cup in front, in the soft light of
    an overcast day (no deep shadows, so the high-key rule, which needs them, does not apply)."""
    rng = np.random.default_rng(11)
    w, h = 1200, 900
    frame = np.zeros((h, w, 3))
    stone = np.tile(np.asarray(skdata.brick(), dtype=np.float64), (1, 3))[:, :w]
    facade = np.clip((stone - stone.mean()) * 1.4 + 120.0, 0, 245)
    frame[:512] = facade[..., None] * np.array([1.0, 0.97, 0.9])
    roof = 270 + np.rint(ndimage.gaussian_filter1d(rng.normal(0.0, 1.0, w), 25.0) * 120.0).astype(int)
    rows = np.arange(h)[:, None]
    frame[rows < roof[None, :]] = 255.0
    cup = np.asarray(Image.fromarray(skdata.coffee()).resize((w, h - 450), Image.Resampling.LANCZOS), dtype=np.float64)
    frame[450:] = 0.5 * cup + 64.0  # soft light: no deep shadows under an overcast sky
    frame += rng.normal(0.0, 1.0, frame.shape)
    return Image.fromarray(np.clip(np.rint(frame), 0, 255).astype(np.uint8))


def test_a_flat_blown_sky_is_not_an_over_exposed_subject(tmp_path: Path) -> None:
    street = _overcast_street()
    blown = float((np.asarray(street.convert("L")) >= 250).mean())
    assert 0.2 < blown < 0.4  # a large share of the frame is blown: the sky
    verdicts = _verdicts(street, tmp_path / "overcast")
    for name in ("highlights", "overexposure"):
        assert verdicts[name][0] != "reject", verdicts[name][1]
    assert verdicts["overexposure"][0] == "ok" or verdicts["overexposure"][1].startswith("a flat sky blown at the top")
    # the same frame two stops over is still over-exposed: the subject's tones are pushed up too
    over = _verdicts(degrade.exposure(street, 4.0), tmp_path / "over")
    assert "reject" in (over["overexposure"][0], over["highlights"][0])


def test_a_blown_area_at_the_top_without_detail_inside_is_sky() -> None:
    # 12 x 16 blocks: the top 4 rows blown all through; below, bright blocks full of texture
    share = np.zeros((12, 16))
    share[:4] = 1.0
    luma = np.where(share > 0, 255.0, 200.0)
    detail = np.where(share > 0, 0.2, 12.0)
    sky = lost_areas(share, luma, detail, 0.5, bright=True)
    assert sky["detail"] == 0.0 and sky["sky"] == sky["smooth"] > 0.3
    # the same area in the middle of the frame, surrounded by texture, is detail lost
    middle = np.roll(share, 4, axis=0)
    lost = lost_areas(middle, np.where(middle > 0, 255.0, 200.0), np.where(middle > 0, 0.2, 12.0), 0.5, bright=True)
    assert lost["sky"] == 0.0 and lost["detail"] > 0.3


def test_a_soft_face_forgiven_as_a_soft_picture_is_a_reject_beside_a_crisp_frame_of_its_burst() -> None:
    """The excuse "so is the whole frame" holds for an enlarged or soft picture, not for a frame shaken
    or misfocused while the burst's sharpest frame caught the same scene crisp."""
    from aesthete_gui.imaging.judging import Check, SetContext, Sibling
    from aesthete_gui.imaging.verdict_models import verdict_models

    portrait = {"faces": 1.0, "focus.face": 3.8, "focus": 3.8, "focus.subject": 3.6, "focus.narrow": 2.8,
                "motion_blur.coherence": 0.2, "resolution": 1600.0, "focus.edge_density": 0.3, "focus.contrast": 150.0}  # fmt: skip
    alone = {c.name: c for c in judge(portrait)}["focus"]
    assert alone.verdict == "warn" and "but so is the whole frame" in alone.reason

    def beside(subject: float) -> Check:
        best = portrait | {"focus.subject": subject, "focus.face": 2.2}
        terms = tuple((t.measure, t.read(best)) for t in verdict_models()["focus"].terms)
        context = SetContext(siblings=(Sibling("focus", "IMG_0030.JPG", terms),))
        return {c.name: c for c in judge(portrait, context=context)}["focus"]

    shaken = beside(2.4)
    assert shaken.verdict == "reject"
    assert shaken.reason == ("the face is soft (edge spread of its eyes 3.80) and the frame softer than IMG_0030.JPG, the "
                             "sharpest frame of its burst (its crispest detail 3.60 against 2.40)")
    assert beside(3.3).verdict == "warn"  # the sharpest frame is as soft: a soft picture, every frame of it
