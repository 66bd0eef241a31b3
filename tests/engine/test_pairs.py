"""Pair planning: degree-uniform connected budgets, position balancing, quality filters."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aesthete_gui.engine.judgments import PairwiseJudgment
from aesthete_gui.engine.pairs import (
    PairPreference,
    aggregate_preferences,
    balanced_presentations,
    comparison_counts,
    default_budget,
    degree_uniform_pairs,
    drop_uncertain,
    feedback_arc_share,
    is_transitive_enough,
    order_consistency,
)


def _connected(n: int, pairs: list[tuple[int, int]]) -> bool:
    reached, frontier = {0}, [0]
    neighbours: dict[int, set[int]] = {i: set() for i in range(n)}
    for u, v in pairs:
        neighbours[u].add(v)
        neighbours[v].add(u)
    while frontier:
        node = frontier.pop()
        for other in neighbours[node] - reached:
            reached.add(other)
            frontier.append(other)
    return len(reached) == n


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=25), st.data())
def test_budgets_are_connected_distinct_and_degree_uniform(n, data) -> None:
    total = n * (n - 1) // 2
    budget = data.draw(st.integers(min_value=n - 1, max_value=total))
    pairs = degree_uniform_pairs(n, budget, seed=data.draw(st.integers(0, 1000)))
    assert len(pairs) == len(set(pairs)) == budget
    assert all(0 <= u < v < n for u, v in pairs)
    assert _connected(n, pairs)
    counts = comparison_counts(pairs, n)
    # The tree may leave a few hubs; every added edge goes to the least-compared items, so the
    # spread beyond the tree's own maximum degree stays within one.
    assert counts.min() >= min(counts.max() - 1, 1)
    if budget >= 2 * (n - 1):
        assert counts.max() - counts.min() <= max(2, int(np.ceil(np.log2(n))))


def test_default_budget_is_k_log_k_within_bounds() -> None:
    assert default_budget(1) == 0
    assert default_budget(2) == 1
    assert default_budget(4) == 6  # ⌈4·ln 4⌉ = 6 = all pairs
    assert default_budget(50) == math.ceil(50 * math.log(50))
    pairs = degree_uniform_pairs(50, seed=1)
    counts = comparison_counts(pairs, 50)
    assert counts.max() - counts.min() <= 2


def test_budget_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="budget"):
        degree_uniform_pairs(5, 3)
    with pytest.raises(ValueError, match="budget"):
        degree_uniform_pairs(5, 11)
    assert degree_uniform_pairs(1) == []


def test_balanced_presentations() -> None:
    pairs = [(u, v) for u in range(12) for v in range(u + 1, 12)]
    both = balanced_presentations(pairs, mode="both")
    assert len(both) == 2 * len(pairs)
    assert Counter(frozenset(p) for p in both) == Counter({frozenset(p): 2 for p in pairs})
    shown = balanced_presentations(pairs, mode="random", seed=4)
    assert sorted(frozenset(p) for p in shown) == sorted(frozenset(p) for p in pairs)
    first = Counter(a for a, _ in shown)
    second = Counter(b for _, b in shown)
    assert all(abs(first[i] - second[i]) <= 1 for i in range(12))
    with pytest.raises(ValueError, match="balancing mode"):
        balanced_presentations(pairs, mode="sideways")


def test_order_consistency_reports_agreement_and_position_bias() -> None:
    judgments = [
        PairwiseJudgment("x", "y", {"overall": "A"}),
        PairwiseJudgment("y", "x", {"overall": "B"}),  # same winner x: consistent
        PairwiseJudgment("x", "z", {"overall": "A"}),
        PairwiseJudgment("z", "x", {"overall": "A"}),  # first shown always wins: inconsistent
        PairwiseJudgment("y", "z", {"overall": "TIE"}),
        PairwiseJudgment("y", "z", parsed=False, raw="??"),
    ]
    report = order_consistency(judgments, dimensions=("overall", "mood"))
    overall = report["overall"]
    assert overall.pairs_in_both_orders == 2
    assert overall.consistency == 0.5
    assert overall.first_shown_win_rate == 0.75
    assert report["mood"].consistency is None
    assert report["mood"].first_shown_win_rate is None


def test_aggregation_and_uncertain_filter() -> None:
    rows = [("a", "b", 1.0), ("b", "a", 1.0), ("a", "b", 1.0), ("a", "c", 1.0), ("c", "a", 0.5)]
    preferences = aggregate_preferences(rows)
    by_pair = {(p.a, p.b): p for p in preferences}
    assert by_pair[("a", "b")].preference == pytest.approx(2 / 3)
    assert by_pair[("a", "b")].votes == 3
    assert by_pair[("a", "c")].preference == pytest.approx(0.75)
    mixed = [PairPreference("a", "b", 0.5, 2), PairPreference("a", "c", 0.4, 5), PairPreference("b", "c", 0.9, 3)]
    assert [(p.a, p.b) for p in drop_uncertain(mixed)] == [("b", "c")]


def test_feedback_arc_share_on_cycles_and_orders() -> None:
    transitive = [PairPreference(a, b, 1.0, 1) for a, b in [("a", "b"), ("b", "c"), ("a", "c")]]
    assert feedback_arc_share(transitive) == 0.0
    assert is_transitive_enough(transitive)
    cycle = [PairPreference("a", "b", 1.0, 1), PairPreference("b", "c", 0.9, 1), PairPreference("c", "a", 0.8, 1)]
    assert feedback_arc_share(cycle) == pytest.approx(1 / 3)
    assert not is_transitive_enough(cycle)
    assert feedback_arc_share([PairPreference("a", "b", 0.5, 2)]) == 0.0


def test_feedback_arc_share_large_sets_use_the_heuristic() -> None:
    # 14 items in a strict order plus one reversed pair: exactly one feedback arc of 91.
    preferences = [PairPreference(i, j, 1.0, 1) for i in range(14) for j in range(i + 1, 14)]
    preferences[5] = PairPreference(0, 6, 0.0, 1)
    assert feedback_arc_share(preferences) == pytest.approx(1 / 91)
