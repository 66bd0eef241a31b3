"""Verdicts of the checks a fitted model decides (focus, motion blur, noise, exposure), with reasons.

The model (imaging/verdict_models.py) gives a score: 0 and up is a suggested reject, from its `warn`
point a warning. The reason names the measure that drove the score, with its value and what clean
photographs show ("soft: the sharpest edges of the subject are 3.4 px wide; typical crisp photographs: about
2.6"). Scenes shot that way on purpose are at most a warning, named: panning (a sharp subject
on a streaked background), a high-key or bright scene (smooth white backdrop, snow, sky), a flat sky
blown at the top of the frame, a night sky (near-black and even, with points of light), a long
exposure. Some measures cannot be trusted on some scenes, and then only warn: sharpness on a frame
with too few crisp edges (fog, a bare sky, a nebula) or with little contrast anywhere (mist, haze, a
night landscape: soft by nature), noise that is grain in brightness only, neither
colour speckle nor pixel-fine (texture). A face is judged on its own eyes (its thresholds in
checks.toml), not by the model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

from aesthete_gui.imaging.verdict_models import Term, VerdictModel

Verdict = Literal["ok", "warn", "reject"]


def pct(value: float) -> str:
    """A share as a percentage a photographer reads (one decimal under 1 %)."""
    return f"{value * 100:.0f} %" if value >= 0.01 or value == 0 else f"{value * 100:.1f} %"


SAME_VIEW_MARK = "same_view"
"""Among a focus sibling's values (1.0): the burst's sharpest frame shows this frame's view (their
thumbnails alike), so a frame fine alone but clearly softer than it is dropped (ModelJudge.against)."""


def _measure_words(values: Mapping[str, float]) -> dict[str, Callable[[float, float], str]]:
    """What each modelled measure says, given its value and its typical value on clean photographs."""
    along = values.get("motion_blur.along", float("nan"))
    return {
        "focus.subject": lambda v, t: f"the subject's detail is spread (edge spread {v:.2f}; typical crisp photographs: about {t:.1f})",
        "focus.narrow": lambda v, t: f"the sharpest edges of the subject are {v:.1f} px wide; typical crisp photographs: about {t:.1f}",
        "focus.detail": lambda v, t: f"little fine detail (log variance {v:.1f}; about {t:.1f} in crisp frames)",
        "focus.edges": lambda v, t: f"few crisp edges ({pct(v)} of the frame; about {pct(t)} in crisp frames)",
        "motion_blur": lambda v, t: f"the subject's edges are {v:.1f} px wide in their widest direction (about {t:.1f} in crisp frames)",
        "motion_blur.narrow": lambda v, t: f"the subject's edges stay {v:.1f} px wide along the motion",
        "motion_blur.across": lambda v, t: (f"the edges are smeared {v:.1f} px across the motion"
                                            + (f" and {along:.1f} px along it" if math.isfinite(along) else "")
                                            + f" (typical crisp photographs: about {t:.1f})"),
        "motion_blur.along": lambda v, t: f"the edges stay {v:.1f} px wide along the motion (about {t:.1f} in crisp frames)",
        "motion_blur.coherence": lambda v, t: f"the detail is drawn out one way ({pct(v)} of the edges' strength lines up; about {pct(t)} in crisp frames)",
        "noise": lambda v, t: f"σ {v:.1f} of 255 at normal viewing size (typical clean photographs: about {t:.1f})",
        "noise.chroma": lambda v, t: f"colour noise σ {v:.1f} (typical clean photographs: about {t:.1f})",
        "noise.whiteness": lambda v, t: f"the grain is pixel-fine, as sensor noise is (it falls to {v:.2f} at half size; texture keeps about {t:.1f})",
        "underexposure": lambda v, t: f"even the brightest tones reach only {pct(v)} of full scale (about {pct(t)} in clean frames)",
        "underexposure.median": lambda v, t: f"midtones at {pct(v)} (about {pct(t)} in clean frames)",
        "underexposure.p90": lambda v, t: f"the brightest tenth of the frame only from {pct(v)} up (about {pct(t)} in clean frames)",
        "overexposure": lambda v, t: f"{pct(v)} of the frame blown to white (lights left out)",
        "overexposure.colour": lambda v, t: f"{pct(v)} of the frame blown to white or to a clipped colour (typical clean photographs: {pct(t)})",
        "overexposure.median": lambda v, t: f"midtones pushed up to {pct(v)} (about {pct(t)} in clean frames)",
        "overexposure.unblown_median": lambda v, t: f"the unblown tones' median at {pct(v)} (about {pct(t)} in clean frames)",
        "overexposure.p1": lambda v, t: f"the darkest tones lifted to {pct(v)} (about {pct(t)} in clean frames)",
        "overexposure.p10": lambda v, t: f"the dark tones lifted to {pct(v)} (about {pct(t)} in clean frames)",
        "highlights.frame": lambda v, t: f"{pct(v)} of the frame at full brightness (typical clean photographs: {pct(t)})",
        "highlights": lambda v, t: f"detail clipped on {pct(v)} of the frame",
    }  # fmt: skip


WORSE_WHEN_LOWER = frozenset({"focus.detail", "focus.edges", "motion_blur.along", "noise.whiteness", "underexposure",
                               "underexposure.median", "underexposure.p90"})
"""Measures whose words above describe a low value as the fault; the others describe a high one. A
model that weighs a measure the other way (the focus model reads edges that do NOT line up as
defocus) is not described by these words, and the reason leaves that measure out."""


def _said_as_written(term: Term) -> bool:
    return (term.weight < 0) == (term.measure in WORSE_WHEN_LOWER)


def _owner(measure: str) -> str:
    """The check a measure belongs to: "motion_blur" of "motion_blur.across", "focus" of "focus.subject"."""
    return measure.split(".", 1)[0]


SECOND_MEASURE_SHARE = 0.25
"""A reason names a second measure only when it pushed the score at least this share as far as the first."""


LABELS: dict[str, tuple[str, str]] = {
    "focus": ("soft", "slightly soft"),
    "motion_blur": ("motion blur", "some motion blur"),
    "noise": ("heavy noise", "noise"),
    "underexposure": ("under-exposed", "dark"),
    "overexposure": ("over-exposed", "bright"),
}
"""What a reject and a warning of each modelled check are called."""


GROUP_WORDS: dict[str, tuple[str, str, str]] = {
    "focus": ("softer", "sharpest", "the subject's edge spread {0:.2f} against {1:.2f}"),
    "motion_blur": ("more smeared", "steadiest", "edges {0:.1f} px wide across the motion against {1:.1f}"),
    "noise": ("noisier", "cleanest", "noise σ {0:.1f} against {1:.1f}"),
    "underexposure": ("darker", "best exposed", "brightest tones at {0:.0%} against {1:.0%}"),
    "overexposure": ("brighter", "best exposed", "{0:.0%} of the frame burnt out against {1:.0%}"),
}
"""How a frame worse than its burst's best is described, per check: (worse, best, its lead measure
against the best frame's)."""
SOFTER_EVERY_WAY = ("softer", "sharpest", "edges {0:.1f} px wide against {1:.1f}, in every direction")
"""How the motion-blur comparison describes a frame whose edges widened alike every way (a focus miss)."""


class ModelJudge:
    """Verdict and reason of each modelled check from one image's measurements."""

    def __init__(self, values: Mapping[str, float], models: Mapping[str, VerdictModel]) -> None:
        self.values = values
        self.models = models
        self.words = _measure_words(values)

    def get(self, key: str, default: float = float("nan")) -> float:
        value = self.values.get(key, default)
        return float(value) if value is not None else default

    def _scored(self, name: str, rule: Mapping[str, Any]) -> tuple[Verdict, float, list[Term]]:
        model = self.models[name]
        # a shoot type's strictness moves the score by that share of the warning band
        score = model.score(self.values, float(rule.get("strictness", 0.0)) * abs(model.warn))
        verdict: Verdict = "reject" if score >= 0 else "warn" if score >= model.warn else "ok"
        return verdict, score, model.drivers(self.values)

    def _why(self, name: str, verdict: Verdict, drivers: list[Term], most: int = 2) -> str:
        label = LABELS[name][0 if verdict == "reject" else 1]
        worded = [t for t in drivers if t.measure in self.words and _said_as_written(t)]
        # a measure another check owns (the subject's edge spread, read by the motion-blur model too)
        # is that check's to name, so a frame's reasons side by side never say one thing twice
        own = [t for t in worded if _owner(t.measure) == name] or worded
        # a second measure only when it adds a real share of the first's push: a trial read "the
        # sharpest edges of the subject are 2.8 px wide; typical crisp photographs: about 2.8"
        lead = own[0].push(self.values) if own else 0.0
        own = own[:1] + [t for t in own[1:most] if t.push(self.values) >= SECOND_MEASURE_SHARE * lead]
        said = [self.words[t.measure](t.read(self.values), t.typical) for t in own]
        return f"{label}: {'; '.join(said)}" if said else label

    def against(self, name: str, rule: Mapping[str, Any], best: str, best_values: Mapping[str, float]) -> tuple[Verdict, str] | None:
        """A reject when this frame is clearly worse by this check's model than `best`, the best frame
        of its burst (by the model's `group` margin) and at least a warning on its own, unless it is a
        focus comparison with a frame of the same view (its thumbnail alike); else None. A photographer culls a burst against its best frame: a frame softer than
        its sharpest sibling is dropped even when, alone, it would pass (a held16 trial: four frames
        defocused by 0.5 %, 6.5 to 9.4 focus-score units above their burst's sharpest, were fine alone
        and not suggested; the margin, 4.67, is what a clean reframed copy stays within 98 % of the time,
        plus 2)."""
        model = self.models[name]
        if model.group is None or (name in ("focus", "motion_blur") and self.too_few_edges(rule)):
            return None
        if name == "focus" and self.soft_scene(rule):
            return None
        if name == "focus" and (face := self._face_against(rule, best, best_values)) is not None:
            return face
        shift = float(rule.get("strictness", 0.0)) * abs(model.warn)
        own, other = model.score(self.values, shift), model.score(best_values, shift)
        same_view = name == "focus" and best_values.get(SAME_VIEW_MARK, 0.0) >= 1.0
        if (own < model.warn and not same_view) or own - other < model.group:
            return None
        lead = model.terms[0]
        mine, theirs = lead.read(self.values), lead.read(best_values)
        worse, best_kind, numbers = GROUP_WORDS[name]
        if name == "motion_blur" and not self.directional(rule):  # widened alike every way: not smeared
            worse, best_kind, numbers = SOFTER_EVERY_WAY
        return "reject", f"{worse} than {best}, the {best_kind} frame of its burst ({numbers.format(mine, theirs)})"

    def _face_against(self, rule: Mapping[str, Any], best: str, best_values: Mapping[str, float]) -> tuple[Verdict, str] | None:
        """A soft face forgiven because the whole frame is as soft (an enlarged or soft picture) is a
        reject when the burst's sharpest frame is crisp: the same scene was caught sharp, so the
        softness is this frame's own (shake or a focus miss), not the picture's."""
        face = self.get("focus.face")
        if self.get("faces", 0.0) <= 0 or math.isnan(face) or face < float(rule["face_reject"]):
            return None
        mine, theirs = self.get("focus.subject"), float(best_values.get("focus.subject", math.nan))
        if not mine - theirs >= float(rule.get("face_behind", math.inf)):
            return None  # this frame as a whole no softer than the sharpest: the picture is soft
        return "reject", (f"the face is soft (edge spread of its eyes {face:.2f}) and the frame softer than {best}, the "
                          f"sharpest frame of its burst (its crispest detail {mine:.2f} against {theirs:.2f})")

    def directional(self, rule: Mapping[str, Any]) -> bool:
        """Whether the frame's edges are widened along one direction: those across it at least the
        rule's `min_ratio` times as wide as those along it (motion, not a focus miss; NaN is neither)."""
        return self.get("motion_blur.across") >= float(rule.get("min_ratio", 0.0)) * self.get("motion_blur.along")

    def too_few_edges(self, rule: Mapping[str, Any]) -> bool:
        """Whether the frame has too few edges (share of its pixels on an edge of any width under the
        rule's `few_edges`) for its sharpness to be measured reliably (a bare sky, a nebula, fog)."""
        return self.get("focus.edge_density", 1.0) < float(rule.get("few_edges", -1.0))

    def soft_scene(self, rule: Mapping[str, Any]) -> bool:
        """Whether the scene holds little contrast anywhere (its scene contrast, the span of tones within
        16 px, under the rule's `soft_scene_contrast` levels): mist, haze, a night landscape are soft by
        nature, and a missed focus cannot be told from them by the edges' width. NaN is not such a scene."""
        return self.get("focus.contrast") < float(rule.get("soft_scene_contrast", -1.0))

    def _soft_by_nature(self, reason: str) -> tuple[Verdict, str]:
        contrast = self.get("focus.contrast")
        return "warn", (f"a scene soft by nature? Its tones span only {contrast:.0f} of 255 levels anywhere "
                        f"(mist, haze, a dim scene), so focus cannot be judged by its edges; measured: {reason}")

    def _little_detail(self, reason: str) -> tuple[Verdict, str]:
        edges = self.get("focus.edge_density", 0.0)
        return "warn", (f"too little detail to judge sharpness (only {pct(edges)} of the frame near an edge: "
                        f"a bare sky, a nebula, fog?); measured: {reason}")

    def judge(self, name: str, value: float, rule: Mapping[str, Any]) -> tuple[Verdict, str]:
        """The verdict and reason of one modelled check."""
        verdict, _, drivers = self._scored(name, rule)
        judged: tuple[Verdict, str] = getattr(self, name)(value, rule, verdict, drivers)
        return judged

    def focus(self, value: float, rule: Mapping[str, Any], verdict: Verdict, drivers: list[Term]) -> tuple[Verdict, str]:
        face = self.get("focus.face")
        if self.get("faces", 0.0) > 0 and not math.isnan(face):
            warn, reject = float(rule["face_warn"]), float(rule["face_reject"])
            at: Verdict = "reject" if face >= reject else "warn" if face >= warn else "ok"
            if at == "ok":
                return "ok", f"the face sharp (edge spread of its eyes {face:.2f}; crisp ≈ 2)"
            numbers = f"edge spread of its eyes {face:.2f}, where crisp eyes measure about 2 and soft ones {warn:.2f} and up"
            subject = self.get("focus.subject")
            behind = face - subject  # NaN when the frame had no detail to measure: judged by the face alone
            if at == "reject" and verdict != "reject" and behind < float(rule.get("face_behind", -math.inf)):
                return "warn", (f"the face is soft ({numbers}), but so is the whole frame (its crispest detail "
                                f"{subject:.2f}): a soft or enlarged picture rather than focus missing the face")
            return at, f"the face is soft ({numbers})"
        narrow = self.get("focus.narrow")
        if verdict == "ok":
            edges = f"; its sharpest edges {narrow:.1f} px wide" if math.isfinite(narrow) else ""
            return "ok", f"the subject sharp (edge spread {value:.2f}{edges})"
        reason = self._why("focus", verdict, drivers)
        if self.too_few_edges(rule):
            return self._little_detail(reason)
        if self.soft_scene(rule):
            return self._soft_by_nature(reason)
        return verdict, reason

    def motion_blur(self, value: float, rule: Mapping[str, Any], verdict: Verdict, drivers: list[Term]) -> tuple[Verdict, str]:
        background = self.get("motion_blur.background", 0.0)
        subject_crisp = self.get("focus.subject", math.inf) <= float(rule.get("panning_subject", -math.inf))
        if background >= float(rule.get("panning_background", math.inf)) and subject_crisp:
            return "ok", (f"panning: the subject is sharp and the background streaked along one direction "
                          f"(edges {background:.1f} px wide)")
        if verdict == "ok":
            return "ok", "no sign of motion blur"
        if self.too_few_edges(rule):
            return self._little_detail(self._why("motion_blur", verdict, drivers))
        exposure = self.get("motion_blur.exposure_s", 0.0)
        if exposure >= float(rule.get("long_exposure_s", math.inf)):
            return "warn", f"movement recorded in a {exposure:g} s exposure: on purpose, or shake?"
        across, along = self.get("motion_blur.across"), self.get("motion_blur.along")
        if not self.directional(rule):
            if not (math.isfinite(across) and math.isfinite(along)):
                return "warn", "blurred, but no direction of motion could be measured: see focus"
            return "warn", f"blurred, but not along one direction (edges {across:.1f} px wide one way, {along:.1f} the other): see focus"
        return verdict, self._why("motion_blur", verdict, drivers)

    def noise(self, value: float, rule: Mapping[str, Any], verdict: Verdict, drivers: list[Term]) -> tuple[Verdict, str]:
        chroma = self.get("noise.chroma", 0.0)
        numbers = f"σ {value:.1f} of 255 in brightness, {chroma:.1f} in colour, at normal viewing size"
        if verdict == "ok":
            texture = self.get("noise.whiteness", 0.0) >= float(rule.get("texture_whiteness", math.inf))
            if value >= float(rule.get("grain_note", math.inf)) and texture:
                return "ok", f"fine texture, not noise ({numbers}; the grain keeps its strength at half size)"
            return "ok", f"little noise ({numbers})" if value >= 2 else f"clean ({numbers})"
        typical = next((t.typical for t in self.models["noise"].terms if t.measure == "noise"), None)
        usual = f"; typical clean photographs: about σ {typical:.1f}" if typical is not None else ""
        fine = [self.words[t.measure](t.read(self.values), t.typical) for t in drivers if t.measure == "noise.whiteness"]
        speckled = chroma >= float(rule.get("colour_noise", 0.0))
        pixel_fine = self.get("noise.whiteness", math.inf) < float(rule.get("texture_whiteness", -math.inf))
        iso = self.get("noise.iso")
        # both signs of sensor noise outweigh the ISO: a frame brightened by stops in editing has real grain
        if verdict == "reject" and iso <= float(rule.get("texture_iso", -math.inf)) and not (speckled and pixel_fine):
            return "warn", (f"grain like heavy noise, but the camera recorded ISO {iso:g}, where sensors make little: "
                            f"texture in the scene? ({numbers}{usual})")  # NaN (not recorded) never passes
        if verdict == "reject" and not (speckled or pixel_fine):
            # sensor noise is independent in each channel and pixel-fine; grain in brightness alone
            # that keeps its strength at half size is the scene's texture (foliage, terraces, stars)
            return "warn", (f"grain in brightness only, with little colour speckle and not pixel-fine: "
                            f"texture rather than sensor noise? ({numbers}{usual})")
        return verdict, f"{LABELS['noise'][0 if verdict == 'reject' else 1]} ({numbers}{usual})" + (f": {fine[0]}" if fine else "")

    def underexposure(self, value: float, rule: Mapping[str, Any], verdict: Verdict, drivers: list[Term]) -> tuple[Verdict, str]:
        if verdict == "ok":
            if self.get("underexposure.median", 0.5) < float(rule.get("low_key_median", 0.0)):
                return "ok", f"low-key: a dark frame whose brightest tones still reach {pct(value)} of full scale"
            return "ok", f"brightest tones reach {pct(value)} of full scale"
        reason = self._why("underexposure", verdict, drivers)
        median, p10, p90 = self.get("underexposure.median"), self.get("overexposure.p10"), self.get("underexposure.p90")
        # an even sky: 80 % of the frame within a small part of the range up to the points of light
        even = (p90 - p10) / max(value - p10, 1e-3)
        night = (float(rule.get("night_floor", math.inf)) <= median <= float(rule.get("night_median", -1.0))
                 and even <= float(rule.get("night_spread", -1.0)))  # fmt: skip
        if night:  # NaN (not measured) never passes
            return "warn", (f"night sky: dark on purpose (an even near-black sky, 80 % of the frame between "
                            f"{pct(p10)} and {pct(p90)}, with points of light up to {pct(value)}); {reason}")
        return verdict, reason

    def overexposure(self, value: float, rule: Mapping[str, Any], verdict: Verdict, drivers: list[Term]) -> tuple[Verdict, str]:
        median = self.get("overexposure.median", 0.5)
        bright = self.get("overexposure.bright_smooth", 0.0)
        kept = (self.get("overexposure.p10", 0.0) <= float(rule.get("kept_dark", -1.0))
                and self.get("overexposure.unblown_median", 1.0) <= float(rule.get("kept_midtones", -1.0))
                and self.get("highlights.face", 0.0) < float(rule.get("face_blown", math.inf)))  # fmt: skip
        smooth = self.get("overexposure.smooth", 0.0)
        if verdict == "ok":
            if bright >= float(rule.get("bright_scene", math.inf)):
                return "ok", f"bright scene (snow, sky or a light backdrop on {pct(bright)} of the frame); detail kept"
            return "ok", f"midtones at {pct(median)}, {pct(value)} of the frame blown"
        reason = self._why("overexposure", verdict, drivers)
        if kept and smooth >= float(rule.get("high_key_smooth", math.inf)):
            return "warn", (f"high-key: a smooth bright background blown on {pct(value)} of the frame; "
                            f"the subject keeps its dark tones and midtones ({reason})")
        sky = self.get("highlights.sky", 0.0)
        # the sky is told by where it is and that it holds nothing: the subject needs only its midtones
        # where clean frames have them (an overcast street has no deep shadows to keep)
        subject_kept = (self.get("overexposure.unblown_median", 1.0) <= float(rule.get("sky_midtones", -1.0))
                        and self.get("highlights.face", 0.0) < float(rule.get("face_blown", math.inf)))  # fmt: skip
        if subject_kept and value > 0 and sky >= float(rule.get("sky_blown", math.inf)) * value:
            return "warn", (f"a flat sky blown at the top of the frame ({pct(sky)} of it), not the subject: "
                            f"the rest keeps its midtones ({reason})")
        little_lost = (smooth >= float(rule.get("bright_scene_smooth", math.inf))
                       or self.get("overexposure.colour", 1.0) <= float(rule.get("bright_scene_clipped", -1.0)))  # fmt: skip
        if kept and little_lost and bright >= float(rule.get("bright_scene", math.inf)):
            return "warn", (f"bright scene: snow, sky or a light backdrop on {pct(bright)} of the frame; "
                            f"the rest keeps its dark tones and midtones ({reason})")
        return verdict, reason
