"""Thumbnail cache and the one-read ingest of a file (what import calls for every image)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aesthete_gui.imaging.decode import DecodeError
from aesthete_gui.imaging.features import FEATURE_NAMES
from aesthete_gui.imaging.hashing import content_hash, hamming, perceptual_hash
from aesthete_gui.imaging.ingest import ingest_file
from aesthete_gui.imaging.thumbnails import (
    embedded_exif_thumbnail,
    ensure_thumbnail,
    ensure_thumbnails,
    thumb_paths,
)
from tests.imaging.conftest import (
    exif_with,
    jpeg_with_exif_thumbnail,
    photo,
    png_header_only,
    write_dng,
)


def test_thumbnails_are_made_once_sharded_and_atomic(tmp_path: Path) -> None:
    source = tmp_path / "shot.jpg"
    photo((2000, 1500)).save(source, quality=90)
    digest = content_hash(source)
    thumbs = ensure_thumbnails(source, digest, tmp_path / "cache")
    assert thumbs.thumb_path.parent == tmp_path / "cache" / digest[:2] / digest[2:4]
    with Image.open(thumbs.thumb_path) as thumb, Image.open(thumbs.preview_path) as preview:
        assert thumb.format == preview.format == "JPEG"
        assert max(thumb.size) == 256
        assert 736 <= max(preview.size) <= 1024
        assert thumb.size[0] / thumb.size[1] == pytest.approx(4 / 3, rel=0.02)
    assert not [p for p in thumbs.thumb_path.parent.iterdir() if p.name.startswith(".tmp-")]
    source.unlink()  # cached: the original is not needed, so it is not decoded again
    assert ensure_thumbnails(source, digest, tmp_path / "cache") == thumbs


def test_missing_thumbnail_is_rebuilt_from_the_cached_preview(tmp_path: Path) -> None:
    source = tmp_path / "shot.png"
    photo((1200, 800)).save(source)
    digest = content_hash(source)
    thumbs = ensure_thumbnails(source, digest, tmp_path / "cache")
    thumbs.thumb_path.unlink()
    source.unlink()
    assert ensure_thumbnails(source, digest, tmp_path / "cache").thumb_path.is_file()


def test_thumbnails_of_an_undecodable_file_raise_decode_error(tmp_path: Path) -> None:
    (tmp_path / "bad.jpg").write_bytes(b"not a picture at all")
    with pytest.raises(DecodeError):
        ensure_thumbnails(tmp_path / "bad.jpg", "00ff", tmp_path / "cache")
    assert not thumb_paths("00ff", tmp_path / "cache").thumb_path.exists()


def test_embedded_exif_thumbnail_serves_the_small_thumbnail(tmp_path: Path) -> None:
    main = Image.new("RGB", (1600, 1200), (255, 0, 0))
    embedded = Image.new("RGB", (320, 240), (0, 0, 255))  # different colour: proves where it came from
    path = jpeg_with_exif_thumbnail(tmp_path / "cam.jpg", main, embedded, orientation=6)
    found = embedded_exif_thumbnail(path)
    assert found is not None and found.size == (240, 320)  # oriented like the main image
    thumb_path = ensure_thumbnail(path, "abcd", tmp_path / "cache")
    with Image.open(thumb_path) as thumb:
        r, _, b = thumb.convert("RGB").getpixel((10, 10))
        assert b > 200 and r < 50
        assert thumb.size == (192, 256)


def test_too_small_embedded_thumbnail_is_ignored(tmp_path: Path) -> None:
    main = Image.new("RGB", (1600, 1200), (255, 0, 0))
    path = jpeg_with_exif_thumbnail(tmp_path / "cam.jpg", main, Image.new("RGB", (160, 120), (0, 0, 255)))
    assert embedded_exif_thumbnail(path) is None
    with Image.open(ensure_thumbnail(path, "abce", tmp_path / "cache")) as thumb:
        assert thumb.convert("RGB").getpixel((10, 10))[0] > 200  # decoded from the main image


def test_ingest_does_everything_from_one_read(tmp_path: Path) -> None:
    path = tmp_path / "IMG_0042.jpg"
    photo((1600, 1200)).save(path, quality=90, exif=exif_with(when="2024:06:01 10:00:00", subsec="5", model="Z 8"))
    result = ingest_file(path, tmp_path / "cache")
    assert result.ok and result.error is None and result.decoded
    assert result.content_hash == content_hash(path)
    assert result.size_bytes == path.stat().st_size and result.mtime == path.stat().st_mtime
    assert result.metadata is not None and result.metadata.camera_model == "Z 8"
    assert result.metadata.capture_time is not None and result.metadata.capture_time.microsecond == 500000
    assert result.thumbs is not None and result.thumbs.exist()
    with Image.open(result.thumbs.thumb_path) as thumb:
        assert result.phash is not None
        assert hamming(result.phash, perceptual_hash(thumb)) <= 2
    assert result.features is None
    assert pickle.loads(pickle.dumps(result)) == result  # crosses process-pool boundaries


def test_reingest_of_known_bytes_does_not_decode(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    photo((800, 600)).save(path)
    first = ingest_file(path, tmp_path / "cache")
    moved = tmp_path / "renamed.jpg"
    path.rename(moved)
    again = ingest_file(moved, tmp_path / "cache")
    assert again.ok and not again.decoded
    assert again.content_hash == first.content_hash and again.phash == first.phash
    assert again.metadata == first.metadata


def test_ingest_thumbnail_only_then_preview_on_demand(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    photo((2400, 1800)).save(path)
    result = ingest_file(path, tmp_path / "cache", with_preview=False)
    assert result.ok and result.thumbs is not None
    assert result.thumbs.thumb_path.is_file() and not result.thumbs.preview_path.exists()
    assert result.metadata is not None and (result.metadata.width, result.metadata.height) == (2400, 1800)
    assert ensure_thumbnails(path, result.content_hash or "", tmp_path / "cache").exist()


def test_ingest_with_features(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    photo((900, 600)).save(path)
    result = ingest_file(path, tmp_path / "cache", with_features=True)
    assert result.features is not None and list(result.features) == list(FEATURE_NAMES)
    assert result.features["image_megapixels"] == pytest.approx(0.54)
    assert all(np.isfinite(v) for v in result.features.values())


def test_ingest_raw(tmp_path: Path) -> None:
    result = ingest_file(write_dng(tmp_path / "r.dng"), tmp_path / "cache")
    assert result.ok and result.metadata is not None and result.metadata.format == "RAW"
    assert (result.metadata.camera_make, result.metadata.camera_model) == ("TestMake", "TestModel")
    assert any("demosaic" in note for note in result.notes)


def _bad_files(tmp_path: Path) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {}
    (tmp_path / "empty.jpg").write_bytes(b"")
    files["empty"] = str(tmp_path / "empty.jpg")
    (tmp_path / "random.jpg").write_bytes(os.urandom(3000))
    files["not_an_image"] = str(tmp_path / "random.jpg")
    photo((400, 300)).save(tmp_path / "whole.jpg")
    (tmp_path / "cut.jpg").write_bytes((tmp_path / "whole.jpg").read_bytes()[:5000])
    files["truncated"] = str(tmp_path / "cut.jpg")
    files["too_large"] = str(png_header_only(tmp_path / "bomb.png", 40000, 40000))
    (tmp_path / "link.jpg").symlink_to(tmp_path / "nowhere")
    files["missing"] = str(tmp_path / "link.jpg")
    return files


def test_ingest_never_raises_and_records_reasons(tmp_path: Path) -> None:
    for kind, path in _bad_files(tmp_path).items():
        result = ingest_file(path, tmp_path / "cache")
        assert not result.ok
        assert result.error_kind == kind, (path, result.error)
        assert result.error
        assert result.thumbs is None


def test_ingest_of_a_file_deleted_before_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "soon_gone.jpg"
    photo((64, 64)).save(path)
    path.unlink()
    result = ingest_file(path, tmp_path / "cache")
    assert result.error_kind == "missing" and "not found" in (result.error or "")


def test_ingest_non_utf8_name(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/\xff\xfe-odd.jpg"
    with open(name, "wb") as handle:
        photo((300, 200)).save(handle, "JPEG")
    result = ingest_file(name, tmp_path / "cache")
    assert result.ok
    assert os.fsencode(result.path) == name  # surrogate-escaped str that maps back to the bytes


def test_a_renamed_tiff_reads_the_same_whether_decoded_or_taken_from_the_cache(tmp_path: Path) -> None:
    """A TIFF named .dng decodes (LibRaw refuses it, Pillow reads it); its header metadata must too,
    or a second copy of the same bytes (served from the thumbnail cache) becomes an error."""
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    Image.new("RGB", (64, 48), "teal").save(shoot / "scan.tif", compression="tiff_lzw")
    (shoot / "scan.dng").write_bytes((shoot / "scan.tif").read_bytes())
    first = ingest_file(shoot / "scan.tif", tmp_path / "cache", with_preview=False)
    second = ingest_file(shoot / "scan.dng", tmp_path / "cache", with_preview=False)
    assert first.ok and second.ok, (first.error, second.error)
    assert (second.metadata.width, second.metadata.height) == (64, 48) and not second.decoded
