"""Pair planning: degree-uniform connected budgets, position balancing, quality filters (docs/method.md §5).

The budget sampler follows seed 004's algorithm 1: a random spanning tree (Kruskal over random edge
weights) keeps every item connected, then edges are added one at a time choosing, among the pairs
not yet planned, those that minimise the larger endpoint degree, then the degree sum (random among
equals). The non-transitivity diagnostic is the share of decided preferences that are feedback arcs
of the best ordering found (exact for small sets, greedy plus local improvement beyond that).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import PairwiseJudgment

UNCERTAIN_LOW = 0.4
UNCERTAIN_HIGH = 0.6
NON_TRANSITIVE_THRESHOLD = 0.15
_EXACT_ORDER_LIMIT = 10


def default_budget(n_items: int) -> int:
    """The O(k log k) per-set budget: ⌈k·ln k⌉ pairs, kept between k − 1 and all C(k, 2) pairs."""
    if n_items < 2:
        return 0
    total = n_items * (n_items - 1) // 2
    return int(min(total, max(n_items - 1, math.ceil(n_items * math.log(n_items)))))


def _random_spanning_tree(n_items: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    first, second = np.triu_indices(n_items, k=1)
    order = np.argsort(rng.random(first.size), kind="stable")
    parent = list(range(n_items))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    tree: list[tuple[int, int]] = []
    for position in order.tolist():
        u, v = int(first[position]), int(second[position])
        ru, rv = root(u), root(v)
        if ru != rv:
            parent[ru] = rv
            tree.append((u, v))
            if len(tree) == n_items - 1:
                break
    return tree


def degree_uniform_pairs(
    n_items: int, budget: int | None = None, seed: int | np.random.Generator = 0
) -> list[tuple[int, int]]:
    """A connected set of `budget` distinct pairs (i < j) over n items with near-uniform degrees."""
    if n_items < 2:
        return []
    total = n_items * (n_items - 1) // 2
    budget = default_budget(n_items) if budget is None else budget
    if not n_items - 1 <= budget <= total:
        raise ValueError(f"budget must lie within {n_items - 1}..{total} pairs for {n_items} items")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    chosen = _random_spanning_tree(n_items, rng)
    degree = np.zeros(n_items, dtype=np.int64)
    taken = np.zeros((n_items, n_items), dtype=bool)
    np.fill_diagonal(taken, True)
    for u, v in chosen:
        degree[u] += 1
        degree[v] += 1
        taken[u, v] = taken[v, u] = True
    big = 4 * n_items
    while len(chosen) < budget:
        larger = np.maximum.outer(degree, degree)
        key = larger * big + np.add.outer(degree, degree)
        key = np.where(taken, np.iinfo(np.int64).max, key)
        candidates = np.argwhere(np.triu(key == key.min(), k=1))
        u, v = (int(x) for x in candidates[rng.integers(len(candidates))])
        chosen.append((u, v))
        degree[u] += 1
        degree[v] += 1
        taken[u, v] = taken[v, u] = True
    return [(min(u, v), max(u, v)) for u, v in chosen]


def balanced_presentations(
    pairs: Iterable[tuple[Hashable, Hashable]],
    mode: Literal["both", "random"] = "random",
    seed: int | np.random.Generator = 0,
) -> list[tuple[Hashable, Hashable]]:
    """The (shown first, shown second) order for each pair: "both" asks every pair in both orders;
    "random" asks once, choosing the side so that each item is shown first about as often as second."""
    pair_list = list(pairs)
    if mode == "both":
        return [shown for a, b in pair_list for shown in ((a, b), (b, a))]
    if mode != "random":
        raise ValueError(f"unknown balancing mode {mode!r}; expected 'both' or 'random'")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    lead: dict[Hashable, int] = defaultdict(int)  # times shown first minus times shown second
    shown: list[tuple[Hashable, Hashable] | None] = [None] * len(pair_list)
    for position in rng.permutation(len(pair_list)).tolist():
        a, b = pair_list[position]
        if lead[a] < lead[b] or (lead[a] == lead[b] and rng.random() < 0.5):
            first, second = a, b
        else:
            first, second = b, a
        lead[first] += 1
        lead[second] -= 1
        shown[position] = (first, second)
    return [pair for pair in shown if pair is not None]


@dataclass(frozen=True)
class OrderConsistency:
    """How a judge behaves across presentation orders, for one dimension."""

    dimension: str
    pairs_in_both_orders: int
    consistent_pairs: int
    first_shown_win_rate: float | None

    @property
    def consistency(self) -> float | None:
        """Share of pairs judged in both orders whose two verdicts name the same winner (or both tie)."""
        if not self.pairs_in_both_orders:
            return None
        return self.consistent_pairs / self.pairs_in_both_orders


def order_consistency(
    judgments: Iterable[PairwiseJudgment], dimensions: Sequence[str] = DIMENSIONS
) -> dict[str, OrderConsistency]:
    """Per dimension: agreement of verdicts on pairs shown in both orders, and how often the item
    shown first wins among decided verdicts (0.5 means no position bias)."""
    records = [record for record in judgments if record.parsed]
    report: dict[str, OrderConsistency] = {}
    for dimension in dimensions:
        by_pair: dict[frozenset[str], dict[tuple[str, str], list[str]]] = defaultdict(
            lambda: defaultdict(list)
        )
        first_wins = decided = 0
        for record in records:
            winner = record.winner(dimension)
            if winner is None:
                continue
            by_pair[frozenset((record.first, record.second))][(record.first, record.second)].append(winner)
            if winner != "tie":
                decided += 1
                first_wins += winner == record.first
        both = consistent = 0
        for orders in by_pair.values():
            if len(orders) < 2:
                continue
            (one, other) = orders.values()
            both += 1
            consistent += one[0] == other[0]
        report[dimension] = OrderConsistency(
            dimension=dimension,
            pairs_in_both_orders=both,
            consistent_pairs=consistent,
            first_shown_win_rate=first_wins / decided if decided else None,
        )
    return report


@dataclass(frozen=True)
class PairPreference:
    """Aggregated preference for one unordered pair: P(a preferred over b) with ties counted half."""

    a: Hashable
    b: Hashable
    preference: float
    votes: int


def aggregate_preferences(
    rows: Iterable[tuple[Hashable, Hashable, float]],
) -> list[PairPreference]:
    """Pool (a, b, score-for-a) rows per unordered pair, in first-seen order."""
    totals: dict[tuple[Hashable, Hashable], list[float]] = {}
    for a, b, score in rows:
        if (b, a) in totals:
            totals[(b, a)][0] += 1.0 - score
            totals[(b, a)][1] += 1
        else:
            entry = totals.setdefault((a, b), [0.0, 0])
            entry[0] += score
            entry[1] += 1
    return [
        PairPreference(a=a, b=b, preference=total / count, votes=int(count))
        for (a, b), (total, count) in totals.items()
    ]


def drop_uncertain(
    preferences: Iterable[PairPreference], low: float = UNCERTAIN_LOW, high: float = UNCERTAIN_HIGH
) -> list[PairPreference]:
    """Keep only pairs whose aggregate preference lies outside [low, high]."""
    return [entry for entry in preferences if not low <= entry.preference <= high]


def feedback_arc_share(preferences: Iterable[PairPreference]) -> float:
    """Share of decided preferences (≠ 0.5) that no ordering of the items can satisfy together:
    |feedback arcs| / |decided pairs| for the best ordering found (0 = perfectly transitive)."""
    edges = [(p.a, p.b) if p.preference > 0.5 else (p.b, p.a) for p in preferences if p.preference != 0.5]
    if not edges:
        return 0.0
    nodes = sorted({node for edge in edges for node in edge}, key=repr)
    index = {node: i for i, node in enumerate(nodes)}
    beats = np.zeros((len(nodes), len(nodes)), dtype=np.int64)
    for winner, loser in edges:
        beats[index[winner], index[loser]] += 1
    order = _exact_order(beats) if len(nodes) <= _EXACT_ORDER_LIMIT else _greedy_order(beats)
    return _backward_arcs(beats, order) / len(edges)


def is_transitive_enough(
    preferences: Iterable[PairPreference], threshold: float = NON_TRANSITIVE_THRESHOLD
) -> bool:
    """The seed-004 instance filter: keep a set when its feedback-arc share is below `threshold`."""
    return feedback_arc_share(preferences) < threshold


def _backward_arcs(beats: np.ndarray, order: Sequence[int]) -> int:
    position = np.empty(len(order), dtype=np.int64)
    position[list(order)] = np.arange(len(order))
    winners, losers = np.nonzero(beats)
    backward = position[winners] > position[losers]
    return int(beats[winners[backward], losers[backward]].sum())


def _exact_order(beats: np.ndarray) -> list[int]:
    """Minimum feedback arc ordering by dynamic programming over subsets (small sets only)."""
    n = beats.shape[0]
    best_cost = {0: 0}
    best_last: dict[int, int] = {}
    for size in range(1, n + 1):
        for members in combinations(range(n), size):
            mask = sum(1 << m for m in members)
            options = []
            for last in members:
                rest = mask & ~(1 << last)
                # Placing `last` after `rest`: every win of `last` over a member of `rest` is backward.
                cost = best_cost[rest] + sum(int(beats[last, m]) for m in members if m != last)
                options.append((cost, last))
            best_cost[mask], best_last[mask] = min(options)
    order: list[int] = []
    mask = (1 << n) - 1
    while mask:
        last = best_last[mask]
        order.append(last)
        mask &= ~(1 << last)
    return order[::-1]


def _greedy_order(beats: np.ndarray) -> list[int]:
    """Order by net wins, then improve by adjacent swaps until no swap removes a backward arc."""
    net = beats.sum(axis=1) - beats.sum(axis=0)
    order = [int(i) for i in np.argsort(-net, kind="stable")]
    improved = True
    while improved:
        improved = False
        for position in range(len(order) - 1):
            u, v = order[position], order[position + 1]
            if beats[v, u] > beats[u, v]:
                order[position], order[position + 1] = v, u
                improved = True
    return order


def comparison_counts(pairs: Iterable[tuple[int, int]], n_items: int) -> np.ndarray:
    """How many planned comparisons each item takes part in."""
    counts = np.zeros(n_items, dtype=np.int64)
    for u, v in pairs:
        counts[u] += 1
        counts[v] += 1
    return counts
