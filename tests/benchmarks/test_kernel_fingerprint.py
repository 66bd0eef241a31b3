"""The kernel-fingerprint check: a made disc or line blur leaves a deep cepstral dip, a clean frame none."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data
import kernel_fingerprint


def _scene(side: int = 512) -> Image.Image:
    """A frame with a natural image's falling spectrum: random noise shaped by 1 / f."""
    rng = np.random.default_rng(5)
    fy, fx = np.meshgrid(np.fft.fftfreq(side), np.fft.fftfreq(side), indexing="ij")
    shaped = np.real(np.fft.ifft2(np.fft.fft2(rng.normal(size=(side, side))) / np.maximum(np.hypot(fy, fx), 1 / side)))
    levels = np.clip(128 + 50 * shaped / shaped.std(), 0, 255).astype(np.uint8)
    return Image.fromarray(levels).convert("RGB")


def _grey(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("L"), dtype=np.float64)


def test_a_made_disc_blur_leaves_a_ring_dip_a_clean_frame_does_not() -> None:
    scene = _scene()
    clean_ring, _ = kernel_fingerprint.cepstral_dips(_grey(scene))
    blurred_ring, _ = kernel_fingerprint.cepstral_dips(_grey(culling_data.defocus(scene, 0.02)))
    assert blurred_ring > 5 * max(clean_ring, 0.5)


def test_a_made_line_blur_leaves_a_point_dip() -> None:
    scene = _scene()
    _, clean_point = kernel_fingerprint.cepstral_dips(_grey(scene))
    _, smeared_point = kernel_fingerprint.cepstral_dips(_grey(culling_data.smear(scene, 0.03, angle_deg=30.0)))
    assert smeared_point > 3 * clean_point


def test_a_frame_smaller_than_a_window_is_not_measured() -> None:
    ring, point = kernel_fingerprint.cepstral_dips(np.zeros((100, 100)))
    assert np.isnan(ring) and np.isnan(point)
