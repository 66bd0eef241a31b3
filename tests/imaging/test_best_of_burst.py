"""The best frame of a burst: not a copy, eyes open, subject in focus, no clipping, most pixels, then the score."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging.best_frame import (
    BurstFrame,
    Edition,
    choose_representative,
    find_copies,
    stored_culling_rank,
)
from aesthete_gui.imaging.checks import Analysis, analyse_path
from aesthete_gui.imaging.faces import Face

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade


def test_the_clean_frame_beats_blurred_shaken_and_clipped_ones_scored_higher(tmp_path: Path) -> None:
    img = Image.fromarray(skdata.coffee())
    variants = {
        "blurred": degrade.gaussian_blur(img, 2.5),
        "clean": img,
        "shaken": degrade.motion_blur(img, 25),
        "clipped": degrade.exposure(img, 4.0),
    }
    frames = [
        BurstFrame(key, analyse_path(degrade.save(v, tmp_path / key)), overall=5.0 if key != "clean" else 3.0)
        for key, v in variants.items()
    ]
    assert choose_representative(frames) == "clean"


def test_closed_eyes_lose_to_open_eyes_whatever_the_score(tmp_path: Path) -> None:
    path = degrade.save(Image.fromarray(skdata.astronaut()), tmp_path / "portrait")
    measured = analyse_path(path)
    closed = Analysis(measured.checks, [Face((0.3, 0.1, 0.2, 0.2), "closed", 3.0)], measured.version)
    unknown = Analysis(measured.checks, [Face((0.3, 0.1, 0.2, 0.2), "unknown", 3.0)], measured.version)
    frames = [BurstFrame("closed", closed, overall=4.9), BurstFrame("unknown", unknown, overall=4.0)]
    assert choose_representative(frames) == "unknown"
    assert choose_representative([BurstFrame("only", None)]) == "only"


def test_a_soft_frame_loses_to_a_sharp_one_that_clips_a_little(tmp_path: Path) -> None:
    # Grace Hopper's portrait clips a little; a slightly blurred, shifted copy scored higher overall,
    # but its face is soft (a warning): the sharp frame is the keeper.
    import matplotlib

    with Image.open(Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg") as opened:
        img = opened.convert("RGB")
    shifted = img.crop((6, 4, img.width, img.height)).resize(img.size, Image.Resampling.BICUBIC)
    sharp = analyse_path(degrade.save(img, tmp_path / "sharp"))
    soft = analyse_path(degrade.save(degrade.gaussian_blur(shifted, 0.6), tmp_path / "soft"))
    assert {c.name: c.verdict for c in soft.checks}["focus"] == "warn"
    frames = [BurstFrame("sharp", sharp, overall=3.0), BurstFrame("soft", soft, overall=4.5)]
    assert choose_representative(frames) == "sharp"


def _edition(key: str, size: tuple[int, int], fmt: str = "JPEG", quality: float | None = 95.0, **kwargs: object) -> Edition:
    return Edition(key=key, name=f"{key}.jpg", width=size[0], height=size[1], format=fmt, quality=quality,
                   phash=0x0F0F_0F0F_0F0F_0F0F, capture_time=100.0, **kwargs)  # type: ignore[arg-type]  # fmt: skip


def test_resized_recompressed_and_png_copies_name_their_original() -> None:
    original = _edition("IMG_0001", (1800, 2400), camera="Canon EOS")
    small = _edition("small", (900, 1200), quality=80.0)
    png = _edition("png", (1200, 1600), fmt="PNG", quality=None)
    recompressed = _edition("again", (1800, 2400), quality=60.0, camera="Canon EOS")
    copies = find_copies([small, original, png, recompressed])
    assert set(copies) == {"small", "png", "again"}
    assert copies["small"] == (
        "a smaller copy (900 × 1200, JPEG quality 80) of IMG_0001.jpg (1800 × 2400, JPEG quality 95): the original is kept"
    )
    assert copies["again"].startswith("a recompressed copy (1800 × 2400, JPEG quality 60) of IMG_0001.jpg")
    # a PNG of the very same pixels that kept the camera's metadata is still the export, not the original
    same_png = _edition("same.png", (1800, 2400), fmt="PNG", quality=None, camera="Canon EOS")
    assert find_copies([original, same_png]) == {"same.png": "a copy (1800 × 2400, PNG) of IMG_0001.jpg (1800 × 2400, JPEG quality 95): the original is kept"}
    # another exposure of the same view (a burst neighbour) is no copy, whatever its size
    neighbour = Edition("next", "next.jpg", 900, 1200, "JPEG", 95.0, original.phash, capture_time=101.0)
    assert find_copies([original, neighbour]) == {}


def test_the_original_wins_over_its_copies_even_when_a_copy_looks_cleaner(tmp_path: Path) -> None:
    # the trial's case: a 900 x 1200 quality-80 copy kept and its 1800 x 2400 original rejected
    photo = Image.fromarray(skdata.astronaut()).resize((1200, 1200), Image.Resampling.LANCZOS)
    noisy = degrade.noise(photo, 6.0)  # the full-size original shows its grain; the copy averages it away
    original = degrade.save(noisy, tmp_path / "IMG_0001", 95)
    small = degrade.save(noisy.resize((600, 600), Image.Resampling.LANCZOS), tmp_path / "copy", 80)
    png = degrade.save(noisy.resize((800, 800), Image.Resampling.LANCZOS), tmp_path / "export")
    frames = [
        BurstFrame("copy", analyse_path(small), overall=4.8, edition=_edition("copy", (600, 600), quality=80.0)),
        BurstFrame("export", analyse_path(png), overall=4.6, edition=_edition("export", (800, 800), fmt="PNG", quality=None)),
        BurstFrame("original", analyse_path(original), overall=3.9, edition=_edition("original", (1200, 1200))),
    ]
    assert choose_representative(frames) == "original"


def test_the_stored_rank_puts_copies_last_and_prefers_more_pixels_among_equals() -> None:
    checks = [{"name": "focus", "value": 2.2, "verdict": "ok"}, {"name": "resolution", "value": 2400.0, "verdict": "ok"}]
    smaller = [{"name": "focus", "value": 2.2, "verdict": "ok"}, {"name": "resolution", "value": 1200.0, "verdict": "ok"}]
    copy = [*checks, {"name": "copy", "value": None, "verdict": "warn"}]
    assert stored_culling_rank(checks, []) > stored_culling_rank(smaller, []) > stored_culling_rank(copy, [])
    laughing = [{"eyes": "closed", "expression": "laughing"}]
    blinking = [{"eyes": "closed", "expression": None}]
    assert stored_culling_rank(checks, []) > stored_culling_rank(checks, laughing) > stored_culling_rank(checks, blinking)


def test_among_equal_frames_the_crisper_one_ranks_first() -> None:
    # trial on held6: a burst's cover was its first frame while the reasons of its rejects named
    # another "the sharpest frame of its burst"
    first = [{"name": "focus", "value": 2.6, "verdict": "ok"}, {"name": "resolution", "value": 2400.0, "verdict": "ok"}]
    crisper = [{"name": "focus", "value": 2.1, "verdict": "ok"}, {"name": "resolution", "value": 2400.0, "verdict": "ok"}]
    unmeasured = [{"name": "resolution", "value": 2400.0, "verdict": "ok"}]
    assert stored_culling_rank(crisper, []) > stored_culling_rank(first, []) > stored_culling_rank(unmeasured, [])
    bigger = [{"name": "focus", "value": 2.6, "verdict": "ok"}, {"name": "resolution", "value": 3000.0, "verdict": "ok"}]
    assert stored_culling_rank(bigger, []) > stored_culling_rank(crisper, [])  # pixels still come first


def test_a_frame_with_an_exposure_or_noise_warning_ranks_below_a_clean_one_a_hair_softer() -> None:
    # trial on held7: a -2.5 EV frame (only warned "dark") and a +2 EV one were shown over their
    # bursts' clean frames because their edges read 0.02-0.03 px crisper
    clean = [{"name": "focus", "value": 2.53, "verdict": "ok"}, {"name": "underexposure", "value": 0.98, "verdict": "ok"}]
    for warned in ("underexposure", "overexposure", "highlights", "shadows", "noise"):
        dark = [{"name": "focus", "value": 2.51, "verdict": "ok"}, {"name": warned, "value": 0.5, "verdict": "warn"}]
        assert stored_culling_rank(clean, []) > stored_culling_rank(dark, [])
    soft = [{"name": "focus", "value": 3.2, "verdict": "warn"}]
    bright_but_sharp = [{"name": "focus", "value": 2.2, "verdict": "ok"}, {"name": "highlights", "value": 0.1, "verdict": "warn"}]
    assert stored_culling_rank(bright_but_sharp, []) > stored_culling_rank(soft, [])  # softness cannot be fixed later


def test_a_bracket_shows_the_frame_without_exposure_warnings_then_the_one_nearest_middle_grey() -> None:
    # trial on held7: a bracket of a dark scene showed its +2 EV frame (nearest middle grey, but clipped)
    def frame(median: float, *warned: str) -> list[dict]:
        return [{"name": "focus", "value": 2.4, "verdict": "ok"},
                {"name": "overexposure", "value": 0.0, "verdict": "warn" if "overexposure" in warned else "ok", "measures": {"median": median}},
                *({"name": name, "value": 0.5, "verdict": "warn"} for name in warned if name != "overexposure"),
                {"name": "sequence", "value": None, "verdict": "ok", "reason": "kept with its set (exposure bracket of 3 frames (-2, 0, +2 EV)): never a suggested reject"}]  # fmt: skip

    minus, zero, plus = frame(0.10, "underexposure"), frame(0.23), frame(0.45, "overexposure", "highlights")
    ranks = sorted((stored_culling_rank(f, []), name) for f, name in ((minus, "-2"), (zero, "0"), (plus, "+2")))
    assert ranks[-1][1] == "0"
    assert stored_culling_rank(frame(0.45), []) > stored_culling_rank(frame(0.20), [])  # alike otherwise: nearer middle grey


def test_a_bracket_with_recorded_exposures_shows_its_middle_frame_whatever_its_warnings() -> None:
    # attack on 47694d0: in a five-frame bracket the 0 EV frame's black area was read as crushed
    # shadows (a warning) while the -1 EV frame's was called low-key intent: -1 EV was shown
    def frame(stops: float, *warned: str) -> list[dict]:
        return [{"name": "focus", "value": 2.4, "verdict": "ok"},
                *({"name": name, "value": 0.2, "verdict": "warn"} for name in warned),
                {"name": "sequence", "value": None, "verdict": "ok", "measures": {"stops": stops},
                 "reason": "kept with its set (exposure bracket of 5 frames (-2, -1, 0, +1, +2 EV)): never a suggested reject"}]  # fmt: skip

    frames = {-2.0: frame(-2.0, "underexposure"), -1.0: frame(-1.0), 0.0: frame(0.0, "shadows"), 1.0: frame(1.0), 2.0: frame(2.0, "highlights")}
    assert max(frames, key=lambda stops: stored_culling_rank(frames[stops], [])) == 0.0


def test_bracket_stops_come_from_the_bias_else_from_the_exposure_time() -> None:
    from aesthete_gui.imaging.sequences import FrameSet, Shot
    from aesthete_gui.services.verdicts import bracket_stops

    by_bias = [Shot("a", exposure_bias=-2.0), Shot("b", exposure_bias=0.0), Shot("c", exposure_bias=2.0)]
    by_time = [Shot("d", exposure_time=1 / 500), Shot("e", exposure_time=1 / 125), Shot("f", exposure_time=1 / 30)]
    sets = [FrameSet("bracket", ("a", "b", "c")), FrameSet("bracket", ("d", "e", "f")), FrameSet("panorama", ("g", "h"))]
    stops = bracket_stops(sets, {s.key: s for s in [*by_bias, *by_time, Shot("g"), Shot("h")]})
    assert stops["a"] == -2.0 and stops["b"] == 0.0 and stops["c"] == 2.0
    assert stops["d"] == pytest.approx(-2.0) and stops["e"] == 0.0 and stops["f"] == pytest.approx(2.06, abs=0.01)
    assert "g" not in stops
    # a manual bracket writes the same bias on every frame and varies the shutter (second attack)
    manual = [Shot("m", exposure_bias=0.0, exposure_time=1 / 500), Shot("n", exposure_bias=0.0, exposure_time=1 / 125),
              Shot("o", exposure_bias=0.0, exposure_time=1 / 30)]  # fmt: skip
    stops = bracket_stops([FrameSet("bracket", ("m", "n", "o"))], {s.key: s for s in manual})
    assert stops["n"] == 0.0 and stops["m"] == pytest.approx(-2.0)
    # third attack: a bias jitter of 0.01 EV hid a real shutter bracket
    jitter = [Shot("p", exposure_bias=0.0, exposure_time=1 / 125), Shot("q", exposure_bias=0.0, exposure_time=1 / 30),
              Shot("r", exposure_bias=0.01, exposure_time=1 / 500)]  # fmt: skip
    stops = bracket_stops([FrameSet("bracket", ("p", "q", "r"))], {s.key: s for s in jitter})
    assert stops["p"] == 0.0 and stops["r"] == pytest.approx(-2.0)


def test_a_frame_blurred_past_measuring_never_passes_for_the_sharp_one(tmp_path: Path) -> None:
    # blurred and hazed until no edge is left, focus reads "not measured": it must not win the burst
    from PIL import ImageFilter

    photo = Image.fromarray(skdata.astronaut())
    gone = Image.blend(photo.filter(ImageFilter.GaussianBlur(8)), Image.new("RGB", photo.size, (200, 200, 200)), 0.7)
    sharp_path, gone_path = degrade.save(photo, tmp_path / "sharp", 92), degrade.save(gone, tmp_path / "gone", 92)
    sharp, blurred = analyse_path(sharp_path), analyse_path(gone_path)
    frames = [BurstFrame("gone", blurred, overall=4.9), BurstFrame("sharp", sharp, overall=2.0)]
    assert choose_representative(frames) == "sharp"
    unmeasured = [{"name": "focus", "value": None, "verdict": "ok"}, {"name": "motion_blur", "value": None, "verdict": "ok"}]
    measured = [{"name": "focus", "value": 2.2, "verdict": "ok"}, {"name": "motion_blur", "value": 3.0, "verdict": "ok"}]
    assert stored_culling_rank(measured, []) > stored_culling_rank(unmeasured, [])


def test_among_rejected_frames_the_one_fewer_checks_reject_ranks_first() -> None:
    # held11 trial: a night frame wrongly called under-exposed lost its burst's cover to its own noisy
    # copy (noise and under-exposure both rejected), whose grain measured crisper
    dark = [{"name": "focus", "value": 2.6, "verdict": "ok"}, {"name": "underexposure", "value": 0.42, "verdict": "reject"}]
    noisy = [{"name": "focus", "value": 2.2, "verdict": "ok"}, {"name": "underexposure", "value": 0.42, "verdict": "reject"},
             {"name": "noise", "value": 27.0, "verdict": "reject"}]  # fmt: skip
    assert stored_culling_rank(dark, []) > stored_culling_rank(noisy, [])
