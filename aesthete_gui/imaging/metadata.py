"""Capture metadata (EXIF / LibRaw) read from headers without decoding pixels."""

from __future__ import annotations

import io
import math
import os
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from PIL import Image

from aesthete_gui.imaging.decode import (
    Decoded,
    DecodeError,
    check_pixels,
    read_bytes,
    register_extra_formats,
    too_large_reason,
)
from aesthete_gui.imaging.raw import MAX_ISO, is_raw_name

EXIF_IFD = 0x8769
_ORIENTATION = 0x0112
_MAKE, _MODEL, _DATETIME = 0x010F, 0x0110, 0x0132
_EXPOSURE_TIME, _F_NUMBER, _ISO = 0x829A, 0x829D, 0x8827
_FOCAL_LENGTH, _LENS_MAKE, _LENS_MODEL = 0x920A, 0xA433, 0xA434
_IMAGE_NUMBER = 0x9211
_RATING, _RATING_PERCENT = 0x4746, 0x4749  # IFD0, written by Windows and by Sony and Canon bodies
_EXPOSURE_BIAS, _EXPOSURE_MODE = 0x9204, 0xA402  # exposure brackets (imaging/sequences.py)
# (date tag, sub-second tag, offset tag), best first.
_TIME_TAGS = ((0x9003, 0x9291, 0x9011), (0x9004, 0x9292, 0x9012), (_DATETIME, 0x9290, 0x9010))
_UPRIGHT_AT_OPEN = frozenset({"TIFF"})
"""Formats whose Pillow plugin already reports the upright size before decoding."""
_OFFSET_RE = re.compile(r"^([+-])(\d{2}):?(\d{2})$")


@dataclass
class ImageMetadata:
    """What the camera recorded. Width/height are after orientation; unknown values are None."""

    width: int
    height: int
    format: str
    orientation: int = 1
    capture_time: datetime | None = None
    camera_make: str | None = None
    camera_model: str | None = None
    lens: str | None = None
    exposure_time: float | None = None
    f_number: float | None = None
    iso: int | None = None
    focal_length: float | None = None
    sequence_number: int | None = None
    rating: int | None = None  # in-camera stars 0..5 from EXIF Rating (or RatingPercent); None if absent or unreadable
    exposure_bias: float | None = None
    exposure_mode: int | None = None

    @property
    def camera(self) -> str | None:
        """Make and model in one string, without the make repeated."""
        make, model = self.camera_make or "", self.camera_model or ""
        if model.lower().startswith(make.lower()):
            make = ""
        joined = f"{make} {model}".strip()
        return joined or None

    @property
    def capture_timestamp(self) -> float | None:
        """Capture time as seconds (UTC when an offset was recorded, else the local clock as if UTC)."""
        if self.capture_time is None:
            return None
        moment = self.capture_time
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (capture_time as ISO 8601 with microseconds)."""
        data = asdict(self)
        data["capture_time"] = self.capture_time.isoformat() if self.capture_time else None
        data["camera"] = self.camera
        return data


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    cleaned = value.replace("\x00", "").strip()
    return cleaned or None


def _number(value: Any) -> float | None:
    if isinstance(value, tuple | list):
        if len(value) == 2 and all(isinstance(v, int) for v in value):
            value = value[0] / value[1] if value[1] else None
        else:
            value = value[0] if value else None
    try:
        number = float(value)  # IFDRational, int, float
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number) and number > 0 else None


def _iso(value: Any) -> int | None:
    """The ISO speed (PhotographicSensitivity, a list of whole numbers): its first value, since a
    tag of several is a list of speeds, never a fraction (an attack's (25600, 100) read as ISO 256);
    None when absent or not a number from 1 to MAX_ISO."""
    if isinstance(value, tuple | list):
        value = value[0] if value else None
    if isinstance(value, bool | str | bytes):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return round(number) if math.isfinite(number) and 1 <= number <= MAX_ISO else None


def exif_rating(rating: Any, percent: Any = None) -> int | None:
    """Stars 0..5 from EXIF `Rating` (0x4746), else from `RatingPercent` (0x4749, 1/25/50/75/99 for
    1..5 stars); None when neither holds a value in range (never clamped)."""
    if isinstance(rating, int) and not isinstance(rating, bool):
        return rating if 0 <= rating <= 5 else None
    if isinstance(percent, int) and not isinstance(percent, bool) and 0 <= percent <= 100:
        return next(stars for stars, floor in ((5, 99), (4, 75), (3, 50), (2, 25), (1, 1), (0, 0)) if percent >= floor)
    return None


def _signed(value: Any) -> float | None:
    """A finite number of either sign (an exposure bias), None when absent or unreadable."""
    try:
        number = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number) else None


def parse_exif_datetime(stamp: Any, subsec: Any = None, offset: Any = None) -> datetime | None:
    """EXIF 'YYYY:MM:DD HH:MM:SS' + sub-second digits + '+HH:MM' offset to a datetime."""
    text = _text(stamp)
    if not text:
        return None
    try:
        moment = datetime.strptime(text[:19], "%Y:%m:%d %H:%M:%S")
    except ValueError:
        return None
    digits = "".join(ch for ch in (_text(subsec) or "") if ch.isdigit())
    if digits:
        moment = moment.replace(microsecond=int((digits + "000000")[:6]))
    match = _OFFSET_RE.match(_text(offset) or "")
    if match:
        sign = -1 if match.group(1) == "-" else 1
        delta = timedelta(hours=int(match.group(2)), minutes=int(match.group(3)))
        moment = moment.replace(tzinfo=timezone(sign * delta))
    return moment


def _capture_time(ifd0: Image.Exif | dict[int, Any], exif_ifd: dict[int, Any]) -> datetime | None:
    for date_tag, subsec_tag, offset_tag in _TIME_TAGS:
        source = ifd0 if date_tag == _DATETIME else exif_ifd
        moment = parse_exif_datetime(
            source.get(date_tag), exif_ifd.get(subsec_tag), exif_ifd.get(offset_tag)
        )
        if moment is not None:
            return moment
    return None


def metadata_from_exif(
    exif: Image.Exif | None, size: tuple[int, int], fmt: str, orientation: int | None = None
) -> ImageMetadata:
    """Build ImageMetadata from a Pillow Exif object; size must already be after orientation."""
    exif = exif if exif is not None else Image.Exif()
    try:
        exif_ifd: dict[int, Any] = dict(exif.get_ifd(EXIF_IFD))
    except Exception:  # malformed sub-IFD: keep what IFD0 has
        exif_ifd = {}
    raw_orientation = exif.get(_ORIENTATION)
    if orientation is None:
        orientation = raw_orientation if isinstance(raw_orientation, int) and 1 <= raw_orientation <= 8 else 1
    iso = _iso(exif_ifd.get(_ISO))
    sequence = exif_ifd.get(_IMAGE_NUMBER, exif.get(_IMAGE_NUMBER))
    return ImageMetadata(
        width=size[0],
        height=size[1],
        format=fmt,
        orientation=orientation,
        capture_time=_capture_time(exif, exif_ifd),
        camera_make=_text(exif.get(_MAKE)),
        camera_model=_text(exif.get(_MODEL)),
        lens=_text(exif_ifd.get(_LENS_MODEL)) or _text(exif_ifd.get(_LENS_MAKE)),
        exposure_time=_number(exif_ifd.get(_EXPOSURE_TIME)),
        f_number=_number(exif_ifd.get(_F_NUMBER)),
        iso=iso,
        focal_length=_number(exif_ifd.get(_FOCAL_LENGTH)),
        sequence_number=int(sequence) if isinstance(sequence, int) and sequence >= 0 else None,
        rating=exif_rating(exif.get(_RATING), exif.get(_RATING_PERCENT)),
        exposure_bias=_signed(exif_ifd.get(_EXPOSURE_BIAS)),
        exposure_mode=mode if isinstance(mode := exif_ifd.get(_EXPOSURE_MODE), int) else None,
    )


def metadata_from_decoded(decoded: Decoded) -> ImageMetadata:
    """Metadata of an image already decoded (no second read of the file)."""
    meta = metadata_from_exif(decoded.exif, decoded.full_size, decoded.format, decoded.orientation)
    if decoded.raw_info:
        _merge_raw_info(meta, decoded.raw_info)
    return meta


def _merge_raw_info(meta: ImageMetadata, info: dict[str, Any]) -> None:
    """Fill gaps from LibRaw's fields (its timestamp has no sub-seconds, so EXIF wins when present)."""
    for key in ("iso", "exposure_time", "f_number", "focal_length", "lens", "sequence_number"):
        if getattr(meta, key) is None and info.get(key) is not None:
            setattr(meta, key, info[key])
    if meta.capture_time is None and info.get("timestamp"):
        meta.capture_time = datetime.fromtimestamp(float(info["timestamp"]), tz=UTC)


def _raw_metadata(data: bytes, name: str) -> ImageMetadata:
    """RAW: TIFF-structured EXIF where the container is TIFF-based, plus LibRaw's own fields."""
    import rawpy

    from aesthete_gui.imaging.raw import FLIP_TO_EXIF_ORIENTATION, libraw_metadata

    try:
        with rawpy.imread(io.BytesIO(data)) as raw:
            sizes, info = raw.sizes, libraw_metadata(raw)
    except rawpy.LibRawError as exc:
        raise DecodeError(f"camera RAW could not be read ({type(exc).__name__})", "corrupt") from None
    orientation = FLIP_TO_EXIF_ORIENTATION.get(int(sizes.flip), 1)
    size = (int(sizes.width), int(sizes.height))
    if orientation in (6, 8):
        size = (size[1], size[0])
    exif = Image.Exif()
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        try:
            exif.load(data)
        except Exception:
            exif = Image.Exif()
    meta = metadata_from_exif(exif, size, "RAW", orientation)
    _merge_raw_info(meta, info)
    return meta


def read_metadata(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> ImageMetadata:
    """Read capture metadata from the file's header (no pixel decoding); DecodeError when unreadable."""
    name = os.fsdecode(path)
    if is_raw_name(name):
        return metadata_from_bytes(read_bytes(path), name)
    try:
        return _header_metadata(path)
    except DecodeError as exc:
        if exc.kind == "not_an_image":
            read_bytes(path)  # raises the precise reason (missing, permission, empty) when there is one
        raise


def metadata_from_bytes(data: bytes, name: str = "") -> ImageMetadata:
    """Capture metadata from in-memory file bytes (headers only)."""
    if not data:
        raise DecodeError("empty file (0 bytes)", "empty")
    if is_raw_name(name) and data[:3] != b"\xff\xd8\xff":
        try:
            return _raw_metadata(data, name)
        except DecodeError as raw_error:
            try:  # a plain TIFF/PNG renamed .dng/.nef: decoding reads it too, so must this
                return _header_metadata(io.BytesIO(data))
            except DecodeError:
                raise raw_error from None
    return _header_metadata(io.BytesIO(data))


def _header_metadata(source: str | bytes | os.PathLike[str] | os.PathLike[bytes] | io.BytesIO) -> ImageMetadata:
    register_extra_formats()
    try:
        with Image.open(source) as img:
            width, height = img.size
            check_pixels(width, height)  # before getexif, which may decode the whole image
            exif = img.getexif()
            fmt = img.format or "unknown"
    except DecodeError:
        raise
    except Image.DecompressionBombError:
        raise DecodeError(too_large_reason(), "too_large") from None
    except OSError:
        raise DecodeError("not an image: the content is no known image format", "not_an_image") from None
    except Exception as exc:
        raise DecodeError(f"unreadable image header ({type(exc).__name__}: {exc})", "corrupt") from None
    meta = metadata_from_exif(exif, (width, height), fmt)
    if meta.orientation in (5, 6, 7, 8) and fmt not in _UPRIGHT_AT_OPEN:
        meta.width, meta.height = height, width
    return meta
