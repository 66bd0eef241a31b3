"""Fixtures for the Qt tests: offscreen QApplication, a qasync loop, real images and a real profile."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture
def qasync_loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync event loop over pytest-qt's QApplication, for widgets that await coroutines."""
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    loop.stop()
    asyncio.events._set_running_loop(None)
    loop.close()
    asyncio.set_event_loop(None)


def shown_main_window(qtbot, app_context, xmp: bool = True, size: tuple[int, int] | None = None):
    """The real main window past the welcome page, shown, with its first (empty) load finished."""
    from aesthete_gui.qt.main_window import MainWindow

    app_context.settings["welcome_done"] = True
    if not xmp:
        app_context.settings["xmp_enabled"] = False
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    if size is not None:
        main.resize(*size)
    main.show()
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    return main


def imported_main_window(qtbot, app_context, folder, count: int, size: tuple[int, int] | None = None):
    """The real main window (at `size`) with `folder`'s `count` images imported and listed."""
    from aesthete_gui.qt.task_runner import JobState

    main = shown_main_window(qtbot, app_context, size=size)
    handle = main.import_folders([folder])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == count, timeout=10_000)
    return main


def select_rows(window, rows: list[int], current: int = 0) -> list[int]:
    """Select grid `rows` (the one at index `current` of them made current); their image ids."""
    from PySide6.QtCore import QItemSelection, QItemSelectionModel

    selection = QItemSelection()
    for row in rows:
        selection.select(window.model.index(row), window.model.index(row))
    model = window.grid.selectionModel()
    model.select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    model.setCurrentIndex(window.model.index(rows[current]), QItemSelectionModel.SelectionFlag.NoUpdate)
    return [window.model.row_at(r).image_id for r in rows]


def settle_profile_events(qtbot, window) -> None:
    """Wait until the library reloads that the profile's events asked for are done (none pending)."""
    relay = window.context.events
    qtbot.waitUntil(lambda: not relay.library_reload_pending and not window.model.loading, timeout=10_000)


def write_test_images(folder: Path, count: int, size: tuple[int, int] = (96, 64)) -> list[Path]:
    """Write `count` distinct small JPEGs (gradients with a moving square) into `folder`."""
    import numpy as np
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width]
    paths = []
    for index in range(count):
        rgb = np.zeros((height, width, 3), dtype=np.uint8)
        rgb[..., 0] = (xs * 255 // max(1, width - 1) + index * 37) % 256
        rgb[..., 1] = (ys * 255 // max(1, height - 1) + index * 11) % 256
        rgb[..., 2] = (index * 53) % 256
        x0 = (index * 7) % max(1, width - 16)
        rgb[8:24, x0 : x0 + 16] = 255 - rgb[8:24, x0 : x0 + 16]
        path = folder / f"frame_{index:04d}.jpg"
        Image.fromarray(rgb).save(path, quality=85)
        paths.append(path)
    return paths


@pytest.fixture
def image_folder(tmp_path: Path) -> Path:
    """A folder of twelve small real JPEGs."""
    folder = tmp_path / "shoot"
    write_test_images(folder, 12)
    return folder


@pytest.fixture
def app_context(qapp, tmp_path: Path):
    """A real AppContext over a fresh SQLite profile in tmp_path; closed after the test."""
    from aesthete_gui.qt.context import build_context

    context = build_context(tmp_path / "profile.aesthete.db", cache_dir=tmp_path / "thumbs")
    yield context
    context.close()


@pytest.fixture(autouse=True)
def cycles_collected_on_the_gui_thread(qapp) -> Iterator[None]:
    """As in the app (qt/gc_guard.py): during a Qt test no worker thread runs the cycle collector, which
    once destroyed a window's Qt objects on a worker while the GUI thread waited (a deadlock); the
    test's garbage is collected here, on the GUI thread, when it ends."""
    import gc

    from aesthete_gui.qt.gc_guard import GuiThreadCollector

    collector = GuiThreadCollector()
    yield
    collector.deleteLater()
    gc.collect()
    gc.enable()


@pytest.fixture(autouse=True)
def remembered_state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The window layout and last profile are remembered in tmp_path, never in the user's config."""
    path = tmp_path / "session.json"
    monkeypatch.setenv("AESTHETE_STATE_FILE", str(path))
    return path
