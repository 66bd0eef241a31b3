"""Verdicts and reasons from measured values: fitted models, thresholds, the shoot type, intent, the set.

`judge` turns the flat measurements of imaging/checks.py (a check's value under its own name, what
else its verdict depends on under "<check>.<what>") into Checks. Focus, motion blur, noise and
exposure are decided by fitted models weighing several measures (imaging/verdict_models.py,
imaging/model_verdicts.py); the other checks by thresholds. Both read checks.toml with the shoot
type's overrides (imaging/shoot_types.py); intent lowers a verdict to a warning and says why (a snow
scene, a silhouette, panning, eyes closed in a laugh); a frame of an exposure bracket, panorama or
focus stack is never a suggested reject, and a frame clearly softer or noisier than the best frame
of its burst is one (SetContext). Everything here reads stored numbers only, so the library judges
again without decoding when the shoot type changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aesthete_gui.imaging.model_verdicts import ModelJudge, pct
from aesthete_gui.imaging.shoot_types import DEFAULT_SHOOT_TYPE, limits_for, shoot_types_version
from aesthete_gui.imaging.verdict_models import (
    MODELLED,
    VerdictModel,
    models_version,
    verdict_models,
)

Verdict = Literal["ok", "warn", "reject"]
JUDGE_VERSION = "5"
"""Bump when the judging code here or in model_verdicts.py changes what it decides: stored verdicts
judged under another version are judged again (their measurements are kept)."""
VERDICT_RANK: dict[str, int] = {"ok": 0, "warn": 1, "reject": 2}
CHECK_NAMES: tuple[str, ...] = (
    "focus", "motion_blur", "highlights", "shadows", "underexposure", "overexposure", "brightened",
    "noise", "resolution", "compression", "eyes",
)  # fmt: skip
SET_CHECKS = ("sequence", "copy")
"""Entries about the frame's group rather than its pixels (present only when they apply)."""
ISO = "noise.iso"
"""The recorded ISO among a frame's values (from SetContext.iso; kept with the noise check's measures)."""


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
class Sibling:
    """The best frame of the burst for one check (the crispest, steadiest or cleanest): its name and
    the measures that check's model reads, as stored."""

    check: str
    name: str
    values: tuple[tuple[str, float], ...]

    def stamp(self) -> str:
        return f"{self.check}={self.name}@" + ",".join(f"{k}:{v:.4g}" for k, v in self.values)


@dataclass(frozen=True)
class SetContext:
    """What the frame's group says about it: a bracket, panorama or focus stack it belongs to, the
    original it is a smaller or more compressed copy of, or its burst's best frame per check."""

    sequence: str = ""
    """E.g. "exposure bracket of 3 frames (-2, 0, +2 EV)"; empty when none."""
    copy_of: str = ""
    """E.g. "a 900 x 1200 copy (JPEG quality 80) of IMG_0001.JPG (1800 x 2400)"; empty when none."""
    siblings: tuple[Sibling, ...] = ()
    """The burst's best frame for focus, motion blur and noise, when it is another frame."""
    stops_from_middle: float | None = None
    """In an exposure bracket, how many stops this frame's exposure lies from the bracket's middle
    one (its exposure bias, else its exposure time); None elsewhere or when not recorded."""
    iso: float | None = None
    """The ISO the camera recorded (EXIF), which the pixels cannot tell: grain like heavy noise at a
    low ISO is the scene's texture or an edit, not the sensor's. None when not recorded."""

    def stamp(self) -> str:
        stops = "" if self.stops_from_middle is None else f"{self.stops_from_middle:+.2f}"
        iso = "" if self.iso is None else f"|iso{self.iso:g}"
        return f"{self.sequence}|{self.copy_of}|{stops}|" + ";".join(s.stamp() for s in self.siblings) + iso


def judge_stamp(shoot_type: str, thresholds_version: str, context: SetContext | None = None) -> str:
    """What a stored verdict was judged under (thresholds, verdict models, shoot types, the set); a
    row whose stamp differs is judged again."""
    versions = f"{thresholds_version}.{models_version()}.{shoot_types_version()}.j{JUDGE_VERSION}"
    return f"{versions}:{shoot_type}:{(context or SetContext()).stamp()}"


SHARPEST = "sharpest"
"""A Sibling of this check marks the burst's sharpest frame when even it is soft on its own (its
`name`: the next sharpest frame): kept, with a warning."""


def _sibling(context: SetContext | None, check: str) -> Sibling | None:
    """The frame's burst sibling (or pair, or mark) for `check`, None when it has none."""
    return next((s for s in (context.siblings if context else ()) if s.check == check), None)


def _sharpest_kept(verdict: Verdict, reason: str, context: SetContext | None) -> tuple[Verdict, str]:
    """A focus reject of the burst's sharpest frame as a warning that says why (services/verdicts)."""
    mark = _sibling(context, SHARPEST)
    if mark is None or verdict != "reject":
        return verdict, reason
    return "warn", (f"{reason}; but the sharpest frame of its burst (the next sharpest, {mark.name}, is softer): "
                    "kept, since the scene may hold no crisp edge (clouds, fog, water) or the whole burst is soft")


PAIR = "pair"
"""A Sibling of this check names a RAW's pair partner, the camera's rendering of the same exposure,
with its noise measures (services/raw_pairs)."""


def _raw_beside_its_jpeg(
    verdict: Verdict, reason: str, context: SetContext | None, rule: Mapping[str, Any], models: Mapping[str, VerdictModel]
) -> tuple[Verdict, str]:
    """A RAW's noise reject as a warning when the camera's JPEG of the same exposure is no noise reject:
    the RAW is rendered plainly, without the noise reduction the camera (and any RAW processing)
    applies. A photographer trial saw the two halves of one exposure get different verdicts."""
    mark = _sibling(context, PAIR)
    if mark is None or verdict != "reject":
        return verdict, reason
    theirs = dict(mark.values)
    jpeg_noise = theirs.get("noise", math.nan)
    if math.isnan(jpeg_noise) or ModelJudge(theirs, models).judge("noise", jpeg_noise, rule)[0] == "reject":
        return verdict, reason
    return "warn", (f"{reason}; but {mark.name}, the camera's JPEG of this exposure, shows σ {jpeg_noise:.1f}: "
                    "the RAW is shown without noise reduction, which its processing will apply")


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

    def highlights(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        verdict = _level(value, rule)
        face = self.get("highlights.face", 0.0)
        if face >= float(rule.get("face_reject", math.inf)):
            return "reject", f"the face is blown on {pct(face)} of it"
        if face >= float(rule.get("face_warn", math.inf)):
            verdict = _worse(verdict, "warn")
        smooth = self.get("highlights.smooth", 0.0)
        top = self.get("highlights.smooth_top", 0.0)
        if verdict != "ok":
            return verdict, f"highlights with detail clipped on {pct(value)} of the frame"
        if smooth >= float(rule.get("smooth_warn", math.inf)):
            where = "sky or backdrop" if top >= smooth / 2 else "snow, bright ground or a backdrop" if top < smooth / 4 else "bright background"
            # where it is says only what it probably is: a blown shirt is a smooth area too (a trial
            # read "smooth sky or backdrop" said of a +2 EV frame's shirt and hand)
            return "warn", (f"clipped on {pct(smooth)} of the frame in smooth areas ({where}, or a plain bright "
                            "surface burnt out): no texture there to lose, but check what it is")
        total = self.get("highlights.frame", 0.0)
        if total >= 0.001:
            return "ok", f"{pct(total)} of the frame at full brightness, no detail lost (specular highlights, lights or smooth areas)"
        return "ok", "no highlights clipped"

    def shadows(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        verdict = _level(value, rule)
        smooth = self.get("shadows.smooth", 0.0)
        if verdict != "ok":
            return verdict, f"shadow detail crushed to black on {pct(value)} of the frame"
        if smooth >= float(rule.get("smooth_note", math.inf)):
            lit = self.get("overexposure.median", 0.0) >= float(rule.get("silhouette_median", math.inf))
            kind = "silhouette against a bright background" if lit else "low-key: a smooth black area"
            return "ok", f"{kind} ({pct(smooth)} of the frame): intent, no detail lost"
        return "ok", "no shadow detail crushed"

    def brightened(self, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        if math.isnan(value):
            return "ok", "not judged: no 8-bit tone levels, or too few of them"
        verdict = _level(value, rule)
        if verdict == "ok":
            return "ok", f"{pct(value)} of tone levels missing" if value else "tone levels continuous"
        return verdict, f"brightened after capture: {pct(value)} of tone levels missing (posterised tones)"

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
    models: Mapping[str, VerdictModel] | None = None,
) -> list[Check]:
    """Verdicts and reasons for measured values under a shoot type (thresholds from checks.toml with
    its overrides unless `limits` are given, the shipped verdict models unless `models` are);
    `context` adds the frame's set, its original, or its burst's best frame."""
    from aesthete_gui.imaging.checks import thresholds

    rules = limits or limits_for(shoot_type, thresholds())
    if context is not None and context.iso is not None:
        values = {**values, ISO: context.iso}
    judge_one = _Judge(values, rules)
    modelled = ModelJudge(values, models or verdict_models())
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
        lost = _edges_lost(name, values, rule, context)
        if lost is not None:
            verdict, reason = lost
        elif math.isnan(value) and name == "motion_blur" and math.isnan(float(values.get("focus", math.nan))):
            verdict, reason = "ok", "not measured (see focus)"  # said once, by the focus check
        elif math.isnan(value) and name in ("focus", "motion_blur"):
            # a photographer trial read "not measured" as a pass on a smeared frame of a white room
            verdict, reason = "warn", "sharpness not measured: no edge to measure it by (a blank, smooth or hazy frame); check it by eye"
        elif math.isnan(value) and name not in ("brightened", "compression"):
            verdict = "ok"
            reason = "not measured"
        elif name in MODELLED:
            verdict, reason = modelled.judge(name, value, rule)
            if name == "focus":
                verdict, reason = _sharpest_kept(verdict, reason, context)
            if name == "noise":
                verdict, reason = _raw_beside_its_jpeg(verdict, reason, context, rule, modelled.models)
            sibling = _sibling(context, name)
            softness_said = name == "motion_blur" and not modelled.directional(rule) and any(c.name == "focus" and c.verdict == "reject" for c in out)
            if sibling is not None and verdict != "reject" and not softness_said:  # blur every way: the focus check's to say
                verdict, reason = modelled.against(name, rule, sibling.name, dict(sibling.values)) or (verdict, reason)
        else:
            verdict, reason = getattr(judge_one, name)(value, rule)
        if rule.get("cap") == "warn" and verdict == "reject":
            verdict, reason = "warn", f"{reason} (a warning only for this shoot type)"
        out.append(Check(name, value, verdict, reason, measures, judged))
    return _with_set(out, context, judged)


def _edges_lost(name: str, values: Mapping[str, float], rule: Mapping[str, Any], context: SetContext | None) -> tuple[Verdict, str] | None:
    """Focus: a reject when the frame has too few edges to measure (under `few_edges`) while a frame of
    its burst has at least `burst_edges`: the same scene was caught with its detail, so this frame lost
    it (blurred past measuring, or focus missed it entirely); None otherwise."""
    sibling = _sibling(context, "edges")
    if name != "focus" or sibling is None:
        return None
    own, theirs = float(values.get("focus.edge_density", math.nan)), dict(sibling.values).get("focus.edge_density", math.nan)
    if not (own < float(rule.get("few_edges", -1.0)) and theirs >= float(rule.get("burst_edges", math.inf))):
        return None
    return "reject", (f"blurred past measuring, or focus missed: edges on {pct(own)} of the frame against {pct(theirs)} "
                      f"on {sibling.name}, the frame of its burst with the most detail")


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
        stops = {} if context.stops_from_middle is None else {"stops": context.stops_from_middle}
        out.append(Check("sequence", float("nan"), "ok", f"kept with its set ({context.sequence}): never a suggested reject", stops, judged))
    if context.copy_of:
        out.append(Check("copy", float("nan"), "warn", context.copy_of, {}, judged))
    return out


def values_of(checks: Sequence[Mapping[str, Any]], faces: int | None = None) -> dict[str, float]:
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
