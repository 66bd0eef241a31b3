"""A setting changed elsewhere while the window is open is kept when the window saves its own (issue 20).

The window used to keep the whole settings file in memory and write all of it back on any change,
so the shoot type `aesthete import --shoot-type wedding` remembered was reset by the next unrelated
click in the open window.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from aesthete_gui.qt.context import AppSettings
from aesthete_gui.services.verdicts import profile_shoot_type
from aesthete_gui.settings import profile_settings, profile_settings_path, update_profile_settings

REMEMBER = "import sys; from aesthete_gui.services.verdicts import remember_shoot_type; remember_shoot_type(sys.argv[1], 'wedding')"


def test_a_shoot_type_set_by_another_process_survives_a_setting_changed_in_the_window(app_context) -> None:
    profile_path = app_context.profile_path
    app_context.set_setting("theme", "light")  # the window has written its file once
    subprocess.run([sys.executable, "-c", REMEMBER, str(profile_path)], check=True, timeout=120)  # as `import --shoot-type`
    assert profile_shoot_type(profile_path) == "wedding"
    app_context.set_setting("raw_jpeg_pairs_as_one", True)  # Edit ▸ Treat RAW+JPEG pairs as one
    assert profile_shoot_type(profile_path) == "wedding"
    assert profile_settings(profile_path)["raw_jpeg_pairs_as_one"] is True
    assert app_context.settings["shoot_type"] == "wedding"  # and the window's copy learnt it
    del app_context.settings["theme"]
    assert profile_settings(profile_path).get("shoot_type") == "wedding"
    assert "theme" not in profile_settings(profile_path)


def test_writers_of_different_keys_at_the_same_time_keep_each_other_s(tmp_path: Path) -> None:
    profile_path = tmp_path / "p.aesthete.db"
    window = AppSettings(profile_settings_path(profile_path))

    def others(worker: int) -> None:
        for n in range(40):
            update_profile_settings(profile_path, **{f"key_{worker}_{n}": n})

    threads = [threading.Thread(target=others, args=(w,)) for w in range(3)]
    for thread in threads:
        thread.start()
    for n in range(40):
        window[f"window_{n}"] = n
    for thread in threads:
        thread.join()
    stored = profile_settings(profile_path)
    assert {f"key_{w}_{n}" for w in range(3) for n in range(40)} <= stored.keys()
    assert {f"window_{n}" for n in range(40)} <= stored.keys()
