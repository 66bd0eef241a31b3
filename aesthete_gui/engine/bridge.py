"""The reference-pool bridge (docs/method.md §5, seed 000 algorithm 1): pairwise judgments -> calibrated scores.

Stage 1 judges all C(N, 2) pairs of a pool of N items and freezes their Elo ratings per dimension.
Stage 2 places every other item from K comparisons against pool references: its latent is the
posterior mean on a grid under the Elo likelihood (ties count half) with a normal prior from the
pool's spread. References are chosen randomly without replacement (the paper) or adaptively (the
unused pool item nearest the item's current estimate). Stage 3 calibrates each dimension with the
min-max sigmoid (λ = 6).

Only parsed outcomes are evidence. An item gets a latent and a score on a dimension only from at
least `min_comparisons` parsed outcomes on that dimension (pool items: against other pool items;
the rest: against pool references rated on that dimension); otherwise that dimension is NaN and
the item is listed by `BridgeResult.unscored()`. Nothing falls back to the prior or to the middle
of the scale, and calibration spans the scored items only.

Judge calls are batched (all pool pairs in chunks; one reference per remaining item per round,
batched across items). Every new judgment goes to `sink` as soon as its batch returns, and judgments
passed in `previous` are reused instead of asking again, so an interrupted run resumes without
repeating calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from aesthete_gui.engine.bridge_ledger import CallAccounting, JudgmentLedger, JudgmentSink
from aesthete_gui.engine.bridge_posterior import (
    LOG10,
    GridPosterior,
    pool_fisher_spread,
    rated_or_all,
    update_posteriors,
)
from aesthete_gui.engine.bridge_references import (
    AdaptiveReferences,
    RandomReferences,
    ReferenceChooser,
    reference_chooser,
)
from aesthete_gui.engine.calibration import BRIDGE_LAMBDA, minmax_sigmoid
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.elo import ELO_SCALE, EloParams, elo_ratings
from aesthete_gui.engine.evidence import MIN_PARSED_COMPARISONS_PER_IMAGE
from aesthete_gui.engine.judgments import Judge, PairwiseJudgment
from aesthete_gui.engine.pairs import OrderConsistency, balanced_presentations, order_consistency
from aesthete_gui.jobs import CancelToken, ProgressCallback

__all__ = [
    "AdaptiveReferences",
    "BridgeConfig",
    "BridgeResult",
    "CallAccounting",
    "JudgmentSink",
    "RandomReferences",
    "ReferenceChooser",
    "reference_chooser",
    "run_bridge",
]


@dataclass(frozen=True)
class BridgeConfig:
    """Bridge settings: pool size N, references per item K, reference choice, batching, seed.

    `pool_orders` "balanced" shows each pool pair once with sides balanced per item; "both" shows
    every pool pair in both orders (twice the pool calls) so position bias cancels in the pool
    ratings and the order-consistency report covers every pool pair."""

    pool_size: int = 50
    references_per_item: int = 10
    reference_choice: Literal["random", "adaptive"] | ReferenceChooser = "random"
    batch_size: int = 64
    seed: int = 0
    dimensions: tuple[str, ...] = DIMENSIONS
    elo: EloParams = field(default_factory=EloParams)
    calibration_lambda: float = BRIDGE_LAMBDA
    pool_orders: Literal["balanced", "both"] = "balanced"
    min_comparisons: int = MIN_PARSED_COMPARISONS_PER_IMAGE


@dataclass(frozen=True)
class BridgeResult:
    """Per-dimension latents (Elo scale), posterior spreads and calibrated 1..5 scores per item.

    `evidence` counts each item's parsed outcomes per dimension; where it is below
    `min_comparisons` the latent, spread and score are NaN (the item is unscored there)."""

    items: tuple[str, ...]
    pool: tuple[str, ...]
    latent: dict[str, np.ndarray]
    spread: dict[str, np.ndarray]
    scores: dict[str, np.ndarray]
    references: dict[str, tuple[str, ...]]
    calls: CallAccounting
    consistency: dict[str, OrderConsistency] = field(default_factory=dict)
    evidence: dict[str, np.ndarray] = field(default_factory=dict)
    min_comparisons: int = MIN_PARSED_COMPARISONS_PER_IMAGE

    @cached_property
    def _positions(self) -> dict[str, int]:
        """Each item's (first) position in `items`, built once for all `scores_for` calls."""
        positions: dict[str, int] = {}
        for position, item in enumerate(self.items):
            positions.setdefault(item, position)
        return positions

    def scores_for(self, item: str) -> dict[str, float]:
        """The calibrated scores of one item, keyed by dimension; unscored dimensions left out."""
        position = self._positions.get(item)
        if position is None:
            raise ValueError(f"{item!r} is not in the bridge's items")
        return {
            dimension: float(values[position])
            for dimension, values in self.scores.items()
            if np.isfinite(values[position])
        }

    def unscored(self) -> list[tuple[str, dict[str, int]]]:
        """Items left unscored on some dimension, each with its parsed comparisons there."""
        out = []
        for position, item in enumerate(self.items):
            short = {
                dimension: int(counts[position])
                for dimension, counts in self.evidence.items()
                if not np.isfinite(self.scores[dimension][position])
            }
            if short:
                out.append((item, short))
        return out


def _chunks(sequence: Sequence, size: int) -> Iterable[Sequence]:
    for start in range(0, len(sequence), size):
        yield sequence[start : start + size]


def run_bridge(
    items: Sequence[str],
    judge: Judge,
    config: BridgeConfig = BridgeConfig(),
    *,
    sink: JudgmentSink | None = None,
    previous: Iterable[PairwiseJudgment] = (),
    pool: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> BridgeResult:
    """Score `items` on each dimension from the judge's pairwise judgments via the reference pool."""
    item_list = tuple(items)
    if len(set(item_list)) != len(item_list):
        raise ValueError("items must be distinct")
    if len(item_list) < 2:
        raise ValueError("the bridge needs at least two items")
    if config.pool_size < 2 or config.references_per_item < 1 or config.batch_size < 1:
        raise ValueError("pool_size ≥ 2, references_per_item ≥ 1 and batch_size ≥ 1 are required")
    if config.min_comparisons < 1:
        raise ValueError("min_comparisons must be at least 1: no score comes without evidence")
    rng = np.random.default_rng(config.seed)
    if pool is None:
        size = min(config.pool_size, len(item_list))
        pool_items = tuple(
            item_list[i] for i in sorted(rng.choice(len(item_list), size, replace=False))
        )
    else:
        pool_items = tuple(pool)
        unknown = set(pool_items) - set(item_list)
        if unknown or len(set(pool_items)) != len(pool_items) or len(pool_items) < 2:
            raise ValueError("pool must be at least two distinct members of items")
    pool_set = set(pool_items)
    others = tuple(item for item in item_list if item not in pool_set)
    refs_per_item = min(config.references_per_item, len(pool_items))
    n_pool = len(pool_items)
    pool_calls = n_pool * (n_pool - 1) // 2 * (2 if config.pool_orders == "both" else 1)
    calls = CallAccounting(planned=pool_calls + len(others) * refs_per_item)
    ledger = JudgmentLedger(judge, previous, sink, calls, progress, cancel)
    dimensions = config.dimensions

    # Stage 1: every pool pair once with sides balanced, or in both orders.
    if config.pool_orders not in ("balanced", "both"):
        raise ValueError(
            f"unknown pool_orders {config.pool_orders!r}; expected 'balanced' or 'both'"
        )
    pool_index = {item: i for i, item in enumerate(pool_items)}
    pairs = [(pool_items[i], pool_items[j]) for i in range(n_pool) for j in range(i + 1, n_pool)]
    shown = balanced_presentations(
        pairs, mode="both" if config.pool_orders == "both" else "random", seed=rng
    )
    outcomes: dict[str, tuple[list[int], list[int], list[float]]] = {
        d: ([], [], []) for d in dimensions
    }
    pool_records: list[PairwiseJudgment] = []
    for chunk in _chunks(shown, config.batch_size):
        for record in ledger.ask(chunk, "pool", strict_order=config.pool_orders == "both"):
            if not record.parsed:
                continue
            pool_records.append(record)
            for dimension in dimensions:
                value = record.score_for_first(dimension)
                if value is not None:
                    first, second, score = outcomes[dimension]
                    first.append(pool_index[record.first])
                    second.append(pool_index[record.second])
                    score.append(value)
    pool_ratings = np.zeros((n_pool, len(dimensions)))
    pool_spread = np.zeros((n_pool, len(dimensions)))
    pool_evidence = np.zeros((n_pool, len(dimensions)), dtype=np.int64)
    for column, dimension in enumerate(dimensions):
        first_of, second_of, score_of = outcomes[dimension]
        first_index = np.asarray(first_of, dtype=np.int64)
        second_index = np.asarray(second_of, dtype=np.int64)
        score_array = np.asarray(score_of)
        pool_ratings[:, column] = elo_ratings(
            n_pool, first_index, second_index, score_array, config.elo
        )
        pool_spread[:, column] = pool_fisher_spread(
            pool_ratings[:, column], first_index, second_index
        )
        pool_evidence[:, column] = np.bincount(first_index, minlength=n_pool) + np.bincount(
            second_index, minlength=n_pool
        )
    rated = pool_evidence >= config.min_comparisons  # (N, D): usable as a reference

    # Stage 2: K reference rounds for the remaining items, batched across items.
    m = len(others)
    posteriors = [
        GridPosterior(m, rated_or_all(pool_ratings[:, c], rated[:, c]))
        for c in range(len(dimensions))
    ]
    other_evidence = np.zeros((m, len(dimensions)), dtype=np.int64)
    used = np.zeros((m, n_pool), dtype=bool)
    chosen: list[list[str]] = [[] for _ in range(m)]
    chooser = reference_chooser(config.reference_choice)
    centre = pool_ratings.mean(axis=0)
    scale = np.where(pool_ratings.std(axis=0) > 1e-9, pool_ratings.std(axis=0), 1.0)
    standard_pool = (pool_ratings - centre) / scale
    slopes = scale * LOG10 / ELO_SCALE
    item_first_offset = rng.integers(0, 2, m)
    for round_index in range(refs_per_item if m else 0):
        moments = [p.moments() for p in posteriors]
        estimates = (np.column_stack([mean for mean, _ in moments]) - centre) / scale
        spreads = np.column_stack([sd for _, sd in moments]) / scale
        picks = chooser.choose(estimates, spreads, standard_pool, slopes, used, rng)
        picks = _prefer_stored(picks, others, pool_items, used, ledger, estimates, standard_pool)
        presentations = []
        for row, pick in enumerate(picks.tolist()):
            used[row, pick] = True
            reference = pool_items[pick]
            chosen[row].append(reference)
            item = others[row]
            item_first = (round_index + item_first_offset[row]) % 2 == 0
            presentations.append((item, reference) if item_first else (reference, item))
        stage = f"references round {round_index + 1} of {refs_per_item}"
        for start in range(0, m, config.batch_size):
            rows = np.arange(start, min(start + config.batch_size, m))
            records = ledger.ask([presentations[r] for r in rows], stage)
            update_posteriors(
                posteriors, dimensions, rows, records, others, pool_index, pool_ratings,
                rated, other_evidence,
            )  # fmt: skip

    # Stage 3: assemble latents in item order and calibrate per dimension.
    latent: dict[str, np.ndarray] = {}
    spread: dict[str, np.ndarray] = {}
    scores: dict[str, np.ndarray] = {}
    evidence: dict[str, np.ndarray] = {}
    order = {item: i for i, item in enumerate(item_list)}
    pool_rows = np.array([order[item] for item in pool_items], dtype=np.int64)
    other_rows = np.array([order[item] for item in others], dtype=np.int64)
    for column, dimension in enumerate(dimensions):
        values = np.empty(len(item_list))
        spreads = np.empty(len(item_list))
        counts = np.zeros(len(item_list), dtype=np.int64)
        values[pool_rows] = pool_ratings[:, column]
        spreads[pool_rows] = pool_spread[:, column]
        counts[pool_rows] = pool_evidence[:, column]
        if m:
            mean, sd = posteriors[column].moments()
            values[other_rows] = mean
            spreads[other_rows] = sd
            counts[other_rows] = other_evidence[:, column]
        short = counts < config.min_comparisons
        values[short] = np.nan
        spreads[short] = np.nan
        calibrated = np.full(len(item_list), np.nan)
        calibrated[~short] = minmax_sigmoid(values[~short], config.calibration_lambda)
        latent[dimension] = values
        spread[dimension] = spreads
        scores[dimension] = calibrated
        evidence[dimension] = counts
    return BridgeResult(
        items=item_list,
        pool=pool_items,
        latent=latent,
        spread=spread,
        scores=scores,
        references={item: tuple(refs) for item, refs in zip(others, chosen, strict=True)},
        calls=calls,
        consistency=order_consistency(pool_records, dimensions),
        evidence=evidence,
        min_comparisons=config.min_comparisons,
    )


def _prefer_stored(
    picks: np.ndarray,
    others: Sequence[str],
    pool_items: Sequence[str],
    used: np.ndarray,
    ledger: JudgmentLedger,
    estimates: np.ndarray,
    standard_pool: np.ndarray,
) -> np.ndarray:
    """Swap a pick for an unused reference the item already has a stored judgment against (the one
    nearest its estimate), so resumed runs reuse what was judged instead of asking again."""
    if not ledger.stored:
        return picks
    pool_position = {item: i for i, item in enumerate(pool_items)}
    picks = picks.copy()
    for row, item in enumerate(others):
        partners = [pool_position[p] for p in ledger.stored_partners(item) if p in pool_position]
        partners = [p for p in partners if not used[row, p]]
        if not partners or picks[row] in partners:
            continue
        distance = ((standard_pool[partners] - estimates[row]) ** 2).sum(axis=1)
        picks[row] = partners[int(np.argmin(distance))]
    return picks
