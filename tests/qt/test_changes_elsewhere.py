"""The window is never stale: a mark made on the command line shows within a second, and the
window's next key press on another field keeps it; an edit another program makes to a sidecar is
never written over from the window (issue 20, point 2)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import Qt

from aesthete_gui.imaging.xmp import read_sidecar, write_sidecar
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import settle_profile_events, shown_main_window

CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]


def _window_on_images(qtbot, app_context, tmp_path: Path, xmp: bool):
    paths = [tmp_path / f"IMG_{n}.jpg" for n in range(3)]
    for path in paths:
        path.write_bytes(b"\xff\xd8\xff")  # the grid shows rows; no pixels are needed
    ids = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(p), folder_id=None, status="ok") for p in paths]
    )
    window = shown_main_window(qtbot, app_context, xmp=xmp)
    settle_profile_events(qtbot, window)
    qtbot.waitUntil(lambda: window.model.total_count() == 3, timeout=10_000)
    return window, ids, paths


def test_a_command_line_mark_shows_in_the_window_and_the_next_key_keeps_it(
    qtbot, app_context, tmp_path: Path
) -> None:
    # how soon it shows is a benchmark's figure (benchmarks/profile_locks.py), not a timed test: under
    # load a one-second assertion here failed with the mark shown
    window, ids, _ = _window_on_images(qtbot, app_context, tmp_path, xmp=False)
    target = ids[1]
    assert window.grid.select_image(target)
    done = subprocess.run([*CLI, "--profile", str(app_context.profile_path), "mark", str(target), "--stars", "5"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    qtbot.waitUntil(lambda: window.model.row_for(target).stars == 5, timeout=15_000)
    qtbot.keyClick(window.grid, Qt.Key.Key_7)  # a colour label: another field than the stars
    window.marks.wait_written()
    mark = app_context.profile.marks.get(target)
    assert (mark.stars, mark.label, mark.source) == (5, "Yellow", "window")
    assert [(h.source, h.stars) for h in app_context.profile.marks.history(target)] == [("cli", 5)]
    window.marks.close()


def test_a_sidecar_edited_elsewhere_is_never_written_over_from_the_window(
    qtbot, app_context, tmp_path: Path
) -> None:
    window, ids, paths = _window_on_images(qtbot, app_context, tmp_path, xmp=True)
    target = ids[0]
    assert window.grid.select_image(target)
    qtbot.keyClick(window.grid, Qt.Key.Key_1)
    window.marks.wait_written()
    assert read_sidecar(paths[0]).stars == 1
    time.sleep(0.05)  # the other program's edit is later than the window's mark
    write_sidecar(paths[0], 5, None, None)  # another program sets Rating 5
    qtbot.keyClick(window.grid, Qt.Key.Key_7)  # the window labels it, without a rescan in between
    window.marks.wait_written()
    sidecar = read_sidecar(paths[0])
    assert (sidecar.stars, sidecar.label) == (5, "Yellow")
    mark = app_context.profile.marks.get(target)
    assert (mark.stars, mark.label) == (5, "Yellow")
    qtbot.waitUntil(lambda: window.model.row_for(target).stars == 5, timeout=1000)  # and it shows
    window.marks.close()


def test_a_command_line_pick_under_picks_only_appears_in_the_grid(qtbot, app_context, tmp_path: Path) -> None:
    # held10 trial: `aesthete mark … --pick` with "picks only" on: the status bar counted 7 picks, the
    # grid kept showing 5 for more than 4 s (and the export said 7)
    from aesthete_gui.qt.grid_rows import FilterState

    window, ids, _ = _window_on_images(qtbot, app_context, tmp_path, xmp=False)
    window.model.set_filter(FilterState(flag="pick"))
    qtbot.waitUntil(lambda: not window.model.loading and window.model.visible_ids() == [], timeout=10_000)
    done = subprocess.run([*CLI, "--profile", str(app_context.profile_path), "mark", str(ids[2]), "--pick"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    committed = time.monotonic()
    qtbot.waitUntil(lambda: window.model.visible_ids() == [ids[2]], timeout=4000)
    assert time.monotonic() - committed < 2.5
    window.marks.close()
