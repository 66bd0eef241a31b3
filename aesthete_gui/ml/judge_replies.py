"""Judge replies turned into judgments: parsed records, a pair's two orders combined, set votes.

Shared by every prompt-driven judge (ml/prompt_judge.py). Replies are parsed with engine.parsing;
a reply that did not parse — or never came — is recorded as unparsed, never as an invented answer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import (
    NO_ANSWER,
    Outcome,
    PairwiseJudgment,
    PointwiseJudgment,
    SetJudgment,
    is_failure,
)
from aesthete_gui.engine.parsing import parse_pairwise, parse_pointwise, parse_set

__all__ = [
    "NO_ANSWER",
    "OrderedPairwiseJudgment",
    "Reply",
    "VotedSetJudgment",
    "combine_orders",
    "is_failure",
    "pairwise_record",
    "pointwise_record",
    "vote_orderings",
]


@dataclass(frozen=True)
class Reply:
    """The text a backend got back, or the reason it got none (`text` None; `raw` keeps what came
    instead of text, e.g. a server's content that was not a string, as JSON)."""

    text: str | None
    error: str = ""
    seconds: float = 0.0
    raw: str = ""


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


def pairwise_record(first: str, second: str, reply: Reply, judge_id: str) -> PairwiseJudgment:
    """The judgment of (first, second) from one reply, or a recorded failure when none came."""
    if reply.text is None:
        return PairwiseJudgment(
            first, second, dict.fromkeys(DIMENSIONS), False, reply.raw, judge_id,
            _why_no_text(reply), reply.seconds,
        )  # fmt: skip
    result = parse_pairwise(reply.text)
    rationale = _with_notes(result.rationale, result.notes)
    return PairwiseJudgment(
        first, second, result.outcome, result.parsed, reply.text, judge_id, rationale,
        reply.seconds,
    )  # fmt: skip


def pointwise_record(item: str, reply: Reply, judge_id: str) -> PointwiseJudgment:
    """The scores of one item from one reply, or a recorded failure when none came."""
    if reply.text is None:
        return PointwiseJudgment(
            item, dict.fromkeys(DIMENSIONS), False, reply.raw, judge_id,
            _why_no_text(reply), reply.seconds,
        )  # fmt: skip
    result = parse_pointwise(reply.text)
    return PointwiseJudgment(
        item, result.scores, result.parsed, reply.text, judge_id,
        _with_notes(result.rationale, result.notes), reply.seconds,
    )  # fmt: skip


def vote_orderings(
    items: tuple[str, ...],
    orderings: list[tuple[str, ...]],
    replies: list[Reply],
    stages: list[tuple[str, ...]],
    judge_id: str,
) -> SetJudgment:
    """Best and worst of a set by majority over the replies for its orderings (per dimension too)."""
    votes: list[tuple[str | None, str | None]] = []
    dimension_votes: dict[str, list[tuple[str | None, str | None]]] = {}
    rationale = unusable = ""
    failures = []
    for ordering, reply in zip(orderings, replies, strict=True):
        if reply.text is None:
            votes.append((None, None))
            if reply.raw:  # answered, but not with text: an unparsed vote
                unusable = unusable or reply.error
            else:
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
            rationale = unusable or "no ordering gave a valid best and worst"
    raw = "\n\n----- next ordering -----\n\n".join(r.text if r.text is not None else r.raw for r in replies)
    return VotedSetJudgment(
        items=items,
        best=best if parsed else None,
        worst=worst if parsed else None,
        per_dimension=per_dimension,
        parsed=parsed,
        raw=raw,
        judge_id=judge_id,
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


def _why_no_text(reply: Reply) -> str:
    """A reply that kept raw content answered unparsed; one with nothing is a failure (NO_ANSWER)."""
    return reply.error if reply.raw else NO_ANSWER + reply.error


def _with_notes(rationale: str, notes: tuple[str, ...]) -> str:
    if not notes:
        return rationale
    suffix = "[parse notes: " + "; ".join(notes) + "]"
    return f"{rationale}\n{suffix}" if rationale else suffix
