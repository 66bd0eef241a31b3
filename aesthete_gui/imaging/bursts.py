"""Group frames shot in quick succession and near-identical frames into bursts (pure functions);
the best frame of a group is chosen in imaging/best_frame.py."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from aesthete_gui.imaging.hashing import hamming

DEFAULT_MAX_GAP_S = 1.5
"""Frames at most this far apart (seconds, sub-seconds counted) are candidates for one burst."""
DEFAULT_LOOSE_HAMMING = 24
"""Within the gap, frames still need a loosely similar pHash (a burst may pan, not jump scenes)."""
DEFAULT_STRICT_HAMMING = 8
"""Near-identical frames (pHash distance <= this) join a burst even with a longer gap ..."""
DEFAULT_SIMILAR_WINDOW_S = 10.0
"""... as long as they were taken within this many seconds of each other."""
DEFAULT_MAX_SEQUENCE_STEP = 2
"""When both frames have sequence numbers, a burst needs them (nearly) consecutive."""
EXPOSURE_HAMMING = 16
"""Within similar_window_s, frames whose pHashes differ by more than strict_hamming but at most this
join when the matcher finds them one view at another exposure: brightening by 2 EV burns highlights
out and moves the hash (on the tune and held halves only 107 of 172 +2 EV copies stayed within 8
bits; 160 are within 16 and pass the pixel test, and no two distinct photographs do)."""
DUPLICATE_HAMMING = 4
"""Frames this alike (pHash bits) are one picture saved again (another size, a re-export) and group
together even without capture times: the hash is made from a 256 px thumbnail, so size drops out."""
_ALL_BITS = 0xFFFF_FFFF_FFFF_FFFF


class FrameMatcher(Protocol):
    """Pixel evidence that two frames are one picture (imaging.crop_groups.ThumbnailMatcher)."""

    def same_picture(self, a: Frame, b: Frame) -> bool | None:
        """True / False when the pixels say so, None when they cannot be compared."""

    def crop_links(self, frames: Sequence[Frame], roots: list[int]) -> Sequence[tuple[int, int]]:
        """Index pairs of frames that are crops of one frame; roots[i] is frame i's group so far."""

    def same_view(self, a: Frame, b: Frame) -> bool | None:
        """True / False when the pixels say two frames show one view at any exposure, None when they
        cannot be compared."""


@dataclass(frozen=True)
class Frame:
    """One image as the burst grouping sees it; `key` is whatever identifies it (id or path)."""

    key: Hashable
    capture_time: float | None = None
    sequence_number: int | None = None
    phash: int | None = None
    camera: str | None = None


def _sequence_ok(a: Frame, b: Frame, max_step: int) -> bool:
    if a.sequence_number is None or b.sequence_number is None:
        return True
    return 0 < abs(b.sequence_number - a.sequence_number) <= max_step


def _looks_alike(a: Frame, b: Frame, limit: int) -> bool:
    if a.phash is None or b.phash is None:
        return True  # no hash: time (and sequence) alone decide
    return hamming(a.phash, b.phash) <= limit


class UnionFind:
    """Union-find over frame indices, optionally seeded with the group root of each index."""

    def __init__(self, n: int, roots: Sequence[int] | None = None) -> None:
        self.parent = list(roots) if roots is not None else list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            self.parent[max(ri, rj)] = min(ri, rj)


def group_bursts(
    frames: Sequence[Frame],
    *,
    max_gap_s: float = DEFAULT_MAX_GAP_S,
    loose_hamming: int = DEFAULT_LOOSE_HAMMING,
    strict_hamming: int = DEFAULT_STRICT_HAMMING,
    similar_window_s: float = DEFAULT_SIMILAR_WINDOW_S,
    max_sequence_step: int = DEFAULT_MAX_SEQUENCE_STEP,
    min_size: int = 2,
    matcher: FrameMatcher | None = None,
) -> list[list[Hashable]]:
    """Bursts as lists of frame keys in shooting order; frames of different cameras never mix.

    Two neighbouring frames (in time order, same camera) are linked when the gap is <= max_gap_s,
    their sequence numbers (if both known) are consecutive-ish and their pHashes are within
    loose_hamming. Any two frames within similar_window_s whose pHashes are within strict_hamming
    are linked too. Frames without a capture time are linked only through consecutive sequence
    numbers plus a strict pHash match. Linked frames form groups; groups smaller than min_size
    are dropped. Bursts are ordered by their first frame. A `matcher` (pixels of stored thumbnails)
    confirms pHash duplicates without capture times (a stereo pair can share a pHash) and adds
    crops of one frame, which a pHash does not recognise, to their frame's group.
    """
    timed = [i for i, f in enumerate(frames) if f.capture_time is not None]
    timed.sort(key=lambda i: (frames[i].camera or "", frames[i].capture_time, frames[i].sequence_number or 0))
    groups = UnionFind(len(frames))
    _link_timed(frames, timed, groups, max_gap_s, loose_hamming, strict_hamming, similar_window_s, max_sequence_step, matcher)
    _link_untimed(frames, groups, strict_hamming)
    _link_duplicates(frames, groups, matcher, similar_window_s)
    if matcher is not None:
        for i, j in matcher.crop_links(frames, [groups.find(i) for i in range(len(frames))]):
            groups.join(i, j)
    members: dict[int, list[int]] = {}
    for i in range(len(frames)):
        members.setdefault(groups.find(i), []).append(i)
    order = {i: rank for rank, i in enumerate(timed)}
    bursts = []
    for indices in members.values():
        if len(indices) >= min_size:
            indices.sort(key=lambda i: (order.get(i, len(order)), frames[i].sequence_number or 0, i))
            bursts.append(indices)
    bursts.sort(key=lambda g: (order.get(g[0], len(order)), g[0]))
    return [[frames[i].key for i in g] for g in bursts]


def _distinct_shots(a: Frame, b: Frame) -> bool:
    """True when metadata shows two exposures: different times, sequence numbers or cameras."""
    pairs = ((a.capture_time, b.capture_time), (a.sequence_number, b.sequence_number), (a.camera, b.camera))
    return any(x is not None and y is not None and x != y for x, y in pairs)


def _hashes(frames: Sequence[Frame], indices: Sequence[int]) -> np.ndarray:
    """The frames' pHashes as uint64 (0 where a frame has none)."""
    return np.array([(frames[i].phash or 0) & _ALL_BITS for i in indices], dtype=np.uint64)


def _link_timed(
    frames: Sequence[Frame],
    timed: list[int],
    groups: UnionFind,
    max_gap_s: float,
    loose_hamming: int,
    strict_hamming: int,
    similar_window_s: float,
    max_sequence_step: int,
    matcher: FrameMatcher | None = None,
) -> None:
    """Link timed frames (in camera, time order): each to its next frame when the gap, sequence and
    look allow, and to any frame within similar_window_s whose pHash is within strict_hamming, or
    within EXPOSURE_HAMMING when the matcher finds them one view at another exposure.

    Only the frames within reach of each frame's time (a sliding window) are looked at."""
    if len(timed) < 2:
        return
    reach = max(max_gap_s, similar_window_s)
    times = np.array([frames[i].capture_time for i in timed], dtype=np.float64)
    hashes = _hashes(frames, timed)
    hashed = np.array([frames[i].phash is not None for i in timed])
    cameras = [frames[i].camera or "" for i in timed]
    run_end = [0] * len(timed)  # where each frame's camera run ends
    end = len(timed)
    for pos in range(len(timed) - 1, -1, -1):
        if pos + 1 < len(timed) and cameras[pos + 1] != cameras[pos]:
            end = pos + 1
        run_end[pos] = end
    for pos, i in enumerate(timed):
        stop = pos + 1 + int(np.searchsorted(times[pos + 1 : run_end[pos]], times[pos] + reach + 1.0, side="right"))
        if stop <= pos + 1:
            continue
        gaps = times[pos + 1 : stop] - times[pos]
        beyond = np.flatnonzero(gaps > reach)  # the same test as a frame-by-frame walk would make
        if beyond.size:
            stop, gaps = pos + 1 + int(beyond[0]), gaps[: beyond[0]]
        if stop <= pos + 1:
            continue
        a, b = frames[i], frames[timed[pos + 1]]
        if gaps[0] <= max_gap_s and _sequence_ok(a, b, max_sequence_step) and _looks_alike(a, b, loose_hamming):
            groups.join(i, timed[pos + 1])
        if not hashed[pos]:
            continue
        near = hashed[pos + 1 : stop] & (gaps <= similar_window_s)
        bits = np.bitwise_count(hashes[pos + 1 : stop] ^ hashes[pos])
        for k in np.flatnonzero(near & (bits <= strict_hamming)):
            groups.join(i, timed[pos + 1 + int(k)])
        if matcher is None:
            continue
        for k in np.flatnonzero(near & (bits > strict_hamming) & (bits <= EXPOSURE_HAMMING)):
            j = timed[pos + 1 + int(k)]
            if groups.find(i) != groups.find(j) and matcher.same_view(a, frames[j]):
                groups.join(i, j)


def _close_hash_pairs(hashes: np.ndarray, limit: int) -> np.ndarray:
    """(m, 2) index pairs (low, high) of hashes within `limit` bits, found by multi-index hashing:
    two hashes within d bits agree exactly on at least one of d + 1 chunks (pigeonhole), so only
    hashes sharing a chunk are compared (sorted by the chunk, equal runs compared in place)."""
    chunks = limit + 1
    width = -(-64 // chunks)
    found = []
    for chunk in range(chunks):
        keys = (hashes >> np.uint64(chunk * width)) & np.uint64((1 << width) - 1)
        order = np.argsort(keys, kind="stable")
        ordered_keys, ordered = keys[order], hashes[order]
        active = np.arange(len(order) - 1)
        step = 1
        while active.size:
            active = active[ordered_keys[active] == ordered_keys[active + step]]  # still one run
            close = active[np.bitwise_count(ordered[active] ^ ordered[active + step]) <= limit]
            if close.size:
                found.append(np.stack([order[close], order[close + step]], axis=1))
            step += 1
            active = active[active + step < len(order)]
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.sort(np.concatenate(found), axis=1)
    return np.unique(pairs, axis=0)


def _link_duplicates(
    frames: Sequence[Frame], groups: UnionFind, matcher: FrameMatcher | None = None, similar_window_s: float = DEFAULT_SIMILAR_WINDOW_S
) -> None:
    """Join near-identical frames (pHash within DUPLICATE_HAMMING) unless metadata or, with a
    matcher, the pixels tell them apart (candidates from _close_hash_pairs: near-linear)."""
    hashed = [i for i, f in enumerate(frames) if f.phash is not None]
    spans: dict[int, tuple[float, float]] = {}  # each group's first and last capture time
    for k, frame in enumerate(frames):
        if frame.capture_time is not None:
            root, at = groups.find(k), frame.capture_time
            first, last = spans.get(root, (at, at))
            spans[root] = (min(first, at), max(last, at))
    for low, high in _close_hash_pairs(_hashes(frames, hashed), DUPLICATE_HAMMING).tolist():
        i, j = hashed[low], hashed[high]
        a, b = frames[i], frames[j]
        if _distinct_shots(a, b):
            continue
        ri, rj = groups.find(i), groups.find(j)
        if ri != rj and ri in spans and rj in spans and _apart(spans[ri], spans[rj]) > similar_window_s:
            continue  # an untimed copy is no bridge between shots hours apart (an attack: 18 frames over two days)
        if matcher is None or ri == rj or matcher.same_picture(a, b) is not False:
            groups.join(i, j)
            joined = [spans[r] for r in (ri, rj) if r in spans]
            if joined:
                spans[groups.find(i)] = (min(s[0] for s in joined), max(s[1] for s in joined))


def _apart(first: tuple[float, float], second: tuple[float, float]) -> float:
    """Seconds between two spans of capture times (0 when they overlap)."""
    return max(0.0, max(first[0], second[0]) - min(first[1], second[1]))


def _link_untimed(frames: Sequence[Frame], groups: UnionFind, strict_hamming: int) -> None:
    """Frames without a time: consecutive sequence numbers (same camera) with near-identical pHash."""
    untimed = [i for i, f in enumerate(frames) if f.capture_time is None and f.sequence_number is not None]
    untimed.sort(key=lambda i: (frames[i].camera or "", frames[i].sequence_number))
    for i, j in itertools.pairwise(untimed):
        a, b = frames[i], frames[j]
        same_camera = (a.camera or "") == (b.camera or "")
        first, second = a.sequence_number, b.sequence_number  # both known: `untimed` keeps only those
        consecutive = first is not None and second is not None and second - first == 1
        both_hashed = a.phash is not None and b.phash is not None
        if same_camera and consecutive and both_hashed and _looks_alike(a, b, strict_hamming):
            groups.join(i, j)
