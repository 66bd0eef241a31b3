"""Burst grouping of the profile's images: stored records turned into imaging.bursts frames, with
crops of one frame recognised on the stored thumbnails; and the best frame of each burst."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache, partial

import numpy as np
from PIL import Image

from aesthete_gui.imaging.bursts import Frame, group_bursts
from aesthete_gui.imaging.crop_groups import DeferringMatcher, ThumbnailMatcher
from aesthete_gui.imaging.crop_match import Thumb, load_thumb, same_frame
from aesthete_gui.imaging.thumbnails import ensure_thumbnail
from aesthete_gui.services.burst_choice import burst_merit
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


def _thumb_for(thumbs: dict[int, str | None], key: Hashable) -> Thumb | None:
    return thumb_view(thumbs.get(key))  # type: ignore[call-overload]


_VERDICTS: dict[tuple[Hashable, Hashable], bool | None] = {}
"""Crop verdicts by pair of thumbnail paths (thumbnails are named by content), for groupings made
without a profile: a regrouping in the same process compares only new pairs."""
_MAX_VERDICTS = 500_000


def automatic_burst_groups(images: Sequence[ImageRecord], matcher: ThumbnailMatcher | None = None) -> list[list[int]]:
    """Image ids grouped into bursts by capture time, sequence number and perceptual hash, with
    crops and resized copies of one frame joining that frame's group (checked on the thumbnails)."""
    if matcher is None:
        if len(_VERDICTS) > _MAX_VERDICTS:
            _VERDICTS.clear()
        thumbs = {image.id: image.thumb_path for image in images}
        matcher = ThumbnailMatcher(partial(_thumb_for, thumbs), verdicts=_VERDICTS, identity=thumbs.get)
    frames = [frame_for(i) for i in images]
    return [[int(k) for k in group] for group in group_bursts(frames, matcher=matcher)]  # type: ignore[call-overload]


class _RememberedVerdicts(dict[tuple[Hashable, Hashable], bool | None]):
    """The profile's stored crop verdicts; what is learnt while grouping is collected in `learnt`."""

    def __init__(self, stored: Mapping[tuple[str, str], bool]) -> None:
        super().__init__(stored)
        self.learnt: dict[tuple[str, str], bool] = {}

    def __setitem__(self, pair: tuple[Hashable, Hashable], verdict: bool | None) -> None:
        super().__setitem__(pair, verdict)
        if verdict is not None:  # "no thumbnail to compare" may change: not remembered
            self.learnt[pair] = verdict  # type: ignore[index]


def _identity(image: ImageRecord) -> str:
    """What a frame's pixels are: its content hash (an image without one stands for itself)."""
    return image.content_hash or f"image:{image.id}"


FrameFiles = tuple[str | None, str, str | None]
"""What a pixel comparison needs of a frame, picklable: (thumbnail path, file path, content hash)."""
PairComparer = Callable[[list[tuple[FrameFiles, FrameFiles]]], list[bool | None]]
"""Compares pairs of frames (in worker processes, say); one verdict per pair, in order."""
MAX_ROUNDS = 50
"""Groupings with comparisons deferred before the rest is compared in this process."""


def frame_view(files: FrameFiles, cache_dir: str | os.PathLike[str] | None) -> Thumb | None:
    """A frame's matching view from its thumbnail, made again from its file when the cache dropped it."""
    thumb_path, path, content_hash = files
    view = thumb_view(thumb_path)
    if view is None and cache_dir is not None and content_hash and os.path.isfile(path):
        with contextlib.suppress(Exception):  # an unreadable file: no comparison, as before
            view = thumb_view(str(ensure_thumbnail(path, content_hash, cache_dir)))
    return view


def compare_frames(pairs: Sequence[tuple[FrameFiles, FrameFiles]], cache_dir: str | os.PathLike[str] | None) -> list[bool | None]:
    """Pixel verdicts of pairs of frames (None where a thumbnail is missing); runs in any process."""
    verdicts: list[bool | None] = []
    for first, second in pairs:
        a, b = frame_view(first, cache_dir), frame_view(second, cache_dir)
        verdicts.append(None if a is None or b is None else same_frame(a, b))
    return verdicts


def library_burst_groups(
    profile: Profile,
    cache_dir: str | os.PathLike[str] | None = None,
    matcher_options: Mapping[str, object] | None = None,
    compare: PairComparer | None = None,
) -> tuple[list[list[int]], ThumbnailMatcher]:
    """automatic_burst_groups over the profile's images with what the profile remembers: each image's
    colour signature (the candidate search reads no thumbnail) and every pixel verdict made before
    (only new pairs are compared, and what they show is stored). A thumbnail dropped from the cache
    is made again from its file when a comparison needs it.

    The pixel comparisons are collected by grouping with them deferred, handed to `compare` all at
    once (the import passes its worker pool; by default they run here), and grouping runs again
    until it asks nothing new: the groups are those of comparing pair by pair. Returns the groups
    and the last matcher (its `comparisons`: every comparison made)."""
    images = profile.images(status="ok")
    records = {image.id: image for image in images}
    signatures = profile.signatures()
    missing = {image.content_hash: image.thumb_path for image in images
               if image.content_hash and image.content_hash not in signatures}  # fmt: skip
    if missing:  # a profile imported before signatures were stored: measured once, from the thumbnails
        measured = {h: view.histogram for h, path in missing.items() if (view := thumb_view(path)) is not None}
        profile.put_signatures(measured.items())
        signatures.update(measured)
    files = {image.id: (image.thumb_path, image.path, image.content_hash) for image in images}
    compare = compare or partial(compare_frames, cache_dir=cache_dir)

    def signature(key: Hashable) -> np.ndarray | None:
        content = records[key].content_hash  # type: ignore[index]
        return signatures.get(content) if content else None

    def load(key: Hashable) -> Thumb | None:
        return frame_view(files[key], cache_dir)  # type: ignore[index]

    verdicts = _RememberedVerdicts(profile.crop_verdicts())
    identities = {image.id: _identity(image) for image in images}
    options = {"verdicts": verdicts, "identity": identities.__getitem__, "signatures": signature, **dict(matcher_options or {})}
    compared = 0
    for _ in range(MAX_ROUNDS):
        deferring = DeferringMatcher(load, **options)  # type: ignore[arg-type]
        groups = automatic_burst_groups(images, deferring)
        if not deferring.asked:
            break
        found = compare([(files[a], files[b]) for a, b in deferring.asked])  # type: ignore[index]
        for (a, b), verdict in zip(deferring.asked, found, strict=True):
            verdicts[deferring.pair(Frame(a), Frame(b))] = verdict
        compared += len(found)
    else:  # still asking: compare the rest here, pair by pair
        matcher = ThumbnailMatcher(load, **options)  # type: ignore[arg-type]
        groups = automatic_burst_groups(images, matcher)
        compared += matcher.comparisons
    if verdicts.learnt:
        profile.put_crop_verdicts(verdicts.learnt)
    deferring.comparisons = compared
    return groups, deferring


def best_frames(profile: Profile, scorer_id: str | None) -> dict[int, int]:
    """The best frame (burst_merit, the overall score of `scorer_id`) of every burst, by burst id;
    ties go to the first frame by path, as in the grid."""
    from aesthete_gui.imaging.bursts import stored_culling_rank
    from aesthete_gui.services.library_checks import checks_version

    marks = profile.marks()
    checks = profile.all_checks(checks_version())
    scores = profile.scores(scorer_id) if scorer_id else {}
    paths = {image.id: image.path for image in profile.images()}
    best: dict[int, int] = {}
    for burst in profile.bursts():
        def merit(image_id: int) -> tuple:
            mark = marks.get(image_id)
            rank = stored_culling_rank(*checks[image_id]) if image_id in checks else ()
            return burst_merit(mark.flag if mark else None, rank, (scores.get(image_id) or {}).get("overall"),
                               mark.stars if mark else 0)  # fmt: skip

        frames = sorted(burst.image_ids, key=lambda i: paths.get(i, ""))
        if frames:
            best[burst.id] = max(frames, key=merit)
    return best
