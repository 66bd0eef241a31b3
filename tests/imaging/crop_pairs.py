"""Pairs of matching views for the crop matcher's tests and benchmark: crops, resized and re-saved
copies of real photographs (should match), and the pairs grouping mostly asks about that should not
(other frames of one scene, a moved subject, a damaged copy, unrelated photographs of like colours);
and the small photo-like frames the import tests write, whose shared colour gradient sends nearly
every pair through the whole pixel search (the slow case of grouping untimed frames)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageOps

from aesthete_gui.imaging.crop_match import Thumb, could_contain, load_thumb
from aesthete_gui.imaging.thumbnails import THUMB_QUALITY, THUMB_SIDE, fit_within
from tests.services.library_images import photo as gradient_photo


@dataclass(frozen=True)
class Pair:
    """Two matching views and how the second was made from the first (or what the two are)."""

    kind: str
    first: Thumb
    second: Thumb
    should_match: bool


def view(img: Image.Image, quality: int = 90) -> Thumb:
    """The matching view the import would give a file `img` saved at JPEG `quality`: file, 256 px
    thumbnail (JPEG), view."""
    return load_thumb(_jpeg(fit_within(_jpeg(img, quality), THUMB_SIDE), THUMB_QUALITY))


def _jpeg(img: Image.Image, quality: int) -> Image.Image:
    buffer = io.BytesIO()
    img.convert("RGB").save(buffer, "JPEG", quality=quality)
    buffer.seek(0)
    return Image.open(buffer).convert("RGB")


def _cut(img: Image.Image, box: tuple[float, float, float, float]) -> Image.Image:
    """The part of `img` in the fractional box (left, top, right, bottom)."""
    w, h = img.size
    return img.crop((round(box[0] * w), round(box[1] * h), round(box[2] * w), round(box[3] * h)))


def _scaled(img: Image.Image, scale: float) -> Image.Image:
    return img.resize((max(16, round(img.width * scale)), max(16, round(img.height * scale))), Image.Resampling.LANCZOS)


def _random_box(rng: np.random.Generator, kw: float, kh: float) -> tuple[float, float, float, float]:
    x, y = float(rng.uniform(0, 1 - kw)), float(rng.uniform(0, 1 - kh))
    return x, y, x + kw, y + kh


def same_frame_pairs(img: Image.Image, rng: np.random.Generator) -> list[Pair]:
    """Copies of one photograph that are the same frame: resized, re-compressed, cropped by 10-50 %
    of the area (round the frame or from one side) and saved at another size and quality, edited in
    brightness and contrast."""
    original = view(img, 92)
    out = [Pair("resized", original, view(_scaled(img, float(rng.choice([0.6, 0.3]))), 85), True),
           Pair("recompressed", original, view(img, int(rng.choice([40, 60]))), True)]  # fmt: skip
    for cut in (0.1, 0.3, 0.5):
        kw, kh = ((1 - cut) ** 0.5,) * 2 if rng.random() < 0.5 else ((1 - cut, 1.0) if rng.random() < 0.5 else (1.0, 1 - cut))
        crop = _scaled(_cut(img, _random_box(rng, kw, kh)), float(rng.choice([1.0, 0.6, 0.35])))
        out.append(Pair(f"crop {round(cut * 100)} %", original, view(crop, int(rng.choice([95, 75, 50]))), True))
    edited = np.asarray(img, np.float32) * float(rng.uniform(0.8, 1.2)) + float(rng.uniform(-25, 25))
    out.append(Pair("brightness edit", original, view(Image.fromarray(np.clip(edited, 0, 255).astype(np.uint8))), True))
    return out


def other_frame_pairs(img: Image.Image, rng: np.random.Generator, subject: Image.Image) -> list[Pair]:
    """Pairs that look alike but are not one frame: two views of the scene panned against each
    other, a slightly rotated crop, a mirrored copy, a subject moved in front of the scene, a copy
    half blank, a crop smaller than the matcher recognises."""
    side = float(rng.uniform(0.6, 0.85))
    shift = float(rng.uniform(0.04, 1 - side))
    y = float(rng.uniform(0, 1 - side))
    left, right = _cut(img, (0, y, side, y + side)), _cut(img, (shift, y, shift + side, y + side))
    out = [Pair("panned", view(left), view(right), False)]
    inner = _cut(img, (0.1, 0.1, 0.9, 0.9)).rotate(float(rng.choice([-4, -2, 2, 4])), Image.Resampling.BILINEAR)
    out.append(Pair("rotated crop", view(img), view(_cut(inner, (0.06, 0.06, 0.94, 0.94))), False))
    out.append(Pair("mirrored", view(img), view(ImageOps.mirror(img)), False))
    small = subject.resize((img.width // 6, img.height // 6))
    first, second = img.copy(), img.copy()
    first.paste(small, (img.width // 5, img.height // 3))
    second.paste(small, (img.width // 5 + img.width // 8, img.height // 3))
    out.append(Pair("moved subject", view(first), view(second), False))
    damaged = img.copy()
    damaged.paste((128, 128, 128), (0, img.height * 2 // 5, img.width, img.height))
    out.append(Pair("half blank", view(img), view(damaged), False))
    out.append(Pair("small crop", view(img), view(_cut(img, _random_box(rng, 0.38, 0.38))), False))
    return out


def unrelated_pairs(views: Sequence[Thumb], limit: int) -> list[Pair]:
    """Distinct pictures whose colours could nest (the pairs grouping proposes), at most `limit`."""
    out = []
    for i, a in enumerate(views):
        for b in views[i + 1 :]:
            if could_contain(a, b) or could_contain(b, a):
                out.append(Pair("unrelated", a, b, False))
                if len(out) == limit:
                    return out
    return out


def photo_pairs(photos: Sequence[Image.Image], seed: int = 1, unrelated: int = 200) -> list[Pair]:
    """Every kind above for each photograph (sized to at most 640 px), and up to `unrelated` pairs
    of distinct photographs."""
    rng = np.random.default_rng(seed)
    small = [fit_within(p.convert("RGB"), 640) for p in photos]
    out: list[Pair] = []
    for n, img in enumerate(small):
        out += same_frame_pairs(img, rng)
        out += other_frame_pairs(img, rng, small[(n + 1) % len(small)])
    return out + unrelated_pairs([view(img) for img in small], unrelated)


def import_test_frames(count: int, size: tuple[int, int] = (160, 120)) -> list[Thumb]:
    """Matching views of the `count` photo-like JPEGs the import tests write (a gradient, a disc,
    noise; tests/services/library_images.py), each through the import's thumbnail."""
    return [view(gradient_photo(seed, size), 85) for seed in range(count)]


def frame_pairs(views: Sequence[Thumb], count: int, seed: int = 2) -> list[Pair]:
    """`count` distinct random pairs of those frames (each a different picture)."""
    rng = np.random.default_rng(seed)
    chosen: set[tuple[int, int]] = set()
    while len(chosen) < min(count, len(views) * (len(views) - 1) // 2):
        i, j = sorted(int(k) for k in rng.choice(len(views), 2, replace=False))
        chosen.add((i, j))
    return [Pair("import test frames", views[i], views[j], False) for i, j in sorted(chosen)]
