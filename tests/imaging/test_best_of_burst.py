"""The best frame of a burst: eyes open, subject in focus, no clipping, then the highest score."""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging.best_frame import BurstFrame, choose_representative
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
        "clipped": degrade.exposure(img, 2.5),
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
    # Grace Hopper's portrait clips on 3 % of the frame (a warning); a slightly blurred, shifted copy
    # clips less and scored higher overall, but it is soft: the sharp frame is the keeper.
    import matplotlib

    with Image.open(Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg") as opened:
        img = opened.convert("RGB")
    shifted = img.crop((6, 4, img.width, img.height)).resize(img.size, Image.Resampling.BICUBIC)
    sharp = analyse_path(degrade.save(img, tmp_path / "sharp"))
    soft = analyse_path(degrade.save(degrade.gaussian_blur(shifted, 2.0), tmp_path / "soft"))
    assert {c.name: c.verdict for c in soft.checks}["focus"] == "warn"
    frames = [BurstFrame("sharp", sharp, overall=3.0), BurstFrame("soft", soft, overall=4.5)]
    assert choose_representative(frames) == "sharp"
