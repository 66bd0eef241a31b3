"""Marks embedded in image files (in-camera ratings): JPEG, TIFF and DNG written by exiftool, read only."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from aesthete_gui.imaging.xmp import XmpError, XmpMarks
from aesthete_gui.imaging.xmp_embedded import read_embedded_marks
from tests.imaging.conftest import write_dng

EXIFTOOL = shutil.which("exiftool")


def _set(path: Path, *assignments: str) -> None:
    assert EXIFTOOL, "exiftool is required (Debian package libimage-exiftool-perl)"
    subprocess.run([EXIFTOOL, "-q", "-overwrite_original", *assignments, str(path)], check=True,
                   capture_output=True)  # fmt: skip


@pytest.mark.parametrize("suffix", [".jpg", ".tif"])
def test_pillow_formats_give_their_embedded_marks(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"frame{suffix}"
    Image.new("RGB", (64, 48), "teal").save(path)
    assert read_embedded_marks(path) is None
    _set(path, "-XMP-xmp:Rating=4", "-XMP-xmp:Label=Green", "-XMP-digiKam:PickLabel=3")
    before = path.read_bytes()
    assert read_embedded_marks(path) == XmpMarks(stars=4, flag="pick", label="Green")
    assert path.read_bytes() == before


def test_dng_rating_written_by_exiftool_is_read(tmp_path: Path) -> None:
    path = write_dng(tmp_path / "frame.dng")
    _set(path, "-XMP-xmp:Rating=-1")
    assert read_embedded_marks(path) == XmpMarks(stars=None, flag="reject", label=None)


def test_raw_file_packet_is_found_by_searching_its_bytes(tmp_path: Path) -> None:
    packet = (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        b'<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="2"/>'
        b"</rdf:RDF></x:xmpmeta>"
    )
    path = tmp_path / "IMG_0001.CR3"
    path.write_bytes(b"\x00\x00\x00\x18ftypcrx " + b"\x00" * 4000 + packet + b"\x00" * 100)
    assert read_embedded_marks(path) == XmpMarks(stars=2, flag=None, label=None)
    path.write_bytes(b"\x00\x00\x00\x18ftypcrx " + b"<x:xmpmeta <broken </x:xmpmeta>")
    with pytest.raises(XmpError):
        read_embedded_marks(path)


def test_a_jpeg_without_an_xmp_segment_is_not_searched_byte_by_byte(tmp_path: Path) -> None:
    # XMP text in a JPEG comment is no embedded packet; finding it would mean reading the whole file.
    packet = (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        b'<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="5"/>'
        b"</rdf:RDF></x:xmpmeta>"
    )
    path = tmp_path / "frame.jpg"
    Image.new("RGB", (64, 48), "teal").save(path, comment=packet)
    assert packet in path.read_bytes()
    assert read_embedded_marks(path) is None


def _png_with_packet_after_the_pixels(path: Path, packet: bytes) -> Path:
    import struct
    import zlib

    Image.new("RGB", (32, 24), "teal").save(path)
    data = path.read_bytes()
    body = b"XML:com.adobe.xmp\x00\x00\x00\x00\x00" + packet
    chunk = struct.pack(">I", len(body)) + b"iTXt" + body + struct.pack(">I", zlib.crc32(b"iTXt" + body))
    end = data.rindex(b"IEND") - 4  # the IEND chunk's length field
    path.write_bytes(data[:end] + chunk + data[end:])
    return path


def test_a_png_packet_after_the_image_data_is_still_found(tmp_path: Path) -> None:
    packet = (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        b'<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4"/>'
        b"</rdf:RDF></x:xmpmeta>"
    )
    path = _png_with_packet_after_the_pixels(tmp_path / "late.png", packet)
    assert read_embedded_marks(path) == XmpMarks(stars=4, flag=None, label=None)


def test_a_jpeg_packet_is_read_where_older_pillow_keeps_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aesthete_gui.imaging import xmp_embedded

    path = tmp_path / "frame.jpg"
    Image.new("RGB", (64, 48), "teal").save(path)
    _set(path, "-XMP-xmp:Rating=3")
    opened = Image.open

    def open_like_pillow_10_0(*args, **kwargs):  # 10.0 left info["xmp"] empty for JPEG
        image = opened(*args, **kwargs)
        image.info.pop("xmp", None)
        return image

    monkeypatch.setattr(xmp_embedded.Image, "open", open_like_pillow_10_0)
    assert read_embedded_marks(path) == XmpMarks(stars=3, flag=None, label=None)
