"""A sidecar write changes only the bytes of Aesthete's three fields: comments, processing
instructions, qualifiers, other namespaces and layout survive byte-for-byte, and exiftool reads the
result (and every tag it read before) the same way."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from aesthete_gui.imaging.xmp import (
    SidecarWriteError,
    XmpMarks,
    read_sidecar,
    write_marks,
    write_sidecar,
)

EXIFTOOL = shutil.which("exiftool")
OURS = {"Rating", "Label", "PickLabel"}
HEAD = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" '
        'xmlns:ex="http://example.com/q/" xmlns:dc="http://purl.org/dc/elements/1.1/"')  # fmt: skip
TAIL = "</rdf:Description></rdf:RDF></x:xmpmeta>"
KEYWORDS = "<dc:subject><rdf:Bag><rdf:li>wedding</rdf:li><rdf:li>Ann &amp; Bo</rdf:li></rdf:Bag></dc:subject>"

QUALIFIED = {
    "description": f"{HEAD}><xmp:Rating><rdf:Description><rdf:value>4</rdf:value><ex:who>me</ex:who>"
                   f"</rdf:Description></xmp:Rating>{KEYWORDS}{TAIL}",
    "parse_type_resource": f'{HEAD}><xmp:Rating rdf:parseType="Resource"><rdf:value>4</rdf:value>'
                           f"<ex:who>me</ex:who></xmp:Rating>{KEYWORDS}{TAIL}",
    "value_attribute": f'{HEAD}><xmp:Rating><rdf:Description rdf:value="4" ex:who="me"/></xmp:Rating>{KEYWORDS}{TAIL}',
}
DUPLICATES = {
    "two_elements": f"{HEAD}><xmp:Rating>4</xmp:Rating><xmp:Rating>1</xmp:Rating>{TAIL}",
    "attribute_then_element": f'{HEAD} xmp:Rating="1"><xmp:Rating>4</xmp:Rating>{TAIL}',
    "two_descriptions": HEAD + ' xmp:Rating="1"/><rdf:Description rdf:about="" '
                        'xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Rating>4</xmp:Rating>' + TAIL,
}


def _exiftool(path: Path) -> dict:
    assert EXIFTOOL, "exiftool is required (Debian package libimage-exiftool-perl)"
    out = subprocess.run([EXIFTOOL, "-j", "-n", "-G1", "-a", "-struct", str(path)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    tags = json.loads(out.stdout)[0]
    return {k: v for k, v in tags.items() if k.startswith("XMP")}


def _others(tags: dict) -> dict:
    """Every tag exiftool read except Aesthete's three (and the qualifiers of our rating)."""
    return {k: v for k, v in tags.items() if k.split(":")[-1] not in OURS}


def _image(folder: Path, name: str = "IMG_0001.CR2") -> Path:
    path = folder / name
    path.write_bytes(b"raw bytes never touched")
    return path


def test_comments_and_processing_instructions_survive_byte_for_byte(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    text = ('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<!-- written by hand -->\n'
            '<?my-tool keep="this"?>\n' + HEAD + ' xmp:Rating="2">\n  <!-- a note inside -->\n  '
            + KEYWORDS + "\n  <?another pi?>\n" + TAIL + '\n<?xpacket end="w"?>')  # fmt: skip
    sidecar.write_text(text, encoding="utf-8")
    write_marks(image, 5, None, None, fields={"stars"})
    assert sidecar.read_text(encoding="utf-8") == text.replace('xmp:Rating="2"', 'xmp:Rating="5"')
    write_marks(image, 5, None, "Red", fields={"label"})
    after = sidecar.read_text(encoding="utf-8")
    assert after == text.replace('xmp:Rating="2"', 'xmp:Rating="5" xmp:Label="Red"')
    assert read_sidecar(image) == XmpMarks(stars=5, label="Red")


@pytest.mark.parametrize("case", sorted(QUALIFIED))
def test_a_qualified_rating_is_read_as_its_value_and_written_as_a_qualified_value(tmp_path: Path, case: str) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text(QUALIFIED[case], encoding="utf-8")
    before = _exiftool(sidecar)
    assert read_sidecar(image) == XmpMarks(stars=4)
    write_marks(image, 2, None, None, fields={"stars"})
    text = sidecar.read_text(encoding="utf-8")
    assert text == QUALIFIED[case].replace(">4<", ">2<").replace('"4"', '"2"')  # only the value moved
    assert "2<rdf:value>" not in text
    after = _exiftool(sidecar)
    assert after["XMP-xmp:Rating"] == 2 and after["XMP-xmp:RatingWho"] == "me"
    assert _others(after) == _others(before)
    assert read_sidecar(image) == XmpMarks(stars=2)


@pytest.mark.parametrize("case", sorted(DUPLICATES))
def test_a_duplicate_rating_is_read_as_exiftool_reads_it_and_a_write_sets_every_copy(tmp_path: Path, case: str) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text(DUPLICATES[case], encoding="utf-8")
    out = subprocess.run([EXIFTOOL or "exiftool", "-j", "-n", "-XMP-xmp:Rating", str(sidecar)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert read_sidecar(image).stars == json.loads(out.stdout)[0]["Rating"]  # the last one wins
    write_marks(image, 3, None, None, fields={"stars"})
    text = sidecar.read_text(encoding="utf-8")
    assert text == DUPLICATES[case].replace(">4<", ">3<").replace('"1"', '"3"').replace(">1<", ">3<")
    assert _exiftool(sidecar)["XMP-xmp:Rating"] == 3


def test_a_new_field_goes_into_an_exiftool_sidecar_without_touching_its_other_bytes(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    subprocess.run(
        [EXIFTOOL or "exiftool", "-q", "-o", str(sidecar), "-XMP-dc:Creator=Ann Example",
         "-XMP-dc:Subject=wedding", "-XMP-dc:Subject=ceremony", "-XMP-xmp:Rating=2",
         "-XMP-lr:HierarchicalSubject=People|Ann", "-XMP-crs:Exposure2012=-0.7"],
        check=True, capture_output=True,
    )  # fmt: skip
    original = sidecar.read_bytes()
    before = _exiftool(sidecar)
    write_marks(image, 2, "pick", "Green", fields={"flag", "label"})
    written = sidecar.read_bytes()
    added = len(written) - len(original)
    assert 0 < added < 150  # a label, a pick label and one namespace declaration
    after = _exiftool(sidecar)
    assert (after["XMP-xmp:Rating"], after["XMP-xmp:Label"], after["XMP-digiKam:PickLabel"]) == (2, "Green", 3)
    assert _others(after) == _others(before)
    write_marks(image, 2, None, None, fields={"flag", "label"})
    left = re.sub(rb'\s+xmlns:digiKam="http://www.digikam.org/ns/1.0/"', b"", sidecar.read_bytes())
    assert left == original  # taking the marks back leaves only the namespace declaration behind


def test_an_unknown_label_is_unreadable_and_never_replaced(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text(f'{HEAD} xmp:Label="Second" xmp:Rating="3">{TAIL}', encoding="utf-8")
    marks = read_sidecar(image)
    assert marks.label is None and marks.stars == 3 and marks.is_unreadable("xmp:Label")
    before = sidecar.read_bytes()
    with pytest.raises(SidecarWriteError, match=r"xmp:Label is not one of Red.*'Second'.*left as it is"):
        write_marks(image, 3, None, "Red", fields={"label"})
    assert sidecar.read_bytes() == before
    write_marks(image, 1, None, None, fields={"stars"})
    assert sidecar.read_bytes() == before.replace(b'"3"', b'"1"')


def test_a_rating_written_as_a_list_is_unreadable_and_refused_with_a_reason(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text(f"{HEAD}><xmp:Rating><rdf:Bag><rdf:li>3</rdf:li></rdf:Bag></xmp:Rating>{TAIL}")
    assert read_sidecar(image).unreadable == ("xmp:Rating is a list or a structure, not one value",)
    with pytest.raises(SidecarWriteError, match="xmp:Rating is a list or a structure, not one value; left as it is"):
        write_sidecar(image, 4, None, None)


def test_a_packet_without_rdf_is_refused_and_kept(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'><!-- empty --></x:xmpmeta>", encoding="utf-8")
    assert read_sidecar(image) == XmpMarks()
    with pytest.raises(SidecarWriteError, match="no rdf:RDF element"):
        write_sidecar(image, 4, None, None)
    assert sidecar.read_text(encoding="utf-8").endswith("<!-- empty --></x:xmpmeta>")


def test_a_utf16_sidecar_is_read_but_never_rewritten(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_bytes(f'<?xml version="1.0" encoding="UTF-16"?>{HEAD} xmp:Rating="3">{TAIL}'.encode("utf-16"))
    assert read_sidecar(image) == XmpMarks(stars=3)
    before = sidecar.read_bytes()
    with pytest.raises(SidecarWriteError, match="not UTF-8"):
        write_sidecar(image, 4, None, None)
    assert sidecar.read_bytes() == before


def test_random_marks_on_varied_sidecars_keep_every_other_tag_exiftool_reads(tmp_path: Path) -> None:
    """Seeded: each write changes what exiftool reports for our fields only."""
    rng = random.Random(19)
    bodies = [*QUALIFIED.values(), *DUPLICATES.values(),
              f'{HEAD} xmp:Rating="3" xmp:Label="Blue">{KEYWORDS}<!-- c -->{TAIL}',
              f"{HEAD}>\n <xmp:Label>purple</xmp:Label>\n {KEYWORDS}\n <ex:note>x &lt; y</ex:note>\n{TAIL}"]  # fmt: skip
    for index, body in enumerate(bodies):
        image = _image(tmp_path, f"IMG_{index}.NEF")
        sidecar = tmp_path / f"IMG_{index}.xmp"
        sidecar.write_text(body, encoding="utf-8")
        others = _others(_exiftool(sidecar))
        for _ in range(3):
            stars, flag = rng.randrange(6), rng.choice([None, "pick", "reject"])
            label = rng.choice([None, "Red", "Green"])
            write_sidecar(image, stars, flag, label)  # type: ignore[arg-type]
            tags = _exiftool(sidecar)
            assert tags["XMP-xmp:Rating"] == (-1 if flag == "reject" else stars), body
            assert tags.get("XMP-xmp:Label") == label
            assert tags.get("XMP-digiKam:PickLabel") == {"pick": 3, "reject": 1}.get(flag or "")
            assert _others(tags) == others, body
