"""Set judging without Qt: the judge job, its outcome, and the pairwise choices a verdict implies."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aesthete_gui.engine.judgments import SetJudgment
from aesthete_gui.jobs import CancelToken, ProgressCallback

if TYPE_CHECKING:
    from aesthete_gui.ml.prompt_judge import PromptJudge
    from aesthete_gui.store import Profile

SET_ORDERINGS = 3


def choices_from_verdict(order: Sequence[int], best: int, worst: int) -> list[tuple[int, int, str]]:
    """The pairwise choices a best/worst verdict implies, as (image_a, image_b, winner).

    The best beats every other image and every other image beats the worst; within each pair the
    image shown first in the set is `image_a` (the order on screen is kept).
    """
    if best == worst:
        raise ValueError("best and worst must be different images")
    if best not in order or worst not in order:
        raise ValueError("best and worst must both be in the set")
    position = {image_id: index for index, image_id in enumerate(order)}
    wins: list[tuple[int, int]] = [(best, other) for other in order if other != best]
    wins += [(other, worst) for other in order if other not in (best, worst)]
    choices = []
    for winner, loser in wins:
        if position[winner] < position[loser]:
            choices.append((winner, loser, "a"))
        else:
            choices.append((loser, winner, "b"))
    return choices


StageSink = Callable[[Any], None]
"""Receives each finished explanation stage (ml.prompt_judge.StageEvent), in the worker thread."""
JudgeFactory = Callable[[Mapping[str, Any], StageSink], "PromptJudge"]
"""Builds the configured judge from the settings, wired to report each stage as it finishes."""


@dataclass(frozen=True)
class SetOutcome:
    """The judge's verdict on one set, with how stable it was and how subjective its wording."""

    judgment: SetJudgment
    orderings: int
    agreeing: int
    subjectivity: float
    subjective_words: tuple[str, ...]

    @property
    def best(self) -> str | None:
        """The path voted best, or None when the reply could not be read."""
        return self.judgment.best

    @property
    def worst(self) -> str | None:
        """The path voted worst, or None."""
        return self.judgment.worst

    @property
    def stages(self) -> tuple[str, ...]:
        """Analyser, critic and summariser texts of the first ordering."""
        return tuple(self.judgment.stages)

    @property
    def judge_id(self) -> str:
        """Which judge answered."""
        return self.judgment.judge_id


def default_judge_factory(settings: Mapping[str, Any], on_stage: StageSink) -> PromptJudge:
    """The judge named in the settings: a server, a local folder or a downloaded hub id."""
    from dataclasses import replace

    from aesthete_gui.services.compare import JudgeSpec, open_judge

    spec = JudgeSpec.from_settings(settings.get("judge"), settings.get("judge_server_model"),
                                   settings.get("preset") or "photography")  # fmt: skip
    if spec is None:
        raise ValueError("no judge model is set up (Models ▸ Model manager)")
    return open_judge(replace(spec, set_orderings=SET_ORDERINGS), on_stage=on_stage)


def judge_set_job(
    factory: JudgeFactory,
    settings: Mapping[str, Any],
    profile: Profile,
    paths: Sequence[str],
    on_stage: StageSink,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> SetOutcome:
    """Ask the judge for best and worst with the three-stage explanation; the judgment is stored."""
    from aesthete_gui.services import compare

    judge = factory(settings, on_stage)
    record = compare.compare_set(
        judge, list(paths), explain=True, profile=profile, progress=progress, cancel=cancel
    )
    votes = tuple(getattr(record, "votes", ()) or ((record.best, record.worst),))
    agreeing = sum(
        1 for vote in votes if record.best is not None and vote == (record.best, record.worst)
    )
    report = compare.explanation_subjectivity(record)
    return SetOutcome(record, len(votes), agreeing, report.rate, report.found)


def describe_outcome(outcome: SetOutcome, names: Mapping[str, str]) -> str:
    """Rich text: best, worst, consistency across orderings and the subjective-word rate."""
    best, worst = names.get(outcome.best or "", "?"), names.get(outcome.worst or "", "?")
    found = ", ".join(dict.fromkeys(outcome.subjective_words)) or "none"
    text = (
        f"<b>Judge: best {best}, worst {worst}.</b> Same verdict in {outcome.agreeing} of "
        f"{outcome.orderings} orderings of the set. Hedge and feeling words: "
        f"{outcome.subjectivity:.1%} of the explanation ({found}) — lower is more concrete."
    )
    per_dimension = [
        f"{dimension}: {names.get(b or '', '?')} / {names.get(w or '', '?')}"
        for dimension, (b, w) in outcome.judgment.per_dimension.items()
        if b is not None and w is not None and dimension != "overall"
    ]
    if per_dimension:
        text += "<br>Best / worst per dimension — " + "; ".join(per_dimension)
    return text
