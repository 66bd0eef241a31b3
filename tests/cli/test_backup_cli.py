"""`aesthete backup`: a whole copy of a profile in use; a `cp` of the main file alone is named as such."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from aesthete_gui.store.errors import NoProfileError
from tests.services.library_images import write_jpeg


def _marked_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    card = tmp_path / "card"
    card.mkdir()
    for n in range(3):
        write_jpeg(card / f"IMG_{n}.jpg", seed=n)
    profile = tmp_path / "me.db"
    assert main(["--profile", str(profile), "import", "--quiet", "--workers", "1", str(card)]) == 0
    assert main(["--profile", str(profile), "mark", str(card / "IMG_1.jpg"), "--pick", "--stars", "4"]) == 0
    capsys.readouterr()
    return profile


def test_a_backup_made_while_the_profile_is_open_holds_every_mark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = _marked_profile(tmp_path, capsys)
    window = open_profile(profile_path)  # another user of the profile, as the window is
    try:
        image = window.catalog.image_by_path(str(tmp_path / "card" / "IMG_2.jpg"))
        window.marks.set(image.id, stars=2)  # a change that may sit in the -wal
        assert main(["--profile", str(profile_path), "backup", str(tmp_path / "copy.db")]) == 0
        assert "copied the profile (3 images" in capsys.readouterr().out
    finally:
        window.close()
    alone = tmp_path / "elsewhere"
    alone.mkdir()
    shutil.move(tmp_path / "copy.db", alone / "copy.db")
    assert sorted(p.name for p in alone.iterdir()) == ["copy.db"]  # whole without a -wal
    copy = open_profile(alone / "copy.db", create=False)
    try:
        assert copy.integrity_check() == "ok"
        names = {i.id: Path(i.path).name for i in copy.catalog.images()}
        stars = {names[i]: m.stars for i, m in copy.marks.all().items()}
        assert stars == {"IMG_1.jpg": 4, "IMG_2.jpg": 2}
        assert {m.flag for m in copy.marks.all().values()} == {"pick", None}
    finally:
        copy.close()


def test_a_backup_never_replaces_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = _marked_profile(tmp_path, capsys)
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"someone else's file")
    assert main(["--profile", str(profile_path), "backup", str(taken)]) == 2
    assert "is already there" in capsys.readouterr().err
    assert taken.read_bytes() == b"someone else's file"
    assert main(["--profile", str(profile_path), "backup", str(tmp_path / "no-such-folder" / "c.db")]) == 2
    assert "no folder" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_copy_of_the_main_file_without_its_wal_is_named_as_such(tmp_path: Path) -> None:
    copied = tmp_path / "c.db"
    conn = sqlite3.connect(copied)  # what `cp` copies while every table still lives in the -wal
    conn.execute("CREATE TABLE t (x)")
    conn.execute("DROP TABLE t")
    conn.close()
    with pytest.raises(NoProfileError) as caught:
        open_profile(copied, create=False)
    assert "holds no profile table" in str(caught.value) and "aesthete --profile ORIGINAL backup COPY" in str(caught.value)
    with pytest.raises(NoProfileError) as nothing:
        open_profile(tmp_path / "typo.db", create=False)
    assert "nothing was ever imported" in str(nothing.value)


def test_a_backup_refuses_the_profiles_own_files_and_names_the_copy_when_it_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a second attack: `backup P.db-journal` succeeded and every later command then failed; a copy into a
    # read-only folder was reported as "profile p.db: cannot be written"
    from tests.robustness.fs_faults import read_only_folder

    profile_path = _marked_profile(tmp_path, capsys)
    for companion in ("-journal", "-wal", "-shm", ".settings.json"):
        target = tmp_path / f"{profile_path.name}{companion}"
        existed = target.exists()
        assert main(["--profile", str(profile_path), "backup", str(target)]) == 2
        capsys.readouterr()
        assert target.exists() == existed
    assert main(["--profile", str(profile_path), "images"]) == 0
    capsys.readouterr()
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    with read_only_folder(shelf) as view:
        assert main(["--profile", str(profile_path), "backup", str(view / "copy.db")]) == 2
        err = capsys.readouterr().err
        assert "copy.db" in err and "the profile is unchanged" in err and f"profile {profile_path}" not in err
    assert not list(shelf.iterdir())


def test_a_killed_backup_leaves_nothing_the_next_one_keeps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = _marked_profile(tmp_path, capsys)
    dead = 2**22 + 12345  # no process has this id here
    for leftover in (f".copy.db.{dead}.part", f".copy.db.{dead}.part-journal"):
        (tmp_path / leftover).write_bytes(b"half a copy")
    (tmp_path / f".copy.db.{os.getpid()}9.partial").write_bytes(b"not ours")  # another name: kept
    assert main(["--profile", str(profile_path), "backup", str(tmp_path / "copy.db")]) == 0
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".copy.db."))
    assert left == [f".copy.db.{os.getpid()}9.partial"]


def test_a_backup_name_check_ignores_case_and_a_killed_copys_wal_is_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = _marked_profile(tmp_path, capsys)
    assert main(["--profile", str(profile_path), "backup", str(tmp_path / f"{profile_path.name}-JOURNAL")]) == 2
    capsys.readouterr()
    dead = 2**22 + 54321
    for tail in ("-wal", "-shm"):
        (tmp_path / f".copy.db.{dead}.part{tail}").write_bytes(b"left by a kill")
    assert main(["--profile", str(profile_path), "backup", str(tmp_path / "copy.db")]) == 0
    assert not [p for p in tmp_path.iterdir() if ".part" in p.name]
