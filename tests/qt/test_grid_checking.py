"""Frames whose checks are not measured yet say "checking…" in the grid; verdicts appear in place as
the import's second pass stores them (no reload of the whole grid)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtGui import QImage

from aesthete_gui.imaging.checks import analyse_path
from aesthete_gui.qt.item_models import FilterState
from aesthete_gui.services.library_checks import check_row
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import shown_main_window, write_test_images

CLOSED = [{"box": [0.3, 0.2, 0.25, 0.3], "eyes": "closed", "sharpness": 3.0, "openness": [0.05, 0.06]}]


def _grid_pixels(main) -> np.ndarray:
    shot = main.grid.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(shot.constBits(), np.uint8).reshape(shot.height(), shot.bytesPerLine() // 4, 4)[..., :3].copy()


def test_unchecked_frames_say_checking_until_their_verdicts_arrive(qtbot, app_context, tmp_path: Path) -> None:
    main = shown_main_window(qtbot, app_context, xmp=False, size=(1280, 800))
    paths = write_test_images(tmp_path / "shoot", 3)
    profile = app_context.profile
    ids = profile.catalog.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in paths])
    main.model.reload()
    qtbot.waitUntil(lambda: not main.model.loading and main.model.total_count() == 3, timeout=10_000)
    rows = {r.image_id: r for r in main.model.all_rows()}
    assert not any(r.checked for r in rows.values())
    position = main.model.position_of(ids[0])
    assert "checking…" in main.model.data(main.model.index(position), 3)  # the tooltip says so too
    main.model.set_filter(FilterState(collapse_bursts=False))
    waiting = _grid_pixels(main)
    resets: list[bool] = []
    main.model.modelReset.connect(lambda: resets.append(True))

    measured = [check_row(i, analyse_path(p)) for i, p in zip(ids, paths, strict=True)]
    first = measured[0]
    measured[0] = (first[0], first[1], first[2], CLOSED, first[4])  # a stored closed-eyes face
    profile.checks.put_many(measured)  # announces ChecksMeasured, as the import's second pass does
    qtbot.waitUntil(lambda: all(r.checked for r in main.model.all_rows()), timeout=10_000)
    assert main.model.row_for(ids[0]).eyes_closed and not resets  # updated in place
    assert "checking" not in main.model.data(main.model.index(position), 3)
    main.grid.viewport().update()
    qtbot.waitUntil(lambda: not np.array_equal(_grid_pixels(main), waiting), timeout=10_000)  # repainted
    main.marks.close()
