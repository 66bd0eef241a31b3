"""Coming back to the app syncs XMP sidecars off the UI thread: an exiftool edit shows up in the profile."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from PySide6.QtCore import Qt

from aesthete_gui.qt.sidecar_watch import SidecarWatcher
from aesthete_gui.services.library import import_folders

EXIFTOOL = shutil.which("exiftool")


def test_regaining_focus_takes_in_a_sidecar_edit_made_elsewhere(
    qtbot, app_context, image_folder: Path
) -> None:
    assert EXIFTOOL, "exiftool is required (Debian package libimage-exiftool-perl)"
    first = sorted(image_folder.glob("*.jpg"))[0]
    sidecar = first.with_suffix(".xmp")
    subprocess.run(
        [EXIFTOOL, "-q", "-o", str(sidecar), "-XMP-xmp:Rating=2"], check=True, capture_output=True
    )
    import_folders(app_context.profile, [image_folder], workers=1, cache_dir=app_context.cache_dir)
    image = app_context.profile.catalog.image_by_path(str(first))
    assert app_context.profile.marks.get(image.id).stars == 2
    watcher = SidecarWatcher(app_context)
    changed: list[list[int]] = []
    app_context.signals.marks_changed.connect(changed.append)
    reloads: list[bool] = []
    app_context.signals.library_changed.connect(lambda: reloads.append(True))  # the grid re-reads its rows

    time.sleep(0.02)
    subprocess.run([EXIFTOOL, "-q", "-overwrite_original", "-XMP-xmp:Rating=5", str(sidecar)], check=True,
                   capture_output=True)  # fmt: skip
    watcher.application_state_changed(Qt.ApplicationState.ApplicationActive)
    assert watcher._job is None  # never left: nothing to do
    watcher.application_state_changed(Qt.ApplicationState.ApplicationInactive)
    watcher.application_state_changed(Qt.ApplicationState.ApplicationActive)
    job = watcher._job
    assert job is not None
    qtbot.waitUntil(lambda: job.done, timeout=10_000)
    assert job.result.adopted == 1
    assert app_context.profile.marks.get(image.id).stars == 5
    qtbot.waitUntil(lambda: [image.id] in changed, timeout=5_000)
    qtbot.waitUntil(lambda: reloads == [True], timeout=5_000)
