"""Real photographs that installed packages ship, and degraded copies of them with known truth."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

# (package, path inside it); photographs only: no drawings, text pages or binary masks.
PHOTOS: tuple[tuple[str, str], ...] = (
    ("skimage", "data/astronaut.png"),
    ("skimage", "data/coffee.png"),
    ("skimage", "data/chelsea.png"),
    ("skimage", "data/rocket.jpg"),
    ("skimage", "data/hubble_deep_field.jpg"),
    ("skimage", "data/motorcycle_left.png"),
    ("skimage", "data/motorcycle_right.png"),
    ("skimage", "data/retina.jpg"),
    ("skimage", "data/camera.png"),
    ("skimage", "data/moon.png"),
    ("skimage", "data/coins.png"),
    ("skimage", "data/brick.png"),
    ("skimage", "data/grass.png"),
    ("skimage", "data/gravel.png"),
    ("skimage", "data/ihc.png"),
    ("matplotlib", "mpl-data/sample_data/grace_hopper.jpg"),
    ("skimage", "data/cell.png"),
)
PORTRAITS: tuple[str, ...] = ("astronaut", "grace_hopper")
"""Photos above with one frontal face, eyes open."""
def package_file(package: str, inner: str) -> Path | None:
    """A file shipped inside an installed package, None when the package is missing."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / inner
    return path if path.is_file() else None


def load_photos() -> dict[str, Image.Image]:
    """Every available photo as RGB, keyed by its file stem."""
    out: dict[str, Image.Image] = {}
    for package, inner in PHOTOS:
        path = package_file(package, inner)
        if path is not None:
            with Image.open(path) as img:
                out[path.stem] = img.convert("RGB")
    return out


def _linear(img: Image.Image) -> np.ndarray:
    srgb = np.asarray(img, dtype=np.float64) / 255.0
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> Image.Image:
    linear = np.clip(linear, 0.0, 1.0)
    srgb = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)
    return Image.fromarray(np.rint(srgb * 255).astype(np.uint8))


def exposure(img: Image.Image, factor: float) -> Image.Image:
    """The same frame with `factor` times the light (in linear light, as a camera would record)."""
    return _srgb(_linear(img) * factor)


def gaussian_blur(img: Image.Image, sigma: float) -> Image.Image:
    """Missed focus, approximated by a Gaussian blur of `sigma` pixels."""
    return img.filter(ImageFilter.GaussianBlur(sigma))


def motion_blur(img: Image.Image, length: int, angle_deg: float = 20.0) -> Image.Image:
    """Camera shake: a line kernel of `length` pixels at `angle_deg`."""
    from scipy import ndimage

    size = length | 1
    kernel = np.zeros((size, size))
    centre = size // 2
    for t in np.linspace(-centre, centre, 4 * size):
        x = round(centre + t * np.cos(np.radians(angle_deg)))
        y = round(centre - t * np.sin(np.radians(angle_deg)))
        kernel[y, x] = 1.0
    kernel /= kernel.sum()
    rgb = np.asarray(img, dtype=np.float64)
    out = np.stack([ndimage.convolve(rgb[..., c], kernel, mode="reflect") for c in range(3)], axis=2)
    return Image.fromarray(np.clip(np.rint(out), 0, 255).astype(np.uint8))


def defocus(img: Image.Image, fraction: float) -> Image.Image:
    """Missed focus as a lens renders it: a disc (circle of confusion) `fraction` of the width across."""
    from scipy.signal import fftconvolve

    radius = max(0.5, fraction * img.width / 2)
    reach = int(np.ceil(radius))
    yy, xx = np.mgrid[-reach: reach + 1, -reach: reach + 1]
    samples = (np.arange(4) + 0.5) / 4 - 0.5  # 4 x 4 sub-pixel samples: a smooth disc edge
    kernel = sum(((yy + dy) ** 2 + (xx + dx) ** 2 <= radius * radius).astype(float) for dy in samples for dx in samples)
    kernel /= kernel.sum()
    rgb = np.pad(np.asarray(img, dtype=np.float64), ((reach, reach), (reach, reach), (0, 0)), mode="reflect")
    out = np.stack([fftconvolve(rgb[..., c], kernel, mode="valid") for c in range(3)], axis=2)
    return Image.fromarray(np.clip(np.rint(out), 0, 255).astype(np.uint8))


def smear(img: Image.Image, fraction: float, angle_deg: float = 20.0) -> Image.Image:
    """Camera shake of `fraction` of the width (a line kernel), computed by FFT for large frames."""
    from scipy.signal import fftconvolve

    length = max(3, round(fraction * img.width))
    size = length | 1
    kernel = np.zeros((size, size))
    centre = size // 2
    for t in np.linspace(-centre, centre, 4 * size):
        kernel[round(centre - t * np.sin(np.radians(angle_deg))), round(centre + t * np.cos(np.radians(angle_deg)))] = 1.0
    kernel /= kernel.sum()
    rgb = np.pad(np.asarray(img, dtype=np.float64), ((centre, centre), (centre, centre), (0, 0)), mode="reflect")
    out = np.stack([fftconvolve(rgb[..., c], kernel, mode="valid") for c in range(3)], axis=2)
    return Image.fromarray(np.clip(np.rint(out), 0, 255).astype(np.uint8))


def noise(img: Image.Image, sigma: float, seed: int = 0) -> Image.Image:
    """Sensor-like Gaussian noise of `sigma` (8-bit units) on every channel."""
    rng = np.random.default_rng(seed)
    rgb = np.asarray(img, dtype=np.float64) + rng.normal(0.0, sigma, (img.height, img.width, 3))
    return Image.fromarray(np.clip(np.rint(rgb), 0, 255).astype(np.uint8))


def downscale(img: Image.Image, side: int) -> Image.Image:
    """A thumbnail whose long side is `side` pixels."""
    scale = side / max(img.size)
    return img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))), Image.Resampling.LANCZOS)


def save(img: Image.Image, path: Path, quality: int | None = None) -> Path:
    """Write `img` losslessly (PNG), or as a JPEG of `quality`."""
    if quality is None:
        path = path.with_suffix(".png")
        img.save(path)
    else:
        path = path.with_suffix(".jpg")
        img.save(path, quality=quality)
    return path


def load_corpus_photos(split: str = "tune", long_side: int | None = 1024, label: str | None = "clean") -> dict[str, Image.Image]:
    """The calibration corpus's cached photographs of one half (benchmarks/corpus.py) as RGB, keyed by id.

    Each is scaled down so its long side is at most `long_side` pixels (None: as shipped); `label`
    picks the clean frames (the default), the rejects, or both (None).
    """
    import corpus

    out: dict[str, Image.Image] = {}
    for photo in corpus.load_corpus(split, label=label):
        img = photo.open()
        out[photo.id] = downscale(img, long_side) if long_side and max(img.size) > long_side else img
    return out


@dataclass(frozen=True)
class Moderate:
    """A defect at the strength issue 21 asks to catch, and the checks that should catch it."""

    name: str
    checks: tuple[str, ...]
    make: Callable[[Image.Image], Image.Image]


MODERATE: tuple[Moderate, ...] = (
    Moderate("noise σ 28", ("noise",), lambda i: noise(i, 28.0)),
    Moderate("smear 1.2 % of width", ("focus", "motion_blur"), lambda i: smear(i, 0.012)),
    Moderate("defocus 0.5 % of width", ("focus", "motion_blur"), lambda i: defocus(i, 0.005)),
    Moderate("+2 EV", ("highlights", "overexposure", "brightened"), lambda i: exposure(i, 4.0)),
    Moderate("-2.5 EV", ("underexposure", "shadows"), lambda i: exposure(i, 2.0**-2.5)),
)  # fmt: skip
"""Moderate defects: each must be caught (a suggested reject) in >= 90 % of clean photographs and
score below its original in >= 95 %. Degraded copies are made at the photograph's own size (at most
WORK_SIDE) and saved as camera-like JPEGs."""
WORK_SIDE = 2400
"""Photographs larger than this are shrunk to it first (a 1800 x 2400 frame, as in the trial shoot):
the disc and line kernels stay affordable on a laptop, and the original is the shrunk frame."""
CAMERA_QUALITY = 92
