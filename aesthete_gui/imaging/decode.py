"""Decode any supported image to an oriented 8-bit sRGB PIL image, or fail with a DecodeError reason."""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import os
import stat
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from PIL import Image, UnidentifiedImageError

from aesthete_gui.imaging.colour import flatten_mode, to_srgb
from aesthete_gui.imaging.raw import RawError, is_raw_name, read_raw

MAX_PIXELS = 250_000_000
"""Largest image accepted (pixels): the one rule for every image. Bigger files are treated as
decompression bombs and skipped with too_large_reason()'s message."""

MAX_FILE_BYTES = 2 * 2**30
"""Largest file read into memory (a 250 MP 16-bit RGB TIFF is about 1.5 GiB)."""

# Pillow warns above this and refuses above twice this (DecompressionBombError); both are reported
# with our own limit and message (check_pixels, too_large_reason), so one rule shows everywhere.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
# Pillow's warnings (size, odd EXIF, palette transparency) are covered by our own checks and notes;
# module-level filters, because warnings.catch_warnings is not thread-safe.
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
warnings.filterwarnings("ignore", module=r"PIL\..*")


class _DecoderMessages(logging.Handler):
    """Collects what Pillow's plugins log (e.g. "More samples per pixel than can be decoded") for
    the file being decoded in this thread, instead of Python printing it on the terminal."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        collected = getattr(self.local, "messages", None)
        if collected is not None and len(collected) < 5:
            with contextlib.suppress(Exception):
                collected.append(record.getMessage()[:200])


_DECODER_MESSAGES = _DecoderMessages()
# With a handler on "PIL", Python no longer prints these records on stderr by itself ("last resort").
logging.getLogger("PIL").addHandler(_DECODER_MESSAGES)


@contextlib.contextmanager
def decoder_messages() -> Iterator[list[str]]:
    """The messages Pillow logs while the block runs in this thread (at most five)."""
    previous = getattr(_DECODER_MESSAGES.local, "messages", None)
    collected: list[str] = []
    _DECODER_MESSAGES.local.messages = collected
    try:
        yield collected
    finally:
        _DECODER_MESSAGES.local.messages = previous

_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_ORIENTATION_TAG = 0x0112
# Leading bytes of the formats we read, for "corrupt" vs "not an image" and extension checks.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", "JPEG"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"BM", "BMP"),
)
_EXTENSION_FORMATS = {
    ".jpg": "JPEG", ".jpeg": "JPEG", ".jpe": "JPEG", ".png": "PNG", ".gif": "GIF",
    ".tif": "TIFF", ".tiff": "TIFF", ".bmp": "BMP", ".webp": "WEBP", ".heic": "HEIF",
    ".heif": "HEIF", ".hif": "HEIF", ".avif": "AVIF",
}  # fmt: skip


def too_large_reason(width: int | None = None, height: int | None = None) -> str:
    """The message for an image over MAX_PIXELS (its size when known)."""
    limit = f"the {MAX_PIXELS / 1e6:.0f} MP limit (possible decompression bomb)"
    if width is None or height is None:
        return f"image too large: exceeds {limit}"
    return f"image too large: {width}x{height} = {width * height / 1e6:.0f} MP exceeds {limit}"


def check_pixels(width: int, height: int) -> None:
    """DecodeError("too_large") when width x height is over MAX_PIXELS."""
    if width * height > MAX_PIXELS:
        raise DecodeError(too_large_reason(width, height), "too_large")


class DecodeError(Exception):
    """An image could not be decoded; `reason` says why in words, `kind` is a short stable code."""

    def __init__(self, reason: str, kind: str = "corrupt") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


@dataclass
class Decoded:
    """A decoded image (RGB, sRGB, orientation applied, long side <= the size asked) and facts about it."""

    image: Image.Image
    format: str
    full_size: tuple[int, int]
    orientation: int = 1
    animated: bool = False
    frame_count: int = 1
    icc_converted: bool = False
    exif: Image.Exif | None = None
    notes: list[str] = field(default_factory=list)
    raw_info: dict[str, object] = field(default_factory=dict)
    levels: list[int] | None = None
    """256 counts of the green (or grey) levels as decoded, before resampling and colour conversion
    (both fill or open gaps in them); empty when the source has no 8-bit channels (palette, 16-bit)."""


@functools.cache
def register_extra_formats() -> bool:
    """Register pillow-heif's HEIF opener once, on first use; False when it is unavailable."""
    try:
        import pillow_heif
    except ImportError:
        return False
    pillow_heif.register_heif_opener()  # AVIF is read by Pillow's own plugin
    return True


def _display_name(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    return os.fsdecode(path)


def read_bytes(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> bytes:
    """Read a whole file, turning every filesystem failure into a DecodeError with a reason."""
    try:
        info = os.stat(path)  # before open(): opening a named pipe would block
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError
        if not stat.S_ISREG(info.st_mode):  # a pipe or device could block or never end
            raise DecodeError("not a regular file (device, pipe or socket)", "not_a_file")
        with open(path, "rb", buffering=0) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                raise DecodeError(
                    f"file too large to read (limit {MAX_FILE_BYTES / 2**30:.0f} GiB)", "too_large"
                )
            data = handle.read()
    except FileNotFoundError:
        if os.path.islink(path):
            raise DecodeError("broken symbolic link: its target does not exist", "missing") from None
        raise DecodeError("file not found (moved or deleted)", "missing") from None
    except PermissionError:
        raise DecodeError("permission denied: the file cannot be read", "permission") from None
    except IsADirectoryError:
        raise DecodeError("not a file: the path is a directory", "not_a_file") from None
    except OSError as exc:
        raise DecodeError(f"file could not be read ({exc.strerror or exc})", "io") from None
    if not data:
        raise DecodeError("empty file (0 bytes)", "empty")
    return data


def sniff_format(data: bytes) -> str | None:
    """The image format the leading bytes announce (JPEG, PNG, GIF, TIFF, BMP, WEBP, HEIF), if any."""
    for signature, name in _SIGNATURES:
        if data.startswith(signature):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        return "AVIF" if brand in (b"avif", b"avis") else "HEIF"
    return None


def _extension_note(name: str, actual: str) -> str | None:
    dot = name.rfind(".")
    expected = _EXTENSION_FORMATS.get(name[dot:].lower()) if dot >= 0 else None
    aliases = {"MPO": "JPEG", "AVIF": "HEIF"}
    if expected and aliases.get(actual, actual) != aliases.get(expected, expected):
        return f"extension says {expected} but the content is {actual}; decoded by content"
    return None


def decode_file(
    path: str | bytes | os.PathLike[str] | os.PathLike[bytes], max_side: int | None = None
) -> Decoded:
    """Read and decode a file (see decode_bytes)."""
    return decode_bytes(read_bytes(path), _display_name(path), max_side)


def open_image(
    path: str | bytes | os.PathLike[str] | os.PathLike[bytes], max_side: int | None = None
) -> Image.Image:
    """Decode a file to RGB sRGB with orientation applied, long side at most max_side (draft decoding)."""
    return decode_file(path, max_side).image


def decode_bytes(
    data: bytes, name: str = "", max_side: int | None = None, draft_side: int | None = None
) -> Decoded:
    """Decode in-memory file bytes; `name` is only used for the extension (RAW, mismatch note).

    `draft_side` (<= max_side) lets JPEG DCT scaling stop at a smaller long side than max_side when
    that saves decoding work (e.g. a "~1024 px" preview may come out 750-1024 px); never upscales.
    """
    return decode_bytes_sizes(data, name, [(max_side, draft_side)])[0]


DecodeSize = tuple[int | None, int | None]
"""One decode asked of decode_bytes_sizes: (max_side, draft_side) as decode_bytes takes them."""


def decode_bytes_sizes(data: bytes, name: str, sizes: Sequence[DecodeSize]) -> list[Decoded]:
    """decode_bytes for each (max_side, draft_side), decoding the pixels once per distinct DCT scale.

    Each result is exactly what decode_bytes(data, name, max_side, draft_side) returns (the same
    decode, shrink, colour conversion and orientation); sizes whose JPEG draft lands on the same
    scale share one decode of the compressed data, which is most of the work on a large JPEG.
    """
    if not data:
        raise DecodeError("empty file (0 bytes)", "empty")
    register_extra_formats()
    with decoder_messages() as messages:
        try:
            results = _decode_any(data, name, sizes)
        except DecodeError as error:
            if messages:
                error.reason = error.reason + f" (decoder: {'; '.join(messages)})"
                error.args = (error.reason,)
            raise
    for decoded in results:
        decoded.notes.extend(f"decoder: {message}" for message in messages)
    return results


def _decode_any(data: bytes, name: str, sizes: Sequence[DecodeSize]) -> list[Decoded]:
    try:
        if is_raw_name(name) and sniff_format(data) not in ("JPEG", "PNG", "GIF"):
            # LibRaw opens (and may demosaic) the file once per distinct size asked, not once per size
            done: dict[DecodeSize, Decoded] = {}
            for size in dict.fromkeys(sizes):
                done[size] = _decode_raw(data, name, *size)
            return [replace(done[size], notes=list(done[size].notes)) for size in sizes]
        return _decode_pillow_sizes(data, name, sizes)
    except DecodeError:
        raise
    except Image.DecompressionBombError:
        raise DecodeError(too_large_reason(), "too_large") from None
    except MemoryError:
        raise DecodeError("not enough memory to decode this image", "too_large") from None
    except Exception as exc:  # any codec failure becomes a reason, never a crash
        raise _classify(exc, data) from None


def _classify(exc: Exception, data: bytes) -> DecodeError:
    text = str(exc)
    lowered = text.lower()
    if "truncated" in lowered or "premature end" in lowered or "unexpected end" in lowered:
        return DecodeError(f"truncated file: the image data ends early ({text})", "truncated")
    if isinstance(exc, UnidentifiedImageError):
        if sniff_format(data):
            return DecodeError(f"corrupt {sniff_format(data)} file: header not readable", "corrupt")
        return DecodeError("not an image: the content is no known image format", "not_an_image")
    return DecodeError(f"corrupt image data ({type(exc).__name__}: {text})", "corrupt")


def _decode_raw(data: bytes, name: str, max_side: int | None, draft_side: int | None) -> Decoded:
    try:
        raw = read_raw(data, max_side)
    except RawError as exc:
        try:  # some "RAW" files are plain TIFF/JPEG renamed
            return _decode_pillow(data, name, max_side, draft_side=draft_side)
        except Exception:
            raise DecodeError(str(exc), "corrupt") from None
    notes = [f"camera RAW, shown from its {raw.source}"]
    if raw.preview_jpeg is not None:
        inner = _decode_pillow(
            raw.preview_jpeg, "", max_side, raw.orientation, draft_side=draft_side
        )
        inner.format, inner.full_size, inner.raw_info = "RAW", raw.full_size, raw.info
        inner.notes = notes
        return inner
    assert raw.image is not None
    image, _ = to_srgb(_shrink(raw.image, max_side), None)
    image = apply_orientation(image, raw.orientation)
    return Decoded(image, "RAW", raw.full_size, raw.orientation, notes=notes, raw_info=raw.info)


def _draft_size(size: tuple[int, int], max_side: int) -> tuple[int, int]:
    scale = max_side / max(size)
    return max(1, int(size[0] * scale + 0.999)), max(1, int(size[1] * scale + 0.999))


def _decode_pillow(
    data: bytes,
    name: str,
    max_side: int | None,
    forced_orientation: int | None = None,
    draft_side: int | None = None,
) -> Decoded:
    return _decode_pillow_sizes(data, name, [(max_side, draft_side)], forced_orientation)[0]


def _drafted(img: Image.Image, max_side: int | None, draft_side: int | None) -> Image.Image:
    """An opened (not yet loaded) image set to the DCT scale this size asks for."""
    if max_side and max(img.size) > max_side:
        # JPEG/MPO: DCT scaling; HEIF: a stored thumbnail when big enough; other formats: no-op
        img.draft(img.mode, _draft_size(img.size, min(draft_side or max_side, max_side)))
    return img


def _decode_pillow_sizes(
    data: bytes, name: str, sizes: Sequence[DecodeSize], forced_orientation: int | None = None
) -> list[Decoded]:
    first = Image.open(io.BytesIO(data))
    fmt = first.format or "unknown"
    width, height = first.size
    check_pixels(width, height)
    frame_count = int(getattr(first, "n_frames", 1) or 1)
    animated = bool(getattr(first, "is_animated", False)) and fmt != "MPO"
    loaded: dict[tuple[object, ...], Image.Image] = {}
    levels_of: dict[tuple[object, ...], list[int]] = {}
    out: list[Decoded] = []
    for index, (max_side, draft_side) in enumerate(sizes):
        img = _drafted(first if index == 0 else Image.open(io.BytesIO(data)), max_side, draft_side)
        # same mode, size, tile and DCT scale: the same pixels, so decode them once
        tile = getattr(img, "tile", None)  # opened files have one; Image.Image declares none
        key = (img.mode, img.size, repr(tile), getattr(img, "decoderconfig", None))
        if key in loaded:
            img.close()
            img = loaded[key]
        else:
            img.load()
            loaded[key] = img
        # Read orientation only after load: some plugins (Pillow's TIFF, pillow-heif) turn the image
        # upright themselves, report the upright size at open and drop the tag, so we must not again.
        exif = img.getexif()
        orientation = forced_orientation or 1
        exif_orientation = exif.get(_ORIENTATION_TAG)
        if isinstance(exif_orientation, int) and 1 <= exif_orientation <= 8 and exif_orientation != 1:
            orientation = exif_orientation
        icc = img.info.get("icc_profile")
        levels = None  # a full-size decode is never measured by the checks
        if max_side:
            levels = levels_of[key] if key in levels_of else levels_of.setdefault(key, _source_levels(img))
        image = _shrink(img, max_side)
        image, icc_converted = to_srgb(image, icc if isinstance(icc, bytes) else None)
        image = apply_orientation(image, orientation)
        full = (height, width) if orientation in (5, 6, 7, 8) else (width, height)
        notes: list[str] = []
        if animated:
            notes.append(f"animated or multi-page ({frame_count} frames): first frame used")
        mismatch = _extension_note(name, fmt)
        if mismatch:
            notes.append(mismatch)
        out.append(Decoded(image, fmt, full, orientation, animated, frame_count, icc_converted, exif, notes,
                           levels=levels))
    return out


def _source_levels(img: Image.Image) -> list[int]:
    """Green (or grey) level counts of the decoded pixels; empty for palette, 16-bit and other modes."""
    if img.mode in ("RGB", "RGBA", "RGBX"):
        return img.histogram()[256:512]
    if img.mode in ("L", "LA"):
        return img.histogram()[:256]
    return []


def _shrink(img: Image.Image, max_side: int | None) -> Image.Image:
    """Downscale so the long side is at most max_side (integer reduce first, then bicubic)."""
    if not max_side or max(img.size) <= max_side:
        return img
    if img.mode not in ("L", "LA", "RGB", "RGBA", "CMYK"):
        img = flatten_mode(img)
    target = _fit(img.size, max_side)
    return img.resize(target, Image.Resampling.BICUBIC, reducing_gap=2.0)


def _fit(size: tuple[int, int], max_side: int) -> tuple[int, int]:
    scale = max_side / max(size)
    return max(1, round(size[0] * scale)), max(1, round(size[1] * scale))


def apply_orientation(img: Image.Image, orientation: int) -> Image.Image:
    """Rotate/flip an image as its EXIF orientation (1-8) says."""
    method = _TRANSPOSE.get(orientation)
    return img.transpose(method) if method is not None else img


def decode_full_resolution(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> Decoded:
    """Decode a file at its full size for a 100 % view: RAW demosaiced in full (not its preview)."""
    data = read_bytes(path)
    name = _display_name(path)
    if not (is_raw_name(name) and sniff_format(data) not in ("JPEG", "PNG", "GIF")):
        return decode_bytes(data, name)
    import numpy as np
    import rawpy  # lazily: LibRaw is only needed for RAW files

    try:
        with rawpy.imread(io.BytesIO(data)) as raw:
            check_pixels(raw.sizes.width, raw.sizes.height)  # the one pixel limit, before demosaicing
            rgb = raw.postprocess(use_camera_wb=True, output_bps=8, no_auto_bright=False)
    except rawpy.LibRawError:
        return decode_bytes(data, name)  # not readable in full: whatever the usual decode gives
    except MemoryError:
        raise DecodeError("not enough memory to decode this image", "too_large") from None
    # postprocess already applies the camera's rotation
    image = Image.fromarray(np.ascontiguousarray(rgb))
    return Decoded(image, "RAW", image.size, notes=["camera RAW, full-size demosaic"])
