"""What a burst keeps and how a RAW is judged beside its JPEG: the sharpest frame of a burst the focus
model finds soft is kept with a warning, and a RAW's plain rendering is not a noise reject when the
camera's JPEG of the same exposure is clean (two findings of a photographer trial)."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import numpy as np
from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging.judging import (
    PAIR,
    SHARPEST,
    SetContext,
    Sibling,
    judge,
    values_of,
)
from aesthete_gui.imaging.model_verdicts import SAME_VIEW_MARK
from aesthete_gui.services import verdicts
from aesthete_gui.services.library import import_folders
from aesthete_gui.store import ImageRecord, open_profile
from tests.services.test_verdicts import _checks, _imported_burst, _suggested

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade
import trial_shoot

DATA = Path(__file__).parent / "data"


def _frames(data_file: str) -> dict[str, dict]:
    return json.loads((DATA / data_file).read_text(encoding="utf-8"))["frames"]


def _best_siblings(frames: dict[str, dict], names: list[str]) -> dict[int, tuple[Sibling, ...]]:
    """best_siblings over stored frames (by index in `names`), as the verdicts find them for a burst."""
    members = [ImageRecord(i, f"/shoot/{n}", width=frames[n]["width"], height=frames[n]["height"],
                           exif={"iso": frames[n]["iso"]}) for i, n in enumerate(names)]  # fmt: skip
    return verdicts.best_siblings(members, {i: (frames[n]["checks"], []) for i, n in enumerate(names)})


def _focus(values: dict[str, float], context: SetContext | None = None) -> dict:
    return next(c.as_dict() for c in judge(values, context=context) if c.name == "focus")


def test_a_cloudscape_burst_keeps_its_sharpest_frame_with_a_warning() -> None:
    # held12/13 trial: the cumulus original was "soft" with every frame of its burst, so accepting the
    # suggestions threw the moment away, and the burst showed its blown +2 EV frame as its best
    frames = _frames("cloud_burst_checks.json")
    names = [n for n in sorted(frames) if "_small" not in n]  # the caller leaves copies out
    found = _best_siblings(frames, names)
    by_name = {names[i]: siblings for i, siblings in found.items()}
    [kept] = [s for s in by_name["IMG_0042.JPG"] if s.check == SHARPEST]
    assert kept.name == "IMG_0046.JPG"  # the next sharpest: the smeared frame
    assert not any(s.check == SHARPEST for n, siblings in by_name.items() if n != "IMG_0042.JPG" for s in siblings)
    assert by_name["IMG_0045.JPG"][0].check == "overexposure" and by_name["IMG_0045.JPG"][0].name == "IMG_0042.JPG"

    values = values_of(frames["IMG_0042.JPG"]["checks"])
    assert _focus(values)["verdict"] == "reject"  # alone, as before
    focus = _focus(values, SetContext(siblings=(kept,)))
    assert focus["verdict"] == "warn"
    assert "but the sharpest frame of its burst (the next sharpest, IMG_0046.JPG, is softer)" in focus["reason"]


def test_a_burst_of_a_soft_scene_is_never_suggested_whole(tmp_path: Path) -> None:
    soft = degrade.defocus(Image.fromarray(skdata.chelsea()), 0.006)  # a scene soft all over
    shifted = Image.fromarray(np.roll(np.asarray(soft), 6, axis=1))  # the next frame of the burst
    profile = _imported_burst(tmp_path, (soft, shifted, degrade.defocus(soft, 0.008)))
    kept = _checks(profile, "burst_1.jpg")["focus"]
    assert kept["verdict"] == "warn" and "but the sharpest frame of its burst" in kept["reason"]
    assert _checks(profile, "burst_2.jpg")["focus"]["verdict"] == "reject"  # softer still
    assert "burst_1.jpg" not in _suggested(profile) and "burst_2.jpg" in _suggested(profile)
    profile.close()


def test_a_burst_with_a_sharp_frame_keeps_no_soft_one() -> None:
    frames = _frames("cloud_burst_checks.json")
    names = ["IMG_0042.JPG", "IMG_0043.JPG", "IMG_0047.JPG"]  # the noisy frame reads crisp, but it is grain
    found = _best_siblings(frames, names)
    assert not any(s.check == SHARPEST for siblings in found.values() for s in siblings)  # two frames alike: too few


def test_a_raw_is_judged_for_noise_beside_its_cameras_jpeg() -> None:
    frames = _frames("raw_pair_checks.json")
    raw, jpeg = values_of(frames["IMG_0083.DNG"]["checks"]), values_of(frames["IMG_0083.JPG"]["checks"])
    noise = {c.name: c for c in judge(raw)}["noise"]
    assert noise.verdict == "reject"  # alone: the plain rendering's grain
    beside = tuple((k, jpeg[k]) for k in ("noise", "noise.chroma", "noise.whiteness", "underexposure.median") if k in jpeg)
    mark = _pair(beside)
    paired = {c.name: c for c in judge(raw, context=SetContext(siblings=(mark,)))}["noise"]
    assert paired.verdict == "warn"
    assert f"but IMG_0083.JPG, the camera's JPEG of this exposure, shows σ {jpeg['noise']:.1f}" in paired.reason
    grainy = tuple((k, raw[k]) for k, _ in mark.values)  # a JPEG as grainy as the RAW: both are rejects
    assert {c.name: c for c in judge(raw, context=SetContext(siblings=(_pair(grainy),)))}["noise"].verdict == "reject"


def _pair(values: tuple[tuple[str, float], ...]) -> Sibling:
    return Sibling(PAIR, "IMG_0083.JPG", values)


def test_a_raw_in_the_library_is_paired_with_its_jpeg_and_nothing_else(tmp_path: Path) -> None:
    card = tmp_path / "card"
    card.mkdir()
    photo = Image.fromarray(skdata.coffee())
    when = datetime(2024, 5, 1, 12)
    photo.save(card / "IMG_1.JPG", quality=92, exif=trial_shoot.exif_for(when, iso=200, bias=None))
    trial_shoot.write_dng(photo, card / "IMG_1.DNG", when)
    trial_shoot.write_dng(photo, card / "IMG_2.DNG", when)  # a RAW alone
    profile = open_profile(tmp_path / "p.db")
    try:
        import_folders(profile, [card], workers=1)
        images = profile.catalog.images(status="ok")
        ids = {Path(i.path).name: i.id for i in images}
        contexts = verdicts.set_contexts(profile, images, profile.checks.all())
        pairs = {name: [s for s in contexts.get(i, SetContext()).siblings if s.check == PAIR] for name, i in ids.items()}
        assert [s.name for s in pairs["IMG_1.DNG"]] == ["IMG_1.JPG"]
        assert dict(pairs["IMG_1.DNG"][0].values)["noise.iso"] == 200  # the JPEG's recorded ISO
        assert pairs["IMG_1.JPG"] == [] and pairs["IMG_2.DNG"] == []
    finally:
        profile.close()


def test_sharpness_that_could_not_be_measured_is_a_warning_not_a_pass() -> None:
    # held16 trial: a smeared frame of a white room read "not measured" with an ok verdict, like a pass
    checks = {c.name: c for c in judge({"focus": float("nan"), "motion_blur": float("nan"), "noise": 0.5})}
    assert checks["focus"].verdict == "warn" and checks["focus"].reason.startswith("sharpness not measured")
    assert (checks["motion_blur"].verdict, checks["motion_blur"].reason) == ("ok", "not measured (see focus)")  # said once
    assert checks["noise"].verdict == "ok"
    alone = {c.name: c for c in judge({"focus": 2.0, "focus.subject": 2.0, "motion_blur": float("nan")})}["motion_blur"]
    assert alone.verdict == "warn" and alone.reason.startswith("sharpness not measured")


def test_a_frame_the_comparisons_reject_is_no_exposure_reference() -> None:
    # held16 trial: "brighter than IMG_0002, the best exposed frame of its burst", IMG_0002 being itself
    # "noisier than IMG_0001"
    frames = _frames("marquee_burst_checks.json")
    names = sorted(frames)
    found = _best_siblings(frames, names)
    by_name = {names[i]: {s.check: s.name for s in siblings} for i, siblings in found.items()}
    assert by_name["IMG_0003.JPG"]["overexposure"] == "IMG_0001.JPG"
    assert by_name["IMG_0002.JPG"]["noise"] == "IMG_0001.JPG"


def test_a_frame_fine_alone_but_clearly_softer_than_its_bursts_sharpest_is_a_reject() -> None:
    # held16 trial: a burst frame defocused by 0.5 % passed alone and was held against nothing
    frames = _frames("dining_burst_checks.json")
    names = sorted(frames)
    found = _best_siblings(frames, names)
    values = values_of(frames["IMG_0112.JPG"]["checks"])
    [sharpest] = [s for s in found[names.index("IMG_0112.JPG")] if s.check == "focus"]
    assert sharpest.name == "IMG_0113.JPG" and _focus(values)["verdict"] == "ok"  # alone it passes
    # the data file keeps no thumbnails: the same view is what best_siblings marks when they are alike
    assert _focus(values, SetContext(siblings=(sharpest,)))["verdict"] == "ok"  # another view: not dropped
    alike = Sibling("focus", sharpest.name, (*sharpest.values, (SAME_VIEW_MARK, 1.0)))
    dropped = _focus(values, SetContext(siblings=(alike,)))
    assert dropped["verdict"] == "reject"
    assert dropped["reason"].startswith("softer than IMG_0113.JPG, the sharpest frame of its burst")
    for clean in ("IMG_0110.JPG", "IMG_0111.JPG", "IMG_0113.JPG", "IMG_0114.JPG"):
        own = [s for s in found.get(names.index(clean), ()) if s.check == "focus"]
        marked = tuple(Sibling("focus", s.name, (*s.values, (SAME_VIEW_MARK, 1.0))) for s in own)
        assert _focus(values_of(frames[clean]["checks"]), SetContext(siblings=marked))["verdict"] != "reject", clean


def test_a_frame_of_the_same_view_fine_alone_is_dropped_beside_a_far_sharper_one(tmp_path: Path) -> None:
    photo = Image.fromarray(skdata.coffee())
    shifted = Image.fromarray(np.roll(np.asarray(photo), 6, axis=1))
    profile = _imported_burst(tmp_path, (photo, degrade.defocus(photo, 0.0025), shifted))
    stored = _checks(profile, "burst_1.jpg")
    alone = _focus(values_of(list(stored.values())))
    assert alone["verdict"] != "reject"  # alone it is not dropped
    assert stored["focus"]["verdict"] == "reject" and stored["focus"]["reason"].startswith("softer than burst_")
    assert _suggested(profile) == {"burst_1.jpg"}
    profile.close()
