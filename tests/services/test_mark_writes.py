"""One mark path for the window and the command line: only the changed fields are written, an
outside edit is never overwritten with an older value (before or during the write), undo restores
the sidecar files, RAW+JPEG pairs follow the documented rule, and the camera's EXIF rating is read."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aesthete_gui.imaging import xmp
from aesthete_gui.imaging.xmp import XmpMarks, read_sidecar, read_xmp_file
from aesthete_gui.services.library import import_folders
from aesthete_gui.services.library_marks import (
    mark_image,
    mark_images,
    pair_partners,
    undo_sidecar_edits,
)
from aesthete_gui.services.sidecar_sync import sync_sidecars
from aesthete_gui.settings import PAIRS_AS_ONE_KEY, profile_settings_path
from aesthete_gui.store import Profile, open_profile
from tests.imaging.conftest import write_dng
from tests.imaging.test_xmp_cas import sidecar_text, write_by_rename
from tests.services.library_images import write_jpeg


@pytest.fixture
def shoot(tmp_path: Path) -> Path:
    folder = tmp_path / "shoot"
    folder.mkdir()
    for n in range(3):
        write_jpeg(folder / f"IMG_{n}.jpg", seed=40 + n)
    return folder


@pytest.fixture
def profile(tmp_path: Path, shoot: Path):
    opened = open_profile(tmp_path / "p.db")
    import_folders(opened, [shoot], workers=1)
    yield opened
    opened.close()


def _id(profile: Profile, path: Path) -> int:
    image = profile.catalog.image_by_path(str(path))
    assert image is not None, path
    return image.id


def _marks(profile: Profile, image_id: int) -> tuple[int, str | None, str | None]:
    mark = profile.marks.get(image_id)
    return (mark.stars, mark.flag, mark.label)


def test_a_key_pressed_after_another_program_set_the_rating_keeps_that_rating(profile: Profile, shoot: Path) -> None:
    """Issue 20: Rating 5 set elsewhere five seconds earlier, then a label here: 5 stays, never 1."""
    image_id = _id(profile, shoot / "IMG_0.jpg")
    mark_image(profile, image_id, stars=1, write_xmp=True)
    sidecar = shoot / "IMG_0.xmp"
    time.sleep(0.02)
    write_by_rename(sidecar, sidecar_text(5, "wedding"))
    mark = mark_image(profile, image_id, label="Yellow", write_xmp=True)  # what pressing 7 sends
    assert (mark.stars, mark.label) == (5, "Yellow") and _marks(profile, image_id) == (5, None, "Yellow")
    assert read_sidecar(shoot / "IMG_0.jpg") == XmpMarks(stars=5, label="Yellow")
    assert "<rdf:li>wedding</rdf:li>" in sidecar.read_text(encoding="utf-8")
    # each replaced value once: ours, replaced by the sidecar's; the sidecar's, replaced by the label
    history = profile.marks.history(image_id)
    assert [(e.source, e.stars, e.label) for e in history] == [("script", 1, None), ("sidecar", 5, None)]


def test_an_edit_made_while_the_mark_is_written_wins_its_field_and_is_recorded(
    profile: Profile, shoot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    image_id = _id(profile, shoot / "IMG_1.jpg")
    mark_image(profile, image_id, stars=2, write_xmp=True)
    sidecar = shoot / "IMG_1.xmp"
    real_edit, calls = xmp.edit, []

    def edit(packet, wanted):  # type: ignore[no-untyped-def]  # the other program writes right after our read
        calls.append(1)
        if len(calls) == 1:
            write_by_rename(sidecar, sidecar_text(4, "ceremony"))
        return real_edit(packet, wanted)

    monkeypatch.setattr(xmp, "edit", edit)
    mark = mark_image(profile, image_id, flag="pick", write_xmp=True)
    assert (mark.stars, mark.flag) == (4, "pick") and _marks(profile, image_id) == (4, "pick", None)
    assert read_sidecar(shoot / "IMG_1.jpg") == XmpMarks(stars=4, flag="pick")
    assert "<rdf:li>ceremony</rdf:li>" in sidecar.read_text(encoding="utf-8")
    history = profile.marks.history(image_id)  # every replaced value, with who had set it
    assert [(e.source, e.stars, e.flag) for e in history] == [("script", 2, None), ("script", 2, "pick")]
    assert "another program made while this mark was written" in history[-1].reason
    monkeypatch.setattr(xmp, "edit", real_edit)
    assert sync_sidecars(profile).adopted == 0  # the profile and the sidecar agree afterwards


def test_undo_puts_every_sidecar_back_and_removes_the_ones_it_created(profile: Profile, shoot: Path) -> None:
    ids = [_id(profile, shoot / f"IMG_{n}.jpg") for n in range(3)]
    existing = shoot / "IMG_0.xmp"
    existing.write_text(sidecar_text(3, "keep me"), encoding="utf-8")
    sync_sidecars(profile)
    original = existing.read_bytes()
    journal: list = []
    for image_id in ids:  # one batch: reject all three
        mark_image(profile, image_id, flag="reject", write_xmp=True, journal=journal)
    assert [read_xmp_file(p).flag for p in sorted(shoot.glob("*.xmp"))] == ["reject"] * 3
    write_by_rename(shoot / "IMG_2.xmp", sidecar_text(-1, "edited elsewhere since"))
    restored, changed = undo_sidecar_edits(profile, journal)
    assert restored == {ids[0], ids[1]} and changed == {ids[2]}
    assert existing.read_bytes() == original
    assert not (shoot / "IMG_1.xmp").exists()  # created by the batch, unchanged since: removed
    assert "edited elsewhere since" in (shoot / "IMG_2.xmp").read_text()  # never overwritten


def _pair_shoot(tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = tmp_path / "pairs"
    folder.mkdir()
    raw = write_dng(folder / "IMG_0001.dng")
    jpeg = folder / "IMG_0001.jpg"
    write_jpeg(jpeg, seed=9)
    (folder / "IMG_0001.xmp").write_text(sidecar_text(1, "raw's develop settings"), encoding="utf-8")
    return folder, raw, jpeg


def test_a_reject_on_the_jpeg_of_a_pair_never_reaches_the_raw(tmp_path: Path) -> None:
    """Issue 19 point 4: IMG.xmp is the RAW's; the JPEG gets IMG.JPG.xmp."""
    folder, raw, jpeg = _pair_shoot(tmp_path)
    profile = open_profile(tmp_path / "pairs.db")
    try:
        import_folders(profile, [folder], workers=1)
        raw_id, jpeg_id = _id(profile, raw), _id(profile, jpeg)
        assert _marks(profile, raw_id)[0] == 1 and _marks(profile, jpeg_id)[0] == 0
        before = (folder / "IMG_0001.xmp").read_bytes()
        result = mark_images(profile, [jpeg_id], flag="reject")
        assert not result.problems and (folder / "IMG_0001.jpg.xmp").is_file()
        assert (folder / "IMG_0001.xmp").read_bytes() == before
        sync_sidecars(profile)
        assert _marks(profile, raw_id) == (1, None, None) and _marks(profile, jpeg_id)[1] == "reject"
        assert pair_partners(profile, [jpeg_id]) == [jpeg_id, raw_id]
    finally:
        profile.close()


def test_with_pairs_as_one_a_mark_on_either_half_marks_both(tmp_path: Path) -> None:
    folder, raw, jpeg = _pair_shoot(tmp_path)
    profile = open_profile(tmp_path / "pairs.db")
    try:
        import_folders(profile, [folder], workers=1)
        profile_settings_path(tmp_path / "pairs.db").write_text(json.dumps({PAIRS_AS_ONE_KEY: True}))
        raw_id, jpeg_id = _id(profile, raw), _id(profile, jpeg)
        result = mark_images(profile, [jpeg_id], stars=4, label="Green")
        assert [m.image_id for m in result.marks] == [jpeg_id, raw_id]
        assert _marks(profile, raw_id) == _marks(profile, jpeg_id) == (4, None, "Green")
        assert sorted(p.name for p in folder.glob("*.xmp")) == ["IMG_0001.xmp"]  # the one shared sidecar
        assert read_sidecar(jpeg, pairs_as_one=True) == read_sidecar(raw) == XmpMarks(stars=4, label="Green")
        assert "raw's develop settings" in (folder / "IMG_0001.xmp").read_text()
    finally:
        profile.close()


def test_a_photo_with_both_sidecar_names_reads_and_writes_the_full_name(tmp_path: Path, shoot: Path) -> None:
    image = shoot / "IMG_0.jpg"
    (shoot / "IMG_0.jpg.xmp").write_text(sidecar_text(2, "digikam"), encoding="utf-8")
    (shoot / "IMG_0.xmp").write_text(sidecar_text(5, "lightroom"), encoding="utf-8")
    stem_before = (shoot / "IMG_0.xmp").read_bytes()
    assert read_sidecar(image).stars == 2
    assert xmp.write_marks(image, 3, None, None, fields={"stars"}).path == shoot / "IMG_0.jpg.xmp"
    assert (shoot / "IMG_0.xmp").read_bytes() == stem_before


def test_the_cameras_exif_rating_is_read_when_xmp_has_none(tmp_path: Path) -> None:
    folder = tmp_path / "camera"
    folder.mkdir()
    pixels = (np.arange(64 * 48 * 3) % 251).astype(np.uint8).reshape(48, 64, 3)
    for name, rating, percent in [("A.jpg", 4, None), ("B.jpg", None, 50), ("C.jpg", 4, None), ("D.jpg", 9, None)]:
        exif = Image.Exif()
        if rating is not None:
            exif[0x4746] = rating
        if percent is not None:
            exif[0x4749] = percent
        Image.fromarray(pixels).save(folder / name, exif=exif.tobytes())
    (folder / "C.xmp").write_text(sidecar_text(2), encoding="utf-8")  # XMP wins over EXIF
    profile = open_profile(tmp_path / "camera.db")
    try:
        import_folders(profile, [folder], workers=1)
        stars = {name: profile.marks.get(_id(profile, folder / name)).stars for name in ("A.jpg", "B.jpg", "C.jpg", "D.jpg")}
        assert stars == {"A.jpg": 4, "B.jpg": 3, "C.jpg": 2, "D.jpg": 0}  # 9 is no rating: not clamped to 5
    finally:
        profile.close()


def test_an_unreadable_rating_is_never_imported_as_stars_or_reject(tmp_path: Path, shoot: Path) -> None:
    (shoot / "IMG_0.xmp").write_text(sidecar_text(99), encoding="utf-8")
    (shoot / "IMG_1.xmp").write_text(sidecar_text(-7), encoding="utf-8")
    profile = open_profile(tmp_path / "q.db")
    try:
        summary = import_folders(profile, [shoot], workers=1)
        for name in ("IMG_0.jpg", "IMG_1.jpg"):
            image = profile.catalog.image_by_path(str(shoot / name))
            assert _marks(profile, image.id) == (0, None, None)
            assert any("sidecar value unreadable" in note and "xmp:Rating" in note for note in image.exif["notes"])
        assert len([p for p in summary.sidecar_problems if "unreadable" in p[1]]) == 2
        os.utime(shoot / "IMG_0.xmp", None)
        assert sync_sidecars(profile).adopted == 0
    finally:
        profile.close()
