"""Camera RAW files through rawpy (LibRaw): embedded preview first, half-size demosaic otherwise."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from PIL import Image

MAX_ISO = 10_000_000
"""No camera records a higher ISO speed: a larger value is a damaged field, not a setting."""

RAW_EXTENSIONS = frozenset(
    {
        ".3fr", ".ari", ".arw", ".bay", ".cr2", ".cr3", ".crw", ".dcr", ".dng", ".erf", ".fff",
        ".iiq", ".k25", ".kdc", ".mef", ".mos", ".mrw", ".nef", ".nrw", ".orf", ".pef", ".raf",
        ".raw", ".rw2", ".rwl", ".sr2", ".srf", ".srw", ".x3f",
    }
)  # fmt: skip

PREVIEW_MIN_SIDE = 1024
"""An embedded preview smaller than this (or than the size asked for) is not enough for display."""

FLIP_TO_EXIF_ORIENTATION = {0: 1, 3: 3, 5: 8, 6: 6}


class RawError(Exception):
    """LibRaw could not read the file (unsupported, corrupt or truncated)."""


@dataclass
class RawImage:
    """What a RAW file gave: encoded preview bytes (JPEG) or a decoded image, plus its metadata."""

    preview_jpeg: bytes | None
    image: Image.Image | None
    orientation: int
    source: str
    full_size: tuple[int, int]
    info: dict[str, Any] = field(default_factory=dict)


def is_raw_name(name: str) -> bool:
    """True when the file name ends with a camera RAW extension."""
    dot = name.rfind(".")
    return dot >= 0 and name[dot:].lower() in RAW_EXTENSIONS


def libraw_metadata(raw: Any) -> dict[str, Any]:
    """Exposure, lens and shot order that LibRaw exposes (values of 0 mean unknown)."""
    info: dict[str, Any] = {}
    try:
        other = raw.other
        lens = raw.lens
    except Exception:  # older rawpy without these properties
        return info
    if 1 <= other.iso_speed <= MAX_ISO:
        info["iso"] = round(other.iso_speed)
    if other.shutter_speed > 0:
        info["exposure_time"] = float(other.shutter_speed)
    if other.aperture > 0:
        info["f_number"] = float(other.aperture)
    if other.focal_length > 0:
        info["focal_length"] = float(other.focal_length)
    stamp = other.timestamp  # a datetime in rawpy >= 0.25, seconds since 1970 before
    if isinstance(stamp, datetime):
        stamp = (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).timestamp()
    if isinstance(stamp, int | float) and stamp > 0:
        info["timestamp"] = float(stamp)
    if other.shot_order > 0:
        info["sequence_number"] = int(other.shot_order)
    model = _text(lens.model)
    if model:
        info["lens"] = model
    return info


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value or "").strip("\x00 ").strip()


def read_raw(data: bytes, max_side: int | None) -> RawImage:
    """Open RAW bytes: the embedded JPEG preview when it is big enough, else a half-size demosaic."""
    import rawpy  # lazily: LibRaw is only needed for RAW files

    needed = min(max_side, PREVIEW_MIN_SIDE) if max_side else PREVIEW_MIN_SIDE
    try:
        with rawpy.imread(io.BytesIO(data)) as raw:
            sizes = raw.sizes
            orientation = FLIP_TO_EXIF_ORIENTATION.get(int(sizes.flip), 1)
            full = (int(sizes.width), int(sizes.height))
            if orientation in (6, 8):
                full = (full[1], full[0])
            info = libraw_metadata(raw)
            preview = _embedded_preview(raw, rawpy, needed)
            if isinstance(preview, bytes):
                return RawImage(preview, None, orientation, "embedded preview", full, info)
            if isinstance(preview, Image.Image):
                return RawImage(None, preview, orientation, "embedded preview", full, info)
            rgb = raw.postprocess(half_size=True, use_camera_wb=True, output_bps=8, no_auto_bright=False)
            # postprocess already applies the camera's rotation
            return RawImage(None, Image.fromarray(np.ascontiguousarray(rgb)), 1, "half-size demosaic", full, info)
    except rawpy.LibRawError as exc:
        raise RawError(f"camera RAW could not be read ({type(exc).__name__}: {exc})") from exc


def _embedded_preview(raw: Any, rawpy: Any, needed: int) -> bytes | Image.Image | None:
    """The embedded preview when it exists and its long side is at least `needed` pixels."""
    try:
        thumb = raw.extract_thumb()
    except rawpy.LibRawError:
        return None
    if thumb.format == rawpy.ThumbFormat.JPEG:
        data = bytes(thumb.data)
        try:
            with Image.open(io.BytesIO(data)) as probe:
                long_side = max(probe.size)
        except Exception:
            return None
        return data if long_side >= needed else None
    if thumb.format == rawpy.ThumbFormat.BITMAP:
        arr = np.asarray(thumb.data)
        if max(arr.shape[:2]) >= needed:
            return Image.fromarray(np.ascontiguousarray(arr[..., :3].astype(np.uint8)))
    return None
