"""Crops of one frame, saved again at other sizes and qualities, join that frame's group; other
frames of the same scene (the motorcycle stereo pair) and other photographs stay apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging.bursts import Frame, group_bursts
from aesthete_gui.imaging.crop_groups import ThumbnailMatcher
from aesthete_gui.imaging.crop_match import load_thumb, match_crop, same_frame
from aesthete_gui.imaging.hashing import hamming
from aesthete_gui.imaging.ingest import ingest_file
from aesthete_gui.services.library_bursts import automatic_burst_groups, thumb_view
from aesthete_gui.store import ImageRecord
from tests.imaging.conftest import exif_with, photo


def _imported(path: Path, cache: Path, image_id: int, capture_time: str | None = None) -> ImageRecord:
    result = ingest_file(path, cache, with_preview=False, with_checks=False)
    assert result.thumbs is not None
    return ImageRecord(id=image_id, path=str(path), phash=result.phash, thumb_path=str(result.thumbs.thumb_path),
                       capture_time=capture_time)  # fmt: skip


def _crop(img: Image.Image, box: tuple[float, float, float, float], side: int) -> Image.Image:
    """The part of `img` in fractional `box` (left, top, right, bottom), resized to `side` px wide."""
    w, h = img.size
    part = img.crop((round(box[0] * w), round(box[1] * h), round(box[2] * w), round(box[3] * h)))
    return part.resize((side, round(side * part.height / part.width)), Image.Resampling.LANCZOS)


@pytest.fixture
def stereo() -> tuple[Image.Image, Image.Image]:
    left, right, _ = skdata.stereo_motorcycle()
    return Image.fromarray(left).convert("RGB"), Image.fromarray(right).convert("RGB")


def test_a_crop_at_another_size_and_quality_matches_its_frame_and_nothing_else(tmp_path: Path) -> None:
    original = photo((1200, 900))
    cut = _crop(original, (0.05, 0.2, 0.75, 0.95), 500)  # about half the area cut away, off-centre
    cut.save(tmp_path / "crop.jpg", quality=60)
    views = {name: load_thumb(img) for name, img in
             (("original", original), ("crop", Image.open(tmp_path / "crop.jpg")), ("coffee", photo((1200, 900), "coffee")))}  # fmt: skip
    found = match_crop(views["crop"], views["original"])
    assert found is not None and found.same_frame
    assert found.width_fraction == pytest.approx(0.70, abs=0.02)
    assert same_frame(views["original"], views["crop"])  # either way round
    assert not same_frame(views["crop"], views["coffee"])
    assert not same_frame(views["original"], views["coffee"])


def test_the_other_half_of_a_stereo_pair_is_not_a_crop(stereo) -> None:
    left, right = (load_thumb(img) for img in stereo)
    found = match_crop(left, right)
    assert found is None or not found.same_frame
    assert not same_frame(left, right)
    assert same_frame(left, load_thumb(_crop(stereo[0], (0.1, 0.1, 0.9, 0.9), 300)))


def test_a_flat_picture_is_never_evidence() -> None:
    grey = load_thumb(Image.new("RGB", (300, 200), (120, 120, 120)))
    assert match_crop(grey, load_thumb(photo())) is None


def test_crops_without_capture_times_join_their_frame_through_the_library(tmp_path: Path) -> None:
    original = photo((1200, 900))
    files = {
        "original.jpg": original,
        "half.jpg": _crop(original, (0.0, 0.0, 0.5, 1.0), 400),  # one side cut away: 50 % of the area
        "tight.jpg": _crop(original, (0.15, 0.1, 0.9, 0.85), 800),
        "smaller.jpg": original.resize((400, 300)),
        "coffee.jpg": photo((1200, 900), "coffee"),
        "chelsea_crop.jpg": _crop(photo((1200, 900), "chelsea"), (0.1, 0.1, 0.9, 0.9), 600),
    }
    records = []
    for n, (name, img) in enumerate(files.items(), start=1):
        img.save(tmp_path / name, quality=85)
        records.append(_imported(tmp_path / name, tmp_path / "cache", n))
    assert automatic_burst_groups(records) == [[1, 2, 3, 4]]


def test_a_crop_keeping_its_capture_time_joins_but_another_moment_does_not(tmp_path: Path) -> None:
    original = photo((1200, 900))
    shots = [("frame.jpg", original, "2024:07:07 15:00:10"), ("frame_crop.jpg", _crop(original, (0.3, 0.3, 1.0, 1.0), 700), "2024:07:07 15:00:10"),
             ("later_crop.jpg", _crop(original, (0.0, 0.0, 0.7, 0.7), 700), "2024:07:07 15:04:00")]  # fmt: skip
    records = []
    for n, (name, img, when) in enumerate(shots, start=1):
        img.save(tmp_path / name, quality=90, exif=exif_with(when=when, model="A7 IV"))
        result = ingest_file(tmp_path / name, tmp_path / "cache", with_preview=False, with_checks=False)
        assert result.metadata is not None and result.thumbs is not None
        records.append(ImageRecord(id=n, path=str(tmp_path / name), phash=result.phash, thumb_path=str(result.thumbs.thumb_path),
                                   capture_time=result.metadata.capture_time.isoformat(), exif={"camera": result.metadata.camera}))  # fmt: skip
    assert records[0].capture_time and records[0].camera
    assert hamming(records[0].phash, records[1].phash) > 8  # type: ignore[arg-type]  # the pHash alone would not group them
    assert automatic_burst_groups(records) == [[1, 2]]


def test_a_stereo_pair_sharing_a_phash_is_kept_apart_when_the_pixels_disagree(tmp_path: Path, stereo) -> None:
    records = []
    for n, img in enumerate(stereo, start=1):  # saved at 30 %, the two halves' pHashes are 4 bits apart
        img.resize((img.width * 3 // 10, img.height * 3 // 10), Image.Resampling.LANCZOS).save(tmp_path / f"{n}.jpg", quality=85)
        records.append(_imported(tmp_path / f"{n}.jpg", tmp_path / "cache", n))
    frames = [Frame(r.id, phash=r.phash) for r in records]
    assert group_bursts(frames) == [[1, 2]]  # pHashes alone: one picture
    assert automatic_burst_groups(records) == []


def test_verdicts_are_remembered_and_frames_without_thumbnails_are_left_alone(tmp_path: Path) -> None:
    original = photo((800, 600))
    paths = {1: original, 2: _crop(original, (0.2, 0.0, 1.0, 0.8), 500), 3: photo((800, 600), "coffee")}
    records = []
    for key, img in paths.items():
        img.save(tmp_path / f"{key}.jpg", quality=85)
        records.append(_imported(tmp_path / f"{key}.jpg", tmp_path / "cache", key))
    records.append(ImageRecord(id=4, path=str(tmp_path / "gone.jpg"), thumb_path=str(tmp_path / "missing_thumb.jpg")))
    thumbs = {r.id: r.thumb_path for r in records}
    matcher = ThumbnailMatcher(lambda key: thumb_view(thumbs[key]))
    assert automatic_burst_groups(records, matcher) == [[1, 2]]
    first = matcher.comparisons
    assert first >= 1
    assert automatic_burst_groups(records, matcher) == [[1, 2]]
    assert matcher.comparisons == first


def test_many_frames_without_capture_times_compare_only_a_few_candidates_each(tmp_path: Path) -> None:
    records = []
    for which in ("astronaut", "coffee", "chelsea"):  # 27 pictures: alike in colour, none inside another
        base = photo((900, 600), which)
        for row in range(3):
            for col in range(3):
                tile = base.crop((col * 300, row * 200, col * 300 + 300, row * 200 + 200))
                path = tmp_path / f"{which}_{row}{col}.jpg"
                tile.save(path, quality=85)
                records.append(_imported(path, tmp_path / "cache", len(records) + 1))
    thumbs = {r.id: r.thumb_path for r in records}
    matcher = ThumbnailMatcher(lambda key: thumb_view(thumbs[key]), per_untimed_frame=3)
    assert automatic_burst_groups(records, matcher) == []
    assert 0 < matcher.comparisons <= 27 * 3


def test_a_regrouping_after_the_next_import_compares_only_new_pairs(tmp_path: Path) -> None:
    original = photo((800, 600), "chelsea")
    shots = {1: original, 2: _crop(original, (0.0, 0.1, 0.8, 0.9), 500)}
    records = []
    for key, img in shots.items():
        img.save(tmp_path / f"{key}.jpg", quality=85)
        records.append(_imported(tmp_path / f"{key}.jpg", tmp_path / "cache", key))
    from aesthete_gui.services import library_bursts

    library_bursts._VERDICTS.clear()
    assert automatic_burst_groups(records) == [[1, 2]]
    remembered = dict(library_bursts._VERDICTS)
    assert list(remembered.values()) == [True]
    assert next(iter(remembered)) == tuple(sorted(r.thumb_path for r in records))  # type: ignore[type-var]
    assert automatic_burst_groups(records) == [[1, 2]] and remembered == library_bursts._VERDICTS


def test_a_subject_that_moved_in_front_of_a_still_scene_is_another_frame() -> None:
    scene = photo((900, 600), "coffee")
    subject = photo((150, 100), "astronaut")
    first, second = scene.copy(), scene.copy()
    first.paste(subject, (180, 200))
    second.paste(subject, (290, 200))
    found = match_crop(load_thumb(first), load_thumb(second))
    assert found is None or not found.same_frame
    assert found is None or found.worst_residual > 0.6


def test_a_half_blank_copy_is_not_the_frame() -> None:
    """A file cut short decodes as its top part over grey: the part that matches is not enough."""
    frame = photo((900, 600), "chelsea")
    damaged = frame.copy()
    damaged.paste((128, 128, 128), (0, 250, 900, 600))
    assert not same_frame(load_thumb(frame), load_thumb(damaged))
