"""A full disk during an import or an ingest: the run ends "failed" with the reason, no cache file
is left half-written, the photographs are untouched, and a rerun with space completes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aesthete_gui.errors import AestheteError
from aesthete_gui.imaging.ingest import ingest_file, whole_jpeg
from aesthete_gui.services.card_ingest import ingest_and_import
from aesthete_gui.services.library import import_folders
from aesthete_gui.store import open_profile
from aesthete_gui.store.errors import ProfileError
from aesthete_gui.store.runs import reserve_path
from tests.robustness.fs_faults import small_disk


def _card(folder: Path, count: int) -> dict[str, bytes]:
    folder.mkdir(parents=True)
    rng = np.random.default_rng(7)
    for n in range(count):
        pixels = rng.integers(
            0, 255, (300, 450, 3), dtype=np.uint8
        )  # noise: thumbnails that take room
        Image.fromarray(pixels).save(folder / f"IMG_{n:04d}.JPG", quality=85)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _grow(disk: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(disk)], check=True)


def _cache_files(disk: Path) -> list[Path]:
    return [p for p in disk.rglob("*.jpg") if ".thumbs" in str(p)]


@pytest.mark.parametrize("size_kib", [300, 600, 900])
def test_an_import_that_fills_the_disk_ends_failed_with_the_reason_and_a_rerun_completes(
    tmp_path: Path, size_kib: int
) -> None:
    card = tmp_path / "card"
    before = _card(card, 40)
    with small_disk(tmp_path / "disk", size_kib) as disk:
        profile = open_profile(disk / "p.db")
        try:
            with pytest.raises((ProfileError, AestheteError), match="full"):
                import_folders(profile, [card], workers=1)
            [run] = profile.runs.all("import")
            assert run.status == "failed" and "full" in run.result["error"], run
            assert all(
                whole_jpeg(p) for p in _cache_files(disk)
            )  # nothing cut short under a real name
            assert not list(disk.rglob(".tmp-*"))
            _grow(disk, "20m")
            summary = import_folders(profile, [card], workers=1)
            assert (summary.imported, summary.errors) == (40, 0), summary.problems
            assert [r.status for r in profile.runs.all("import")] == ["failed", "done"]
            assert reserve_path(disk / "p.db").stat().st_size > 0  # laid again for the next run
        finally:
            profile.close()
    assert {p.name: p.read_bytes() for p in sorted(card.iterdir())} == before


@pytest.mark.parametrize(
    "margin_kib", [700, 900]
)  # the copies fit (the check before copying passes)
def test_an_ingest_whose_copies_fill_the_disk_ends_its_import_failed_and_the_card_is_untouched(
    tmp_path: Path, margin_kib: int
) -> None:
    card = tmp_path / "card"
    before = _card(card, 40)
    needed = sum(len(data) for data in before.values()) // 1024
    with small_disk(tmp_path / "disk", needed + margin_kib) as disk:
        profile = open_profile(disk / "p.db")
        try:
            with pytest.raises((ProfileError, AestheteError), match="full"):
                ingest_and_import(profile, card, disk / "library", workers=1)
            runs = profile.runs.all("import")
            assert [r.status for r in runs] == ["failed"] and "full" in runs[0].result["error"]
            assert all(whole_jpeg(p) for p in _cache_files(disk))
        finally:
            profile.close()
    assert {p.name: p.read_bytes() for p in sorted(card.iterdir())} == before


def test_a_thumbnail_written_short_on_a_full_disk_is_removed_and_never_trusted(
    tmp_path: Path,
) -> None:
    photo = tmp_path / "IMG_1.JPG"
    Image.fromarray(np.random.default_rng(3).integers(0, 255, (100, 150, 3), dtype=np.uint8)).save(
        photo
    )
    with small_disk(tmp_path / "disk", 64) as disk:
        # leave room for part of the thumbnail: the kernel stores what fits and reports no error
        (disk / "filler").write_bytes(b"x" * (64 * 1024 - 12000))
        result = ingest_file(photo, disk / "cache", with_checks=False, with_preview=False)
        assert result.error_kind == "disk_full" and "thumbnail cache is full" in result.error
        assert _cache_files(disk) == [] and not any(
            p.is_file() for p in (disk / "cache").rglob("*")
        )
        (disk / "filler").unlink()
        again = ingest_file(photo, disk / "cache", with_checks=False, with_preview=False)
        assert again.ok and whole_jpeg(again.thumbs.thumb_path)


def test_a_thumbnail_the_disk_stored_only_in_part_is_never_renamed_into_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # helper's note on ab8aba1: save_jpeg_atomic itself renamed whatever the disk kept
    import os as real_os

    from aesthete_gui.imaging import thumbnails

    stat = real_os.stat

    class Short:
        def __init__(self, result: os.stat_result) -> None:
            self._result = result

        def __getattr__(self, name: str) -> object:
            return self._result.st_size - 100 if name == "st_size" else getattr(self._result, name)

    monkeypatch.setattr(thumbnails.os, "stat", lambda p, *a, **k: Short(stat(p, *a, **k)) if ".tmp-" in str(p) else stat(p, *a, **k))
    target = tmp_path / "cache" / "thumb.jpg"
    with pytest.raises(OSError, match="only part of the thumbnail"):
        thumbnails.save_jpeg_atomic(Image.new("RGB", (64, 48), (10, 20, 30)), target, 85)
    assert not target.exists() and list((tmp_path / "cache").iterdir()) == []
