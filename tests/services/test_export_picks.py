"""Copying / moving picks with their sidecars: collisions, errors leave no partial file, cancel."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.cli import main
from aesthete_gui.imaging.xmp import read_sidecar, write_sidecar
from aesthete_gui.jobs import CancelToken
from aesthete_gui.services.export_picks import ExportPicksError, export_picks, picked_image_ids
from aesthete_gui.store import ImageUpdate, Profile, open_profile


@pytest.fixture
def library(tmp_path: Path) -> tuple[Profile, list[int], Path]:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    photo = Image.fromarray(skdata.chelsea())
    paths = []
    for n in range(3):
        path = shoot / f"IMG_{n}.jpg"
        photo.rotate(n * 5).save(path, quality=90)
        paths.append(path)
    write_sidecar(paths[0], 4, "pick", "Red")
    profile = open_profile(tmp_path / "p.db")
    ids = profile.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in paths])
    profile.set_mark(ids[0], flag="pick")
    profile.set_mark(ids[1], flag="pick")
    yield profile, ids, shoot
    profile.close()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".aesthete-copy-"))


def test_picks_travel_with_their_sidecars_and_names_that_are_taken_get_a_number(library, tmp_path: Path) -> None:
    profile, ids, shoot = library
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "IMG_0.jpg").write_bytes(b"someone else's file")
    picked = picked_image_ids(profile)
    assert picked == ids[:2]
    result = export_picks(profile, picked, dest)
    assert sorted(Path(t).name for _, t in result.copied) == ["IMG_0 (2).jpg", "IMG_1.jpg"]
    assert (dest / "IMG_0.jpg").read_bytes() == b"someone else's file"
    assert (dest / "IMG_0 (2).jpg").read_bytes() == (shoot / "IMG_0.jpg").read_bytes()
    marks = read_sidecar(dest / "IMG_0 (2).jpg")
    assert marks is not None and (marks.stars, marks.flag, marks.label) == (4, "pick", "Red")
    assert (shoot / "IMG_0.jpg").is_file() and _leftovers(dest) == []


def test_move_takes_the_sidecar_along_and_the_library_follows(library, tmp_path: Path) -> None:
    profile, ids, shoot = library
    result = export_picks(profile, [ids[0]], tmp_path / "moved", move=True)
    target = Path(result.copied[0][1])
    assert not (shoot / "IMG_0.jpg").exists() and not list(shoot.glob("IMG_0*.xmp"))
    assert read_sidecar(target) is not None
    assert profile.image_by_id(ids[0]).path == str(target)


def test_a_destination_that_cannot_take_the_files_fails_before_writing(
    library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile, ids, _ = library
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    with pytest.raises(ExportPicksError, match="cannot create the destination folder"):
        export_picks(profile, ids, blocker / "out")
    full = tmp_path / "full"
    full.mkdir()
    usage = shutil.disk_usage(full)
    monkeypatch.setattr(shutil, "disk_usage", lambda _p: usage._replace(free=1000))  # a full disk
    with pytest.raises(ExportPicksError, match="not enough space"):
        export_picks(profile, ids, full)
    assert list(full.iterdir()) == []


def test_a_failed_write_leaves_no_half_copied_file(library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile, ids, _ = library
    dest = tmp_path / "out"
    real_copy = shutil.copyfileobj
    calls = []

    def failing_copy(src, dst, length=0):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:  # the first image's sidecar: the disk fills up midway
            dst.write(b"partial")
            raise OSError(28, "No space left on device")
        return real_copy(src, dst, length)

    monkeypatch.setattr(shutil, "copyfileobj", failing_copy)
    with pytest.raises(ExportPicksError, match="No space left on device"):
        export_picks(profile, ids[:2], dest)
    assert list(dest.iterdir()) == []  # neither the sidecar's temp file nor its image stayed


def test_cancel_stops_between_files(library, tmp_path: Path) -> None:
    profile, ids, _ = library
    token = CancelToken()
    result = export_picks(profile, ids, tmp_path / "out", progress=lambda _p: token.cancel(), cancel=token)
    assert result.cancelled and len(result.copied) == 1
    assert _leftovers(tmp_path / "out") == []


def test_cli_copy_picks(library, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile, _, _ = library
    assert main(["--profile", str(profile.path), "copy-picks", str(tmp_path / "cli")]) == 0
    assert "2 images copied to" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == ["IMG_0.jpg", "IMG_0.xmp", "IMG_1.jpg"]
