"""The GUI start with a profile it cannot use: a dialog saying why (not a missing window), no crash."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from aesthete_gui.qt import launch
from aesthete_gui.store import ProfileDiskFullError
from tests.robustness.fs_faults import read_only_folder


def _answer_dialogs(seen: list[str]) -> QTimer:
    """Every 50 ms: record the text of an open message box and press its OK button."""

    def close_box() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            seen.append(box.text())
            box.button(QMessageBox.StandardButton.Ok).click()

    timer = QTimer()
    timer.timeout.connect(close_box)
    timer.start(50)
    return timer


def test_a_file_that_is_not_a_profile_shows_a_dialog_and_exits_2(qapp, tmp_path: Path) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 4000)
    seen: list[str] = []
    timer = _answer_dialogs(seen)
    try:
        assert launch.run_app(["--profile", str(path)]) == 2
    finally:
        timer.stop()
    assert len(seen) == 1 and "not an Aesthete profile" in seen[0] and str(path) in seen[0]
    assert path.read_bytes() == b"\xff\xd8\xff\xe0" + b"\x00" * 4000


def test_a_profile_in_a_read_only_folder_shows_a_dialog(qapp, tmp_path: Path) -> None:
    folder = tmp_path / "profiles"
    folder.mkdir()
    seen: list[str] = []
    with read_only_folder(folder) as view:
        timer = _answer_dialogs(seen)
        try:
            assert launch.run_app(["--profile", str(view / "sub" / "p.db")]) == 2
        finally:
            timer.stop()
    assert len(seen) == 1 and "cannot be written" in seen[0]


def test_screenshot_mode_prints_the_reason_instead_of_a_dialog(qapp, tmp_path: Path, capsys) -> None:
    (tmp_path / "p.db").mkdir()
    code = launch.run_app(["--profile", str(tmp_path / "p.db"), "--screenshot", str(tmp_path / "s.png")])
    assert code == 2
    err = capsys.readouterr().err
    assert "aesthete-gui: error: profile" in err and "is a folder" in err and "Traceback" not in err
    assert not (tmp_path / "s.png").exists()


def test_an_empty_profile_path_is_one_line_not_the_default_profile(qapp, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    code = launch.run_app(["--profile", "", "--screenshot", str(tmp_path / "s.png")])
    err = capsys.readouterr().err
    assert code == 2 and "aesthete-gui: error: --profile is empty" in err and "Traceback" not in err
    assert not (tmp_path / "data").exists() and not (tmp_path / "s.png").exists()
    # second attack: a trailing space in $AESTHETE_PROFILE opened a new, empty profile "p.db "
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AESTHETE_PROFILE", "p.db ")
    assert launch.run_app(["--screenshot", str(tmp_path / "s.png")]) == 2
    assert "begins or ends with a space" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_switching_to_a_profile_name_with_a_stray_space_keeps_the_window_and_says_why(qtbot, tmp_path: Path) -> None:
    # third attack: "Open or create another…" with "real.db " opened a new, empty profile beside the
    # real one (and remembered it)
    window = launch.open_window(tmp_path / "real.db")
    seen: list[str] = []
    timer = _answer_dialogs(seen)
    try:
        assert launch.switch_window(tmp_path / "real.db ", window) is window
    finally:
        timer.stop()
    assert len(seen) == 1 and "begins or ends with a space" in seen[0]
    assert not (tmp_path / "real.db ").exists()
    window.close()


def test_a_screenshot_run_does_not_change_the_remembered_profile_and_it_is_kept_absolute(qapp, tmp_path: Path, monkeypatch) -> None:
    # attack on 97c91d7: `aesthete-gui --profile rel.db --screenshot x.png` remembered "rel.db", which
    # named another file when the app was next started from another folder
    import json

    state = tmp_path / "session.json"
    monkeypatch.setenv("AESTHETE_STATE_FILE", str(state))
    monkeypatch.chdir(tmp_path)
    assert launch.run_app(["--profile", "rel.db", "--screenshot", str(tmp_path / "s.png")]) == 0
    assert not state.exists() or "last_profile" not in json.loads(state.read_text())
    window = launch.open_window(Path("rel.db"))
    window.close()
    qapp.processEvents()
    assert json.loads(state.read_text())["last_profile"] == str(tmp_path / "rel.db")


@pytest.mark.parametrize("name", ["file.txt/p.db", "n" * 300 + ".db"], ids=["under-a-file", "name-too-long"])
def test_a_profile_path_that_cannot_exist_is_one_line_not_a_traceback(qapp, tmp_path: Path, capsys, name: str) -> None:
    (tmp_path / "file.txt").write_text("notes")
    code = launch.run_app(["--profile", str(tmp_path / name), "--screenshot", str(tmp_path / "s.png")])
    err = capsys.readouterr().err
    assert code == 2 and "aesthete-gui: error: profile" in err and "cannot be opened" in err and "Traceback" not in err
    assert (tmp_path / "file.txt").read_text() == "notes" and sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_switching_to_a_damaged_profile_keeps_the_current_window(qtbot, tmp_path: Path) -> None:
    window = launch.open_window(tmp_path / "good.db")
    qtbot.addWidget(window)
    window.show()
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\x10\x00\x02\x02" + b"\xff" * 3000)
    seen: list[str] = []
    timer = _answer_dialogs(seen)
    try:
        window.open_profile(damaged)  # the profile_requested signal asks the launcher to switch
    finally:
        timer.stop()
    assert len(seen) == 1 and str(damaged) in seen[0]
    assert window.isVisible() and window.context.profile_path == tmp_path / "good.db"
    assert window.context.profile.catalog.image_count() == 0  # the current profile still answers
    window.marks.close()
    window.close()


def test_a_profile_error_escaping_a_slot_shows_a_dialog_and_bugs_keep_the_report(
    qapp, tmp_path: Path, monkeypatch
) -> None:
    reported: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, trace: reported.append(kind))
    launch.install_error_dialog()
    seen: list[str] = []
    timer = _answer_dialogs(seen)
    try:
        sys.excepthook(ProfileDiskFullError, ProfileDiskFullError(tmp_path / "p.db"), None)
        sys.excepthook(ZeroDivisionError, ZeroDivisionError("a bug"), None)
    finally:
        timer.stop()
    assert reported == [ZeroDivisionError], (reported, seen)
    assert len(seen) == 1 and "the disk holding it is full" in seen[0]


def test_the_aesthete_gui_entry_point_shows_the_dialog_too(qapp, tmp_path: Path) -> None:
    from aesthete_gui.app import main

    (tmp_path / "p.db").write_text("not a profile")
    seen: list[str] = []
    timer = _answer_dialogs(seen)
    try:
        assert main(["--profile", str(tmp_path / "p.db")]) == 2
    finally:
        timer.stop()
    assert len(seen) == 1 and "not an Aesthete profile" in seen[0]


def test_a_read_only_profile_opens_with_a_warning_in_the_status_bar(qtbot, tmp_path: Path) -> None:
    from tests.robustness.corpus import real_profile
    from tests.robustness.fs_faults import read_only_file

    path = real_profile(tmp_path / "p.db")
    with read_only_file(path):
        window = launch.open_window(path)
        qtbot.addWidget(window)
        window.show()
        assert launch.warn_if_read_only(window) == "the file is not writable"
        assert "read-only" in window.statusBar().currentMessage()
        assert window.context.profile.catalog.image_count() == 40  # reading works
        window.marks.close()
        window.close()
        window.context.close()


def test_a_remembered_profile_name_with_a_stray_space_is_not_opened_again(tmp_path: Path, monkeypatch) -> None:
    # third attack: the dialog once remembered "real.db ", and the next start opened it again
    import json

    from aesthete_gui.settings import default_profile_path, gui_profile_path

    (tmp_path / "real.db ").write_bytes(b"")
    state = tmp_path / "session.json"
    state.write_text(json.dumps({"last_profile": str(tmp_path / "real.db ")}))
    monkeypatch.setenv("AESTHETE_STATE_FILE", str(state))
    monkeypatch.delenv("AESTHETE_PROFILE", raising=False)
    assert gui_profile_path(None) == default_profile_path()
