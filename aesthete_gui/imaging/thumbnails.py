"""Thumbnail (256 px) and preview (~1024 px) JPEG cache keyed by content hash, written atomically,
kept under a size limit (least recently used dropped first; files of content no image has dropped)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from PIL import ExifTags, Image

from aesthete_gui.imaging.decode import (
    Decoded,
    apply_orientation,
    decode_bytes,
    decode_file,
    read_bytes,
)

THUMB_SIDE = 256
PREVIEW_SIDE = 1024
PREVIEW_DRAFT_SIDE = 736
"""JPEG DCT scaling may stop at this long side for previews: a 4000 px frame gives a 1000 px preview
from a 1/4-scale decode instead of a 1/2-scale one (about a third less decoding work)."""

THUMB_QUALITY = 85
PREVIEW_QUALITY = 85
_EXIF_IFD1 = ExifTags.IFD.IFD1
_JPEG_OFFSET, _JPEG_LENGTH = 0x0201, 0x0202


@dataclass(frozen=True)
class Thumbs:
    """Where the cached thumbnail (256 px) and preview (~1024 px) of one image content live."""

    thumb_path: Path
    preview_path: Path

    def exist(self) -> bool:
        """True when both files are in the cache."""
        return self.thumb_path.is_file() and self.preview_path.is_file()


def thumb_paths(content_hash: str, cache_dir: str | os.PathLike[str]) -> Thumbs:
    """Cache locations for a content hash, sharded in two levels (ab/cd/abcd…_256.jpg)."""
    shard = Path(cache_dir) / content_hash[:2] / content_hash[2:4]
    return Thumbs(shard / f"{content_hash}_{THUMB_SIDE}.jpg", shard / f"{content_hash}_{PREVIEW_SIDE}.jpg")


def save_jpeg_atomic(img: Image.Image, path: Path, quality: int) -> None:
    """Write a JPEG to a temp file in the same folder, then rename over the target (only when all of it
    was stored: OSError ENOSPC otherwise, nothing left behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    encoded = io.BytesIO()
    (img if img.mode == "RGB" else img.convert("RGB")).save(encoded, "JPEG", quality=quality)
    data = encoded.getvalue()
    handle, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".jpg")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        # a nearly full disk can keep less than was written without an error: never rename a short file
        if os.stat(tmp_name).st_size != len(data):
            raise OSError(errno.ENOSPC, f"only part of the thumbnail was stored ({path.name})", str(path))
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def fit_within(img: Image.Image, side: int) -> Image.Image:
    """A copy whose long side is at most `side` (the same object when already small enough)."""
    if max(img.size) <= side:
        return img
    scale = side / max(img.size)
    size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
    # box-reduce by the integer factor, then a short bicubic step: ~2.5x faster than bicubic alone
    return img.resize(size, Image.Resampling.BICUBIC, reducing_gap=1.0)


def build_thumbnails(
    img: Image.Image, content_hash: str, cache_dir: str | os.PathLike[str], *, preview: bool = True
) -> tuple[Thumbs, Image.Image]:
    """Write the cache files from one decoded image; returns them and the 256 px image written.

    With preview=False only the thumbnail is written (ensure_thumbnails adds the preview later).
    """
    thumbs = thumb_paths(content_hash, cache_dir)
    if preview:
        img = fit_within(img, PREVIEW_SIDE)
        save_jpeg_atomic(img, thumbs.preview_path, PREVIEW_QUALITY)
    small = fit_within(img, THUMB_SIDE)
    save_jpeg_atomic(small, thumbs.thumb_path, THUMB_QUALITY)
    return thumbs, small


def decode_for_thumbnails(path: str | bytes | os.PathLike[str]) -> Decoded:
    """The one decode both cache files are built from: DCT-scaled to about preview size."""
    return decode_bytes(read_bytes(path), os.fsdecode(path), PREVIEW_SIDE, PREVIEW_DRAFT_SIDE)


def ensure_thumbnails(
    path: str | bytes | os.PathLike[str], content_hash: str, cache_dir: str | os.PathLike[str]
) -> Thumbs:
    """Make the 256 px thumbnail and ~1024 px preview unless cached; DecodeError when undecodable."""
    thumbs = thumb_paths(content_hash, cache_dir)
    if thumbs.exist():
        touch(thumbs.preview_path)
        return thumbs
    if thumbs.preview_path.is_file():  # only the small one is missing: derive it from the preview
        with Image.open(thumbs.preview_path) as preview:
            save_jpeg_atomic(fit_within(preview.convert("RGB"), THUMB_SIDE), thumbs.thumb_path, THUMB_QUALITY)
        return thumbs
    return build_thumbnails(decode_for_thumbnails(path).image, content_hash, cache_dir)[0]


def ensure_thumbnail(
    path: str | bytes | os.PathLike[str], content_hash: str, cache_dir: str | os.PathLike[str]
) -> Path:
    """Only the 256 px thumbnail: from the EXIF-embedded one when it is big enough, else a draft decode."""
    thumbs = thumb_paths(content_hash, cache_dir)
    if thumbs.thumb_path.is_file():
        touch(thumbs.thumb_path)
        return thumbs.thumb_path
    embedded = embedded_exif_thumbnail(path)
    if embedded is None:
        embedded = decode_file(path, THUMB_SIDE).image
    save_jpeg_atomic(fit_within(embedded, THUMB_SIDE), thumbs.thumb_path, THUMB_QUALITY)
    return thumbs.thumb_path


def embedded_exif_thumbnail(path: str | bytes | os.PathLike[str], min_side: int = THUMB_SIDE) -> Image.Image | None:
    """The JPEG thumbnail stored in EXIF IFD1, oriented, when its long side is >= min_side."""
    try:
        with Image.open(path) as img:
            exif = img.getexif()
            ifd1 = exif.get_ifd(_EXIF_IFD1)
            raw_exif = img.info.get("exif")
            orientation = exif.get(0x0112, 1)
        offset, length = ifd1.get(_JPEG_OFFSET), ifd1.get(_JPEG_LENGTH)
        if not (isinstance(raw_exif, bytes) and isinstance(offset, int) and isinstance(length, int)):
            return None
        start = 6 + offset if raw_exif.startswith(b"Exif\x00\x00") else offset
        with Image.open(io.BytesIO(raw_exif[start : start + length])) as small:
            if max(small.size) < min_side:
                return None
            thumb = small.convert("RGB")
        return apply_orientation(thumb, orientation if isinstance(orientation, int) else 1)
    except Exception:  # a damaged embedded thumbnail just means: decode the image instead
        return None


def touch(path: str | os.PathLike[str]) -> None:
    """Note that a cached file was just used (its mtime orders what the cache drops first)."""
    with contextlib.suppress(OSError):
        os.utime(path)


OWNER_FILE = ".aesthete-owner"
"""Names the profile a cache belongs to: only that profile's imports drop files it no longer uses."""
_STALE_TEMP_S = 3600.0


@dataclass(frozen=True)
class CacheTrim:
    """What trim_cache did: files and bytes removed, and the bytes left."""

    removed: int
    removed_bytes: int
    kept_bytes: int


def cache_owner(cache_dir: str | os.PathLike[str]) -> str | None:
    """The profile recorded as owning the cache, or None."""
    try:
        return (Path(cache_dir) / OWNER_FILE).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def claim_cache(cache_dir: str | os.PathLike[str], profile_path: str | os.PathLike[str], *, own: bool = False) -> bool:
    """Record `profile_path` as the cache's owner unless another profile is (or always, with `own`:
    the profile's own cache folder, after the profile was moved); True when it owns the cache."""
    owner, me = cache_owner(cache_dir), os.path.abspath(os.fspath(profile_path))
    if owner is None or (own and owner != me):
        with contextlib.suppress(OSError):
            Path(cache_dir).mkdir(parents=True, exist_ok=True)
            (Path(cache_dir) / OWNER_FILE).write_text(me + "\n", encoding="utf-8")
            return True
    return owner == me


def _cached_files(cache_dir: Path) -> list[tuple[os.DirEntry[str], str]]:
    """Every file in the two-level shard folders with its content hash ("" for a temporary file)."""
    found = []
    with contextlib.suppress(OSError), os.scandir(cache_dir) as tops:
        for top in tops:
            if len(top.name) != 2 or not top.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError), os.scandir(top.path) as shards:
                for shard in shards:
                    if len(shard.name) != 2 or not shard.is_dir(follow_symlinks=False):
                        continue
                    with contextlib.suppress(OSError), os.scandir(shard.path) as files:
                        for entry in files:
                            if entry.is_file(follow_symlinks=False) and entry.name.endswith(".jpg"):
                                name = entry.name
                                found.append((entry, "" if name.startswith(".tmp-") else name.rsplit("_", 1)[0]))
    return found


def trim_cache(cache_dir: str | os.PathLike[str], limit_bytes: int, keep: set[str] | None = None) -> CacheTrim:
    """Bring the cache under `limit_bytes`: first drop files of content not in `keep` (when given) and
    temporary files left by a crash, then the least recently used files until it fits."""
    entries = []
    removed = removed_bytes = 0
    now = time.time()
    for entry, content in _cached_files(Path(cache_dir)):
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        unused = (content == "" and now - info.st_mtime > _STALE_TEMP_S) or (
            content != "" and keep is not None and content not in keep
        )
        if unused:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed, removed_bytes = removed + 1, removed_bytes + info.st_size
            continue
        entries.append((info.st_mtime, info.st_size, entry.path))
    total = sum(size for _, size, _ in entries)
    if total > limit_bytes:
        entries.sort()  # least recently used first
        target = int(limit_bytes * 0.9)  # some room, so the next import does not trim again at once
        for _, size, path in entries:
            if total <= target:
                break
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
                removed, removed_bytes = removed + 1, removed_bytes + size
            total -= size
    return CacheTrim(removed, removed_bytes, total)
