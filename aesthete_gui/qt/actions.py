"""The jobs behind the menu actions: thin calls into services/, run by the TaskRunner in a worker.

Each is a plain `fn(..., progress, cancel)`; the services own the work, these only pick arguments.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aesthete_gui.engine.scorers import BUILTIN, ScorerId, ScorerIdError, ScorerKind, is_builtin
from aesthete_gui.jobs import CancelToken, ProgressCallback
from aesthete_gui.safe_text import terminal_text

if TYPE_CHECKING:
    from aesthete_gui.services.compare import JudgeSpec
    from aesthete_gui.services.scorer_registry import ScorerSources
    from aesthete_gui.store import Profile

log = logging.getLogger(__name__)


def import_job(
    profile: Profile,
    folders: Sequence[str],
    cache_dir: Path | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    skip_missing: bool = False,
) -> Any:
    """Import folders (services.library.import_folders); returns its ImportSummary."""
    from aesthete_gui.services.library import import_folders

    return import_folders(profile, list(folders), progress=progress, cancel=cancel, cache_dir=cache_dir,
                          skip_missing=skip_missing)  # fmt: skip


def describe_import(summary: Any) -> str:
    """One status-bar line about a finished import."""
    if summary is None:
        return "Import finished."
    parts = [f"{getattr(summary, 'imported', 0)} imported"]
    for attr, one, many in (("unchanged", "unchanged", "unchanged"), ("errors", "could not be read", "could not be read"),
                            ("missing", "missing", "missing"), ("bursts", "burst", "bursts"),
                            ("videos", "video left out", "videos left out")):  # fmt: skip
        value = getattr(summary, attr, 0)
        if value:
            parts.append(f"{value} {one if value == 1 else many}")
    absent = len(getattr(summary, "folders_not_found", None) or [])
    if absent:
        parts.append("1 folder not found (its photographs untouched)" if absent == 1
                     else f"{absent} folders not found (their photographs untouched)")
    unread_sidecars = len(getattr(summary, "sidecar_problems", None) or [])
    if unread_sidecars:
        parts.append(f"{unread_sidecars} sidecar{'s' if unread_sidecars > 1 else ''} unreadable (left as {'they are' if unread_sidecars > 1 else 'it is'})")
    prefix = "Import cancelled" if getattr(summary, "cancelled", False) else "Import done"
    return f"{prefix}: " + ", ".join(parts)


def import_problems(summary: Any) -> list[str]:
    """One line per file or folder a finished import could not take (and why), for the report."""
    if summary is None:
        return []
    # a name may hold a line break, a terminal escape or a right-to-left override (an attack): escaped,
    # each problem stays one line and reads as it is
    lines = [f"{path}: {reason}" for path, reason in getattr(summary, "problems", None) or []]
    lines += [f"{path}: sidecar left as it is: {reason}" for path, reason in getattr(summary, "sidecar_problems", None) or []]
    lines += [f"{folder}: folder not found" for folder in getattr(summary, "folders_not_found", None) or []]
    return [terminal_text(line) for line in lines]


def last_import_summary(
    profile: Profile, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> Any:
    """The summary the profile's last import recorded with its run (the window's, or `aesthete
    import`'s), for the report a restart would otherwise lose; None when there was none, or when the
    last one is still running, failed or was interrupted (no finished report to show)."""
    from types import SimpleNamespace

    runs = profile.runs.all("import")
    if not runs:
        return None
    last = runs[-1]
    if last.status not in ("done", "cancelled") or not isinstance(last.result, dict):
        return None
    return SimpleNamespace(**last.result)


def configured_judge(settings: Mapping[str, Any]) -> JudgeSpec | None:
    """The judge the settings name (their typed "judge" record, or an earlier version's string),
    None when there is none or the record is unreadable (logged; the model manager sets it again)."""
    from aesthete_gui.services.compare import JudgeSettingError, JudgeSpec

    try:
        return JudgeSpec.from_settings(
            settings.get("judge"), settings.get("judge_server_model"), settings.get("preset") or "photography"
        )
    except JudgeSettingError as error:
        log.warning("%s", error)
        return None


def judge_label(judge: JudgeSpec | None) -> str:
    """The judge as the status bar names it."""
    return judge.label if judge is not None else "none (optional)"


def scorer_sources(judge: JudgeSpec | None) -> ScorerSources:
    """Where the model scorers come from: the configured local judge read in one pass, or the
    configured server read from its log-probabilities (8 requests in flight unless
    $AESTHETE_REMOTE_CONCURRENCY says otherwise)."""
    from aesthete_gui.services.compare import CONCURRENCY_ENV
    from aesthete_gui.services.scorer_registry import ScorerSources

    if judge is None:
        return ScorerSources()
    if not judge.endpoint:
        return ScorerSources(vlm_models=(judge.model,))
    server = judge if os.environ.get(CONCURRENCY_ENV) else replace(judge, concurrency=8)
    return ScorerSources(server=server)


def scorer_uses_gpu(scorer: str | None) -> bool:
    """True for scorers that run a neural network here (they share the one GPU worker); a server's
    scorer runs its model elsewhere."""
    try:
        kind = ScorerId.parse(scorer or BUILTIN, bare=ScorerKind.STUDENT).kind
    except ScorerIdError:
        return True
    return not is_builtin(scorer) and kind is not ScorerKind.SERVER


def base_scorer_for(scorer: str | None) -> str | None:
    """The chosen scorer when it can be a taste adapter's base (built-in or a student), else None
    (the service then picks the newest student, else the built-in scorer)."""
    try:
        kind = ScorerId.parse(scorer or BUILTIN).kind
    except ScorerIdError:
        return None
    return scorer or BUILTIN if kind in (ScorerKind.BUILTIN, ScorerKind.STUDENT) else None


def scorer_entries(profile: Profile, judge: JudgeSpec | None = None) -> list[Any]:
    """The registered scorers that can score now (services.scorer_registry.registered_scorers),
    the configured judge's among them: its single pass, or its server's log-probabilities."""
    from aesthete_gui.services import scorer_registry

    sources = scorer_sources(judge)
    try:
        entries = scorer_registry.registered_scorers(profile, sources.vlm_models, sources.server)
    except Exception as error:  # an unreadable student card must not hide the built-in scorer
        log.warning("scorers unavailable: %s", error)
        entries = [scorer_registry.ScorerEntry(BUILTIN, "Built-in rules (no model)", runs_model=False)]
    return [e for e in entries if e.can_score]


def score_job(
    profile: Profile,
    image_ids: Sequence[int] | None,
    scorer: str,
    preset: str | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    judge: JudgeSpec | None = None,
) -> Any:
    """Score images (all when image_ids is None) with any registered scorer and store the scores;
    returns services.scorer_registry.ScoreResult."""
    from aesthete_gui.services import scorer_registry

    return scorer_registry.score_with(profile, scorer, image_ids, preset or "", progress, cancel,
                                      sources=scorer_sources(judge))  # fmt: skip


def distil_job(
    profile: Profile,
    judge: JudgeSpec,
    preset: str | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Any:
    """Distil a fast scorer from the configured judge (services.distill): a model folder / hub id,
    or an OpenAI-compatible server with its model name."""
    from aesthete_gui.services import distill

    model = distill.make_judge(
        None if judge.endpoint else judge.model, judge.endpoint, judge.model if judge.endpoint else None,
        preset or judge.preset, judge.api_key_env,
    )  # fmt: skip
    options = distill.DistillOptions(preset=preset) if preset else distill.DistillOptions()
    return distill.distill_profile(profile, model, options, progress=progress, cancel=cancel)


def personal_scorer_id(profile: Profile) -> str | None:
    """The scorer id of the active adapter's personal ranking ("taste:<name>"), or None."""
    from aesthete_gui.services.scoring import personal_scorer_id as active_personal_id

    return active_personal_id(profile)


def train_job(
    profile: Profile,
    base_scorer: str,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Any:
    """Train the taste adapter from the user's choices; the service stores its ranking too."""
    from aesthete_gui.services import taste

    return taste.train_taste(profile, base_scorer=base_scorer, progress=progress, cancel=cancel)


def describe_training(result: Any) -> str:
    """One status-bar line about a trained adapter (held-out agreement before and after)."""
    base = getattr(result, "base", None)
    adapter = getattr(result, "adapter", None)
    state = "active" if getattr(result, "active", False) else "not active: the base scorer stays"
    if base is not None and adapter is not None:
        return (
            f"Taste adapter trained ({state}): predicts your held-out choices {adapter.mean:.0%} "
            f"of the time (base scorer {base.mean:.0%})."
        )
    from aesthete_gui.services.taste_guard import too_few_to_measure

    choices = int(getattr(result, "choices", 0) or 0)
    return (
        f"Taste adapter trained on {choices} choices; {too_few_to_measure(choices, int(getattr(result, 'held_out', 0) or 0))}, "
        f"so it is {state}. Scoring ▸ Taste and scores panel ▸ Compare suggested pairs shows the next pairs."
    )
