"""One decode per file at import: several sizes from one read of the compressed data, same values as apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFile

from aesthete_gui.imaging.checks import CHECK_DRAFT_SIDE, CHECK_SIDE, analyse_path
from aesthete_gui.imaging.decode import decode_bytes, decode_bytes_sizes
from aesthete_gui.imaging.features import features_for_path
from aesthete_gui.imaging.ingest import ingest_file
from aesthete_gui.imaging.thumbnails import PREVIEW_DRAFT_SIDE, PREVIEW_SIDE, THUMB_SIDE
from aesthete_gui.services.library_worker import process_file
from tests.imaging.conftest import exif_with, photo, wide_gamut_icc, write_dng

PREVIEW = (PREVIEW_SIDE, PREVIEW_DRAFT_SIDE)
CHECK = (CHECK_SIDE, CHECK_DRAFT_SIDE)


@pytest.fixture
def pixel_decodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    """Records the size of every JPEG pixel decode Pillow does (the real load runs unchanged)."""
    seen: list[tuple[int, int]] = []
    original = ImageFile.ImageFile.load

    def counted(self: ImageFile.ImageFile):  # type: ignore[no-untyped-def]
        if self.tile and self.format == "JPEG":  # a load that still has compressed data to decode
            seen.append(self.size)
        return original(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", counted)
    yield seen


def _camera_jpeg(path: Path, size: tuple[int, int], orientation: int = 1) -> Path:
    """A photograph saved as a camera would: JPEG quality 90 with an EXIF orientation."""
    photo(size).save(path, quality=90, exif=exif_with(orientation=orientation, model="Z 8"))
    return path


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.mode == b.mode and np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("size", [(6000, 4000), (4000, 3000), (700, 500)])
def test_sizes_decoded_together_equal_each_decoded_alone(tmp_path: Path, size: tuple[int, int]) -> None:
    data = _camera_jpeg(tmp_path / "a.jpg", size, orientation=6).read_bytes()
    asked = [PREVIEW, CHECK, (THUMB_SIDE, THUMB_SIDE)]
    together = decode_bytes_sizes(data, "a.jpg", asked)
    for (max_side, draft_side), decoded in zip(asked, together, strict=True):
        alone = decode_bytes(data, "a.jpg", max_side, draft_side)
        assert _same(decoded.image, alone.image)
        assert (decoded.full_size, decoded.orientation, decoded.format) == (alone.full_size, alone.orientation, alone.format)
        assert decoded.notes == alone.notes
    assert len({id(decoded.notes) for decoded in together}) == len(together)  # each result its own notes


def _file_of_kind(kind: str, folder: Path) -> Path:
    """One real file per kind the decoder treats differently (ICC, CMYK, lossless, animated, RAW)."""
    picture = photo((2400, 1600))
    path = folder / f"a.{ {'jpeg-icc': 'jpg', 'cmyk': 'jpg', 'gif': 'gif', 'dng': 'dng'}.get(kind, kind)}"
    if kind == "jpeg-icc":
        picture.save(path, quality=90, icc_profile=wide_gamut_icc(), exif=exif_with(orientation=5))
    elif kind == "cmyk":
        picture.convert("CMYK").save(path, quality=90)
    elif kind == "gif":
        picture.save(path, save_all=True, append_images=[picture.rotate(90)], duration=100)
    elif kind == "dng":
        write_dng(path, orientation=6)
    else:
        picture.save(path)
    return path


@pytest.mark.parametrize("kind", ["jpeg-icc", "cmyk", "png", "tiff", "gif", "dng"])
def test_every_kind_of_file_decodes_together_as_alone(tmp_path: Path, kind: str) -> None:
    path = _file_of_kind(kind, tmp_path)
    data = path.read_bytes()
    asked = [PREVIEW, CHECK]
    for (max_side, draft_side), decoded in zip(asked, decode_bytes_sizes(data, path.name, asked), strict=True):
        alone = decode_bytes(data, path.name, max_side, draft_side)
        assert _same(decoded.image, alone.image)
        assert (decoded.format, decoded.full_size, decoded.icc_converted, decoded.notes) == (
            alone.format, alone.full_size, alone.icc_converted, alone.notes
        )


def test_sizes_on_one_dct_scale_decode_the_compressed_data_once(tmp_path: Path, pixel_decodes: list[tuple[int, int]]) -> None:
    data = _camera_jpeg(tmp_path / "a.jpg", (6000, 4000)).read_bytes()
    preview, check = decode_bytes_sizes(data, "a.jpg", [PREVIEW, CHECK])
    assert pixel_decodes == [(750, 500)]  # 1/8 scale serves both the ~1024 px preview and the checks
    assert preview.image.size == check.image.size == (750, 500)


def test_sizes_on_different_dct_scales_decode_once_each(tmp_path: Path, pixel_decodes: list[tuple[int, int]]) -> None:
    # 1/8 of 5600 px (700) is enough for the checks (680 and up) but not for the preview (736 and up)
    data = _camera_jpeg(tmp_path / "a.jpg", (5600, 3920)).read_bytes()
    preview, check = decode_bytes_sizes(data, "a.jpg", [PREVIEW, CHECK])
    assert pixel_decodes == [(1400, 980), (700, 490)]
    assert (preview.image.size, check.image.size) == ((1024, 717), (700, 490))


def test_a_check_frame_is_never_coarser_than_680_px(tmp_path: Path, pixel_decodes: list[tuple[int, int]]) -> None:
    # 1/8 of 5000 px is 625: the check frame comes from the preview's 1/4 decode, shrunk to 768
    data = _camera_jpeg(tmp_path / "a.jpg", (5000, 3500)).read_bytes()
    preview, check = decode_bytes_sizes(data, "a.jpg", [PREVIEW, CHECK])
    assert pixel_decodes == [(1250, 875)]
    assert (preview.image.size, check.image.size) == ((1024, 717), (768, 538))


def test_a_12_mp_frame_is_checked_on_a_768_px_frame_from_the_previews_decode(
    tmp_path: Path, pixel_decodes: list[tuple[int, int]]
) -> None:
    data = _camera_jpeg(tmp_path / "a.jpg", (4000, 3000)).read_bytes()
    preview, check = decode_bytes_sizes(data, "a.jpg", [PREVIEW, CHECK])
    assert pixel_decodes == [(1000, 750)]  # no 500 px check frame: too coarse to see a soft face
    assert (preview.image.size, check.image.size) == ((1000, 750), (768, 576))


@pytest.mark.parametrize("with_preview", [False, True])
def test_import_stores_the_checks_the_inspector_shows(
    tmp_path: Path, pixel_decodes: list[tuple[int, int]], with_preview: bool
) -> None:
    path = _camera_jpeg(tmp_path / "a.jpg", (6000, 4000), orientation=8)
    result = ingest_file(path, tmp_path / "cache", with_preview=with_preview, with_features=with_preview)
    assert result.ok and result.analysis is not None
    # thumbnail, preview, pHash, features, faces and checks: one decode at 1/8; focus and motion blur
    # are measured on a second at 1/4 (checks.DETAIL_SIDE: a 0.5 % defocus is 3.8 px at 1/8)
    assert pixel_decodes == [(750, 500), (1500, 1000)]
    assert result.analysis == analyse_path(path)  # what the inspector and the loupe measure
    if with_preview:
        assert result.features == features_for_path(path)
        with Image.open(result.thumbs.preview_path) as preview:  # type: ignore[union-attr]
            assert preview.size == (500, 750)  # orientation 8 applied


def test_import_with_a_preview_on_another_scale_still_stores_the_canonical_checks(tmp_path: Path) -> None:
    path = _camera_jpeg(tmp_path / "a.jpg", (4000, 3000), orientation=3)
    result = ingest_file(path, tmp_path / "cache", with_preview=True, with_features=True)
    assert result.analysis == analyse_path(path)
    assert result.features == features_for_path(path)


def test_worker_leaves_out_checks_and_faces_only_when_asked(tmp_path: Path) -> None:
    path = _camera_jpeg(tmp_path / "a.jpg", (1600, 1200))
    plain = process_file(str(path), str(tmp_path / "cache"), False, with_checks=False)
    checked = process_file(str(path), str(tmp_path / "cache2"), False)
    assert plain.ingest.ok and plain.ingest.analysis is None
    assert checked.ingest.analysis == analyse_path(path)
    assert plain.ingest.metadata == checked.ingest.metadata


@pytest.mark.parametrize("with_preview", [False, True])
def test_a_raw_file_is_opened_once_per_distinct_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_preview: bool) -> None:
    """LibRaw shares nothing between sizes, so each distinct one is one open (and maybe a demosaic);
    a RAW file has no detail decode (its previews and LibRaw's rendering would be two pictures)."""
    from aesthete_gui.imaging import decode

    opened: list[int | None] = []
    real = decode.read_raw

    def counted(data: bytes, max_side: int | None):  # type: ignore[no-untyped-def]
        opened.append(max_side)
        return real(data, max_side)

    monkeypatch.setattr(decode, "read_raw", counted)
    path = write_dng(tmp_path / "a.dng")
    result = ingest_file(path, tmp_path / "cache", with_preview=with_preview)
    assert result.ok and result.analysis is not None
    assert opened == ([PREVIEW_SIDE, CHECK_SIDE] if with_preview else [CHECK_SIDE])
