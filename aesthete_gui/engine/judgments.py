"""Judgment records (pointwise, pairwise, set selection) and the Judge protocol every backend implements.

Items are identified by strings. For image judges the string is the image's file path (as stored
in the profile); the engine itself never opens an item. A record is either parsed (its values come
from the judge) or unparsed (values are None and `raw` keeps what the judge said): nothing is
ever invented for a reply that did not parse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.jobs import CancelToken, ProgressCallback

Outcome = Literal["A", "B", "TIE"]

NO_ANSWER = "no answer from the judge: "
"""Rationale prefix of a record for a call that got no reply at all (error, timeout)."""


def _empty_outcomes() -> dict[str, Outcome | None]:
    return dict.fromkeys(DIMENSIONS)


@dataclass(frozen=True)
class PairwiseJudgment:
    """One comparison: `first` was shown as A, `second` as B; outcome per dimension (None = missing)."""

    first: str
    second: str
    outcome: Mapping[str, Outcome | None] = field(default_factory=_empty_outcomes)
    parsed: bool = True
    raw: str = ""
    judge_id: str = ""
    rationale: str = ""
    seconds: float = 0.0

    def winner(self, dimension: str) -> str | None:
        """The winning item for `dimension`, "tie", or None when that dimension has no outcome."""
        value = self.outcome.get(dimension)
        if value == "A":
            return self.first
        if value == "B":
            return self.second
        if value == "TIE":
            return "tie"
        return None

    def score_for_first(self, dimension: str) -> float | None:
        """1, 0.5 or 0 from the first item's point of view, or None when missing."""
        value = self.outcome.get(dimension)
        return {"A": 1.0, "TIE": 0.5, "B": 0.0}.get(value) if value is not None else None

    def swapped(self) -> PairwiseJudgment:
        """The same judgment seen with A and B exchanged (outcomes flipped)."""
        flip: dict[Outcome | None, Outcome | None] = {"A": "B", "B": "A", "TIE": "TIE", None: None}
        return PairwiseJudgment(
            first=self.second,
            second=self.first,
            outcome={d: flip[v] for d, v in self.outcome.items()},
            parsed=self.parsed,
            raw=self.raw,
            judge_id=self.judge_id,
            rationale=self.rationale,
            seconds=self.seconds,
        )


@dataclass(frozen=True)
class PointwiseJudgment:
    """One image scored on the five dimensions, each a float in 1..5 or None when missing."""

    item: str
    scores: Mapping[str, float | None] = field(default_factory=lambda: dict.fromkeys(DIMENSIONS))
    parsed: bool = True
    raw: str = ""
    judge_id: str = ""
    rationale: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class SetJudgment:
    """Best and worst of 2..8 items in the order shown; optional per-dimension best/worst.

    `stages` holds the texts of a multi-stage explanation (analyser, critic, summariser) when one
    was asked for.
    """

    items: tuple[str, ...]
    best: str | None = None
    worst: str | None = None
    per_dimension: Mapping[str, tuple[str | None, str | None]] = field(default_factory=dict)
    parsed: bool = True
    raw: str = ""
    judge_id: str = ""
    rationale: str = ""
    stages: tuple[str, ...] = ()
    seconds: float = 0.0


@runtime_checkable
class Judge(Protocol):
    """Anything that answers the three protocols of docs/method.md §3 for batches of items.

    Methods return one record per request, in request order. A reply that cannot be parsed is
    returned as a record with parsed=False and the raw text kept. Backends that talk to a slow
    model should check `cancel` between calls and report `progress` in requests done.
    """

    judge_id: str

    def judge_pairs(
        self,
        pairs: Sequence[tuple[str, str]],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[PairwiseJudgment]:
        """Compare each (A, B) pair on the five dimensions."""
        ...

    def score_items(
        self,
        items: Sequence[str],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[PointwiseJudgment]:
        """Score each item on the five dimensions (1..5)."""
        ...

    def select_best_worst(
        self,
        sets: Sequence[Sequence[str]],
        explain: bool = False,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[SetJudgment]:
        """Name the best and worst item of each set (2..8 items); `explain` asks for the three stages."""
        ...


def is_failure(record: PairwiseJudgment | PointwiseJudgment | SetJudgment) -> bool:
    """True when the judge gave no answer at all (error, timeout), as opposed to an unparsable one."""
    return not record.parsed and record.rationale.startswith(NO_ANSWER)
