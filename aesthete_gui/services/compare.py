"""Compare images with a judge: a pair, or best/worst of a set with an optional explanation.

Shared by the CLI and the GUI. `JudgeSpec` says which judge to use (a local model folder / hub id,
or an OpenAI-compatible endpoint and model name); the GUI stores it in its settings as a typed
record (`to_settings` / `JudgeSpec.from_settings`, which validates it). `open_judge` builds the
judge (the weights load on first use, in the worker that runs the comparison). Each comparison is
stored in the profile the moment it returns when a profile is given, with the prompt and preset
versions that produced it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.engine.prompts import DEFAULT_PRESET, MAX_SET_SIZE, PromptBook
from aesthete_gui.engine.subjectivity import SubjectivityReport, subjectivity_of_stages
from aesthete_gui.errors import AestheteError
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
    # How a server's scores are read from its log-probabilities (ml/remote_scoring.py).
    score_style: str = "continue"

    @property
    def endpoints(self) -> tuple[str, ...]:
        """The server base URLs (`endpoint` may list several, comma-separated); () for a local model."""
        from aesthete_gui.ml.chat_client import split_endpoints

        return tuple(split_endpoints(self.endpoint)) if self.endpoint else ()

    @property
    def label(self) -> str:
        """How the judge is named to the user: the model, and the server when there is one."""
        return f"{self.model} on {', '.join(self.endpoints)}" if self.endpoint else self.model

    def to_settings(self) -> dict[str, str]:
        """The record the GUI keeps in its settings under "judge" (no key: keys are never stored)."""
        record = {"model": self.model}
        if self.endpoint:
            record["endpoint"] = self.endpoint
        if self.api_key_env:
            record["api_key_env"] = self.api_key_env
        return record

    @classmethod
    def from_settings(cls, value: object, server_model: object = None, preset: str = DEFAULT_PRESET) -> JudgeSpec | None:
        """The judge a settings value describes (None: no judge); JudgeSettingError when it is malformed.

        Reads the typed record {"model", "endpoint"?, "api_key_env"?} and, from settings written by
        earlier versions, a plain folder / hub id, or a server URL with its model in `server_model`.
        """
        if value is None or value == "" or value == {}:
            return None
        if isinstance(value, str):
            if value.startswith(("http://", "https://")):  # an earlier version's server setting
                value = {"endpoint": value, "model": server_model or ""}
            else:
                value = {"model": value}
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise JudgeSettingError(f"the judge setting {value!r:.80} is not a judge record; choose the judge again (Models ▸ Model manager)")
        unknown = set(value) - {"model", "endpoint", "api_key_env"}
        model, endpoint = value.get("model", "").strip(), value.get("endpoint", "").strip() or None
        if unknown or not model:
            what = f"unknown fields {sorted(unknown)}" if unknown else "no model name"
            raise JudgeSettingError(f"the judge setting has {what}; choose the judge again (Models ▸ Model manager)")
        if endpoint is not None:
            from aesthete_gui.ml.chat_client import check_endpoint, split_endpoints

            try:
                for url in split_endpoints(endpoint):
                    check_endpoint(url)
            except JudgeUnavailable as error:
                raise JudgeSettingError(str(error)) from error
        return cls(model=model, endpoint=endpoint, api_key_env=value.get("api_key_env") or None, preset=preset)


class JudgeSettingError(AestheteError, ValueError):
    """A stored judge setting that does not describe a judge."""


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
    "JudgeSettingError",
    "JudgeSpec",
    "JudgeUnavailable",
    "LoadOptions",
    "compare_pair",
    "compare_set",
    "explanation_subjectivity",
    "open_judge",
    "score_pointwise",
]
