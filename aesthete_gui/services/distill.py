"""Distillation run (docs/method.md §5–§6): a judge's pairwise judgments → calibrated pseudo-scores → fast student.

The engine's reference-pool bridge runs over the profile's readable images. Every judgment is
stored in the profile (under this run) the moment its batch returns, and a run that was stopped —
cancelled, crashed, killed — resumes from the stored judgments without asking the judge again.
Progress says calls done and left and an ETA from the pace of this session's new calls. The
calibrated scores are stored as scorer "bridge:<judge id>"; then a fast student is trained on them.

No judgment, no score (engine/evidence.py holds the minima): a run in which too few of the judge's
calls gave a parsed judgment, or whose judge stopped answering, stores no score and trains no
student; it ends "failed" with the counts (DistillFailed) and its stored judgments stay for a
resume. An image with too few parsed comparisons on a dimension gets no score there and is listed
among the summary's `unscored` images with its counts.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.evidence import (
    MIN_PARSED_COMPARISONS_PER_IMAGE,
    JudgeNotAnswering,
    JudgmentCounts,
    judging_shortfall,
)
from aesthete_gui.engine.judgments import Judge, PairwiseJudgment, is_failure
from aesthete_gui.engine.rubrics import load_preset
from aesthete_gui.engine.scorers import ScorerKind
from aesthete_gui.engine.scorers import scorer_id as format_scorer_id
from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import Cancelled, CancelToken, Progress, ProgressCallback
from aesthete_gui.safe_names import check_name
from aesthete_gui.services.scoring import write_scores
from aesthete_gui.store import Profile

RUN_KIND = "distill"


class DistillError(AestheteError, ValueError):
    """A distillation cannot start or finish (no images, judge unavailable …); says why."""


class DistillFailed(DistillError):
    """The run ended "failed" without storing scores; `summary` has the counts (also on the run)."""

    def __init__(self, message: str, summary: dict[str, Any]) -> None:
        super().__init__(message)
        self.summary = summary


@dataclass(frozen=True)
class DistillOptions:
    """Bridge settings (pool N, references K, adaptive choice, seed) and the student to train."""

    pool: int = 50
    refs: int = 10
    adaptive: bool = False
    seed: int = 0
    batch_size: int = 8
    student: str | None = "student"
    preset: str = "photography"


@dataclass(frozen=True)
class UnscoredImage:
    """An image left without a score: its parsed comparisons per dimension and the minimum needed."""

    image_id: int
    parsed_comparisons: Mapping[str, int]
    needs: int


@dataclass(frozen=True)
class StudentSummary:
    """The fast student trained on the pseudo-scores: its scorer id, images trained on, card metrics."""

    scorer_id: str
    images: int
    metrics: Mapping[str, Any]


@dataclass(frozen=True)
class DistillSummary:
    """A finished distillation: its run, the pseudo-scores' scorer id, call and judgment counts,
    the images left unscored (by id), the options and the student (None when none was trained)."""

    run_id: int
    pseudo_scores: str
    images: int
    scored: int
    pool: int
    calls_planned: int
    calls_made: int
    calls_reused: int
    asked: int
    parsed: int
    failed: int
    unparsed: int
    unscored: tuple[UnscoredImage, ...]
    options: DistillOptions
    student: StudentSummary | None = None


def make_judge(
    model: str | None,
    endpoint: str | None,
    endpoint_model: str | None,
    preset: str,
    api_key_env: str | None = None,
    max_new_tokens: int | None = None,
) -> Judge:
    """A local judge (model folder) or an OpenAI-compatible endpoint's, built like `aesthete judge` does."""
    from aesthete_gui.services.compare import JudgeSpec, open_judge

    if endpoint:
        if not endpoint_model:
            raise DistillError("--endpoint needs --model NAME (the server's model name)")
        spec = JudgeSpec(model=endpoint_model, endpoint=endpoint, api_key_env=api_key_env, preset=preset, max_new_tokens=max_new_tokens)
    elif model:
        spec = JudgeSpec(model=model, preset=preset, max_new_tokens=max_new_tokens)
    else:
        raise DistillError("no judge given: a local model folder or an endpoint is needed")
    from aesthete_gui.ml.prompt_judge import JudgeUnavailable

    try:
        return open_judge(spec)
    except (OSError, ValueError, JudgeUnavailable) as error:
        raise DistillError(f"cannot set up the judge: {error}") from error


class _Pace:
    """Turns the bridge's progress into calls done / left and an ETA from this session's new calls."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.progress = progress
        self.started: float | None = None
        self.new_calls = 0

    def judged(self) -> None:
        if self.started is None:
            self.started = time.monotonic()
        self.new_calls += 1

    def __call__(self, report: Progress) -> None:
        if self.progress is None:
            return
        total = report.total or 0
        left = max(0, total - report.done)
        eta = ""
        if self.started is not None and self.new_calls:
            seconds = left * (time.monotonic() - self.started) / self.new_calls
            eta = f", about {int(seconds // 60)} min {int(seconds % 60):02d} s left"
        self.progress(Progress(report.done, total, f"{report.message}: {report.done} calls done, {left} left{eta}"))


def _resumable_run(profile: Profile, params: dict[str, Any]) -> int:
    """The newest unfinished distillation with the same settings, or a new run."""
    for run in reversed(profile.runs.all(RUN_KIND)):
        if run.status != "done" and all(run.params.get(k) == v for k, v in params.items()):
            profile.runs.update(run.id, status="running")
            return run.id
    return profile.runs.create(RUN_KIND, params)


def distill_profile(
    profile: Profile,
    judge: Judge,
    options: DistillOptions = DistillOptions(),
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> DistillSummary:
    """Run (or resume) the bridge with `judge`, store the pseudo-scores, train the student; return a summary.

    DistillFailed when too few judgments parsed (nothing stored but the judgments), DistillError
    when the judge cannot be used at all."""
    from aesthete_gui.engine.bridge import BridgeConfig, run_bridge

    if options.student:
        check_name(options.student, "student name")  # before any judge call: the name becomes a file
    images = sorted(profile.catalog.images(status="ok"), key=lambda r: r.id)
    _check_enough_comparisons(len(images), options)
    preset_version = str(load_preset(options.preset).version)
    params = {"judge": judge.judge_id, "pool": options.pool, "refs": options.refs, "adaptive": options.adaptive, "seed": options.seed, "preset": options.preset}
    run_id = _resumable_run(profile, params)
    previous = [j for j in profile.judgments.records(run_id=run_id, protocol="pairwise") if isinstance(j, PairwiseJudgment)]
    pace = _Pace(progress)
    problems = _Problems()

    def sink(record: PairwiseJudgment) -> None:
        pace.judged()
        problems.note(record)
        if not is_failure(record):  # a failed call (server down) is asked again on resume
            profile.judgments.add(record, run_id=run_id, preset=options.preset, preset_version=preset_version)

    config = BridgeConfig(
        pool_size=options.pool, references_per_item=options.refs,
        reference_choice="adaptive" if options.adaptive else "random",
        batch_size=options.batch_size, seed=options.seed,
    )  # fmt: skip
    try:
        result = run_bridge([r.path for r in images], judge, config, sink=sink, previous=previous, progress=pace, cancel=cancel)
    except Cancelled:
        profile.runs.update(run_id, status="cancelled")
        raise
    except JudgeNotAnswering as error:
        _fail(profile, run_id, str(error), error.counts, problems, len(images), options)
    except Exception as error:
        profile.runs.update(run_id, status="failed")
        _raise_if_judge_unusable(error)
        raise
    counts = result.calls.counts()
    shortfall = judging_shortfall(counts)
    scored = [(record.id, result.scores_for(record.path)) for record in images]
    scored = [(image_id, scores) for image_id, scores in scored if scores]
    if shortfall is None and not scored:
        shortfall = f"no image reached {result.min_comparisons} parsed comparisons ({counts.describe()})"
    if shortfall is not None:
        _fail(profile, run_id, shortfall, counts, problems, len(images), options)
    scorer_id = format_scorer_id(ScorerKind.BRIDGE, judge.judge_id)
    id_of = {record.path: record.id for record in images}
    summary = DistillSummary(
        run_id=run_id, pseudo_scores=scorer_id, images=len(images), scored=len(scored), pool=len(result.pool),
        calls_planned=result.calls.planned, calls_made=result.calls.made, calls_reused=result.calls.reused,
        asked=counts.asked, parsed=counts.parsed, failed=counts.failed, unparsed=counts.unparsed,
        unscored=tuple(UnscoredImage(id_of[path], short, result.min_comparisons) for path, short in result.unscored()),
        options=options,
    )  # fmt: skip
    try:
        write_scores(profile, scorer_id, scored, scorer_version=f"run-{run_id}", preset=options.preset, preset_version=preset_version)
        if options.student:
            student = train_student_from_profile(profile, options.student, scorer_id, {"judge": judge.judge_id, "run_id": run_id}, progress, cancel)
            summary = replace(summary, student=student)
    except Cancelled:
        profile.runs.update(run_id, status="cancelled", result=asdict(summary))
        raise
    except Exception:
        profile.runs.update(run_id, status="failed", result=asdict(summary))
        raise
    profile.runs.update(run_id, status="done", done=result.calls.done, total=result.calls.planned, result=asdict(summary))
    return summary


def _check_enough_comparisons(image_count: int, options: DistillOptions) -> None:
    """Refuse settings under which no image could reach the minimum of parsed comparisons."""
    needed = MIN_PARSED_COMPARISONS_PER_IMAGE
    if image_count < needed + 1:
        raise DistillError(
            f"distillation needs at least {needed + 1} readable images (each image needs {needed} "
            f"parsed comparisons with others); the profile has {image_count}"
        )
    if options.pool < needed + 1:
        raise DistillError(f"the pool must hold at least {needed + 1} images (each pool image needs {needed} parsed comparisons); got {options.pool}")
    if image_count > options.pool and options.refs < needed:
        raise DistillError(f"each image needs {needed} parsed comparisons against the pool: references per image must be at least {needed}; got {options.refs}")


def _count_fields(counts: JudgmentCounts) -> dict[str, int]:
    return {"asked": counts.asked, "parsed": counts.parsed, "failed": counts.failed, "unparsed": counts.unparsed}


class _Problems:
    """The latest failed call's reason and unparsed reply, for the failure message."""

    def __init__(self) -> None:
        self.last = ""

    def note(self, record: PairwiseJudgment) -> None:
        if is_failure(record):
            self.last = record.rationale
        elif not record.parsed:
            text = re.sub(r"\s+", " ", record.raw).strip()
            self.last = f"reply not understood: {text[:80]!r}"


def _fail(
    profile: Profile, run_id: int, reason: str, counts: JudgmentCounts, problems: _Problems,
    image_count: int, options: DistillOptions,
) -> None:  # fmt: skip
    """Mark the run failed with its counts and raise DistillFailed; nothing is stored but judgments."""
    kept = len(profile.judgments.records(run_id=run_id))
    summary = {"run_id": run_id, "status": "failed", "reason": reason, "images": image_count, **_count_fields(counts), "judgments_kept": kept, "options": asdict(options)}
    profile.runs.update(run_id, status="failed", done=counts.asked, result=summary)
    last = f" Last problem: {problems.last}." if problems.last and problems.last not in reason else ""
    raise DistillFailed(
        f"distillation failed: {reason}. No scores were stored and no student was trained; "
        f"{kept} stored judgments are kept in run {run_id} (run it again to resume).{last}",
        summary,
    )


def _raise_if_judge_unusable(error: Exception) -> None:
    """A judge that cannot be reached, refuses the key or cannot load becomes a DistillError."""
    from aesthete_gui.ml.loading import ModelLoadError
    from aesthete_gui.ml.prompt_judge import JudgeUnavailable

    if isinstance(error, JudgeUnavailable | ModelLoadError):
        raise DistillError(f"the judge cannot be used: {error}") from error


def train_student_from_profile(
    profile: Profile,
    name: str,
    scorer_id: str,
    provenance: dict[str, Any] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> StudentSummary:
    """Train the fast student `name` on the profile's `scorer_id` pseudo-scores; return its card's essentials."""
    from aesthete_gui.services.scoring import library_arrays, profile_models_dir
    from aesthete_gui.training.distill import train_student

    arrays = library_arrays(profile, with_embeddings=True, progress=progress, cancel=cancel)
    stored = profile.scores.of_scorer(scorer_id)
    rows = [i for i, r in enumerate(arrays.images) if len(stored.get(r.id, {})) == len(DIMENSIONS)]
    if len(rows) < 4:
        raise DistillError(f"only {len(rows)} images have pseudo-scores from {scorer_id}; a student needs 4")
    pseudo = np.array([[stored[arrays.images[i].id][d] for d in DIMENSIONS] for i in rows])
    embeddings = arrays.embeddings[rows] if arrays.embeddings is not None else None
    card = {"encoder": arrays.encoder_id, "encoder_name": None, "pseudo_scores": scorer_id, "profile": str(profile.path), **(provenance or {})}
    from aesthete_gui.imaging.features import FEATURE_VERSION

    card["feature_version"] = str(FEATURE_VERSION)
    student = train_student(name, embeddings, arrays.feature_names, arrays.features[rows], pseudo, profile_models_dir(profile), card, progress=progress, cancel=cancel)
    return StudentSummary(student.scorer_id, len(rows), student.card["metrics"])
