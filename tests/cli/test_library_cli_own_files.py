"""An import never picks up the profile's own files, wherever the profile lives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from PIL import Image

from aesthete_gui.cli import main
from aesthete_gui.services.library_scan import own_files, scan_folder
from aesthete_gui.store import open_profile
from tests.services.library_images import photo, write_jpeg


def _count(profile: Path) -> int:
    opened = open_profile(profile)
    try:
        return opened.catalog.image_count()
    finally:
        opened.close()


def test_profile_inside_the_imported_folder_imports_only_the_photos(tmp_path: Path, capsys) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(5):
        write_jpeg(shoot / f"IMG_{n}.jpg", seed=n)
    profile = shoot / "wedding.db"
    counts = []
    for _ in range(3):
        assert main(["--profile", str(profile), "import", "--quiet", "--previews", str(shoot)]) == 0
        counts.append(_count(profile))
        # a later feature (a trained model, an export) may put image files in other profile folders
        (shoot / "wedding.db.models").mkdir(exist_ok=True)
        photo(1, (64, 48)).save(shoot / "wedding.db.models" / "card.png")
    assert counts == [5, 5, 5]
    assert len(list((shoot / "wedding.db.thumbs").rglob("*.jpg"))) >= 5
    assert "5 image files found" in capsys.readouterr().out.splitlines()[-1]


def test_another_profiles_thumbnails_in_the_shoot_are_not_imported(tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(3):
        write_jpeg(shoot / f"IMG_{n}.jpg", seed=n)
    assert main(["--profile", str(shoot / "wedding.db"), "import", "--quiet", str(shoot)]) == 0
    assert list((shoot / "wedding.db.thumbs").rglob("*.jpg"))  # the first profile's cache is there
    elsewhere = tmp_path / "second.db"  # a second profile, kept away from the shoot, imports it too
    assert main(["--profile", str(elsewhere), "import", "--quiet", str(shoot)]) == 0
    assert _count(elsewhere) == 3
    (shoot / "holiday.thumbs").mkdir()  # a folder that merely has a dot: no profile beside it
    photo(4, (64, 48)).save(shoot / "holiday.thumbs" / "beach.jpg")
    assert main(["--profile", str(elsewhere), "import", "--quiet", str(shoot)]) == 0
    assert _count(elsewhere) == 4


def test_own_folders_are_skipped_through_a_symlink_and_an_explicit_cache(tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    (shoot / "day1").mkdir(parents=True)
    write_jpeg(shoot / "day1" / "a.jpg", seed=1)
    cache = shoot / "cache here"
    cache.mkdir()
    photo(2, (64, 48)).save(cache / "thumb.jpg")
    (shoot / "p.db.thumbs").mkdir()
    photo(3, (64, 48)).save(shoot / "p.db.thumbs" / "t.jpg")
    for suffix in ("", "-wal", "-shm", "-journal"):  # image bytes under the database's names
        shutil.copy(shoot / "day1" / "a.jpg", shoot / f"p.db{suffix}")
    Image.open(shoot / "day1" / "a.jpg").save(shoot / "p.db.jpg")  # a photo that merely shares the prefix
    os.symlink(shoot, tmp_path / "link")
    own = own_files(tmp_path / "link" / "p.db", [cache])
    found = sorted(os.path.relpath(f.path, shoot) for f in scan_folder(shoot, own=own))
    assert found == ["day1/a.jpg", "p.db.jpg"]
    everything = sorted(os.path.relpath(f.path, shoot) for f in scan_folder(shoot))
    assert "cache here/thumb.jpg" in everything and "p.db.thumbs/t.jpg" in everything
