"""Find crops of one frame among many images: plausible pairs first, then a pixel check of each.

A crop (re-exported at any size) keeps its frame's camera, capture moment and sequence number, or
loses them; it never gets different ones. So a frame with a capture time is compared only with
frames of the same camera taken within the same second, and a frame without one with the few
frames whose metadata does not tell them apart and whose colours are closest among those that
could contain it (or be contained in it), found through an index of colour signatures
(imaging.signature_index). The pixel check (imaging.crop_match) runs on stored thumbnails.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Callable, Hashable, MutableMapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

from aesthete_gui.imaging.bursts import UnionFind
from aesthete_gui.imaging.crop_match import Thumb, same_frame
from aesthete_gui.imaging.signature_index import SignatureIndex, candidate_pairs

if TYPE_CHECKING:
    from aesthete_gui.imaging.bursts import Frame

SAME_MOMENT_S = 1.0
"""Capture times closer than this may be one frame (an export may drop the sub-seconds)."""
CANDIDATES_PER_UNTIMED_FRAME = 6
"""A frame without capture time is verified against at most this many frames, the colour-closest."""

_RECENT_VIEWS = 2048
"""Matching views kept in memory by one matcher (about 20 KB each)."""

ThumbLoader = Callable[[Hashable], Thumb | None]
SignatureLoader = Callable[[Hashable], np.ndarray | None]


def _compatible(a: Frame, b: Frame) -> bool:
    """Metadata allows one frame: same camera, moment and sequence number wherever both are known."""
    if a.camera is not None and b.camera is not None and a.camera != b.camera:
        return False
    if a.sequence_number is not None and b.sequence_number is not None and a.sequence_number != b.sequence_number:
        return False
    if a.capture_time is not None and b.capture_time is not None:
        return abs(a.capture_time - b.capture_time) < SAME_MOMENT_S
    return True


def _same_moment_pairs(frames: Sequence[Frame]) -> list[tuple[int, int]]:
    """Pairs of timed frames (same camera) within SAME_MOMENT_S of each other."""
    timed = sorted((f.capture_time, i) for i, f in enumerate(frames) if f.capture_time is not None)
    times = [t for t, _ in timed]
    pairs = []
    for pos, (time, i) in enumerate(timed):
        end = bisect.bisect_left(times, time + SAME_MOMENT_S, lo=pos + 1)
        pairs += [(i, j) for _, j in timed[pos + 1 : end] if _compatible(frames[i], frames[j])]
    return pairs


class ThumbnailMatcher:
    """imaging.bursts.FrameMatcher on thumbnails: `load` gives a frame's matching view from its key
    (None without a thumbnail). Views and verdicts are kept, so grouping again after an import only
    compares the new pairs."""

    def __init__(
        self,
        load: ThumbLoader,
        per_untimed_frame: int = CANDIDATES_PER_UNTIMED_FRAME,
        verdicts: MutableMapping[tuple[Hashable, Hashable], bool | None] | None = None,
        identity: Callable[[Hashable], Hashable] | None = None,
        signatures: SignatureLoader | None = None,
        exhaustive: bool = False,
    ) -> None:
        """`verdicts` may be shared between matchers (and groupings) when `identity` names what a
        frame's pixels are (its content hash, say) rather than the frame. `signatures` gives a
        frame's colour signature without its thumbnail (stored at import); without it the
        thumbnail is read. `exhaustive` compares every pair instead of using the index (the
        reference the index must agree with)."""
        self._load = load
        self._signatures = signatures
        self.exhaustive = exhaustive
        self.signatures_fetched = 0
        """Exact signature comparisons the candidate search made."""
        self._views: OrderedDict[Hashable, Thumb | None] = OrderedDict()  # the recently used ones
        self._histograms: dict[Hashable, np.ndarray | None] = {}
        self._verdicts = {} if verdicts is None else verdicts
        self._alike: dict[tuple[Hashable, Hashable], bool] = {}
        self._identity = identity or (lambda key: key)
        self.per_untimed_frame = per_untimed_frame
        self.comparisons = 0
        """Pixel comparisons made (not answered from memory)."""

    def view(self, key: Hashable) -> Thumb | None:
        """The frame's matching view (loaded again only once it has dropped out of the recent ones)."""
        if key in self._views:
            self._views.move_to_end(key)
            return self._views[key]
        view = self._views[key] = self._load(key)
        if self._signatures is None:  # signatures come from the thumbnails: keep each one seen
            self._histograms[key] = view.histogram if view is not None else None
        if len(self._views) > _RECENT_VIEWS:
            self._views.popitem(last=False)
        return view

    def histogram(self, key: Hashable) -> np.ndarray | None:
        """The frame's colour signature (kept for every frame seen)."""
        if key not in self._histograms:
            stored = self._signatures(key) if self._signatures is not None else None
            if stored is None:  # none stored: the thumbnail's, whether or not its view was loaded before
                view = self.view(key)
                stored = view.histogram if view is not None else None
            self._histograms[key] = stored
        return self._histograms[key]

    def pair(self, a: Frame, b: Frame) -> tuple[Hashable, Hashable]:
        """The key a pair's verdict is kept under: both frames' identities, in order."""
        first_id, second_id = self._identity(a.key), self._identity(b.key)
        return (first_id, second_id) if str(first_id) <= str(second_id) else (second_id, first_id)

    def same_picture(self, a: Frame, b: Frame) -> bool | None:
        """Whether one frame is a crop or a resized copy of the other; None without both thumbnails."""
        pair = self.pair(a, b)
        if pair not in self._verdicts:
            first, second = self.view(a.key), self.view(b.key)
            verdict = None
            if first is not None and second is not None:
                self.comparisons += 1
                verdict = same_frame(first, second)
            self._verdicts[pair] = verdict
        return self._verdicts[pair]

    def same_view(self, a: Frame, b: Frame) -> bool | None:
        """Whether two frames show one view at any exposure (alike_at_any_exposure); None without both
        thumbnails. Verdicts are kept for this matcher's groupings (apart from the crop verdicts)."""
        pair = self.pair(a, b)
        if pair not in self._alike:
            first, second = self.view(a.key), self.view(b.key)
            if first is None or second is None:
                return None
            self.comparisons += 1
            self._alike[pair] = alike_at_any_exposure(first.grey, second.grey)
        return self._alike[pair]

    def crop_links(self, frames: Sequence[Frame], roots: Sequence[int]) -> list[tuple[int, int]]:
        """Index pairs of frames that are crops (or resized copies) of one frame; roots[i] is frame
        i's group so far (pairs within one group are not compared)."""
        groups = UnionFind(len(roots), roots)  # pairs already together are skipped
        links: list[tuple[int, int]] = []
        candidates = _same_moment_pairs(frames)
        untimed = [i for i, f in enumerate(frames) if f.capture_time is None]
        if untimed:
            candidates += _untimed_candidates(frames, untimed, self, groups, self.per_untimed_frame)
        for i, j in candidates:
            if groups.find(i) != groups.find(j) and self.same_picture(frames[i], frames[j]):
                groups.join(i, j)
                links.append((i, j))
        return links


def _untimed_candidates(
    frames: Sequence[Frame], untimed: list[int], matcher: ThumbnailMatcher, groups: UnionFind, per_frame: int
) -> list[tuple[int, int]]:
    """For each frame without capture time, its colour-closest compatible frames of other groups
    (pairs, no repeats), found through the signature index (imaging.signature_index)."""
    signatures = [matcher.histogram(f.key) for f in frames]
    usable = [i for i, h in enumerate(signatures) if h is not None]
    if len(usable) < 2:
        return []
    index = SignatureIndex(np.stack([signatures[i] for i in usable]))  # type: ignore[misc]
    position = {i: p for p, i in enumerate(usable)}

    def admissible(p: int, q: int) -> bool:
        i, j = usable[p], usable[q]
        return groups.find(i) != groups.find(j) and _compatible(frames[i], frames[j])

    wanted = [position[i] for i in untimed if i in position]
    pairs = candidate_pairs(index, wanted, per_frame, admissible, exhaustive=matcher.exhaustive)
    matcher.signatures_fetched += index.fetched
    return [(usable[p], usable[q]) for p, q in pairs]


EXPOSURE_VIEW = (64, 48)
EXPOSURE_RANK_CORRELATION = 0.9
"""Least rank correlation of two frames' grey thumbnails (64 x 48, over the pixels neither has burnt
out or crushed) for one view at two exposures. A change of exposure keeps the order of the tones it
does not clip, so the ranks agree; another picture's do not. Chosen on the tune and held halves (+2 EV
copies: 10th percentile 0.91; distinct photographs whose pHashes lie within 16 bits: none above it);
on 1,236 photographs of the other fifteen splits, 1,146 of their +2 EV copies within 16 bits and this
correlation were found, against 865 by the hash alone, and none of 224 such pairs of distinct photographs."""
EXPOSURE_SHARED = 0.3
"""Least share of the thumbnail neither frame has burnt out or crushed: less leaves too little to compare."""


def alike_at_any_exposure(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two grey thumbnails (8-bit) show one view at any exposure: same shape, and the ranks of
    the tones neither has clipped agree (rank correlation at least EXPOSURE_RANK_CORRELATION)."""
    if (first.shape[0] > first.shape[1]) != (second.shape[0] > second.shape[1]):
        return False  # upright and across: not one view
    from scipy.stats import rankdata

    a, b = (np.asarray(Image.fromarray(g).resize(EXPOSURE_VIEW, Image.Resampling.BOX), dtype=np.float32) for g in (first, second))
    kept = (a > 3) & (a < 252) & (b > 3) & (b < 252)
    if kept.mean() < EXPOSURE_SHARED or a[kept].std() < 1e-6 or b[kept].std() < 1e-6:
        return False  # too little left, or a flat frame: nothing to compare
    # average ranks: the equal tones of a flat sky share one rank instead of an arbitrary order
    return float(np.corrcoef(rankdata(a[kept]), rankdata(b[kept]))[0, 1]) >= EXPOSURE_RANK_CORRELATION
