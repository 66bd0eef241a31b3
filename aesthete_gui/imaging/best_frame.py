"""The best frame of a burst or group, and which frames are copies of another (pure functions).

A group may hold one picture several times: the camera's file, a smaller export, a re-saved JPEG, a
PNG made from it. Those are copies of the frame with the most pixels (then a camera's metadata, then
a camera's format, then the least recompression), and a copy is never chosen over its original. Among frames that are not
copies, the best has its eyes open, its subject in focus, no clipping, no reject verdict, the most
pixels, then the highest score.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from aesthete_gui.imaging.checks import Analysis
from aesthete_gui.imaging.hashing import hamming

SAME_PICTURE_HAMMING = 4
"""pHash bits within which two files with no other difference are one picture saved twice (the hash
is made from a small thumbnail, so the size drops out); as imaging/bursts.DUPLICATE_HAMMING."""
_NATIVE_FORMATS = frozenset({"JPEG", "MPO", "RAW", "DNG", "HEIF", "HEIC"})
"""Formats cameras write: a PNG or TIFF of the same pixels is an export."""


@dataclass(frozen=True)
class Edition:
    """What tells an original from its copies: size, format, JPEG quality, the camera's metadata."""

    key: Hashable
    name: str = ""
    width: int = 0
    height: int = 0
    format: str = ""
    quality: float | None = None
    """JPEG quality (0-100), None for other formats."""
    phash: int | None = None
    capture_time: float | None = None
    sequence_number: int | None = None
    camera: str | None = None

    @property
    def pixels(self) -> int:
        return self.width * self.height

    def rank(self) -> tuple[float, ...]:
        """Larger is more original: more pixels, a camera's metadata, a camera's format (a PNG or TIFF
        of the same pixels was exported from it), then less recompression."""
        quality = 100.0 if self.quality is None or math.isnan(self.quality) else self.quality
        return (float(self.pixels), float(bool(self.camera)), float(self.format.upper() in _NATIVE_FORMATS), quality)

    def describe(self) -> str:
        kind = f"JPEG quality {self.quality:.0f}" if self.quality is not None and not math.isnan(self.quality) else self.format or "file"
        return f"{self.width} × {self.height}, {kind}"


def _one_picture(a: Edition, b: Edition) -> bool:
    """Same picture: near-identical pHash, and no metadata saying they are two exposures."""
    if a.phash is None or b.phash is None or hamming(a.phash, b.phash) > SAME_PICTURE_HAMMING:
        return False
    pairs = ((a.capture_time, b.capture_time), (a.sequence_number, b.sequence_number), (a.camera, b.camera))
    return not any(x is not None and y is not None and x != y for x, y in pairs)


def originals_of(editions: Sequence[Edition]) -> dict[Hashable, Edition]:
    """Each copy among one group's frames and its original (the best-ranked edition of the same
    picture); a frame that is no copy is not listed."""
    out: dict[Hashable, Edition] = {}
    for edition in editions:
        better = [o for o in editions if o.key != edition.key and _one_picture(edition, o) and o.rank() > edition.rank()]
        if better:
            out[edition.key] = max(better, key=Edition.rank)
    return out


def find_copies(editions: Sequence[Edition], originals: Mapping[Hashable, Edition] | None = None) -> dict[Hashable, str]:
    """The copies among one group's frames, each with a sentence naming its original; a frame with
    no copy and no original is not listed. `originals`: originals_of(editions), when the caller has it."""
    by_key = {e.key: e for e in editions}
    out: dict[Hashable, str] = {}
    for key, original in (originals_of(editions) if originals is None else originals).items():
        edition = by_key[key]
        smaller = original.pixels > edition.pixels
        kind = "smaller copy" if smaller else "recompressed copy" if original.rank()[3] > edition.rank()[3] else "copy"
        out[edition.key] = (
            f"a {kind} ({edition.describe()}) of {original.name or original.key} ({original.describe()}): "
            "the original is kept"
        )
    return out


@dataclass(frozen=True)
class BurstFrame:
    """One frame as the best-of-burst choice sees it: its checks and faces, its overall score, and
    (optionally) what tells an original from its copies."""

    key: Hashable
    analysis: Analysis | None = None
    overall: float | None = None
    edition: Edition | None = None


def _passes(analysis: Analysis | None, *names: str) -> bool:
    """No reject verdict among the named checks (unchecked frames pass nothing)."""
    if analysis is None:
        return False
    return all(c.verdict != "reject" for c in analysis.checks if c.name in names)


_SHARPNESS_CHECKS = ("focus", "motion_blur")
_EXPOSURE_AND_NOISE = ("underexposure", "overexposure", "highlights", "shadows", "noise")
"""Checks whose warnings rank a frame below an alike one without them: a dark or bright frame a
hair crisper than the well-exposed one is not the one to show (held7 trial: a -2.5 EV frame shown
over its burst's clean frame by 0.02 px of edge spread)."""
_TIER = {"ok": 2.0, "warn": 1.0, "reject": 0.0}


def _sharpness_tier(checks: Sequence[Mapping[str, Any]]) -> float:
    """2: subject sharp, 1: soft (a warning) or sharpness not measurable (no edges to read it by: a
    frame blurred past recognition must not pass for a sharp one), 0: rejected for focus or motion blur."""
    tiers = [min(_TIER.get(str(c.get("verdict")), 0.0), 2.0 if _measured(c.get("value")) else 1.0)
             for c in checks if c.get("name") in _SHARPNESS_CHECKS]  # fmt: skip
    return min(tiers, default=2.0)


MIDDLE_GREY = 0.18
"""Linear light of a well-exposed frame's midtones (18 % grey, about 46 % in sRGB)."""


def _bracket_middle(checks: Sequence[Mapping[str, Any]]) -> float:
    """For a frame of an exposure bracket whose exposures were recorded, minus its stops from the
    bracket's middle exposure (the frame the camera metered is the one shown); 0 for any other."""
    sequence = next((c for c in checks if c.get("name") == "sequence"), None)
    stops = (sequence.get("measures") or {}).get("stops") if sequence is not None else None
    return -abs(float(stops)) if _measured(stops) else 0.0


def _bracket_exposure(checks: Sequence[Mapping[str, Any]]) -> float:
    """For a frame of an exposure bracket, minus how many stops its midtones sit from middle grey (so
    the bracket shows its middle exposure, not its darkest frame); 0 for any other frame. Measured in
    linear light, where a bracket's steps are even."""
    in_bracket = any(c.get("name") == "sequence" and "exposure bracket" in str(c.get("reason", "")) for c in checks)
    over = next((c for c in checks if c.get("name") == "overexposure"), None)
    median = (over.get("measures") or {}).get("median") if over is not None else None
    if not in_bracket or not _measured(median):
        return 0.0
    srgb = min(max(float(median), 1.0 / 255.0), 1.0)
    linear = srgb / 12.92 if srgb <= 0.04045 else ((srgb + 0.055) / 1.055) ** 2.4
    return -abs(math.log2(linear / MIDDLE_GREY))


def _measured(value: Any) -> TypeGuard[float]:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _value(checks: Sequence[Mapping[str, Any]], name: str, default: float) -> float:
    value = next((c.get("value") for c in checks if c.get("name") == name), None)
    return float(value) if _measured(value) else default


def stored_culling_rank(checks: Sequence[Mapping[str, Any]], faces: Sequence[Mapping[str, Any]]) -> tuple[float, ...]:
    """Sort key of a frame from its stored checks and faces, larger is better: not a copy, no blink,
    subject in focus, no clipping, no reject, in an exposure bracket the frame of its middle exposure
    (when the exposures were recorded), the sharper verdict (ok before a "soft" warning), eyes
    not closed even in a laugh, the fewest exposure and noise warnings, in an exposure bracket the
    exposure nearest middle grey, then the most pixels and the least compression, then the crisper
    subject (the focus check's edge spread), so that among equals a burst shows the frame its
    "softer than …, the sharpest frame of its burst" reasons name, not merely the first one.

    Rejects order frames first (and among rejected frames, fewer rejects first); among frames without
    one, a soft frame is the one to drop even when
    the sharp one clips a little or scored lower. A score, when there is one, comes after this.
    """
    rejected = {str(c.get("name")) for c in checks if c.get("verdict") == "reject"}
    closed = [f for f in faces if f.get("eyes") == "closed"]
    return (
        float(not any(c.get("name") == "copy" for c in checks)),
        float(not any(not f.get("expression") for f in closed)),  # "unknown" is no evidence
        float(not rejected & set(_SHARPNESS_CHECKS)),
        float(not rejected & {"highlights", "overexposure"}),
        float(not rejected),
        -float(len(rejected)),  # among rejected frames, the one fewer checks reject (a held11 trial's burst showed its noisy, dark frame over its dark one)
        _bracket_middle(checks),
        _sharpness_tier(checks),
        float(not closed),
        -float(sum(c.get("verdict") == "warn" for c in checks if c.get("name") in _EXPOSURE_AND_NOISE)),
        _bracket_exposure(checks),
        _value(checks, "resolution", 0.0),
        _value(checks, "compression", 100.0),
        -_value(checks, "focus", math.inf),
    )


_RANK_LENGTH = len(stored_culling_rank([], []))
"""How many keys a stored culling rank has (a frame never checked ranks last on each but "not a copy")."""


def representative_rank(frame: BurstFrame, copies: Mapping[Hashable, str] | None = None) -> tuple[float, ...]:
    """stored_culling_rank of a frame's analysis (a frame in `copies` is a copy), then its overall
    score, then the crispest subject."""
    analysis = frame.analysis
    checks = [c.as_dict() for c in analysis.checks] if analysis is not None else []
    if copies and frame.key in copies:
        checks.append({"name": "copy", "verdict": "warn"})
    faces = [f.as_dict() for f in analysis.faces] if analysis is not None else []
    verdicts = stored_culling_rank(checks, faces) if analysis is not None else (1.0,) + (0.0,) * (_RANK_LENGTH - 1)
    spread = _value(checks, "focus", 4.0)
    return (
        *verdicts,
        frame.overall if frame.overall is not None else float("-inf"),
        -spread,
    )


def choose_representative(frames: Sequence[BurstFrame]) -> Hashable:
    """The burst's best frame: not a copy, eyes open, subject in focus, no clipping, the most pixels,
    then the highest score."""
    if not frames:
        raise ValueError("a burst needs at least one frame")
    copies = find_copies([f.edition for f in frames if f.edition is not None])
    return max(frames, key=lambda f: representative_rank(f, copies)).key
