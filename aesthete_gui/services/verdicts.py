"""The library's verdicts under its shoot type and sets, judged again from stored measurements.

Import measures each file once and stores the numbers with the verdicts (imaging/checks.py). The
verdicts also depend on things that change without the file changing: the shoot type chosen for the
profile, the thresholds, and the frame's group (a bracket, a panorama or a focus stack is never
suggested as rejects; a resized or recompressed copy is named as a copy of its original; a frame
clearly softer, more smeared or noisier than the best frame of its burst is a reject). Each
stored verdict carries a stamp of what it was judged under; `rejudge_library` judges again every
row whose stamp is out of date, reading only the stored numbers (no decoding: milliseconds per
thousand frames).

The shoot type is a setting of the profile, kept in its settings file beside it
(`<profile>.settings.json`, key "shoot_type") where the window keeps its other settings, so the
window's Culling ▸ Shoot type menu and the command line's --shoot-type are one setting.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import math
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from aesthete_gui.imaging.best_frame import Edition, find_copies, originals_of
from aesthete_gui.imaging.checks import checks_version, thresholds, thresholds_version
from aesthete_gui.imaging.judging import (
    ISO,
    SHARPEST,
    SetContext,
    Sibling,
    judge,
    judge_stamp,
    values_of,
    worst_verdict,
)
from aesthete_gui.imaging.model_verdicts import SAME_VIEW_MARK, ModelJudge
from aesthete_gui.imaging.sequences import SAME_EV, FrameSet, Shot, find_sets, side_by_side
from aesthete_gui.imaging.shoot_types import (
    DEFAULT_SHOOT_TYPE,
    UnknownShootTypeError,
    limits_for,
    shoot_type,
)
from aesthete_gui.imaging.verdict_models import VerdictModel, verdict_models
from aesthete_gui.services.raw_pairs import pair_siblings
from aesthete_gui.settings import update_settings_file

if TYPE_CHECKING:
    from aesthete_gui.store import ImageRecord, Profile

log = logging.getLogger(__name__)
SHOOT_TYPE_SETTING = "shoot_type"
_OVERLAP_SIDE = (64, 48)
MIDTONES = "overexposure.median"
EDGE_DENSITY = "focus.edge_density"
EXPOSURE_STOPS = 0.5
"""Frames of a burst whose midtones differ by more than this many stops are not compared for
sharpness or noise (brightening alone makes edges measure crisper)."""
COMPARED_CHECKS = ("focus", "motion_blur", "noise")
"""Checks on which a burst's frames are compared with its best frame (a photographer culls a burst
against its sharpest, steadiest, cleanest frame)."""
EXPOSURE_COMPARED = ("overexposure",)
"""Checks on which a burst's frames are compared across exposures: a frame clearly brighter, with more
burnt out, than the burst's best exposed frame is a reject (auto-exposure hunting, a flash that did
not fire). Not under-exposure: on the fit pool a dark frame on purpose was then held against a
brightened copy of itself, as "darker than" it, 25 times in 799; a darker frame alone is caught anyway
(−2.5 EV: 0.91 leaving each package out)."""
SHARPNESS_BLIND = ("noise", "overexposure")
"""Checks whose measure a blur lowers: a burst frame is held against a cleaner (or less burnt out) one
only when that one is not clearly softer (a held10 trial: a sharp frame of feathers was "noisier than"
its smeared sibling, whose blur had wiped out texture and grain alike, and the smeared frame became the
cover; a blur spreads a blown highlight into its surroundings too)."""
CLEANER_BY_FAR = 2.5
"""A clearly softer frame is still the one a noisier frame is held against when it is sharp on its own
(neither sharpness model warns) and the noisier frame's noise score lies this many burst margins above
its own. Grain reads as crisp edges: a σ 28 copy made its clean original look clearly softer, so it was
held against nothing (189 of the fit pool's 799 such pairs; a held14 trial showed two noisy frames as
their bursts' best). On the same pool a blur alone, leaving its frame sharp by the models, opened a gap
of at most 2.25 margins (11.7 score units): such a frame is never the reference of the sharper one.
The other way round, a frame this much noisier is no sharpness reference of the cleaner one: its crisp
edges may be grain. On the fit pool, in a burst with a σ 14 or σ 20 copy fit to compare, the clean
original was "softer than" that copy 46 and 37 times in 799 (41 and 37 no longer); 9 of the 7,191
blurred copies lose their original as reference and are not caught alone."""


def settings_path(profile_path: str | Path) -> Path:
    """The profile's settings file (the one the window keeps its settings in)."""
    path = Path(profile_path)
    return path.with_name(path.name + ".settings.json")


def _settings(profile_path: str | Path) -> dict[str, Any]:
    try:
        stored = json.loads(settings_path(profile_path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("settings of %s unreadable (%s): default shoot type", profile_path, error)
        return {}
    return stored if isinstance(stored, dict) else {}


def _profile_file(profile: Profile | str | Path) -> str | Path:
    """The profile's file, given the profile or its path."""
    return profile if isinstance(profile, str | Path) else profile.path


def profile_shoot_type(profile: Profile | str | Path) -> str:
    """The profile's shoot type ("general" when none was chosen, or the setting is not one)."""
    path = _profile_file(profile)
    name = _settings(path).get(SHOOT_TYPE_SETTING, DEFAULT_SHOOT_TYPE)
    try:
        return shoot_type(str(name)).name
    except UnknownShootTypeError:
        return DEFAULT_SHOOT_TYPE


def remember_shoot_type(profile: Profile | str | Path, name: str) -> str:
    """Make `name` the profile's shoot type (kept in its settings file); UnknownShootTypeError when
    it is not one. Returns the canonical name."""
    chosen = shoot_type(name).name
    path = _profile_file(profile)
    if str(path) == ":memory:":
        return chosen
    update_settings_file(settings_path(path), {SHOOT_TYPE_SETTING: chosen})  # the other keys as they are on disk
    return chosen


@dataclass
class Rejudged:
    """What `rejudge_library` did: rows judged again, and the sets and copies it found."""

    shoot_type: str
    judged: int = 0
    sets: list[str] = field(default_factory=list)
    copies: int = 0
    copy_of: dict[int, str] = field(default_factory=dict)
    """Each copy's image id, and what it is a copy of (SetContext.copy_of)."""
    set_members: dict[str, list[int]] = field(default_factory=dict)
    """Each set's description (as in `sets`) and its frames' image ids."""


def _seconds(capture_time: str | None) -> float | None:
    from aesthete_gui.services.library_bursts import capture_seconds

    return capture_seconds(capture_time)


def _number(exif: Mapping[str, Any], key: str) -> float | None:
    value = exif.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _measure(checks: Sequence[Mapping[str, Any]], name: str, key: str) -> float | None:
    for check in checks:
        if check.get("name") == name:
            value = (check.get("measures") or {}).get(key)
            return float(value) if isinstance(value, int | float) else None
    return None


def shot_for(image: ImageRecord, checks: Sequence[Mapping[str, Any]] = ()) -> Shot:
    """Set recognition's view of one stored image (metadata, pHash, where it is sharp)."""
    exif = image.exif or {}
    x, y = _measure(checks, "focus", "x"), _measure(checks, "focus", "y")
    focus = next((c for c in checks if c.get("name") == "focus"), None)
    mode = exif.get("exposure_mode")
    return Shot(
        key=image.id,
        capture_time=_seconds(image.capture_time),
        camera=image.camera,
        exposure_bias=_number(exif, "exposure_bias"),
        exposure_time=_number(exif, "exposure_time"),
        f_number=_number(exif, "f_number"),
        iso=_number(exif, "iso"),
        focal_length=_number(exif, "focal_length"),
        exposure_mode=mode if isinstance(mode, int) else None,
        phash=image.phash,
        sharp_at=(x, y) if x is not None and y is not None else None,
        crisp=None if focus is None else focus.get("verdict") == "ok",
        midtones=_measure(checks, "overexposure", "median"),
    )


def edition_for(image: ImageRecord, checks: Sequence[Mapping[str, Any]] = ()) -> Edition:
    """Copy recognition's view of one stored image."""
    from aesthete_gui.services.library_bursts import frame_for

    frame = frame_for(image)
    quality = next((c.get("value") for c in checks if c.get("name") == "compression"), None)
    return Edition(
        key=image.id,
        name=Path(image.path).name,
        width=image.width or 0,
        height=image.height or 0,
        format=image.format or "",
        quality=float(quality) if isinstance(quality, int | float) else None,
        phash=image.phash,
        capture_time=frame.capture_time,
        sequence_number=frame.sequence_number,
        camera=image.camera,
    )


def _grey_thumb(path: str | None) -> np.ndarray | None:
    """A frame's 64 x 48 grey thumbnail (None when it cannot be read); read once per path, since a
    burst compares each frame with several others (thumbnails are named by their content's hash)."""
    if not path:
        return None
    try:
        return _read_grey_thumb(path)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


@functools.lru_cache(maxsize=4096)
def _read_grey_thumb(path: str) -> np.ndarray:
    with Image.open(path) as image:
        grey = np.asarray(image.convert("L").resize(_OVERLAP_SIDE, Image.Resampling.BOX), dtype=np.float32)
    grey.setflags(write=False)  # shared by every caller
    return grey


def set_contexts(profile: Profile, images: Sequence[ImageRecord], stored: Mapping[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]) -> dict[int, SetContext]:
    """Each image's set (bracket, panorama, focus stack) and original (when it is a copy)."""
    by_id = {image.id: image for image in images}

    def overlaps(a: Hashable, b: Hashable) -> bool | None:
        ia, ib = by_id[a], by_id[b]  # type: ignore[index]
        if (ia.width or 0) * (ib.height or 0) != (ib.width or 0) * (ia.height or 0):
            return False  # another aspect: not two frames of one panorama
        first, second = _grey_thumb(ia.thumb_path), _grey_thumb(ib.thumb_path)
        return None if first is None or second is None else side_by_side(first, second)

    shots = [shot_for(image, stored.get(image.id, ([], []))[0]) for image in images]
    frame_sets = find_sets(shots, overlaps)
    sequences = {key: frame_set.describe() for frame_set in frame_sets for key in frame_set.keys}
    stops = bracket_stops(frame_sets, {shot.key: shot for shot in shots})
    copies: dict[Hashable, str] = {}
    siblings: dict[int, tuple[Sibling, ...]] = {}
    for members in _bursts_of(profile, by_id):
        editions = _editions(members, stored)
        originals = originals_of(editions)
        copies.update(find_copies(editions, originals))
        alike = [m for m in members if m.id not in copies and m.id not in sequences]
        found = best_siblings(alike, stored)
        for copy, original in originals.items():  # a copy of the frame kept is kept alike
            kept = tuple(s for s in found.get(original.key, ()) if s.check == SHARPEST)  # type: ignore[call-overload]
            if kept and isinstance(copy, int):
                found[copy] = found.get(copy, ()) + kept
        siblings.update(found)
    isos = {image.id: iso for image in images if (iso := recorded_iso(image)) is not None}
    for raw_id, partner in pair_siblings(images, stored, isos).items():
        siblings[raw_id] = (*siblings.get(raw_id, ()), partner)
    return {
        image.id: SetContext(sequences.get(image.id, ""), copies.get(image.id, ""), siblings.get(image.id, ()),
                             stops.get(image.id), isos.get(image.id))
        for image in images
        if image.id in sequences or image.id in copies or image.id in siblings or image.id in isos
    }


def recorded_iso(image: ImageRecord) -> float | None:
    """The ISO the camera recorded for an image (EXIF, or a RAW file's own), None when none or not positive."""
    iso = _number(image.exif or {}, "iso")
    return iso if iso is not None and iso > 0 else None


def bracket_stops(frame_sets: Iterable[FrameSet], shots: Mapping[Hashable, Shot]) -> dict[Hashable, float]:
    """Each exposure-bracket frame's stops from its bracket's middle exposure: by exposure bias when
    every frame records one, else by exposure time (a bracket shows its middle frame, the one the
    camera metered, not the darkest or the nearest middle grey)."""
    out: dict[Hashable, float] = {}
    for frame_set in frame_sets:
        if frame_set.kind != "bracket":
            continue
        frames = [shots[k] for k in frame_set.keys if k in shots]
        biases = {f.key: f.exposure_bias for f in frames}
        times = {f.key: f.exposure_time for f in frames}
        # whichever the camera recorded on every frame and varies across them: a manual bracket
        # writes the same bias (0) on each frame and varies the shutter
        bias_stops = {k: float(b) for k, b in biases.items() if b is not None}
        time_stops = {k: math.log2(float(t)) for k, t in times.items() if t}
        if frames and len(bias_stops) == len(frames) and _spread(bias_stops) > SAME_EV:
            values = bias_stops
        elif frames and len(time_stops) == len(frames) and _spread(time_stops) > SAME_EV:
            values = time_stops  # a jitter of 0.01 EV in the bias is no bracket of biases
        else:
            continue
        middle = float(np.median(list(values.values())))
        out |= {key: value - middle for key, value in values.items()}
    return out


def _spread(stops: Mapping[Hashable, float]) -> float:
    return max(stops.values()) - min(stops.values()) if stops else 0.0


def _bursts_of(profile: Profile, by_id: Mapping[int, ImageRecord]) -> Iterator[list[ImageRecord]]:
    """The frames of each burst of two or more among `by_id`."""
    for burst in profile.catalog.bursts():
        members = [by_id[i] for i in burst.image_ids if i in by_id]
        if len(members) > 1:
            yield members


def _editions(members: Sequence[ImageRecord], stored: Mapping[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]) -> list[Edition]:
    return [edition_for(m, stored.get(m.id, ([], []))[0]) for m in members]


def copy_originals(profile: Profile, stored: Mapping[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]) -> dict[int, int]:
    """Each resized or recompressed copy's image id and its original's, found within bursts as the
    verdicts find them (set_contexts), for the built-in scorer to keep copies below their originals."""
    images = {image.id: image for image in profile.catalog.images(status="ok")}
    out: dict[int, int] = {}
    for members in _bursts_of(profile, images):
        out |= {copy: original.key for copy, original in originals_of(_editions(members, stored)).items()
                if isinstance(copy, int) and isinstance(original.key, int)}  # fmt: skip
    return out


def with_copies_and_originals(links: Mapping[int, int], image_ids: Iterable[int]) -> list[int]:
    """`image_ids` and every copy or original linked to one of them by `links` (copy_originals),
    followed both ways down chains: scored together, a copy is always capped against its original's
    score of the same run, whatever part of the library was asked for."""
    neighbours: dict[int, set[int]] = {}
    for copy, original in links.items():
        neighbours.setdefault(copy, set()).add(original)
        neighbours.setdefault(original, set()).add(copy)
    wanted = list(dict.fromkeys(image_ids))
    seen = set(wanted)
    for image_id in wanted:  # grows while it is walked: the closure
        for other in sorted(neighbours.get(image_id, ())):
            if other not in seen:
                seen.add(other)
                wanted.append(other)
    return wanted


def best_siblings(members: Sequence[ImageRecord], stored: Mapping[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]) -> dict[int, tuple[Sibling, ...]]:
    """For each frame of one burst, the burst's best frame per compared check when that is another
    frame of the same size (copies and frames of a set left out by the caller). The best frame of a
    check is the one its model scores lowest (the sharpest, steadiest or cleanest) among the frames
    exposed alike that no focus, motion-blur or noise model rejects on their own; a frame with no
    such frame is not compared."""
    models = verdict_models()
    by_size: dict[tuple[int, int], list[ImageRecord]] = {}
    for member in members:
        if member.id in stored and member.width and member.height:
            by_size.setdefault((member.width, member.height), []).append(member)
    out: dict[int, list[Sibling]] = {}
    for frames in by_size.values():
        if len(frames) < 2:
            continue
        values = {f.id: _with_iso(values_of(stored[f.id][0], len(stored[f.id][1])), f) for f in frames}
        # only a frame no model rejects for its sharpness or noise can be the one the others are held
        # against (a noisy frame's grain reads as crisp edges, and burns out less), and for sharpness
        # and noise only one exposed alike (a brightened frame's edges read as crisper)
        clean = [f for f in frames if _fit_to_compare(values[f.id], models)]
        kept = _sharpest_left_soft(frames, values, models)
        if kept is not None:  # the best the burst caught: kept (a warning) and the others held against it
            best, runner_up = kept
            out.setdefault(best.id, []).append(Sibling(SHARPEST, Path(runner_up.path).name, ()))
            clean.append(best)
        # across exposures, only against a frame neither exposure check finds too bright or too dark
        # and not one the comparisons reject (a held16 trial: "brighter than IMG_0002, the best exposed
        # frame of its burst", itself a frame "noisier than" IMG_0001)
        well_exposed = [c for c in clean if _well_exposed(values[c.id], models) and not _held_back(c, clean, values, models)]
        for frame in frames:
            alike = [c for c in clean if c.id != frame.id and _exposed_alike(values[frame.id], values[c.id])]
            references = [c for c in well_exposed if c.id != frame.id]
            compared = [(check, alike) for check in COMPARED_CHECKS] + [(check, references) for check in EXPOSURE_COMPARED]
            for check, among in compared:
                model = models[check]
                if check in SHARPNESS_BLIND:
                    candidates = [c for c in among if not _clearly_softer(values[c.id], values[frame.id], models)
                                  or (check == "noise" and _cleaner_by_far(values[c.id], values[frame.id], models))]  # fmt: skip
                else:  # crisp edges that may be grain: no sharpness reference for a far cleaner frame
                    candidates = [c for c in among if _noise_gap(values[c.id], values[frame.id], models) < CLEANER_BY_FAR]
                if not candidates:
                    continue
                best = min(candidates, key=lambda f: (model.score(values[f.id]), f.id))
                if model.score(values[best.id]) < model.score(values[frame.id]):
                    measures = tuple((t.measure, t.read(values[best.id])) for t in model.terms)
                    if check == "focus" and _same_view(frame, best):  # judging may then drop a frame fine alone
                        measures += ((SAME_VIEW_MARK, 1.0),)
                    out.setdefault(frame.id, []).append(Sibling(check, Path(best.path).name, measures))
        for frame_id, sibling in _edges_lost(frames, clean, values).items():
            out.setdefault(frame_id, []).append(sibling)
    return {image_id: tuple(found) for image_id, found in out.items()}


SHARPEST_FROM = 3
"""Frames of one view a burst needs before its sharpest is kept though the focus model finds it soft."""


def _sharpest_left_soft(
    frames: Sequence[ImageRecord], values: Mapping[int, Mapping[str, float]], models: Mapping[str, VerdictModel]
) -> tuple[ImageRecord, ImageRecord] | None:
    """The burst's sharpest frame and the next sharpest, when the focus model finds even the sharpest
    soft on its own: what a photographer keeps of the moment. A photographer trial's cloudscape (no
    crisp edge anywhere) was suggested as a reject with every frame of its burst, so accepting the
    suggestions would have thrown the moment away. Only frames exposed alike count, and only frames
    neither grainy (grain reads as crisp edges) nor smeared; None when the burst has fewer than
    SHARPEST_FROM frames or a frame sharp on its own."""
    if len(frames) < SHARPEST_FROM:
        return None
    focus, blur, noise = models["focus"], models["motion_blur"], models["noise"]
    plain = [f for f in frames if noise.score(values[f.id]) < noise.warn and blur.score(values[f.id]) < 0
             and _well_exposed(values[f.id], models)]  # fmt: skip
    if not plain:
        return None
    best = min(plain, key=lambda f: (focus.score(values[f.id]), f.id))
    if focus.score(values[best.id]) < 0:
        return None  # sharp on its own: the burst is compared as usual
    alike = [f for f in frames if f.id != best.id and _exposed_alike(values[f.id], values[best.id])
             and noise.score(values[f.id]) < noise.warn]  # fmt: skip
    if len(alike) < SHARPEST_FROM - 1 or any(focus.score(values[f.id]) < focus.score(values[best.id]) for f in alike):
        return None
    return best, min(alike, key=lambda f: (focus.score(values[f.id]), f.id))


def _with_iso(values: dict[str, float], image: ImageRecord) -> dict[str, float]:
    """A frame's stored values with the ISO its camera recorded (the noise check reads it), as judged."""
    iso = recorded_iso(image)
    return values if iso is None else values | {ISO: iso}


def _held_back(frame: ImageRecord, clean: Sequence[ImageRecord], values: Mapping[int, Mapping[str, float]],
               models: Mapping[str, VerdictModel]) -> bool:  # fmt: skip
    """Whether the sharpness or noise comparison rejects a frame: at least a warning on that model and
    a burst margin above another frame of `clean` exposed alike."""
    for check in COMPARED_CHECKS:
        model, own = models[check], models[check].score(values[frame.id])
        if own >= model.warn and any(
            own - model.score(values[o.id]) > (model.group or math.inf)
            for o in clean if o.id != frame.id and _exposed_alike(values[o.id], values[frame.id])
        ):
            return True
    return False


def _well_exposed(values: Mapping[str, float], models: Mapping[str, VerdictModel]) -> bool:
    """Whether a frame may be the one its burst's exposure is held against: neither the over- nor the
    under-exposure model warns on it (a high-key burst, every frame warned, is compared with nothing)."""
    return all(models[c].score(values) < models[c].warn for c in ("overexposure", "underexposure"))


def _fit_to_compare(values: Mapping[str, float], models: Mapping[str, VerdictModel]) -> bool:
    """Whether a frame may be the one its burst is held against: no model rejects its sharpness, and
    its noise is under the reject point or is texture by the noise check's own rule (grain in
    brightness only that keeps its strength at half size: a held10 trial's sharp frame of feathers
    was no reference, and its smeared sibling was held against nothing)."""
    if any(models[c].score(values) >= 0 for c in ("focus", "motion_blur")):
        return False
    if models["noise"].score(values) < 0:
        return True
    rule = limits_for(DEFAULT_SHOOT_TYPE, thresholds())["noise"]
    return ModelJudge(values, models).judge("noise", float(values.get("noise", math.nan)), rule)[0] != "reject"


def _clearly_softer(theirs: Mapping[str, float], own: Mapping[str, float], models: Mapping[str, VerdictModel]) -> bool:
    """Whether a frame is clearly softer or more smeared than another: its focus or motion-blur score
    lies beyond that model's burst margin (`group`) above the other's."""
    return any(models[c].score(theirs) - models[c].score(own) > (models[c].group or 0.0) for c in ("focus", "motion_blur"))


def _cleaner_by_far(theirs: Mapping[str, float], own: Mapping[str, float], models: Mapping[str, VerdictModel]) -> bool:
    """Whether a frame that looks softer may still be the one `own` is held against for noise: it is
    sharp on its own and `own`'s noise score lies CLEANER_BY_FAR burst margins above it, more than a
    blur alone takes away (the softness it shows is the other frame's grain read as edges)."""
    if any(models[c].score(theirs) >= models[c].warn for c in ("focus", "motion_blur")):
        return False
    return _noise_gap(own, theirs, models) >= CLEANER_BY_FAR


def _noise_gap(noisier: Mapping[str, float], cleaner: Mapping[str, float], models: Mapping[str, VerdictModel]) -> float:
    """How many burst margins the first frame's noise score lies above the second's."""
    noise = models["noise"]
    return (noise.score(noisier) - noise.score(cleaner)) / (noise.group or math.inf)


def _edges_lost(frames: Sequence[ImageRecord], clean: Sequence[ImageRecord], values: Mapping[int, Mapping[str, float]]) -> dict[int, Sibling]:
    """For each frame with too few edges to measure its sharpness, the clean frame of the burst exposed
    alike and of the same view with the most edges (an "edges" sibling; judging decides whether the
    loss is a reject). Only frames exposed alike: an under-exposed frame loses its edges in the dark,
    not to a blur. Only the same view (their 64 x 48 thumbnails alike: a blur leaves them so): a
    burst that tilts from the shore to a bare sky lost no detail (an attack's sky-only frame was
    called "blurred past measuring")."""
    few = float(thresholds()["focus"].get("few_edges", -1.0))  # type: ignore[arg-type]
    out: dict[int, Sibling] = {}
    for frame in frames:
        own = values[frame.id].get(EDGE_DENSITY, math.nan)
        if not own < few:
            continue
        others = [c for c in clean if c.id != frame.id and values[c.id].get(EDGE_DENSITY, math.nan) >= few
                  and _exposed_alike(values[frame.id], values[c.id]) and _same_view(frame, c)]  # fmt: skip
        if not others:
            continue
        best = max(others, key=lambda c: (values[c.id][EDGE_DENSITY], -c.id))
        out[frame.id] = Sibling("edges", Path(best.path).name, ((EDGE_DENSITY, values[best.id][EDGE_DENSITY]),))
    return out


SAME_VIEW = 0.9
"""Least correlation of two frames' 64 x 48 grey thumbnails for one to be the other blurred: a blur
of a few percent of the width moves a thumbnail pixel little; another view moves it a lot."""


def _same_view(first: ImageRecord, second: ImageRecord) -> bool:
    """True when two frames' thumbnails show the same view (False when either cannot be read)."""
    a, b = _grey_thumb(first.thumb_path), _grey_thumb(second.thumb_path)
    if a is None or b is None or a.std() < 1e-6 or b.std() < 1e-6:
        return False
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1]) >= SAME_VIEW


def _exposed_alike(first: Mapping[str, float], second: Mapping[str, float]) -> bool:
    """True when two frames' midtones are within about half a stop of each other."""
    a, b = first.get(MIDTONES, math.nan), second.get(MIDTONES, math.nan)
    if math.isnan(a) or math.isnan(b) or a <= 0 or b <= 0:
        return True  # not measured: compared as before
    return abs(math.log2(a / b)) <= EXPOSURE_STOPS


def rejudge_library(
    profile: Profile,
    shoot_type_name: str | None = None,
    progress: Any = None,
    cancel: Any = None,
) -> Rejudged:
    """Judge again every stored verdict whose shoot type, thresholds or set changed, from its stored
    measurements; with `shoot_type_name`, that shoot type becomes the profile's. When another process
    chose a shoot type meanwhile, its choice is the profile's and the verdicts follow it."""
    chosen = remember_shoot_type(profile, shoot_type_name) if shoot_type_name else profile_shoot_type(profile)
    result = _rejudge(profile, chosen, cancel)
    for _ in range(REJUDGE_ROUNDS):
        remembered = profile_shoot_type(profile)
        if remembered == chosen:
            break
        chosen = remembered
        again = _rejudge(profile, chosen, cancel)
        again.judged += result.judged
        result = again
    return result


JUDGED_STATE = "judged_versions"
"""library_state key: the thresholds, models, shoot types and judging code every stored verdict was
last found judged under, so that asking again costs one stored value, not a read of every row."""


def verdicts_outdated(profile: Profile) -> bool:
    """Whether a stored verdict was judged under other thresholds, verdict models, shoot types or
    judging code than this Aesthete's (an update). Two small queries when no row was written since the
    last judging of the library (every import ends with one); else a scan of the stored rows. Writes
    nothing: a listing of a damaged profile leaves its file as it was."""
    if profile.grouping.library_state(JUDGED_STATE) == _judged_state(profile):
        return False
    return profile.checks.any_judged_otherwise(_judged_versions())


def _judged_versions() -> str:
    return judge_stamp("", thresholds_version()).split(":", 1)[0]


def _judged_state(profile: Profile) -> str:
    """This Aesthete's judging versions and the stored rows' written mark (any write by any version
    changes it: an older Aesthete sharing the profile is looked at again)."""
    return f"{_judged_versions()}|{profile.checks.written_mark()}"


def _remember_judged(profile: Profile, state: str) -> None:
    """Note that every stored verdict is judged as `state` says (a hint only: unwritable, it is skipped)."""
    from aesthete_gui.store import ProfileError

    with contextlib.suppress(ProfileError):  # a read-only profile scans again next time, nothing worse
        profile.grouping.set_library_state(JUDGED_STATE, state)


REJUDGE_ROUNDS = 3
"""Times the verdicts follow a shoot type another process chose while they were judged."""


def _rejudge(profile: Profile, chosen: str, cancel: Any) -> Rejudged:
    version = checks_version()
    stored, read_at = profile.checks.all_read_at()
    images = [image for image in profile.catalog.images(status="ok") if image.id in stored]
    contexts = set_contexts(profile, images, stored)
    copy_of = {image_id: c.copy_of for image_id, c in contexts.items() if c.copy_of}
    members: dict[str, list[int]] = {}
    for image_id, context in contexts.items():
        if context.sequence:
            members.setdefault(context.sequence, []).append(image_id)
    result = Rejudged(chosen, sets=sorted(members), copies=len(copy_of), copy_of=copy_of, set_members=members)
    rows = []
    flipped = []  # images whose reject verdict came or went: their built-in scores are out of date
    thresholds = thresholds_version()
    for image_id, (checks, faces) in stored.items():
        if cancel is not None:
            cancel.raise_if_cancelled()
        context = contexts.get(image_id, SetContext())
        stamp = judge_stamp(chosen, thresholds, context)
        if checks and all(c.get("judged") == stamp for c in checks):
            continue
        judged = judge(values_of(checks, len(faces)), shoot_type=chosen, context=context, judged=stamp)
        worst = worst_verdict(judged)
        if (worst == "reject") != any(c.get("verdict") == "reject" for c in checks):
            flipped.append(image_id)
        rows.append((image_id, version, [c.as_dict() for c in judged], faces, worst))
    left = profile.checks.put_judged(rows, read_at) if rows else []
    _remember_judged(profile, _judged_state(profile))  # every row is now judged by this version
    if left:  # measured again meanwhile (an import of an edited file): its own judging stands
        skipped = set(left)
        flipped = [i for i in flipped if i not in skipped]
    result.judged = len(rows) - len(left)
    _rescore_builtin(profile, flipped)
    return result


def _rescore_builtin(profile: Profile, image_ids: Sequence[int]) -> None:
    """Score again with the built-in scorer the images it scored whose reject verdict changed (it
    keeps rejects below every frame without one; their properties are stored, nothing is decoded)."""
    from aesthete_gui.services.scoring import BUILTIN, score_library

    scored = profile.scores.of_scorer(BUILTIN)
    again = [i for i in image_ids if i in scored]
    if again:
        score_library(profile, BUILTIN, image_ids=again)


def suggested_reject_reasons(profile: Profile, image_ids: Iterable[int] | None = None) -> dict[int, list[str]]:
    """The reasons of each suggested reject (its reject verdicts), by image id."""
    suggested = profile.checks.suggested_rejects()
    if image_ids is not None:
        suggested &= set(image_ids)
    stored = profile.checks.all()
    return {
        image_id: [str(c.get("reason")) for c in stored[image_id][0] if c.get("verdict") == "reject"]
        for image_id in sorted(suggested)
        if image_id in stored
    }

