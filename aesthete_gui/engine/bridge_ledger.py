"""Judge-call bookkeeping of the bridge: stored judgments reused, new ones asked for and counted.

Only parsed stored judgments are reused; a stored reply that did not parse stays in the profile
(raw text kept) but its pair is asked again, so a resume after the judge was fixed recovers.
Calls that got no answer at all are counted apart from replies that did not parse, and a judge
that answers nothing MAX_CONSECUTIVE_FAILED_CALLS times in a row stops the run (JudgeNotAnswering).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from aesthete_gui.engine.evidence import (
    MAX_CONSECUTIVE_FAILED_CALLS,
    JudgeNotAnswering,
    JudgmentCounts,
)
from aesthete_gui.engine.judgments import Judge, PairwiseJudgment, is_failure
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback

JudgmentSink = Callable[[PairwiseJudgment], None]


@dataclass
class CallAccounting:
    """Judge calls: planned, newly made, reused from stored judgments; among the new ones those that
    failed (no answer) and those whose reply did not parse."""

    planned: int = 0
    made: int = 0
    reused: int = 0
    unparsed: int = 0
    failed: int = 0

    @property
    def done(self) -> int:
        """Calls answered so far, new or reused."""
        return self.made + self.reused

    @property
    def parsed(self) -> int:
        """Calls (new or reused) that gave a parsed judgment."""
        return self.done - self.unparsed - self.failed

    def counts(self) -> JudgmentCounts:
        """asked / parsed / failed / unparsed, for the minimum-evidence checks."""
        return JudgmentCounts(self.done, self.parsed, self.failed, self.unparsed)


class JudgmentLedger:
    """Asks the judge for what is not stored yet, reuses stored judgments, counts calls."""

    def __init__(
        self,
        judge: Judge,
        previous: Iterable[PairwiseJudgment],
        sink: JudgmentSink | None,
        calls: CallAccounting,
        progress: ProgressCallback | None,
        cancel: CancelToken | None,
    ) -> None:
        self.judge = judge
        self.sink = sink
        self.calls = calls
        self.progress = progress
        self.cancel = cancel
        self.stored: dict[frozenset[str], list[PairwiseJudgment]] = defaultdict(list)
        self.partners: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.failed_in_a_row = 0
        self.last_failure = ""
        for record in previous:
            if not record.parsed:
                continue  # kept in the profile, asked again
            self.stored[frozenset((record.first, record.second))].append(record)
            self.partners[record.first][record.second] += 1
            self.partners[record.second][record.first] += 1

    def stored_partners(self, item: str) -> list[str]:
        """Items that `item` still has unused stored judgments against."""
        found = self.partners.get(item)
        return [other for other, count in found.items() if count > 0] if found else []

    def ask(
        self, shown: Sequence[tuple[str, str]], stage: str, strict_order: bool = False
    ) -> list[PairwiseJudgment]:
        """Judgments for the pairs in presentation order, reusing stored ones: the same order first,
        else (unless `strict_order`) one shown the other way round."""
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()
        answers: list[PairwiseJudgment | None] = [None] * len(shown)
        missing: list[int] = []
        for position, (first, second) in enumerate(shown):
            records = self.stored.get(frozenset((first, second))) or []
            same_order = [r for r in records if (r.first, r.second) == (first, second)]
            if same_order or (records and not strict_order):
                record = same_order[0] if same_order else records[0]
                records.remove(record)
                self.partners[first][second] -= 1
                self.partners[second][first] -= 1
                answers[position] = record
                self.calls.reused += 1
            else:
                missing.append(position)
        if missing:
            request = [shown[position] for position in missing]
            replies = self.judge.judge_pairs(request, None, self.cancel)
            if len(replies) != len(request):
                raise ValueError(f"judge answered {len(replies)} of {len(request)} pairs")
            for position, reply in zip(missing, replies, strict=True):
                if {reply.first, reply.second} != set(shown[position]):
                    raise ValueError(
                        f"judge answered ({reply.first}, {reply.second}) for {shown[position]}"
                    )
                if self.sink is not None:
                    self.sink(reply)
                answers[position] = reply
                self._count(reply)
        if self.progress is not None:
            self.progress(Progress(self.calls.done, self.calls.planned, stage))
        if self.failed_in_a_row >= MAX_CONSECUTIVE_FAILED_CALLS:
            raise JudgeNotAnswering(
                f"the judge gave no answer to {self.failed_in_a_row} calls in a row; "
                f"last: {self.last_failure}",
                self.calls.counts(),
            )
        return [answer for answer in answers if answer is not None]

    def _count(self, reply: PairwiseJudgment) -> None:
        self.calls.made += 1
        if is_failure(reply):
            self.calls.failed += 1
            self.failed_in_a_row += 1
            self.last_failure = reply.rationale
            return
        self.failed_in_a_row = 0
        self.calls.unparsed += not reply.parsed
