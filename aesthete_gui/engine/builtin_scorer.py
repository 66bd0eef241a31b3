"""The built-in scorer: hand-set rules over the image properties, needing no weights at all.

This is not a learned model of taste. It encodes a photographer's technical checks — the subject is
sharp, little noise, no detail blown or crushed, the brightest tones reach up, enough pixels — and a
few visual properties — colour variety, contrast and tonal range, a natural (≈ 1/f²) spectrum and a
balanced layout — as five scores on 1–5, so ranking, culling and the taste adapter have a sensible
start on a fresh install. A distilled student (or the user's adapter) replaces it as soon as there
is data.

Technique reads the technical checks' own measurements when it has them (imaging/checks.py: the
stored checks, or a fresh analysis in `score_paths`), else cruder image properties. Each dimension's
raw value is smooth (no rule saturates early), and a fixed monotone map, set on the clean
photographs of the calibration corpus's tune half, spreads clean frames over the scale; a frame
with a reject verdict scores below every frame without one. Noise never counts as detail: it
lowers technique and damps what it inflates (colour statistics, edges, contrast).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS, SCORE_MAX, SCORE_MIN
from aesthete_gui.engine.scorers import BUILTIN
from aesthete_gui.imaging.checks import LAPLACIAN_NOISE_GAIN
from aesthete_gui.jobs import CancelToken, ProgressCallback

BUILTIN_VERSION = "rules-6"
"""rules-6: a copy stays just below its original in every dimension (rules-5: technique and overall). rules-4: technique from the checks' measurements, smooth rules, calibrated spread over 1-5,
noise never rewarded. rules-3: rejects below every frame without one."""
REJECT_CEILING = 0.15
"""Share of the 1-5 range (unit scale) that frames with a reject verdict are confined to; frames
without one use the rest (1.6 and up), so a technical reject never outscores a frame that passed."""
CALIBRATION_TARGETS = (0.05, 0.15, 0.35, 0.5, 0.65, 0.85, 0.95)
CALIBRATION: dict[str, tuple[float, ...]] = {
    # raw unit value at the 2nd, 10th, 30th, 50th, 70th, 90th and 98th percentile of the 85 clean
    # photographs of the corpus's tune half (benchmarks/culling.py), mapped to CALIBRATION_TARGETS:
    # clean frames spread over the scale (technique and overall over the part above the rejects)
    "technique": (0.658, 0.731, 0.849, 0.908, 0.936, 0.957, 0.967),
    "technique_from_features": (0.610, 0.690, 0.807, 0.850, 0.901, 0.934, 0.953),
    "coloration": (0.027, 0.093, 0.412, 0.554, 0.709, 0.821, 0.874),
    "composition": (0.500, 0.594, 0.637, 0.714, 0.757, 0.836, 0.880),
    "mood": (0.278, 0.462, 0.621, 0.704, 0.774, 0.856, 0.894),
    "overall": (0.520, 0.613, 0.686, 0.749, 0.784, 0.812, 0.839),
}


def _ramp(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """0 at or below `low`, 1 at or above `high`, linear between."""
    return np.clip((values - low) / (high - low), 0.0, 1.0)


def _peak(values: np.ndarray, centre: float, half_width: float) -> np.ndarray:
    """1 at `centre`, falling linearly to 0 at `half_width` away."""
    return np.clip(1.0 - np.abs(values - centre) / half_width, 0.0, 1.0)


def _sigmoid(values: np.ndarray, centre: float, width: float) -> np.ndarray:
    """A smooth step from 0 to 1 around `centre` (rising when width > 0, falling when < 0)."""
    return 1.0 / (1.0 + np.exp(-np.clip((values - centre) / width, -40.0, 40.0)))


def _noise_corrected_sharpness(peak: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """sharpness_peak less what noise alone adds to the Laplacian's variance (per row)."""
    variance = np.power(10.0, peak) - 1.0 - LAPLACIAN_NOISE_GAIN * noise * noise
    return np.log10(1.0 + np.maximum(variance, 0.0))


def calibrate(dimension: str, raw: np.ndarray) -> np.ndarray:
    """A dimension's raw unit value mapped (monotone, piecewise linear) onto the calibrated unit scale."""
    xs = np.array((0.0, *CALIBRATION[dimension], 1.0))
    ys = np.array((0.0, *CALIBRATION_TARGETS, 1.0))
    return np.interp(np.clip(raw, 0.0, 1.0), xs, ys)


def _separate_rejects(unit: np.ndarray, rejected: np.ndarray) -> np.ndarray:
    """Rejected rows into [0, REJECT_CEILING), the others into [REJECT_CEILING, 1] (order kept within each)."""
    return np.where(rejected, REJECT_CEILING * 0.999 * unit, REJECT_CEILING + (1.0 - REJECT_CEILING) * unit)


COPY_STEP = 0.005
"""How far (unit scale) a copy stays below its original: enough to sort after it, too little to read."""


def _below_originals(unit: np.ndarray, originals: np.ndarray, rejected: np.ndarray | None) -> np.ndarray:
    """`unit` with each copy (originals[i] >= 0) at most COPY_STEP below its original, down a chain
    of copies of copies. With `rejected` (a dimension that keeps rejects in a band of their own), a
    copy that passed the checks is never pushed under a rejected original nor into that band."""
    if originals.shape != unit.shape:
        raise ValueError(f"originals has {originals.size} rows for {unit.size} images")
    copies = np.flatnonzero(originals >= 0)
    if rejected is not None:
        copies = copies[~(rejected[originals[copies]] & ~rejected[copies])]
    # a passing copy stays out of the rejects' band
    floor = np.zeros(len(copies)) if rejected is None else np.where(rejected[copies], 0.0, REJECT_CEILING)
    out = unit.copy()
    for _ in range(len(copies) + 1):  # a chain settles in as many steps as it is long
        capped = out.copy()
        capped[copies] = np.maximum(np.minimum(unit[copies], out[originals[copies]] - COPY_STEP), floor).clip(0.0, 1.0)
        if np.array_equal(capped, out):
            break
        out = capped
    return out


def _measure(measures: Sequence[Mapping[str, float] | None] | None, key: str, n: int, default: float) -> np.ndarray:
    """One measurement of every row (default where a row has none or it is not a number)."""
    out = np.full(n, default, dtype=float)
    for i, row in enumerate(measures or ()):
        value = (row or {}).get(key)
        if isinstance(value, int | float) and math.isfinite(value):
            out[i] = float(value)
    return out


def _noise_penalty(grain: np.ndarray, chroma: np.ndarray) -> np.ndarray:
    """0 (clean) .. 1 (heavy): colour noise, and grain where colour noise shows it is noise."""
    coloured = _ramp(chroma, 0.5, 1.5)
    return np.maximum(_ramp(grain, 3.0, 14.0) * coloured, np.maximum(_ramp(chroma, 0.8, 6.0), _ramp(grain, 12.0, 24.0)))


def _clipping(measures: Sequence[Mapping[str, float] | None] | None, n: int) -> np.ndarray:
    """0 .. 1: how much of the frame is blown (the square root of its share, saturating at a quarter):
    any blown pixel counts a little, from the first, since a brighter copy always clips more."""
    return _ramp(np.sqrt(np.maximum(_measure(measures, "highlights.frame", n, 0.0), 0.0)), 0.0, 0.5)


def _technique_from_checks(measures: Sequence[Mapping[str, float] | None], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Raw technique (0-1) and the noise penalty from the checks' measurements (imaging/checks.py)."""
    spread = _measure(measures, "focus", n, 2.6)
    width = _measure(measures, "motion_blur", n, 3.5)
    narrow = _measure(measures, "motion_blur.narrow", n, 3.0)
    smear = np.where(width / np.maximum(narrow, 1e-3) >= 1.3, width, 3.5)
    penalty = _noise_penalty(_measure(measures, "noise", n, 0.0), _measure(measures, "noise.chroma", n, 0.0))
    reach = _measure(measures, "underexposure", n, 0.9)
    detail_lost = _measure(measures, "highlights", n, 0.0)
    long_side = _measure(measures, "resolution", n, 1500.0)
    quality = _measure(measures, "compression", n, 95.0)
    sharp = _sigmoid(spread, 2.75, -0.3)
    steady = _sigmoid(smear, 4.6, -0.4)
    exposure = _sigmoid(reach, 0.55, 0.08) * (1.0 - 0.8 * _clipping(measures, n)) * (1.0 - 0.6 * _ramp(detail_lost, 0.005, 0.1))
    size = _ramp(np.log(np.maximum(long_side, 1.0)), math.log(160.0), math.log(1600.0))
    compression = _ramp(quality, 15.0, 75.0)
    raw = 0.35 * sharp + 0.12 * steady + 0.18 * (1.0 - penalty) + 0.2 * exposure + 0.1 * size + 0.05 * compression
    return raw, penalty


def _technique_from_features(f: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Raw technique (0-1) and a noise penalty from the image properties alone (no checks at hand)."""
    noise = f["noise_sigma"]
    focus = _noise_corrected_sharpness(f["sharpness_peak"], noise)
    sharp = _sigmoid(focus, 2.9, 0.45)
    penalty = _ramp(noise, 2.0, 12.0)
    unclipped = 1.0 - _ramp(f["clipped_highlights"] + 0.3 * f["crushed_shadows"], 0.01, 0.25)
    brightest = f["hsv_mean_v"] + 2.0 * f["hsv_std_v"]  # where the bright tones of the frame reach
    exposure = _sigmoid(brightest, 0.45, 0.1) * (1.0 - 0.7 * _ramp(np.sqrt(np.maximum(f["clipped_highlights"], 0.0)), 0.0, 0.5))
    steady = 1.0 - _ramp(f["motion_blur_hint"], 0.7, 0.97)
    long_side = np.sqrt(f["image_megapixels"] * 1e6 * np.maximum(f["aspect_ratio"], 1.0 / np.maximum(f["aspect_ratio"], 1e-6)))
    size = _ramp(np.log(np.maximum(long_side, 1.0)), math.log(160.0), math.log(1600.0))
    raw = 0.35 * sharp + 0.12 * steady + 0.18 * (1.0 - penalty) + 0.1 * unclipped + 0.15 * exposure + 0.1 * size
    return raw, penalty


class BuiltinScorer:
    """Rule-based five-dimension scores from FEATURE_NAMES properties and the checks' measurements."""

    scorer_id = BUILTIN
    version = BUILTIN_VERSION
    needs_embeddings = False
    encoder_name: str | None = None

    def score_arrays(
        self,
        embeddings: np.ndarray | None,
        feature_names: Sequence[str],
        features: np.ndarray,
        *,
        rejected: np.ndarray | None = None,
        measures: Sequence[Mapping[str, float] | None] | None = None,
        originals: np.ndarray | None = None,
    ) -> np.ndarray:
        """(n, 5) scores on 1–5 in DIMENSIONS order; `embeddings` is ignored.

        `rejected` marks rows whose technical checks (imaging/checks.py) hold a reject verdict:
        their technique and overall scores fall below those of every row without one. `measures`
        gives each row's checks measurements (judging.values_of of its stored checks; None for a row
        without): technique is read from them where present. Without either, every row counts as
        passing and technique comes from the image properties. `originals` gives, for a row that is
        a resized or recompressed copy of another row, that row's index (-1 for any other row): the
        copy's scores then stay just below its original's in every dimension (a smaller copy's edges
        read crisper, and ranked above its original it would be the one kept).
        """
        index = {name: i for i, name in enumerate(feature_names)}
        missing = [n for n in _USED if n not in index]
        if missing:
            raise ValueError(f"the built-in scorer needs image properties {missing}")
        f = {name: np.asarray(features, dtype=float)[:, index[name]] for name in _USED}
        n = len(f["noise_sigma"])
        gate = np.zeros(n, dtype=bool) if rejected is None else np.asarray(rejected, dtype=bool)
        if gate.shape != (n,):
            raise ValueError(f"rejected has {gate.size} rows for {n} images")
        if measures is not None and len(measures) != n:
            raise ValueError(f"measures has {len(measures)} rows for {n} images")
        technique, penalty = _technique_from_features(f)
        technique_unit = calibrate("technique_from_features", np.nan_to_num(technique, nan=0.5))
        if measures is not None:
            measured = np.array([bool(m) for m in measures])
            from_checks, checked_penalty = _technique_from_checks(measures, n)
            technique_unit = np.where(measured, calibrate("technique", from_checks), technique_unit)
            technique = np.where(measured, from_checks, technique)
            penalty = np.where(measured, checked_penalty, penalty)
        # sensor noise inflates colour statistics, edges and contrast: it never earns credit for them
        damp = 1.0 - 0.6 * penalty
        colourful = _ramp(f["colourfulness"], 5.0, 70.0) * (1.0 - 0.5 * _ramp(f["colourfulness"], 110.0, 170.0))
        coloration = (0.6 * colourful + 0.4 * _ramp(f["colour_entropy"], 1.5, 7.0)) * damp
        natural = _peak(f["fourier_slope"], -2.2, 1.6)
        busy = _peak(f["edge_density"], 0.12, 0.25) * damp
        composition = 0.4 * f["balance"].clip(0, 1) + 0.3 * natural + 0.3 * busy
        mood = (0.5 * _ramp(f["rms_contrast"], 0.04, 0.32) + 0.5 * _ramp(f["luminance_entropy"], 3.5, 7.8)) * (1.0 - 0.3 * penalty)
        raw = {"technique": technique, "coloration": coloration, "composition": composition, "mood": mood}
        raw = {k: np.nan_to_num(v, nan=0.5) for k, v in raw.items()}  # a property not measured counts as middling
        units = {k: calibrate(k, v) for k, v in raw.items() if k != "technique"}
        units["technique"] = technique_unit
        overall_raw = 0.45 * raw["technique"] + 0.2 * raw["coloration"] + 0.15 * raw["composition"] + 0.2 * raw["mood"]
        if measures is not None:
            # blown highlights show to any viewer, and brightening a frame lifts its contrast and
            # colour statistics: clipping costs the overall score too, so brightening never pays
            overall_raw = overall_raw * (1.0 - 0.3 * _clipping(measures, n))
        units["overall"] = calibrate("overall", overall_raw)
        # a technical reject is never a keeper: below every frame that passed the checks
        units["technique"] = _separate_rejects(units["technique"], gate)
        units["overall"] = _separate_rejects(units["overall"], gate)
        if originals is not None:  # every dimension: sorted by coloration or mood, a copy came first too
            for dimension in DIMENSIONS:
                # only technique and overall keep rejects in a band of their own
                banded = gate if dimension in ("technique", "overall") else None
                units[dimension] = _below_originals(units[dimension], np.asarray(originals, dtype=int), banded)
        unit = np.stack([units[d] for d in DIMENSIONS], axis=1)
        return SCORE_MIN + (SCORE_MAX - SCORE_MIN) * np.nan_to_num(unit, nan=0.5)

    def score_paths(
        self, paths: Sequence[str], progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> list[dict[str, float]]:
        """Scorer protocol: measure each image, check it and apply the rules ({} for an unreadable image).

        Each file is read once; its properties and its checks are measured on their own canonical
        decodes of those bytes (the same values import stores).
        """
        from aesthete_gui.imaging.checks import analyse_bytes, rejected
        from aesthete_gui.imaging.decode import DecodeError, decode_bytes, read_bytes
        from aesthete_gui.imaging.features import FEATURE_NAMES, as_vector, decoded_features
        from aesthete_gui.imaging.judging import values_of
        from aesthete_gui.imaging.thumbnails import PREVIEW_DRAFT_SIDE, PREVIEW_SIDE

        out: list[dict[str, float]] = []
        for path in paths:
            if cancel is not None:
                cancel.raise_if_cancelled()
            try:
                data = read_bytes(path)
                name = os.fsdecode(path)
                # the decode decode_for_features makes, from the bytes already read
                features = decoded_features(decode_bytes(data, name, PREVIEW_SIDE, PREVIEW_DRAFT_SIDE))
                row = as_vector(features)[np.newaxis].astype(float)
                analysis = analyse_bytes(data, name)
            except DecodeError:
                out.append({})
                continue
            verdict = np.array([bool(rejected(analysis.checks))])
            measured = [values_of([c.as_dict() for c in analysis.checks], len(analysis.faces))]
            scores = self.score_arrays(None, FEATURE_NAMES, row, rejected=verdict, measures=measured)[0]
            out.append({d: float(v) for d, v in zip(DIMENSIONS, scores, strict=True)})
        return out


_USED = (
    "sharpness_peak", "noise_sigma", "clipped_highlights", "crushed_shadows", "lab_mean_l",
    "motion_blur_hint", "colourfulness", "colour_entropy", "fourier_slope", "edge_density",
    "balance", "rms_contrast", "luminance_entropy", "hsv_mean_v", "hsv_std_v", "image_megapixels",
    "aspect_ratio",
)  # fmt: skip
