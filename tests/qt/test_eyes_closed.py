"""Closed eyes in the grid: rows know them from the stored faces, the filter bar's "Eyes closed" box
keeps only those frames (saved filters too), and their cells carry a badge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtGui import QColor, QImage
from skimage import data as skdata

from aesthete_gui.imaging.checks import analyse_path
from aesthete_gui.qt.grid_rows import FilterState, arrange, load_rows
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.widgets.grid_view import CLOSED_EYES_COLOUR
from aesthete_gui.services.library_checks import check_row, checks_version
from aesthete_gui.store import ImageUpdate, open_profile
from tests.qt.conftest import shown_main_window

CLOSED = [{"box": [0.3, 0.2, 0.25, 0.3], "eyes": "closed", "sharpness": 3.0, "openness": [0.05, 0.06]}]
OPEN = [{"box": [0.3, 0.2, 0.25, 0.3], "eyes": "open", "sharpness": 3.0, "openness": [0.3, 0.28]}]


def _photos(folder: Path) -> list[Path]:
    """A real portrait (its faces come from the shipped networks) and two other real photographs."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in ("astronaut", "coffee", "chelsea"):
        path = folder / f"{name}.jpg"
        Image.fromarray(getattr(skdata, name)()).convert("RGB").save(path, quality=90)
        paths.append(path)
    return paths


def test_rows_know_closed_eyes_and_the_filter_keeps_only_those(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    try:
        ids = profile.catalog.write_images([ImageUpdate(path=str(tmp_path / f"{n}.jpg"), folder_id=None, status="ok") for n in "abc"])
        profile.checks.put_many([(ids[0], checks_version(), [], CLOSED, "ok"), (ids[1], checks_version(), [], OPEN + CLOSED, "ok"), (ids[2], checks_version(), [], OPEN, "ok")])
        rows = load_rows(profile, None)
    finally:
        profile.close()
    assert [r.eyes_closed for r in rows] == [True, True, False]
    shown, _ = arrange(rows, FilterState(eyes_closed=True), "name")
    assert [r.image_id for r in shown] == ids[:2]
    picks_with_closed_eyes, _ = arrange(rows, FilterState(eyes_closed=True, flag="pick"), "name")
    assert picks_with_closed_eyes == []
    assert FilterState.from_dict(FilterState(eyes_closed=True).to_dict()).eyes_closed


def _badge_pixels(main: MainWindow) -> int:
    shot = main.grid.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(shot.constBits(), dtype=np.uint32).reshape(shot.height(), shot.bytesPerLine() // 4)
    return int((rows[:, : shot.width()] == QColor(CLOSED_EYES_COLOUR).rgb()).sum())


@pytest.fixture
def window(qtbot, app_context, tmp_path: Path):
    main = shown_main_window(qtbot, app_context, xmp=False, size=(1280, 800))
    yield main
    main.marks.close()


def test_eyes_closed_box_filters_the_grid_and_marks_the_cells(window, app_context, qtbot, tmp_path: Path) -> None:
    main = window
    paths = _photos(tmp_path / "shoot")
    ids = app_context.profile.catalog.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in paths])
    analysed = [check_row(i, analyse_path(p)) for i, p in zip(ids, paths, strict=True)]
    assert [len(row[3]) for row in analysed] == [1, 0, 0]  # the portrait's face, found for real
    assert analysed[0][3][0]["eyes"] == "open"
    # No real closed-eye photograph ships with a package: the coffee frame is given a stored closed face.
    image_id, version, checks, _faces, worst = analysed[1]
    analysed[1] = (image_id, version, checks, CLOSED, worst)
    app_context.profile.checks.put_many(analysed)
    main.model.reload()
    qtbot.waitUntil(lambda: not main.model.loading and main.model.total_count() == 3, timeout=10_000)
    qtbot.waitUntil(lambda: _badge_pixels(main) > 0, timeout=10_000)  # thumbnails load in the background

    main.filter_bar.eyes_closed.setChecked(True)
    assert main.model.visible_ids() == [ids[1]]
    assert main.filter_bar.state.eyes_closed
    main.filter_bar.eyes_closed.setChecked(False)
    assert sorted(main.model.visible_ids()) == sorted(ids)

    # Without a closed-eye frame no cell carries the badge.
    app_context.profile.checks.put_many([(ids[1], version, checks, [], worst)])
    main.model.reload()
    qtbot.waitUntil(lambda: not main.model.loading and not any(r.eyes_closed for r in main.model.all_rows()), timeout=10_000)
    main.grid.viewport().update()
    qtbot.waitUntil(lambda: _badge_pixels(main) == 0, timeout=10_000)


def test_a_saved_filter_restores_the_eyes_closed_box(window) -> None:
    main = window
    main.filter_bar.set_state(FilterState(eyes_closed=True, flag="pick"))
    assert main.filter_bar.eyes_closed.isChecked()
    main.filter_bar.set_state(FilterState())
    assert not main.filter_bar.eyes_closed.isChecked()
