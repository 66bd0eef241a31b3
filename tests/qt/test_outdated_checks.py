"""A profile checked by an older Aesthete: the window measures those photographs again by itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PIL import Image
from skimage import data as skdata

from aesthete_gui.services.library import import_folders
from tests.qt.conftest import shown_main_window


def _imported_shoot(app_context, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The app's profile with two real photographs imported from a folder of their own."""
    folder = tmp_path / "shoot"
    folder.mkdir()
    for name, img in (("cat.jpg", skdata.chelsea()), ("coffee.jpg", skdata.coffee())):
        Image.fromarray(img).save(folder / name, quality=92)
    import_folders(app_context.profile, [folder], workers=1, cache_dir=app_context.cache_dir)
    return app_context.profile


def test_the_window_measures_again_what_an_older_version_checked(qtbot, app_context, tmp_path: Path) -> None:
    profile = _imported_shoot(app_context, tmp_path)
    with sqlite3.connect(profile.path) as conn:  # as an older Aesthete left it
        conn.execute("UPDATE image_checks SET version = '6+faces'")
    assert profile.checks.outdated_count() == 2 and profile.checks.checked_ids() == set()

    window = shown_main_window(qtbot, app_context)
    qtbot.waitUntil(lambda: profile.checks.outdated_count() == 0, timeout=60_000)
    assert len(profile.checks.checked_ids()) == 2
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    # the count itself is a hidden job: a profile on a slow disk never holds the window's start-up
    handle = window.remeasure_outdated()
    assert not handle.visible
    qtbot.waitUntil(lambda: handle.done, timeout=10_000)
    assert not window.context.runner.active_jobs() or all(not h.visible for h in window.context.runner.active_jobs())


def _as_an_older_version_judged(profile_path: Path) -> None:
    """Stored verdicts stamped by other judging code, each saying so, and the bursts grouped by older grouping."""
    import json

    with sqlite3.connect(profile_path) as conn:
        for image_id, text in conn.execute("SELECT image_id, checks FROM image_checks").fetchall():
            checks = [{**c, "judged": "older." + c.get("judged", ":")} for c in json.loads(text)]
            checks = [{**c, "reason": "judged by an older version"} if c["name"] == "focus" else c for c in checks]
            conn.execute("UPDATE image_checks SET checks = ?, updated_at = updated_at + 1 WHERE image_id = ?",
                         (json.dumps(checks), image_id))  # written as any version writes a row: at a new time
        conn.execute("UPDATE library_state SET value = 'older' WHERE key = 'burst_grouping'")


def test_the_window_judges_again_what_an_older_version_judged(qtbot, app_context, tmp_path: Path) -> None:
    profile = _imported_shoot(app_context, tmp_path)
    _as_an_older_version_judged(profile.path)
    from aesthete_gui.services.verdicts import verdicts_outdated

    assert verdicts_outdated(profile)
    shown_main_window(qtbot, app_context)
    qtbot.waitUntil(lambda: not verdicts_outdated(profile), timeout=60_000)
    reasons = [c["reason"] for checks, _ in profile.checks.all().values() for c in checks]
    assert "judged by an older version" not in reasons
