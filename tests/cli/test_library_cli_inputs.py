"""Hostile ids and CSV files through the CLI: one clear line, exit 2, nothing half-imported, no doubling."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from tests.services.library_images import write_jpeg

BAD_IDS = ["²", "10^23", "100000000000000000000000", "-1", "1e5", "0", "", "nul\x00byte", "\x1b[2Jclear"]


def _run(profile: Path, *args: str) -> int:
    return main(["--profile", str(profile), *args])


@pytest.fixture
def library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[Path]]:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    files = [write_jpeg(shoot / f"IMG_{n}.jpg", seed=n) for n in range(4)]
    profile = tmp_path / "p.db"
    assert _run(profile, "import", "--quiet", "--workers", "1", str(shoot)) == 0
    capsys.readouterr()
    return profile, files


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aesthete: error: "), captured.err
    assert "\x1b" not in captured.err and "\x00" not in captured.err
    return lines[0]


@pytest.mark.parametrize("image_id", BAD_IDS)
def test_a_bad_image_id_is_one_error_line_and_exit_2(
    library: tuple[Path, list[Path]], image_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile, files = library
    assert _run(profile, "mark", image_id, "--stars", "2") == 2
    assert "image not in the profile" in _one_error_line(capsys)
    assert _run(profile, "prefer", image_id, str(files[0]), "--winner", "a") == 2
    expected = "image not in the profile" if image_id else "prefer needs two images"
    assert expected in _one_error_line(capsys)
    table = profile.parent / "choices.csv"
    table.write_text(f'a,b,winner\n{files[0]},{files[1]},a\n"{image_id}",{files[0]},b\n', encoding="utf-8")
    assert _run(profile, "prefer", "--from", str(table)) == 2
    assert f"{table}: line 3: image not in the profile" in _one_error_line(capsys)
    opened = open_profile(profile)
    try:
        assert opened.choices.all() == [] and opened.marks.all() == {}
    finally:
        opened.close()


def test_marking_a_file_that_is_no_image_says_so(
    library: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    profile, files = library
    notes = files[0].parent / "NOTES.txt"
    notes.write_text("shot list\n", encoding="utf-8")
    assert _run(profile, "mark", str(notes), "--stars", "2") == 2
    assert "NOTES.txt is not an image" in _one_error_line(capsys)
    assert _run(profile, "mark", str(files[0].parent / "later.jpg"), "--stars", "2") == 2
    assert "import its folder first" in _one_error_line(capsys)


def test_csv_errors_name_the_line_an_editor_shows_and_duplicate_columns_are_refused(
    library: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    profile, files = library
    table = profile.parent / "choices.csv"
    table.write_text(f"\n\na,b,winner\n\n{files[0]},{files[1]},a\n\n{files[2]},{files[3]},perhaps\n")
    assert _run(profile, "prefer", "--from", str(table)) == 2
    assert f"{table}: line 7: winner must be a, b or tie" in _one_error_line(capsys)
    table.write_text(f"a,b,winner,B\n{files[0]},{files[1]},a,{files[2]}\n")
    assert _run(profile, "prefer", "--from", str(table)) == 2
    assert "line 1: column(s) named more than once in the header: b" in _one_error_line(capsys)
    comparisons = profile.parent / "pairs.csv"
    comparisons.write_text("\n\na,b,winner\nx,y,a\n\ny,z,later\n")
    assert main(["rank", str(comparisons)]) == 2
    assert f"{comparisons}: line 6: winner must be a, b or tie" in _one_error_line(capsys)
    comparisons.write_text("a,winner,b,winner\nx,a,y,b\n")
    assert main(["rank", str(comparisons)]) == 2
    assert "named more than once in the header: winner" in _one_error_line(capsys)


def test_importing_the_same_choices_twice_skips_the_duplicates(
    library: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    profile, files = library
    table = profile.parent / "choices.csv"
    table.write_text(f"a,b,winner,dimension\n{files[0]},{files[1]},a,\n{files[2]},{files[3]},tie,coloration\n"
                     f"{files[0]},{files[1]},a,\n")  # fmt: skip
    assert _run(profile, "prefer", str(files[0]), str(files[1]), "--winner", "a") == 0  # made in the app
    assert _run(profile, "prefer", "--from", str(table)) == 0
    assert capsys.readouterr().out.strip().endswith(f"imported 3 choices from {table}")
    assert _run(profile, "prefer", "--from", str(table)) == 0
    assert capsys.readouterr().out.strip() == f"imported 0 choices from {table}; 3 duplicates skipped"
    table.write_text(f"a,b,winner\n{files[0]},{files[1]},a\n{files[1]},{files[0]},a\n")
    assert _run(profile, "prefer", "--from", str(table)) == 0
    assert capsys.readouterr().out.strip() == f"imported 1 choices from {table}; 1 duplicates skipped"
    assert _run(profile, "prefer", "--from", str(table), "--keep-duplicates") == 0
    assert capsys.readouterr().out.strip() == f"imported 2 choices from {table}"
    opened = open_profile(profile)
    try:
        assert len(opened.choices.all()) == 1 + 3 + 1 + 2
    finally:
        opened.close()
