"""File ▸ Open profile…, Esc, then marks from the command line and the window: none is lost (issue 20).

Qt's file dialog used to read the first bytes of every file it listed, the open profile and its -wal
and -shm files included; closing those reads dropped the window's locks on the profile, and the next
`aesthete` command deleted the WAL the window was writing into.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog

from aesthete_gui.store import ImageUpdate, open_profile
from tests.qt.conftest import shown_main_window

CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]


def _posix_locks(path: Path) -> int:
    """How many fcntl (process) locks this process holds on the file (Linux's /proc/locks)."""
    inode = os.stat(path).st_ino
    with open("/proc/locks") as table:
        return sum(
            1 for line in table
            if " POSIX " in line and f" {os.getpid()} " in line and f":{inode} " in line
        )  # fmt: skip


def _press_escape_in_the_dialog(qtbot, seen: list[QFileDialog]) -> None:
    dialog = QApplication.activeModalWidget()
    if not isinstance(dialog, QFileDialog):
        QTimer.singleShot(50, lambda: _press_escape_in_the_dialog(qtbot, seen))
        return
    seen.append(dialog)
    QTimer.singleShot(300, lambda: qtbot.keyClick(dialog, Qt.Key.Key_Escape))  # let it list the folder


def _cli_mark(profile: Path, image_id: int, stars: int) -> None:
    done = subprocess.run([*CLI, "--profile", str(profile), "mark", str(image_id), "--stars", str(stars)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/locks is Linux's")
def test_the_open_profile_dialog_keeps_every_mark(qtbot, app_context, tmp_path: Path) -> None:
    path = app_context.profile_path
    ids = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(tmp_path / f"IMG_{n}.jpg"), folder_id=None, status="ok") for n in range(4)]
    )
    window = shown_main_window(qtbot, app_context, xmp=False)
    locks = _posix_locks(path)
    assert locks > 0
    seen: list[QFileDialog] = []
    QTimer.singleShot(0, lambda: _press_escape_in_the_dialog(qtbot, seen))
    action = next(a for a in window.findChildren(QAction) if a.text() == "Open &profile…")
    action.trigger()  # runs the dialog until Esc
    assert seen and seen[0].testOption(QFileDialog.Option.DontUseNativeDialog)
    assert _posix_locks(path) == locks  # the dialog read none of the profile's files

    _cli_mark(path, ids[0], 1)
    window.marks.mark([ids[1]], stars=2)
    window.marks.wait_written()
    _cli_mark(path, ids[2], 3)
    window.marks.mark([ids[3]], stars=4)
    window.marks.wait_written()
    window.close()
    qtbot.waitUntil(lambda: not app_context.runner.active_jobs(), timeout=10_000)
    app_context.close()
    reopened = open_profile(path)
    assert [reopened.marks.get(i).stars for i in ids] == [1, 2, 3, 4]
    reopened.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/locks is Linux's")
def test_a_folder_chooser_in_the_profiles_folder_reads_none_of_its_files(qtbot, app_context) -> None:
    from aesthete_gui.qt.file_dialogs import choose_folder

    path = app_context.profile_path
    app_context.profile.catalog.image_count()
    locks = _posix_locks(path)
    seen: list[QFileDialog] = []
    QTimer.singleShot(0, lambda: _press_escape_in_the_dialog(qtbot, seen))
    assert choose_folder(None, "Open a folder of photographs", str(path.parent)) == ""
    assert seen and _posix_locks(path) == locks
