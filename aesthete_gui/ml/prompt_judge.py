"""The protocol logic shared by every prompt-driven judge (local transformers, OpenAI-compatible server).

A backend only turns chat requests (images + prompt text) into reply texts; this module builds the
prompts, parses replies with engine.parsing, runs pairs in both orders and sets under several
orderings with a vote (SPEC §3), chains the three explanation stages (SPEC §4), and records every
reply that did not parse — or never came — as unparsed, never as an invented answer.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import (
    Outcome,
    PairwiseJudgment,
    PointwiseJudgment,
    SetJudgment,
)
from aesthete_gui.engine.parsing import parse_free_text, parse_pairwise, parse_pointwise, parse_set
from aesthete_gui.engine.prompts import Prompt, PromptBook
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback

NO_ANSWER = "no answer from the judge: "
STAGES = ("analyser", "critic", "summariser")


class JudgeUnavailable(Exception):
    """The judge cannot be used at all (server unreachable, bad credentials, model not loadable)."""


@dataclass(frozen=True)
class ChatRequest:
    """One model call: the images (paths, in order) followed by the prompt text."""

    images: tuple[str, ...]
    prompt: Prompt


@dataclass(frozen=True)
class Reply:
    """The text a backend got back, or the reason it got none (`text` None)."""

    text: str | None
    error: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class StageEvent:
    """One finished explanation stage, reported to the GUI as it arrives."""

    set_index: int
    ordering_index: int
    stage: str
    text: str


StageCallback = Callable[[StageEvent], None]


@dataclass(frozen=True)
class OrderedPairwiseJudgment(PairwiseJudgment):
    """A pair judged as (A, B) and as (B, A): the agreed outcome and how consistent the orders were.

    Per dimension: both orders agree -> that outcome; only one order answered -> its outcome;
    they contradict each other -> TIE (position bias cancels out). `consistency` is the share of
    dimensions answered in both orders on which they agree (None when no dimension was).
    """

    consistency: float | None = None
    reverse_raw: str = ""


@dataclass(frozen=True)
class VotedSetJudgment(SetJudgment):
    """Best/worst voted over several orderings; `all_orderings_agree` is the strict VAB criterion."""

    orderings: tuple[tuple[str, ...], ...] = ()
    votes: tuple[tuple[str | None, str | None], ...] = ()
    all_orderings_agree: bool = False


def is_failure(record: PairwiseJudgment | PointwiseJudgment | SetJudgment) -> bool:
    """True when the judge gave no answer at all (error, timeout), as opposed to an unparsable one."""
    return not record.parsed and record.rationale.startswith(NO_ANSWER)


@dataclass
class _Counter:
    total: int
    progress: ProgressCallback | None
    message: str
    done: int = 0

    def advance(self, amount: int) -> None:
        self.done += amount
        if self.progress is not None:
            self.progress(Progress(self.done, self.total, self.message))


class PromptJudge:
    """Implements the engine's Judge protocol over `_complete`, which subclasses provide."""

    judge_id: str = "prompt-judge"

    def __init__(
        self,
        prompts: PromptBook,
        *,
        both_orders: bool = False,
        set_orderings: int = 1,
        seed: int = 0,
        on_stage: StageCallback | None = None,
        set_per_dimension: bool = False,
    ) -> None:
        if set_orderings < 1:
            raise ValueError("set_orderings must be at least 1")
        self.prompts = prompts
        self.both_orders = both_orders
        self.set_orderings = set_orderings
        self.seed = seed
        self.on_stage = on_stage
        self.set_per_dimension = set_per_dimension

    def _complete(
        self,
        requests: Sequence[ChatRequest],
        advance: Callable[[int], None],
        cancel: CancelToken | None,
    ) -> list[Reply]:
        """Answer each request in order; call `advance(n)` as n more are done; check `cancel`."""
        raise TypeError(f"{type(self).__name__} must implement _complete")

    def _run(
        self, requests: Sequence[ChatRequest], counter: _Counter, cancel: CancelToken | None
    ) -> list[Reply]:
        if cancel is not None:
            cancel.raise_if_cancelled()
        if not requests:
            return []
        replies = self._complete(list(requests), counter.advance, cancel)
        if len(replies) != len(requests):
            raise RuntimeError("judge backend returned a different number of replies")
        return replies

    # --- pairwise -------------------------------------------------------------------------
    def judge_pairs(
        self,
        pairs: Sequence[tuple[str, str]],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[PairwiseJudgment]:
        """Compare each (A, B) pair on the five dimensions (both orders when `both_orders`)."""
        prompt = self.prompts.pairwise()
        requests = [ChatRequest((a, b), prompt) for a, b in pairs]
        if self.both_orders:
            requests += [ChatRequest((b, a), prompt) for a, b in pairs]
        counter = _Counter(len(requests), progress, "pairwise judgments")
        replies = self._run(requests, counter, cancel)
        forward = [self._pairwise(a, b, r) for (a, b), r in zip(pairs, replies, strict=False)]
        if not self.both_orders:
            return forward
        reverse = [
            self._pairwise(b, a, r) for (a, b), r in zip(pairs, replies[len(pairs) :], strict=True)
        ]
        return [combine_orders(f, r) for f, r in zip(forward, reverse, strict=True)]

    def _pairwise(self, first: str, second: str, reply: Reply) -> PairwiseJudgment:
        if reply.text is None:
            return PairwiseJudgment(
                first, second, dict.fromkeys(DIMENSIONS), False, "", self.judge_id,
                NO_ANSWER + reply.error, reply.seconds,
            )  # fmt: skip
        result = parse_pairwise(reply.text)
        rationale = _with_notes(result.rationale, result.notes)
        return PairwiseJudgment(
            first, second, result.outcome, result.parsed, reply.text, self.judge_id, rationale,
            reply.seconds,
        )  # fmt: skip

    # --- pointwise ------------------------------------------------------------------------
    def score_items(
        self,
        items: Sequence[str],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[PointwiseJudgment]:
        """Score each item on the five dimensions (1..5) by asking for the JSON scores."""
        prompt = self.prompts.pointwise()
        requests = [ChatRequest((item,), prompt) for item in items]
        replies = self._run(requests, _Counter(len(requests), progress, "scores"), cancel)
        records = []
        for item, reply in zip(items, replies, strict=True):
            if reply.text is None:
                records.append(
                    PointwiseJudgment(
                        item, dict.fromkeys(DIMENSIONS), False, "", self.judge_id,
                        NO_ANSWER + reply.error, reply.seconds,
                    )
                )
                continue
            result = parse_pointwise(reply.text)
            records.append(
                PointwiseJudgment(
                    item, result.scores, result.parsed, reply.text, self.judge_id,
                    _with_notes(result.rationale, result.notes), reply.seconds,
                )
            )
        return records

    # --- set selection --------------------------------------------------------------------
    def orderings_for(self, items: Sequence[str], set_index: int = 0) -> list[tuple[str, ...]]:
        """The given order first, then distinct seeded shuffles (as many as asked and possible)."""
        rng = random.Random(self.seed * 1_000_003 + set_index)
        orderings = [tuple(items)]
        attempts = 0
        while len(orderings) < self.set_orderings and attempts < 50:
            attempts += 1
            shuffled = list(items)
            rng.shuffle(shuffled)
            if tuple(shuffled) not in orderings:
                orderings.append(tuple(shuffled))
        return orderings

    def select_best_worst(
        self,
        sets: Sequence[Sequence[str]],
        explain: bool = False,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[SetJudgment]:
        """Best and worst of each set (2..8 items), voted over orderings; `explain` runs three stages."""
        jobs = [
            (set_index, ordering_index, ordering)
            for set_index, items in enumerate(sets)
            for ordering_index, ordering in enumerate(self.orderings_for(items, set_index))
        ]
        calls = len(jobs) * (len(STAGES) if explain else 1)
        counter = _Counter(calls, progress, "set selections")
        if explain:
            texts, stage_texts = self._explained(jobs, counter, cancel)
        else:
            requests = [
                ChatRequest(
                    ordering, self.prompts.set_selection(len(ordering), self.set_per_dimension)
                )
                for _, _, ordering in jobs
            ]
            texts = self._run(requests, counter, cancel)
            stage_texts = [()] * len(jobs)
        results = []
        for set_index, items in enumerate(sets):
            mine = [k for k, job in enumerate(jobs) if job[0] == set_index]
            results.append(
                self._vote(
                    tuple(items),
                    [jobs[k][2] for k in mine],
                    [texts[k] for k in mine],
                    [stage_texts[k] for k in mine],
                )
            )
        return results

    def _explained(
        self,
        jobs: list[tuple[int, int, tuple[str, ...]]],
        counter: _Counter,
        cancel: CancelToken | None,
    ) -> tuple[list[Reply], list[tuple[str, ...]]]:
        analyses = self._stage(jobs, counter, cancel, "analyser", [()] * len(jobs))
        critiques = self._stage(jobs, counter, cancel, "critic", [(a,) for a in analyses])
        summaries = self._run(
            [
                ChatRequest(o, self.prompts.summariser(len(o), a, c))
                for (_, _, o), a, c in zip(jobs, analyses, critiques, strict=True)
            ],
            counter,
            cancel,
        )
        for (set_index, ordering_index, _), reply in zip(jobs, summaries, strict=True):
            self._report(set_index, ordering_index, "summariser", reply.text or "")
        stage_texts = [
            (a, c, s.text or "") for a, c, s in zip(analyses, critiques, summaries, strict=True)
        ]
        return summaries, stage_texts

    def _stage(
        self,
        jobs: list[tuple[int, int, tuple[str, ...]]],
        counter: _Counter,
        cancel: CancelToken | None,
        stage: str,
        previous: list[tuple[str, ...]],
    ) -> list[str]:
        requests = []
        for (_, _, ordering), before in zip(jobs, previous, strict=True):
            if stage == "analyser":
                prompt = self.prompts.analyser(len(ordering))
            else:
                prompt = self.prompts.critic(len(ordering), before[0])
            requests.append(ChatRequest(ordering, prompt))
        texts = []
        for (set_index, ordering_index, _), reply in zip(
            jobs, self._run(requests, counter, cancel), strict=True
        ):
            text = parse_free_text(reply.text) if reply.text is not None else ""
            if reply.text is None:
                text = f"({NO_ANSWER}{reply.error})"
            self._report(set_index, ordering_index, stage, text)
            texts.append(text)
        return texts

    def _report(self, set_index: int, ordering_index: int, stage: str, text: str) -> None:
        if self.on_stage is not None:
            self.on_stage(StageEvent(set_index, ordering_index, stage, text))

    def _vote(
        self,
        items: tuple[str, ...],
        orderings: list[tuple[str, ...]],
        replies: list[Reply],
        stages: list[tuple[str, ...]],
    ) -> SetJudgment:
        votes: list[tuple[str | None, str | None]] = []
        dimension_votes: dict[str, list[tuple[str | None, str | None]]] = {}
        rationale = ""
        failures = []
        for ordering, reply in zip(orderings, replies, strict=True):
            if reply.text is None:
                votes.append((None, None))
                failures.append(reply.error)
                continue
            result = parse_set(reply.text, len(ordering))
            best = ordering[result.best] if result.best is not None else None
            worst = ordering[result.worst] if result.worst is not None else None
            votes.append((best, worst))
            for dimension, (b, w) in result.per_dimension.items():
                dimension_votes.setdefault(dimension, []).append(
                    (ordering[b] if b is not None else None, ordering[w] if w is not None else None)
                )
            if result.parsed and not rationale:
                rationale = _with_notes(result.rationale, result.notes)
        valid = [(b, w) for b, w in votes if b is not None and w is not None]
        best = _majority([b for b, _ in valid])
        worst = _majority([w for _, w in valid if w != best])
        parsed = best is not None and worst is not None
        per_dimension: dict[str, tuple[str | None, str | None]] = {}
        for dimension, pairs in dimension_votes.items():
            d_best = _majority([b for b, _ in pairs if b is not None])
            d_worst = _majority([w for _, w in pairs if w is not None and w != d_best])
            per_dimension[dimension] = (d_best, d_worst)
        if not valid:
            rationale = NO_ANSWER + failures[0] if len(failures) == len(replies) else rationale
            if not rationale:
                rationale = "no ordering gave a valid best and worst"
        raw = "\n\n----- next ordering -----\n\n".join(r.text or "" for r in replies)
        return VotedSetJudgment(
            items=items,
            best=best if parsed else None,
            worst=worst if parsed else None,
            per_dimension=per_dimension,
            parsed=parsed,
            raw=raw,
            judge_id=self.judge_id,
            rationale=rationale,
            stages=stages[0] if stages else (),
            seconds=sum(r.seconds for r in replies),
            orderings=tuple(orderings),
            votes=tuple(votes),
            all_orderings_agree=parsed and all(v == (best, worst) for v in votes),
        )


def _majority(choices: list[str | None]) -> str | None:
    """The most frequent choice; ties go to the item chosen first (the given order's answer)."""
    if not choices:
        return None
    counts = Counter(choices)
    top = max(counts.values())
    return next(c for c in choices if counts[c] == top)


def combine_orders(forward: PairwiseJudgment, reverse: PairwiseJudgment) -> OrderedPairwiseJudgment:
    """Merge (A, B) with the (B, A) judgment of the same pair; see OrderedPairwiseJudgment."""
    back = reverse.swapped()
    outcome: dict[str, Outcome | None] = {}
    agreements = 0
    answered_both = 0
    for dimension in DIMENSIONS:
        a, b = forward.outcome.get(dimension), back.outcome.get(dimension)
        if a is not None and b is not None:
            answered_both += 1
            agreements += a == b
            outcome[dimension] = a if a == b else "TIE"
        else:
            outcome[dimension] = a if a is not None else b
    parsed = any(v is not None for v in outcome.values())
    rationale = forward.rationale or reverse.rationale
    if is_failure(forward) and is_failure(reverse):
        rationale = forward.rationale
    return OrderedPairwiseJudgment(
        first=forward.first,
        second=forward.second,
        outcome=outcome,
        parsed=parsed,
        raw=forward.raw,
        judge_id=forward.judge_id,
        rationale=rationale,
        seconds=forward.seconds + reverse.seconds,
        consistency=agreements / answered_both if answered_both else None,
        reverse_raw=reverse.raw,
    )


def _with_notes(rationale: str, notes: tuple[str, ...]) -> str:
    if not notes:
        return rationale
    suffix = "[parse notes: " + "; ".join(notes) + "]"
    return f"{rationale}\n{suffix}" if rationale else suffix
