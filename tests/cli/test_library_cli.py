"""`aesthete import | images | bursts | mark | export` through aesthete_gui.cli.main and real files."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.imaging.xmp import read_sidecar
from tests.services.library_images import write_bad_inputs, write_jpeg

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]


def _run(profile: Path, *args: str) -> int:
    return main(["--profile", str(profile), *args])


@pytest.fixture
def shoot(tmp_path: Path) -> Path:
    folder = tmp_path / "shoot"
    folder.mkdir()
    for n in range(3):
        write_jpeg(folder / f"B_{n}.jpg", seed=11, when="2024:06:01 12:00:00", subsec=f"{n}5")
    write_jpeg(folder / "single.jpg", seed=12)
    write_bad_inputs(folder / "bad")
    return folder


def test_import_exits_0_with_bad_files_and_images_json_lists_them(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", str(shoot)) == 0
    out = capsys.readouterr().out
    assert "15 image files found" in out and "could not be read" in out
    assert _run(profile, "images", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 15
    assert all({"path", "status", "error"} <= set(r) for r in rows)
    assert {r["status"] for r in rows} == {"ok", "error"}
    assert all((r["error"] is None) == (r["status"] == "ok") for r in rows)
    assert _run(profile, "images", "--status", "error") == 0
    assert "zero.jpg" in capsys.readouterr().out


def test_import_says_how_many_videos_it_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A camera card holds clips beside the photographs; the import leaves them where they are and
    says so, rather than counting only what it read."""
    card = tmp_path / "DCIM" / "100CANON"
    card.mkdir(parents=True)
    write_jpeg(card / "IMG_0001.JPG", seed=3)
    (card / "MVI_0002.MOV").write_bytes(b"\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00qt  ")
    (card / "MVI_0003.MP4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    (card / "IMG_0001.xmp").write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>", encoding="utf-8")
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", str(tmp_path / "DCIM")) == 0
    out = capsys.readouterr().out
    assert "1 image file found: 1 imported" in out
    assert "  2 videos left out: Aesthete imports photographs only (the files stay where they are)" in out
    assert _run(profile, "import", "--json", str(tmp_path / "DCIM")) == 0
    assert json.loads(capsys.readouterr().out)["videos"] == 2
    assert sorted(p.name for p in card.iterdir()) == ["IMG_0001.JPG", "IMG_0001.xmp", "MVI_0002.MOV", "MVI_0003.MP4"]
    from aesthete_gui.qt.actions import describe_import  # the window's status line says it too
    from aesthete_gui.services.library import ImportSummary

    assert describe_import(ImportSummary(imported=1, videos=2)) == "Import done: 1 imported, 2 videos left out"
    assert describe_import(ImportSummary(imported=1, videos=1)) == "Import done: 1 imported, 1 video left out"


def test_bursts_mark_and_export(tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--json", str(shoot)) == 0
    assert json.loads(capsys.readouterr().out)["bursts"] == 1
    assert _run(profile, "bursts", "--json") == 0
    [burst] = json.loads(capsys.readouterr().out)
    assert [Path(i["path"]).name for i in burst["images"]] == ["B_0.jpg", "B_1.jpg", "B_2.jpg"]
    target = shoot / "B_1.jpg"
    assert _run(profile, "mark", str(target), "--stars", "4", "--pick", "--label", "blue", "--xmp") == 0
    # a held10 trial: mark printed raw JSON ids; it names the file and its marks in words
    assert capsys.readouterr().out == f"{target}: ★★★★ · pick · Blue label\n"
    assert _run(profile, "mark", str(target), "--stars", "4", "--pick", "--label", "blue", "--json") == 0
    marked = json.loads(capsys.readouterr().out)
    assert (marked["path"], marked["stars"], marked["flag"], marked["label"]) == (str(target), 4, "pick", "Blue")
    assert read_sidecar(target).stars == 4 and read_sidecar(target).flag == "pick"
    assert _run(profile, "mark", str(target), "--reject", "--label", "none") == 0
    capsys.readouterr()
    assert _run(profile, "export", "--format", "csv") == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    marked = next(r for r in rows if r["path"] == str(target))
    assert (marked["stars"], marked["flag"], marked["label"]) == ("4", "reject", "")
    out_json = tmp_path / "out" / "library.json"
    assert _run(profile, "export", "--format", "json", "--output", str(out_json)) == 0
    assert len(json.loads(out_json.read_text(encoding="utf-8"))) == 15
    short = tmp_path / "out" / "short.json"  # -o, as a held15 trial typed it
    assert _run(profile, "export", "--format", "json", "-o", str(short)) == 0
    assert short.read_bytes() == out_json.read_bytes()
    assert _run(profile, "export", "--format", "xmp") == 0
    assert "1 sidecars written" in capsys.readouterr().out
    assert read_sidecar(target).flag == "reject"


@pytest.mark.parametrize(
    "args",
    [["mark", "/no/such.jpg", "--stars", "2"], ["mark", "whatever.jpg"], ["import", "/no/such/folder"]],
)
def test_user_mistakes_exit_2_with_a_message(tmp_path: Path, args: list[str], capsys) -> None:
    assert _run(tmp_path / "p.db", *args) == 2
    assert "aesthete: error:" in capsys.readouterr().err


def test_cli_subprocess_with_profile_from_the_environment(tmp_path: Path, shoot: Path) -> None:
    env = {**os.environ, "AESTHETE_PROFILE": str(tmp_path / "env.db")}
    done = subprocess.run([*CLI, "import", str(shoot)],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "13/13 reading" in done.stderr  # the progress went to stderr (13 files to read), a line a pass
    assert "15 image files found" in done.stdout
    listed = subprocess.run([*CLI, "images", "--json"],
                            capture_output=True, text=True, env=env, cwd=REPO, timeout=60)  # fmt: skip
    assert len(json.loads(listed.stdout)) == 15
