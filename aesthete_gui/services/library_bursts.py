"""Burst grouping of the profile's images: stored records turned into imaging.bursts frames, with
crops of one frame recognised on the stored thumbnails."""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from datetime import UTC, datetime
from functools import lru_cache, partial

from PIL import Image

from aesthete_gui.imaging.bursts import Frame, group_bursts
from aesthete_gui.imaging.crop_groups import ThumbnailMatcher
from aesthete_gui.imaging.crop_match import Thumb, load_thumb
from aesthete_gui.store import ImageRecord


def capture_seconds(capture_time: str | None) -> float | None:
    """Seconds for an ISO capture time (sub-seconds kept; a time without offset is read as UTC)."""
    if not capture_time:
        return None
    try:
        moment = datetime.fromisoformat(capture_time)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def frame_for(image: ImageRecord) -> Frame:
    """The burst-grouping view of one stored image."""
    sequence = image.exif.get("sequence_number")
    return Frame(
        key=image.id,
        capture_time=capture_seconds(image.capture_time),
        sequence_number=sequence if isinstance(sequence, int) else None,
        phash=image.phash,
        camera=image.camera,
    )


@lru_cache(maxsize=4096)
def _thumb_view(path: str, mtime_ns: int) -> Thumb | None:
    """The matching view of a cached thumbnail (~20 KB; the recent ones are kept across regroupings)."""
    try:
        with Image.open(path) as image:
            return load_thumb(image)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


def thumb_view(thumb_path: str | None) -> Thumb | None:
    """The crop-matching view of an image's stored thumbnail; None when it has none (or it is unreadable)."""
    if not thumb_path:
        return None
    try:
        mtime_ns = os.stat(thumb_path).st_mtime_ns
    except OSError:
        return None
    return _thumb_view(thumb_path, mtime_ns)


def _thumb_for(thumbs: dict[int, str | None], key: Hashable) -> Thumb | None:
    return thumb_view(thumbs.get(key))  # type: ignore[call-overload]


_VERDICTS: dict[tuple[Hashable, Hashable], bool | None] = {}
"""Crop verdicts by pair of thumbnail paths (thumbnails are named by content): a regrouping after
the next import compares only new pairs."""
_MAX_VERDICTS = 500_000


def automatic_burst_groups(images: Sequence[ImageRecord], matcher: ThumbnailMatcher | None = None) -> list[list[int]]:
    """Image ids grouped into bursts by capture time, sequence number and perceptual hash, with
    crops and resized copies of one frame joining that frame's group (checked on the thumbnails)."""
    if matcher is None:
        if len(_VERDICTS) > _MAX_VERDICTS:
            _VERDICTS.clear()
        thumbs = {image.id: image.thumb_path for image in images}
        matcher = ThumbnailMatcher(partial(_thumb_for, thumbs), verdicts=_VERDICTS, identity=thumbs.get)
    frames = [frame_for(i) for i in images]
    return [[int(k) for k in group] for group in group_bursts(frames, matcher=matcher)]  # type: ignore[call-overload]
