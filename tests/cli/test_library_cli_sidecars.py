"""Hostile and protected sidecars through the CLI: the import goes on, nothing is clobbered, the user is told."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from tests.imaging.test_xmp_hostile import nested, rated
from tests.services.library_images import write_jpeg


def _run(profile: Path, *args: str) -> int:
    return main(["--profile", str(profile), *args])


@pytest.fixture
def shoot(tmp_path: Path) -> Path:
    folder = tmp_path / "shoot"
    folder.mkdir()
    for n in range(6):
        write_jpeg(folder / f"IMG_{n}.jpg", seed=n)
    (folder / "IMG_0.xmp").write_text(rated("1e400"), encoding="utf-8")
    (folder / "IMG_1.xmp").write_text(nested(1000), encoding="utf-8")
    (folder / "IMG_2.xmp").write_text(rated("4"), encoding="utf-8")
    return folder


@pytest.mark.parametrize("workers", ["1", "2"])
def test_import_goes_on_past_hostile_sidecars_every_time(
    tmp_path: Path, shoot: Path, workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    for _attempt in range(2):
        for name in ("IMG_0.jpg", "IMG_1.jpg"):  # changed files are read again, with their sidecars
            (shoot / name).touch()
        assert _run(profile, "import", "--quiet", "--workers", workers, str(shoot)) == 0
        out = capsys.readouterr().out
        assert "6 image files found" in out and "0 could not be read" in out
        assert "IMG_0.jpg: imported; sidecar value unreadable" in out and "xmp:Rating is not a number" in out
    opened = open_profile(profile)
    try:
        assert opened.catalog.image_count() == 6 and all(i.status == "ok" for i in opened.catalog.images())
        assert [r.status for r in opened.runs.all("import")] == ["done", "done"]
        assert opened.marks.get(opened.catalog.image_by_path(str(shoot / "IMG_2.jpg")).id).stars == 4
        notes = opened.catalog.image_by_path(str(shoot / "IMG_1.jpg")).exif["notes"]
        assert any("nested more than" in note for note in notes)
    finally:
        opened.close()


def test_mark_and_export_never_rewrite_an_unreadable_sidecar(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--workers", "1", str(shoot)) == 0
    before = {name: (shoot / name).read_bytes() for name in ("IMG_0.xmp", "IMG_1.xmp")}
    capsys.readouterr()
    assert _run(profile, "mark", str(shoot / "IMG_1.jpg"), "--stars", "3", "--xmp") == 1
    err = capsys.readouterr().err
    assert f"mark saved in the profile; sidecar not written: {shoot / 'IMG_1.xmp'}: unreadable" in err
    assert "Traceback" not in err
    assert _run(profile, "mark", str(shoot / "IMG_0.jpg"), "--pick") == 0  # a pick leaves the rating alone
    assert _run(profile, "export", "--format", "xmp") == 0
    captured = capsys.readouterr()
    assert "2 sidecars written" in captured.out  # IMG_0 (its pick) and IMG_2
    assert "IMG_0.jpg: sidecar value unreadable, left as it is: xmp:Rating" in captured.err
    assert "IMG_1.xmp: unreadable" in captured.err
    assert (shoot / "IMG_1.xmp").read_bytes() == before["IMG_1.xmp"]
    assert b'xmp:Rating="1e400"' in (shoot / "IMG_0.xmp").read_bytes()  # the unreadable value stays
    opened = open_profile(profile)
    try:
        assert opened.marks.get(opened.catalog.image_by_path(str(shoot / "IMG_1.jpg")).id).stars == 3
    finally:
        opened.close()
    listing = json.loads(_images_json(profile, capsys))
    assert len(listing) == 6


def _images_json(profile: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert _run(profile, "images", "--json") == 0
    return capsys.readouterr().out


def test_a_read_only_sidecar_keeps_the_mark_in_the_profile_and_the_user_is_told(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--workers", "1", str(shoot)) == 0
    sidecar = shoot / "IMG_2.xmp"
    sidecar.chmod(0o444)
    before = (os.stat(sidecar).st_ino, sidecar.read_bytes())
    capsys.readouterr()
    assert _run(profile, "mark", str(shoot / "IMG_2.jpg"), "--stars", "1", "--xmp") == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"aesthete: mark saved in the profile; sidecar not written: {sidecar}: "
                           "read-only; left as it is")  # fmt: skip
    assert _run(profile, "export", "--format", "xmp") == 0
    assert f"sidecar not written: {sidecar}: read-only" in capsys.readouterr().err
    assert (os.stat(sidecar).st_ino, sidecar.read_bytes()) == before
    opened = open_profile(profile)
    try:
        assert opened.marks.get(opened.catalog.image_by_path(str(shoot / "IMG_2.jpg")).id).stars == 1
    finally:
        opened.close()


def test_sync_xmp_names_sidecars_behind_the_profile_and_brings_them_up_to_date(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--workers", "1", str(shoot)) == 0
    image = str(shoot / "IMG_2.jpg")
    assert _run(profile, "mark", image, "--stars", "1", "--no-xmp") == 0  # as when the sidecar write fails
    sidecar = shoot / "IMG_2.xmp"
    sidecar.write_text(sidecar.read_text(encoding="utf-8").replace("<rdf:Description ", "<rdf:Description xmlns:x2='urn:other' ", 1),
                       encoding="utf-8")  # another program's edit, its rating left at 4  # fmt: skip
    capsys.readouterr()
    assert _run(profile, "sync-xmp") == 0
    out = capsys.readouterr().out
    assert "0 marks taken from sidecars, 0 conflicts" in out
    assert "1 sidecars behind this profile's marks" in out and "`aesthete sync-xmp --write-back` brings them up to date" in out
    assert _run(profile, "sync-xmp", "--write-back") == 0
    assert "1 sidecars behind this profile's marks (a write that failed, or marks made with sidecars off): 1 written" in capsys.readouterr().out
    assert 'xmp:Rating="1"' in sidecar.read_text(encoding="utf-8") or "<xmp:Rating>1<" in sidecar.read_text(encoding="utf-8")
    opened = open_profile(profile)
    try:
        assert opened.marks.get(opened.catalog.image_by_path(image).id).stars == 1
    finally:
        opened.close()
