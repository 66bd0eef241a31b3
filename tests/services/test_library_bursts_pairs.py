"""The two halves of a RAW+JPEG pair are one exposure: never a burst of their own, one frame of a real one."""

from __future__ import annotations

from pathlib import Path

from aesthete_gui.imaging.ingest import ingest_file
from aesthete_gui.services.library_bursts import library_burst_groups
from aesthete_gui.store import ImageUpdate, open_profile
from tests.imaging.conftest import photo


def test_a_raw_jpeg_pair_is_no_burst_and_joins_a_real_burst_as_one_frame(tmp_path: Path) -> None:
    shoot, cache = tmp_path / "shoot", tmp_path / "cache"
    shoot.mkdir()
    sunset, street = photo((800, 600)), photo((800, 600), "coffee")
    frames = {  # name: (picture, capture second)
        "IMG_0157.JPG": (sunset, 10), "IMG_0157.DNG": (sunset, 10),  # one exposure, nothing else like it
        "IMG_0200.JPG": (street, 40), "IMG_0201.JPG": (street.rotate(1), 40.5), "IMG_0201.DNG": (street.rotate(1), 40.5),
        "IMG_0202.JPG": (street.rotate(2), 41),
    }  # fmt: skip
    updates = []
    for name, (picture, second) in frames.items():
        picture.save(shoot / name, format="JPEG", quality=90)  # the "DNG" holds the same pixels: as a preview would
        result = ingest_file(shoot / name, cache, with_preview=False, with_checks=False)
        updates.append(ImageUpdate(path=str(shoot / name), folder_id=None, status="ok", phash=result.phash,
                                   thumb_path=str(result.thumbs.thumb_path), capture_time=f"2026-06-14T09:00:{second:04.1f}",
                                   content_hash=f"h{len(updates)}", exif={"sequence_number": int(name[4:8])}))  # fmt: skip
    profile = open_profile(tmp_path / "p.db")
    try:
        ids = dict(zip(frames, profile.catalog.write_images(updates), strict=True))
        groups, _ = library_burst_groups(profile, cache)
        assert groups == [[ids["IMG_0200.JPG"], ids["IMG_0201.JPG"], ids["IMG_0201.DNG"], ids["IMG_0202.JPG"]]]
    finally:
        profile.close()
