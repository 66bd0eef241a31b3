"""The thumbnail cache stays under its size limit: unused content first, then least recently used."""

from __future__ import annotations

import os
import time
from pathlib import Path

from PIL import Image

from aesthete_gui.imaging.thumbnails import (
    claim_cache,
    ensure_thumbnail,
    save_jpeg_atomic,
    thumb_paths,
    trim_cache,
)


def _cached(cache: Path, content: str, age_s: float, side: int = 64) -> Path:
    """A cache file of `content` last used `age_s` seconds ago."""
    path = thumb_paths(content, cache).thumb_path
    save_jpeg_atomic(Image.effect_noise((side, side), 60).convert("RGB"), path, 90)
    when = time.time() - age_s
    os.utime(path, (when, when))
    return path


def _names(cache: Path) -> set[str]:
    return {p.name.split("_")[0] for p in cache.rglob("*.jpg") if not p.name.startswith(".")}


def test_the_least_recently_used_files_go_first_until_the_cache_fits(tmp_path: Path) -> None:
    contents = [f"{n:02x}" * 16 for n in range(10)]
    paths = [_cached(tmp_path, c, age_s=1000 - n * 10) for n, c in enumerate(contents)]  # the last is the newest
    size = paths[0].stat().st_size
    total = sum(p.stat().st_size for p in paths)
    trimmed = trim_cache(tmp_path, total - 3 * size)
    assert trimmed.removed >= 3 and trimmed.kept_bytes <= 0.9 * (total - 3 * size)
    kept = _names(tmp_path)
    assert contents[-1] in kept and contents[0] not in kept
    assert all(contents[n] not in kept for n in range(trimmed.removed))  # oldest first, no others
    assert trim_cache(tmp_path, 10**9).removed == 0  # under the limit: nothing goes


def test_files_of_content_no_image_has_go_whatever_the_size(tmp_path: Path) -> None:
    keep, drop = "aa" * 16, "bb" * 16
    _cached(tmp_path, keep, 0)
    _cached(tmp_path, drop, 0)
    stale = tmp_path / "aa" / "aa" / ".tmp-crashed.jpg"
    stale.write_bytes(b"half a jpeg")
    os.utime(stale, (time.time() - 7200,) * 2)
    fresh = tmp_path / "aa" / "aa" / ".tmp-writing-now.jpg"
    fresh.write_bytes(b"being written")
    trimmed = trim_cache(tmp_path, 10**9, keep={keep})
    assert trimmed.removed == 2 and _names(tmp_path) == {keep}
    assert not stale.exists() and fresh.exists()  # another process may be writing that one


def test_a_used_thumbnail_counts_as_recent(tmp_path: Path) -> None:
    old, new = "cc" * 16, "dd" * 16
    old_path = _cached(tmp_path, old, 5000)
    _cached(tmp_path, new, 100)
    assert ensure_thumbnail(tmp_path / "not-read.jpg", old, tmp_path) == old_path  # in the cache: used, not made
    trim_cache(tmp_path, int(old_path.stat().st_size / 0.9) + 1)  # room for one file
    assert _names(tmp_path) == {old}


def test_a_cache_is_owned_by_the_first_profile_that_claims_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert claim_cache(cache, tmp_path / "a.db")
    assert claim_cache(cache, tmp_path / "a.db")
    assert not claim_cache(cache, tmp_path / "b.db")
    assert claim_cache(cache, tmp_path / "b.db", own=True)  # its own folder: the profile was moved
    assert not claim_cache(cache, tmp_path / "a.db")
