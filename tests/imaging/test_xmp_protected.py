"""Protected sidecars (read-only, in a read-only folder, owned by another user) are never replaced.

The tests set real permissions. The foreign-owner case gives the sidecar to another user with
os.chown, which only root may do; run as an ordinary user that one case is skipped (the read-only
cases still run, and the same check refuses both).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from aesthete_gui.imaging.xmp import SidecarWriteError, XmpMarks, read_sidecar, write_sidecar
from tests.imaging.test_xmp_hostile import rated

OTHER_UID, OTHER_GID = 54321, 54322


@pytest.fixture
def shoot(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "shoot"
    folder.mkdir()
    (folder / "IMG_1.jpg").write_bytes(b"image bytes")
    (folder / "IMG_1.xmp").write_text(rated("2"), encoding="utf-8")
    yield folder
    folder.chmod(0o755)  # let pytest clean up


def _snapshot(path: Path) -> tuple[int, int, int, int, bytes]:
    info = os.stat(path)
    return info.st_ino, info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode), path.read_bytes()


def _refused(shoot: Path, reason: str) -> None:
    sidecar = shoot / "IMG_1.xmp"
    before = _snapshot(sidecar)
    with pytest.raises(SidecarWriteError, match=reason) as raised:
        write_sidecar(shoot / "IMG_1.jpg", stars=5, flag="pick", label="Red")
    assert str(raised.value).startswith(f"sidecar not written: {sidecar}: ")
    assert _snapshot(sidecar) == before
    assert sorted(p.name for p in shoot.iterdir()) == ["IMG_1.jpg", "IMG_1.xmp"]
    assert read_sidecar(shoot / "IMG_1.jpg") == XmpMarks(stars=2)


def test_a_read_only_sidecar_is_not_replaced(shoot: Path) -> None:
    (shoot / "IMG_1.xmp").chmod(0o444)
    _refused(shoot, "read-only; left as it is")


def test_a_sidecar_in_a_read_only_folder_is_not_replaced(shoot: Path) -> None:
    shoot.chmod(0o555)
    _refused(shoot, "its folder is read-only")


def test_no_new_sidecar_in_a_read_only_folder(shoot: Path) -> None:
    (shoot / "IMG_2.jpg").write_bytes(b"image bytes")
    shoot.chmod(0o555)
    with pytest.raises(SidecarWriteError, match="its folder is read-only"):
        write_sidecar(shoot / "IMG_2.jpg", stars=1, flag=None, label=None)
    assert not (shoot / "IMG_2.xmp").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_sidecar_owned_by_another_user_is_not_replaced(shoot: Path) -> None:
    os.chown(shoot / "IMG_1.xmp", OTHER_UID, OTHER_GID)
    _refused(shoot, f"owned by another user \\(uid {OTHER_UID}\\)")


def test_a_written_sidecar_keeps_its_mode_and_group(shoot: Path) -> None:
    sidecar = shoot / "IMG_1.xmp"
    sidecar.chmod(0o640)
    groups = os.getgroups() or [os.getegid()]
    group = OTHER_GID if os.geteuid() == 0 else groups[-1]
    os.chown(sidecar, -1, group)
    write_sidecar(shoot / "IMG_1.jpg", stars=4, flag=None, label=None)
    info = os.stat(sidecar)
    assert (stat.S_IMODE(info.st_mode), info.st_gid, info.st_uid) == (0o640, group, os.geteuid())
    assert read_sidecar(shoot / "IMG_1.jpg") == XmpMarks(stars=4)


def test_a_new_sidecar_is_readable_like_the_photograph_not_private_to_us(shoot: Path) -> None:
    (shoot / "IMG_2.jpg").write_bytes(b"image bytes")
    target = write_sidecar(shoot / "IMG_2.jpg", stars=2, flag=None, label=None)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644  # other programs and users of a shared folder read it


def test_a_sidecar_that_is_a_symbolic_link_is_never_written_through(shoot: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.xmp"  # e.g. a file of another program, or one outside the shoot
    elsewhere.write_text(rated("2"), encoding="utf-8")
    before = _snapshot(elsewhere)
    sidecar = shoot / "IMG_1.xmp"
    sidecar.unlink()
    sidecar.symlink_to(elsewhere)
    write_sidecar(shoot / "IMG_1.jpg", stars=5, flag="pick", label="Red")
    assert _snapshot(elsewhere) == before  # the link's target is untouched
    assert not sidecar.is_symlink()  # the atomic rename put a sidecar of our own in its place
    assert read_sidecar(shoot / "IMG_1.jpg") == XmpMarks(stars=5, flag="pick", label="Red")
