"""Faces and eyes on real portraits (scikit-image's astronaut, matplotlib's Grace Hopper)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.imaging import faces
from aesthete_gui.imaging.checks import analyse_path


@pytest.fixture
def fresh_cascades() -> Iterator[None]:
    faces._cascades.cache_clear()
    yield
    faces._cascades.cache_clear()


def _grace_hopper() -> Image.Image:
    import matplotlib

    path = Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg"
    with Image.open(path) as img:
        return img.convert("RGB")


def test_without_opencv_faces_are_unavailable_and_say_what_to_install(
    monkeypatch: pytest.MonkeyPatch, fresh_cascades: None, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "cv2", None)  # as if the optional package were not installed
    assert faces.unavailable_reason() == faces.INSTALL_HINT
    assert faces.unavailable_reason().startswith("face checks unavailable: install")
    assert faces.detect_faces(Image.fromarray(skdata.astronaut())) == []
    path = tmp_path / "astronaut.png"
    Image.fromarray(skdata.astronaut()).save(path)
    analysis = analyse_path(path)
    assert analysis.faces == [] and "+faces" not in analysis.version


def test_an_opencv_without_the_bundled_cascades_means_unavailable_not_a_failed_import(
    monkeypatch: pytest.MonkeyPatch, fresh_cascades: None, tmp_path: Path
) -> None:
    # OpenCV 5 wheels dropped CascadeClassifier: an import must still run, without faces.
    import types

    monkeypatch.setitem(sys.modules, "cv2", types.SimpleNamespace(data=types.SimpleNamespace(haarcascades="/")))
    assert faces.unavailable_reason() == faces.INSTALL_HINT
    path = tmp_path / "astronaut.png"
    Image.fromarray(skdata.astronaut()).save(path)
    assert analyse_path(path).faces == []


@pytest.mark.parametrize("portrait", ["astronaut", "grace_hopper"])
def test_portrait_face_found_with_open_eyes(portrait: str, fresh_cascades: None) -> None:
    pytest.importorskip("cv2", reason="the optional faces extra (opencv-python-headless)")
    img = Image.fromarray(skdata.astronaut()) if portrait == "astronaut" else _grace_hopper()
    found = faces.detect_faces(img)
    assert len(found) == 1
    x, y, w, h = found[0].box
    assert 0.0 <= x < 1 and 0.0 <= y < 0.5 and 0.1 < w < 0.6 and 0.1 < h < 0.6
    assert found[0].eyes == "open"


def test_focus_is_judged_on_the_face(tmp_path: Path, fresh_cascades: None) -> None:
    pytest.importorskip("cv2", reason="the optional faces extra (opencv-python-headless)")
    img = Image.fromarray(skdata.astronaut())
    path = tmp_path / "portrait.png"
    img.save(path)
    analysis = analyse_path(path)
    assert len(analysis.faces) == 1 and analysis.faces[0].sharpness > 2.0
    focus = next(c for c in analysis.checks if c.name == "focus")
    assert focus.value == pytest.approx(analysis.faces[0].sharpness)
    assert analysis.version.endswith("+faces")
