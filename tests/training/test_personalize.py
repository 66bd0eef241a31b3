"""Per-user taste adapter: learns a hidden taste, stays on the base without evidence, round-trips."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from aesthete_gui.training.personalize import (
    PairChoice,
    TasteAdapter,
    TasteInputs,
    agreement,
    bootstrap_interval,
    train_adapter,
)
from aesthete_gui.training.suggest import (
    candidate_pairs,
    suggest_pairs,
    uncertainty_pairs,
)


def _library(n: int = 120, seed: int = 0) -> tuple[TasteInputs, np.ndarray]:
    rng = np.random.default_rng(seed)
    embeddings = rng.normal(size=(n, 40)) @ rng.normal(size=(40, 64))
    properties = rng.normal(size=(n, 6))
    base = np.clip(3 + 0.8 * rng.normal(size=(n, 5)), 1, 5)
    taste = 0.6 * (base[:, 4] - 3) + embeddings @ rng.normal(size=64) / 12 + properties[:, 0]
    return TasteInputs(keys=list(range(n)), base_scores=base, properties=properties, embeddings=embeddings), taste


def _choices(taste: np.ndarray, count: int, seed: int, noise: float = 0.1, dimension: str = "overall") -> list[PairChoice]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        a, b = rng.choice(len(taste), size=2, replace=False)
        gap = taste[a] - taste[b] + noise * rng.normal()
        out.append(PairChoice(int(a), int(b), "a" if gap > 0 else "b", dimension))
    return out


def test_adapter_learns_hidden_taste_better_than_base() -> None:
    inputs, taste = _library()
    train = _choices(taste, 150, seed=1)
    test = _choices(taste, 400, seed=2)
    adapter = train_adapter(inputs, train)
    utility = adapter.utilities(inputs)
    base = inputs.base_scores[:, 4]
    gap = np.array([utility[c.a] - utility[c.b] for c in test])
    base_gap = np.array([base[c.a] - base[c.b] for c in test])
    winners = [c.winner for c in test]
    adapted = np.nanmean(agreement(gap, winners))
    base_only = np.nanmean(agreement(base_gap, winners))
    assert adapted > base_only + 0.1
    assert adapted > 0.8


def test_without_choices_the_adapter_ranks_exactly_as_the_base() -> None:
    inputs, _ = _library()
    adapter = train_adapter(inputs, [])
    for index, dimension in enumerate(("technique", "overall")):
        order = np.argsort(adapter.utilities(inputs, dimension))
        column = 4 if dimension == "overall" else index
        assert np.array_equal(order, np.argsort(inputs.base_scores[:, column]))


def test_per_dimension_choices_only_move_their_dimension() -> None:
    inputs, taste = _library()
    adapter = train_adapter(inputs, _choices(taste, 80, seed=3, dimension="mood"))
    assert set(adapter.fits) == {"mood"}
    assert np.allclose(adapter.scores(inputs)["overall"], inputs.base_scores[:, 4])
    assert not np.allclose(adapter.scores(inputs)["mood"], inputs.base_scores[:, 3])


def test_adapter_without_a_base_scorer_uses_embeddings_and_properties() -> None:
    inputs, taste = _library()
    bare = TasteInputs(keys=inputs.keys, properties=inputs.properties, embeddings=inputs.embeddings)
    adapter = train_adapter(bare, _choices(taste, 150, seed=4))
    test = _choices(taste, 300, seed=5)
    utility = adapter.utilities(bare)
    assert np.nanmean(agreement(np.array([utility[c.a] - utility[c.b] for c in test]), [c.winner for c in test])) > 0.75


def test_ties_are_accepted_and_serialisation_round_trips() -> None:
    inputs, taste = _library()
    choices = [*_choices(taste, 40, seed=6), PairChoice(0, 1, "tie")]
    adapter = train_adapter(inputs, choices)
    again = TasteAdapter.from_bytes(adapter.to_bytes())
    assert np.allclose(again.utilities(inputs), adapter.utilities(inputs))
    assert again.fits["overall"].choices == 41
    with pytest.raises(ValueError, match="not a taste adapter"):
        TasteAdapter.from_bytes(b"garbage")


def test_bad_choices_and_inputs_are_rejected() -> None:
    inputs, _ = _library(10)
    with pytest.raises(ValueError, match="winner"):
        train_adapter(inputs, [PairChoice(0, 1, "left")])
    with pytest.raises(ValueError, match="outside"):
        train_adapter(inputs, [PairChoice(0, 99, "a")])
    with pytest.raises(ValueError, match="two different"):
        train_adapter(inputs, [PairChoice(3, 3, "a")])
    with pytest.raises(ValueError, match="one row per image"):
        TasteInputs(keys=[1, 2], properties=np.ones((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        TasteInputs(keys=[1], properties=np.array([[np.nan]]))


def test_evidence_loosens_the_prior_on_the_blocks_the_taste_uses() -> None:
    inputs, taste = _library(300)
    adapter = train_adapter(inputs, _choices(taste, 1000, seed=7, noise=0.01))
    penalties = adapter.fits["overall"].penalties
    assert adapter.fits["overall"].choices == 1000
    assert set(penalties) == {"base", "properties", "embeddings"}
    assert penalties["embeddings"] < 10.0 and penalties["properties"] < 10.0  # the taste uses both blocks


def test_adapters_stored_in_format_1_still_load_and_score_the_same() -> None:
    inputs, taste = _library()
    adapter = train_adapter(inputs, _choices(taste, 40, seed=6))
    archive = dict(np.load(io.BytesIO(adapter.to_bytes()), allow_pickle=False))
    meta = json.loads(bytes(archive["meta"]).decode("utf-8"))
    meta["format"] = "aesthete-taste-adapter/1"
    meta["fits"]["overall"]["lam"] = meta["fits"]["overall"].pop("penalties")["embeddings"]
    archive["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **archive)
    old = TasteAdapter.from_bytes(buffer.getvalue())
    assert np.allclose(old.utilities(inputs), adapter.utilities(inputs))
    assert set(old.fits["overall"].penalties) == {"base", "properties", "embeddings"}


def test_agreement_and_bootstrap_interval() -> None:
    values = agreement(np.array([1.0, -1.0, 0.0, 2.0]), ["a", "a", "b", "tie"])
    assert np.isnan(values[3])
    assert list(values[:3]) == [1.0, 0.0, 0.5]
    mean, low, high = bootstrap_interval(np.array([1.0] * 80 + [0.0] * 20))
    assert mean == pytest.approx(0.8)
    assert low < 0.8 < high


def test_suggestions_avoid_judged_duplicates_and_bursts() -> None:
    inputs, taste = _library(30)
    spread = np.random.default_rng(9)
    hashes = [0, 1] + [int(h) for h in spread.integers(1 << 40, 1 << 62, size=28)]  # 0 and 1: near-duplicates
    bursts = [None] * 28 + ["burst-1", "burst-1"]
    judged = {frozenset((2, 3))}
    pairs = candidate_pairs(30, judged, np.random.default_rng(0), hashes, bursts)
    as_sets = {frozenset(map(int, p)) for p in pairs}
    assert frozenset((0, 1)) not in as_sets
    assert frozenset((28, 29)) not in as_sets
    assert frozenset((2, 3)) not in as_sets
    assert len(as_sets) == 30 * 29 // 2 - 3
    adapter = train_adapter(inputs, _choices(taste, 30, seed=8))
    suggested = suggest_pairs(adapter, inputs, judged, count=5, hashes=hashes, bursts=bursts)
    assert len(suggested) == 5
    assert len({i for a, b, _ in suggested for i in (a, b)}) == 10
    assert suggested[0][2] >= suggested[-1][2]
    assert suggest_pairs(None, inputs, judged, count=1)
    by_uncertainty = uncertainty_pairs(adapter, inputs, judged, count=5, hashes=hashes, bursts=bursts)
    assert len({i for a, b, _ in by_uncertainty for i in (a, b)}) == 10
    assert all(frozenset((a, b)) not in {frozenset((0, 1)), frozenset((28, 29)), frozenset((2, 3))} for a, b, _ in by_uncertainty)
    assert uncertainty_pairs(None, inputs, judged, count=1)


def test_suggestions_are_the_closest_unjudged_neighbours_in_the_adapted_ranking() -> None:
    inputs, taste = _library(40)
    adapter = train_adapter(inputs, _choices(taste, 60, seed=3))
    utility = adapter.utilities(inputs)
    order = np.argsort(utility)
    gaps = np.diff(utility[order])
    closest = int(np.argmin(gaps))
    expected = frozenset((int(order[closest]), int(order[closest + 1])))
    first = suggest_pairs(adapter, inputs, set(), count=1)[0]
    assert frozenset(first[:2]) == expected
    second = suggest_pairs(adapter, inputs, {expected}, count=1)[0]
    assert frozenset(second[:2]) != expected
    assert abs(utility[second[0]] - utility[second[1]]) >= gaps[closest]
    no_scorer = TasteInputs(keys=inputs.keys, embeddings=inputs.embeddings)
    assert len(suggest_pairs(None, no_scorer, set(), count=3)) == 3
