"""The reference-pool bridge over a scripted judge: accuracy, call accounting, sink, resume, cancel."""

from __future__ import annotations

import numpy as np
import pytest

from aesthete_gui.engine.bridge import (
    AdaptiveReferences,
    BridgeConfig,
    reference_chooser,
    run_bridge,
)
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.metrics import srcc
from aesthete_gui.jobs import Cancelled, CancelToken, Progress

from .conftest import ThurstoneJudge, item_names

SMALL = BridgeConfig(pool_size=16, references_per_item=6, batch_size=25, seed=3)


@pytest.fixture
def latent() -> np.ndarray:
    return np.random.default_rng(5).normal(size=(90, 5))


class RecordingJudge(ThurstoneJudge):
    """Remembers every presentation it was asked to judge."""

    def __init__(self, latent: np.ndarray) -> None:
        super().__init__(latent)
        self.requested: list[tuple[str, str]] = []

    def judge_pairs(self, pairs, progress=None, cancel=None):
        self.requested.extend(pairs)
        return super().judge_pairs(pairs, progress, cancel)


class RefusingJudge:
    """Fails the test if the bridge asks it anything."""

    judge_id = "refuse"

    def judge_pairs(self, pairs, progress=None, cancel=None):
        raise AssertionError(f"unexpected judge call for {len(pairs)} pairs")


@pytest.mark.parametrize("choice", ["random", "adaptive"])
def test_bridge_recovers_the_latent_order_with_the_planned_calls(latent, choice) -> None:
    judge = ThurstoneJudge(latent, noise=0.4)
    stored = []
    reports: list[Progress] = []
    config = BridgeConfig(pool_size=16, references_per_item=6, batch_size=25, seed=3, reference_choice=choice)
    result = run_bridge(item_names(90), judge, config, sink=stored.append, progress=reports.append)
    planned = 16 * 15 // 2 + (90 - 16) * 6
    assert result.calls.planned == result.calls.made == planned == judge.calls == len(stored)
    assert result.calls.reused == 0 and result.calls.unparsed == 0
    assert max(judge.batches) <= 25
    assert [r.done for r in reports] == sorted(r.done for r in reports)
    assert reports[-1].done == reports[-1].total == planned
    for column, dimension in enumerate(DIMENSIONS):
        assert srcc(result.latent[dimension], latent[:, column]) > 0.8
        scores = result.scores[dimension]
        assert scores.min() > 1.0 and scores.max() < 5.0
        assert scores.max() - scores.min() > 3.0
    assert len(result.pool) == 16
    for item, references in result.references.items():
        assert item not in result.pool
        assert len(references) == len(set(references)) == 6
        assert set(references) <= set(result.pool)
    assert set(result.scores_for("item-7")) == set(DIMENSIONS)
    position = result.items.index("item-7")
    assert result.scores_for("item-7") == {d: float(v[position]) for d, v in result.scores.items()}
    with pytest.raises(ValueError, match="not in"):
        result.scores_for("no-such-item")
    assert np.all(result.spread["overall"] > 0)


def test_resume_from_stored_judgments_makes_no_new_calls(latent) -> None:
    stored = []
    first = run_bridge(item_names(90), ThurstoneJudge(latent), SMALL, sink=stored.append)
    again = run_bridge(item_names(90), RefusingJudge(), SMALL, previous=stored)
    assert again.calls.made == 0
    assert again.calls.reused == first.calls.planned
    for dimension in DIMENSIONS:
        np.testing.assert_allclose(again.latent[dimension], first.latent[dimension])


@pytest.mark.parametrize("choice", ["random", "adaptive"])
def test_cancelled_run_keeps_its_judgments_and_resumes_where_it_stopped(latent, choice) -> None:
    config = BridgeConfig(pool_size=16, references_per_item=6, batch_size=25, seed=3, reference_choice=choice)
    uninterrupted = run_bridge(item_names(90), ThurstoneJudge(latent, seed=9), config)
    token = CancelToken()
    stored = []

    def sink(record):
        stored.append(record)
        if len(stored) == 300:  # mid-way through the reference rounds
            token.cancel()

    judge = ThurstoneJudge(latent, seed=9)
    with pytest.raises(Cancelled):
        run_bridge(item_names(90), judge, config, sink=sink, cancel=token)
    # Cancel is checked between batches: the batch in flight finished and was stored in full.
    assert len(stored) == judge.calls
    assert 300 <= len(stored) < 325
    # The same judge object continues its random stream, so the remaining outcomes match the
    # uninterrupted run's and the final ratings must be identical.
    resumed = run_bridge(item_names(90), judge, config, previous=stored)
    assert resumed.calls.reused == len(stored)
    assert resumed.calls.made == uninterrupted.calls.planned - len(stored)
    for dimension in DIMENSIONS:
        np.testing.assert_allclose(resumed.latent[dimension], uninterrupted.latent[dimension])


def test_unparsed_replies_count_as_calls_without_evidence(latent) -> None:
    judge = ThurstoneJudge(latent, unparsed_share=0.2, seed=4)
    result = run_bridge(item_names(90), judge, SMALL)
    assert result.calls.made == result.calls.planned
    assert 0.1 * result.calls.planned < result.calls.unparsed < 0.3 * result.calls.planned
    assert result.calls.failed == 0
    assert result.calls.parsed == result.calls.planned - result.calls.unparsed
    scored = np.isfinite(result.latent["overall"])
    assert scored.sum() > 80
    assert srcc(result.latent["overall"][scored], latent[scored, 4]) > 0.7
    # an item below the minimum of parsed comparisons has no latent and no score: never the prior
    short = result.evidence["overall"] < result.min_comparisons
    assert np.array_equal(short, ~scored)
    assert np.all(np.isnan(result.scores["overall"][short]))
    for item, counts in result.unscored():
        assert all(count < result.min_comparisons for count in counts.values())
        assert set(result.scores_for(item)).isdisjoint(counts)


def test_a_judge_whose_replies_never_parse_scores_nothing(latent) -> None:
    judge = ThurstoneJudge(latent, unparsed_share=1.0)
    result = run_bridge(item_names(90), judge, SMALL)
    assert result.calls.parsed == 0 and result.calls.unparsed == result.calls.planned
    for dimension in DIMENSIONS:
        assert np.all(np.isnan(result.scores[dimension]))  # not 3.0: no judgment, no score
        assert np.all(result.evidence[dimension] == 0)
    assert all(result.scores_for(item) == {} for item in item_names(90))
    assert len(result.unscored()) == 90


def test_stored_unparsed_replies_are_asked_again_on_resume(latent) -> None:
    stored = []
    run_bridge(item_names(30), ThurstoneJudge(latent[:30], unparsed_share=1.0), SMALL, sink=stored.append)
    judge = RecordingJudge(latent[:30])
    resumed = run_bridge(item_names(30), judge, SMALL, previous=stored)
    assert resumed.calls.reused == 0 and resumed.calls.made == resumed.calls.planned
    assert np.all(np.isfinite(resumed.scores["overall"]))


def test_a_judge_that_never_answers_stops_the_run(latent) -> None:
    from aesthete_gui.engine.evidence import MAX_CONSECUTIVE_FAILED_CALLS, JudgeNotAnswering
    from aesthete_gui.engine.judgments import NO_ANSWER, PairwiseJudgment

    class SilentJudge:
        judge_id = "silent"
        calls = 0

        def judge_pairs(self, pairs, progress=None, cancel=None):
            self.calls += len(pairs)
            return [PairwiseJudgment(a, b, parsed=False, rationale=NO_ANSWER + "HTTP 500") for a, b in pairs]

    judge = SilentJudge()
    with pytest.raises(JudgeNotAnswering, match="HTTP 500"):
        run_bridge(item_names(90), judge, BridgeConfig(pool_size=16, batch_size=4))
    assert judge.calls == MAX_CONSECUTIVE_FAILED_CALLS


def test_small_sets_are_judged_entirely_in_the_pool(latent) -> None:
    judge = ThurstoneJudge(latent[:6])
    result = run_bridge(item_names(6), judge, BridgeConfig(pool_size=50))
    assert result.calls.made == 15
    assert set(result.pool) == set(item_names(6))
    assert result.references == {}


def test_explicit_pool_and_bad_arguments(latent) -> None:
    judge = ThurstoneJudge(latent[:20])
    pool = item_names(20)[:5]
    result = run_bridge(item_names(20), judge, BridgeConfig(references_per_item=3), pool=pool)
    assert result.pool == tuple(pool)
    assert result.calls.made == 10 + 15 * 3
    with pytest.raises(ValueError, match="distinct"):
        run_bridge(["item-1", "item-1"], judge)
    with pytest.raises(ValueError, match="pool must be"):
        run_bridge(item_names(20), judge, pool=["item-1", "elsewhere"])
    with pytest.raises(ValueError, match="reference choice"):
        run_bridge(item_names(20), judge, BridgeConfig(reference_choice="psychic"))


def test_a_judge_that_drops_replies_is_an_error(latent) -> None:
    class ShortJudge(ThurstoneJudge):
        def judge_pairs(self, pairs, progress=None, cancel=None):
            return super().judge_pairs(pairs)[:-1]

    with pytest.raises(ValueError, match="answered"):
        run_bridge(item_names(20), ShortJudge(latent[:20]), SMALL)


def test_adaptive_choice_on_one_dimension_is_the_nearest_unused_reference() -> None:
    pool = np.array([[-2.0], [-0.5], [0.1], [0.4], [2.0]])
    estimates = np.array([[0.0], [0.0], [1.9]])
    spreads = np.full((3, 1), 0.5)
    used = np.zeros((3, 5), dtype=bool)
    used[1, 2] = True  # the second item already met the nearest one
    picks = AdaptiveReferences().choose(estimates, spreads, pool, np.array([1.0]), used, np.random.default_rng(0))
    assert picks.tolist() == [2, 3, 4]


def test_random_choice_never_repeats_a_reference() -> None:
    rng = np.random.default_rng(1)
    used = np.zeros((4, 6), dtype=bool)
    chooser = reference_chooser("random")
    for _ in range(6):
        picks = chooser.choose(np.zeros((4, 1)), np.ones((4, 1)), np.zeros((6, 1)), np.ones(1), used, rng)
        assert not used[np.arange(4), picks].any()
        used[np.arange(4), picks] = True
    assert used.all()


def test_pool_in_both_orders_reports_position_bias_and_resumes(latent) -> None:
    config = BridgeConfig(pool_size=10, references_per_item=4, batch_size=30, seed=2, pool_orders="both")
    judge = ThurstoneJudge(latent[:40], noise=0.3, first_bias=0.6)
    stored = []
    result = run_bridge(item_names(40), judge, config, sink=stored.append)
    assert result.calls.planned == result.calls.made == 2 * 45 + 30 * 4
    overall = result.consistency["overall"]
    assert overall.pairs_in_both_orders == 45
    assert 0.0 < overall.consistency < 1.0  # the bias flips some close pairs
    assert overall.first_shown_win_rate > 0.6
    again = run_bridge(item_names(40), RefusingJudge(), config, previous=stored)
    assert again.calls.made == 0
    # With only the second-shown order of each pool pair stored, the first order is asked for
    # anew: a stored judgment is not reused for the opposite presentation.
    one_order = [r for r in stored if r.first in result.pool and r.second in result.pool][1::2]
    recording = RecordingJudge(latent[:40])
    partial = run_bridge(item_names(40), recording, config, previous=one_order)
    assert partial.calls.reused == len(one_order) == 45
    assert partial.calls.made == partial.calls.planned - 45
    asked_in_pool = [p for p in recording.requested if p[0] in result.pool and p[1] in result.pool]
    assert len(asked_in_pool) == 45
    assert not set(asked_in_pool) & {(r.first, r.second) for r in one_order}


def test_default_pool_balances_sides_and_reports_first_shown_rate(latent) -> None:
    result = run_bridge(item_names(30), ThurstoneJudge(latent[:30], first_bias=0.0), SMALL)
    assert result.consistency["mood"].pairs_in_both_orders == 0
    assert 0.3 < result.consistency["mood"].first_shown_win_rate < 0.7
    with pytest.raises(ValueError, match="pool_orders"):
        run_bridge(item_names(30), ThurstoneJudge(latent[:30]), BridgeConfig(pool_orders="sideways"))
