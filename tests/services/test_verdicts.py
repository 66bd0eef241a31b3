"""The library's verdicts judged again from stored measurements: shoot types, brackets, copies."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, TiffImagePlugin
from skimage import data as skdata

from aesthete_gui.imaging.shoot_types import UnknownShootTypeError
from aesthete_gui.services import verdicts
from aesthete_gui.services.library import import_folders
from aesthete_gui.services.scoring import BUILTIN, score_library
from aesthete_gui.store import open_profile

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade


def _exif(when: str, bias: float, exposure: tuple[int, int], camera: str = "Bracketing Camera") -> Image.Exif:
    exif = Image.Exif()
    exif[0x0110] = camera
    ifd = exif.get_ifd(0x8769)
    ifd[0x9003] = when
    ifd[0x9204] = TiffImagePlugin.IFDRational(round(bias * 10), 10)
    ifd[0x829A] = TiffImagePlugin.IFDRational(*exposure)
    ifd[0x829D] = TiffImagePlugin.IFDRational(8, 1)
    ifd[0x8827] = 100
    return exif


@pytest.fixture
def shoot(tmp_path: Path) -> Path:
    """A bracket of three (its dark frame alone would be a reject), a clean frame and its smaller copy."""
    return write_bracket_shoot(tmp_path)


def write_bracket_shoot(tmp_path: Path) -> Path:
    """The `shoot` fixture's folder, written under `tmp_path`."""
    folder = tmp_path / "shoot"
    folder.mkdir()
    photo = Image.fromarray(skdata.coffee())
    for second, (bias, factor, exposure) in enumerate(((-2.5, 2.0**-2.5, (1, 700)), (0.0, 1.0, (1, 125)), (2.0, 4.0, (1, 30)))):
        degrade.exposure(photo, factor).save(folder / f"bracket_{second}.jpg", quality=92,
                                            exif=_exif(f"2024:05:01 10:00:0{second}", bias, exposure))  # fmt: skip
    rocket = Image.fromarray(skdata.rocket())
    rocket.save(folder / "rocket.jpg", quality=95, exif=_exif("2024:05:01 11:00:00", 0.0, (1, 250), "Other"))
    rocket.resize((rocket.width // 2, rocket.height // 2)).save(folder / "rocket_small.jpg", quality=80,
                                                                 exif=_exif("2024:05:01 11:00:00", 0.0, (1, 250), "Other"))  # fmt: skip
    return folder


def _checks(profile, name: str) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    record = next(r for r in profile.catalog.images() if Path(r.path).name == name)
    checks, _ = profile.checks.get(record.id)
    return {c["name"]: c for c in checks}


def test_a_bracket_is_never_suggested_and_a_copy_names_its_original(tmp_path: Path, shoot: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [shoot], workers=1)
    suggested = {Path(profile.catalog.image_by_id(i).path).name for i in profile.checks.suggested_rejects()}  # type: ignore[union-attr]
    assert not suggested & {"bracket_0.jpg", "bracket_1.jpg", "bracket_2.jpg"}
    dark = _checks(profile, "bracket_0.jpg")
    assert dark["underexposure"]["verdict"] == "warn" and "not a reject" in dark["underexposure"]["reason"]
    assert dark["sequence"]["reason"] == "kept with its set (exposure bracket of 3 frames (-2.5, 0, +2 EV)): never a suggested reject"
    copy = _checks(profile, "rocket_small.jpg")["copy"]
    assert copy["verdict"] == "warn" and "a smaller copy" in copy["reason"] and "of rocket.jpg" in copy["reason"]
    assert "copy" not in _checks(profile, "rocket.jpg")
    profile.close()


def test_a_metered_burst_in_changing_light_is_culled_not_kept_as_a_bracket(tmp_path: Path) -> None:
    # aperture priority: the meter moved the shutter two stops within the burst, but the frames came
    # out alike; read as a bracket, its smeared frame was never suggested
    folder = tmp_path / "burst"
    folder.mkdir()
    photo = Image.fromarray(skdata.coffee())
    frames = ((photo, (1, 500)), (degrade.smear(photo, 0.02, angle_deg=10.0), (1, 125)), (photo, (1, 500)))
    for second, (frame, exposure) in enumerate(frames):
        frame.save(folder / f"IMG_{second}.jpg", quality=92, exif=_exif(f"2024:05:01 10:00:0{second}", 0.0, exposure))
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [folder], workers=1)
    suggested = {Path(profile.catalog.image_by_id(i).path).name for i in profile.checks.suggested_rejects()}  # type: ignore[union-attr]
    assert suggested == {"IMG_1.jpg"}
    assert "sequence" not in _checks(profile, "IMG_1.jpg")
    profile.close()


def test_a_copy_scores_below_its_original_in_the_builtin_ranking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # trial on held7: 5 of 7 copies scored above their originals (a half-size copy's edges and
    # grain read cleaner), and rank-images listed a copy 5th and its original 9th
    folder = tmp_path / "shoot"
    folder.mkdir()
    grainy = degrade.noise(Image.fromarray(skdata.coffee()), 9.0)
    grainy.save(folder / "IMG_0001.jpg", quality=95, exif=_exif("2024:05:01 11:00:00", 0.0, (1, 250)))
    grainy.resize((grainy.width // 2, grainy.height // 2), Image.Resampling.LANCZOS).save(
        folder / "IMG_0001_small.jpg", quality=85, exif=_exif("2024:05:01 11:00:00", 0.0, (1, 250)))
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [folder], workers=1)
    ids = {Path(r.path).name: r.id for r in profile.catalog.images()}
    monkeypatch.setattr(verdicts, "copy_originals", lambda *_: {})
    _, unaware = score_library(profile, BUILTIN, store=False)
    assert unaware[ids["IMG_0001_small.jpg"]]["overall"] > unaware[ids["IMG_0001.jpg"]]["overall"]  # the trap
    monkeypatch.undo()
    _, scores = score_library(profile, BUILTIN)
    original, copy = scores[ids["IMG_0001.jpg"]], scores[ids["IMG_0001_small.jpg"]]
    assert all(copy[d] < original[d] for d in ("technique", "coloration", "composition", "mood", "overall"))
    assert original["overall"] - copy["overall"] < 0.05  # just below, not pushed to the bottom
    # scoring only the copy (a selection, `score IMG --save`) scores its original with it: the copy
    # was stored above its original when the original was not in the batch
    _, only = score_library(profile, BUILTIN, image_ids=[ids["IMG_0001_small.jpg"]])
    assert set(only) == {ids["IMG_0001_small.jpg"]}
    stored = profile.scores.of_scorer(BUILTIN)
    assert stored[ids["IMG_0001_small.jpg"]]["overall"] < stored[ids["IMG_0001.jpg"]]["overall"]
    profile.close()


def test_a_copy_imported_after_its_original_was_scored_is_capped_by_the_taste_ranking(tmp_path: Path) -> None:
    # second attack on f036756: `taste suggest` (and Compare's pair suggestions) scored only images
    # without a current score, so a copy imported later was stored above its original
    from aesthete_gui.services.scoring import base_ranking

    folder = tmp_path / "shoot"
    folder.mkdir()
    grainy = degrade.noise(Image.fromarray(skdata.coffee()), 9.0)
    grainy.save(folder / "IMG_0001.jpg", quality=95, exif=_exif("2024:05:01 11:00:00", 0.0, (1, 250)))
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [folder], workers=1)
    score_library(profile, BUILTIN)
    grainy.resize((grainy.width // 2, grainy.height // 2), Image.Resampling.LANCZOS).save(
        folder / "IMG_0001_small.jpg", quality=85, exif=_exif("2024:05:01 11:00:00", 0.0, (1, 250)))
    import_folders(profile, [folder], workers=1)
    base_ranking(profile, BUILTIN)
    ids = {Path(r.path).name: r.id for r in profile.catalog.images()}
    stored = profile.scores.of_scorer(BUILTIN)
    assert stored[ids["IMG_0001_small.jpg"]]["overall"] < stored[ids["IMG_0001.jpg"]]["overall"]
    profile.close()


def test_copies_are_capped_down_a_chain_but_never_into_the_rejects_band() -> None:
    from aesthete_gui.engine.builtin_scorer import COPY_STEP, REJECT_CEILING, _below_originals

    unit = np.array([0.40, 0.70, 0.90, 0.10, 0.60])
    originals = np.array([-1, 0, 1, -1, 3])  # 1 copies 0, 2 copies 1 (a copy of a copy), 4 copies 3
    rejected = np.array([False, False, False, True, False])  # 3 is a rejected original, 4 passed
    capped = _below_originals(unit, originals, rejected)
    assert capped[1] == pytest.approx(0.40 - COPY_STEP) and capped[2] == pytest.approx(0.40 - 2 * COPY_STEP)
    assert capped[4] == 0.60 and capped[4] > REJECT_CEILING > capped[3]  # a passing frame above every reject
    low = _below_originals(np.array([REJECT_CEILING, 0.5]), np.array([-1, 0]), np.array([False, False]))
    assert low[1] == REJECT_CEILING  # capped, but not below the rejects' band
    colour = _below_originals(np.array([0.05, 0.6]), np.array([-1, 0]), None)  # no band in coloration or mood
    assert colour[1] == pytest.approx(0.05 - COPY_STEP)


def test_changing_the_shoot_type_judges_again_without_decoding(
    tmp_path: Path, shoot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [shoot], workers=1)
    score_library(profile, BUILTIN)
    before = {c: _checks(profile, "rocket.jpg")[c]["judged"] for c in ("noise", "eyes") if c in _checks(profile, "rocket.jpg")}
    assert before["noise"].split(":")[1] == "general"

    def no_decoding(*args: object, **kwargs: object) -> None:
        raise AssertionError("judging again must not decode")

    monkeypatch.setattr("aesthete_gui.imaging.decode.decode_bytes", no_decoding)
    monkeypatch.setattr("aesthete_gui.imaging.checks.decode_bytes_sizes", no_decoding)
    result = verdicts.rejudge_library(profile, "Landscape")
    assert result.shoot_type == "landscape" and result.judged == len(profile.catalog.images())
    assert _checks(profile, "rocket.jpg")["noise"]["judged"].split(":")[1] == "landscape"
    assert verdicts.profile_shoot_type(profile) == "landscape"
    settings = json.loads(verdicts.settings_path(profile.path).read_text(encoding="utf-8"))
    assert settings[verdicts.SHOOT_TYPE_SETTING] == "landscape"
    assert verdicts.rejudge_library(profile).judged == 0  # up to date: nothing to do
    with pytest.raises(UnknownShootTypeError):
        verdicts.rejudge_library(profile, "macro")
    assert verdicts.profile_shoot_type(profile) == "landscape"
    profile.close()


def test_an_unreadable_or_unknown_setting_means_general(tmp_path: Path) -> None:
    profile_path = tmp_path / "p.db"
    assert verdicts.profile_shoot_type(profile_path) == "general"
    verdicts.settings_path(profile_path).write_text("{not json", encoding="utf-8")
    assert verdicts.profile_shoot_type(profile_path) == "general"
    verdicts.settings_path(profile_path).write_text('{"shoot_type": "macro", "theme": "light"}', encoding="utf-8")
    assert verdicts.profile_shoot_type(profile_path) == "general"
    verdicts.remember_shoot_type(profile_path, "studio")
    kept = json.loads(verdicts.settings_path(profile_path).read_text(encoding="utf-8"))
    assert kept == {"shoot_type": "studio", "theme": "light"}  # the window's other settings stay


def _imported_burst(tmp_path: Path, frames: tuple[Image.Image, ...]):  # type: ignore[no-untyped-def]
    """A profile over `frames` saved a second apart by one camera (so they form a burst)."""
    folder = tmp_path / "burst"
    folder.mkdir()
    for second, frame in enumerate(frames):
        frame.save(folder / f"burst_{second}.jpg", quality=92, exif=_exif(f"2024:05:01 12:00:0{second}", 0.0, (1, 250), "Burst Camera"))
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [folder], workers=1)
    return profile


def _suggested(profile) -> set[str]:  # type: ignore[no-untyped-def]
    return {Path(profile.catalog.image_by_id(i).path).name for i in profile.checks.suggested_rejects()}


def test_a_frame_softer_than_the_sharpest_of_its_burst_is_a_reject(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # three frames a second apart; the middle one slightly out of focus: alone only doubtful
    photo = Image.fromarray(skdata.coffee())
    profile = _imported_burst(tmp_path, (photo, degrade.defocus(photo, 0.0045), photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    soft = _checks(profile, "burst_1.jpg")["focus"]
    assert soft["verdict"] == "reject"
    assert soft["reason"].startswith("softer than burst_")
    assert ", the sharpest frame of its burst (the subject's edge spread " in soft["reason"]
    assert _checks(profile, "burst_0.jpg")["focus"]["verdict"] == "ok"
    assert _checks(profile, "burst_2.jpg")["focus"]["verdict"] == "ok"
    assert _suggested(profile) == {"burst_1.jpg"}
    profile.close()
    # `bursts` says which frames are suggested rejects (a held15 trial could not tell from its list)
    from aesthete_gui.cli import main

    assert main(["--profile", str(tmp_path / "p.db"), "bursts"]) == 0
    flagged = [line for line in capsys.readouterr().out.splitlines() if line.endswith("✖ suggested reject")]
    assert len(flagged) == 1 and "burst_1.jpg" in flagged[0]


@pytest.mark.parametrize(
    ("scene", "dim", "made"),
    [("coffee", 1.0, lambda p: degrade.noise(p, 28.0)),  # heavy grain reads as crisp edges
     ("coffee", 0.25, lambda p: degrade.exposure(p, 4.0)),  # a dark frame brightened 2 EV measures crisper
     ("chelsea", 0.25, lambda p: degrade.exposure(p, 4.0))],
)  # fmt: skip
def test_a_noisy_or_brightened_frame_is_not_the_one_its_burst_is_held_against(tmp_path: Path, scene: str, dim: float, made) -> None:  # type: ignore[no-untyped-def]
    photo = degrade.exposure(Image.fromarray(getattr(skdata, scene)()), dim) if dim != 1.0 else Image.fromarray(getattr(skdata, scene)())
    profile = _imported_burst(tmp_path, (photo, made(photo), photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    for clean in ("burst_0.jpg", "burst_2.jpg"):
        assert all("burst_1.jpg" not in check["reason"] for check in _checks(profile, clean).values()), scene
    profile.close()


@pytest.mark.parametrize(("scene", "factor"), [("chelsea", 4.0), ("coffee", 2.0)])
def test_a_frame_clearly_brighter_than_the_best_exposed_of_its_burst_is_a_reject(tmp_path: Path, scene: str, factor: float) -> None:
    # held11 trial: +2 EV frames beside their original were only warned (high-key, a bright background);
    # frames of one burst are now compared across exposures too, against a frame neither check warns on
    photo = Image.fromarray(getattr(skdata, scene)())
    profile = _imported_burst(tmp_path, (photo, degrade.exposure(photo, factor), photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    bright = _checks(profile, "burst_1.jpg")["overexposure"]
    assert bright["verdict"] == "reject"
    assert bright["reason"].startswith("brighter than burst_") and ", the best exposed frame of its burst (" in bright["reason"]
    assert _suggested(profile) == {"burst_1.jpg"}
    profile.close()


def test_a_soft_frame_is_not_called_softer_than_its_grainy_copy(tmp_path: Path) -> None:
    # an attack: an enlarged (soft) frame beside the same pixels with grain added was rejected as "softer
    # than" the grainy copy, whose grain read as crisp detail, and the grainy copy was shown as best. With
    # σ 10 grain the gap is 2.47 margins, under CLEANER_BY_FAR: that case is left as it was.
    photo = Image.fromarray(skdata.astronaut()).resize((1024, 1024), Image.Resampling.BICUBIC)
    profile = _imported_burst(tmp_path, (photo, degrade.noise(photo, 14.0)))
    assert all("burst_1.jpg" not in check["reason"] for check in _checks(profile, "burst_0.jpg").values())
    assert "burst_0.jpg" not in _suggested(profile)
    profile.close()


def test_a_darker_frame_is_not_called_darker_than_a_brighter_sibling(tmp_path: Path) -> None:
    # on the fit pool, comparing under-exposure too held a dark frame on purpose against a brightened
    # copy of itself 25 times in 799: only over-exposure is compared across exposures
    photo = Image.fromarray(skdata.coffee())
    profile = _imported_burst(tmp_path, (photo, degrade.exposure(photo, 0.5), photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    assert all("burst_0.jpg" not in c["reason"] and "burst_2.jpg" not in c["reason"] for c in _checks(profile, "burst_1.jpg").values())
    profile.close()


def _stored_burst_siblings(data_file: str) -> dict[str, dict[str, str]]:
    """best_siblings over a burst's stored measurements (tests/services/data): for each frame's name,
    the frame it is held against per check."""
    from aesthete_gui.store import ImageRecord

    frames = json.loads((Path(__file__).parent / "data" / data_file).read_text(encoding="utf-8"))["frames"]
    names = sorted(frames)
    members = [ImageRecord(i, f"/shoot/{n}", width=frames[n]["width"], height=frames[n]["height"],
                           exif={"iso": frames[n]["iso"]} if frames[n].get("iso") else {}) for i, n in enumerate(names)]  # fmt: skip
    siblings = verdicts.best_siblings(members, {i: (frames[n]["checks"], []) for i, n in enumerate(names)})
    return {names[i]: {s.check: s.name for s in found} for i, found in siblings.items()}


def test_a_real_bursts_original_is_held_against_no_noisy_or_brightened_copy() -> None:
    # measurements stored for a real night photograph and its copies: the noise copy's grain and the
    # +2 EV copy's brighter edges both measure crisper than the original
    held_against = set(_stored_burst_siblings("lake_burst_checks.json").get("IMG_0063.JPG", {}).values())
    assert not held_against & {"IMG_0064.JPG", "IMG_0065.JPG"}, held_against


def test_a_sharp_textured_frame_is_not_held_against_its_smeared_sibling_for_noise() -> None:
    # held10 trial: the sharp feather frame was "noisier than IMG_0043.JPG, the cleanest frame of its
    # burst (noise σ 27.5 against 8.4)", a suggested reject, and the smeared frame became the cover
    siblings = _stored_burst_siblings("feather_burst_checks.json")
    assert siblings.get("IMG_0042.JPG", {}) == {}  # held against nothing: it is the sharp one
    assert siblings["IMG_0043.JPG"].get("motion_blur") == "IMG_0042.JPG"  # the smeared frame is held against the sharp one


def test_a_noisy_frame_is_held_against_its_clean_original_that_its_grain_makes_look_softer() -> None:
    # held14 trial: the σ 28 frame's grain read as crisper edges than its clean original, which was then
    # "clearly softer" and no reference for noise: the noisy frame was not suggested and was shown as the
    # burst's best. A softer-looking frame sharp on its own, far cleaner than blur alone makes, is one.
    siblings = _stored_burst_siblings("fjord_burst_checks.json")
    assert siblings.get("IMG_0020.JPG", {}).get("noise") == "IMG_0019.JPG"
    assert siblings["IMG_0019.JPG"].get("noise") != "IMG_0020.JPG"


def test_a_frame_whose_camera_recorded_a_low_iso_is_a_reference_despite_grain_like_noise() -> None:
    # held14 trial: leaves at ISO 200 measured like heavy noise, so the sharp original was no reference and
    # its smeared frame was judged alone, not suggested, and shown as the burst's best
    siblings = _stored_burst_siblings("leaves_burst_checks.json")
    assert siblings.get("IMG_0026.JPG", {}).get("motion_blur") == "IMG_0024.JPG"
    assert siblings.get("IMG_0024.JPG", {}) == {}


def test_grain_at_a_low_recorded_iso_is_at_most_a_warning() -> None:
    from aesthete_gui.imaging.judging import SetContext, judge, values_of

    frames = json.loads((Path(__file__).parent / "data" / "leaves_burst_checks.json").read_text(encoding="utf-8"))["frames"]
    values = values_of(frames["IMG_0024.JPG"]["checks"])
    noise = {iso: next(c for c in judge(values, context=SetContext(iso=iso)) if c.name == "noise") for iso in (200.0, 3200.0)}
    alone = next(c for c in judge(values) if c.name == "noise")
    assert alone.verdict == noise[3200.0].verdict == "reject"  # without a recorded ISO, or at a high one, the pixels decide
    assert noise[200.0].verdict == "warn"
    assert "the camera recorded ISO 200" in noise[200.0].reason and "texture in the scene" in noise[200.0].reason
    assert noise[200.0].measures["iso"] == 200.0  # kept with the measures, so it is judged alike again
    # grain both colour-speckled and pixel-fine is sensor noise whatever the ISO (an attack: a low-ISO frame
    # brightened by stops in editing was told "texture in the scene")
    sensor = {**values, "noise.whiteness": 0.79, "noise.chroma": 6.4}
    assert next(c for c in judge(sensor, context=SetContext(iso=100.0)) if c.name == "noise").verdict == "reject"


def test_a_frame_softer_every_way_than_its_bursts_sharpest_is_called_softer_once() -> None:
    # held14 trial: a defocused frame read "soft: …; softer than IMG_0024.JPG … (edges 4.5 px wide against
    # 3.1, in every direction)", the motion-blur comparison saying again what the focus check had said
    from aesthete_gui.imaging.judging import SetContext, judge, values_of
    from aesthete_gui.store import ImageRecord

    frames = json.loads((Path(__file__).parent / "data" / "leaves_burst_checks.json").read_text(encoding="utf-8"))["frames"]
    names = sorted(frames)
    members = [ImageRecord(i, f"/shoot/{n}", width=frames[n]["width"], height=frames[n]["height"], exif={"iso": frames[n]["iso"]})
               for i, n in enumerate(names)]  # fmt: skip
    siblings = verdicts.best_siblings(members, {i: (frames[n]["checks"], []) for i, n in enumerate(names)})
    soft = names.index("IMG_0027.JPG")
    assert {s.check for s in siblings[soft]} >= {"focus", "motion_blur"}
    checks = judge(values_of(frames["IMG_0027.JPG"]["checks"]), context=SetContext(siblings=siblings[soft], iso=200.0))
    reasons = "; ".join(c.reason for c in checks if c.verdict == "reject")
    assert [c.name for c in checks if c.verdict == "reject"] == ["focus"] and reasons.count("soft") == 1, reasons


def test_an_imported_frame_is_judged_with_the_iso_its_camera_recorded(tmp_path: Path) -> None:
    folder = tmp_path / "shoot"
    folder.mkdir()
    grainy = degrade.noise(Image.fromarray(skdata.coffee()), 28.0)
    for name, hour, iso in (("base_iso.jpg", 9, 100), ("high_iso.jpg", 15, 6400), ("no_exif.jpg", 0, 0)):
        exif = _exif(f"2024:05:01 {hour:02d}:00:00", 0.0, (1, 250), "Grain Camera")
        exif.get_ifd(0x8769)[0x8827] = iso
        grainy.save(folder / name, quality=92, **({"exif": exif} if iso else {}))
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [folder], workers=1)
    noise = {name: _checks(profile, name)["noise"] for name in ("base_iso.jpg", "high_iso.jpg", "no_exif.jpg")}
    assert noise["base_iso.jpg"]["verdict"] == "warn" and "recorded ISO 100" in noise["base_iso.jpg"]["reason"]
    assert noise["high_iso.jpg"]["verdict"] == noise["no_exif.jpg"]["verdict"] == "reject"
    assert _suggested(profile) == {"high_iso.jpg", "no_exif.jpg"}
    profile.close()


def test_judging_again_never_overwrites_checks_an_import_measured_meanwhile(
    tmp_path: Path, shoot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an attack: `recheck` read every row, an import stored new measurements of a photograph edited in
    # place, and the recheck then wrote verdicts judged from the old pixels over them, for good
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [shoot], workers=1)
    rocket = next(i for i in profile.catalog.images() if Path(i.path).name == "rocket.jpg").id
    first_judge = verdicts.judge
    other = open_profile(tmp_path / "p.db")  # another process's connection (the import)

    def judge_while_an_import_stores(*args: object, **kwargs: object) -> list[object]:
        if not calls:
            checks, faces = other.checks.get(rocket)  # type: ignore[misc]
            edited = [{**c, "value": 35.0, "verdict": "reject", "reason": "heavy noise (new pixels)"} if c["name"] == "noise" else c
                      for c in checks]  # fmt: skip
            other.checks.put_many([(rocket, other.checks.version, edited, faces, "reject")])
        calls.append(1)
        return first_judge(*args, **kwargs)  # type: ignore[arg-type]

    calls: list[int] = []
    monkeypatch.setattr(verdicts, "judge", judge_while_an_import_stores)
    result = verdicts.rejudge_library(profile, "landscape")
    noise = _checks(profile, "rocket.jpg")["noise"]
    assert noise["value"] == 35.0 and noise["reason"] == "heavy noise (new pixels)"  # the import's row stands
    assert result.judged == len(calls) - 1
    other.close()
    profile.close()


def test_verdicts_follow_a_shoot_type_another_process_chose_while_they_were_judged(
    tmp_path: Path, shoot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [shoot], workers=1)
    first_round = verdicts._rejudge
    calls: list[str] = []

    def meanwhile(profile_: object, chosen: str, cancel: object) -> verdicts.Rejudged:
        calls.append(chosen)
        result = first_round(profile_, chosen, cancel)  # type: ignore[arg-type]
        if len(calls) == 1:  # another `aesthete recheck --shoot-type wedding` wrote its choice meanwhile
            verdicts.remember_shoot_type(profile.path, "wedding")
        return result

    monkeypatch.setattr(verdicts, "_rejudge", meanwhile)
    result = verdicts.rejudge_library(profile, "sport")
    assert calls == ["sport", "wedding"] and result.shoot_type == "wedding"
    assert {c["judged"].split(":")[1] for c in _checks(profile, "rocket.jpg").values()} == {"wedding"}
    profile.close()


def test_the_bursts_list_names_a_bracket_and_recheck_counts_in_words(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from aesthete_gui.cli import main

    profile_path = tmp_path / "p.db"
    assert main(["--profile", str(profile_path), "import", "--quiet", str(shoot)]) == 0
    capsys.readouterr()
    assert main(["--profile", str(profile_path), "bursts"]) == 0
    listing = capsys.readouterr().out
    bracket = next(line for line in listing.splitlines() if line.startswith("burst") and "bracket" in line)
    assert bracket.endswith("kept with its set (exposure bracket of 3 frames (-2.5, 0, +2 EV)): never a suggested reject")
    assert "(shown for the set)" in listing and "(best)" in listing  # the rocket and its copy: a burst with a best frame
    shown = next(line for line in listing.splitlines() if "(shown for the set)" in line)
    assert "bracket_1.jpg" in shown  # the middle exposure, not the darkest frame (trial on held6)
    assert main(["--profile", str(profile_path), "recheck"]) == 0
    out = capsys.readouterr().out
    assert "; 1 set (brackets, panoramas, focus stacks); 1 copy of another frame; 2 bursts (`aesthete bursts` lists each" in out
    # which file is the copy, and of what (a held10 trial could not tell from the command line)
    (copy_line,) = [line for line in out.splitlines() if line.startswith("  copy: ")]
    assert "rocket" in copy_line and " is a " in copy_line and "copy" in copy_line.split(" is ", 1)[1]
    assert main(["--profile", str(profile_path), "recheck", "--json"]) == 0
    listed_json = json.loads(capsys.readouterr().out)
    (listed,) = listed_json["copy_list"]
    assert listed_json["bursts"] == 2  # the bracket's frames and the rocket with its copy
    assert copy_line == f"  copy: {listed['path']} is {listed['copy_of']}"



def test_two_checks_reading_one_measure_do_not_both_name_it() -> None:
    """The motion-blur model reads the subject's edge spread too; the focus check names it, so a
    frame's reasons side by side (recheck, the inspector) say it once."""
    from aesthete_gui.imaging.judging import judge

    smeared = {"focus": 4.0, "focus.subject": 4.0, "focus.narrow": 4.2, "motion_blur": 6.0, "motion_blur.across": 6.0,
               "motion_blur.along": 2.6, "motion_blur.coherence": 0.6, "resolution": 2400.0, "focus.edge_density": 0.3,
               "focus.contrast": 150.0}  # fmt: skip
    checks = {c.name: c for c in judge(smeared)}
    assert checks["focus"].reason.startswith("soft: the subject's detail is spread (edge spread 4.00")
    assert checks["motion_blur"].verdict == "reject" and checks["motion_blur"].reason.startswith("motion blur: the edges are")
    assert "edge spread" not in checks["motion_blur"].reason


def test_a_burst_frame_blurred_past_measuring_is_a_reject_beside_its_detailed_sibling(tmp_path: Path) -> None:
    """A low-contrast scene smeared until under 0.4 % of it is near an edge read "not measured" and was
    shown as its burst's cover (held7 trial, a wood close-up): its sibling kept 5.6 % edges."""
    hazy = Image.blend(Image.fromarray(skdata.coffee()), Image.new("RGB", (600, 400), (180, 180, 180)), 0.8)
    profile = _imported_burst(tmp_path, (hazy, degrade.motion_blur(hazy, 18), hazy.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    lost = _checks(profile, "burst_1.jpg")["focus"]
    assert lost["verdict"] == "reject"
    assert lost["reason"].startswith("blurred past measuring, or focus missed: edges on 0.3 % of the frame against")
    assert "the frame of its burst with the most detail" in lost["reason"]
    assert _suggested(profile) == {"burst_1.jpg"}
    profile.close()


def test_a_scene_without_edges_in_any_frame_and_a_dark_frame_are_not_called_blurred(tmp_path: Path) -> None:
    # every frame of a fog-grey scene has too few edges: none is held against another
    (tmp_path / "fog").mkdir()
    (tmp_path / "dark").mkdir()
    fog = Image.blend(Image.fromarray(skdata.chelsea()), Image.new("RGB", (451, 300), (180, 180, 180)), 0.8)
    profile = _imported_burst(tmp_path / "fog", (fog, degrade.motion_blur(fog, 14), fog.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    assert all("blurred past measuring" not in c["reason"] for c in _checks(profile, "burst_1.jpg").values())
    profile.close()
    # a frame 2.5 EV darker loses its edges in the dark, not to a blur: not compared by its edges
    hazy = Image.blend(Image.fromarray(skdata.coffee()), Image.new("RGB", (600, 400), (180, 180, 180)), 0.8)
    profile = _imported_burst(tmp_path / "dark", (hazy, degrade.exposure(hazy, 2**-2.5), hazy.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    assert all("blurred past measuring" not in c["reason"] for c in _checks(profile, "burst_1.jpg").values())
    profile.close()


def test_a_frame_that_turned_to_a_bare_sky_is_not_held_against_the_burst_frame_with_the_shore(tmp_path: Path) -> None:
    """An attack: a burst tilting from the shore to a bare sky; the sky frame (no edges) was called
    "blurred past measuring" beside the frame with the shore. Only the same view, blurred, is."""
    from PIL import ImageFilter

    from aesthete_gui.store import ImageRecord

    scene = Image.blend(Image.fromarray(skdata.coffee()), Image.new("RGB", (600, 400), (180, 180, 180)), 0.8)
    sky = Image.linear_gradient("L").resize((600, 400)).convert("RGB")
    thumbs = {"shore": scene, "blurred": scene.filter(ImageFilter.GaussianBlur(6)), "sky": sky}
    for name, picture in thumbs.items():
        picture.resize((160, 120)).save(tmp_path / f"{name}.jpg")

    def stored(density: float) -> tuple[list[dict], list[dict]]:  # type: ignore[type-arg]
        return ([{"name": "focus", "value": None, "verdict": "ok", "measures": {"edge_density": density}},
                 {"name": "overexposure", "value": 0.0, "verdict": "ok", "measures": {"median": 0.45}}], [])  # fmt: skip

    for lost in ("blurred", "sky"):
        members = [ImageRecord(1, "/shoot/shore.jpg", width=600, height=400, thumb_path=str(tmp_path / "shore.jpg")),
                   ImageRecord(2, f"/shoot/{lost}.jpg", width=600, height=400, thumb_path=str(tmp_path / f"{lost}.jpg"))]  # fmt: skip
        siblings = verdicts.best_siblings(members, {1: stored(0.09), 2: stored(0.001)})
        edges = [s for s in siblings.get(2, ()) if s.check == "edges"]
        assert [s.name for s in edges] == (["shore.jpg"] if lost == "blurred" else []), lost
