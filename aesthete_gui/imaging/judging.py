"""Verdicts and reasons from measured values: thresholds, the shoot type, the scene's intent, the set.

`judge` turns the flat measurements of imaging/checks.py (a check's value under its own name, what
else its verdict depends on under "<check>.<what>") into Checks. The thresholds are checks.toml's
with the shoot type's overrides (imaging/shoot_types.py); intent lowers a verdict to a warning and
says why (a snow scene, a silhouette, panning, eyes closed in a laugh); a frame of an exposure
bracket, panorama or focus stack is never a suggested reject. Everything here reads stored numbers
only, so the library judges again without decoding when the shoot type changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from aesthete_gui.imaging.shoot_types import DEFAULT_SHOOT_TYPE, limits_for, shoot_types_version

Verdict = Literal["ok", "warn", "reject"]
VERDICT_RANK: dict[str, int] = {"ok": 0, "warn": 1, "reject": 2}
CHECK_NAMES: tuple[str, ...] = (
    "focus", "motion_blur", "highlights", "shadows", "underexposure", "overexposure", "brightened",
    "noise", "resolution", "compression", "eyes",
)  # fmt: skip
SET_CHECKS = ("sequence", "copy")
"""Entries about the frame's group rather than its pixels (present only when they apply)."""


@dataclass(frozen=True)
class Check:
    """One technical check of one image: measured value, verdict, the reason in plain words, and the
    other measurements its verdict depends on (kept so it can be judged again)."""

    name: str
    value: float
    verdict: Verdict
    reason: str
    measures: Mapping[str, float] = field(default_factory=dict)
    judged: str = ""
    """Which thresholds, shoot type and set this verdict was judged under (services/verdicts.py)."""

    def as_dict(self) -> dict[str, object]:
        """The stored form: {name, value, verdict, reason} plus measures and judged when present."""
        out: dict[str, object] = {"name": self.name, "value": self.value, "verdict": self.verdict, "reason": self.reason}
        if self.measures:
            out["measures"] = dict(self.measures)
        if self.judged:
            out["judged"] = self.judged
        return out


@dataclass(frozen=True)
class SetContext:
    """What the frame's group says about it: a bracket, panorama or focus stack it belongs to, or the
    original it is a smaller or more compressed copy of."""

    sequence: str = ""
    """E.g. "exposure bracket of 3 frames (-2, 0, +2 EV)"; empty when none."""
    copy_of: str = ""
    """E.g. "a 900 x 1200 copy (JPEG quality 80) of IMG_0001.JPG (1800 x 2400)"; empty when none."""

    def stamp(self) -> str:
        return f"{self.sequence}|{self.copy_of}"


def judge_stamp(shoot_type: str, thresholds_version: str, context: SetContext | None = None) -> str:
    """What a stored verdict was judged under; a row whose stamp differs is judged again."""
    return f"{thresholds_version}.{shoot_types_version()}:{shoot_type}:{(context or SetContext()).stamp()}"


def _level(value: float, rule: Mapping[str, Any]) -> Verdict:
    above = rule.get("direction", "above") == "above"
    warn, reject = float(rule["warn"]), float(rule["reject"])
    if above:
        return "reject" if value >= reject else "warn" if value >= warn else "ok"
    return "reject" if value <= reject else "warn" if value <= warn else "ok"


def _at_most(verdict: Verdict, cap: Verdict) -> Verdict:
    return cap if VERDICT_RANK[verdict] > VERDICT_RANK[cap] else verdict


def _worse(a: Verdict, b: Verdict) -> Verdict:
    return a if VERDICT_RANK[a] >= VERDICT_RANK[b] else b


def _pct(value: float) -> str:
    return f"{value * 100:.0f} %" if value >= 0.01 or value == 0 else f"{value * 100:.1f} %"


class _Judge:
    """Verdict and reason of each check from the measurements (one instance per image)."""

    def __init__(self, values: Mapping[str, float], limits: Mapping[str, Mapping[str, Any]]) -> None:
        self.values = values
        self.limits = limits

    def get(self, key: str, default: float = float("nan")) -> float:
        value = self.values.get(key, default)
        return float(value) if value is not None else default

    def rule(self, name: str, key: str, default: float = float("nan")) -> float:
        return float(self.limits.get(name, {}).get(key, default))

    def focus(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        face = self.get("focus.face")
        on_face = self.get("faces", 0.0) > 0 and not math.isnan(face)
        subject = "the face" if on_face else "the subject"
        if on_face:
            verdict = _level(face, {"warn": rule.get("face_warn", rule["warn"]), "reject": rule.get("face_reject", rule["reject"])})
            value = face
        else:
            verdict = _level(value, rule)
            narrow = self.get("focus.narrow")
            if not math.isnan(narrow) and value >= float(rule.get("edge_spread", math.inf)):
                edges = _level(narrow, {"warn": rule.get("edge_warn", math.inf), "reject": rule.get("edge_reject", math.inf)})
                if VERDICT_RANK[edges] > VERDICT_RANK[verdict]:
                    where = "even the crispest edges of the sharpest part of the frame"
                    return edges, f"soft: {where} are {narrow:.1f} px wide (crisp ≈ 2)"
        if verdict == "ok":
            return "ok", f"{subject} sharp (edge spread {value:.2f}; crisp ≈ 2)"
        where = subject if on_face else "even the sharpest part of the frame"
        soft_from = float(rule.get("face_warn", rule["warn"]) if on_face else rule["warn"])
        return verdict, f"{where} is soft (edge spread {value:.2f}; crisp ≈ 2, soft from {soft_from:.1f})"

    def motion_blur(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        narrow = self.get("motion_blur.narrow")
        ratio = value / narrow if narrow and not math.isnan(narrow) else 1.0
        verdict = _level(value, rule) if ratio >= float(rule.get("min_ratio", 1.0)) else "ok"
        background = self.get("motion_blur.background", 0.0)
        exposure = self.get("motion_blur.exposure_s", 0.0)
        if verdict == "ok" and background >= float(rule.get("panning_background", math.inf)):
            return "ok", (f"no motion blur on the subject; the background is streaked along one direction "
                          f"(edges {background:.1f} px wide), as in panning")
        if verdict == "ok":
            return "ok", "no sign of motion blur"
        if exposure >= float(rule.get("long_exposure_s", math.inf)):
            return _at_most(verdict, "warn"), f"movement recorded in a {exposure:g} s exposure: on purpose, or shake?"
        return verdict, (f"motion blur: the subject's edges are smeared {value:.1f} px across the motion "
                         f"and {narrow:.1f} px along it")

    def highlights(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        verdict = _level(value, rule)
        face = self.get("highlights.face", 0.0)
        if face >= float(rule.get("face_reject", math.inf)):
            return "reject", f"the face is blown on {_pct(face)} of it"
        if face >= float(rule.get("face_warn", math.inf)):
            verdict = _worse(verdict, "warn")
        smooth = self.get("highlights.smooth", 0.0)
        top = self.get("highlights.smooth_top", 0.0)
        if verdict != "ok":
            return verdict, f"highlights with detail clipped on {_pct(value)} of the frame"
        if smooth >= float(rule.get("smooth_warn", math.inf)):
            where = "sky" if top >= smooth / 2 else "snow or bright ground" if top < smooth / 4 else "bright background"
            return "warn", f"bright scene: smooth {where} clipped on {_pct(smooth)} of the frame; detail well exposed"
        total = self.get("highlights.frame", 0.0)
        if total >= 0.001:
            return "ok", f"{_pct(total)} of the frame at full brightness, no detail lost (specular highlights, lights or smooth areas)"
        return "ok", "no highlights clipped"

    def shadows(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        verdict = _level(value, rule)
        smooth = self.get("shadows.smooth", 0.0)
        if verdict != "ok":
            return verdict, f"shadow detail crushed to black on {_pct(value)} of the frame"
        if smooth >= float(rule.get("smooth_note", math.inf)):
            lit = self.get("overexposure.median", 0.0) >= float(rule.get("silhouette_median", math.inf))
            kind = "silhouette against a bright background" if lit else "low-key: a smooth black area"
            return "ok", f"{kind} ({_pct(smooth)} of the frame): intent, no detail lost"
        return "ok", "no shadow detail crushed"

    def underexposure(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        verdict = _level(value, rule)
        if verdict == "ok":
            median = self.get("underexposure.median", 0.5)
            if median < float(rule.get("low_key_median", 0.0)):
                return "ok", f"low-key: a dark frame whose brightest tones still reach {_pct(value)} of full scale"
            return "ok", f"brightest tones reach {_pct(value)} of full scale"
        return verdict, f"under-exposed: even the brightest tones reach only {_pct(value)} of full scale"

    def overexposure(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        verdict = _level(value, rule)
        median = self.get("overexposure.median", 0.5)
        bright = self.get("overexposure.bright_smooth", 0.0)
        scene = bright >= float(rule.get("bright_scene", math.inf))
        if median >= float(rule.get("washed_median", math.inf)) and value >= float(rule.get("min_clipped", 0.0)) and not scene:
            return "reject", f"over-exposed: washed out, midtones at {_pct(median)} and {_pct(value)} blown"
        smooth = self.get("overexposure.smooth", 0.0)
        dark = self.get("overexposure.p10", 0.0)
        rest = self.get("overexposure.unblown_median", 1.0)
        high_key = (
            smooth >= float(rule.get("high_key_smooth", math.inf))
            and dark <= float(rule.get("high_key_p10", -1.0))
            and rest <= float(rule.get("high_key_median", -1.0))
        )
        if verdict != "ok" and high_key:
            return "warn", (f"high-key: a smooth bright background blown on {_pct(value)} of the frame; "
                            "the subject keeps its dark tones")
        if verdict != "ok":
            return verdict, f"over-exposed: {_pct(value)} of the frame blown to white (midtones at {_pct(median)})"
        if scene:
            return "ok", f"bright scene (snow, sky or a light backdrop on {_pct(bright)} of the frame); detail kept"
        return "ok", f"midtones at {_pct(median)}, {_pct(value)} of the frame blown"

    def noise(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        chroma = self.get("noise.chroma", 0.0)
        coloured = chroma >= float(rule.get("chroma_present", 0.0))
        verdict: Verdict = "ok"
        if chroma >= float(rule["chroma_reject"]) or (coloured and value >= float(rule["reject"])) or value >= float(rule["mono_reject"]):
            verdict = "reject"
        elif chroma >= float(rule["chroma_warn"]) or (coloured and value >= float(rule["warn"])):
            verdict = "warn"
        numbers = f"σ {value:.1f} of 255 in brightness, {chroma:.1f} in colour, at normal viewing size"
        if verdict == "ok":
            return "ok", f"little noise ({numbers})" if value >= 2 else f"clean ({numbers})"
        if not coloured and verdict == "warn":
            return "warn", f"grain or fine texture ({numbers})"
        return verdict, f"{'heavy ' if verdict == 'reject' else ''}noise ({numbers})"

    def brightened(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        if math.isnan(value):
            return "ok", "not judged: no 8-bit tone levels, or too few of them"
        verdict = _level(value, rule)
        if verdict == "ok":
            return "ok", f"{_pct(value)} of tone levels missing" if value else "tone levels continuous"
        return verdict, f"brightened after capture: {_pct(value)} of tone levels missing (posterised tones)"

    def resolution(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        verdict = _level(value, rule)
        return verdict, f"{'too small to use: ' if verdict == 'reject' else ''}long side {value:.0f} px"

    def compression(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        if math.isnan(value):
            return "ok", "not a JPEG: compression not judged"
        verdict = _level(value, rule)
        if verdict == "ok":
            return "ok", f"JPEG quality ≈ {value:.0f}"
        return verdict, f"heavily compressed JPEG (quality ≈ {value:.0f}): blocky detail"

    def eyes(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        intent = {k: self.get(f"eyes.{k}", 0.0) for k in ("laughing", "smiling", "kissing")}
        closed = self.get("eyes.closed", 0.0)
        if value >= 1:
            who = "a face has" if value == 1 else f"{value:.0f} faces have"
            return _level(value, rule), f"{who} both eyes closed: a blink"
        if closed >= 1:
            why = next(k for k, v in intent.items() if v >= 1)
            return "warn", f"eyes closed while {why}: an expression, not a blink"
        return "ok", "eyes open (or not clearly closed)"


def judge(
    values: Mapping[str, float],
    limits: Mapping[str, Mapping[str, Any]] | None = None,
    shoot_type: str = DEFAULT_SHOOT_TYPE,
    context: SetContext | None = None,
    judged: str = "",
) -> list[Check]:
    """Verdicts and reasons for measured values under a shoot type (thresholds from checks.toml with
    its overrides unless `limits` are given); `context` adds the frame's set or original."""
    from aesthete_gui.imaging.checks import thresholds

    rules = limits or limits_for(shoot_type, thresholds())
    judge_one = _Judge(values, rules)
    out: list[Check] = []
    for name in CHECK_NAMES:
        if name not in values:
            continue
        value = float(values[name])
        rule = rules[name]
        measures = {
            k.split(".", 1)[1]: float(v) for k, v in values.items() if k.startswith(name + ".") and math.isfinite(float(v))
        }  # a measure that could not be taken is left out (NaN would make equal checks unequal)
        if rule.get("cap") == "off":
            out.append(Check(name, value, "ok", "not judged for this shoot type", measures, judged))
            continue
        if math.isnan(value) and name not in ("brightened", "compression"):
            verdict: Verdict = "ok"
            reason = "not measured"
        else:
            verdict, reason = getattr(judge_one, name)(value, rule)
        if rule.get("cap") == "warn" and verdict == "reject":
            verdict, reason = "warn", f"{reason} (a warning only for this shoot type)"
        out.append(Check(name, value, verdict, reason, measures, judged))
    return _with_set(out, context, judged)


def _with_set(checks: list[Check], context: SetContext | None, judged: str) -> list[Check]:
    """A frame of a bracket, panorama or focus stack keeps its warnings but is never rejected; the set
    and the original of a copy are named in entries of their own."""
    if context is None:
        return checks
    out = checks
    if context.sequence:
        out = [
            Check(c.name, c.value, "warn", f"{c.reason} (expected in one frame of a set: not a reject)", c.measures, judged)
            if c.verdict == "reject" else c
            for c in checks
        ]  # fmt: skip
        out.append(Check("sequence", float("nan"), "ok", f"kept with its set ({context.sequence}): never a suggested reject", {}, judged))
    if context.copy_of:
        out.append(Check("copy", float("nan"), "warn", context.copy_of, {}, judged))
    return out


def values_of(checks: list[Mapping[str, Any]], faces: int | None = None) -> dict[str, float]:
    """The flat measurements back from stored checks (their values and measures), for judging again."""
    values: dict[str, float] = {}
    for check in checks:
        name = str(check.get("name"))
        if name in SET_CHECKS:
            continue
        value = check.get("value")
        values[name] = float("nan") if value is None else float(value)
        for key, measure in (check.get("measures") or {}).items():
            values[f"{name}.{key}"] = float("nan") if measure is None else float(measure)
    if faces is not None:
        values["faces"] = float(faces)
    return values


def worst_verdict(checks: list[Check] | tuple[Check, ...] | Any) -> Verdict:
    """The most severe verdict among the checks ("ok" for none)."""
    worst: Verdict = "ok"
    for check in checks:
        if VERDICT_RANK[check.verdict] > VERDICT_RANK[worst]:
            worst = check.verdict
    return worst
