"""File ▸ Ingest from card as a background job: the copies land, the grid fills, the status line says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.qt.ingest_action import start_ingest
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState
from tests.qt.conftest import write_test_images


@pytest.fixture
def window(qtbot, app_context):
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    yield main
    main.marks.close()


def test_ingest_job_copies_imports_and_reports(qtbot, window: MainWindow, tmp_path: Path) -> None:
    card = tmp_path / "card" / "DCIM"
    write_test_images(card, 3)
    handle = start_ingest(window, tmp_path / "card", tmp_path / "photos", tmp_path / "backup")
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    assert len(list((tmp_path / "photos").rglob("*.jpg"))) == 3
    assert len(list((tmp_path / "backup").rglob("*.jpg"))) == 3
    assert window.context.profile.catalog.image_count() == 3
    qtbot.waitUntil(
        lambda: "Ingest done: 3 copied and verified" in window.statusBar().currentMessage()
    )
    qtbot.waitUntil(lambda: window.model.rowCount() == 3, timeout=10_000)


def test_ingest_into_a_missing_card_reports_the_error(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    handle = start_ingest(window, tmp_path / "no-card", tmp_path / "photos")
    qtbot.waitUntil(lambda: handle.done, timeout=10_000)
    assert handle.state is JobState.FAILED
    qtbot.waitUntil(lambda: "Ingest stopped: not a folder" in window.statusBar().currentMessage())
