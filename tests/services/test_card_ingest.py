"""Ingest from a card: renamed, hash-verified copies, a backup, skipped repeats, clean failures, then import."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import xxhash
from PIL import Image

from aesthete_gui.jobs import CancelToken, Progress
from aesthete_gui.services import card_ingest, verified_copy
from aesthete_gui.services.card_ingest import IngestError, ingest_and_import, ingest_card
from aesthete_gui.store import open_profile
from tests.robustness.fs_faults import read_only_folder, small_disk
from tests.services.library_images import write_jpeg

EXIFTOOL = shutil.which("exiftool")
MAKE, MODEL = 0x010F, 0x0110


def _card(folder: Path, count: int = 3, size: tuple[int, int] = (320, 240)) -> list[Path]:
    """A card's DCIM folder: JPEGs with capture time and camera, plus a clip and a sidecar to leave alone."""
    dcim = folder / "DCIM" / "100CANON"
    dcim.mkdir(parents=True)
    files = []
    for n in range(count):
        path = write_jpeg(
            dcim / f"IMG_{n:04d}.JPG", seed=n, when=f"2024:06:12 10:00:{n:02d}", size=size
        )
        with Image.open(path) as image:
            exif = image.getexif()
            exif[MAKE], exif[MODEL] = "Canon", "Canon EOS R5"
            image.save(path, exif=exif, quality=95)
        files.append(path)
    (dcim / "MVI_0001.MP4").write_bytes(b"not copied")
    return files


def _digest(path: Path) -> str:
    return xxhash.xxh3_128_hexdigest(path.read_bytes())


def _payload(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def test_copies_are_renamed_verified_backed_up_and_repeats_skipped(tmp_path: Path) -> None:
    originals = _card(tmp_path / "card")
    seen: list[Progress] = []
    summary = ingest_card(
        tmp_path / "card", tmp_path / "photos", backup=tmp_path / "backup", progress=seen.append
    )
    assert (summary.found, summary.copied, summary.backed_up, summary.skipped) == (3, 3, 3, 0)
    names = [p.relative_to(tmp_path / "photos").as_posix() for p in _payload(tmp_path / "photos")]
    assert names == [f"2024-06-12/20240612_Canon-EOS-R5_000{n}.JPG" for n in (1, 2, 3)]  # the card's case
    for root in ("photos", "backup"):
        assert sorted(map(_digest, _payload(tmp_path / root))) == sorted(map(_digest, originals))
    assert seen and seen[-1].done == seen[-1].total == sum(p.stat().st_size for p in originals)
    # A second run copies nothing; a new frame on the card continues the numbering.
    again = ingest_card(tmp_path / "card", tmp_path / "photos", backup=tmp_path / "backup")
    assert (again.copied, again.skipped) == (0, 3)
    write_jpeg(originals[0].with_name("IMG_0009.JPG"), seed=9, when="2024:06:13 08:00:00")
    third = ingest_card(
        tmp_path / "card", tmp_path / "photos", template="{date:%Y}/{name}_{seq:03d}{ext_lower}"
    )
    assert (third.copied, third.skipped) == (1, 3)
    assert (tmp_path / "photos" / "2024" / "IMG_0009_004.jpg").is_file()


def test_ingest_then_import_reads_in_camera_ratings(tmp_path: Path) -> None:
    originals = _card(tmp_path / "card", count=2)
    assert EXIFTOOL, "exiftool is required (Debian package libimage-exiftool-perl)"
    subprocess.run(
        [EXIFTOOL, "-q", "-overwrite_original", "-XMP-xmp:Rating=4", str(originals[1])], check=True
    )
    profile = open_profile(tmp_path / "profile.db")
    try:
        summary = ingest_and_import(profile, tmp_path / "card", tmp_path / "photos", workers=1)
        assert summary.imported is not None and summary.imported.imported == 2
        copy = tmp_path / "photos" / "2024-06-12" / "20240612_Canon-EOS-R5_0002.JPG"
        image = profile.catalog.image_by_path(str(copy))
        assert image is not None and profile.marks.get(image.id).stars == 4
    finally:
        profile.close()


def test_bad_template_and_missing_source_are_clear_errors(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=1)
    with pytest.raises(IngestError, match=r"unknown field \{lens\}"):
        ingest_card(tmp_path / "card", tmp_path / "photos", template="{lens}{ext}")
    with pytest.raises(IngestError, match="inside the destination"):
        ingest_card(tmp_path / "card", tmp_path / "photos", template="../{name}{ext}")
    with pytest.raises(IngestError, match="not a folder"):
        ingest_card(tmp_path / "no-card", tmp_path / "photos")
    assert not (tmp_path / "photos").exists() or not _payload(tmp_path / "photos")


def test_read_only_destination_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=1)
    target = tmp_path / "locked"
    target.mkdir()
    with read_only_folder(target) as view, pytest.raises(IngestError, match="read-only"):
        ingest_card(tmp_path / "card", view)
    assert list(target.iterdir()) == []


def test_full_destination_is_refused_before_copying(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=3, size=(1200, 900))
    with small_disk(tmp_path / "small", 256) as disk:
        with pytest.raises(
            IngestError, match=r"destination is full: .* MB free, the new files need"
        ):
            ingest_card(tmp_path / "card", disk)
        assert list(disk.iterdir()) == []


def test_disk_filling_mid_copy_leaves_no_half_written_file(tmp_path: Path, monkeypatch) -> None:
    originals = _card(tmp_path / "card", count=3, size=(1200, 900))
    # A file system that reports more free space than it has (network and compressed ones do).
    monkeypatch.setattr(
        shutil, "disk_usage", lambda _p: shutil._ntuple_diskusage(1 << 40, 0, 1 << 40)
    )
    size = sum(p.stat().st_size for p in originals)
    with small_disk(tmp_path / "small", size // 1024 // 2) as disk:
        with pytest.raises(IngestError, match="destination is full"):
            ingest_card(tmp_path / "card", disk)
        leftovers = [p for p in disk.rglob("*") if p.is_file() and p.name != card_ingest.MANIFEST]
        assert all(not p.name.endswith(".part") for p in leftovers)
        assert {_digest(p) for p in leftovers} <= {_digest(p) for p in originals}


def test_cancel_stops_between_files_and_removes_the_partial_copy(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=3)
    token = CancelToken()

    def cancel_when_copying(progress: Progress) -> None:
        if progress.message.startswith("copying") and progress.done > 0:
            token.cancel()

    summary = ingest_card(
        tmp_path / "card", tmp_path / "photos", progress=cancel_when_copying, cancel=token
    )
    assert summary.cancelled and summary.copied == 1
    assert [p.name for p in _payload(tmp_path / "photos")] == ["20240612_Canon-EOS-R5_0001.JPG"]
    assert not list((tmp_path / "photos").rglob("*.part"))
    rerun = ingest_card(tmp_path / "card", tmp_path / "photos")
    assert (rerun.copied, rerun.skipped) == (2, 1)


def test_a_mid_file_cancel_removes_the_temporary_copy(tmp_path: Path) -> None:
    originals = _card(tmp_path / "card", count=1)
    token = CancelToken()
    token.cancel()
    (tmp_path / "photos").mkdir()
    assert verified_copy.stage(str(originals[0]), tmp_path / "photos", token, "ingest") is None
    assert list((tmp_path / "photos").iterdir()) == []


def test_sidecars_on_the_card_follow_their_renamed_images(tmp_path: Path) -> None:
    originals = _card(tmp_path / "card", count=2)
    assert EXIFTOOL, "exiftool is required (Debian package libimage-exiftool-perl)"
    stem_sidecar = originals[0].with_suffix(".xmp")
    full_sidecar = originals[1].with_name(originals[1].name + ".xmp")
    for sidecar, rating in ((stem_sidecar, "3"), (full_sidecar, "5")):
        subprocess.run(
            [EXIFTOOL, "-q", "-o", str(sidecar), f"-XMP-xmp:Rating={rating}"], check=True
        )
    profile = open_profile(tmp_path / "profile.db")
    try:
        ingest_and_import(profile, tmp_path / "card", tmp_path / "photos", workers=1)
        day = tmp_path / "photos" / "2024-06-12"
        assert sorted(p.name for p in day.glob("*.xmp")) == [
            "20240612_Canon-EOS-R5_0001.xmp",
            "20240612_Canon-EOS-R5_0002.JPG.xmp",
        ]
        stars = {Path(i.path).name: profile.marks.get(i.id).stars for i in profile.catalog.images()}
        assert stars == {"20240612_Canon-EOS-R5_0001.JPG": 3, "20240612_Canon-EOS-R5_0002.JPG": 5}
    finally:
        profile.close()


def _pair_card(folder: Path) -> Path:
    """A card with a RAW+JPEG pair sharing `IMG_0001.xmp`, a JPEG with `IMG_0002.JPG.xmp`, a clip and an orphan sidecar."""
    dcim = folder / "DCIM" / "100CANON"
    dcim.mkdir(parents=True)
    write_jpeg(dcim / "IMG_0001.JPG", seed=1, when="2024:06:12 10:00:01")
    (dcim / "IMG_0001.CR2").write_bytes(b"II*\x00" + bytes(range(256)) * 40)
    (dcim / "IMG_0001.xmp").write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'>pair</x:xmpmeta>")
    write_jpeg(dcim / "IMG_0002.JPG", seed=2, when="2024:06:12 10:00:02")
    (dcim / "IMG_0002.JPG.xmp").write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'>two</x:xmpmeta>")
    (dcim / "MVI_0003.MOV").write_bytes(b"clip")
    (dcim / "IMG_0009.xmp").write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'>orphan</x:xmpmeta>")
    return dcim


def test_a_raw_jpeg_pair_and_its_sidecars_share_one_new_name_and_the_rest_is_counted(tmp_path: Path) -> None:
    dcim = _pair_card(tmp_path / "card")
    summary = ingest_card(tmp_path / "card", tmp_path / "photos", template="{date:%Y}/{camera}_{seq:03d}{ext}")
    assert (summary.found, summary.copied, summary.sidecars) == (3, 3, 2)
    assert summary.not_copied == {".MOV": 1, ".xmp without a photograph": 1}
    day = tmp_path / "photos" / "2024"
    assert sorted(p.name for p in day.iterdir()) == [
        "unknown-camera_001.CR2", "unknown-camera_001.JPG", "unknown-camera_001.xmp",
        "unknown-camera_002.JPG", "unknown-camera_002.JPG.xmp",
    ]  # fmt: skip
    assert (day / "unknown-camera_001.xmp").read_bytes() == (dcim / "IMG_0001.xmp").read_bytes()


def test_a_rerun_completes_a_photograph_whose_sidecar_never_arrived(tmp_path: Path) -> None:
    _pair_card(tmp_path / "card")
    ingest_card(tmp_path / "card", tmp_path / "photos", template="{name}{ext}")
    (tmp_path / "photos" / "IMG_0002.JPG.xmp").unlink()  # killed after the photograph, before its sidecar
    (tmp_path / "photos" / "IMG_0001.CR2").unlink()  # and before the RAW of the pair
    rerun = ingest_card(tmp_path / "card", tmp_path / "photos", template="{name}{ext}")
    # the JPEGs that were there count as already there, so the counts add up (an attack found 0 and 0),
    # and "completed" counts the photographs of the units completed, as its line says
    assert (rerun.found, rerun.copied, rerun.skipped, rerun.completed) == (3, 1, 2, 3)
    assert sorted(p.name for p in (tmp_path / "photos").iterdir() if not p.name.startswith(".")) == [
        "IMG_0001.CR2", "IMG_0001.JPG", "IMG_0001.xmp", "IMG_0002.JPG", "IMG_0002.JPG.xmp"]  # fmt: skip


def test_already_there_means_the_same_bytes_never_the_same_name(tmp_path: Path) -> None:
    originals = _card(tmp_path / "card", count=2)
    ingest_card(tmp_path / "card", tmp_path / "photos", template="{name}{ext}")
    stranger = b"another card's IMG_0000, written over ours by a tool that replaces files"
    (tmp_path / "photos" / "IMG_0000.JPG").write_bytes(stranger)
    rerun = ingest_card(tmp_path / "card", tmp_path / "photos", template="{name}{ext}")
    assert (rerun.copied, rerun.skipped) == (1, 1)
    assert (tmp_path / "photos" / "IMG_0000.JPG").read_bytes() == stranger  # never replaced
    assert _digest(tmp_path / "photos" / "IMG_0000-2.JPG") == _digest(originals[0])


def test_a_name_from_the_card_that_would_leave_the_destination_is_refused_and_the_others_go_on(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=1)
    hostile = tmp_path / "card" / "DCIM" / "100CANON" / "x\\..\\..\\..\\ESCAPED.jpg"
    write_jpeg(hostile, seed=5)
    summary = ingest_card(tmp_path / "card", tmp_path / "deep" / "photos", template="{name}{ext}")
    assert summary.copied == 1
    assert [Path(p).name for p, _ in summary.problems] == [hostile.name]
    assert "contains a folder separator" in summary.problems[0][1]
    assert not list(tmp_path.rglob("ESCAPED*"))


def test_a_name_too_long_for_the_file_system_is_shortened_the_same_way_every_time(tmp_path: Path) -> None:
    _pair_card(tmp_path / "card")
    template = "{name}_" + "ceremony-" * 30 + "{ext}"
    summary = ingest_card(tmp_path / "card", tmp_path / "photos", template=template)
    names = sorted(p.name for p in (tmp_path / "photos").iterdir() if not p.name.startswith("."))
    assert summary.copied == 3 and len(names) == 5 and not summary.problems
    assert all(len(os.fsencode(n)) <= 255 and "~" in n for n in names)
    assert {n.split(".", 1)[0] for n in names if n.startswith("IMG_0001")} == {names[0].split(".", 1)[0]}  # one stem
    again = ingest_card(tmp_path / "card", tmp_path / "photos", template=template)
    assert (again.copied, again.skipped) == (0, 3)


def test_a_destination_path_past_the_system_limit_is_reported(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=1)
    deep = tmp_path / "photos"
    while len(os.fsencode(str(deep))) < 4070:
        deep = deep / ("d" * min(200, 4070 - len(os.fsencode(str(deep)))))
    summary = ingest_card(tmp_path / "card", deep, template="{name}{ext}")
    assert summary.copied == 0
    assert "longer than 4096 bytes" in summary.problems[0][1]


def test_a_card_folder_deeper_than_the_path_limit_is_reported_not_skipped_silently(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=1)
    handle = os.open(tmp_path / "card", os.O_RDONLY)
    try:
        for _ in range(20):  # 20 folders of 250 bytes: 5,000 bytes, past the 4,096-byte limit
            os.mkdir("f" * 250, dir_fd=handle)
            inner = os.open("f" * 250, os.O_RDONLY, dir_fd=handle)
            os.close(handle)
            handle = inner
        with open(os.open("IMG_9999.JPG", os.O_WRONLY | os.O_CREAT, dir_fd=handle), "wb") as deep:
            deep.write(b"\xff\xd8\xff deep")
    finally:
        os.close(handle)
    summary = ingest_card(tmp_path / "card", tmp_path / "photos")
    assert summary.copied == 1
    assert any("longer than this system allows" in reason for _, reason in summary.problems), summary.problems


def test_the_record_of_an_older_version_is_read_and_never_written(tmp_path: Path) -> None:
    originals = _card(tmp_path / "card", count=1)
    (tmp_path / "photos").mkdir()
    shutil.copy2(originals[0], tmp_path / "photos" / "old.jpg")
    legacy = tmp_path / "photos" / ".aesthete-ingest.json"
    legacy.write_text(f'{{"next_seq": 7, "files": {{"{_digest(originals[0])}": "old.jpg"}}, "sources": {{}}}}')
    before = legacy.read_bytes()
    summary = ingest_card(tmp_path / "card", tmp_path / "photos")
    assert (summary.copied, summary.skipped) == (0, 1) and legacy.read_bytes() == before


def test_the_template_must_end_with_the_extension(tmp_path: Path) -> None:
    _card(tmp_path / "card", count=1)
    with pytest.raises(IngestError, match=r"must end with \{ext\} or \{ext_lower\}"):
        ingest_card(tmp_path / "card", tmp_path / "photos", template="{name}.jpg")


def test_a_copy_sharing_a_stem_is_its_own_photograph_and_number_keeps_the_cameras_number(tmp_path: Path) -> None:
    dcim = tmp_path / "card" / "DCIM" / "100CANON"
    dcim.mkdir(parents=True)
    for n, name in enumerate(["IMG_0009.JPG", "IMG_0022.JPG", "IMG_0022_small.JPG", "IMG_0023.JPG"]):
        write_jpeg(dcim / name, seed=n, when=f"2024:06:12 10:00:{n:02d}")
    Image.open(dcim / "IMG_0009.JPG").save(dcim / "IMG_0009.png")  # a PNG made from the JPEG
    running = ingest_card(tmp_path / "card", tmp_path / "running", template="{seq:04d}{ext}")
    assert running.copied == 5
    assert sorted(p.name for p in _payload(tmp_path / "running")) == [
        "0001.JPG", "0002.png", "0003.JPG", "0004.JPG", "0005.JPG"]  # fmt: skip  # the PNG is a photograph of its own
    kept = ingest_card(tmp_path / "card", tmp_path / "kept", template="R5_{number:04d}{ext}")  # the PNG has no capture date
    assert kept.copied == 5
    assert sorted(p.name for p in _payload(tmp_path / "kept")) == [
        "R5_0009.JPG", "R5_0009.png", "R5_0022-2.JPG", "R5_0022.JPG", "R5_0023.JPG"]  # fmt: skip
    with pytest.raises(IngestError, match="unknown field"):
        ingest_card(tmp_path / "card", tmp_path / "bad", template="{numbr}{ext}")
