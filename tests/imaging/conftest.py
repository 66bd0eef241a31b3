"""Image builders for the imaging tests: photo-like pictures, EXIF, ICC profiles, crafted files."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, TiffImagePlugin
from skimage import data as skdata

EXIF_IFD = 0x8769


def photo(size: tuple[int, int] = (640, 480), which: str = "astronaut") -> Image.Image:
    """A real photograph (scikit-image sample, public domain) resized to `size`."""
    return Image.fromarray(getattr(skdata, which)()).convert("RGB").resize(size, Image.Resampling.BICUBIC)


@pytest.fixture
def astronaut() -> Image.Image:
    return photo()


def exif_with(
    *,
    orientation: int | None = None,
    when: str | None = None,
    subsec: str | None = None,
    offset: str | None = None,
    make: str | None = None,
    model: str | None = None,
    lens: str | None = None,
    exposure: tuple[int, int] | None = None,
    f_number: tuple[int, int] | None = None,
    iso: int | None = None,
    focal: tuple[int, int] | None = None,
    image_number: int | None = None,
) -> Image.Exif:
    """An Exif block with the given camera fields (as a camera would write them)."""
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    if make:
        exif[0x010F] = make
    if model:
        exif[0x0110] = model
    ifd = exif.get_ifd(EXIF_IFD)
    if when:
        ifd[0x9003] = when
    if subsec:
        ifd[0x9291] = subsec
    if offset:
        ifd[0x9011] = offset
    if lens:
        ifd[0xA434] = lens
    if exposure:
        ifd[0x829A] = TiffImagePlugin.IFDRational(*exposure)
    if f_number:
        ifd[0x829D] = TiffImagePlugin.IFDRational(*f_number)
    if iso:
        ifd[0x8827] = iso
    if focal:
        ifd[0x920A] = TiffImagePlugin.IFDRational(*focal)
    if image_number is not None:
        ifd[0x9211] = image_number
    return exif


def _s15(value: float) -> bytes:
    return struct.pack(">i", round(value * 65536))


def wide_gamut_icc() -> bytes:
    """A genuine ICC v2 RGB matrix/TRC profile with Adobe RGB (1998)-like primaries, gamma 2.2."""

    def xyz(x: float, y: float, z: float) -> bytes:
        return b"XYZ " + b"\0" * 4 + _s15(x) + _s15(y) + _s15(z)

    description = b"Wide gamut test RGB"
    desc = (
        b"desc" + b"\0" * 4 + struct.pack(">I", len(description) + 1) + description + b"\0"
        + b"\0" * 8 + b"\0" * 3 + b"\0" * 67
    )  # fmt: skip
    curve = b"curv" + b"\0" * 4 + struct.pack(">IH", 1, 563) + b"\0\0"  # gamma 2.2 in u8Fixed8
    tags = [
        (b"desc", desc),
        (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
        (b"rXYZ", xyz(0.6097, 0.3111, 0.0195)),
        (b"gXYZ", xyz(0.2053, 0.6257, 0.0609)),
        (b"bXYZ", xyz(0.1492, 0.0632, 0.7446)),
        (b"rTRC", curve),
        (b"gTRC", curve),
        (b"bTRC", curve),
        (b"cprt", b"text" + b"\0" * 4 + b"public domain\0"),
    ]
    table_size = 4 + 12 * len(tags)
    offset = 128 + table_size
    table, blob = struct.pack(">I", len(tags)), b""
    for signature, payload in tags:
        padded = payload + b"\0" * (-len(payload) % 4)
        table += signature + struct.pack(">II", offset + len(blob), len(payload))
        blob += padded
    size = 128 + table_size + len(blob)
    header = (
        struct.pack(">I", size) + b"\0" * 4 + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ "
        + struct.pack(">6H", 2024, 1, 1, 0, 0, 0) + b"acsp" + b"\0" * 24
        + struct.pack(">I", 0) + _s15(0.9642) + _s15(1.0) + _s15(0.8249) + b"\0" * 48
    )  # fmt: skip
    assert len(header) == 128
    return header + table + blob


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_header_only(path: Path, width: int, height: int) -> Path:
    """A tiny PNG file that claims gigantic dimensions (a decompression bomb)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", idat) + _png_chunk(b"IEND", b"")
    )
    return path


def jpeg_with_exif_thumbnail(path: Path, main: Image.Image, thumb: Image.Image, orientation: int = 1) -> Path:
    """A JPEG whose EXIF IFD1 carries its own JPEG thumbnail (as cameras write them)."""
    buffer = io.BytesIO()
    thumb.save(buffer, "JPEG", quality=90)
    thumb_bytes = buffer.getvalue()
    # TIFF header + IFD0 (orientation) + IFD1 (JPEGInterchangeFormat, ...Length) + thumbnail bytes
    ifd0_offset = 8
    ifd0 = struct.pack("<H", 1) + struct.pack("<HHII", 0x0112, 3, 1, orientation)
    ifd1_offset = ifd0_offset + len(ifd0) + 4
    ifd1_size = 2 + 2 * 12 + 4
    thumb_offset = ifd1_offset + ifd1_size
    ifd0 += struct.pack("<I", ifd1_offset)
    ifd1 = struct.pack("<H", 2)
    ifd1 += struct.pack("<HHII", 0x0201, 4, 1, thumb_offset)
    ifd1 += struct.pack("<HHII", 0x0202, 4, 1, len(thumb_bytes))
    ifd1 += struct.pack("<I", 0)
    tiff = b"II*\x00" + struct.pack("<I", ifd0_offset) + ifd0 + ifd1 + thumb_bytes
    main.save(path, "JPEG", quality=90, exif=b"Exif\x00\x00" + tiff)
    return path


def noise_texture(size: tuple[int, int] = (256, 256), seed: int = 0) -> np.ndarray:
    """Uniform grey noise in [0, 255] as float (height, width)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 255, (size[1], size[0]))


def grey_image(values: np.ndarray) -> Image.Image:
    """An RGB image from a 2-D array of grey values in [0, 255]."""
    grey = np.clip(values, 0, 255).astype(np.uint8)
    return Image.fromarray(np.stack([grey] * 3, axis=-1))


def _srational(values: list[float]) -> list[int]:
    out: list[int] = []
    for value in values:
        out += [round(value * 10000), 10000]
    return out


def write_dng(path: Path, *, preview: np.ndarray | None = None, orientation: int = 1) -> Path:
    """A real (tiny) DNG: a 16-bit RGGB Bayer mosaic, optionally with an 8-bit RGB preview in IFD0.

    LibRaw reads it like a camera's DNG: without a preview it must demosaic, with one it can use it.
    """
    import tifffile

    height, width = 256, 384
    ys, xs = np.mgrid[0:height, 0:width]
    mosaic = np.where((ys % 2 == 0) & (xs % 2 == 0), 3000, 1200).astype(np.uint16)
    mosaic += (xs * 2).astype(np.uint16)
    dng_tags = [
        (50706, "B", 4, (1, 4, 0, 0), True),  # DNGVersion
        (50708, "s", 0, "Aesthete Test Camera", True),  # UniqueCameraModel
        (50721, "2i", 9, _srational([1, 0, 0, 0, 1, 0, 0, 0, 1]), True),  # ColorMatrix1
        (50778, "H", 1, 21, True),  # CalibrationIlluminant1 = D65
        (271, "s", 0, "TestMake", True),
        (272, "s", 0, "TestModel", True),
        (274, "H", 1, orientation, True),
    ]
    cfa_tags = [
        (33421, "H", 2, (2, 2), True),  # CFARepeatPatternDim
        (33422, "B", 4, (0, 1, 1, 2), True),  # CFAPattern RGGB
        (50717, "I", 1, 4095, True),  # WhiteLevel
    ]
    with tifffile.TiffWriter(path) as tif:
        if preview is not None:
            tif.write(preview, photometric="rgb", subfiletype=1, subifds=1, extratags=dng_tags, metadata=None)
            tif.write(mosaic, photometric=32803, subfiletype=0, extratags=cfa_tags, metadata=None)
        else:
            tif.write(mosaic, photometric=32803, extratags=dng_tags + cfa_tags, metadata=None)
    return path
