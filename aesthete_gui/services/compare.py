"""Compare images with a judge: a pair, or best/worst of a set with an optional explanation.

Shared by the CLI and the GUI. `JudgeSpec` says which judge to use (a local model folder / hub id,
or an OpenAI-compatible endpoint and model name); `open_judge` builds it (the weights load on
first use, in the worker that runs the comparison). Each comparison is stored in the profile the
moment it returns when a profile is given, with the prompt and preset versions that produced it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.engine.prompts import DEFAULT_PRESET, MAX_SET_SIZE, PromptBook
from aesthete_gui.engine.subjectivity import SubjectivityReport, subjectivity_of_stages
from aesthete_gui.jobs import CancelToken, ProgressCallback
from aesthete_gui.ml.loading import DEFAULT_LOAD_OPTIONS, LoadOptions
from aesthete_gui.ml.prompt_judge import JudgeUnavailable, PromptJudge, StageCallback, is_failure
from aesthete_gui.store import Profile


@dataclass(frozen=True)
class JudgeSpec:
    """Which judge to use and how; `endpoint` set means a remote server, else `model` is local."""

    model: str
    endpoint: str | None = None
    api_key_env: str | None = None
    preset: str = DEFAULT_PRESET
    both_orders: bool = False
    set_orderings: int = 1
    set_per_dimension: bool = False
    batch_size: int = 4
    max_new_tokens: int | None = None
    timeout_s: float = 120.0
    load_options: LoadOptions = DEFAULT_LOAD_OPTIONS
    # Requests in flight to an OpenAI-compatible server; a vLLM server batches them, so more is faster.
    concurrency: int = field(default_factory=lambda: remote_concurrency())


CONCURRENCY_ENV = "AESTHETE_REMOTE_CONCURRENCY"
DEFAULT_REMOTE_CONCURRENCY = 4


def remote_concurrency() -> int:
    """Concurrent requests to a judge server: $AESTHETE_REMOTE_CONCURRENCY, else 4."""
    text = os.environ.get(CONCURRENCY_ENV, "").strip()
    if not text:
        return DEFAULT_REMOTE_CONCURRENCY
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{CONCURRENCY_ENV} must be a whole number of at least 1, got {text!r}")
    return int(text)


def open_judge(spec: JudgeSpec, on_stage: StageCallback | None = None) -> PromptJudge:
    """The judge described by `spec` (local weights load on first use, not here)."""
    prompts = PromptBook.for_preset(spec.preset)
    if spec.endpoint:
        from aesthete_gui.ml.remote import RemoteJudge

        return RemoteJudge(
            spec.endpoint,
            spec.model,
            prompts=prompts,
            api_key_env=spec.api_key_env,
            timeout_s=spec.timeout_s,
            max_concurrency=spec.concurrency,
            max_new_tokens=spec.max_new_tokens,
            both_orders=spec.both_orders,
            set_orderings=spec.set_orderings,
            set_per_dimension=spec.set_per_dimension,
            on_stage=on_stage,
        )
    from aesthete_gui.ml.vlm import LocalVLMJudge

    return LocalVLMJudge(
        spec.model,
        prompts=prompts,
        batch_size=spec.batch_size,
        max_new_tokens=spec.max_new_tokens,
        both_orders=spec.both_orders,
        set_orderings=spec.set_orderings,
        set_per_dimension=spec.set_per_dimension,
        on_stage=on_stage,
        load_options=spec.load_options,
    )


def _store(
    profile: Profile | None,
    judge: PromptJudge,
    record: PairwiseJudgment | PointwiseJudgment | SetJudgment,
    run_id: int | None,
) -> None:
    if profile is not None and not is_failure(record):
        profile.judgments.add(
            record,
            run_id=run_id,
            preset=judge.prompts.preset_name,
            preset_version=judge.prompts.version,
        )


def compare_pair(
    judge: PromptJudge,
    first: str,
    second: str,
    profile: Profile | None = None,
    run_id: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> PairwiseJudgment:
    """Judge one pair (first = A); stored in `profile` when given (unless the judge gave no answer)."""
    [record] = judge.judge_pairs([(first, second)], progress=progress, cancel=cancel)
    _store(profile, judge, record, run_id)
    return record


def compare_set(
    judge: PromptJudge,
    items: Sequence[str],
    explain: bool = False,
    profile: Profile | None = None,
    run_id: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> SetJudgment:
    """Best and worst of 2..8 images (voted over the judge's orderings), stored when a profile is given."""
    if not 2 <= len(items) <= MAX_SET_SIZE:
        raise ValueError(f"a set has 2..{MAX_SET_SIZE} images, got {len(items)}")
    if len(set(items)) != len(items):
        raise ValueError("the same image appears twice in the set")
    [record] = judge.select_best_worst([list(items)], explain=explain, progress=progress, cancel=cancel)
    _store(profile, judge, record, run_id)
    return record


def score_pointwise(
    judge: PromptJudge,
    items: Sequence[str],
    profile: Profile | None = None,
    run_id: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[PointwiseJudgment]:
    """Ask the judge for five JSON scores per image (generation, not single-pass)."""
    records = judge.score_items(list(items), progress=progress, cancel=cancel)
    for record in records:
        _store(profile, judge, record, run_id)
    return records


def explanation_subjectivity(record: SetJudgment) -> SubjectivityReport:
    """Hedge and feeling word rate of a set judgment's explanation stages (docs/method.md §4)."""
    return subjectivity_of_stages(list(record.stages[:2]))


__all__ = [
    "JudgeSpec",
    "JudgeUnavailable",
    "compare_pair",
    "compare_set",
    "explanation_subjectivity",
    "open_judge",
    "score_pointwise",
]
