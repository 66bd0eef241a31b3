"""A sidecar with bytes after its packet's end: the marks reach it, the other bytes stay verbatim."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from aesthete_gui.services.library import (
    SidecarNotWritten,
    import_folders,
    mark_image,
    resolve_image,
)
from aesthete_gui.store import open_profile
from tests.services.library_images import write_jpeg

PACKET = b"""<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="2" dc:format="image/jpeg"/>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""
TAILS = {
    "nuls": b"\x00" * 200,
    "junk": b"\nappended by another program \xff\xfe\x01 <not xml",
    "text": b"\n-- end of file --\n",
    # plain words that are also XMP names: refused as "more XMP" until an attack (exiftool reads it)
    "words": b"\nLabel printer log: Rating sheet, RDF export\n",
}


def _exiftool_rating(sidecar: Path) -> list[object]:
    out = subprocess.run(["exiftool", "-a", "-j", "-XMP:Rating", str(sidecar)],
                         capture_output=True, check=True).stdout  # fmt: skip
    [tags] = json.loads(out)
    return [tags[key] for key in tags if key.startswith("Rating")]


@pytest.mark.parametrize("tail", list(TAILS))
def test_marks_reach_a_sidecar_with_bytes_after_its_packet_and_those_bytes_are_kept(
    tmp_path: Path, tail: str
) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    write_jpeg(shoot / "IMG_1.jpg", seed=3)
    sidecar = shoot / "IMG_1.xmp"
    sidecar.write_bytes(PACKET + TAILS[tail])
    with open_profile(tmp_path / "p.db") as profile:
        import_folders(profile, [shoot], workers=1)
        image_id = resolve_image(profile, str(shoot / "IMG_1.jpg"))
        assert profile.marks.get(image_id).stars == 2  # read at import, not "sidecar unreadable"
        mark_image(profile, image_id, stars=5, label="Green", write_xmp=True)
        assert (profile.marks.get(image_id).stars, profile.marks.get(image_id).label) == (
            5,
            "Green",
        )
    data = sidecar.read_bytes()
    assert data.endswith(b'<?xpacket end="w"?>' + TAILS[tail])  # the other program's bytes verbatim
    assert (
        b'xmp:Rating="5"' in data
        and b'xmp:Label="Green"' in data
        and b'dc:format="image/jpeg"' in data
    )
    if shutil.which("exiftool"):
        assert _exiftool_rating(sidecar) == [5]


def test_a_second_packet_after_the_end_is_refused_in_one_line_and_the_mark_stays_in_the_profile(
    tmp_path: Path,
) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    write_jpeg(shoot / "IMG_1.jpg", seed=4)
    sidecar = shoot / "IMG_1.xmp"
    before = PACKET + b"\n" + PACKET.replace(b'xmp:Rating="2"', b'xmp:Rating="4"')
    sidecar.write_bytes(before)
    with open_profile(tmp_path / "p.db") as profile:
        import_folders(profile, [shoot], workers=1)
        image_id = resolve_image(profile, str(shoot / "IMG_1.jpg"))
        with pytest.raises(
            SidecarNotWritten, match=r"IMG_1\.xmp: .*more XMP follows the packet's end"
        ) as raised:
            mark_image(profile, image_id, stars=5, write_xmp=True)
        assert "\n" not in str(raised.value)
        assert profile.marks.get(image_id).stars == 5
    assert sidecar.read_bytes() == before
