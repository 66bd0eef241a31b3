"""Scripted users for the taste-guard tests: choices against (or with) the base scorer, Set verdicts."""

from __future__ import annotations

import numpy as np

from aesthete_gui.services import taste
from aesthete_gui.store import Profile


def base_overall(profile: Profile) -> dict[int, float]:
    """The base scorer's overall score per image id (rank_images with no adapter active)."""
    return {item.image_id: item.base_score for item in taste.rank_images(profile, dimension="overall").images}


def record_against_then_with_base(profile: Profile, against: int, agreeing: int, seed: int = 0) -> None:
    """`against` choices that pick the image the base scores lower, then `agreeing` that pick the
    higher one: a user whose taste changed, or a base scorer that was right all along."""
    base = base_overall(profile)
    ids = sorted(base)
    rng = np.random.default_rng(seed)
    seen: set[frozenset[int]] = set()
    made = 0
    while made < against + agreeing:
        a, b = (ids[i] for i in rng.choice(len(ids), size=2, replace=False))
        if frozenset((a, b)) in seen or base[a] == base[b]:
            continue
        seen.add(frozenset((a, b)))
        base_prefers_a = base[a] > base[b]
        picks_a = base_prefers_a if made >= against else not base_prefers_a
        profile.choices.add(a, b, "a" if picks_a else "b", session="scripted")
        made += 1


def record_set_verdict(profile: Profile, order: list[int], best: int, worst: int) -> list[int]:
    """One Set verdict as the Set view stores it: every pair it implies, one shared app state."""
    from aesthete_gui.qt.widgets.set_judging import choices_from_verdict

    state = {"view": "set", "order": order, "best": best, "worst": worst, "source": "own"}
    return [
        profile.choices.add(a, b, winner, dimension="overall", app_state=state)
        for a, b, winner in choices_from_verdict(order, best, worst)
    ]
