"""Training data from a profile: pseudo-scored images for the students (no torch here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.scorers import ScorerId, ScorerKind


class NoPseudoScoresError(ValueError):
    """The profile holds no pseudo-scores to learn from (run a distillation first)."""


@dataclass(frozen=True)
class PseudoScored:
    """Images (ids and paths) with their pseudo-scores (n, 5) in DIMENSIONS order."""

    scorer_id: str
    image_ids: list[int]
    paths: list[str]
    scores: np.ndarray


def newest_bridge_scorer(profile: Any) -> str:
    """The most recently written "bridge:*" scorer id in the profile; NoPseudoScoresError if none."""
    bridge = [s for s in profile.scores.scorers() if ScorerId.parse(s, bare=ScorerKind.STUDENT).kind is ScorerKind.BRIDGE]
    if not bridge:
        raise NoPseudoScoresError("no pseudo-scores in this profile: run `aesthete distill` first")
    return bridge[-1]


def pseudo_scored_images(profile: Any, scorer_id: str | None = None) -> PseudoScored:
    """The profile's images that have all five pseudo-scores of `scorer_id` (default: newest bridge)."""
    scorer = scorer_id or newest_bridge_scorer(profile)
    stored = profile.scores.of_scorer(scorer)
    ids, paths, rows = [], [], []
    for image_id, scores in stored.items():
        if not all(d in scores for d in DIMENSIONS):
            continue
        record = profile.catalog.image_by_id(image_id)
        if record is None or record.status != "ok":
            continue
        ids.append(image_id)
        paths.append(record.path)
        rows.append([scores[d] for d in DIMENSIONS])
    if not rows:
        raise NoPseudoScoresError(f"no image has all five scores from {scorer!r}")
    return PseudoScored(scorer, ids, paths, np.asarray(rows, dtype=float))


def grpo_rows(
    data: PseudoScored, prompt_text: str, max_image_side: int, dimensions: Sequence[str] = DIMENSIONS
) -> list[dict[str, Any]]:
    """Rows for TRL's GRPOTrainer: conversational prompt, the decoded image, its key and pseudo-scores.

    Images that no longer decode are left out (the reason is not needed here: the import recorded it).
    """
    from aesthete_gui.imaging.decode import DecodeError, open_image

    rows = []
    for path, scores in zip(data.paths, data.scores, strict=True):
        try:
            image = open_image(path, max_side=max_image_side)
        except DecodeError:
            continue
        rows.append(
            {
                "prompt": [{"role": "user", "content": prompt_text}],
                "image": image,
                "image_key": path,
                "pseudo": [float(v) for v in scores[: len(dimensions)]],
            }
        )
    if not rows:
        raise NoPseudoScoresError("none of the pseudo-scored images could be decoded")
    return rows
