"""The protocol logic shared by every prompt-driven judge (local transformers, OpenAI-compatible server).

A backend only turns chat requests (images + prompt text) into reply texts; this module builds the
prompts, runs pairs in both orders and sets under several orderings (docs/method.md §3), and chains the three
explanation stages (docs/method.md §4). Replies become judgments — parsed, combined, voted, or recorded as
unparsed, never as an invented answer — in ml/judge_replies.py; its names are importable from here.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.engine.parsing import parse_free_text
from aesthete_gui.engine.prompts import Prompt, PromptBook
from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.ml.judge_replies import (
    NO_ANSWER,
    OrderedPairwiseJudgment,
    Reply,
    VotedSetJudgment,
    combine_orders,
    is_failure,
    pairwise_record,
    pointwise_record,
    vote_orderings,
)

__all__ = [
    "NO_ANSWER",
    "STAGES",
    "ChatRequest",
    "JudgeUnavailable",
    "OrderedPairwiseJudgment",
    "PromptJudge",
    "Reply",
    "StageCallback",
    "StageEvent",
    "VotedSetJudgment",
    "combine_orders",
    "is_failure",
]

STAGES = ("analyser", "critic", "summariser")


class JudgeUnavailable(AestheteError):
    """The judge cannot be used at all (server unreachable, bad credentials, model not loadable)."""


@dataclass(frozen=True)
class ChatRequest:
    """One model call: the images (paths, in order) followed by the prompt text."""

    images: tuple[str, ...]
    prompt: Prompt


@dataclass(frozen=True)
class StageEvent:
    """One finished explanation stage, reported to the GUI as it arrives."""

    set_index: int
    ordering_index: int
    stage: str
    text: str


StageCallback = Callable[[StageEvent], None]


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
        forward = [
            pairwise_record(a, b, r, self.judge_id)
            for (a, b), r in zip(pairs, replies, strict=False)
        ]
        if not self.both_orders:
            return forward
        reverse = [
            pairwise_record(b, a, r, self.judge_id)
            for (a, b), r in zip(pairs, replies[len(pairs) :], strict=True)
        ]
        return [combine_orders(f, r) for f, r in zip(forward, reverse, strict=True)]

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
        return [
            pointwise_record(item, reply, self.judge_id)
            for item, reply in zip(items, replies, strict=True)
        ]

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
                vote_orderings(
                    tuple(items),
                    [jobs[k][2] for k in mine],
                    [texts[k] for k in mine],
                    [stage_texts[k] for k in mine],
                    self.judge_id,
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
        stage_texts: list[tuple[str, ...]] = [
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
