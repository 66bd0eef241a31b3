"""Every hostile input of the corpus through the real CLI: a clear reason, no traceback, nothing lost.

Each case starts from a profile that already holds a good image with a mark; after the hostile
input, that image and its mark must still be there.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from tests.robustness.corpus import (
    ARGUMENT_CASES,
    IMAGE_CASES,
    PROFILE_CASES,
    PROFILE_FAULTS,
    SIDECAR_CASES,
    ArgumentCase,
    ImageCase,
    ProfileCase,
    ProfileFault,
    SidecarCase,
    jpeg_bytes,
    params,
    real_profile,
)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err


def _rows(capsys: pytest.CaptureFixture[str], profile: Path) -> dict[str, dict]:
    code, out, _ = _cli(capsys, "--profile", str(profile), "images", "--json")
    assert code == 0
    return {row["path"]: row for row in json.loads(out)}


@pytest.fixture
def marked_shoot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, Path]:
    """(profile, shoot folder, good image): the good image imported and marked with 4 stars."""
    profile, shoot = tmp_path / "p.db", tmp_path / "shoot"
    shoot.mkdir()
    good = shoot / "good.jpg"
    good.write_bytes(jpeg_bytes(99))
    assert _cli(capsys, "--profile", str(profile), "import", "--quiet", "--workers", "1", str(shoot))[0] == 0
    assert _cli(capsys, "--profile", str(profile), "mark", str(good), "--stars", "4")[0] == 0
    return profile, shoot, good


def _assert_good_image_kept(rows: dict[str, dict], good: Path) -> None:
    assert rows[str(good)]["status"] == "ok" and rows[str(good)]["stars"] == 4


@pytest.mark.parametrize("case", params(IMAGE_CASES))
def test_hostile_image_is_recorded_with_a_reason_and_nothing_is_lost(
    case: ImageCase, marked_shoot: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    profile, shoot, good = marked_shoot
    hostile = case.make(shoot)
    for _ in range(2):  # a second import changes nothing and adds nothing
        code, _, _ = _cli(capsys, "--profile", str(profile), "import", "--quiet", "--workers", "1", str(shoot))
        assert code == 0
        rows = _rows(capsys, profile)
        _assert_good_image_kept(rows, good)
        if case.outcome == "absent":
            assert list(rows) == [str(good)]
            continue
        assert len(rows) == 2
        row = rows[str(hostile)]
        assert row["status"] == case.outcome, row
        if case.outcome == "error":
            assert row["error"] and case.reason in row["error"].lower(), row
        else:
            assert row["error"] is None and row["width"] and row["height"]


def test_the_whole_image_corpus_in_one_import(tmp_path: Path, marked_shoot, capsys) -> None:
    profile, shoot, good = marked_shoot
    made = {case.name: (case, case.make(shoot)) for case in IMAGE_CASES}
    code, _, _ = _cli(capsys, "--profile", str(profile), "import", "--quiet", str(shoot))
    assert code == 0
    rows = _rows(capsys, profile)
    _assert_good_image_kept(rows, good)
    listed = {name: case for name, (case, _) in made.items() if case.outcome != "absent"}
    assert len(rows) == 1 + len(listed)
    for case, path in made.values():
        if case.outcome != "absent":
            assert rows[str(path)]["status"] == case.outcome, case.name


@pytest.mark.parametrize("case", params(SIDECAR_CASES))
def test_hostile_sidecar_never_stops_the_import(
    case: SidecarCase, marked_shoot: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    profile, shoot, good = marked_shoot
    photo = shoot / "photo.jpg"
    photo.write_bytes(jpeg_bytes(41))
    sidecar = case.make(shoot)
    before = sidecar.read_bytes()
    code, _, _ = _cli(capsys, "--profile", str(profile), "import", "--quiet", "--workers", "1", str(shoot))
    assert code == 0
    rows = _rows(capsys, profile)
    _assert_good_image_kept(rows, good)
    assert rows[str(photo)]["status"] == "ok"
    assert 0 <= rows[str(photo)]["stars"] <= 5
    assert sidecar.read_bytes() == before  # reading never rewrites a sidecar


@pytest.mark.parametrize("case", params(SIDECAR_CASES, marks="write_marks"))
def test_marking_beside_a_hostile_sidecar_keeps_the_mark_and_says_why(
    case: SidecarCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile, shoot = tmp_path / "p.db", tmp_path / "shoot"
    shoot.mkdir()
    photo = shoot / "photo.jpg"
    photo.write_bytes(jpeg_bytes(42))
    assert _cli(capsys, "--profile", str(profile), "import", "--quiet", "--workers", "1", str(shoot))[0] == 0
    sidecar = case.make(shoot)  # written after the import: only the writers meet it
    before = sidecar.read_bytes()
    code, _, err = _cli(capsys, "--profile", str(profile), "mark", str(photo), "--stars", "2", "--xmp")
    assert code in (0, 1), err
    if code == 1:  # the sidecar could not be merged: it is left as it was, and the user is told
        assert "sidecar not written" in err and sidecar.read_bytes() == before
    assert _rows(capsys, profile)[str(photo)]["stars"] == 2
    code, _, err = _cli(capsys, "--profile", str(profile), "export", "--format", "xmp")
    assert code in (0, 1), err
    assert _rows(capsys, profile)[str(photo)]["stars"] == 2


@pytest.mark.parametrize("case", params(PROFILE_CASES))
def test_hostile_profile_gives_one_line_exit_2_and_keeps_the_file(
    case: ProfileCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = case.make(tmp_path)
    before = path.read_bytes() if path.is_file() else None
    for command in (["images"], ["mark", "/photos/img_0001.jpg", "--stars", "2"], ["bursts"]):
        code, _, err = _cli(capsys, "--profile", str(path), *command)
        assert code == 2, (command, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"aesthete: error: profile {path}"), err
        assert case.reason in lines[0], lines[0]
    if before is not None:
        assert path.read_bytes() == before


@pytest.mark.parametrize("case", params(ARGUMENT_CASES))
def test_hostile_arguments_give_one_line_exit_2_and_change_nothing(
    case: ArgumentCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = real_profile(tmp_path / "p.db")
    code, _, err = _cli(capsys, "--profile", str(path), *case.argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aesthete: error: "), err
    assert case.reason in lines[0] and "\x1b" not in err
    assert _stored_stars(path) == {"/photos/img_0000.jpg": 4} and _stored_count(path) == 40


@pytest.mark.parametrize("fault", [pytest.param(f, id=f.name) for f in PROFILE_FAULTS])
def test_profile_under_a_file_system_fault_refuses_writes_in_one_line_and_keeps_everything(
    fault: ProfileFault, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fault.apply(tmp_path) as path:
        code, out, err = _cli(capsys, "--profile", str(path), "images")
        assert code == fault.reads, err
        if code == 0:
            assert "/photos/img_0039.jpg" in out
        code, _, err = _cli(capsys, "--profile", str(path), "mark", "/photos/img_0001.jpg", "--stars", "2")
        assert code == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("aesthete: error: profile "), err
        assert fault.reason in lines[0], lines[0]
        assert _stored_stars(path) == {"/photos/img_0000.jpg": 4} and _stored_count(path) == 40


def _immutable(path: Path) -> sqlite3.Connection:
    """A read of the file as it lies on disk: no lock, no journal files (works on a full or read-only disk)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)


def _stored_stars(path: Path) -> dict[str, int]:
    with closing(_immutable(path)) as conn:
        rows = conn.execute("SELECT i.path, m.stars FROM marks m JOIN images i ON i.id = m.image_id")
        return {row[0]: row[1] for row in rows if row[1]}


def _stored_count(path: Path) -> int:
    with closing(_immutable(path)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM images").fetchone()[0])
