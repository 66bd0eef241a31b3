"""Distillation run (SPEC §5–§6): a judge's pairwise judgments → calibrated pseudo-scores → fast student.

The engine's reference-pool bridge runs over the profile's readable images. Every judgment is
stored in the profile (under this run) the moment its batch returns, and a run that was stopped —
cancelled, crashed, killed — resumes from the stored judgments without asking the judge again.
Progress says calls done and left and an ETA from the pace of this session's new calls. The
calibrated scores are stored as scorer "bridge:<judge id>"; then a fast student is trained on them.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import Judge, PairwiseJudgment
from aesthete_gui.engine.rubrics import load_preset
from aesthete_gui.engine.scorers import ScorerKind
from aesthete_gui.engine.scorers import scorer_id as format_scorer_id
from aesthete_gui.jobs import Cancelled, CancelToken, Progress, ProgressCallback
from aesthete_gui.services.scoring import write_scores
from aesthete_gui.store import Profile

RUN_KIND = "distill"


class DistillError(ValueError):
    """A distillation cannot start or finish (no images, judge unavailable …); says why."""


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
    try:
        return open_judge(spec)
    except (OSError, ValueError) as error:
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
    for run in reversed(profile.runs(RUN_KIND)):
        if run.status != "done" and all(run.params.get(k) == v for k, v in params.items()):
            profile.update_run(run.id, status="running")
            return run.id
    return profile.create_run(RUN_KIND, params)


def distill_profile(
    profile: Profile,
    judge: Judge,
    options: DistillOptions = DistillOptions(),
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Run (or resume) the bridge with `judge`, store the pseudo-scores, train the student; return a summary."""
    from aesthete_gui.engine.bridge import BridgeConfig, run_bridge
    from aesthete_gui.ml.prompt_judge import is_failure

    images = sorted(profile.images(status="ok"), key=lambda r: r.id)
    if len(images) < 2:
        raise DistillError("distillation needs at least two readable images in the profile")
    preset_version = str(load_preset(options.preset).version)
    params = {"judge": judge.judge_id, "pool": options.pool, "refs": options.refs, "adaptive": options.adaptive, "seed": options.seed, "preset": options.preset}
    run_id = _resumable_run(profile, params)
    previous = [j for j in profile.judgments(run_id=run_id, protocol="pairwise") if isinstance(j, PairwiseJudgment)]
    pace = _Pace(progress)

    def sink(record: PairwiseJudgment) -> None:
        pace.judged()
        if not is_failure(record):  # a failed call (server down) is asked again on resume
            profile.add_judgment(record, run_id=run_id, preset=options.preset, preset_version=preset_version)

    config = BridgeConfig(
        pool_size=options.pool, references_per_item=options.refs,
        reference_choice="adaptive" if options.adaptive else "random",
        batch_size=options.batch_size, seed=options.seed,
    )  # fmt: skip
    try:
        result = run_bridge([r.path for r in images], judge, config, sink=sink, previous=previous, progress=pace, cancel=cancel)
    except Cancelled:
        profile.update_run(run_id, status="cancelled")
        raise
    except Exception:
        profile.update_run(run_id, status="failed")
        raise
    scorer_id = format_scorer_id(ScorerKind.BRIDGE, judge.judge_id)
    write_scores(
        profile,
        scorer_id,
        [(record.id, result.scores_for(record.path)) for record in images],
        scorer_version=f"run-{run_id}",
        preset=options.preset,
        preset_version=preset_version,
    )
    summary: dict[str, Any] = {
        "run_id": run_id,
        "pseudo_scores": scorer_id,
        "images": len(images),
        "pool": len(result.pool),
        "calls_planned": result.calls.planned,
        "calls_made": result.calls.made,
        "calls_reused": result.calls.reused,
        "unparsed": result.calls.unparsed,
        "options": asdict(options),
    }
    if options.student:
        summary["student"] = train_student_from_profile(profile, options.student, scorer_id, {"judge": judge.judge_id, "run_id": run_id}, progress, cancel)
    profile.update_run(run_id, status="done", done=result.calls.done, total=result.calls.planned, result=summary)
    return summary


def train_student_from_profile(
    profile: Profile,
    name: str,
    scorer_id: str,
    provenance: dict[str, Any] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Train the fast student `name` on the profile's `scorer_id` pseudo-scores; return its card's essentials."""
    from aesthete_gui.services.scoring import library_arrays, profile_models_dir
    from aesthete_gui.training.distill import train_student

    arrays = library_arrays(profile, with_embeddings=True, progress=progress, cancel=cancel)
    stored = profile.scores(scorer_id)
    rows = [i for i, r in enumerate(arrays.images) if len(stored.get(r.id, {})) == len(DIMENSIONS)]
    if len(rows) < 4:
        raise DistillError(f"only {len(rows)} images have pseudo-scores from {scorer_id}; a student needs 4")
    pseudo = np.array([[stored[arrays.images[i].id][d] for d in DIMENSIONS] for i in rows])
    embeddings = arrays.embeddings[rows] if arrays.embeddings is not None else None
    card = {"encoder": arrays.encoder_id, "encoder_name": None, "pseudo_scores": scorer_id, "profile": str(profile.path), **(provenance or {})}
    from aesthete_gui.imaging.features import FEATURE_VERSION

    card["feature_version"] = str(FEATURE_VERSION)
    student = train_student(name, embeddings, arrays.feature_names, arrays.features[rows], pseudo, profile_models_dir(profile), card, progress=progress, cancel=cancel)
    return {"name": student.scorer_id, "images": len(rows), "metrics": student.card["metrics"]}
