"""Compare without Qt: which pair to show next (random or from the taste service) and agreement."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from aesthete_gui.jobs import CancelToken, ProgressCallback
from aesthete_gui.services.taste_guard import too_few_to_measure

if TYPE_CHECKING:
    from aesthete_gui.services.taste import TasteReport
    from aesthete_gui.store import Profile



def random_unjudged_pair(
    pool: list[int],
    judged: set[frozenset[int]],
    rng: random.Random,
    avoid: frozenset[int] | None = None,
) -> tuple[int, int] | None:
    """A random pair from `pool` that has no choice yet (any pair when all are judged), or None."""
    if len(pool) < 2:
        return None
    for _ in range(200):
        a, b = rng.sample(pool, 2)
        pair = frozenset((a, b))
        if pair not in judged and pair != avoid:
            return a, b
    candidates = [
        (a, b) for i, a in enumerate(pool) for b in pool[i + 1 :] if frozenset((a, b)) not in judged
    ]
    if candidates:
        return rng.choice(candidates)
    a, b = rng.sample(pool, 2)
    return a, b


def suggest_pairs_job(
    profile: Profile,
    pool: list[int],
    dimension: str,
    count: int,
    include_rejects: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[tuple[int, int]]:
    """The taste service's most informative unjudged pairs, as image ids within `pool` (a job);
    rejected images only when `include_rejects`, images too small to judge never."""
    from aesthete_gui.services import taste

    wanted = set(pool)
    suggestions = taste.suggest_next_pairs(
        profile, count=count, dimension=dimension, progress=progress, cancel=cancel,
        include_rejects=include_rejects,
    )  # fmt: skip
    return [(s.a, s.b) for s in suggestions if {s.a, s.b} <= wanted]


def agreement_job(
    profile: Profile, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> TasteReport:
    """Held-out agreement of the taste model with the user's later choices (a job)."""
    from aesthete_gui.services import taste

    return taste.evaluate_taste(profile, progress=progress, cancel=cancel)


def format_agreement(report: TasteReport) -> str:
    """One line: held-out agreement of the adapter (and the base scorer) with 95% intervals."""
    if report.adapter is None or report.base is None:
        return f"Agreement: {too_few_to_measure(report.choices, report.held_out)} ({report.choices} choices so far)"
    adapter, base = report.adapter, report.base
    return (
        f"Predicts your held-out choices {adapter.mean:.0%} of the time (95% CI "
        f"{adapter.low:.0%}–{adapter.high:.0%}); base scorer {base.mean:.0%} · tested on your "
        f"latest {report.held_out} choices"
    )
