"""Sidecars for images whose names are near the file system's limit (255 bytes on common file systems)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aesthete_gui.imaging.xmp import SidecarWriteError, XmpMarks, read_sidecar, write_sidecar


def _image(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_bytes(b"image bytes")
    return path


def _limit(folder: Path) -> int:
    return os.pathconf(folder, "PC_NAME_MAX")


@pytest.mark.parametrize("naming", ["auto", "full", "stem"])
def test_a_250_byte_name_gets_a_sidecar(tmp_path: Path, naming: str) -> None:
    image = _image(tmp_path, "é" * 100 + "x" * 46 + ".jpg")
    assert len(os.fsencode(image.name)) == 250
    sidecar = write_sidecar(image, stars=3, flag=None, label="Blue", naming=naming)  # type: ignore[arg-type]
    expected = image.name + ".xmp" if naming == "full" else image.stem + ".xmp"
    assert sidecar.name == expected and sidecar.is_file()
    assert read_sidecar(image) == XmpMarks(stars=3, label="Blue")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([image.name, expected])


def test_a_full_name_past_the_limit_falls_back_to_the_stem(tmp_path: Path) -> None:
    image = _image(tmp_path, "y" * (_limit(tmp_path) - 4) + ".jpg")
    sidecar = write_sidecar(image, stars=2, flag=None, label=None, naming="full")
    assert sidecar == tmp_path / (image.stem + ".xmp")
    assert read_sidecar(image) == XmpMarks(stars=2)


def test_no_possible_sidecar_name_is_a_clear_error(tmp_path: Path) -> None:
    limit = _limit(tmp_path)
    bare = _image(tmp_path, "z" * limit)  # no extension: both names would be limit + 4 bytes
    with pytest.raises(SidecarWriteError, match=f"longer than {limit} bytes.*rename the image"):
        write_sidecar(bare, stars=1, flag=None, label=None)
    _image(tmp_path, "w" * (limit - 4) + ".CR2")
    jpeg = _image(tmp_path, "w" * (limit - 4) + ".JPG")  # a RAW+JPEG pair: the short name is the RAW's
    with pytest.raises(SidecarWriteError, match="the shorter name belongs to another image"):
        write_sidecar(jpeg, stars=1, flag=None, label=None)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith((".xmp", ".tmp"))]


def test_a_photo_named_like_another_photo_plus_an_extension_keeps_its_own_sidecar(tmp_path: Path) -> None:
    # an attack: `A.png` and its conversion `A.png.JPG` shared `A.png.xmp`, so marking one changed the other
    png, jpg = _image(tmp_path, "A.png"), _image(tmp_path, "A.png.JPG")
    assert write_sidecar(jpg, stars=5, flag="pick", label=None).name == "A.png.JPG.xmp"
    assert write_sidecar(png, stars=0, flag="reject", label=None).name == "A.xmp"
    assert read_sidecar(jpg) == XmpMarks(stars=5, flag="pick")
    assert read_sidecar(png).flag == "reject" and read_sidecar(png).stars in (0, None)  # type: ignore[union-attr]


def test_a_stranger_sidecar_named_after_the_stem_is_not_read(tmp_path: Path) -> None:
    # a move put `A.png.JPG` beside someone's `A.png.xmp` (the sidecar of a photo `A.png` not there)
    jpg = _image(tmp_path, "A.png.JPG")
    (tmp_path / "A.png.xmp").write_text(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3"/></rdf:RDF></x:xmpmeta>',
        encoding="utf-8",
    )
    assert read_sidecar(jpg) is None or read_sidecar(jpg) == XmpMarks()
    assert write_sidecar(jpg, stars=2, flag=None, label=None).name == "A.png.JPG.xmp"
    assert "xmp:Rating=\"3\"" in (tmp_path / "A.png.xmp").read_text(encoding="utf-8")


def test_a_jpeg_beside_a_case_twin_is_no_pair_half_for_the_raws_sidecar(tmp_path: Path) -> None:
    # a second attack: with pairs as one, a mark of B.JPG beside B.CR2 and a phone's b.jpg rewrote B.xmp,
    # the RAW's sidecar, though the profile (case-insensitive) saw no pair there
    raw, jpg, twin = _image(tmp_path, "B.CR2"), _image(tmp_path, "B.JPG"), _image(tmp_path, "b.jpg")
    assert write_sidecar(raw, stars=1, flag=None, label="Red", pairs_as_one=True).name == "B.xmp"
    assert write_sidecar(jpg, stars=3, flag=None, label="Green", pairs_as_one=True).name == "B.JPG.xmp"
    assert write_sidecar(twin, stars=2, flag=None, label="Yellow", pairs_as_one=True).name == "b.jpg.xmp"
    assert read_sidecar(raw) == XmpMarks(stars=1, label="Red")
    # a true pair still shares NAME.xmp with pairs as one
    pair = tmp_path / "pair"
    pair.mkdir()
    raw2, jpg2 = _image(pair, "C.CR2"), _image(pair, "C.JPG")
    assert write_sidecar(raw2, stars=4, flag=None, label=None, pairs_as_one=True).name == "C.xmp"
    assert read_sidecar(jpg2, pairs_as_one=True) == XmpMarks(stars=4)


def test_two_jpegs_whose_names_differ_only_in_case_keep_their_own_stem_sidecars(tmp_path: Path) -> None:
    # a review: grouping owners without regard to case left IMG_1.jpg without the IMG_1.xmp it had
    upper, lower = _image(tmp_path, "IMG_1.jpg"), _image(tmp_path, "img_1.jpg")
    assert write_sidecar(upper, stars=2, flag=None, label=None).name == "IMG_1.xmp"
    assert write_sidecar(lower, stars=4, flag=None, label=None).name == "img_1.xmp"
    assert read_sidecar(upper) == XmpMarks(stars=2) and read_sidecar(lower) == XmpMarks(stars=4)
