"""Real image files for the library tests: photo-like JPEGs with EXIF, and every kind of bad input."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

EXIF_IFD = 0x8769
DATETIME_ORIGINAL, SUBSEC_ORIGINAL = 0x9003, 0x9291


def photo(seed: int, size: tuple[int, int] = (320, 240)) -> Image.Image:
    """A smooth gradient with a shape and some noise (not flat colour), different per seed."""
    rng = np.random.default_rng(seed)
    w, h = size
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([x / w * 255, y / h * 255, (x + y) / (w + h) * 255], axis=-1)
    cx, cy = rng.integers(w // 4, 3 * w // 4), rng.integers(h // 4, 3 * h // 4)
    disc = (x - cx) ** 2 + (y - cy) ** 2 < (min(w, h) // 5) ** 2
    base[disc] = rng.integers(0, 255, 3)
    noisy = base + rng.normal(0, 6, base.shape)
    return Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))


def write_jpeg(path: Path, seed: int, when: str | None = None, subsec: str | None = None,
               size: tuple[int, int] = (320, 240)) -> Path:  # fmt: skip
    """Save a photo-like JPEG, optionally with DateTimeOriginal + SubSecTimeOriginal."""
    exif = Image.Exif()
    if when is not None:
        ifd = exif.get_ifd(EXIF_IFD)
        ifd[DATETIME_ORIGINAL] = when
        if subsec is not None:
            ifd[SUBSEC_ORIGINAL] = subsec
    photo(seed, size).save(path, "JPEG", quality=85, exif=exif)
    return path


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_bomb_png(path: Path, side: int = 60_000) -> Path:
    """A tiny PNG whose header claims side × side pixels (a decompression bomb)."""
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    body = zlib.compress(b"\x00" * 64)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", body)
                     + _png_chunk(b"IEND", b""))  # fmt: skip
    return path


def write_bad_inputs(folder: Path) -> dict[str, str]:
    """Every bad-input case of the acceptance list; returns {case: path as the profile stores it}."""
    folder.mkdir(parents=True, exist_ok=True)
    cases: dict[str, str] = {}
    good = write_jpeg(folder / "source.jpg", 1).read_bytes()
    os.remove(folder / "source.jpg")
    (folder / "truncated.jpg").write_bytes(good[: len(good) // 3])
    cases["truncated"] = str(folder / "truncated.jpg")
    corrupt = bytearray(good)
    corrupt[200:] = bytes((b * 7 + 13) % 256 for b in corrupt[200:])
    (folder / "corrupt.jpg").write_bytes(bytes(corrupt))
    cases["corrupt"] = str(folder / "corrupt.jpg")
    (folder / "zero.jpg").write_bytes(b"")
    cases["zero_bytes"] = str(folder / "zero.jpg")
    (folder / "random.jpg").write_bytes(np.random.default_rng(3).bytes(5000))
    cases["random_bytes"] = str(folder / "random.jpg")
    cases["bomb"] = str(write_bomb_png(folder / "bomb.png"))
    sixteen = (np.linspace(0, 65535, 64 * 48).reshape(48, 64)).astype(np.uint16)
    Image.fromarray(sixteen).save(folder / "sixteen.tif")
    cases["tiff_16bit"] = str(folder / "sixteen.tif")
    photo(5).convert("CMYK").save(folder / "cmyk.jpg", "JPEG")
    cases["cmyk"] = str(folder / "cmyk.jpg")
    frames = [photo(s, (64, 48)).convert("P") for s in (6, 7, 8)]
    frames[0].save(folder / "animated.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    cases["animated_gif"] = str(folder / "animated.gif")
    os.symlink(folder / "nowhere" / "gone.jpg", folder / "broken_link.jpg")
    cases["broken_symlink"] = str(folder / "broken_link.jpg")
    bad_name = os.fsencode(folder) + b"/caf\xe9.jpg"
    with open(bad_name, "wb") as handle:
        handle.write(good)
    cases["non_utf8_name"] = os.fsencode(os.fsdecode(bad_name)).decode("utf-8", "backslashreplace")
    photo(9).save(folder / "really_png.jpg", "PNG")
    cases["wrong_extension"] = str(folder / "really_png.jpg")
    return cases
