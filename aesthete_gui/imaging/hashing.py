"""Identity hashes: a content hash of the file bytes (exact duplicates) and a 64-bit perceptual hash."""

from __future__ import annotations

import os

import numpy as np
import xxhash
from PIL import Image
from scipy.fft import dctn

CONTENT_HASH_ALGORITHM = "xxh3-128"
"""Not cryptographic: it recognises identical files; ~20x faster than BLAKE2b on multi-MB files."""
_CHUNK = 1 << 20


def content_hash_bytes(data: bytes) -> str:
    """Hex XXH3-128 of in-memory file bytes (same value as content_hash of the file)."""
    return xxhash.xxh3_128_hexdigest(data)


def content_hash(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """Hex XXH3-128 of a file's bytes, streamed in 1 MiB chunks (raises OSError like open())."""
    digest = xxhash.xxh3_128()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def perceptual_hash(img: Image.Image) -> int:
    """64-bit DCT perceptual hash: 8x8 lowest frequencies of a 32x32 grey copy, each bit above median."""
    grey = img.convert("L")
    if max(grey.size) > 128:
        grey.thumbnail((128, 128), Image.Resampling.BOX)  # cheap pre-shrink before the exact resize
    small = grey.resize((32, 32), Image.Resampling.LANCZOS)
    pixels = np.asarray(small, dtype=np.float64)
    low = dctn(pixels, type=2, norm="ortho")[:8, :8].ravel()
    median = np.median(low[1:])  # the DC term would dominate the median
    bits = low > median
    return int(np.packbits(bits).view(">u8")[0])


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two 64-bit hashes."""
    return ((a ^ b) & 0xFFFF_FFFF_FFFF_FFFF).bit_count()

