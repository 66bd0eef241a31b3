"""First start: the welcome page scores a test picture with the built-in scorer offline and explains judges."""

from __future__ import annotations

import socket

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.qt.main_window import MainWindow


def test_welcome_shows_the_builtin_scorer_working_offline_and_leads_to_the_model_manager(
    qtbot, app_context, monkeypatch
) -> None:
    def no_network(*_args, **_kwargs):
        raise AssertionError("the first-run check tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    opened = []
    monkeypatch.setattr("aesthete_gui.qt.dialogs.open_model_manager", lambda context, parent: opened.append(context))
    window = MainWindow(app_context)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(lambda: window.current_view == "welcome", timeout=5000)
    welcome = window.welcome
    assert welcome.open_button.isVisible() and welcome.open_button.text().startswith("Open a folder")

    qtbot.waitUntil(lambda: welcome.builtin_check is not None, timeout=30_000)
    check = welcome.builtin_check
    assert set(check.scores) == set(DIMENSIONS)
    assert all(1.0 <= value <= 5.0 for value in check.scores.values())
    assert welcome.builtin_status.text().startswith("✓ Ready") and "no network" in welcome.builtin_status.text()
    assert not welcome.sample_label.pixmap().isNull()
    assert f"{check.scores['overall']:.1f}" in welcome.builtin_scores.text()

    judge_text = " ".join(label.text() for label in welcome.findChildren(QLabel))
    for way in ("Download", "progress bar", "Local folder", "Server", "OpenAI-compatible"):
        assert way in judge_text, way
    qtbot.mouseClick(welcome.judge_button, Qt.MouseButton.LeftButton)
    assert opened == [app_context]
    assert window.current_view == "welcome"  # nothing else changed; the folder button is still there
    window.marks.close()
