"""A scripted judge for distillation tests (a fake at the edge of the world): answers from a hidden truth."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.jobs import CancelToken, ProgressCallback


class ScriptedJudge:
    """Prefers the item with the larger hidden value; counts and records every pair it is asked."""

    judge_id = "scripted"

    def __init__(self, truth: dict[str, float], after_each: Callable[[int], None] | None = None) -> None:
        self.truth = truth
        self.asked: list[tuple[str, str]] = []
        self.after_each = after_each

    def judge_pairs(
        self, pairs: Sequence[tuple[str, str]], progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> list[PairwiseJudgment]:
        out = []
        for first, second in pairs:
            if cancel is not None:
                cancel.raise_if_cancelled()
            self.asked.append((first, second))
            gap = self.truth[first] - self.truth[second]
            outcome = "A" if gap > 0 else "B" if gap < 0 else "TIE"
            out.append(PairwiseJudgment(first, second, dict.fromkeys(DIMENSIONS, outcome), judge_id=self.judge_id, raw=outcome))
            if self.after_each is not None:
                self.after_each(len(self.asked))
        return out

    def score_items(
        self, items: Sequence[str], progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> list[PointwiseJudgment]:
        return [PointwiseJudgment(item, dict.fromkeys(DIMENSIONS, 1 + 4 * self.truth[item]), judge_id=self.judge_id) for item in items]

    def select_best_worst(
        self, sets: Sequence[Sequence[str]], explain: bool = False, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> list[SetJudgment]:
        return [SetJudgment(tuple(s), max(s, key=self.truth.get), min(s, key=self.truth.get), judge_id=self.judge_id) for s in sets]
