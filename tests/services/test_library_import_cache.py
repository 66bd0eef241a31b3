"""Imports keep the thumbnail cache bounded: an edited or deleted photo leaves no cache files behind,
the size limit comes from the profile's settings, and another profile's cache is never emptied."""

from __future__ import annotations

import json
from pathlib import Path

from aesthete_gui.services.library import import_folders, tidy_thumbnail_cache
from aesthete_gui.settings import (
    DEFAULT_THUMBNAIL_CACHE_MB,
    thumbnail_cache_dir,
    thumbnail_cache_limit_bytes,
)
from aesthete_gui.store import open_profile
from tests.services.library_images import write_jpeg


def _files(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*.jpg") if not p.name.startswith(".")]


def test_twenty_edits_of_one_photo_leave_only_its_current_files_and_a_deletion_none(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    write_jpeg(shoot / "keep.jpg", seed=1)
    photo = shoot / "edited.jpg"
    for edit in range(20):
        write_jpeg(photo, seed=100 + edit)  # another edit saved over the same file
        import_folders(profile, [shoot], workers=1, previews=True)
    cache = thumbnail_cache_dir(profile.path)
    assert len(_files(cache)) == 4  # a thumbnail and a preview of each of the two photos
    photo.unlink()
    summary = import_folders(profile, [shoot], workers=1)
    assert summary.missing == 1
    current = profile.catalog.image_by_path(str(shoot / "keep.jpg")).content_hash
    assert {p.name.split("_")[0] for p in _files(cache)} == {current}
    assert set(profile.grouping.signatures()) == {current}
    profile.close()


def test_the_limit_comes_from_the_profile_settings(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    assert thumbnail_cache_limit_bytes(path) == DEFAULT_THUMBNAIL_CACHE_MB * 1024 * 1024
    for bad in ("lots", None, True, float("nan"), -5):
        (tmp_path / "p.db.settings.json").write_text(json.dumps({"thumbnail_cache_mb": bad}), encoding="utf-8")
        assert thumbnail_cache_limit_bytes(path) in (DEFAULT_THUMBNAIL_CACHE_MB * 1024 * 1024, 64 * 1024 * 1024)
    (tmp_path / "p.db.settings.json").write_text('{"thumbnail_cache_mb": 100}', encoding="utf-8")
    assert thumbnail_cache_limit_bytes(path) == 100 * 1024 * 1024
    (tmp_path / "p.db.settings.json").write_text("{not json", encoding="utf-8")
    assert thumbnail_cache_limit_bytes(path) == DEFAULT_THUMBNAIL_CACHE_MB * 1024 * 1024


def test_a_cache_shared_with_another_profile_only_shrinks_to_its_limit(tmp_path: Path) -> None:
    shared = tmp_path / "shared-cache"
    first, second = open_profile(tmp_path / "a.db"), open_profile(tmp_path / "b.db")
    for name, profile in (("a", first), ("b", second)):
        (tmp_path / name).mkdir()
        for n in range(3):
            write_jpeg(tmp_path / name / f"{n}.jpg", seed=10 * ord(name) + n)
        import_folders(profile, [tmp_path / name], workers=1, cache_dir=shared)
    assert len(_files(shared)) == 6
    trimmed = tidy_thumbnail_cache(second, shared)  # b does not own the cache: a's files stay
    assert trimmed.removed == 0 and len(_files(shared)) == 6
    size = sum(p.stat().st_size for p in _files(shared))
    assert tidy_thumbnail_cache(second, shared, limit_bytes=size // 2).removed >= 3
    first.close()
    second.close()
