"""Burst grouping on constructed frame sequences, and on real files through ingest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from aesthete_gui.imaging.bursts import Frame, group_bursts
from aesthete_gui.imaging.ingest import ingest_file
from tests.imaging.conftest import exif_with, photo

SCENE_A = 0x0F0F_0F0F_0F0F_0F0F
SCENE_B = 0xF0F0_F0F0_F0F0_F0F0  # 64 bits away from SCENE_A


def _near(base: int, bits: int) -> int:
    """A hash that differs from `base` in its lowest `bits` bits."""
    return base ^ ((1 << bits) - 1)


def test_quick_succession_forms_one_burst_and_a_later_frame_stays_alone() -> None:
    frames = [Frame(f"f{i}", 100.0 + 0.12 * i, 10 + i, _near(SCENE_A, i % 3)) for i in range(5)]
    frames.append(Frame("later", 130.0, 15, SCENE_A ^ 0xFFFF_FFFF))
    assert group_bursts(frames) == [["f0", "f1", "f2", "f3", "f4"]]


def test_gap_splits_bursts_and_input_order_does_not_matter() -> None:
    first = [Frame(f"a{i}", 50.0 + 0.5 * i, phash=SCENE_A) for i in range(3)]
    second = [Frame(f"b{i}", 60.0 + 0.5 * i, phash=SCENE_B) for i in range(2)]
    shuffled = [second[1], first[2], first[0], second[0], first[1]]
    assert group_bursts(shuffled) == [["a0", "a1", "a2"], ["b0", "b1"]]


def test_sub_seconds_decide_the_gap() -> None:
    frames = [Frame("x", 10.95), Frame("y", 12.4), Frame("z", 14.1)]  # gaps 1.45 s and 1.7 s
    assert group_bursts(frames, max_gap_s=1.5, similar_window_s=0) == [["x", "y"]]
    assert group_bursts(frames, max_gap_s=2.0, similar_window_s=0) == [["x", "y", "z"]]


def test_different_scene_within_the_gap_is_not_the_same_burst() -> None:
    frames = [Frame("a", 1.0, phash=SCENE_A), Frame("b", 1.3, phash=SCENE_A), Frame("c", 1.6, phash=SCENE_B)]
    assert group_bursts(frames) == [["a", "b"]]


def test_sequence_numbers_must_be_consecutive() -> None:
    frames = [Frame("a", 1.0, 100, SCENE_A), Frame("b", 1.5, 101, SCENE_A), Frame("c", 2.0, 150, _near(SCENE_A, 12))]
    assert group_bursts(frames) == [["a", "b"]]


def test_near_identical_frames_join_across_a_longer_gap_within_the_window() -> None:
    frames = [Frame("a", 0.0, phash=SCENE_A), Frame("b", 6.0, phash=_near(SCENE_A, 3))]
    assert group_bursts(frames) == [["a", "b"]]
    assert group_bursts(frames, similar_window_s=5.0) == []
    different = [Frame("a", 0.0, phash=SCENE_A), Frame("b", 6.0, phash=_near(SCENE_A, 20))]
    assert group_bursts(different) == []


def test_cameras_never_mix() -> None:
    frames = [
        Frame("canon1", 5.0, camera="Canon R5", phash=SCENE_A),
        Frame("sony1", 5.1, camera="Sony A1", phash=SCENE_A),
        Frame("canon2", 5.2, camera="Canon R5", phash=SCENE_A),
        Frame("sony2", 5.3, camera="Sony A1", phash=SCENE_A),
    ]
    assert sorted(group_bursts(frames)) == [["canon1", "canon2"], ["sony1", "sony2"]]


def test_frames_without_time_group_by_sequence_and_look() -> None:
    frames = [
        Frame("p1", sequence_number=7, phash=SCENE_A),
        Frame("p2", sequence_number=8, phash=_near(SCENE_A, 2)),
        Frame("p3", sequence_number=9, phash=SCENE_B),
        Frame("p5", sequence_number=11, phash=SCENE_B),
        Frame("nothing"),
    ]
    assert group_bursts(frames) == [["p1", "p2"]]


def test_min_size_and_empty_input() -> None:
    frames = [Frame(i, 1.0 + 0.1 * i, phash=SCENE_A) for i in range(3)]
    assert group_bursts(frames, min_size=4) == []
    assert group_bursts([]) == []


def test_bursts_from_real_files(tmp_path: Path) -> None:
    base = photo((640, 480))
    shots = [
        ("00", base, "10"),
        ("00", base.rotate(1.0, expand=False), "40"),
        ("01", base.filter(ImageFilter.GaussianBlur(1)), "05"),
        ("20", photo((640, 480), "coffee"), "00"),
    ]
    frames = []
    for number, (second, image, subsec) in enumerate(shots):
        path = tmp_path / f"DSC_{number:04d}.jpg"
        image.save(path, quality=90, exif=exif_with(when=f"2024:07:07 15:00:{second}", subsec=subsec, model="A7 IV", image_number=number))
        result = ingest_file(path, tmp_path / "cache", with_preview=False)
        assert result.metadata is not None
        frames.append(
            Frame(path.name, result.metadata.capture_timestamp, result.metadata.sequence_number, result.phash, result.metadata.camera)
        )
    assert group_bursts(frames) == [["DSC_0000.jpg", "DSC_0001.jpg", "DSC_0002.jpg"]]


def test_one_picture_saved_at_three_sizes_groups_together(tmp_path: Path) -> None:
    img = photo((1200, 900))
    keys = []
    for side in (1200, 640, 320):
        path = tmp_path / f"copy_{side}.jpg"
        img.resize((side, side * 3 // 4)).save(path, quality=90)  # no EXIF: no capture time
        keys.append(path)
    other = tmp_path / "other.jpg"
    photo((1200, 900), which="coffee").save(other, quality=90)
    frames = [Frame(str(p), phash=ingest_file(p, tmp_path / "cache", with_preview=False, with_checks=False).phash)
              for p in [*keys, other]]  # fmt: skip
    assert group_bursts(frames) == [[str(p) for p in keys]]


def test_near_identical_frames_with_different_shot_metadata_stay_apart() -> None:
    frames = [Frame("a", 10.0, phash=SCENE_A), Frame("b", 40.0, phash=SCENE_A),
              Frame("c", phash=SCENE_B, camera="X"), Frame("d", phash=SCENE_B, camera="Y")]  # fmt: skip
    assert group_bursts(frames) == []


def test_a_frame_brightened_two_stops_joins_its_scene_a_few_seconds_later(tmp_path: Path) -> None:
    # held15 trial: a +2 EV frame 3 s after its scene burnt highlights out, its pHash moved 10 bits, it
    # formed no burst with the scene, and the "brighter than the burst's best exposed frame" rule never ran
    import sys

    from aesthete_gui.imaging.crop_groups import ThumbnailMatcher
    from aesthete_gui.imaging.crop_match import load_thumb
    from aesthete_gui.imaging.hashing import hamming

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import culling_data as degrade

    scene = photo((1024, 1024), "camera")
    shots = [("00", scene), ("03", degrade.exposure(scene, 4.0)), ("07", photo((1024, 1024), "astronaut"))]
    frames, thumbs = [], {}
    for number, (second, image) in enumerate(shots):
        path = tmp_path / f"DSC_{number:04d}.jpg"
        image.save(path, quality=92, exif=exif_with(when=f"2024:07:07 15:00:{second}", model="A7 IV", image_number=number))
        result = ingest_file(path, tmp_path / "cache", with_preview=False, with_checks=False)
        assert result.metadata is not None and result.thumbs is not None
        frames.append(Frame(path.name, result.metadata.capture_timestamp, None, result.phash, result.metadata.camera))
        thumbs[path.name] = result.thumbs.thumb_path
    assert 8 < hamming(frames[0].phash or 0, frames[1].phash or 0) <= 16  # beyond the strict hash match
    assert group_bursts(frames) == []  # the hash alone keeps them apart
    matcher = ThumbnailMatcher(lambda key: load_thumb(Image.open(thumbs[key])))
    assert group_bursts(frames, matcher=matcher) == [["DSC_0000.jpg", "DSC_0001.jpg"]]


def test_distinct_photographs_are_not_one_view_at_another_exposure() -> None:
    from aesthete_gui.imaging.crop_groups import alike_at_any_exposure
    from aesthete_gui.imaging.crop_match import load_thumb

    def grey(image: Image.Image) -> np.ndarray:
        return load_thumb(image.resize((256, 192))).grey

    names = ("astronaut", "coffee", "chelsea", "rocket", "camera", "immunohistochemistry")
    greys = {n: grey(photo((640, 480), n)) for n in names}
    assert not any(alike_at_any_exposure(greys[a], greys[b]) for a in names for b in names if a < b)
    darker = grey(photo((640, 480), "coffee").point(lambda v: v // 4))
    assert alike_at_any_exposure(greys["coffee"], darker)
    assert not alike_at_any_exposure(greys["coffee"], np.full_like(greys["coffee"], 255))  # burnt out: nothing left to compare


def test_an_untimed_copy_does_not_join_shots_hours_apart() -> None:
    # an attack: one file without a capture time, a near-duplicate of frames taken over two days, chained
    # them all into one 18-frame "burst" through the union of duplicate links
    frames = [Frame("morning.jpg", 36_000.0, phash=SCENE_A), Frame("evening.jpg", 64_800.0, phash=SCENE_A),
              Frame("copy.jpg", phash=SCENE_A)]  # fmt: skip
    groups = group_bursts(frames)
    assert len(groups) == 1 and "copy.jpg" in groups[0] and len(groups[0]) == 2
