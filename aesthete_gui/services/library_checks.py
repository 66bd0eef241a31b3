"""Technical checks as the library stores and reports them (rows for the profile, JSON for the CLI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from aesthete_gui.engine.scorers import BUILTIN
from aesthete_gui.imaging.checks import Analysis, checks_version, worst_verdict
from aesthete_gui.store.checks import CheckRow

if TYPE_CHECKING:
    from aesthete_gui.store import ImageRecord, Profile

__all__ = ["check_row", "checks_version", "dismiss_suggestions", "restore_suggestions", "scoring_arguments"]


def check_row(image_id: int, analysis: Analysis) -> CheckRow:
    """One image's checks and faces as a profile row (image_id, version, checks, faces, worst verdict)."""
    checks, faces = analysis.checks, analysis.faces
    return image_id, analysis.version, [c.as_dict() for c in checks], [f.as_dict() for f in faces], worst_verdict(checks)


def scoring_arguments(profile: Profile, scorer: object, images: Sequence[ImageRecord], stored: Any = None, links: Any = None) -> dict[str, Any]:
    """Extra score_arrays arguments: the built-in scorer gets each row's stored reject verdict, the
    checks' stored measurements (None for an image not checked yet) and, for a copy of another
    scored image, that image's row (copies stay below their originals). `stored` (profile.checks.all())
    and `links` (verdicts.copy_originals) are read here unless the caller already has them."""
    if getattr(scorer, "scorer_id", None) != BUILTIN:
        return {}
    from aesthete_gui.imaging.judging import values_of
    from aesthete_gui.services.verdicts import copy_originals

    stored = profile.checks.all() if stored is None else stored  # one query, not one per image
    rejected = {i for i, (checks, _) in stored.items() if any(c.get("verdict") == "reject" for c in checks)}
    measures = [values_of(stored[r.id][0], len(stored[r.id][1])) if r.id in stored else None for r in images]
    row_of = {record.id: n for n, record in enumerate(images)}
    originals = np.full(len(images), -1, dtype=int)
    for copy, original in (copy_originals(profile, stored) if links is None else links).items():
        if copy in row_of and original in row_of:
            originals[row_of[copy]] = row_of[original]
    return {"rejected": np.array([record.id in rejected for record in images], dtype=bool), "measures": measures,
            "originals": originals}  # fmt: skip


def dismiss_suggestions(profile: Profile, image_ids: Sequence[int]) -> None:
    """Stop suggesting these images as rejects (their marks stay); the profile announces it."""
    profile.checks.dismiss_suggestions(image_ids)


def restore_suggestions(profile: Profile, image_ids: Sequence[int]) -> None:
    """Suggest these images as rejects again (undo of a dismissal)."""
    profile.checks.restore_suggestions(image_ids)
