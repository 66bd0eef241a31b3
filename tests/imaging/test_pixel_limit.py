"""One pixel limit (decode.MAX_PIXELS) for every image: the same rule and the same message everywhere."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from aesthete_gui.imaging.decode import MAX_PIXELS, DecodeError, decode_bytes
from aesthete_gui.imaging.metadata import metadata_from_bytes
from tests.imaging.conftest import _png_chunk, png_header_only

pytestmark = pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # pytest resets filters
LIMIT_TEXT = f"exceeds the {MAX_PIXELS // 1_000_000} MP limit (possible decompression bomb)"


def black_png(path: Path, side: int) -> Path:
    """A real, complete greyscale PNG of side x side black pixels (compresses to a few hundred KB)."""
    compressor = zlib.compressobj(9)
    row = b"\x00" * (side + 1)  # filter byte + pixels
    data = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", data)
                     + _png_chunk(b"IEND", b""))  # fmt: skip
    return path


def test_pillow_warns_at_our_limit() -> None:
    assert Image.MAX_IMAGE_PIXELS == MAX_PIXELS


def test_a_225_megapixel_png_is_under_the_limit_and_decodes(tmp_path: Path) -> None:
    path = black_png(tmp_path / "pano.png", 15_000)
    data = path.read_bytes()
    decoded = decode_bytes(data, path.name, 256, 256)
    assert decoded.full_size == (15_000, 15_000) and max(decoded.image.size) == 256
    assert (metadata_from_bytes(data, path.name).width, metadata_from_bytes(data, path.name).height) == (15_000,) * 2


@pytest.mark.parametrize("side", [15_812, 20_000, 30_000, 60_000])
def test_every_image_over_the_limit_gets_the_same_message(tmp_path: Path, side: int) -> None:
    """15,812² is just over 250 MP; 30,000² and 60,000² are past Pillow's own hard stop."""
    path = png_header_only(tmp_path / "big.png", side, side)
    for read in (lambda d: decode_bytes(d, "big.png", 256), lambda d: metadata_from_bytes(d, "big.png")):
        with pytest.raises(DecodeError) as raised:
            read(path.read_bytes())
        assert raised.value.kind == "too_large" and LIMIT_TEXT in raised.value.reason
        assert "500" not in raised.value.reason


def test_just_under_the_limit_is_not_refused_for_its_size(tmp_path: Path) -> None:
    path = png_header_only(tmp_path / "under.png", 15_811, 15_811)  # 249.99 MP, pixel data missing
    for read in (lambda d: decode_bytes(d, "under.png", 256), lambda d: metadata_from_bytes(d, "under.png")):
        with pytest.raises(DecodeError) as raised:
            read(path.read_bytes())
        assert raised.value.kind != "too_large" and "MP" not in raised.value.reason
