"""Hostile XMP sidecars: reading is total (one XmpError with a reason) and such a sidecar is never
rewritten; a rating that is no rating is an unreadable value, never clamped and never overwritten."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aesthete_gui.imaging.xmp import (
    MAX_SIDECAR_BYTES,
    MAX_XML_DEPTH,
    SidecarWriteError,
    XmpError,
    XmpMarks,
    read_sidecar,
    write_marks,
    write_sidecar,
)

HEAD = (
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"'
)
TAIL = "</rdf:RDF></x:xmpmeta>"


def rated(value: str) -> str:
    """A sidecar whose xmp:Rating attribute is `value`."""
    return f'{HEAD} xmp:Rating="{value}"/>{TAIL}'


def nested(depth: int) -> str:
    """A well-formed sidecar with `depth` nested elements inside its description."""
    return f"{HEAD}>" + "<xmp:Box>" * depth + "</xmp:Box>" * depth + f"</rdf:Description>{TAIL}"


ENTITY_BOMB = (
    '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
    + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
    + f']>{HEAD} xmp:Label="&i;"/>{TAIL}'
)

HOSTILE = {
    "nested_1000_deep": (nested(1000), f"nested more than {MAX_XML_DEPTH} deep"),
    "malformed": (HEAD + ' xmp:Rating="3"', "not valid XML"),
    "not_utf8": ("\udcff".encode("utf-8", "surrogateescape").decode("latin-1") + "<x/>", "not valid XML"),
    "entity_bomb": (ENTITY_BOMB, "document type declaration"),
}
UNREADABLE_RATINGS = ["1e400", "NaN", "-inf", "9" * 5000, "five", "abc", "99", "-7", "6", "5.6", "２", "٣"]  # full-width and Arabic-Indic digits: exiftool reads no number


def _image(folder: Path, name: str = "IMG_0001.jpg") -> Path:
    path = folder / name
    path.write_bytes(b"image bytes never touched")
    return path


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_sidecar_is_unreadable_with_a_reason_and_never_rewritten(tmp_path: Path, case: str) -> None:
    text, reason = HOSTILE[case]
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text(text, encoding="latin-1" if case == "not_utf8" else "utf-8")
    before = sidecar.read_bytes()
    with pytest.raises(XmpError, match=reason) as raised:
        read_sidecar(image)
    assert str(raised.value).startswith(f"sidecar unreadable: {sidecar}: ")
    with pytest.raises(SidecarWriteError, match="unreadable, left as it is"):
        write_sidecar(image, stars=4, flag="pick", label="Red")
    assert sidecar.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IMG_0001.jpg", "IMG_0001.xmp"]


def test_nesting_up_to_the_limit_is_read_and_merged(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    # x:xmpmeta, rdf:RDF and rdf:Description take three levels of the limit
    sidecar.write_text(nested(MAX_XML_DEPTH - 3).replace("<rdf:Description", '<rdf:Description xmp:Rating="2"', 1))
    assert read_sidecar(image) == XmpMarks(stars=2)
    write_sidecar(image, stars=5, flag=None, label=None)
    assert read_sidecar(image) == XmpMarks(stars=5)
    assert sidecar.read_text(encoding="utf-8").count("<xmp:Box") == MAX_XML_DEPTH - 3


def test_a_sidecar_larger_than_the_cap_is_not_read(tmp_path: Path) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    padding = "<!--" + "x" * MAX_SIDECAR_BYTES + "-->"
    sidecar.write_text(rated("3").replace("</x:xmpmeta>", padding + "</x:xmpmeta>"), encoding="utf-8")
    size = os.path.getsize(sidecar)
    with pytest.raises(XmpError, match=f"larger than {MAX_SIDECAR_BYTES // 2**20} MiB"):
        read_sidecar(image)
    with pytest.raises(SidecarWriteError, match="larger than"):
        write_sidecar(image, stars=1, flag=None, label=None)
    assert os.path.getsize(sidecar) == size


@pytest.mark.parametrize(("value", "marks"), [("3", XmpMarks(stars=3)), ("4.0", XmpMarks(stars=4)),
                                              ("-1", XmpMarks(flag="reject")), ("+2", XmpMarks(stars=2)),
                                              ("5.0", XmpMarks(stars=5))])  # fmt: skip
def test_ordinary_ratings_still_read(tmp_path: Path, value: str, marks: XmpMarks) -> None:
    image = _image(tmp_path)
    (tmp_path / "IMG_0001.xmp").write_text(rated(value), encoding="utf-8")
    assert read_sidecar(image) == marks


@pytest.mark.parametrize("value", UNREADABLE_RATINGS)
def test_a_rating_that_is_no_rating_is_unreadable_never_clamped_and_never_overwritten(tmp_path: Path, value: str) -> None:
    image = _image(tmp_path)
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text(rated(value).replace("/>", ' xmp:Label="Green"/>'), encoding="utf-8")
    marks = read_sidecar(image)
    assert marks is not None and marks.stars is None and marks.flag is None and marks.label == "Green"
    assert marks.is_unreadable("xmp:Rating") and "xmp:Rating is not a number from -1 to 5" in marks.unreadable[0]
    before = sidecar.read_bytes()
    for kwargs in ({"stars": 4, "flag": None}, {"stars": 0, "flag": "reject"}):
        with pytest.raises(SidecarWriteError, match=r"xmp:Rating is not a number from -1 to 5.*left as it is"):
            write_marks(image, label="Green", fields={"stars", "flag"}, **kwargs)  # type: ignore[arg-type]
        assert sidecar.read_bytes() == before
    write_marks(image, 0, None, "Blue", fields={"label"})  # another field may still change
    assert sidecar.read_bytes() == before.replace(b'"Green"', b'"Blue"')
    assert read_sidecar(image).label == "Blue"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IMG_0001.jpg", "IMG_0001.xmp"]
