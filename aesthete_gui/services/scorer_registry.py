"""Every scorer a profile can use, and scoring with any of them: the one route of `aesthete score`,
`aesthete score-profile` and the GUI's Scoring menu (docs/method.md §6).

Registered scorers: "builtin" (image-property rules, no weights), trained fast students
("student:<name>"), each taste adapter's personal ranking ("taste:<adapter>"), a vision-language
model read in one pass ("vlm-single-pass:<model>"), the same reading from an OpenAI-compatible
server's log-probabilities ("server:<model>"), and the stored bridge pseudo-scores of a distillation
run ("bridge:<judge>", written by services/distill). Library images are scored by id; images that
are not in the library are scored as bare files by the scorers that read files (the model scorers).
Stored scores go through services/scoring.write_scores, the single writer; a long model pass is
stored in chunks as it goes, so a cancelled or failed run keeps what it finished.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aesthete_gui.engine.scorers import BUILTIN, Scorer, ScorerId, ScorerKind, scorer_id
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services import taste
from aesthete_gui.services.compare import JudgeSpec
from aesthete_gui.services.scoring import (
    ScorerNotFoundError,
    available_scorers,
    default_scorer,
    score_library,
    usable_images,
    write_scores,
)
from aesthete_gui.store import ImageRecord, Profile

__all__ = [
    "ScoreResult",
    "ScorerEntry",
    "ScorerNotFoundError",
    "ScorerSources",
    "open_file_scorer",
    "registered_scorers",
    "score_files",
    "score_with",
    "server_scorer_id",
    "vlm_scorer_id",
]

STORE_CHUNK = 256
"""Images per stored chunk of a model scorer's pass."""


@dataclass(frozen=True)
class ScorerEntry:
    """One registered scorer: its id, a label for menus, whether it runs a neural network on this
    machine (and so takes the GPU worker), and whether it can score images on demand (bridge scores
    are stored by a distillation run only)."""

    scorer_id: str
    label: str
    runs_model: bool
    can_score: bool = True

    @property
    def kind(self) -> ScorerKind:
        """builtin, student, bridge, taste, vlm-single-pass or server."""
        return ScorerId.parse(self.scorer_id).kind


@dataclass(frozen=True)
class ScoreResult:
    """What one scoring pass gave: the scorer id, scores by image id, the images it could not read,
    and for a server the replies it could not read and the requests that got none."""

    scorer_id: str
    scores: Mapping[int, Mapping[str, float]]
    unreadable: tuple[int, ...] = ()
    unreadable_replies: int = 0
    failed_requests: int = 0
    failure_reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScorerSources:
    """Where the model scorers come from: local model folders or hub ids read in one pass (with
    options for VLMSinglePassScorer), and the configured OpenAI-compatible server."""

    vlm_models: tuple[str, ...] = ()
    vlm_options: Mapping[str, Any] = field(default_factory=dict)
    server: JudgeSpec | None = None


def vlm_scorer_id(model: str) -> str:
    """The id the single-pass VLM scorer stores its scores under for `model` (folder or hub id)."""
    return scorer_id(ScorerKind.VLM, Path(model).name if Path(model).is_dir() else model)


def server_scorer_id(model: str) -> str:
    """The id the server scorer stores its scores under for the server's model name."""
    return scorer_id(ScorerKind.SERVER, model)


def registered_scorers(
    profile: Profile, vlm_models: Sequence[str] = (), server: JudgeSpec | None = None
) -> list[ScorerEntry]:
    """Every scorer this profile can use: built-in, students, taste adapters, the single-pass VLM
    for each of `vlm_models` (model folders or hub ids), the `server`'s model, and the stored bridge
    pseudo-scores."""
    entries = [ScorerEntry(BUILTIN, "Built-in rules (no model)", runs_model=False)]
    for student in available_scorers(profile)[1:]:
        entries.append(ScorerEntry(student, f"Fast student {ScorerId.parse(student).name}", runs_model=True))
    for adapter in profile.adapters.all():
        entries.append(ScorerEntry(scorer_id(ScorerKind.TASTE, adapter.name), f"My ranking ({adapter.name})", runs_model=True))
    for model in dict.fromkeys(m for m in vlm_models if m):
        entries.append(ScorerEntry(vlm_scorer_id(model), f"Vision-language model {model}, single pass", runs_model=True))
    if server is not None and server.endpoint:
        label = f"Server {server.model} at {', '.join(server.endpoints)}, log-probabilities"
        entries.append(ScorerEntry(server_scorer_id(server.model), label, runs_model=False))
    for stored in profile.scores.scorers():
        parsed = ScorerId.parse(stored, bare=ScorerKind.STUDENT)
        if parsed.kind is ScorerKind.BRIDGE:
            entries.append(ScorerEntry(stored, f"Distillation pseudo-scores ({parsed.name})", runs_model=True, can_score=False))
    return entries


def open_file_scorer(wanted: ScorerId, preset: str, sources: ScorerSources) -> Scorer:
    """The scorer of a kind that reads image files (vlm-single-pass or server), ready to score."""
    options: dict[str, Any] = {"preset": preset} if preset else {}
    if wanted.kind is ScorerKind.VLM:
        from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer

        folders = [m for m in sources.vlm_models if vlm_scorer_id(m) == str(wanted)]
        return VLMSinglePassScorer(folders[0] if folders else wanted.name, **options, **dict(sources.vlm_options))
    if wanted.kind is ScorerKind.SERVER:
        spec = sources.server
        if spec is None or not spec.endpoint:
            raise ScorerNotFoundError(f"{wanted} scores on a server: give its URL (--endpoint URL)")
        if spec.model != wanted.name:
            raise ScorerNotFoundError(f"{wanted} is not the configured server's model ({spec.model})")
        from aesthete_gui.ml.remote_scoring import RemoteScorer

        return RemoteScorer(
            spec.endpoints, spec.model, preset=preset or spec.preset,
            api_key_env=spec.api_key_env, concurrency=spec.concurrency, style=spec.score_style,
            timeout_s=spec.timeout_s,
        )  # fmt: skip
    raise ScorerNotFoundError(f"{wanted} does not read image files; score images of the library with it")


def score_with(
    profile: Profile,
    scorer: str | None = None,
    image_ids: Sequence[int] | None = None,
    preset: str = "",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    vlm_model: str | None = None,
    vlm_options: Mapping[str, Any] | None = None,
    *,
    sources: ScorerSources | None = None,
    save: bool = True,
) -> ScoreResult:
    """Score images of the library (all usable ones when `image_ids` is None) with any registered
    scorer, storing the scores unless `save` is False. For "vlm-single-pass:<model>", `vlm_model` (or
    `sources`) gives the folder when the name is not a hub id; "server:<model>" needs `sources.server`."""
    sources = sources or ScorerSources()
    if vlm_model or vlm_options:
        sources = ScorerSources((*sources.vlm_models, *([vlm_model] if vlm_model else [])),
                                {**sources.vlm_options, **(vlm_options or {})}, sources.server)  # fmt: skip
    wanted = ScorerId.parse(scorer or default_scorer(profile), bare=ScorerKind.STUDENT)
    if wanted.kind in (ScorerKind.BUILTIN, ScorerKind.STUDENT):
        stored_id, scores = score_library(profile, str(wanted), progress, cancel, image_ids, preset, store=save)
        return ScoreResult(stored_id, scores)
    if wanted.kind is ScorerKind.TASTE:
        return _score_personal(profile, wanted.name, image_ids, save, progress, cancel)
    if wanted.kind in (ScorerKind.VLM, ScorerKind.SERVER):
        model_scorer = open_file_scorer(wanted, preset, sources)
        return _score_images(profile, model_scorer, usable_images(profile, image_ids), preset, save, progress, cancel)
    raise ScorerNotFoundError(
        f"{wanted} holds the pseudo-scores of a distillation run; run the distillation again to renew them"
    )


def score_files(
    scorer: str,
    paths: Sequence[str],
    preset: str = "",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    *,
    sources: ScorerSources | None = None,
) -> tuple[ScoreResult, list[dict[str, float]]]:
    """Score image files that need not be in any library (model scorers only; nothing is stored):
    the result by position, and the scores per path in order ({} for an unreadable file)."""
    model_scorer = open_file_scorer(ScorerId.parse(scorer, bare=ScorerKind.VLM), preset, sources or ScorerSources())
    scores = model_scorer.score_paths(list(paths), progress=progress, cancel=cancel)
    by_position = {i: s for i, s in enumerate(scores) if s}
    unreadable = tuple(i for i, s in enumerate(scores) if not s)
    return _result(model_scorer, by_position, unreadable), scores


def _result(scorer: Any, scores: Mapping[int, Mapping[str, float]], unreadable: tuple[int, ...]) -> ScoreResult:
    stats = getattr(scorer, "stats", None)
    return ScoreResult(
        scorer.scorer_id, scores, unreadable,
        unreadable_replies=getattr(stats, "unreadable_replies", 0),
        failed_requests=getattr(stats, "failed_requests", 0),
        failure_reasons=tuple(getattr(stats, "reasons", ())),
    )  # fmt: skip


def _score_images(
    profile: Profile,
    scorer: Any,
    images: list[ImageRecord],
    preset: str,
    save: bool,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> ScoreResult:
    """A file scorer over library images, stored chunk by chunk (when `save`) as the pass goes."""
    scores: dict[int, dict[str, float]] = {}
    unreadable: list[int] = []
    totals = {"unreadable_replies": 0, "failed_requests": 0}
    reasons: list[str] = []
    preset_version = str(scorer.prompts.preset.version)
    for start in range(0, len(images), STORE_CHUNK):
        chunk = images[start : start + STORE_CHUNK]
        relay = _offset_progress(progress, start, len(images))
        results = scorer.score_paths([r.path for r in chunk], progress=relay, cancel=cancel)
        found = {r.id: values for r, values in zip(chunk, results, strict=True) if values}
        unreadable += [r.id for r, values in zip(chunk, results, strict=True) if not values]
        stats = getattr(scorer, "stats", None)
        for key in totals:
            totals[key] += getattr(stats, key, 0)
        reasons += [r for r in getattr(stats, "reasons", ()) if r not in reasons]
        if save:
            write_scores(profile, scorer.scorer_id, found.items(), scorer_version=scorer.version,
                         preset=preset, preset_version=preset_version)  # fmt: skip
        scores.update(found)
    return ScoreResult(scorer.scorer_id, scores, tuple(unreadable), failure_reasons=tuple(reasons[:3]), **totals)


def _offset_progress(progress: ProgressCallback | None, offset: int, total: int) -> ProgressCallback | None:
    if progress is None:
        return None

    def relay(step: Progress) -> None:
        progress(Progress(offset + step.done, total, step.message))

    return relay


def _score_personal(
    profile: Profile,
    adapter: str,
    image_ids: Sequence[int] | None,
    save: bool,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> ScoreResult:
    """An adapter's personal ranking as "taste:<adapter>" (the grid's "My ranking"); stored when
    `save` (the CLI and the GUI both come here, so they store the same ranking)."""
    if save:
        scores = taste.store_personal_ranking(profile, adapter, progress=progress, cancel=cancel)
    else:
        ranking = taste.rank_images(profile, adapter, "overall", progress, cancel)
        scores = {r.image_id: {"overall": round(r.score, 6)} for r in ranking.images}
    if image_ids is not None:
        wanted = set(image_ids)
        scores = {i: s for i, s in scores.items() if i in wanted}
    return ScoreResult(scorer_id(ScorerKind.TASTE, adapter), scores)

