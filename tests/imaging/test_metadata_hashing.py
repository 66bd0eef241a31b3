"""Capture metadata from headers, content hashes and perceptual hashes."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageFilter

from aesthete_gui.imaging.decode import DecodeError, decode_file
from aesthete_gui.imaging.hashing import (
    content_hash,
    content_hash_bytes,
    hamming,
    perceptual_hash,
)
from aesthete_gui.imaging.metadata import (
    metadata_from_bytes,
    metadata_from_decoded,
    parse_exif_datetime,
    read_metadata,
)
from tests.imaging.conftest import exif_with, photo, write_dng


def _camera_jpeg(path: Path, **fields: object) -> Path:
    photo((300, 200)).save(path, quality=90, exif=exif_with(**fields))  # type: ignore[arg-type]
    return path


def test_full_camera_metadata_with_sub_seconds_and_offset(tmp_path: Path) -> None:
    path = _camera_jpeg(
        tmp_path / "IMG_0001.jpg",
        orientation=6,
        when="2024:05:01 12:30:15",
        subsec="25",
        offset="+02:00",
        make="Canon",
        model="Canon EOS R5",
        lens="RF24-70mm F2.8 L IS USM",
        exposure=(1, 250),
        f_number=(28, 10),
        iso=800,
        focal=(50, 1),
        image_number=1234,
    )
    meta = read_metadata(path)
    assert meta.capture_time == datetime(2024, 5, 1, 12, 30, 15, 250000, tzinfo=timezone(timedelta(hours=2)))
    assert meta.capture_timestamp == pytest.approx(
        datetime(2024, 5, 1, 10, 30, 15, 250000, tzinfo=UTC).timestamp()
    )
    assert (meta.camera_make, meta.camera_model, meta.camera) == ("Canon", "Canon EOS R5", "Canon EOS R5")
    assert meta.lens == "RF24-70mm F2.8 L IS USM"
    assert meta.exposure_time == pytest.approx(1 / 250)
    assert meta.f_number == pytest.approx(2.8)
    assert meta.iso == 800
    assert meta.focal_length == pytest.approx(50.0)
    assert meta.sequence_number == 1234
    assert (meta.width, meta.height, meta.orientation, meta.format) == (200, 300, 6, "JPEG")
    assert meta.to_dict()["capture_time"] == "2024-05-01T12:30:15.250000+02:00"


def test_sub_second_digits_are_a_fraction() -> None:
    assert parse_exif_datetime("2024:01:02 03:04:05", "5").microsecond == 500000
    assert parse_exif_datetime("2024:01:02 03:04:05", "05").microsecond == 50000
    assert parse_exif_datetime("2024:01:02 03:04:05", "123456789").microsecond == 123456
    assert parse_exif_datetime("2024:01:02 03:04:05", b"07\x00").microsecond == 70000
    assert parse_exif_datetime("    :  :     :  :  ") is None
    assert parse_exif_datetime(None) is None
    naive = parse_exif_datetime("2024:01:02 03:04:05", offset="bogus")
    assert naive is not None and naive.tzinfo is None


def test_burst_frames_order_by_sub_seconds(tmp_path: Path) -> None:
    times = [_camera_jpeg(tmp_path / f"f{i}.jpg", when="2024:05:01 12:30:15", subsec=s) for i, s in enumerate(("90", "10", "50"))]
    stamps = [read_metadata(p).capture_timestamp for p in times]
    assert stamps[1] < stamps[2] < stamps[0]
    assert stamps[0] - stamps[1] == pytest.approx(0.8)


def test_metadata_without_exif(tmp_path: Path) -> None:
    photo((120, 80)).save(tmp_path / "plain.png")
    meta = read_metadata(tmp_path / "plain.png")
    assert (meta.width, meta.height, meta.format, meta.capture_time, meta.camera) == (120, 80, "PNG", None, None)


def test_metadata_reads_headers_only(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    photo((600, 400)).save(buffer, "JPEG", exif=exif_with(make="Nikon", when="2023:12:24 18:00:00"))
    data = buffer.getvalue()
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: len(data) * 2 // 3])  # pixels are damaged, headers are intact
    with pytest.raises(DecodeError):
        decode_file(path)
    meta = read_metadata(path)
    assert meta.camera_make == "Nikon" and meta.capture_time == datetime(2023, 12, 24, 18)


def test_metadata_errors_have_reasons(tmp_path: Path) -> None:
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(DecodeError) as empty:
        read_metadata(tmp_path / "empty.jpg")
    assert empty.value.kind == "empty"
    with pytest.raises(DecodeError) as missing:
        read_metadata(tmp_path / "missing.jpg")
    assert missing.value.kind == "missing"
    (tmp_path / "text.jpg").write_text("hello")
    with pytest.raises(DecodeError) as text:
        read_metadata(tmp_path / "text.jpg")
    assert text.value.kind == "not_an_image"


def test_raw_metadata_from_tiff_structure_and_libraw(tmp_path: Path) -> None:
    meta = read_metadata(write_dng(tmp_path / "cam.dng", orientation=6))
    assert (meta.camera_make, meta.camera_model, meta.format) == ("TestMake", "TestModel", "RAW")
    assert (meta.width, meta.height, meta.orientation) == (256, 384, 6)


def test_metadata_from_an_existing_decode_matches_header_read(tmp_path: Path) -> None:
    path = _camera_jpeg(tmp_path / "a.jpg", orientation=8, when="2022:02:02 02:02:02", subsec="3", model="X100V")
    assert metadata_from_decoded(decode_file(path, max_side=64)) == read_metadata(path)


def test_content_hash_identifies_identical_bytes(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.jpg", tmp_path / "copy.jpg", tmp_path / "c.jpg"
    photo((200, 100)).save(a)
    b.write_bytes(a.read_bytes())
    changed = bytearray(a.read_bytes())
    changed[-3] ^= 1
    c.write_bytes(bytes(changed))
    assert content_hash(a) == content_hash(b) == content_hash_bytes(a.read_bytes())
    assert content_hash(a) != content_hash(c)
    assert len(content_hash(a)) == 32
    big = tmp_path / "big.bin"
    big.write_bytes(np.random.default_rng(0).bytes(3 * (1 << 20) + 17))  # several streaming chunks
    assert content_hash(big) == content_hash_bytes(big.read_bytes())


def test_perceptual_hash_near_and_far() -> None:
    original = photo((512, 384))
    buffer = io.BytesIO()
    original.save(buffer, "JPEG", quality=40)
    recompressed = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    resized = original.resize((200, 150))
    slightly_blurred = original.filter(ImageFilter.GaussianBlur(1.5))
    other = photo((512, 384), "coffee")
    h = perceptual_hash(original)
    assert 0 <= h < 1 << 64
    assert hamming(h, perceptual_hash(recompressed)) <= 4
    assert hamming(h, perceptual_hash(resized)) <= 4
    assert hamming(h, perceptual_hash(slightly_blurred)) <= 6
    assert hamming(h, perceptual_hash(other)) >= 20
    assert perceptual_hash(original) == h  # deterministic


def test_hamming_counts_differing_bits_of_64_bit_hashes() -> None:
    assert hamming(0, 0) == 0
    assert hamming(0, (1 << 64) - 1) == 64
    assert hamming(0b1011, 0b0001) == 2


_CAMERA_JPEG: list[bytes] = []


def _camera_bytes() -> bytes:
    if not _CAMERA_JPEG:
        buffer = io.BytesIO()
        exif = exif_with(orientation=6, when="2024:05:01 12:30:15", subsec="25", make="Canon", iso=100, exposure=(1, 60))
        photo((64, 48)).save(buffer, "JPEG", exif=exif)
        _CAMERA_JPEG.append(buffer.getvalue())
    return _CAMERA_JPEG[0]


@pytest.mark.filterwarnings("ignore::UserWarning")  # Pillow warns about the damage we made
@settings(max_examples=80, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 255)), min_size=1, max_size=8))
def test_damaged_exif_never_raises_anything_but_decode_error(flips: list[tuple[int, int]]) -> None:
    data = bytearray(_camera_bytes())
    for where, value in flips:
        data[where] = value  # the first 400 bytes hold the EXIF block
    try:
        meta = metadata_from_bytes(bytes(data), "x.jpg")
    except DecodeError as exc:
        assert exc.reason
    else:
        assert meta.width > 0 and meta.height > 0


@pytest.mark.parametrize(("value", "iso"), [(100, 100), ((25600, 100), 25600), ((100, 25600), 100), (0, None), (2**32 - 1, None)])
def test_an_iso_tag_of_several_values_is_read_as_its_first_speed(tmp_path: Path, value: object, iso: int | None) -> None:
    # an attack wrote ISO (25600, 100): it was read as the fraction 256, and heavy noise became "texture at ISO 256"
    exif = exif_with(model="Cam")
    exif.get_ifd(0x8769)[0x8827] = value
    path = tmp_path / "iso.jpg"
    photo((64, 48)).save(path, exif=exif)
    assert read_metadata(path).iso == iso


def test_an_iso_that_is_no_whole_speed_is_no_iso() -> None:
    from PIL.TiffImagePlugin import IFDRational

    from aesthete_gui.imaging.metadata import _iso

    assert [_iso(v) for v in (IFDRational(1, 3), 0.5, 1e300, float("nan"), "100", b"100", True, (), None)] == [None] * 9
    assert (_iso(IFDRational(400, 1)), _iso(399.6), _iso([800])) == (400, 400, 800)
