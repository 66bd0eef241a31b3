"""Which pair to ask the user next: the closest call in the current personal ranking.

The product's rule (`suggest_pairs`): among neighbours in the ranking by the current (adapted) model,
the unjudged pairs with the smallest predicted gap. It measured best in benchmarks/taste.py against
the uncertainty strategy below (`uncertainty_pairs`), which is kept for that comparison.

The uncertainty strategy: the expected information of asking about (a, b) under the adapter's Laplace posterior is, to first
order, p(1 − p)·Var[u(a) − u(b)]: large when the predicted outcome is a toss-up *and* the model's
uncertainty about that gap is large (a pair whose gap the base already knows well teaches little).
Candidates are neighbours in the current ranking (where the order is in doubt) plus random pairs.
Pairs of near-duplicates (perceptual-hash distance at most `min_hamming`) or from the same burst
are never proposed, nor pairs the user already judged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import expit

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.imaging.hashing import hamming
from aesthete_gui.training.personalize import BASE_SLOPE, TasteAdapter, TasteInputs

NEAR_DUPLICATE_HAMMING = 6
"""64-bit perceptual hashes this close are the same picture for the user's purposes."""
CANDIDATE_PAIRS = 4000
NEIGHBOUR_WINDOW = 8
"""Candidates: each image against the next few in the current ranking (where order is in doubt) …"""
EXPLORATION_PAIRS = 500
"""… plus this many random pairs, so the model also tests what it has not ranked near each other."""


def candidate_pairs(
    n: int,
    judged: set[frozenset[int]],
    rng: np.random.Generator,
    hashes: Sequence[int | None] | None = None,
    bursts: Sequence[object | None] | None = None,
    limit: int = CANDIDATE_PAIRS,
    min_hamming: int = NEAR_DUPLICATE_HAMMING,
) -> np.ndarray:
    """Up to `limit` distinct unjudged, non-duplicate pairs (m, 2), all of them when there are few."""
    total = n * (n - 1) // 2
    if total <= limit:
        a, b = np.triu_indices(n, k=1)
    else:
        draws = rng.integers(0, n, size=(limit * 2, 2))
        draws = draws[draws[:, 0] != draws[:, 1]]
        draws.sort(axis=1)
        draws = np.unique(draws, axis=0)
        a, b = draws[:, 0], draws[:, 1]
    keep = np.array(
        [
            not _excluded(i, j, judged, hashes, bursts, min_hamming)
            for i, j in zip(a.tolist(), b.tolist(), strict=True)
        ],
        dtype=bool,
    )
    pairs = np.stack([a[keep], b[keep]], axis=1)
    rng.shuffle(pairs)
    return pairs[:limit]


def ranking_neighbours(
    utility: np.ndarray,
    judged: set[frozenset[int]],
    hashes: Sequence[int | None] | None = None,
    bursts: Sequence[object | None] | None = None,
    window: int = NEIGHBOUR_WINDOW,
    min_hamming: int = NEAR_DUPLICATE_HAMMING,
    allowed: Sequence[bool] | None = None,
) -> np.ndarray:
    """Pairs (m, 2) of images at most `window` places apart in the ranking by `utility`, filtered;
    only images with `allowed` true take part (all when None)."""
    order = np.argsort(utility, kind="stable")
    if allowed is not None:
        order = order[np.asarray(allowed, dtype=bool)[order]]
    rows = [
        (int(order[i]), int(order[i + offset]))
        for offset in range(1, window + 1)
        for i in range(len(order) - offset)
    ]
    kept = [r for r in rows if not _excluded(r[0], r[1], judged, hashes, bursts, min_hamming)]
    return np.array(kept, dtype=np.int64).reshape(-1, 2)


def _excluded(
    i: int,
    j: int,
    judged: set[frozenset[int]],
    hashes: Sequence[int | None] | None,
    bursts: Sequence[object | None] | None,
    min_hamming: int,
) -> bool:
    if frozenset((i, j)) in judged:
        return True
    hash_i = hashes[i] if hashes is not None else None
    hash_j = hashes[j] if hashes is not None else None
    if hash_i is not None and hash_j is not None and hamming(int(hash_i), int(hash_j)) <= min_hamming:
        return True
    return bursts is not None and bursts[i] is not None and bursts[i] == bursts[j]


def uncertainty_pairs(
    adapter: TasteAdapter | None,
    inputs: TasteInputs,
    judged: set[frozenset[int]],
    count: int = 1,
    dimension: str = "overall",
    hashes: Sequence[int | None] | None = None,
    bursts: Sequence[object | None] | None = None,
    seed: int = 0,
) -> list[tuple[int, int, float]]:
    """The `count` pairs with the largest p(1 − p)·Var[u(a) − u(b)] as (a, b, that value), best first.

    With no adapter yet, the untrained prior is used (the base scores with unit-variance residual).
    Each image appears in at most one suggested pair of the batch so a batch spreads over the library.
    """
    rng = np.random.default_rng(seed)
    if adapter is None:
        from aesthete_gui.training.personalize import fit_featurizer

        adapter = TasteAdapter(
            featurizer=fit_featurizer(inputs, embedding_components=8),
            anchored=inputs.base_scores is not None,
            fits={},
        )
    utility = adapter.utilities(inputs, dimension)
    pairs = np.concatenate(
        [
            ranking_neighbours(utility, judged, hashes, bursts),
            candidate_pairs(len(inputs.keys), judged, rng, hashes, bursts, limit=EXPLORATION_PAIRS),
        ]
    )
    if pairs.size == 0:
        return []
    gap = utility[pairs[:, 0]] - utility[pairs[:, 1]]
    variance = adapter.pair_variance(inputs, pairs[:, 0], pairs[:, 1], dimension)
    p = expit(gap / np.sqrt(1.0 + np.pi * variance / 8.0))
    information = p * (1 - p) * variance
    order = np.argsort(-information)
    chosen: list[tuple[int, int, float]] = []
    used: set[int] = set()
    for index in order:
        i, j = int(pairs[index, 0]), int(pairs[index, 1])
        if i in used or j in used:
            continue
        chosen.append((i, j, float(information[index])))
        used.update((i, j))
        if len(chosen) == count:
            break
    return chosen


def suggest_pairs(
    adapter: TasteAdapter | None,
    inputs: TasteInputs,
    judged: set[frozenset[int]],
    count: int = 1,
    dimension: str = "overall",
    hashes: Sequence[int | None] | None = None,
    bursts: Sequence[object | None] | None = None,
    allowed: Sequence[bool] | None = None,
) -> list[tuple[int, int, float]]:
    """The next `count` pairs as (a, b, p(1 − p)), closest predicted call first.

    Neighbours in the ranking by the current model (the base scores while no adapter is trained)
    with the smallest predicted gap; judged pairs, near-duplicates and burst mates are skipped, and
    each image appears in at most one pair of the batch. Images with `allowed` false (rejected,
    too small to judge) are never offered.
    """
    if adapter is None:
        utility = _prior_utility(inputs, dimension)
    else:
        utility = adapter.utilities(inputs, dimension)
    pairs = ranking_neighbours(utility, judged, hashes, bursts, window=1, allowed=allowed)
    if pairs.size == 0:
        return []
    gap = np.abs(utility[pairs[:, 0]] - utility[pairs[:, 1]])
    p = expit(gap)
    chosen: list[tuple[int, int, float]] = []
    used: set[int] = set()
    for index in np.argsort(gap, kind="stable"):
        i, j = int(pairs[index, 0]), int(pairs[index, 1])
        if i in used or j in used:
            continue
        chosen.append((i, j, float(p[index] * (1 - p[index]))))
        used.update((i, j))
        if len(chosen) == count:
            break
    return chosen


def _prior_utility(inputs: TasteInputs, dimension: str) -> np.ndarray:
    """Before any training: the base scores on the adapter's logit scale (all equal without a scorer)."""
    if inputs.base_scores is None:
        return np.zeros(len(inputs.keys))
    return BASE_SLOPE * inputs.base_scores[:, DIMENSIONS.index(dimension)].astype(float)
