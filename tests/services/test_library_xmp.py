"""XMP sidecars: merge-writes that exiftool reads back, naming rules, and nothing clobbered."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from aesthete_gui.imaging.xmp import (
    SidecarWriteError,
    XmpError,
    XmpMarks,
    find_sidecar,
    read_sidecar,
    read_xmp_file,
    sidecar_path_for_writing,
    write_sidecar,
)

EXIFTOOL = shutil.which("exiftool")


def _exiftool(*args: str) -> list[dict]:
    assert EXIFTOOL, "exiftool is required (Debian package libimage-exiftool-perl)"
    out = subprocess.run([EXIFTOOL, "-j", "-n", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _image(folder: Path, name: str = "IMG_0001.CR2") -> Path:
    path = folder / name
    path.write_bytes(b"original bytes that must never change")
    return path


def test_exiftool_reads_back_what_was_set(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = write_sidecar(image, stars=4, flag="pick", label="Green")
    [tags] = _exiftool("-XMP:Rating", "-XMP:Label", "-XMP-digiKam:PickLabel", str(sidecar))
    assert (tags["Rating"], tags["Label"], tags["PickLabel"]) == (4, "Green", 3)
    write_sidecar(image, stars=4, flag="reject", label=None)
    [tags] = _exiftool("-XMP:Rating", "-XMP:Label", "-XMP-digiKam:PickLabel", str(sidecar))
    assert tags["Rating"] == -1 and tags["PickLabel"] == 1 and "Label" not in tags
    assert image.read_bytes() == b"original bytes that must never change"


def test_existing_fields_written_by_exiftool_survive_a_merge(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    subprocess.run(
        [EXIFTOOL or "exiftool", "-q", "-o", str(sidecar), "-XMP-dc:Creator=Ann Example",
         "-XMP-dc:Subject=wedding", "-XMP-dc:Subject=ceremony", "-XMP-xmp:Rating=2",
         "-XMP-lr:HierarchicalSubject=People|Ann", "-XMP-xmp:Label=Blue"],
        check=True, capture_output=True,
    )  # fmt: skip
    assert read_sidecar(image) == XmpMarks(stars=2, flag=None, label="Blue")
    assert write_sidecar(image, stars=5, flag=None, label="Red") == sidecar
    [tags] = _exiftool("-XMP:all", str(sidecar))
    assert tags["Rating"] == 5 and tags["Label"] == "Red"
    assert tags["Creator"] == "Ann Example"
    assert tags["Subject"] == ["wedding", "ceremony"]
    assert tags["HierarchicalSubject"] == "People|Ann"
    assert "PickLabel" not in tags
    assert read_sidecar(image) == XmpMarks(stars=5, flag=None, label="Red")


def test_reads_ratings_written_by_exiftool_in_element_form(tmp_path: Path) -> None:
    image = _image(tmp_path, "a.jpg")
    sidecar = tmp_path / "a.jpg.xmp"
    sidecar.write_text(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
        'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" '
        'xmlns:darktable="http://darktable.sf.net/"><xmp:Rating>3</xmp:Rating>'
        "<xmp:Label>purple</xmp:Label><darktable:history_end>4</darktable:history_end>"
        "</rdf:Description></rdf:RDF></x:xmpmeta>",
        encoding="utf-8",
    )
    assert read_sidecar(image) == XmpMarks(stars=3, label="Purple")
    write_sidecar(image, stars=1, flag=None, label="Yellow")
    text = sidecar.read_text(encoding="utf-8")
    assert "darktable:history_end" in text and "<xmp:Rating>1</xmp:Rating>" in text
    [tags] = _exiftool("-XMP:all", str(sidecar))
    assert tags["Rating"] == 1 and tags["Label"] == "Yellow" and tags["History_end"] == 4


def test_reject_as_minus_one_is_read_as_reject(tmp_path: Path) -> None:
    image = _image(tmp_path, "b.nef")
    subprocess.run([EXIFTOOL or "exiftool", "-q", "-o", str(tmp_path / "b.xmp"), "-XMP-xmp:Rating=-1"],
                   check=True, capture_output=True)  # fmt: skip
    assert read_sidecar(image) == XmpMarks(stars=None, flag="reject", label=None)


def test_sidecar_naming(tmp_path: Path) -> None:
    single = _image(tmp_path, "solo.CR2")
    assert sidecar_path_for_writing(single) == tmp_path / "solo.xmp"
    raw, jpeg = _image(tmp_path, "pair.CR2"), _image(tmp_path, "pair.JPG")
    assert sidecar_path_for_writing(raw) == tmp_path / "pair.xmp"  # the RAW is the master: Lightroom's name
    assert sidecar_path_for_writing(jpeg) == tmp_path / "pair.JPG.xmp"  # the JPEG never takes the RAW's
    assert sidecar_path_for_writing(jpeg, naming="stem") == tmp_path / "pair.JPG.xmp"
    assert sidecar_path_for_writing(single, naming="full") == tmp_path / "solo.CR2.xmp"
    (tmp_path / "pair.CR2.xmp").write_text("<x/>")
    assert find_sidecar(raw) == tmp_path / "pair.CR2.xmp"
    assert find_sidecar(jpeg) is None
    assert read_sidecar(single) is None


def test_unreadable_sidecar_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    image = _image(tmp_path, "c.jpg")
    sidecar = tmp_path / "c.xmp"
    sidecar.write_text("<x:xmpmeta this is not xml", encoding="utf-8")
    with pytest.raises(XmpError, match="not valid XML"):
        read_sidecar(image)
    with pytest.raises(SidecarWriteError, match="unreadable, left as it is"):
        write_sidecar(image, stars=3, flag=None, label=None)
    assert sidecar.read_text(encoding="utf-8") == "<x:xmpmeta this is not xml"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_bad_values_are_refused(tmp_path: Path) -> None:
    image = _image(tmp_path, "d.jpg")
    for kwargs in ({"stars": 6, "flag": None, "label": None}, {"stars": 1, "flag": "x", "label": None},
                   {"stars": 1, "flag": None, "label": "Orange"}):  # fmt: skip
        with pytest.raises(ValueError):
            write_sidecar(image, **kwargs)
    assert find_sidecar(image) is None


def test_read_xmp_file_of_missing_file_is_an_xmp_error(tmp_path: Path) -> None:
    with pytest.raises(XmpError):
        read_xmp_file(tmp_path / "none.xmp")
