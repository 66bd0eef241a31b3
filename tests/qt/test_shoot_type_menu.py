"""Culling ▸ Shoot type: a radio menu whose choice is the profile's setting and judges the checks again."""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image
from skimage import data as skdata

from aesthete_gui.services.library import import_folders
from aesthete_gui.services.verdicts import SHOOT_TYPE_SETTING, profile_shoot_type
from tests.qt.conftest import shown_main_window

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade


def test_choosing_a_shoot_type_judges_again_and_updates_the_suggestions(qtbot, app_context, tmp_path: Path) -> None:
    folder = tmp_path / "shoot"
    folder.mkdir()
    # σ 15.6 at normal viewing size: a warning in general, a reject on a tripod
    degrade.noise(Image.fromarray(skdata.astronaut()), 18.0).save(folder / "grainy.jpg", quality=95)
    import_folders(app_context.profile, [folder], workers=1)
    main = shown_main_window(qtbot, app_context)
    menu = next(a.menu() for a in main.menuBar().actions() if a.text() == "&Culling")
    shoot = next(a.menu() for a in menu.actions() if a.menu() is not None)
    labels = [a.text() for a in shoot.actions()]
    assert labels == ["General", "Wedding / event", "Sport / action", "Wildlife", "Landscape", "Studio / portrait"]
    assert main.shoot_type_actions["general"].isChecked()
    assert main.shoot_type_actions["landscape"].toolTip().startswith("Base ISO on a tripod")
    assert not any(r.suggested_reject for r in main.model.all_rows())

    with qtbot.waitSignal(app_context.signals.library_changed, timeout=10_000):
        main.shoot_type_actions["landscape"].trigger()
    assert main.shoot_type_actions["landscape"].isChecked() and not main.shoot_type_actions["general"].isChecked()
    assert app_context.settings[SHOOT_TYPE_SETTING] == "landscape"
    assert profile_shoot_type(app_context.profile) == "landscape"
    qtbot.waitUntil(lambda: any(r.suggested_reject for r in main.model.all_rows()), timeout=10_000)
