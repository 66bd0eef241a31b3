"""Decoding: every format, orientation, colour management, and every bad-input case gives a reason."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
import tifffile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageCms

from aesthete_gui.imaging.decode import DecodeError, decode_bytes, decode_file, open_image
from aesthete_gui.imaging.metadata import read_metadata
from tests.imaging.conftest import exif_with, photo, png_header_only, wide_gamut_icc, write_dng

pytestmark = pytest.mark.filterwarnings(
    "ignore::PIL.Image.DecompressionBombWarning", "ignore:Corrupt EXIF data:UserWarning"
)


def _mean(img: Image.Image) -> np.ndarray:
    return np.asarray(img, dtype=np.float64).reshape(-1, 3).mean(axis=0)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "TIFF", "WEBP", "BMP", "GIF", "HEIF", "AVIF"])
def test_every_format_decodes_to_rgb_with_the_right_colours(tmp_path: Path, fmt: str) -> None:
    source = photo((320, 240))
    path = tmp_path / f"picture.{fmt.lower()}"
    source.save(path, fmt, **({"quality": 95} if fmt in ("JPEG", "WEBP", "HEIF", "AVIF") else {}))
    decoded = decode_file(path)
    assert decoded.image.mode == "RGB"
    assert decoded.image.size == (320, 240)
    assert decoded.format in (fmt, "HEIF" if fmt == "HEIF" else fmt)
    tolerance = 12 if fmt == "GIF" else 6  # GIF is palette-quantised
    assert np.abs(_mean(decoded.image) - _mean(source)).max() < tolerance
    reduced = decode_file(path, max_side=100)
    assert reduced.image.size == (100, 75) and reduced.full_size == (320, 240)
    assert np.abs(_mean(reduced.image) - _mean(source)).max() < tolerance


def test_max_side_limits_the_long_side_and_uses_dct_scaling(tmp_path: Path) -> None:
    path = tmp_path / "big.jpg"
    photo((2400, 1600)).save(path, quality=90)
    small = open_image(path, max_side=256)
    assert max(small.size) == 256 and small.size == (256, 171)
    # draft decoding: the JPEG codec is asked for a 1/8 scale, far less than a full decode
    with Image.open(path) as probe:
        probe.draft("RGB", (256, 171))
        assert probe.size == (300, 200)
    assert open_image(path).size == (2400, 1600)


def test_sixteen_bit_rgb_tiff_is_scaled_not_clipped(tmp_path: Path) -> None:
    values = (np.random.default_rng(1).random((40, 50, 3)) * 65535).astype(np.uint16)
    path = tmp_path / "deep.tif"
    tifffile.imwrite(path, values, photometric="rgb")
    image = open_image(path)
    assert image.mode == "RGB" and image.size == (50, 40)
    expected = np.round(values / 257.0)
    assert np.abs(np.asarray(image, dtype=np.float64) - expected).max() <= 1.0


def test_sixteen_bit_grey_png_uses_the_full_range(tmp_path: Path) -> None:
    ramp = np.tile(np.linspace(0, 65535, 64).astype(np.uint16), (8, 1))
    path = tmp_path / "grey16.png"
    Image.fromarray(ramp).save(path)
    with Image.open(path) as raw:
        assert raw.mode.startswith("I")
    pixels = np.asarray(open_image(path))
    assert pixels[..., 0].min() == 0 and pixels[..., 0].max() == 255
    assert np.all(np.diff(pixels[0, :, 0].astype(int)) >= 0)


def test_cmyk_jpeg_becomes_rgb(tmp_path: Path) -> None:
    source = photo((200, 150))
    path = tmp_path / "print.jpg"
    source.convert("CMYK").save(path, quality=95)
    with Image.open(path) as raw:
        assert raw.mode == "CMYK"
    image = open_image(path)
    assert image.mode == "RGB"
    assert np.abs(_mean(image) - _mean(source)).max() < 8


def test_palette_and_alpha_are_composited_on_neutral_grey(tmp_path: Path) -> None:
    rgba = Image.new("RGBA", (20, 10), (255, 0, 0, 255))
    rgba.paste((0, 0, 0, 0), (10, 0, 20, 10))  # right half fully transparent
    rgba.save(tmp_path / "alpha.png")
    image = open_image(tmp_path / "alpha.png")
    assert image.getpixel((2, 2)) == (255, 0, 0)
    assert image.getpixel((15, 2)) == (128, 128, 128)
    la = Image.new("LA", (4, 4), (200, 0))
    la.save(tmp_path / "la.png")
    assert open_image(tmp_path / "la.png").getpixel((1, 1)) == (128, 128, 128)
    palette = rgba.convert("P")
    palette.save(tmp_path / "palette.png")
    assert open_image(tmp_path / "palette.png").getpixel((2, 2)) == (255, 0, 0)


def test_animated_gif_gives_its_first_frame_and_says_so(tmp_path: Path) -> None:
    frames = [Image.new("RGB", (30, 20), colour) for colour in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    path = tmp_path / "anim.gif"
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=100, loop=0)
    decoded = decode_file(path)
    assert decoded.animated and decoded.frame_count == 3
    assert decoded.image.getpixel((5, 5)) == (255, 0, 0)
    assert any("animated" in note and "first frame" in note for note in decoded.notes)


def test_multi_page_tiff_gives_its_first_page(tmp_path: Path) -> None:
    pages = [Image.new("RGB", (40, 30), colour) for colour in ((0, 200, 0), (200, 0, 0))]
    pages[0].save(tmp_path / "pages.tif", save_all=True, append_images=pages[1:])
    decoded = decode_file(tmp_path / "pages.tif")
    assert decoded.frame_count == 2 and decoded.image.getpixel((3, 3)) == (0, 200, 0)
    assert any("multi-page" in note for note in decoded.notes)


@pytest.mark.parametrize(
    ("orientation", "expected_size", "red_corner"),
    [(1, (60, 40), (0, 0)), (3, (60, 40), (59, 39)), (6, (40, 60), (39, 0)), (8, (40, 60), (0, 59))],
)
@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "TIFF"])
def test_exif_orientation_is_applied(
    tmp_path: Path, orientation: int, expected_size: tuple[int, int], red_corner: tuple[int, int], fmt: str
) -> None:
    image = Image.new("RGB", (60, 40), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 12, 12))  # stored top-left corner is red
    path = tmp_path / f"o{orientation}.{fmt.lower()}"
    image.save(path, fmt, exif=exif_with(orientation=orientation), **({"quality": 95} if fmt != "TIFF" else {}))
    assert (read_metadata(path).width, read_metadata(path).height) == expected_size
    decoded = decode_file(path)
    assert decoded.image.size == expected_size
    assert decoded.full_size == expected_size
    r, _, b = decoded.image.getpixel(red_corner)
    assert r > 200 and b < 60


def test_embedded_wide_gamut_profile_is_converted_to_srgb(tmp_path: Path) -> None:
    icc = wide_gamut_icc()
    source = Image.new("RGB", (8, 8), (150, 100, 50))
    source.save(tmp_path / "wide.png", icc_profile=icc)
    decoded = decode_file(tmp_path / "wide.png")
    assert decoded.icc_converted
    expected = ImageCms.profileToProfile(
        source, ImageCms.ImageCmsProfile(io.BytesIO(icc)), ImageCms.createProfile("sRGB"), outputMode="RGB"
    )
    assert decoded.image.getpixel((0, 0)) == expected.getpixel((0, 0))
    r, _, b = decoded.image.getpixel((0, 0))
    assert r > 150 + 8 and b < 50 - 3  # wide-gamut values are more saturated once shown in sRGB


def test_srgb_tagged_images_skip_the_colour_transform(tmp_path: Path) -> None:
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    Image.new("RGB", (8, 8), (150, 100, 50)).save(tmp_path / "s.png", icc_profile=srgb)
    decoded = decode_file(tmp_path / "s.png")
    assert not decoded.icc_converted
    assert decoded.image.getpixel((0, 0)) == (150, 100, 50)


def test_wrong_extension_is_decoded_by_content_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "actually_png.jpg"
    photo((64, 48)).save(path, "PNG")
    decoded = decode_file(path)
    assert decoded.format == "PNG" and decoded.image.size == (64, 48)
    assert any("extension says JPEG" in note for note in decoded.notes)


def test_non_utf8_file_name_as_bytes_path(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9-\xff.jpg"
    with open(name, "wb") as handle:
        photo((64, 48)).save(handle, "JPEG")
    assert open_image(name).size == (64, 48)


# ----- bad input: every case raises DecodeError with a reason and a stable kind -----


def _fails(path: str | bytes | Path, kind: str, words: str) -> DecodeError:
    with pytest.raises(DecodeError) as caught:
        decode_file(path)
    assert caught.value.kind == kind
    assert words in caught.value.reason
    return caught.value


def test_zero_byte_file(tmp_path: Path) -> None:
    (tmp_path / "empty.jpg").write_bytes(b"")
    _fails(tmp_path / "empty.jpg", "empty", "0 bytes")


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_truncated_file(tmp_path: Path, fmt: str) -> None:
    buffer = io.BytesIO()
    photo((400, 300)).save(buffer, fmt)
    path = tmp_path / f"cut.{fmt.lower()}"
    path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    _fails(path, "truncated", "truncated")


def test_corrupt_png_data_stream(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    photo((100, 80)).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    data[60:400] = os.urandom(340)  # IDAT content destroyed, header intact
    (tmp_path / "bad.png").write_bytes(bytes(data))
    with pytest.raises(DecodeError) as caught:
        decode_file(tmp_path / "bad.png")
    assert caught.value.kind in ("corrupt", "truncated")


def test_jpeg_header_without_image(tmp_path: Path) -> None:
    (tmp_path / "header_only.jpg").write_bytes(b"\xff\xd8\xff" + b"\x00" * 200)
    _fails(tmp_path / "header_only.jpg", "corrupt", "corrupt JPEG")


def test_random_bytes_named_jpg(tmp_path: Path) -> None:
    (tmp_path / "noise.jpg").write_bytes(np.random.default_rng(3).bytes(5000))
    _fails(tmp_path / "noise.jpg", "not_an_image", "not an image")


def test_text_file_is_not_an_image(tmp_path: Path) -> None:
    (tmp_path / "notes.png").write_text("shopping list: film, batteries\n")
    _fails(tmp_path / "notes.png", "not_an_image", "not an image")


def test_decompression_bomb_above_pillows_hard_limit(tmp_path: Path) -> None:
    path = png_header_only(tmp_path / "bomb.png", 30000, 30000)
    assert path.stat().st_size < 200
    _fails(path, "too_large", "decompression bomb")


def test_decompression_bomb_above_our_limit(tmp_path: Path) -> None:
    path = png_header_only(tmp_path / "bomb2.png", 17000, 17000)
    _fails(path, "too_large", "exceeds the 250 MP limit")


def test_vanished_file(tmp_path: Path) -> None:
    path = tmp_path / "gone.jpg"
    photo((32, 32)).save(path)
    path.unlink()
    _fails(path, "missing", "not found")


def test_broken_symlink(tmp_path: Path) -> None:
    link = tmp_path / "link.jpg"
    link.symlink_to(tmp_path / "nowhere.jpg")
    _fails(link, "missing", "broken symbolic link")


def test_directory_named_like_an_image(tmp_path: Path) -> None:
    (tmp_path / "folder.jpg").mkdir()
    _fails(tmp_path / "folder.jpg", "not_a_file", "directory")


def test_named_pipe_and_device_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jpg")
    _fails(tmp_path / "pipe.jpg", "not_a_file", "not a regular file")
    _fails("/dev/zero", "not_a_file", "not a regular file")


def test_huge_file_is_not_read_into_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.tif"
    with open(path, "wb") as handle:
        handle.truncate(3 * 2**30)  # sparse: takes no disk space
    _fails(path, "too_large", "file too large")


def test_unreadable_permissions(tmp_path: Path) -> None:
    """chmod 000 file. Root ignores file modes, so as root the check runs in a child that drops to nobody."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    folder.chmod(0o755)
    path = folder / "secret.jpg"
    photo((32, 32)).save(path)
    path.chmod(0o000)
    if os.geteuid() != 0:
        _fails(path, "permission", "permission denied")
        return
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        os.close(read_end)
        outcome = b"decoded"
        try:
            os.setgid(65534)
            os.setuid(65534)
            decode_file(path)
        except DecodeError as exc:
            outcome = f"{exc.kind}|{exc.reason}".encode()
        except BaseException as exc:
            outcome = f"other|{type(exc).__name__}".encode()
        os.write(write_end, outcome)
        os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    with os.fdopen(read_end, "rb") as pipe:
        kind, reason = pipe.read().decode().split("|", 1)
    assert kind == "permission"
    assert "permission denied" in reason


def test_corrupt_raw_file_has_a_reason(tmp_path: Path) -> None:
    (tmp_path / "shot.nef").write_bytes(b"II*\x00" + np.random.default_rng(5).bytes(4000))
    _fails(tmp_path / "shot.nef", "corrupt", "")


# ----- camera RAW through LibRaw (synthetic DNG files LibRaw reads like a camera's) -----


def test_raw_without_preview_is_demosaiced_at_half_size(tmp_path: Path) -> None:
    decoded = decode_file(write_dng(tmp_path / "plain.dng"))
    assert decoded.format == "RAW"
    assert decoded.full_size == (384, 256)
    assert decoded.image.size == (192, 128)  # LibRaw half-size demosaic
    assert "half-size demosaic" in decoded.notes[0]


def test_raw_embedded_preview_is_used_and_oriented(tmp_path: Path) -> None:
    preview = np.zeros((200, 300, 3), dtype=np.uint8)
    preview[..., 2] = 220
    decoded = decode_file(write_dng(tmp_path / "prev.dng", preview=preview, orientation=6), max_side=256)
    assert "embedded preview" in decoded.notes[0]
    assert decoded.image.size == (171, 256)  # 300x200 preview, fitted to 256, turned upright
    assert decoded.full_size == (256, 384)
    assert decoded.image.getpixel((10, 10))[2] > 200


def test_raw_preview_too_small_for_a_full_view_falls_back_to_demosaic(tmp_path: Path) -> None:
    preview = np.full((200, 300, 3), 90, dtype=np.uint8)
    decoded = decode_file(write_dng(tmp_path / "small_prev.dng", preview=preview))
    assert "half-size demosaic" in decoded.notes[0]


def test_tiff_misnamed_as_raw_still_decodes(tmp_path: Path) -> None:
    path = tmp_path / "scan.nef"
    photo((64, 48)).save(path, "TIFF")
    assert open_image(path).size == (64, 48)


# ----- whatever the bytes, only DecodeError comes out -----

_VALID: dict[str, bytes] = {}


def _valid(fmt: str) -> bytes:
    if fmt not in _VALID:
        buffer = io.BytesIO()
        photo((96, 64)).save(buffer, fmt)
        _VALID[fmt] = buffer.getvalue()
    return _VALID[fmt]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fmt=st.sampled_from(["JPEG", "PNG", "GIF", "TIFF", "WEBP", "BMP"]),
    cut=st.floats(0.0, 1.0),
    flips=st.lists(st.tuples(st.floats(0.0, 0.999), st.integers(0, 255)), max_size=12),
)
def test_damaged_bytes_never_raise_anything_but_decode_error(
    fmt: str, cut: float, flips: list[tuple[float, int]]
) -> None:
    data = bytearray(_valid(fmt))
    for where, value in flips:
        data[int(where * len(data))] = value
    data = data[: max(1, int(cut * len(data)))] if cut < 0.98 else data
    try:
        decoded = decode_bytes(bytes(data), f"x.{fmt.lower()}", max_side=128)
    except DecodeError as exc:
        assert exc.reason and exc.kind
    else:
        assert decoded.image.mode == "RGB" and max(decoded.image.size) <= 128
