"""Grouping through indexes (time windows, pHash chunks, a k-d tree of colour signatures) gives the
same groups as the plain all-pairs method it replaced, on a few hundred frames of real photographs,
and the candidate search nearly always proposes the very pairs comparing everything would."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence

import numpy as np
import pytest
from PIL import Image

from aesthete_gui.imaging.bursts import (
    DUPLICATE_HAMMING,
    Frame,
    UnionFind,
    _distinct_shots,
    _link_untimed,
    _looks_alike,
    _sequence_ok,
    group_bursts,
)
from aesthete_gui.imaging.crop_groups import ThumbnailMatcher
from aesthete_gui.imaging.crop_match import Thumb, load_thumb
from aesthete_gui.imaging.hashing import hamming, perceptual_hash
from aesthete_gui.imaging.signature_index import (
    SignatureIndex,
    candidate_pairs,
    exhaustive_candidates,
)
from tests.imaging.conftest import photo

SOURCES = ("astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field")


def _variant(rng: np.random.Generator, img: Image.Image) -> Image.Image:
    """A random view of `img`: a crop of 45-100 % of each side, a colour cast and a brightness shift."""
    side = float(rng.uniform(0.45, 1.0))
    w, h = max(16, round(img.width * side)), max(16, round(img.height * side))
    x, y = int(rng.integers(0, img.width - w + 1)), int(rng.integers(0, img.height - h + 1))
    pixels = np.asarray(img.crop((x, y, x + w, y + h)), np.float32) * rng.uniform(0.6, 1.4, 3) + rng.uniform(-30, 30)
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


@pytest.fixture(scope="module")
def sources() -> list[Image.Image]:
    return [photo((320, 240), name) for name in SOURCES]


def test_the_index_proposes_nearly_the_candidates_of_comparing_every_pair(sources) -> None:
    rng = np.random.default_rng(4)
    histograms = np.stack([load_thumb(_variant(rng, sources[n % len(sources)])).histogram for n in range(600)])
    histograms[7] = histograms[3]  # identical signatures: ties are broken by position in both

    def admissible(p: int, q: int) -> bool:  # as if every seventh frame were one group already
        return p % 7 != q % 7 or p == q

    index = SignatureIndex(histograms)
    frames = list(range(len(histograms)))
    indexed = index.closest_many(frames, 6, admissible)
    everything = SignatureIndex(histograms)  # its own count of comparisons
    reference = [exhaustive_candidates(everything, p, 6, admissible) for p in frames]
    identical = sum(a == b for a, b in zip(indexed, reference, strict=True)) / len(frames)
    recall = sum(len(set(a) & set(b)) for a, b in zip(indexed, reference, strict=True)) / sum(map(len, reference))
    assert identical >= 0.9 and recall >= 0.98, (identical, recall)
    assert all(len(found) == 6 for found in indexed)
    assert index.fetched < len(frames) * len(frames) / 2  # it did not compare everything


def test_a_small_library_is_compared_in_full(sources) -> None:
    rng = np.random.default_rng(5)
    histograms = np.stack([load_thumb(_variant(rng, sources[n % len(sources)])).histogram for n in range(200)])
    index = SignatureIndex(histograms)
    frames = list(range(len(histograms)))
    assert candidate_pairs(index, frames, 6, lambda p, q: True) == candidate_pairs(index, frames, 6, lambda p, q: True, exhaustive=True)


def reference_group_bursts(frames: Sequence[Frame], matcher: ThumbnailMatcher) -> list[list[Hashable]]:
    """Today's method before the indexes, written as directly as it reads: every timed pair within
    reach, every pair of pHashes, the colour-closest candidates by comparing every pair."""
    timed = sorted((i for i, f in enumerate(frames) if f.capture_time is not None),
                   key=lambda i: (frames[i].camera or "", frames[i].capture_time, frames[i].sequence_number or 0))  # fmt: skip
    groups = UnionFind(len(frames))
    for pos, i in enumerate(timed):
        a = frames[i]
        for j in timed[pos + 1 :]:
            b = frames[j]
            if (b.camera or "") != (a.camera or "") or b.capture_time - a.capture_time > 10.0:  # type: ignore[operator]
                break
            gap = b.capture_time - a.capture_time  # type: ignore[operator]
            quick = j == timed[pos + 1] and gap <= 1.5 and _sequence_ok(a, b, 2) and _looks_alike(a, b, 24)
            strict = a.phash is not None and b.phash is not None and gap <= 10.0 and hamming(a.phash, b.phash) <= 8
            if quick or strict:
                groups.join(i, j)
    _link_untimed(frames, groups, 8)
    for i, j in itertools.combinations(range(len(frames)), 2):
        a, b = frames[i], frames[j]
        if a.phash is None or b.phash is None or _distinct_shots(a, b) or hamming(a.phash, b.phash) > DUPLICATE_HAMMING:
            continue
        if groups.find(i) == groups.find(j) or matcher.same_picture(a, b) is not False:
            groups.join(i, j)
    for i, j in matcher.crop_links(frames, [groups.find(i) for i in range(len(frames))]):
        groups.join(i, j)
    members: dict[int, list[int]] = {}
    for i in range(len(frames)):
        members.setdefault(groups.find(i), []).append(i)
    order = {i: rank for rank, i in enumerate(timed)}
    bursts = [sorted(m, key=lambda i: (order.get(i, len(order)), frames[i].sequence_number or 0, i))
              for m in members.values() if len(m) >= 2]  # fmt: skip
    bursts.sort(key=lambda g: (order.get(g[0], len(order)), g[0]))
    return [[frames[i].key for i in g] for g in bursts]


def _library(sources: list[Image.Image], rng: np.random.Generator) -> tuple[list[Frame], dict[int, Thumb]]:
    """~300 frames: timed bursts (two cameras), untimed crops and resized copies, colour variants,
    near-duplicates, frames with sequence numbers only, frames without a pHash."""
    frames: list[Frame] = []
    views: dict[int, Thumb] = {}

    def add(img: Image.Image, **fields: object) -> None:
        key = len(frames)
        small = img.copy()
        small.thumbnail((256, 256))
        views[key] = load_thumb(small)
        phash = fields.pop("phash", perceptual_hash(small))
        frames.append(Frame(key, phash=phash, **fields))  # type: ignore[arg-type]

    clock = 1000.0
    for burst in range(24):  # timed bursts: small shifts of one view, 0.2-2 s apart, two cameras
        base = _variant(rng, sources[burst % len(sources)])
        camera = ("A7 IV", "R5", None)[burst % 3]
        for _shot in range(int(rng.integers(2, 7))):
            clock += float(rng.choice([0.2, 0.4, 1.2, 2.0, 6.0]))
            dx = int(rng.integers(0, 6))
            add(base.crop((dx, 0, base.width - 6 + dx, base.height)), capture_time=clock, camera=camera,
                sequence_number=100 + len(frames) if burst % 4 else None)  # fmt: skip
        clock += float(rng.uniform(5, 60))
    for n in range(120):  # untimed: views, crops and resized copies of the same photographs
        img = _variant(rng, sources[n % len(sources)])
        add(img)
        if n % 5 == 0:
            add(img.crop((img.width // 6, img.height // 5, img.width, img.height)))
        if n % 9 == 0:
            add(img.resize((max(16, img.width * 3 // 5), max(16, img.height * 3 // 5))))
    for n in range(20):  # sequence numbers without times, and frames without a hash
        img = _variant(rng, sources[n % len(sources)])
        add(img, sequence_number=500 + n // 2 * 3 + n % 2, camera="X-T5")
        add(img, phash=None)
    return frames, views


def test_grouping_through_the_indexes_equals_the_all_pairs_reference(sources) -> None:
    frames, views = _library(sources, np.random.default_rng(11))
    verdicts: dict[tuple[Hashable, Hashable], bool | None] = {}  # pixel verdicts shared: compared once
    reference = reference_group_bursts(frames, ThumbnailMatcher(views.get, verdicts=verdicts, exhaustive=True))
    matcher = ThumbnailMatcher(views.get, verdicts=verdicts)
    indexed = group_bursts(frames, matcher=matcher)
    assert indexed == reference
    assert len(reference) >= 20 and any(len(g) >= 3 for g in reference)
    assert any(all(frames[k].capture_time is None for k in g) for g in reference)  # untimed crops grouped
    assert 0 < matcher.signatures_fetched < len(frames) ** 2 // 2

