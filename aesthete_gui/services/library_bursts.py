"""Burst grouping of the profile's images: stored records turned into imaging.bursts frames."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from aesthete_gui.imaging.bursts import Frame, group_bursts
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


def automatic_burst_groups(images: Sequence[ImageRecord]) -> list[list[int]]:
    """Image ids grouped into bursts by capture time, sequence number and perceptual hash."""
    return [[int(k) for k in group] for group in group_bursts([frame_for(i) for i in images])]  # type: ignore[call-overload]
