"""Burst grouping of the profile's images: stored records turned into imaging.bursts frames, with
crops of one frame recognised on the stored thumbnails; and the best frame of each burst."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Hashable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache, partial
from typing import Any, cast

import numpy as np
from PIL import Image

from aesthete_gui.imaging.bursts import Frame, group_bursts
from aesthete_gui.imaging.crop_groups import ThumbnailMatcher
from aesthete_gui.imaging.crop_match import COLOUR_BINS, LUMA_BINS, Thumb, load_thumb
from aesthete_gui.imaging.photo_units import exposures
from aesthete_gui.imaging.thumbnails import ensure_thumbnail
from aesthete_gui.services.burst_choice import cover_merit
from aesthete_gui.store import ImageRecord, Profile


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


@lru_cache(maxsize=4096)
def _thumb_view(path: str, mtime_ns: int) -> Thumb | None:
    """The matching view of a cached thumbnail (~20 KB; the recent ones are kept across regroupings)."""
    try:
        with Image.open(path) as image:
            return load_thumb(image)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


def thumb_view(thumb_path: str | None) -> Thumb | None:
    """The crop-matching view of an image's stored thumbnail; None when it has none (or it is unreadable)."""
    if not thumb_path:
        return None
    try:
        mtime_ns = os.stat(thumb_path).st_mtime_ns
    except OSError:
        return None
    return _thumb_view(thumb_path, mtime_ns)


def _thumb_for(thumbs: dict[Hashable, str | None], key: Hashable) -> Thumb | None:
    return thumb_view(thumbs.get(key))


_VERDICTS: dict[tuple[Hashable, Hashable], bool | None] = {}
"""Crop verdicts by pair of thumbnail paths (thumbnails are named by content), for groupings made
without a profile: a regrouping in the same process compares only new pairs."""
_MAX_VERDICTS = 500_000


def pair_halves(images: Sequence[ImageRecord]) -> dict[int, list[int]]:
    """The other halves of each RAW+JPEG pair among `images` (imaging.photo_units.exposures), by
    the id of the half that stands for the exposure (its JPEG or HEIF)."""
    by_path = {image.path: image.id for image in images}
    return {by_path[group[0]]: [by_path[p] for p in group[1:]]
            for group in exposures([image.path for image in images]) if len(group) > 1}  # fmt: skip


def automatic_burst_groups(images: Sequence[ImageRecord], matcher: ThumbnailMatcher | None = None) -> list[list[int]]:
    """Image ids grouped into bursts by capture time, sequence number and perceptual hash, with
    crops and resized copies of one frame joining that frame's group (checked on the thumbnails).

    The two halves of a RAW+JPEG pair are one exposure, never two frames of a burst: the JPEG stands
    for the pair while grouping, and its RAW joins whatever burst the JPEG is in (right after it),
    so a pair alone is no burst."""
    partners = pair_halves(images)
    hidden = {i for halves in partners.values() for i in halves}
    shown = [image for image in images if image.id not in hidden]
    if matcher is None:
        if len(_VERDICTS) > _MAX_VERDICTS:
            _VERDICTS.clear()
        thumbs: dict[Hashable, str | None] = {image.id: image.thumb_path for image in shown}
        matcher = ThumbnailMatcher(partial(_thumb_for, thumbs), verdicts=_VERDICTS, identity=thumbs.get)
    frames = [frame_for(i) for i in shown]
    groups = group_bursts(frames, matcher=matcher)
    # the frames' keys are the image ids given in frame_for; a pair's RAW follows its JPEG
    return [[i for k in group for i in (cast(int, k), *partners.get(cast(int, k), ()))] for group in groups]


class _RememberedVerdicts(dict[tuple[Hashable, Hashable], bool | None]):
    """The profile's stored crop verdicts; what is learnt while grouping is collected in `learnt`."""

    def __init__(self, stored: Mapping[tuple[str, str], bool]) -> None:
        super().__init__(stored.items())
        self.learnt: dict[tuple[str, str], bool] = {}

    def __setitem__(self, pair: tuple[Hashable, Hashable], verdict: bool | None) -> None:
        super().__setitem__(pair, verdict)
        if verdict is not None:  # "no thumbnail to compare" may change: not remembered
            first, second = pair  # identities: content hashes (see _identity)
            self.learnt[(str(first), str(second))] = verdict


def _identity(image: ImageRecord) -> str:
    """What a frame's pixels are: its content hash (an image without one stands for itself)."""
    return image.content_hash or f"image:{image.id}"


def frame_view(image: ImageRecord, cache_dir: str | os.PathLike[str] | None) -> Thumb | None:
    """An image's matching view from its thumbnail, made again from its file when the cache dropped it."""
    view = thumb_view(image.thumb_path)
    if view is None and cache_dir is not None and image.content_hash and os.path.isfile(image.path):
        with contextlib.suppress(Exception):  # an unreadable file: no comparison, as before
            view = thumb_view(str(ensure_thumbnail(image.path, image.content_hash, cache_dir)))
    return view


def library_burst_groups(
    profile: Profile, cache_dir: str | os.PathLike[str] | None = None, matcher_options: Mapping[str, Any] | None = None
) -> tuple[list[list[int]], ThumbnailMatcher]:
    """automatic_burst_groups over the profile's images with what the profile remembers: each image's
    colour signature (the candidate search reads no thumbnail) and every pixel verdict made before
    (only new pairs are compared, and what they show is stored). A thumbnail dropped from the cache
    is made again from its file when a comparison needs it. Returns the groups and the matcher used."""
    images = profile.catalog.images(status="ok")
    records: dict[Hashable, ImageRecord] = {image.id: image for image in images}
    length = COLOUR_BINS**3 + LUMA_BINS  # a stored signature of another length is measured again
    signatures = {h: v for h, v in profile.grouping.signatures().items() if v.size == length}
    missing = {image.content_hash: image.thumb_path for image in images
               if image.content_hash and image.content_hash not in signatures}  # fmt: skip
    if missing:  # a profile imported before signatures were stored: measured once, from the thumbnails
        measured = {h: view.histogram for h, path in missing.items() if (view := thumb_view(path)) is not None}
        profile.grouping.put_signatures(measured.items())
        signatures.update(measured)

    def signature(key: Hashable) -> np.ndarray | None:
        content = records[key].content_hash
        return signatures.get(content) if content else None

    verdicts = _RememberedVerdicts(profile.grouping.crop_verdicts())
    identities: dict[Hashable, Hashable] = {image.id: _identity(image) for image in images}
    matcher = ThumbnailMatcher(lambda key: frame_view(records[key], cache_dir), verdicts=verdicts,
                               identity=identities.__getitem__, signatures=signature, **dict(matcher_options or {}))  # fmt: skip
    groups = automatic_burst_groups(images, matcher)
    if verdicts.learnt:
        profile.grouping.put_crop_verdicts(verdicts.learnt)
    return groups, matcher


def group_profile(profile_path: str, cache_dir: str | os.PathLike[str] | None) -> list[list[int]]:
    """library_burst_groups of the profile at `profile_path`, opened here: the import runs it in one
    of its worker processes, so the pixel comparisons never compete with a window for the
    interpreter of the process that shows it."""
    from aesthete_gui.store import open_profile

    profile = open_profile(profile_path)
    try:
        return library_burst_groups(profile, cache_dir)[0]
    finally:
        profile.close()


def best_frames(profile: Profile, scorer_id: str | None) -> dict[int, int]:
    """The frame each burst shows, by burst id: the one the user marked, else the best (cover_merit,
    with the overall score of `scorer_id`); ties go to the first frame by path, as in the grid."""
    from aesthete_gui.imaging.best_frame import stored_culling_rank

    marks = profile.marks.all()
    checks = profile.checks.all()
    scores = profile.scores.of_scorer(scorer_id) if scorer_id else {}
    paths = {image.id: image.path for image in profile.catalog.images()}
    best: dict[int, int] = {}
    for burst in profile.catalog.bursts():
        def merit(image_id: int) -> tuple:
            mark = marks.get(image_id)
            rank = stored_culling_rank(*checks[image_id]) if image_id in checks else ()
            return cover_merit(mark.flag if mark else None, rank, (scores.get(image_id) or {}).get("overall"),
                               mark.stars if mark else 0, mark.label if mark else None)  # fmt: skip

        frames = sorted(burst.image_ids, key=lambda i: paths.get(i, ""))
        if frames:
            best[burst.id] = max(frames, key=merit)
    return best
