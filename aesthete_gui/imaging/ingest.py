"""Everything import needs from one file: one read of its bytes, one (draft) decode per DCT scale it needs."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from aesthete_gui.imaging.checks import (
    CHECK_DRAFT_SIDE,
    CHECK_SIDE,
    Analysis,
    analyse_bytes,
    check_sizes,
)
from aesthete_gui.imaging.crop_match import load_thumb
from aesthete_gui.imaging.decode import DecodeError, decode_bytes_sizes, read_bytes
from aesthete_gui.imaging.hashing import content_hash_bytes, perceptual_hash
from aesthete_gui.imaging.metadata import ImageMetadata, metadata_from_bytes, metadata_from_decoded
from aesthete_gui.imaging.thumbnails import (
    PREVIEW_DRAFT_SIDE,
    PREVIEW_SIDE,
    THUMB_SIDE,
    Thumbs,
    build_thumbnails,
    thumb_paths,
)

DISK_FULL = "disk_full"
"""`IngestResult.error_kind` when the thumbnail cache's disk is full: no fault of the photograph."""
_JPEG_END = b"\xff\xd9"


@dataclass
class IngestResult:
    """Outcome for one file; picklable, so a process pool can return it. `error` is None when ok."""

    path: str
    content_hash: str | None = None
    size_bytes: int | None = None
    mtime: float | None = None
    metadata: ImageMetadata | None = None
    thumbs: Thumbs | None = None
    phash: int | None = None
    error: str | None = None
    error_kind: str | None = None
    notes: list[str] = field(default_factory=list)
    features: dict[str, float] | None = None
    decoded: bool = False
    analysis: Analysis | None = None
    signature: bytes | None = None
    """The colour signature of the 256 px thumbnail, float32 bytes (burst grouping finds candidates by it)."""

    @property
    def ok(self) -> bool:
        """True when the image was read and its thumbnails exist."""
        return self.error is None


def _signature(thumb: Image.Image) -> bytes:
    return np.asarray(load_thumb(thumb).histogram, dtype=np.float32).tobytes()


def ingest_file(
    path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
    cache_dir: str | os.PathLike[str],
    *,
    with_preview: bool = True,
    with_features: bool = False,
    with_checks: bool = True,
) -> IngestResult:
    """Hash, read metadata, build thumbnails (+ optional features) for one file; never raises.

    with_preview=False writes only the 256 px thumbnail from a 1/8-scale JPEG decode (fastest
    import); `thumbnails.ensure_thumbnails` then makes the ~1024 px preview when it is first shown.
    with_checks finds faces and measures the technical checks (imaging/checks.py) on their canonical
    decode: the thumbnail's own when the import makes no preview; with a preview, the compressed data
    is still read once when both land on the same DCT scale (decode.decode_bytes_sizes).
    """
    result = IngestResult(path=os.fsdecode(path))
    try:
        _ingest(path, cache_dir, with_preview, with_features, with_checks, result)
    except DecodeError as exc:
        result.error, result.error_kind = exc.reason, exc.kind
    except Exception as exc:  # an unexpected failure must not stop an import of thousands of files
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            where = exc.filename or os.fspath(cache_dir)
            result.error = f"the disk holding the thumbnail cache is full ({where})"
            result.error_kind = DISK_FULL
        else:
            result.error = f"unexpected error ({type(exc).__name__}: {exc})"
            result.error_kind = "internal"
    return result


def _ingest(
    path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
    cache_dir: str | os.PathLike[str],
    with_preview: bool,
    with_features: bool,
    with_checks: bool,
    result: IngestResult,
) -> None:
    data = read_bytes(path)
    result.size_bytes = len(data)
    try:
        result.mtime = os.stat(path).st_mtime
    except OSError:
        result.mtime = None  # vanished right after reading: the bytes we have are still valid
    result.content_hash = content_hash_bytes(data)
    name = os.fsdecode(path)
    cached = thumb_paths(result.content_hash, cache_dir)
    # a cache file cut short by an older version on a full disk is never trusted (save_jpeg_atomic now
    # renames only whole files)
    have_cached = all(whole_jpeg(p) for p in _cache_files(cached, with_preview))
    if have_cached and not with_features:
        # Same bytes seen before (moved, renamed, duplicated): headers + cached thumbnail suffice.
        result.metadata = metadata_from_bytes(data, name)
        with Image.open(cached.thumb_path) as thumb:
            result.phash = perceptual_hash(thumb)
            result.signature = _signature(thumb)
        result.thumbs = cached
        if with_checks:
            result.analysis = analyse_bytes(data, name)
        return
    if with_preview or with_features:
        size = (PREVIEW_SIDE, PREVIEW_DRAFT_SIDE)
    elif with_checks:  # the checks' canonical decode: the same DCT scale as the thumbnail's
        size = (CHECK_SIDE, CHECK_DRAFT_SIDE)
    else:
        size = (THUMB_SIDE, THUMB_SIDE)
    checking = check_sizes(name) if with_checks else ()
    # one read of the compressed data per DCT scale: the preview's is also the checks' on 24 MP files
    decodes = decode_bytes_sizes(data, name, [size, *checking])
    decoded = decodes[0]
    check_decoded = decodes[1] if checking else decoded
    detail_decoded = decodes[2] if len(checking) > 1 else None
    result.decoded = True
    result.notes = list(decoded.notes)
    if decoded.format == "RAW":  # EXIF lives in the RAW container, not in its embedded preview
        result.metadata = metadata_from_bytes(data, name)
    else:
        result.metadata = metadata_from_decoded(decoded)
    result.thumbs, small = build_thumbnails(
        decoded.image, result.content_hash, cache_dir, preview=with_preview
    )
    result.phash = perceptual_hash(small)
    result.signature = _signature(small)
    if with_checks:
        result.analysis = analyse_bytes(data, name, check_decoded, detail=detail_decoded)
    if with_features:
        from aesthete_gui.imaging.features import decoded_features

        result.features = decoded_features(decoded)


def whole_jpeg(path: str | os.PathLike[str]) -> bool:
    """Whether a JPEG file is there and ends with its end-of-image marker (a short write does not)."""
    try:
        with open(path, "rb") as stream:
            stream.seek(-len(_JPEG_END), os.SEEK_END)
            return stream.read() == _JPEG_END
    except OSError:
        return False


def _cache_files(thumbs: Thumbs, with_preview: bool) -> list[Path]:
    return [thumbs.thumb_path, thumbs.preview_path] if with_preview else [thumbs.thumb_path]
