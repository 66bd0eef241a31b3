"""The trial shoot builder: a camera-card folder of held photographs, with its truth."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import trial_shoot
from corpus import CorpusPhoto

from aesthete_gui.imaging.raw import read_raw


def _photos(folder: Path, count: int = 8) -> list[CorpusPhoto]:
    """Small textured photographs standing in for held corpus photographs (said to be 2,400 px)."""
    rng = np.random.default_rng(3)
    scenes = [("animal",), ("sky", "landscape"), ("people",), ("snow",), ("texture",), ("sky",), ("macro",), ("city",)]
    photos = []
    for n in range(count):
        base = rng.integers(40, 215, size=(1, 1, 3))
        pixels = np.clip(base + rng.normal(0, 30, size=(160, 240, 3)), 0, 255).astype(np.uint8)
        path = folder / f"p{n}.png"
        Image.fromarray(pixels).save(path)
        photos.append(CorpusPhoto(id=f"p{n}", source="deb", package="x", version="1", path="p", sha256="0" * 64,
                                  width=2400, height=1600, licence="l", scene=scenes[n % len(scenes)], label="clean",
                                  why="", split="held", file=path))  # fmt: skip
    flawed = folder / "flawed.png"
    Image.new("RGB", (120, 80), (90, 90, 90)).save(flawed)
    photos.append(CorpusPhoto(id="flawed", source="deb", package="x", version="1", path="p", sha256="0" * 64, width=120,
                              height=80, licence="l", scene=("still-life",), label="reject", why="out of focus",
                              split="held", file=flawed))  # fmt: skip
    return photos


def _when(path: Path) -> datetime:
    ifd = Image.open(path).getexif().get_ifd(0x8769)
    return datetime.strptime(ifd[0x9003], "%Y:%m:%d %H:%M:%S").replace(microsecond=int(ifd[0x9291]) * 10000)


def test_the_shoot_has_bursts_a_bracket_noisy_frames_copies_a_raw_pair_and_broken_files(tmp_path: Path) -> None:
    photos = _photos(tmp_path)
    out = tmp_path / "shoot"
    frames = trial_shoot.build_shoot(photos, out, seed=1, long_side=(200, 260))
    files = {f["file"] for f in frames}
    assert files == {p.name for p in out.iterdir()}
    assert {str(f.get("source")) for f in frames if f.get("source")} <= {p.id for p in photos}
    kinds = {f["kind"] for f in frames}
    assert {"original", "burst frame", "burst frame, blurred", "exposure bracket", "high-ISO noise", "under-exposed",
            "over-exposed", "camera shake", "missed focus", "resized or recompressed copy", "flawed as shipped",
            "RAW of a RAW+JPEG pair", "JPEG of a RAW+JPEG pair", "truncated file", "video stub"} <= kinds  # fmt: skip
    assert all(str(f["file"]).startswith("IMG_") for f in frames)

    burst = sorted((f for f in frames if f.get("burst") == next(f["burst"] for f in frames if f.get("burst"))), key=lambda f: f["file"])
    assert len(burst) >= 4
    times = [_when(out / str(f["file"])) for f in burst]
    assert times == sorted(times) and (times[-1] - times[0]).total_seconds() < 2

    bracket = [f for f in frames if f["kind"] == "exposure bracket"]
    biases = [Image.open(out / str(f["file"])).getexif().get_ifd(0x8769)[0x9204] for f in bracket]
    assert biases == [-2.0, 0.0, 2.0]
    assert [(_when(out / str(f["file"])) - _when(out / str(bracket[0]["file"]))).total_seconds() for f in bracket] == [0, 1, 2]

    noisy = next(f for f in frames if f["kind"] == "high-ISO noise")
    assert Image.open(out / str(noisy["file"])).getexif().get_ifd(0x8769)[0x8827] == trial_shoot.NOISE_ISO
    assert (out / str(noisy["of"])).is_file()

    dng = next(f for f in frames if f["kind"] == "RAW of a RAW+JPEG pair")
    assert Path(str(dng["file"])).stem == Path(str(dng["pair"])).stem
    assert read_raw((out / str(dng["file"])).read_bytes(), 512).image is not None

    truncated = next(f for f in frames if f["kind"] == "truncated file")
    with pytest.raises(OSError):
        Image.open(out / str(truncated["file"])).load()


def test_the_shoot_refuses_tune_photographs_and_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    photos = _photos(tmp_path, count=3)
    with pytest.raises(ValueError, match="held"):
        trial_shoot.build_shoot([*photos, CorpusPhoto(**{**photos[0].__dict__, "id": "t", "split": "tune"})], tmp_path / "a")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "IMG_0001.JPG").write_bytes(b"mine")
    with pytest.raises(FileExistsError, match="not empty"):
        trial_shoot.build_shoot(photos, busy)
    assert (busy / "IMG_0001.JPG").read_bytes() == b"mine"


def test_smear_and_defocus_blur_a_sharp_edge() -> None:
    edge = np.zeros((40, 40, 3), np.uint8)
    edge[:, 20:] = 255
    img = Image.fromarray(edge)
    for blurred in (trial_shoot.smear(img, 9, 0.0), trial_shoot.defocus(img, 8.0)):
        row = np.asarray(blurred)[20, :, 0]
        assert 0 < row[18] < 255 and 0 < row[21] < 255 and row[0] == 0 and row[-1] == 255


def test_the_frames_of_a_burst_are_one_size_as_a_cameras_are(tmp_path: Path) -> None:
    frames = trial_shoot.build_shoot(_photos(tmp_path), tmp_path / "card", seed=2, long_side=(200, 260))
    bursts: dict[str, set[tuple[int, int]]] = {}
    for frame in frames:
        if frame.get("burst"):
            bursts.setdefault(str(frame["burst"]), set()).add(tuple(frame["size"]))
    assert bursts and all(len(sizes) == 1 for sizes in bursts.values())
