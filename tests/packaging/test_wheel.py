"""The wheel installs into a fresh environment and works there without the checkout.

Builds the sdist and the wheel from it, installs the wheel into a new venv, and from a folder outside
the checkout runs `aesthete --help`, imports a folder of photos, and renders `aesthete-gui
--screenshot` offscreen. About half a minute on two cores; see Makefile `package-check`.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.packaging.installed import REPO, build_wheel, make_venv, run
from tests.services.library_images import write_jpeg

pytestmark = pytest.mark.slow

RESOURCE_CHECK = """
import json, aesthete_gui
from aesthete_gui.engine.rubrics import list_presets
from aesthete_gui.engine.prompts import prompts_dir
from aesthete_gui.ml.registry import list_cards
from aesthete_gui.qt.theme import style_sheet
from aesthete_gui.resources import checkout_root, resource_dir
print(json.dumps({
    "package": aesthete_gui.__file__,
    "checkout": str(checkout_root()),
    "folders": {kind: str(resource_dir(kind)) for kind in ("rubrics", "prompts", "styles", "grpo", "desktop", "models")},
    "presets": list_presets(),
    "protocols": (prompts_dir() / "protocols.toml").is_file(),
    "cards": len(list_cards()),
    "dark_qss": len(style_sheet("dark")),
}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a fresh venv holding only the freshly built wheel (plus third-party dependencies)."""
    root = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(root / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert "aesthete_gui/data/rubrics/photography.toml" in names
    assert "aesthete_gui/data/models/qwen3-vl-2b-instruct.toml" in names
    assert "aesthete_gui/data/desktop/org.aesthete.Aesthete.desktop" in names
    for name in ("face_detection_short_range.tflite", "face_landmark.tflite", "LICENSE", "README.md"):
        assert f"aesthete_gui/data/faces/{name}" in names
    return make_venv(root / "venv", wheel)


def test_installed_package_reads_its_own_resources(installed: Path, tmp_path: Path) -> None:
    venv_root = installed.parent.resolve()
    report = json.loads(run([str(installed / "python"), "-c", RESOURCE_CHECK], cwd=tmp_path).stdout)
    assert Path(report["package"]).resolve().is_relative_to(venv_root)
    assert report["checkout"] == "None"
    for kind, folder in report["folders"].items():
        assert Path(folder).resolve().is_relative_to(venv_root), kind
        assert not Path(folder).resolve().is_relative_to(REPO), kind
    assert report["presets"] == ["illustration", "painting", "photography", "rendering"]
    assert report["protocols"] is True
    assert report["cards"] == len(list((REPO / "models").glob("*.toml")))
    assert report["dark_qss"] > 100


def test_installed_commands_import_a_folder_and_render_the_window(installed: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
           "XDG_CONFIG_HOME": str(home / "config"), "QT_QPA_PLATFORM": "offscreen"}  # fmt: skip
    assert "import" in run([str(installed / "aesthete"), "--help"], cwd=tmp_path, **env).stdout

    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for seed in range(4):
        write_jpeg(shoot / f"frame-{seed}.jpg", seed)
    profile = tmp_path / "profile.db"
    aesthete = [str(installed / "aesthete"), "--profile", str(profile)]
    run([*aesthete, "import", str(shoot)], cwd=tmp_path, **env)
    listed = run([*aesthete, "images"], cwd=tmp_path, **env).stdout
    assert all(f"frame-{seed}.jpg" in listed for seed in range(4))

    out = tmp_path / "window.png"
    gui = run([str(installed / "aesthete-gui"), "--profile", str(profile), "--size", "1280x800",
               "--screenshot", str(out)], cwd=tmp_path, timeout=300, **env)  # fmt: skip
    assert "not found" not in gui.stderr, gui.stderr
    with Image.open(out) as shot:
        assert shot.size == (1280, 800)
        pixels = np.asarray(shot.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 200  # thumbnails, text and chrome, not a blank window
