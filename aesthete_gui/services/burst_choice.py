"""Which frame of a burst is its best (no heavy imports: the grid sorts by it on the UI thread)."""

from __future__ import annotations

import math


def burst_merit(flag: str | None, culling_rank: tuple[float, ...], overall: float | None, stars: int) -> tuple:
    """How good a frame is as its burst's best, larger is better: not rejected by the user, then the
    checks' verdicts (eyes open, subject in focus, no clipping, no reject: imaging.bursts'
    stored_culling_rank), then the overall score, then a pick, then stars. The grid's collapsed
    bursts and `aesthete bursts` both choose by it."""
    return (flag != "reject", culling_rank, overall if overall is not None else -math.inf, flag == "pick", stars)


def cover_merit(flag: str | None, culling_rank: tuple[float, ...], overall: float | None, stars: int, label: str | None) -> tuple:
    """How good a frame is as the frame its burst shows, larger is better: a frame the user marked (a
    pick first, then the most stars, then a colour label) before any other, then burst_merit. The
    grid's collapsed bursts, "keep the best" after a pick and `aesthete bursts` all choose by it."""
    merit = burst_merit(flag, culling_rank, overall, stars)
    if flag != "reject" and (flag is not None or stars > 0 or label is not None):
        return (True, flag == "pick", stars, label is not None, merit)
    return (False, False, 0, False, merit)
