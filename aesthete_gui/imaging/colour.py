"""Colour handling: any Pillow mode / embedded ICC profile to 8-bit sRGB, and numpy colour spaces."""

from __future__ import annotations

import functools
import hashlib
import io
import threading

import numpy as np
from PIL import Image, ImageCms

NEUTRAL_BACKGROUND = (128, 128, 128)
"""Mid grey: transparent areas are composited on it so they neither brighten nor darken the image."""

_SIXTEEN_BIT_MODES = {"I;16", "I;16L", "I;16B", "I;16N", "I"}
_ICC_INPUT_MODES = {"RGB", "CMYK", "L"}
_transform_cache: dict[tuple[bytes, str], ImageCms.ImageCmsTransform | None] = {}
_cache_lock = threading.Lock()
_SRGB_PROFILE = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _sixteen_bit_to_l(img: Image.Image) -> Image.Image:
    """Scale 16/32-bit integer grey to 8 bits by value range (not by clipping at 255)."""
    arr = np.asarray(img)
    if arr.dtype.kind == "f":
        return _float_to_l(arr)
    arr = arr.astype(np.int64, copy=False)
    top = int(arr.max(initial=0))
    if top <= 255 and img.mode == "I":
        scaled = arr
    elif top <= 65535:
        scaled = (arr * 255 + 32767) // 65535
    else:
        scaled = arr * 255 // max(top, 1)
    return Image.fromarray(np.clip(scaled, 0, 255).astype(np.uint8), mode="L")


def _float_to_l(arr: np.ndarray) -> Image.Image:
    """Float grey: values in [0, 1] are scaled to 8 bits, larger ranges clipped to [0, 255]."""
    arr = np.nan_to_num(arr.astype(np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    if float(arr.max(initial=0.0)) <= 1.0:
        arr = arr * 255.0
    return Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8), mode="L")


def flatten_mode(img: Image.Image) -> Image.Image:
    """Bring exotic modes (16-bit, float, palette, bilevel, premultiplied) to L, LA, RGB, RGBA or CMYK."""
    mode = img.mode
    if mode in _SIXTEEN_BIT_MODES:
        return _sixteen_bit_to_l(img)
    if mode == "F":
        return _float_to_l(np.asarray(img))
    if mode == "P":
        has_alpha = "transparency" in img.info or (img.palette is not None and img.palette.mode == "RGBA")
        return img.convert("RGBA" if has_alpha else "RGB")
    if mode == "PA":
        return img.convert("RGBA")
    if mode == "1":
        return img.convert("L")
    if mode in ("La", "RGBa"):
        return img.convert(mode.upper())
    return img


def composite_alpha(img: Image.Image) -> Image.Image:
    """Composite LA/RGBA over the neutral background; other modes pass through."""
    if img.mode not in ("LA", "RGBA"):
        return img
    rgba = img.convert("RGBA")
    background = Image.new("RGBA", rgba.size, (*NEUTRAL_BACKGROUND, 255))
    background.alpha_composite(rgba)
    return background.convert("RGB") if img.mode == "RGBA" else background.convert("L")


def _profile_is_srgb(profile: ImageCms.ImageCmsProfile) -> bool:
    description = (ImageCms.getProfileDescription(profile) or "").lower()
    return "srgb" in description.replace(" ", "")


def _transform_for(icc: bytes, mode: str) -> ImageCms.ImageCmsTransform | None:
    """Cached ICC -> sRGB transform for this profile and input mode (None when not needed/usable)."""
    key = (hashlib.blake2b(icc, digest_size=16).digest(), mode)
    with _cache_lock:
        if key in _transform_cache:
            return _transform_cache[key]
    transform: ImageCms.ImageCmsTransform | None
    try:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if mode != "CMYK" and _profile_is_srgb(profile):
            transform = None
        else:
            transform = ImageCms.buildTransform(
                profile,
                _SRGB_PROFILE,
                mode,
                "RGB",
                ImageCms.Intent.PERCEPTUAL,
                flags=ImageCms.Flags.NOCACHE,  # LittleCMS' 1-pixel cache is not thread-safe
            )
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
        transform = None  # unusable or mismatched profile: fall back to a plain mode conversion
    with _cache_lock:
        _transform_cache[key] = transform
    return transform


def to_srgb(img: Image.Image, icc: bytes | None) -> tuple[Image.Image, bool]:
    """Convert an L/LA/RGB/RGBA/CMYK image to 8-bit RGB in sRGB; returns (image, icc_applied)."""
    img = composite_alpha(flatten_mode(img))
    if icc and img.mode in _ICC_INPUT_MODES:
        transform = _transform_for(icc, img.mode)
        # both return None only when converting in place, which this never asks for
        converted = None if transform is None else ImageCms.applyTransform(img, transform)
        if converted is not None:
            return converted, True
    if img.mode == "LAB":
        lab = ImageCms.createProfile("LAB")
        converted = ImageCms.profileToProfile(img, lab, _SRGB_PROFILE, outputMode="RGB")
        if converted is not None:
            return converted, True
    return (img if img.mode == "RGB" else img.convert("RGB")), False


def srgb_to_linear(rgb: np.ndarray) -> np.ndarray:
    """sRGB values in [0, 1] to linear light."""
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


_RGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]],
    dtype=np.float32,
)
_D65_WHITE = np.array([0.95047, 1.0, 1.08883], dtype=np.float32)


@functools.cache
def _linear_table() -> np.ndarray:
    return srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0).astype(np.float32)


def rgb8_to_lab(rgb8: np.ndarray) -> np.ndarray:
    """8-bit sRGB, shape (..., 3), to CIE L*a*b* (D65), linearising through a 256-entry table."""
    table = _linear_table()
    planes = [table[rgb8[..., k]] for k in range(3)]  # planar arithmetic: ~3x faster than a matmul
    delta = 6.0 / 29.0
    f = []
    for row, white in zip(_RGB_TO_XYZ, _D65_WHITE, strict=True):
        xyz = (planes[0] * row[0] + planes[1] * row[1] + planes[2] * row[2]) / white
        f.append(np.where(xyz > delta**3, np.cbrt(xyz), xyz / (3 * delta**2) + 4.0 / 29.0))
    return np.stack([116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2])], axis=-1)


YUV_MATRIX = np.array(
    [[0.299, 0.587, 0.114], [-0.14713, -0.28886, 0.436], [0.615, -0.51499, -0.10001]],
    dtype=np.float64,
)
"""RGB in [0, 1] to YUV (BT.601): Y in [0, 1], U in ±0.436, V in ±0.615 (rows Y, U, V)."""


def luminance(rgb: np.ndarray) -> np.ndarray:
    """Rec. 601 luma of RGB (same scale as the input)."""
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
