"""Exposure brackets, panoramas and focus stacks: frames meant to be used together (pure functions).

A bracket is a run of frames seconds apart that differ only by exposure (EXIF exposure bias, or the
exposure time at the same aperture and ISO, or the camera's auto-bracket mode) and show the same
view. A panorama is a run with one exposure and focal length whose views are different but overlap
their neighbours. A focus stack is a run of the same view and exposure whose sharp region moves from
frame to frame, every frame sharp somewhere. The frames of such a set are never suggested as rejects (the darkest frame of a
bracket is dark on purpose) and the set is named on each frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from aesthete_gui.imaging.hashing import hamming

SequenceKind = Literal["bracket", "panorama", "focus_stack"]
MAX_STEP_S = 4.0
"""Longest pause between two frames of one set (a bracket on a tripod, a hand-held panorama)."""
MIN_BRACKET_SPAN_EV = 0.6
"""A bracket spans at least this many stops between its darkest and brightest frame."""
BRACKET_RENDER_SHARE = 0.4
"""Frames whose exposures differ (shutter or aperture, no bias recorded) are a bracket only when the
one given more light renders its midtones brighter by at least this share of what that light would
add to the other's (a metered burst in changing light renders its frames alike)."""
SAME_EV = 0.2
"""Exposures within this many stops count as equal (metering drifts a little between frames)."""
SAME_VIEW_HAMMING = 20
"""pHash bits within which two frames show one view (brightness hardly moves a pHash)."""
NEW_VIEW_HAMMING = 12
"""pHash bits beyond which neighbours of a panorama show different views."""
MIN_PANORAMA = 3
"""Frames of a panorama recognised from metadata alone; 2 when the thumbnails show the overlap."""
MIN_STACK = 3
STACK_VIEW_HAMMING = 4
"""pHash bits within which neighbours of a focus stack show one view: a stack is shot from a tripod,
where refocusing moves the picture little, while a hand-held burst's frames drift 2-16 bits apart (a
held10 trial's burst of sharp frames, its sharpest tile hopping one way by chance, was called a stack
and left out of culling)."""
MIN_FOCUS_SHIFT = 0.2
"""The sharp region of a focus stack moves by at least this share of the frame across the set ..."""
STACK_STRAIGHTNESS = 0.7
"""... and mostly one way: its first-to-last travel is at least this share of its whole path."""
AUTO_BRACKET = 2
"""EXIF ExposureMode value for the camera's auto-bracket mode."""
KIND_NAMES: dict[str, str] = {"bracket": "exposure bracket", "panorama": "panorama", "focus_stack": "focus stack"}


@dataclass(frozen=True)
class Shot:
    """One frame as set recognition sees it (None: not recorded)."""

    key: Hashable
    capture_time: float | None = None
    camera: str | None = None
    exposure_bias: float | None = None
    exposure_time: float | None = None
    f_number: float | None = None
    iso: float | None = None
    focal_length: float | None = None
    exposure_mode: int | None = None
    phash: int | None = None
    sharp_at: tuple[float, float] | None = None
    """Where the frame is sharpest, (x, y) as fractions of the frame."""
    crisp: bool | None = None
    """Whether the frame is sharp somewhere (its focus check passed); None: not known."""
    midtones: float | None = None
    """The frame's median brightness as rendered (0-1, sRGB), which a bracket's exposures move; None: not measured."""


@dataclass(frozen=True)
class FrameSet:
    """A recognised set: its kind, its frames in shooting order, and a short description."""

    kind: SequenceKind
    keys: tuple[Hashable, ...]
    detail: str = ""

    def describe(self) -> str:
        """E.g. "exposure bracket of 3 frames (-2, 0, +2 EV)"."""
        text = f"{KIND_NAMES[self.kind]} of {len(self.keys)} frames"
        return f"{text} ({self.detail})" if self.detail else text


OverlapTest = Callable[[Hashable, Hashable], "bool | None"]


def _ev(shot: Shot) -> float | None:
    """The light the frame gathered, in stops from an arbitrary zero: exposure time and aperture when
    recorded, else the exposure bias. ISO is gain, not light: a frame at another ISO with the same
    shutter and aperture is no bracket (the noisy high-ISO frame of a shoot is not kept as a set)."""
    if shot.exposure_time:
        stops = math.log2(shot.exposure_time)
        if shot.f_number:
            stops -= 2.0 * math.log2(shot.f_number)
        return stops
    return shot.exposure_bias


def _same(a: float | None, b: float | None, tolerance: float) -> bool:
    return a is None or b is None or abs(a - b) <= tolerance


def _same_optics(a: Shot, b: Shot) -> bool:
    """Same camera and focal length, close enough in time to be one set."""
    if (a.camera or "") != (b.camera or "") or a.capture_time is None or b.capture_time is None:
        return False
    return 0 <= b.capture_time - a.capture_time <= MAX_STEP_S and _same(a.focal_length, b.focal_length, 0.5)


def _same_exposure(a: Shot, b: Shot) -> bool:
    """Equal exposure as far as recorded (bias, time in stops, aperture, ISO)."""
    times = [math.log2(s.exposure_time) if s.exposure_time else None for s in (a, b)]
    return (
        _same(a.exposure_bias, b.exposure_bias, SAME_EV)
        and _same(times[0], times[1], SAME_EV)
        and _same(a.f_number, b.f_number, 0.05 * max(a.f_number or 1, b.f_number or 1))
        and _same(a.iso, b.iso, 1.0)
        and any(v is not None for v in (a.exposure_bias, a.exposure_time))
    )


def _same_view(a: Shot, b: Shot, limit: int = SAME_VIEW_HAMMING) -> bool:
    return a.phash is None or b.phash is None or hamming(a.phash, b.phash) <= limit


def _runs(shots: Sequence[Shot], linked: Callable[[Shot, Shot], bool]) -> list[list[Shot]]:
    """Maximal runs of consecutive shots (time order) in which every neighbour pair is linked."""
    runs: list[list[Shot]] = []
    for shot in shots:
        if runs and linked(runs[-1][-1], shot):
            runs[-1].append(shot)
        else:
            runs.append([shot])
    return runs


def _bracket_link(a: Shot, b: Shot) -> bool:
    if not (_same_optics(a, b) and _same_view(a, b)):
        return False
    if a.exposure_mode == AUTO_BRACKET and b.exposure_mode == AUTO_BRACKET:
        return True
    if a.exposure_bias is not None and b.exposure_bias is not None and abs(a.exposure_bias - b.exposure_bias) > SAME_EV:
        return True  # the photographer (or the camera's bracketing) set another bias
    ev_a, ev_b = _ev(a), _ev(b)
    if ev_a is None or ev_b is None or abs(ev_a - ev_b) < MIN_BRACKET_SPAN_EV:
        return False
    return _rendered_as_exposed(a, b, ev_b - ev_a)


def _rendered_as_exposed(a: Shot, b: Shot, stops: float) -> bool:
    """Whether the frames' brightness moved with their exposure (`stops` more light in b than in a).
    A bracket shot by turning the shutter dial renders its longer exposure brighter. A burst in
    aperture priority whose meter moved the shutter for a changing scene (a cloud passing, a bird
    against sky then trees) renders its frames alike, the camera having made up for the light: that
    is no set, and its blurred frames must still be suggested. Unmeasured frames count as a bracket."""
    if a.midtones is None or b.midtones is None:
        return True
    darker, brighter = (a.midtones, b.midtones) if stops > 0 else (b.midtones, a.midtones)
    base = min(max(darker, 0.0), 1.0)
    expected = _srgb(min(1.0, _linear(base) * 2.0 ** abs(stops))) - base
    return brighter - darker >= BRACKET_RENDER_SHARE * expected


def _linear(value: float) -> float:
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def _srgb(value: float) -> float:
    return value * 12.92 if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055


def _bracket_detail(run: Sequence[Shot]) -> str:
    biases = [s.exposure_bias for s in run]
    if any(b is None for b in biases) or len(set(biases)) < 2:
        return ""
    steps = [round(b, 1) for b in biases]  # type: ignore[arg-type]
    return ", ".join("0" if b == 0 else f"{b:+g}" for b in steps) + " EV"


def _brackets(shots: Sequence[Shot]) -> list[FrameSet]:
    out = []
    for run in _runs(shots, _bracket_link):
        evs = [e for e in (_ev(s) for s in run) if e is not None]
        biases = [s.exposure_bias for s in run if s.exposure_bias is not None]
        auto = all(s.exposure_mode == AUTO_BRACKET for s in run)
        spans = [max(v) - min(v) for v in (evs, biases) if v]
        if len(run) >= 2 and (auto or max(spans, default=0.0) >= MIN_BRACKET_SPAN_EV):
            out.append(FrameSet("bracket", tuple(s.key for s in run), _bracket_detail(run)))
    return out


def _panoramas(shots: Sequence[Shot], overlaps: OverlapTest | None) -> list[FrameSet]:
    def linked(a: Shot, b: Shot) -> bool:
        if not (_same_optics(a, b) and _same_exposure(a, b)) or _same_view(a, b, NEW_VIEW_HAMMING):
            return False
        return overlaps is None or bool(overlaps(a.key, b.key))

    need = MIN_PANORAMA if overlaps is None else 2
    return [FrameSet("panorama", tuple(s.key for s in run)) for run in _runs(shots, linked) if len(run) >= need]


def _focus_stacks(shots: Sequence[Shot]) -> list[FrameSet]:
    def linked(a: Shot, b: Shot) -> bool:
        return _same_optics(a, b) and _same_exposure(a, b) and _same_view(a, b, STACK_VIEW_HAMMING)

    out = []
    for run in _runs(shots, linked):
        if len(run) < MIN_STACK or any(s.sharp_at is None or s.crisp is False for s in run):
            continue  # every frame of a stack is sharp somewhere; a burst with soft frames is no stack
        spots = np.array([s.sharp_at for s in run], dtype=float)
        travel = float(np.linalg.norm(spots[-1] - spots[0]))
        steps = np.linalg.norm(np.diff(spots, axis=0), axis=1)
        # the sharp region walks one way through the scene (near to far), not back and forth
        if travel >= MIN_FOCUS_SHIFT and travel >= STACK_STRAIGHTNESS * float(steps.sum()):
            out.append(FrameSet("focus_stack", tuple(s.key for s in run)))
    return out


def find_sets(shots: Sequence[Shot], overlaps: OverlapTest | None = None) -> list[FrameSet]:
    """Brackets, panoramas and focus stacks among `shots` (a frame belongs to one set at most;
    brackets first, then focus stacks, then panoramas). `overlaps(a, b)` says whether two frames'
    pictures overlap side by side (None: unknown), from their thumbnails."""
    timed = sorted((s for s in shots if s.capture_time is not None), key=lambda s: (s.camera or "", s.capture_time))
    found: list[FrameSet] = []
    taken: set[Hashable] = set()
    for finder in (_brackets, _focus_stacks, lambda s: _panoramas(s, overlaps)):
        for frame_set in finder([s for s in timed if s.key not in taken]):
            found.append(frame_set)
            taken.update(frame_set.keys)
    return found


def side_by_side(a: np.ndarray, b: np.ndarray, min_overlap: float = 0.15, min_ncc: float = 0.85) -> bool:
    """True when grey thumbnails `a` and `b` (same size) show overlapping views shifted sideways or
    up/down, as neighbours of a panorama do: one's edge strip matches the other's opposite strip,
    and the two do not already match as they stand."""
    if a.shape != b.shape or min(a.shape) < 8:
        return False
    if _nearly_aligned(a, b) >= min_ncc:
        return False  # one view, drifted a little (a burst frame, sharp or blurred): no panorama
    h, w = a.shape
    for axis, size in ((1, w), (0, h)):
        for width in range(max(2, int(size * min_overlap)), int(size * 0.85) + 1, max(1, size // 32)):
            for first, second in ((a, b), (b, a)):
                part_a = np.take(first, range(size - width, size), axis=axis)
                part_b = np.take(second, range(width), axis=axis)
                if _ncc(part_a, part_b) >= min_ncc:
                    return True
    return False


DRIFT = 0.08
"""Shifts up to this share of a thumbnail's side are a burst's drift, not a panorama's step (whose
neighbours overlap by at most 85 %: a shift of 15 % or more)."""


def _nearly_aligned(a: np.ndarray, b: np.ndarray) -> float:
    """The best correlation of two same-size thumbnails over shifts up to DRIFT of their sides."""
    h, w = a.shape
    ky, kx = max(1, round(h * DRIFT)), max(1, round(w * DRIFT))
    best = -1.0
    for dy in range(-ky, ky + 1):
        for dx in range(-kx, kx + 1):
            part_a = a[max(0, dy): h + min(0, dy), max(0, dx): w + min(0, dx)]
            part_b = b[max(0, -dy): h + min(0, -dy), max(0, -dx): w + min(0, -dx)]
            best = max(best, _ncc(part_a, part_b))
    return best


def _ncc(x: np.ndarray, y: np.ndarray) -> float:
    x, y = x - x.mean(), y - y.mean()
    denominator = float(np.sqrt((x * x).sum() * (y * y).sum()))
    return float((x * y).sum() / denominator) if denominator > 1e-9 else 0.0
