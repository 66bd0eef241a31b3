"""The inspector's technical-check rows come from imaging/checks.py: stored, else measured."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageFilter
from skimage import data as skdata

from aesthete_gui.imaging.checks import checks_for_path
from aesthete_gui.qt.widgets.inspector import technical_checks


def _photo(path: Path, blur: float = 0.0) -> str:
    img = Image.fromarray(skdata.astronaut())
    if blur:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    img.save(path, quality=92)
    return str(path)


def test_rows_name_each_check_and_mark_a_soft_photo(tmp_path: Path) -> None:
    sharp = {line.title: line.text for line in technical_checks(_photo(tmp_path / "sharp.jpg"))}
    soft = {line.title: line.text for line in technical_checks(_photo(tmp_path / "soft.jpg", blur=4))}
    assert list(sharp)[:4] == ["Focus", "Motion blur", "Blown highlights", "Crushed shadows"]
    assert not sharp["Focus"].startswith("✖")
    assert soft["Focus"].startswith("✖") and "soft" in soft["Focus"]


def test_stored_checks_are_shown_as_stored(tmp_path: Path) -> None:
    path = _photo(tmp_path / "a.jpg")
    stored = [c.as_dict() for c in checks_for_path(path)]
    assert technical_checks(path, stored) == technical_checks(path)


def test_no_file_gives_no_rows(tmp_path: Path) -> None:
    assert technical_checks(None) == []
    assert technical_checks(str(tmp_path / "gone.jpg")) == []
