"""The jobs behind the menu actions: thin calls into services/, run by the TaskRunner in a worker.

Each is a plain `fn(..., progress, cancel)`; the services own the work, these only pick arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aesthete_gui.jobs import CancelToken, ProgressCallback

if TYPE_CHECKING:
    from aesthete_gui.store import Profile


def import_job(
    profile: Profile,
    folders: Sequence[str],
    cache_dir: Path | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Any:
    """Import folders (services.library.import_folders); returns its ImportSummary."""
    from aesthete_gui.services.library import import_folders

    return import_folders(profile, list(folders), progress=progress, cancel=cancel, cache_dir=cache_dir)


def describe_import(summary: Any) -> str:
    """One status-bar line about a finished import."""
    if summary is None:
        return "Import finished."
    parts = [f"{getattr(summary, 'imported', 0)} imported"]
    for attr, text in (("unchanged", "unchanged"), ("errors", "could not be read"),
                       ("missing", "missing"), ("bursts", "bursts")):  # fmt: skip
        value = getattr(summary, attr, 0)
        if value:
            parts.append(f"{value} {text}")
    prefix = "Import cancelled" if getattr(summary, "cancelled", False) else "Import done"
    return f"{prefix}: " + ", ".join(parts)


def scorer_uses_gpu(scorer: str) -> bool:
    """True for scorers that run a neural network (they share the one GPU worker)."""
    return scorer not in ("builtin", "", None)


def score_job(
    profile: Profile,
    image_ids: Sequence[int] | None,
    scorer: str,
    preset: str | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[int, dict[str, float]]:
    """Score images (all when image_ids is None) with a named scorer and store the scores."""
    from aesthete_gui.services import scoring

    return scoring.score_library(profile, scorer, progress, cancel, image_ids, preset or "")[1]


def distil_job(
    profile: Profile,
    judge: str,
    preset: str | None,
    server_model: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Any:
    """Distil a fast scorer from the configured judge (services.distill): a model folder / hub id,
    or an OpenAI-compatible server URL with its model name."""
    from aesthete_gui.services import distill

    is_server = judge.startswith(("http://", "https://"))
    model = distill.make_judge(
        None if is_server else judge, judge if is_server else None, server_model, preset, None
    )
    options = distill.DistillOptions(preset=preset) if preset else distill.DistillOptions()
    return distill.distill_profile(profile, model, options, progress=progress, cancel=cancel)


def personal_scorer_id(profile: Profile) -> str | None:
    """The scorer id of the active adapter's personal ranking (services.taste_guard.personal_scorer_id)."""
    from aesthete_gui.services.taste_guard import personal_scorer_id as active_personal

    return active_personal(profile)


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
    from aesthete_gui.services.taste_guard import MIN_HELD_OUT_CHOICES

    choices = getattr(result, "choices", None)
    return (
        f"Taste adapter trained on {choices} choices; not enough held-out choices to measure: "
        f"{getattr(result, 'held_out', 0)} of {MIN_HELD_OUT_CHOICES}, so it is {state}."
    )
