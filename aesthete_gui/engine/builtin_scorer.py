"""The built-in scorer: hand-set rules over the image properties, needing no weights at all.

This is not a learned model of taste. It encodes a photographer's technical checks — the sharpest
region is sharp, little noise, few blown highlights or crushed shadows, exposure near the middle,
some colour variety, contrast and tonal range, a natural (≈ 1/f²) spectrum and a balanced layout —
as five scores on 1–5, so ranking, culling and the taste adapter have a sensible start on a fresh
install. A distilled student (or the user's adapter) replaces it as soon as there is data.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS, SCORE_MAX, SCORE_MIN
from aesthete_gui.imaging.checks import LAPLACIAN_NOISE_GAIN

BUILTIN_VERSION = "rules-3"
"""rules-3: a frame with a reject verdict (imaging/checks.py) scores below every frame without
one, on technique and overall; exposure is judged against the scene; tiny images are not rewarded."""
REJECT_CEILING = 0.3
"""Share of the 1-5 range (unit scale) that frames with a reject verdict are confined to; frames
without one use the rest, so a technical reject never outscores a frame that passed the checks."""


def _ramp(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """0 at or below `low`, 1 at or above `high`, linear between."""
    return np.clip((values - low) / (high - low), 0.0, 1.0)


def _peak(values: np.ndarray, centre: float, half_width: float) -> np.ndarray:
    """1 at `centre`, falling linearly to 0 at `half_width` away."""
    return np.clip(1.0 - np.abs(values - centre) / half_width, 0.0, 1.0)


def _noise_corrected_sharpness(peak: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """sharpness_peak less what noise alone adds to the Laplacian's variance (checks' formula, per row)."""
    variance = np.power(10.0, peak) - 1.0 - LAPLACIAN_NOISE_GAIN * noise * noise
    return np.log10(1.0 + np.maximum(variance, 0.0))


def _separate_rejects(unit: np.ndarray, rejected: np.ndarray) -> np.ndarray:
    """Rejected rows into [0, REJECT_CEILING), the others into [REJECT_CEILING, 1] (order kept within each)."""
    return np.where(rejected, REJECT_CEILING * 0.999 * unit, REJECT_CEILING + (1.0 - REJECT_CEILING) * unit)


class BuiltinScorer:
    """Rule-based five-dimension scores from FEATURE_NAMES properties (no embeddings, no weights)."""

    scorer_id = "builtin"
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
    ) -> np.ndarray:
        """(n, 5) scores on 1–5 in DIMENSIONS order; `embeddings` is ignored.

        `rejected` marks rows whose technical checks (imaging/checks.py) hold a reject verdict:
        their technique and overall scores fall below those of every row without one. Without it
        no row is treated as rejected (the verdicts are measured on their own decode, not here).
        """
        index = {name: i for i, name in enumerate(feature_names)}
        missing = [n for n in _USED if n not in index]
        if missing:
            raise ValueError(f"the built-in scorer needs image properties {missing}")
        f = {name: np.asarray(features, dtype=float)[:, index[name]] for name in _USED}
        noise = f["noise_sigma"]
        focus = _noise_corrected_sharpness(f["sharpness_peak"], noise)
        sharp = _ramp(focus, 1.1, 2.6)
        clean = 1.0 - _ramp(noise, 2.0, 12.0)
        unclipped = 1.0 - _ramp(f["clipped_highlights"] + 0.3 * f["crushed_shadows"], 0.01, 0.15)
        # exposure against the scene: never the mean (a night scene is dark, and brightening it must
        # not pay) but whether any tone reaches up (darkened copies lose that) and clipping
        # (brightened copies gain it); brightening also lifts contrast, so sharpness saturates early
        brightest = f["hsv_mean_v"] + 2.0 * f["hsv_std_v"]  # where the bright tones of the frame reach
        clipping = _ramp(f["clipped_highlights"], 0.002, 0.05)
        exposure = _ramp(brightest, 0.15, 0.35) * (1.0 - clipping)
        steady = 1.0 - _ramp(f["motion_blur_hint"], 0.7, 0.97)
        long_side = np.sqrt(f["image_megapixels"] * 1e6 * np.maximum(f["aspect_ratio"], 1.0 / np.maximum(f["aspect_ratio"], 1e-6)))
        usable = _ramp(long_side, 160.0, 800.0)
        technique = (0.35 * sharp + 0.2 * clean + 0.15 * unclipped + 0.2 * exposure + 0.1 * steady) * (0.5 + 0.5 * usable)
        gate = np.zeros(len(technique), dtype=bool) if rejected is None else np.asarray(rejected, dtype=bool)
        if gate.shape != technique.shape:
            raise ValueError(f"rejected has {gate.size} rows for {technique.size} images")
        colourful = _ramp(f["colourfulness"], 8.0, 55.0) * (1.0 - 0.5 * _ramp(f["colourfulness"], 110.0, 170.0))
        # sensor noise inflates colour statistics, so noisy images do not get colour credit for it
        coloration = (0.6 * colourful + 0.4 * _ramp(f["colour_entropy"], 2.0, 6.5)) * (0.6 + 0.4 * clean)
        natural = _peak(f["fourier_slope"], -2.0, 1.5)
        busy = _peak(f["edge_density"], 0.15, 0.2)
        composition = 0.4 * f["balance"].clip(0, 1) + 0.3 * natural + 0.3 * busy
        mood = 0.5 * _ramp(f["rms_contrast"], 0.06, 0.25) + 0.5 * _ramp(f["luminance_entropy"], 4.0, 7.5)
        overall = 0.4 * technique + 0.2 * coloration + 0.2 * composition + 0.2 * mood
        # blown highlights show to any viewer, and brightening a dark scene lifts its contrast and
        # colour statistics: clipping costs the overall score too, so that never pays
        overall = overall * (1.0 - 0.25 * clipping)
        # a technical reject is never a keeper: below every frame that passed the checks (a property
        # that could not be measured counts as middling first, so it cannot lift a reject back up)
        technique, overall = (np.nan_to_num(v, nan=0.5) for v in (technique, overall))
        technique, overall = _separate_rejects(technique, gate), _separate_rejects(overall, gate)
        columns = {"technique": technique, "coloration": coloration, "composition": composition, "mood": mood, "overall": overall}
        unit = np.stack([columns[d] for d in DIMENSIONS], axis=1)
        return SCORE_MIN + (SCORE_MAX - SCORE_MIN) * np.nan_to_num(unit, nan=0.5)

    def score_paths(self, paths: Sequence[str], progress: object = None, cancel: object = None) -> list[dict[str, float]]:
        """Scorer protocol: measure each image, check it and apply the rules ({} for an unreadable image).

        Each file is read once; its properties and its checks are measured on their own canonical
        decodes of those bytes (the same values import stores).
        """
        from aesthete_gui.imaging.checks import analyse_bytes, rejected
        from aesthete_gui.imaging.decode import DecodeError, decode_bytes, read_bytes
        from aesthete_gui.imaging.features import FEATURE_NAMES, as_vector, decoded_features
        from aesthete_gui.imaging.thumbnails import PREVIEW_DRAFT_SIDE, PREVIEW_SIDE

        out: list[dict[str, float]] = []
        for path in paths:
            if cancel is not None:
                cancel.raise_if_cancelled()  # type: ignore[attr-defined]
            try:
                data = read_bytes(path)
                name = os.fsdecode(path)
                # the decode decode_for_features makes, from the bytes already read
                features = decoded_features(decode_bytes(data, name, PREVIEW_SIDE, PREVIEW_DRAFT_SIDE))
                row = as_vector(features)[np.newaxis].astype(float)
                verdict = np.array([bool(rejected(analyse_bytes(data, name).checks))])
            except DecodeError:
                out.append({})
                continue
            scores = self.score_arrays(None, FEATURE_NAMES, row, rejected=verdict)[0]
            out.append({d: float(v) for d, v in zip(DIMENSIONS, scores, strict=True)})
        return out


_USED = (
    "sharpness_peak", "noise_sigma", "clipped_highlights", "crushed_shadows", "lab_mean_l",
    "motion_blur_hint", "colourfulness", "colour_entropy", "fourier_slope", "edge_density",
    "balance", "rms_contrast", "luminance_entropy", "hsv_mean_v", "hsv_std_v", "image_megapixels",
    "aspect_ratio",
)  # fmt: skip
