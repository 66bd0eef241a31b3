"""`aesthete mark` writes sidecars by the same setting as the window (on by default, --no-xmp to
skip), marks several images at once, follows the RAW+JPEG rule, and runs clean up after killed runs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.imaging.xmp import XmpMarks, find_sidecar, read_sidecar
from aesthete_gui.settings import PAIRS_AS_ONE_KEY, XMP_ENABLED_KEY, profile_settings_path
from tests.imaging.conftest import write_dng
from tests.imaging.test_xmp_cas import a_pid_no_process_has, sidecar_text
from tests.services.library_images import write_jpeg


def _run(profile: Path, *args: str) -> int:
    return main(["--profile", str(profile), *args])


@pytest.fixture
def shoot(tmp_path: Path) -> Path:
    folder = tmp_path / "shoot"
    folder.mkdir()
    for n in range(3):
        write_jpeg(folder / f"IMG_{n}.jpg", seed=60 + n)
    write_dng(folder / "IMG_0009.dng")
    write_jpeg(folder / "IMG_0009.jpg", seed=69)
    (folder / "IMG_0009.xmp").write_text(sidecar_text(3, "the RAW's"), encoding="utf-8")
    assert _run(folder.parent / "p.db", "import", "--quiet", "--workers", "1", str(folder)) == 0
    return folder


def test_mark_writes_the_sidecar_by_default_and_not_with_no_xmp_or_the_setting_off(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    capsys.readouterr()
    assert _run(profile, "mark", str(shoot / "IMG_0.jpg"), "--stars", "4", "--json") == 0
    assert json.loads(capsys.readouterr().out) == {"id": 1, "path": str(shoot / "IMG_0.jpg"), "stars": 4, "flag": None, "label": None}
    assert read_sidecar(shoot / "IMG_0.jpg") == XmpMarks(stars=4)
    assert _run(profile, "mark", str(shoot / "IMG_1.jpg"), "--pick", "--no-xmp") == 0
    assert find_sidecar(shoot / "IMG_1.jpg") is None
    profile_settings_path(profile).write_text(json.dumps({XMP_ENABLED_KEY: False}))  # the window's menu item
    assert _run(profile, "mark", str(shoot / "IMG_2.jpg"), "--label", "red") == 0
    assert find_sidecar(shoot / "IMG_2.jpg") is None
    assert _run(profile, "mark", str(shoot / "IMG_2.jpg"), "--xmp") == 0  # asked for: rewritten from the profile
    assert read_sidecar(shoot / "IMG_2.jpg") == XmpMarks(stars=0, label="Red")


def test_several_images_in_one_command(tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    images = [str(shoot / f"IMG_{n}.jpg") for n in range(3)]
    assert _run(tmp_path / "p.db", "mark", *images, "--reject") == 0
    assert capsys.readouterr().out.splitlines() == [f"{path}: rejected" for path in images]
    assert _run(tmp_path / "p.db", "mark", *images, "--reject", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["flag"] for r in rows] == ["reject"] * 3
    assert all(read_sidecar(path).flag == "reject" for path in images)


def test_a_reject_on_the_jpeg_of_a_pair_leaves_the_raw_and_its_sidecar(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    raw_sidecar = (shoot / "IMG_0009.xmp").read_bytes()
    assert _run(profile, "mark", str(shoot / "IMG_0009.jpg"), "--reject") == 0
    assert _run(profile, "sync-xmp") == 0
    assert (shoot / "IMG_0009.xmp").read_bytes() == raw_sidecar
    assert read_sidecar(shoot / "IMG_0009.jpg") == XmpMarks(flag="reject")  # IMG_0009.jpg.xmp
    capsys.readouterr()
    assert _run(profile, "images", "--json") == 0
    flags = {Path(r["path"]).name: (r["stars"], r["flag"]) for r in json.loads(capsys.readouterr().out)}
    assert flags["IMG_0009.dng"] == (3, None) and flags["IMG_0009.jpg"] == (0, "reject")
    assert _run(profile, "mark", str(shoot / "IMG_0009.dng"), "--label", "blue", "--pairs-as-one") == 0
    assert read_sidecar(shoot / "IMG_0009.dng").label == read_sidecar(shoot / "IMG_0009.jpg").label == "Blue"
    profile_settings_path(profile).write_text(json.dumps({PAIRS_AS_ONE_KEY: True}))
    assert _run(profile, "mark", str(shoot / "IMG_0009.jpg"), "--stars", "5") == 0
    assert read_sidecar(shoot / "IMG_0009.dng").stars == 5


def test_the_help_names_the_settings_the_window_shares(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["mark", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--no-xmp" in text and "'xmp_enabled'" in text and "'raw_jpeg_pairs_as_one'" in text
    assert "Treat RAW+JPEG pairs as one" in text


def test_leftovers_of_a_killed_export_are_removed_by_the_next_run(tmp_path: Path, shoot: Path) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "mark", str(shoot / "IMG_0.jpg"), "--stars", "2") == 0
    dead = shoot / f".aesthete-{a_pid_no_process_has()}-deadbeef.xmp.tmp"  # its writer was killed
    dead.write_text("half a sidecar")
    os.utime(dead, (time.time() - 60, time.time() - 60))
    live = shoot / f".aesthete-{os.getpid()}-running1.xmp.tmp"  # a writer still running: left alone
    live.write_text("being written")
    os.utime(live, (time.time() - 60, time.time() - 60))
    assert _run(profile, "export", "--format", "xmp") == 0
    assert not dead.exists() and live.exists()


@pytest.mark.parametrize("hand_written", ["false", "No", "off", "0", 0])
def test_the_setting_written_by_hand_as_a_word_is_honoured(tmp_path: Path, shoot: Path, hand_written: object) -> None:
    # {"xmp_enabled": "false"} counted as yes (a non-empty string) and sidecars were still written
    from aesthete_gui.settings import as_flag

    profile = tmp_path / "p.db"
    profile_settings_path(profile).write_text(json.dumps({XMP_ENABLED_KEY: hand_written}))
    assert _run(profile, "mark", str(shoot / "IMG_0.jpg"), "--stars", "2") == 0
    assert find_sidecar(shoot / "IMG_0.jpg") is None
    assert as_flag("yes", False) and as_flag(None, True) and not as_flag("maybe", False)
