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
) -> Any:
    """Score images (all when image_ids is None) with a named scorer and store the scores."""
    from aesthete_gui.services import scoring

    return scoring.score_images(
        profile, None if image_ids is None else list(image_ids), scorer=scorer,
        progress=progress, cancel=cancel,
    )  # fmt: skip


def distil_job(
    profile: Profile,
    judge: str,
    preset: str | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Any:
    """Run a distillation from the configured judge (services.distill)."""
    from aesthete_gui.services import distill

    return distill.run_distillation(profile, judge=judge, preset=preset, progress=progress, cancel=cancel)


def train_job(
    profile: Profile,
    base_scorer: str,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Any:
    """Train the personal taste adapter from the user's choices (services.taste)."""
    from aesthete_gui.services import taste

    return taste.train_adapter(profile, base_scorer=base_scorer, progress=progress, cancel=cancel)


def describe_training(result: Any) -> str:
    """One status-bar line about a trained adapter (held-out agreement before and after)."""
    before = getattr(result, "agreement_before", None)
    after = getattr(result, "agreement_after", None)
    if before is not None and after is not None:
        return f"Taste adapter trained: predicts your held-out choices {after:.0%} of the time (base {before:.0%})."
    return "Taste adapter trained."
