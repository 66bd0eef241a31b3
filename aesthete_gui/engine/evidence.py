"""How much judging must have happened before judgments become scores: the minima, in one place.

A judgment that did not happen (no answer) or did not parse is never an outcome, a rating or a
score. On top of that, a score needs enough real evidence behind it:

- MIN_PARSED_COMPARISONS_PER_IMAGE: an image gets a score on a dimension only from at least this
  many parsed comparisons on that dimension (against rated references of the pool); below it the
  image is left unscored on that dimension, with the reason, instead of taking the prior.
- MIN_PARSED_FRACTION: a run whose judge answered with a usable judgment in fewer than this share
  of its calls (failed calls and unparsed replies both count against it) stores no scores and
  trains nothing; it ends "failed" with the counts, and its stored judgments stay for a resume.
- MAX_CONSECUTIVE_FAILED_CALLS: this many calls in a row without any answer (server down, every
  retry spent) stop a run early instead of asking a broken server for hours.

Every place that turns judgments into scores (the bridge, distillation, the student's training
data) reads these constants; `judging_shortfall` is the run-level check.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_PARSED_COMPARISONS_PER_IMAGE = 3
"""Parsed comparisons an image needs on a dimension before it gets a score on that dimension."""

MIN_PARSED_FRACTION = 0.8
"""Share of a run's judge calls that must give a parsed judgment before any score is stored."""

MAX_CONSECUTIVE_FAILED_CALLS = 8
"""Calls in a row with no answer at all after which a run stops as failed."""


@dataclass(frozen=True)
class JudgmentCounts:
    """A run's judge calls: asked (new or reused), parsed, failed (no answer), unparsed (answer kept raw)."""

    asked: int
    parsed: int
    failed: int
    unparsed: int

    @property
    def parsed_fraction(self) -> float:
        """Parsed share of the calls asked (0 when nothing was asked)."""
        return self.parsed / self.asked if self.asked else 0.0

    def describe(self) -> str:
        """'12 asked, 3 parsed, 8 failed (no answer), 1 unparsed'."""
        return (
            f"{self.asked} asked, {self.parsed} parsed, {self.failed} failed (no answer), "
            f"{self.unparsed} unparsed"
        )


class JudgeNotAnswering(RuntimeError):
    """The judge gave no answer to MAX_CONSECUTIVE_FAILED_CALLS calls in a row; says the last reason."""

    def __init__(self, message: str, counts: JudgmentCounts) -> None:
        super().__init__(message)
        self.counts = counts


def judging_shortfall(
    counts: JudgmentCounts, min_fraction: float = MIN_PARSED_FRACTION
) -> str | None:
    """Why `counts` are too few to turn into scores, or None when they are enough."""
    if counts.asked == 0 or counts.parsed == 0:
        return f"no judgment parsed ({counts.describe()})"
    if counts.parsed_fraction < min_fraction:
        return (
            f"only {counts.parsed_fraction:.0%} of the judge's calls gave a parsed judgment "
            f"({counts.describe()}); at least {min_fraction:.0%} must"
        )
    return None
