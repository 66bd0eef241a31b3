"""Each image property behaves as its definition says, on constructed images."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageEnhance, ImageFilter
from scipy import ndimage

from aesthete_gui.imaging.features import (
    FEATURE_NAMES,
    FEATURE_VERSION,
    compute_features,
    feature_vector,
)
from tests.imaging.conftest import grey_image, noise_texture, photo


@pytest.fixture(scope="module")
def scene() -> Image.Image:
    return photo((768, 512))


@pytest.fixture(scope="module")
def scene_features(scene: Image.Image) -> dict[str, float]:
    return compute_features(scene)


def _flat(value: int = 128, size: tuple[int, int] = (256, 192)) -> Image.Image:
    return Image.new("RGB", size, (value, value, value))


def test_names_version_and_vector(scene: Image.Image, scene_features: dict[str, float]) -> None:
    assert len(FEATURE_NAMES) >= 45 and len(set(FEATURE_NAMES)) == len(FEATURE_NAMES)
    assert FEATURE_VERSION
    assert list(scene_features) == list(FEATURE_NAMES)
    assert all(np.isfinite(v) for v in scene_features.values())
    vector = feature_vector(scene)
    assert vector.dtype == np.float32 and vector.shape == (len(FEATURE_NAMES),)
    assert np.allclose(vector, [scene_features[n] for n in FEATURE_NAMES], rtol=1e-5, atol=1e-6)


def test_flat_grey_image_is_finite_everywhere() -> None:
    values = compute_features(_flat())
    assert all(np.isfinite(v) for v in values.values())
    for name in ("rms_contrast", "luminance_entropy", "complexity", "edge_density", "colour_entropy", "colourfulness"):
        assert values[name] == pytest.approx(0.0, abs=1e-6), name


def test_size_and_aspect_use_the_original_size() -> None:
    values = compute_features(_flat(size=(400, 300)), original_size=(6000, 4000))
    assert values["image_megapixels"] == pytest.approx(24.0)
    assert values["aspect_ratio"] == pytest.approx(1.5)
    assert compute_features(_flat(size=(300, 600)))["aspect_ratio"] == pytest.approx(0.5)


def test_contrast_and_luminance_entropy() -> None:
    checker = grey_image(np.kron((np.indices((8, 8)).sum(axis=0) % 2) * 255, np.ones((32, 32))))
    values = compute_features(checker)
    assert values["rms_contrast"] == pytest.approx(0.5, abs=0.01)
    assert values["luminance_entropy"] == pytest.approx(1.0, abs=0.01)
    ramp = grey_image(np.tile(np.arange(256), (64, 1)).astype(float))
    assert compute_features(ramp)["luminance_entropy"] == pytest.approx(8.0, abs=0.05)


def test_complexity_and_edge_density_rise_with_detail(scene: Image.Image, scene_features: dict[str, float]) -> None:
    smooth = compute_features(scene.filter(ImageFilter.GaussianBlur(6)))
    assert smooth["complexity"] < scene_features["complexity"]
    assert smooth["edge_density"] < scene_features["edge_density"]


def test_colour_statistics_of_pure_colours() -> None:
    red = compute_features(Image.new("RGB", (64, 64), (255, 0, 0)))
    assert (red["rgb_mean_r"], red["rgb_mean_g"], red["rgb_mean_b"]) == pytest.approx((1.0, 0.0, 0.0))
    assert red["rgb_std_r"] == pytest.approx(0.0, abs=1e-6)
    assert red["lab_mean_l"] == pytest.approx(53.24, abs=0.1)
    assert red["lab_mean_a"] == pytest.approx(80.1, abs=0.3)
    assert red["hsv_mean_s"] == pytest.approx(1.0)
    assert red["colour_entropy"] == 0.0
    green = compute_features(Image.new("RGB", (64, 64), (0, 255, 0)))
    assert green["hsv_mean_h"] == pytest.approx(1 / 3, abs=1e-3)
    white = compute_features(Image.new("RGB", (64, 64), (255, 255, 255)))
    assert white["lab_mean_l"] == pytest.approx(100.0, abs=0.05)
    assert abs(white["lab_mean_a"]) < 0.05 and abs(white["lab_mean_b"]) < 0.05


def test_hue_statistics_are_circular() -> None:
    half = np.zeros((64, 64, 3), dtype=np.uint8)
    half[:, :32] = (255, 0, 40)  # hue just below 1.0 (red-magenta)
    half[:, 32:] = (255, 40, 0)  # hue just above 0.0 (red-orange)
    values = compute_features(Image.fromarray(half))
    assert min(values["hsv_mean_h"], 1 - values["hsv_mean_h"]) < 0.01  # red, not cyan (0.5)
    assert values["hsv_std_h"] < 0.03
    two_colours = compute_features(Image.fromarray(half))["colour_entropy"]
    assert two_colours == pytest.approx(1.0)


def test_mirror_symmetry() -> None:
    left = noise_texture((128, 256), seed=1)
    symmetric = grey_image(np.hstack([left, left[:, ::-1]]))
    values = compute_features(symmetric)
    assert values["mirror_symmetry_lr"] == pytest.approx(1.0, abs=1e-3)
    assert abs(values["mirror_symmetry_tb"]) < 0.2
    random = compute_features(grey_image(noise_texture((256, 256), seed=2)))
    assert abs(random["mirror_symmetry_lr"]) < 0.2
    top = noise_texture((256, 128), seed=3)
    assert compute_features(grey_image(np.vstack([top, top[::-1]])))["mirror_symmetry_tb"] == pytest.approx(1.0, abs=1e-3)


def test_balance_and_centre_of_visual_mass() -> None:
    everywhere = compute_features(grey_image(noise_texture((256, 256), seed=4)))
    assert everywhere["balance"] > 0.95
    assert everywhere["mass_centre_x"] == pytest.approx(0.5, abs=0.03)
    assert everywhere["mass_centre_distance"] < 0.05
    one_side = np.full((256, 256), 128.0)
    one_side[:, :64] = noise_texture((64, 256), seed=5)
    lopsided = compute_features(grey_image(one_side))
    assert lopsided["balance"] < everywhere["balance"] - 0.2
    assert lopsided["mass_centre_x"] < 0.2
    assert lopsided["mass_centre_distance"] > 0.4


def test_fourier_slope() -> None:
    white = compute_features(grey_image(noise_texture((512, 512), seed=6)))
    assert abs(white["fourier_slope"]) < 0.3  # white noise: flat spectrum
    smooth = grey_image(ndimage.gaussian_filter(noise_texture((512, 512), seed=6), 2) * 8 - 900)
    assert compute_features(smooth)["fourier_slope"] < white["fourier_slope"] - 1.0
    assert compute_features(photo((512, 512)))["fourier_sigma"] > 0


def test_fractal_dimensions() -> None:
    line = np.full((256, 256), 0.0)
    line[128, :] = 255
    line_values = compute_features(grey_image(line))
    assert line_values["fractal_dimension_2d"] == pytest.approx(1.0, abs=0.1)
    rough = compute_features(grey_image(noise_texture((256, 256), seed=7)))
    assert rough["fractal_dimension_2d"] > 1.8
    assert rough["fractal_dimension_3d"] > 2.5
    assert compute_features(_flat())["fractal_dimension_3d"] == pytest.approx(2.0, abs=0.05)


def test_self_similarity_homogeneity_and_variability() -> None:
    texture = compute_features(grey_image(noise_texture((256, 256), seed=8)))
    corner = np.full((256, 256), 128.0)
    corner[:64, :64] = noise_texture((64, 64), seed=9)
    corner[200:210, :] = 20.0  # one horizontal band elsewhere: orientation differs by region
    patchy = compute_features(grey_image(corner))
    assert texture["self_similarity"] > 0.9
    assert patchy["self_similarity"] < texture["self_similarity"]
    assert texture["homogeneity"] > 0.98
    assert patchy["homogeneity"] < texture["homogeneity"] - 0.2
    assert patchy["variability"] > texture["variability"] + 1.0


def test_anisotropy_and_edge_orientation_entropy() -> None:
    stripes = grey_image(np.tile((np.arange(256) // 4 % 2) * 255.0, (256, 1)))
    striped = compute_features(stripes)
    texture = compute_features(grey_image(ndimage.gaussian_filter(noise_texture((256, 256), seed=10), 1) * 3 - 250))
    assert striped["anisotropy"] > 2.0
    assert texture["anisotropy"] < 0.5
    assert striped["edge_orientation_entropy_1"] < 0.2
    assert texture["edge_orientation_entropy_1"] > 0.9
    assert striped["edge_orientation_entropy_2"] < texture["edge_orientation_entropy_2"]


def test_sparsity() -> None:
    dot = np.zeros((256, 256))
    dot[128:131, 128:131] = 255
    assert compute_features(grey_image(dot))["sparsity"] > 0.9
    assert compute_features(grey_image(noise_texture((256, 256), seed=11)))["sparsity"] < 0.4


def test_dear_statistics() -> None:
    blue = compute_features(Image.new("RGB", (32, 32), (0, 0, 255)))
    red = compute_features(Image.new("RGB", (32, 32), (255, 0, 0)))
    grey = compute_features(_flat(200))
    assert blue["dear_u"] > 0.3 and red["dear_v"] > 0.5 and red["dear_u"] < 0
    assert grey["dear_saturation"] == 0.0 and red["dear_saturation"] == pytest.approx(1.0)
    assert grey["dear_lightness"] == pytest.approx(200 / 255, abs=1e-3)
    assert blue["dear_hue"] == pytest.approx(2 / 3, abs=1e-3)
    assert grey["dear_std"] == 0.0
    assert compute_features(grey_image(noise_texture(seed=12)))["dear_std"] > 0.25


def test_blurred_copy_is_less_sharp(scene: Image.Image, scene_features: dict[str, float]) -> None:
    blurred = compute_features(scene.filter(ImageFilter.GaussianBlur(2.5)))
    assert blurred["sharpness_peak"] < scene_features["sharpness_peak"] - 0.5
    assert blurred["sharpness_p90"] < scene_features["sharpness_p90"] - 0.5


def test_sharpness_reports_the_sharpest_region_not_the_average(scene: Image.Image, scene_features: dict[str, float]) -> None:
    blurred = scene.filter(ImageFilter.GaussianBlur(4))
    subject_sharp = blurred.copy()
    box = (256, 128, 512, 384)  # a sharp subject on a soft background, as with shallow depth of field
    subject_sharp.paste(scene.crop(box), box)
    mixed = compute_features(subject_sharp)
    soft = compute_features(blurred)
    assert mixed["sharpness_peak"] > soft["sharpness_peak"] + 0.5
    assert mixed["sharpness_peak"] > scene_features["sharpness_peak"] - 0.35


def test_motion_blurred_copy_raises_the_blur_hint(scene: Image.Image, scene_features: dict[str, float]) -> None:
    pixels = np.asarray(scene, dtype=np.float32)
    streaked = ndimage.uniform_filter1d(pixels, size=15, axis=1)  # horizontal camera shake
    moved = compute_features(Image.fromarray(np.clip(streaked, 0, 255).astype(np.uint8)))
    assert moved["motion_blur_hint"] > scene_features["motion_blur_hint"] + 0.3
    assert moved["motion_blur_hint"] > 0.6
    still = compute_features(scene.filter(ImageFilter.GaussianBlur(3)))  # blur without direction
    assert still["motion_blur_hint"] < moved["motion_blur_hint"] - 0.3


def test_noise_estimate(scene: Image.Image, scene_features: dict[str, float]) -> None:
    rng = np.random.default_rng(13)
    flat = np.full((384, 512), 128.0)
    for sigma in (5.0, 15.0):
        estimate = compute_features(grey_image(flat + rng.normal(0, sigma, flat.shape)))["noise_sigma"]
        assert estimate == pytest.approx(sigma, rel=0.2)
    assert compute_features(_flat())["noise_sigma"] == pytest.approx(0.0, abs=1e-6)
    noisy = np.asarray(scene, dtype=np.float32) + rng.normal(0, 12, (512, 768, 1)).astype(np.float32)
    noisy_values = compute_features(Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8)))
    assert noisy_values["noise_sigma"] > scene_features["noise_sigma"] + 5


def test_darkened_copy_crushes_shadows_and_brightened_copy_clips_highlights(
    scene: Image.Image, scene_features: dict[str, float]
) -> None:
    darker = compute_features(ImageEnhance.Brightness(scene).enhance(0.25))
    dark = compute_features(ImageEnhance.Brightness(scene).enhance(0.1))
    bright = compute_features(ImageEnhance.Brightness(scene).enhance(2.5))
    assert scene_features["crushed_shadows"] < darker["crushed_shadows"] < dark["crushed_shadows"]
    assert dark["crushed_shadows"] > scene_features["crushed_shadows"] + 0.05
    assert bright["clipped_highlights"] > scene_features["clipped_highlights"] + 0.2
    assert dark["clipped_highlights"] <= scene_features["clipped_highlights"]
    assert compute_features(_flat(0))["crushed_shadows"] == 1.0
    assert compute_features(_flat(255))["clipped_highlights"] == 1.0


def test_colourfulness(scene: Image.Image, scene_features: dict[str, float]) -> None:
    assert compute_features(_flat(90))["colourfulness"] == 0.0
    assert compute_features(scene.convert("L").convert("RGB"))["colourfulness"] == pytest.approx(0.0, abs=1e-6)
    vivid = compute_features(ImageEnhance.Color(scene).enhance(2.0))
    assert vivid["colourfulness"] > scene_features["colourfulness"] * 1.4
    assert scene_features["colourfulness"] > 20


def test_large_input_is_analysed_on_a_downscaled_copy() -> None:
    big = photo((2400, 1600))
    values = compute_features(big)
    assert values["image_megapixels"] == pytest.approx(3.84)
    small = compute_features(big.resize((1024, 683), Image.Resampling.BOX))
    for name in ("rgb_mean_r", "lab_mean_l", "rms_contrast", "colourfulness", "mirror_symmetry_lr"):
        assert values[name] == pytest.approx(small[name], rel=0.03, abs=0.01), name
