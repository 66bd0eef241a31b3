"""Marks through the service (profile first, then XMP), export formats, and features on import."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.imaging.features import FEATURE_NAMES, FEATURE_VERSION
from aesthete_gui.imaging.xmp import find_sidecar, read_sidecar
from aesthete_gui.services.library import (
    SidecarNotWritten,
    export,
    import_folders,
    mark_image,
    resolve_image,
)
from aesthete_gui.store import Profile, open_profile
from tests.services.library_images import write_jpeg


@pytest.fixture
def imported(tmp_path: Path):
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(3):
        write_jpeg(shoot / f"IMG_{n}.jpg", seed=20 + n)
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [shoot], workers=1)
    yield profile, shoot
    profile.close()


def test_set_mark_writes_the_profile_and_the_sidecar(imported: tuple[Profile, Path]) -> None:
    profile, shoot = imported
    image_id = resolve_image(profile, str(shoot / "IMG_0.jpg"))
    mark_image(profile, image_id, stars=2, label="Yellow")
    assert find_sidecar(shoot / "IMG_0.jpg") is None  # XMP only when asked
    mark = mark_image(profile, image_id, flag="reject", write_xmp=True)
    assert (mark.stars, mark.flag, mark.label) == (2, "reject", "Yellow")
    assert read_sidecar(shoot / "IMG_0.jpg").flag == "reject"
    assert resolve_image(profile, str(image_id)) == image_id
    with pytest.raises(KeyError):
        resolve_image(profile, str(shoot / "nope.jpg"))


def test_a_sidecar_that_cannot_be_written_keeps_the_mark_in_the_profile(imported: tuple[Profile, Path]) -> None:
    profile, shoot = imported
    image_id = resolve_image(profile, str(shoot / "IMG_1.jpg"))
    (shoot / "IMG_1.xmp").write_text("<not xml", encoding="utf-8")
    with pytest.raises(SidecarNotWritten, match=r"sidecar not written: .*IMG_1.xmp: unreadable"):
        mark_image(profile, image_id, stars=5, write_xmp=True)
    assert profile.marks.get(image_id).stars == 5
    assert (shoot / "IMG_1.xmp").read_text(encoding="utf-8") == "<not xml"


def test_export_csv_json_and_xmp(imported: tuple[Profile, Path], tmp_path: Path) -> None:
    profile, shoot = imported
    first = resolve_image(profile, str(shoot / "IMG_0.jpg"))
    gone = resolve_image(profile, str(shoot / "IMG_2.jpg"))
    profile.marks.set(first, stars=3, flag="pick", label="Red")
    profile.marks.set(gone, stars=1)
    profile.scores.put(first, "builtin", {"overall": 3.25, "mood": 2.0})
    text = export(profile, "csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    row = next(r for r in rows if r["id"] == str(first))
    assert (row["stars"], row["flag"], row["label"], row["builtin:overall"]) == ("3", "pick", "Red", "3.2500")
    result = export(profile, "json", tmp_path / "lib.json")
    data = json.loads((tmp_path / "lib.json").read_text(encoding="utf-8"))
    assert result.count == 3 and data[0]["scores"]["builtin"] == {"mood": 2.0, "overall": 3.25}
    (shoot / "IMG_2.jpg").unlink()
    xmp = export(profile, "xmp")
    assert xmp.count == 1 and [p for p, _ in xmp.problems] == [str(shoot / "IMG_2.jpg")]
    assert read_sidecar(shoot / "IMG_0.jpg").label == "Red"
    with pytest.raises(ValueError, match="unknown export format"):
        export(profile, "pdf")


def test_import_with_features_stores_one_vector_per_image(tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(4):
        write_jpeg(shoot / f"F_{n}.jpg", seed=40 + n)
    profile = open_profile(tmp_path / "p.db")
    assert import_folders(profile, [shoot], workers=1).imported == 4
    assert profile.catalog.features()[0] == []
    # Asking for features later reads the files that lack them, although they are unchanged.
    assert import_folders(profile, [shoot], workers=2, features=True).imported == 4
    assert import_folders(profile, [shoot], workers=2, features=True).unchanged == 4
    ids, names, matrix = profile.catalog.features()
    assert len(ids) == 4 and names == list(FEATURE_NAMES)
    assert matrix.shape == (4, len(FEATURE_NAMES)) and np.isfinite(matrix).all()
    assert profile.catalog.features(FEATURE_VERSION)[0] == ids
    profile.close()
