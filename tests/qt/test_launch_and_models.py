"""`aesthete-gui --screenshot`, the welcome page, the jobs panel, and the grid model's filter/sort rules."""

from __future__ import annotations

import time

from PIL import Image
from PySide6.QtCore import Qt

from aesthete_gui.jobs import Progress
from aesthete_gui.qt.item_models import FilterState, ImageRow, arrange, best_of_burst
from aesthete_gui.qt.launch import build_parser, run_app
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.widgets.jobs_panel import JobsPanel


def test_screenshot_option_imports_renders_and_exits(qapp, tmp_path, image_folder) -> None:
    out = tmp_path / "shots" / "grid.png"
    code = run_app([
        "--profile", str(tmp_path / "p.db"), "--open", str(image_folder),
        "--screenshot", str(out), "--size", "1000x700", "--view", "grid",
    ])  # fmt: skip
    assert code == 0
    with Image.open(out) as shot:
        assert shot.size == (1000, 700)
        colours = shot.convert("RGB").resize((50, 35)).getcolors(50 * 35)
    assert colours is not None and len(colours) > 40  # thumbnails were painted, not an empty grid
    loupe = tmp_path / "shots" / "loupe.png"
    assert run_app(["--profile", str(tmp_path / "p.db"), "--screenshot", str(loupe), "--view", "loupe"]) == 0
    assert loupe.stat().st_size > 0


def test_size_option_rejects_nonsense() -> None:
    parser = build_parser()
    assert parser.parse_args(["--size", "1920x1080"]).size == (1920, 1080)
    for bad in ("big", "10x10"):
        try:
            parser.parse_args(["--size", bad])
        except SystemExit as exit_:
            assert exit_.code == 2
        else:
            raise AssertionError(f"--size {bad} accepted")


def test_first_run_shows_welcome_and_open_folder_starts_import(qtbot, app_context, monkeypatch, image_folder) -> None:
    window = MainWindow(app_context)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.current_view == "welcome", timeout=5000)
    monkeypatch.setattr(
        "aesthete_gui.qt.window_jobs.choose_folder", lambda *a, **k: str(image_folder)
    )
    qtbot.mouseClick(window.welcome.open_button, Qt.MouseButton.LeftButton)
    assert window.current_view == "grid"
    qtbot.waitUntil(lambda: window.model.rowCount() == 12, timeout=60_000)
    assert app_context.settings["welcome_done"] is True
    window.marks.close()


def _slow(progress, cancel) -> str:
    for i in range(2000):
        cancel.raise_if_cancelled()
        progress(Progress(i, 2000, f"step {i}"))
        time.sleep(0.002)
    return "done"


def test_jobs_panel_lists_progress_and_cancels(qtbot, app_context) -> None:
    panel = JobsPanel(app_context.runner)
    qtbot.addWidget(panel)
    handle = app_context.runner.submit("Long job", _slow)
    hidden = app_context.runner.submit("Housekeeping", _slow, visible=False)
    assert [row.handle for row in panel.rows()] == [handle]
    row = panel.rows()[0]
    qtbot.waitUntil(lambda: row.bar.maximum() == 2000 and row.bar.value() > 0, timeout=5000)
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: handle.done, timeout=5000)
    assert "cancelled" in row.message.text()
    hidden.cancel()
    qtbot.waitUntil(lambda: hidden.done, timeout=5000)


def _row(i: int, **values) -> ImageRow:
    return ImageRow(image_id=i, path=f"/p/img_{i:02d}.jpg", **values)


def test_arrange_filters_sorts_and_collapses_bursts() -> None:
    rows = [
        _row(1, stars=3, flag="pick", scores={"overall": 3.5}, capture_time="2024-01-01T10:00:03"),
        _row(2, stars=1, flag="reject", scores={"overall": 4.8}, burst_id=7, capture_time="2024-01-01T10:00:01"),
        _row(3, stars=5, label="Red", scores={"overall": 4.1}, burst_id=7, capture_time="2024-01-01T10:00:02"),
        _row(4, scores={}, capture_time=None),
    ]
    ids = lambda result: [r.image_id for r in result[0]]  # noqa: E731
    assert ids(arrange(rows, FilterState(), "capture_time")) == [2, 3, 1, 4]
    assert ids(arrange(rows, FilterState(), "overall")) == [2, 3, 1, 4]  # best first, unscored last
    assert ids(arrange(rows, FilterState(), "overall", descending=True)) == [1, 3, 2, 4]
    assert ids(arrange(rows, FilterState(min_stars=3), "name")) == [1, 3]
    assert ids(arrange(rows, FilterState(flag="unflagged"), "name")) == [3, 4]
    assert ids(arrange(rows, FilterState(label="Red"), "name")) == [3]
    assert ids(arrange(rows, FilterState(score_min=4.0), "name")) == [2, 3]
    assert ids(arrange(rows, FilterState(score_max=4.0), "name")) == [1]
    collapsed, sizes = arrange(rows, FilterState(collapse_bursts=True), "name")
    assert [r.image_id for r in collapsed] == [1, 3, 4] and sizes == {7: 2}
    assert best_of_burst(rows[1:3]).image_id == 3  # the rejected frame never represents its burst
    assert FilterState.from_dict(FilterState(min_stars=2, text="x").to_dict()) == FilterState(min_stars=2, text="x")


def test_settings_persist_and_survive_a_corrupt_file(tmp_path) -> None:
    from aesthete_gui.qt.context import DEFAULT_SETTINGS, AppSettings

    profile = tmp_path / "p.aesthete.db"
    settings = AppSettings.for_profile(profile)
    settings["theme"] = "light"
    settings["saved_filters"] = {"Picks": {"flag": "pick"}}
    again = AppSettings.for_profile(profile)
    assert again["theme"] == "light" and again["saved_filters"] == {"Picks": {"flag": "pick"}}
    assert again["xmp_enabled"] is DEFAULT_SETTINGS["xmp_enabled"]
    settings.path.write_text("{ not json", encoding="utf-8")
    broken = AppSettings.for_profile(profile)
    assert broken["theme"] == DEFAULT_SETTINGS["theme"]  # defaults, no crash
    broken["theme"] = "dark"  # and the next change writes a sound file again
    assert AppSettings.for_profile(profile)["theme"] == "dark"


def test_open_option_with_a_missing_folder_says_so(qapp, tmp_path) -> None:
    from aesthete_gui.qt.launch import build_parser, create_window

    args = build_parser().parse_args(["--profile", str(tmp_path / "p.db"), "--open", str(tmp_path / "nowhere")])
    context, window = create_window(args, qapp)
    try:
        assert "Not a folder" in window.statusBar().currentMessage()
        assert context.runner.active_jobs() == [] or all(not h.visible for h in context.runner.active_jobs())
    finally:
        window.marks.close()
        window.close()
        context.close()


def test_the_real_event_loop_starts_imports_and_quits(tmp_path, image_folder) -> None:
    import subprocess
    import sys

    from aesthete_gui.store import open_profile

    profile = tmp_path / "run.aesthete.db"
    code = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from aesthete_gui.qt.launch import run_app\n"
        "app = QApplication(sys.argv[:1])\n"
        "def close_when_imported():\n"
        "    windows = [w for w in QApplication.topLevelWidgets() if hasattr(w, 'model')]\n"
        "    if windows and windows[0].model.total_count() == 12 and not windows[0].context.runner.active_jobs():\n"
        "        windows[0].close()\n"
        "    else:\n"
        "        QTimer.singleShot(100, close_when_imported)\n"
        "QTimer.singleShot(100, close_when_imported)\n"
        f"sys.exit(run_app(['--profile', {str(profile)!r}, '--open', {str(image_folder)!r}]))\n"
    )
    env = {**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    (tmp_path / "file-alone").mkdir()
    __import__("shutil").copyfile(profile, tmp_path / "file-alone" / "p.db")  # the file without its -wal
    with open_profile(tmp_path / "file-alone" / "p.db") as copy:
        assert copy.catalog.image_count(status="ok") == 12  # the window settled its -wal at exit
    with open_profile(profile) as reopened:
        assert reopened.catalog.image_count(status="ok") == 12


def test_switching_profile_from_the_library_panel_opens_it_in_a_new_window(qtbot, tmp_path) -> None:
    from aesthete_gui.qt.launch import _open_windows, open_window

    first_path = tmp_path / "weddings.aesthete.db"
    second_path = tmp_path / "portraits.aesthete.db"
    open_window(second_path).close()  # make the second profile exist beside the first
    first = open_window(first_path)
    qtbot.addWidget(first)
    first.show()
    tree = first.library.tree
    profiles = tree.topLevelItem(0)
    names = [profiles.child(i).text(0) for i in range(profiles.childCount())]
    assert names == ["● weddings.aesthete.db", "portraits.aesthete.db", "Open or create another…"]
    tree.itemClicked.emit(profiles.child(1), 0)
    second = _open_windows[0]
    qtbot.addWidget(second)
    assert second is not first and second.context.profile_path == second_path
    assert second.isVisible() and not first.isVisible()
    second.close()


def test_screenshot_waits_for_the_reload_after_the_last_import_batch(qtbot, app_context, image_folder) -> None:
    # the profile's events reload the grid up to LIBRARY_RELOAD_MS after the import's last batch: a
    # screenshot taken when the job ended showed "0 photographs" beside "Import done: 12 imported"
    from aesthete_gui.qt.launch import settle
    from tests.qt.conftest import shown_main_window

    window = shown_main_window(qtbot, app_context)
    window.import_folders([image_folder])
    assert settle(window)
    assert window.model.rowCount() == 12
    assert not window.context.events.library_reload_pending


def test_a_screenshot_run_leaves_the_remembered_view_and_window_size_alone(qapp, tmp_path, image_folder) -> None:
    # a trial's `--screenshot --view loupe` made the next ordinary start open in the loupe
    from aesthete_gui.settings import profile_settings

    profile = tmp_path / "p.db"
    assert run_app(["--profile", str(profile), "--open", str(image_folder), "--screenshot", str(tmp_path / "a.png"), "--view", "grid"]) == 0
    before = profile_settings(profile).get("session")
    assert run_app(["--profile", str(profile), "--screenshot", str(tmp_path / "b.png"), "--view", "loupe", "--size", "900x600"]) == 0
    assert profile_settings(profile).get("session") == before
    assert not before or before.get("view") != "loupe"


def test_the_profile_file_alone_holds_the_session_after_the_window_exits(qapp, tmp_path, image_folder) -> None:
    # the window kept its connections to the end: the file was 4 KB with everything in its -wal, so a
    # backup that copied the profile file alone (after closing Aesthete) had an empty library
    import shutil

    from aesthete_gui.store import open_profile

    profile = tmp_path / "p.db"
    assert run_app(["--profile", str(profile), "--open", str(image_folder), "--screenshot", str(tmp_path / "a.png")]) == 0
    backup = tmp_path / "backup"
    backup.mkdir()
    shutil.copyfile(profile, backup / "p.db")  # the file only, not its -wal
    copy = open_profile(backup / "p.db")
    try:
        assert copy.catalog.image_count() == len([p for p in image_folder.iterdir() if p.is_file()]) > 0
    finally:
        copy.close()
