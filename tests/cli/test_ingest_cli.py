"""`aesthete ingest` through aesthete_gui.cli.main: copy, skip repeats, import; a read-only destination is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from tests.robustness.fs_faults import read_only_folder
from tests.services.library_images import write_jpeg


def _card(folder: Path) -> None:
    (folder / "DCIM").mkdir(parents=True)
    for n in range(2):
        write_jpeg(folder / "DCIM" / f"DSC_{n:04d}.JPG", seed=n, when=f"2023:01:0{n + 1} 09:00:00")


def test_ingest_copies_and_imports_then_skips_on_a_second_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _card(tmp_path / "card")
    profile = str(tmp_path / "p.db")
    args = ["--profile", profile, "ingest", "--quiet", str(tmp_path / "card"), str(tmp_path / "photos"),
            "--template", "{date:%Y-%m-%d}_{seq:02d}{ext}", "--workers", "1"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "2 copied and verified, 0 already there" in out and "imported: 2 new" in out
    assert sorted(p.name for p in (tmp_path / "photos").glob("*.JPG")) == [
        "2023-01-01_01.JPG",
        "2023-01-02_02.JPG",
    ]
    assert main([*args, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["copied"], summary["skipped"], summary["imported"]["unchanged"]) == (0, 2, 2)


def test_read_only_destination_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _card(tmp_path / "card")
    target = tmp_path / "locked"
    target.mkdir()
    with read_only_folder(target) as view:
        code = main(["--profile", str(tmp_path / "p.db"), "ingest", "--quiet", "--no-import",
                     str(tmp_path / "card"), str(view)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "destination is read-only" in err and "Traceback" not in err
    assert list(target.iterdir()) == []


def test_sync_xmp_takes_an_exiftool_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil
    import subprocess
    import time

    exiftool = shutil.which("exiftool")
    assert exiftool, "exiftool is required (Debian package libimage-exiftool-perl)"
    _card(tmp_path / "card")
    profile = ["--profile", str(tmp_path / "p.db")]
    assert main([*profile, "import", "--quiet", "--workers", "1", str(tmp_path / "card")]) == 0
    image = tmp_path / "card" / "DCIM" / "DSC_0000.JPG"
    assert main([*profile, "mark", str(image), "--stars", "2", "--xmp"]) == 0
    time.sleep(0.02)
    sidecar = image.with_suffix(".xmp")
    subprocess.run(
        [exiftool, "-q", "-overwrite_original", "-XMP-xmp:Rating=5", str(sidecar)], check=True
    )
    capsys.readouterr()
    assert main([*profile, "sync-xmp", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["checked"], summary["adopted"], summary["conflicts"]) == (2, 1, 0)
    assert main([*profile, "images", "--json"]) == 0
    rows = {Path(r["path"]).name: r for r in json.loads(capsys.readouterr().out)}
    assert rows["DSC_0000.JPG"]["stars"] == 5


def test_the_summary_names_what_was_not_copied_after_a_finished_progress_bar(tmp_path: Path) -> None:
    import subprocess
    import sys

    _card(tmp_path / "card")
    (tmp_path / "card" / "DCIM" / "MVI_0001.MOV").write_bytes(b"clip")
    (tmp_path / "card" / "DCIM" / "MVI_0002.MOV").write_bytes(b"clip 2")
    (tmp_path / "card" / "DCIM" / "DSC_0000.JPG.xmp").write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>")
    command = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())",
               "ingest", "--no-import", str(tmp_path / "card"), str(tmp_path / "photos")]  # fmt: skip
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    output = result.stdout.decode()  # as a terminal gets it: "\r" redraws the bar's line
    assert result.returncode == 0, output
    lines = output.split("\n")
    start = next(n for n, line in enumerate(lines) if line.startswith("2 photographs on the card"))
    assert all("\r" not in line for line in lines)  # not a terminal: each pass's end on its own line
    assert lines[start - 1].endswith(" copied") and len(lines[:start]) == len(set(lines[:start]))
    summary = lines[start:]
    assert summary[:3] == [
        "2 photographs on the card: 2 copied and verified, 0 already there (same bytes)",
        "1 XMP sidecars copied with their photographs",
        "not copied (not photographs): 2 .MOV",
    ]
    assert sorted(p.name for p in (tmp_path / "photos").rglob("*") if p.is_file() and not p.name.startswith(".")) == [
        "20230101_unknown-camera_0001.JPG", "20230101_unknown-camera_0001.JPG.xmp", "20230102_unknown-camera_0002.JPG"]  # fmt: skip


def test_a_template_that_leaves_the_destination_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _card(tmp_path / "card")
    code = main(["ingest", "--quiet", "--no-import", "--template", "../{name}{ext}", str(tmp_path / "card"), str(tmp_path / "photos")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "must name a file inside the destination" in err
    assert not (tmp_path / "DSC_0000.JPG").exists()


def test_the_summary_says_how_many_copied_photographs_could_not_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _card(tmp_path / "card")
    good = (tmp_path / "card" / "DCIM" / "DSC_0000.JPG").read_bytes()
    (tmp_path / "card" / "DCIM" / "DSC_0009.JPG").write_bytes(good[: len(good) // 5])  # a truncated file
    args = ["--profile", str(tmp_path / "p.db"), "ingest", "--quiet", str(tmp_path / "card"), str(tmp_path / "photos"),
            "--workers", "1"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "3 copied and verified" in out and "1 could not be read" in out, out


def test_a_progress_bar_names_its_pass() -> None:
    # an import draws two bars (reading the files, then measuring the checks): each says which it is
    import io

    from aesthete_gui.cli.common import ProgressBar
    from aesthete_gui.jobs import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    bar = ProgressBar(out)
    bar(Progress(4, 4, "reading /shoot/a.jpg"))
    bar(Progress(4, 4, "checking /shoot/a.jpg"))
    lines = [line.strip() for line in out.getvalue().split("\r") if line.strip()]
    assert lines == ["[" + "#" * 30 + "] 4/4 reading /shoot/a.jpg", "[" + "#" * 30 + "] 4/4 checking /shoot/a.jpg"]
    # into a log file or a pipe: no redrawn line, each pass's end on a line of its own
    log = io.StringIO()
    piped = ProgressBar(log)
    for done in range(5):
        piped(Progress(done, 4, "reading /shoot/a.jpg"))
    piped(Progress(4, 4, "checking /shoot/a.jpg"))
    assert log.getvalue() == "4/4 reading\n4/4 checking\n"
