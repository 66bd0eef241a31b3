"""The CLI's top-level error handling: one line and exit 2 for what the user can fix, tracebacks for bugs."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from aesthete_gui.cli import EXIT_BROKEN_PIPE, UserError, main
from aesthete_gui.errors import AestheteError
from aesthete_gui.store import ImageUpdate, open_profile
from tests.imaging.conftest import photo
from tests.robustness.fs_faults import read_only_file, read_only_folder, small_disk

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]


def _profile_with_images(path: Path, count: int) -> Path:
    profile = open_profile(path)
    profile.catalog.write_images([
        ImageUpdate(path=f"/photos/img_{n:05d}.jpg", folder_id=None, status="ok", size=10,
                    mtime_ns=5, content_hash=f"hash-{n}")
        for n in range(count)
    ])  # fmt: skip
    profile.close()
    return path


def _assert_one_clear_line(code: int, err: str, *needles: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aesthete: error: profile "), err
    for needle in needles:
        assert needle in lines[0]


def _images(profile: Path, *extra: str) -> int:
    return main(["--profile", str(profile), *extra, "images"])


def test_user_error_is_an_aesthete_error() -> None:
    assert issubclass(UserError, AestheteError)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"just some text\n" * 50, "not an Aesthete profile"),
        (b"SQLite format 3\x00" + b"\x10\x00" + b"\x00" * 30, "damaged"),  # an SQLite file cut inside its header
    ],
    ids=["not-sqlite", "header-only"],
)
def test_a_bad_profile_file_gives_one_line_and_exit_2(tmp_path, capsys, content, needle) -> None:
    path = tmp_path / "p.db"
    path.write_bytes(content)
    _assert_one_clear_line(_images(path), capsys.readouterr().err, needle, str(path))
    assert path.read_bytes() == content


def test_a_truncated_profile_gives_one_line_and_exit_2(tmp_path, capsys) -> None:
    path = _profile_with_images(tmp_path / "p.db", 50)
    cut = path.read_bytes()[: 3 * 4096]
    path.write_bytes(cut)
    _assert_one_clear_line(_images(path), capsys.readouterr().err, "damaged", ".recover")


def test_a_folder_as_profile_gives_one_line_and_exit_2(tmp_path, capsys) -> None:
    (tmp_path / "p.db").mkdir()
    _assert_one_clear_line(_images(tmp_path / "p.db"), capsys.readouterr().err, "is a folder")


def test_a_read_only_profile_lists_but_refuses_a_mark_with_one_line(tmp_path, capsys) -> None:
    path = _profile_with_images(tmp_path / "p.db", 3)
    with read_only_file(path):
        assert _images(path) == 0
        assert "/photos/img_00002.jpg" in capsys.readouterr().out
        code = main(["--profile", str(path), "mark", "/photos/img_00001.jpg", "--stars", "4"])
        _assert_one_clear_line(code, capsys.readouterr().err, "not writable")
    reopened = open_profile(path)
    assert reopened.catalog.image_count() == 3 and reopened.marks.all() == {}
    reopened.close()


def test_a_profile_in_a_read_only_folder_gives_one_line_and_exit_2(tmp_path, capsys) -> None:
    folder = tmp_path / "profiles"
    folder.mkdir()
    _profile_with_images(folder / "p.db", 3)
    photos = tmp_path / "photos"
    photos.mkdir()
    with read_only_folder(folder) as view:
        _assert_one_clear_line(_images(view / "p.db"), capsys.readouterr().err, "read-only")
        code = main(["--profile", str(view / "new.db"), "import", str(photos), "--quiet"])
        _assert_one_clear_line(code, capsys.readouterr().err, "read-only")


@pytest.mark.parametrize("command", [
    ["images"], ["rank-images"], ["export", "--format", "csv", "--output", "OUT"], ["bursts"], ["recheck"], ["scorers"],
    ["sync-xmp"], ["taste", "list"], ["copy-picks", "OUT"], ["mark", "--stars", "3", "1"], ["score-profile"],
    ["distill-vlm", "--model", "no-model", "--output", "OUT"],
])  # fmt: skip
def test_a_command_refuses_a_profile_that_is_not_there(tmp_path, capsys, command) -> None:
    # a mistyped --profile used to become a new, empty profile (its folders made too), and the command
    # answered as if the library were empty; an empty file (SQLite takes it as a new database) the same.
    # Only import, ingest and judge --save start a profile at a new path.
    missing, empty, blank = tmp_path / "no-folder" / "mistyped.db", tmp_path / "empty.db", tmp_path / "blank.db"
    empty.write_bytes(b"")
    conn = sqlite3.connect(blank)  # an SQLite file without a table: a profile copied without its -wal
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("VACUUM")
    conn.close()
    blank_bytes = blank.read_bytes()
    assert len(blank_bytes) == 4096
    for path in (missing, empty, blank):
        args = [str(tmp_path / "out.csv") if word == "OUT" else word for word in command]
        assert main(["--profile", str(path), *args]) == 2
        err = capsys.readouterr().err
        assert f"profile {path}: there is no profile here" in err and "Traceback" not in err
        assert ("backup COPY" in err) == (path == blank)  # a file copied without its -wal is named as such
    assert not missing.parent.exists() and empty.stat().st_size == 0 and not (tmp_path / "out.csv").exists()
    assert blank.read_bytes() == blank_bytes


@pytest.mark.parametrize("command", [["images"], ["import", "--quiet", "PHOTOS"], ["mark", "--stars", "3", "1"]])
def test_an_empty_profile_path_is_refused_not_taken_for_the_default(tmp_path, capsys, monkeypatch, command) -> None:
    # `aesthete --profile "$P" mark …` with P unset used to write into the default profile
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("AESTHETE_PROFILE", raising=False)
    (tmp_path / "photos").mkdir()
    for empty in ("", "  "):
        args = [str(tmp_path / "photos") if word == "PHOTOS" else word for word in command]
        assert main(["--profile", empty, *args]) == 2
        err = capsys.readouterr().err
        assert "--profile is empty" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("value", ["", "   ", "p.db ", "p.db\n", " p.db"])
def test_an_empty_aesthete_profile_variable_is_refused_too(tmp_path, capsys, monkeypatch, value) -> None:
    # attack on 97c91d7: AESTHETE_PROFILE="" used the default profile, and "   " made a profile file
    # named by three spaces in the current folder; second attack: "p.db " made a new, empty profile
    # beside the real one
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("AESTHETE_PROFILE", value)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "photos").mkdir()
    assert main(["import", "--quiet", str(tmp_path / "photos")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aesthete: error: ") and len(err.strip().splitlines()) == 1
    assert ("$AESTHETE_PROFILE is empty" in err) if not value.strip() else ("holds a control character" in err) if "\n" in value else ("begins or ends with a space" in err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos"]


@pytest.mark.parametrize("name", ["عکس\u200cها/lib.db", "nb\u00a0sp/lib.db", "Fotos/Überblick.db", "my photos /lib.db"])
def test_ordinary_names_in_any_script_still_open(tmp_path, capsys, monkeypatch, name) -> None:
    # third attack: the check refused every character Python calls unprintable, so a Persian folder
    # (its zero-width non-joiner), a no-break space inside a name or an emoji joiner locked users out
    monkeypatch.chdir(tmp_path)
    (tmp_path / "photos").mkdir()
    assert main(["--profile", name, "import", "--quiet", str(tmp_path / "photos")]) == 0
    assert main(["--profile", name, "images"]) == 0 and (tmp_path / name).is_file()
    capsys.readouterr()


def test_the_command_line_runs_as_a_module() -> None:
    # a trial typed `python -m aesthete_gui.cli` ("is a package and cannot be directly executed")
    done = subprocess.run([sys.executable, "-m", "aesthete_gui.cli", "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("aesthete ")


def test_the_profile_may_follow_the_command(tmp_path, capsys, monkeypatch) -> None:
    # a trial typed `aesthete images --profile P` and got "unrecognized arguments"
    monkeypatch.delenv("AESTHETE_PROFILE", raising=False)
    photos = tmp_path / "photos"
    photos.mkdir()
    photo((64, 48)).save(photos / "a.jpg", "JPEG")
    profile = tmp_path / "p.db"
    assert main(["import", "--quiet", "--workers", "1", str(photos), "--profile", str(profile)]) == 0
    capsys.readouterr()
    assert main(["images", "--json", "--profile", str(profile)]) == 0
    assert [Path(row["path"]).name for row in json.loads(capsys.readouterr().out)] == ["a.jpg"]
    assert main(["--profile", str(tmp_path / "other.db"), "images", "--profile", str(profile)]) == 0  # the later one
    assert "a.jpg" in capsys.readouterr().out and not (tmp_path / "other.db").exists()


def test_a_first_import_of_a_folder_that_is_not_there_makes_no_profile(tmp_path, capsys) -> None:
    profile = tmp_path / "new" / "p.db"
    assert main(["--profile", str(profile), "import", str(tmp_path / "no-such-card"), "--quiet"]) == 2
    assert "not a folder" in capsys.readouterr().err and not profile.parent.exists()


def test_a_full_disk_during_a_mark_gives_one_line_and_keeps_the_profile(tmp_path, capsys) -> None:
    """A real ENOSPC: the profile on a tmpfs that the test fills up (root only)."""
    with small_disk(tmp_path / "disk", 600) as disk:
        path = _profile_with_images(disk / "p.db", 20)
        filler = disk / "filler"
        with filler.open("wb", buffering=0) as handle, pytest.raises(OSError):  # unbuffered: nothing left to flush at close
            while True:
                handle.write(b"\x00" * 65536)
                handle.flush()
        codes = [
            main(["--profile", str(path), "mark", f"/photos/img_{n:05d}.jpg", "--stars", "3"])
            for n in range(20)
        ]
        err = capsys.readouterr().err
        assert 2 in codes and "Traceback" not in err
        assert "the disk holding it is full" in err
        stored = sum(1 for code in codes if code == 0)
        filler.unlink()
        reopened = open_profile(path)
        assert reopened.catalog.image_count() == 20 and len(reopened.marks.all()) == stored
        assert reopened.integrity_check() == "ok"
        reopened.close()


def test_a_batch_mark_cut_short_by_a_full_disk_says_which_marks_were_made(tmp_path, capsys) -> None:
    """An attack: a batch `mark` on a profile whose disk filled part way said only "The change that
    failed was not made", while 9 of its 12 marks had been made."""
    with small_disk(tmp_path / "disk", 600) as disk:
        path = _profile_with_images(disk / "p.db", 40)
        filler = disk / "filler"
        with filler.open("wb", buffering=0) as handle, pytest.raises(OSError):
            while True:
                handle.write(b"\x00" * 4096)
        os.truncate(filler, max(0, filler.stat().st_size - 200 * 1024))  # room for a few marks only
        code = main(["--profile", str(path), "mark", *(f"/photos/img_{n:05d}.jpg" for n in range(40)), "--stars", "4"])
        out, err = capsys.readouterr()
        filler.unlink()
        reopened = open_profile(path)
        made = len(reopened.marks.all())
        reopened.close()
    assert code == 2 and "the disk holding it is full" in err and "Traceback" not in err
    assert 0 < made < 40, made  # the disk filled part way, as in the attack
    assert f"aesthete: {made} of 40 images marked (listed above) before the profile could take no more" in err
    assert len(out.splitlines()) == made and all(line.endswith("★★★★") for line in out.splitlines())


def test_debug_adds_the_traceback(tmp_path, capsys) -> None:
    (tmp_path / "p.db").mkdir()
    assert _images(tmp_path / "p.db", "--debug") == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "ProfileIsFolderError" in err
    assert err.strip().splitlines()[-1].startswith("aesthete: error: profile ")


def test_control_characters_in_a_message_are_escaped(tmp_path, capsys) -> None:
    folder = tmp_path / "evil\x1b[2J\nname.db"
    folder.mkdir()
    assert _images(folder) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and err.count("\n") == 1
    assert "evil\\x1b[2J\\nname.db" in err


def test_a_bug_keeps_its_traceback(tmp_path, monkeypatch) -> None:
    def broken(path, **_options):
        raise sqlite3.ProgrammingError("a misuse of the API is a bug")

    path = _profile_with_images(tmp_path / "p.db", 1)
    monkeypatch.setattr("aesthete_gui.store.open_profile", broken)
    with pytest.raises(sqlite3.ProgrammingError):
        _images(path)


def test_a_closed_pipe_ends_quietly(tmp_path) -> None:
    path = _profile_with_images(tmp_path / "p.db", 5000)
    reader = subprocess.Popen(["head", "-n", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    writer = subprocess.run(
        [*CLI, "--profile", str(path), "images"], stdout=reader.stdin, stderr=subprocess.PIPE,
        cwd=REPO, check=False, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert reader.stdin is not None and reader.stdout is not None
    reader.stdin.close()
    first = reader.stdout.read()
    reader.wait()
    assert b"/photos/img_00000.jpg" in first
    assert writer.stderr.decode() == ""
    assert writer.returncode == EXIT_BROKEN_PIPE


def test_known_errors_are_told_apart_from_bugs(tmp_path: Path) -> None:
    from aesthete_gui.cli import known_error
    from aesthete_gui.store import ProfileDiskFullError

    denied = known_error(PermissionError(13, "Permission denied", "/data/out.csv"), None)
    assert isinstance(denied, AestheteError) and str(denied) == "Permission denied: /data/out.csv"
    full = known_error(sqlite3.OperationalError("database or disk is full"), str(tmp_path / "p.db"))
    assert full is None  # no SQLite result code: raised by hand, so not recognised as a full disk
    conn = sqlite3.connect(tmp_path / "p.db")
    conn.execute("PRAGMA max_page_count = 1")  # a real SQLITE_FULL from SQLite itself
    with pytest.raises(sqlite3.OperationalError) as raised:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    assert isinstance(known_error(raised.value, str(tmp_path / "p.db")), ProfileDiskFullError)
    assert known_error(KeyError("a bug"), None) is None
