"""The best frame of a burst or group: eyes open, subject in focus, no clipping, then the score (pure functions)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aesthete_gui.imaging.checks import Analysis


@dataclass(frozen=True)
class BurstFrame:
    """One frame as the best-of-burst choice sees it: its checks and faces, and its overall score."""

    key: Hashable
    analysis: Analysis | None = None
    overall: float | None = None


def _passes(analysis: Analysis | None, *names: str) -> bool:
    """No reject verdict among the named checks (unchecked frames pass nothing)."""
    if analysis is None:
        return False
    return all(c.verdict != "reject" for c in analysis.checks if c.name in names)


_SHARPNESS_CHECKS = ("focus", "motion_blur")
_TIER = {"ok": 2.0, "warn": 1.0, "reject": 0.0}


def _sharpness_tier(verdicts: Mapping[str, str]) -> float:
    """2: subject sharp, 1: soft (a warning), 0: rejected for focus or motion blur."""
    return min((_TIER.get(verdicts.get(name, "ok"), 0.0) for name in _SHARPNESS_CHECKS), default=2.0)


def representative_rank(frame: BurstFrame) -> tuple[float, ...]:
    """Sort key, larger is better: eyes open, subject in focus, no clipping, no reject, then the
    sharper verdict (ok before a "soft" warning), then score.

    Rejects order frames first; among frames without one, a soft frame is the one to drop even when
    the sharp one clips a little or scored lower.
    """
    analysis = frame.analysis
    faces = analysis.faces if analysis is not None else []
    focus = next((c.value for c in analysis.checks if c.name == "focus"), 0.0) if analysis else 0.0
    sharpness = _sharpness_tier({c.name: c.verdict for c in analysis.checks}) if analysis else 0.0
    return (
        float(not any(face.eyes == "closed" for face in faces)),  # "unknown" is no evidence
        float(_passes(analysis, *_SHARPNESS_CHECKS)),
        float(_passes(analysis, "highlights", "overexposure")),
        float(_passes(analysis, *(c.name for c in analysis.checks)) if analysis else 0.0),
        sharpness,
        frame.overall if frame.overall is not None else float("-inf"),
        focus,
    )


def choose_representative(frames: Sequence[BurstFrame]) -> Hashable:
    """The burst's best frame: eyes open, subject in focus, no clipping, then the highest score."""
    if not frames:
        raise ValueError("a burst needs at least one frame")
    return max(frames, key=representative_rank).key


def stored_culling_rank(checks: Sequence[Mapping[str, Any]], faces: Sequence[Mapping[str, Any]]) -> tuple[float, ...]:
    """representative_rank's verdict part from stored checks and faces (as the profile keeps them)."""
    rejected = {str(c.get("name")) for c in checks if c.get("verdict") == "reject"}
    return (
        float(not any(f.get("eyes") == "closed" for f in faces)),
        float(not rejected & set(_SHARPNESS_CHECKS)),
        float(not rejected & {"highlights", "overexposure"}),
        float(not rejected),
        _sharpness_tier({str(c.get("name")): str(c.get("verdict")) for c in checks}),
    )
