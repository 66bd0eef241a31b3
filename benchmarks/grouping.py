"""Burst grouping at library scale: 50,000 frames without capture times grouped from scratch, the
indexed candidate search against comparing every pair, and a re-import of 10,000 unchanged files.

Frames are synthetic records with realistic pHashes and colour signatures: each is a small mosaic of
random crops of the photographs installed packages ship (benchmarks/culling_data.py), with a colour
cast, a brightness shift and sometimes a mirror, measured exactly as the import measures a thumbnail.
One frame in ten is a re-saved copy (resized, re-compressed) and one in twenty a crop of an earlier
frame, so there is something to group. Importing 50,000 real files would take hours on the
development machine, so the 50k figure groups records: the pixel comparisons the grouping asks for
need thumbnails, so they are counted and their cost is measured apart, on real thumbnails.

    python benchmarks/grouping.py [--frames 50000] [--reference 3000] [--reimport 10000] [--no-write]
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

DOC = REPO / "docs" / "benchmarks" / "grouping.md"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "aesthete-bench"
GROUPING_TARGET_S = 120.0
REIMPORT_TARGET_S = 2.0


def _sources(side: int = 384) -> list[Image.Image]:
    import culling_data as data

    out = []
    for img in data.load_photos().values():
        small = img.copy()
        small.thumbnail((side, side))
        out.append(small)
    return out


def _piece(rng: np.random.Generator, img: Image.Image, size: tuple[int, int]) -> Image.Image:
    side = float(rng.uniform(0.3, 1.0))
    w, h = max(8, round(img.width * side)), max(8, round(img.height * side))
    x, y = int(rng.integers(0, img.width - w + 1)), int(rng.integers(0, img.height - h + 1))
    return img.crop((x, y, x + w, y + h)).resize(size, Image.Resampling.BILINEAR)


def synthetic_frame(rng: np.random.Generator, sources: list[Image.Image]) -> Image.Image:
    """A picture of its own: 1-4 crops of random photographs side by side, colour-cast and shifted."""
    cols, rows = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    width, height = 240, 160
    canvas = Image.new("RGB", (width, height))
    for r in range(rows):
        for c in range(cols):
            box = (c * width // cols, r * height // rows, (c + 1) * width // cols, (r + 1) * height // rows)
            piece = _piece(rng, sources[int(rng.integers(len(sources)))], (box[2] - box[0], box[3] - box[1]))
            canvas.paste(piece, box[:2])
    pixels = np.asarray(canvas, np.float32) * rng.uniform(0.55, 1.45, 3) + rng.uniform(-40, 40)
    frame = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    return ImageOps.mirror(frame) if rng.random() < 0.5 else frame


def _jpeg_round_trip(img: Image.Image, quality: int) -> Image.Image:
    buffer = io.BytesIO()
    img.save(buffer, "JPEG", quality=quality)
    buffer.seek(0)
    return Image.open(buffer).convert("RGB")


def synthetic_library(count: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(signatures (count, 80) float32, pHashes (count,) uint64), cached on disk."""
    from aesthete_gui.imaging.crop_match import load_thumb
    from aesthete_gui.imaging.hashing import perceptual_hash

    path = CACHE / f"grouping-{count}-{seed}.npz"
    if path.is_file():
        stored = np.load(path)
        return stored["signatures"], stored["hashes"]
    print(f"making {count} synthetic frames (cached in {path}) …", file=sys.stderr)
    rng = np.random.default_rng(seed)
    sources = _sources()
    signatures = np.zeros((count, 80), np.float32)
    hashes = np.zeros(count, np.uint64)
    made: list[Image.Image] = []
    for n in range(count):
        if made and rng.random() < 0.1:  # the same picture saved again, smaller
            base = made[int(rng.integers(len(made)))]
            frame = _jpeg_round_trip(base.resize((base.width * 2 // 3, base.height * 2 // 3)), 70)
        elif made and rng.random() < 0.05:  # a crop of an earlier frame
            base = made[int(rng.integers(len(made)))]
            frame = base.crop((base.width // 6, base.height // 8, base.width, base.height))
        else:
            frame = synthetic_frame(rng, sources)
        if len(made) < 2000:
            made.append(frame)
        else:
            made[int(rng.integers(len(made)))] = frame
        signatures[n] = load_thumb(frame).histogram
        hashes[n] = perceptual_hash(frame)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, signatures=signatures, hashes=hashes)
    return signatures, hashes


def group_records(signatures: np.ndarray, hashes: np.ndarray, exhaustive: bool = False) -> tuple[list, float, object]:
    """Group frames without capture times from their records; (groups, seconds, matcher)."""
    from aesthete_gui.imaging.bursts import Frame, group_bursts
    from aesthete_gui.imaging.crop_groups import ThumbnailMatcher

    frames = [Frame(k, phash=int(h)) for k, h in enumerate(hashes)]
    matcher = ThumbnailMatcher(lambda _key: None, signatures=lambda key: signatures[key], exhaustive=exhaustive)  # type: ignore[index]
    start = time.perf_counter()
    groups = group_bursts(frames, matcher=matcher)
    return groups, time.perf_counter() - start, matcher
