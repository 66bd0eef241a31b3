"""XMP sidecars: read and merge-write stars, pick/reject and colour label the way photo tools read them.

Fields written (each is what Lightroom, darktable, digiKam and Capture One read):
- stars: `xmp:Rating` 0..5; a reject is `xmp:Rating = -1` (the common convention of all four).
- pick / reject: `digiKam:PickLabel` (3 = accepted, 1 = rejected, removed when unflagged). Lightroom
  keeps its pick flag in its catalogue only, so no XMP field carries it there; a pick therefore
  leaves `xmp:Rating` at the stars and is visible in digiKam (and to exiftool) only.
- colour label: `xmp:Label` with the English names Red, Yellow, Green, Blue, Purple.

Sidecar names: `IMG_0001.CR2.xmp` (darktable, digiKam) and `IMG_0001.xmp` (Lightroom, Capture One,
digiKam) are both read, the full name first. Writing updates the sidecar that exists; a new one is
named `IMG_0001.xmp` unless another image in the folder shares the stem (a RAW+JPEG pair), in
which case `IMG_0001.CR2.xmp` keeps the two apart; `naming="full"` / `"stem"` forces a style.

An existing sidecar is merged: every other field, namespace and element is kept. Writes go to a
temporary file that is fsynced and renamed over the sidecar, so a crash leaves the old or the new
sidecar, never half of one. Original image files are never opened for writing.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XMP = "http://ns.adobe.com/xap/1.0/"
DIGIKAM = "http://www.digikam.org/ns/1.0/"
X = "adobe:ns:meta/"
_KNOWN_PREFIXES = {"rdf": RDF, "xmp": XMP, "digiKam": DIGIKAM, "x": X}
LABELS = ("Red", "Yellow", "Green", "Blue", "Purple")
PICK_LABEL = {"reject": "1", "pick": "3"}
Naming = Literal["auto", "full", "stem"]
_IMAGE_SUFFIXES = re.compile(
    r"\.(jpe?g|jpe|png|tiff?|webp|bmp|gif|heic|heif|hif|avif|3fr|ari|arw|bay|cr2|cr3|crw|dcr|dng"
    r"|erf|fff|iiq|k25|kdc|mef|mos|mrw|nef|nrw|orf|pef|raf|raw|rw2|rwl|sr2|srf|srw|x3f)$",
    re.IGNORECASE,
)
_XPACKET_BEGIN = '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
_XPACKET_END = '\n<?xpacket end="w"?>\n'


class XmpError(Exception):
    """A sidecar exists but cannot be read as XMP (it is then left untouched)."""


@dataclass(frozen=True)
class XmpMarks:
    """Marks found in a sidecar; None where the sidecar says nothing."""

    stars: int | None = None
    flag: Literal["pick", "reject"] | None = None
    label: str | None = None


def sidecar_candidates(image_path: str | os.PathLike[str]) -> list[Path]:
    """Possible sidecars of an image, in reading order: `<name>.<ext>.xmp`, then `<stem>.xmp`."""
    path = Path(image_path)
    names = [path.name + ".xmp", path.name + ".XMP", path.stem + ".xmp", path.stem + ".XMP"]
    seen: list[Path] = []
    for name in names:
        candidate = path.with_name(name)
        if candidate not in seen and candidate != path:
            seen.append(candidate)
    return seen


def find_sidecar(image_path: str | os.PathLike[str]) -> Path | None:
    """The existing sidecar that belongs to the image, or None."""
    for candidate in sidecar_candidates(image_path):
        if candidate.is_file():
            return candidate
    return None


def _stem_is_shared(path: Path) -> bool:
    """True when another image file in the folder has the same stem (RAW + JPEG pair)."""
    try:
        siblings = os.listdir(path.parent)
    except OSError:
        return False
    return any(
        name != path.name and Path(name).stem == path.stem and _IMAGE_SUFFIXES.search(name)
        for name in siblings
    )


def sidecar_path_for_writing(image_path: str | os.PathLike[str], naming: Naming = "auto") -> Path:
    """Where a write goes: the existing sidecar, else a new name chosen by `naming`."""
    path = Path(image_path)
    if naming == "full":
        return path.with_name(path.name + ".xmp")
    if naming == "stem":
        return path.with_name(path.stem + ".xmp")
    existing = find_sidecar(path)
    if existing is not None:
        return existing
    if _stem_is_shared(path):
        return path.with_name(path.name + ".xmp")
    return path.with_name(path.stem + ".xmp")


# -- reading ----------------------------------------------------------------------------------
def _parse(text: bytes) -> tuple[ET.ElementTree, dict[str, str]]:
    namespaces: dict[str, str] = {}
    try:
        for event, item in ET.iterparse(io.BytesIO(text), events=("start-ns",)):
            if event == "start-ns":
                prefix, uri = item  # type: ignore[misc]
                namespaces.setdefault(prefix, uri)
        tree = ET.ElementTree(ET.fromstring(text))
    except ET.ParseError as error:
        raise XmpError(f"sidecar is not valid XML ({error})") from None
    return tree, namespaces


def _descriptions(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(f"{{{RDF}}}Description"))


def _get(root: ET.Element, ns: str, name: str) -> str | None:
    key = f"{{{ns}}}{name}"
    for description in _descriptions(root):
        if key in description.attrib:
            return description.attrib[key].strip()
        child = description.find(key)
        if child is not None and child.text is not None:
            return child.text.strip()
    return None


def _marks_from_root(root: ET.Element) -> XmpMarks:
    stars: int | None = None
    flag: Literal["pick", "reject"] | None = None
    rating = _get(root, XMP, "Rating")
    if rating:
        try:
            value = round(float(rating))
        except ValueError:
            value = None
        if value is not None and value < 0:
            flag = "reject"
        elif value is not None:
            stars = min(5, value)
    pick_label = _get(root, DIGIKAM, "PickLabel")
    if pick_label == "1":
        flag = "reject"
    elif pick_label == "3" and flag is None:
        flag = "pick"
    label = _get(root, XMP, "Label")
    canonical = next((name for name in LABELS if label and name.lower() == label.lower()), None)
    return XmpMarks(stars=stars, flag=flag, label=canonical)


def read_xmp_file(sidecar: str | os.PathLike[str]) -> XmpMarks:
    """Marks stored in one sidecar file; XmpError when it is not readable XMP."""
    try:
        data = Path(sidecar).read_bytes()
    except OSError as error:
        raise XmpError(f"sidecar cannot be read ({error.strerror or error})") from None
    tree, _ = _parse(data)
    return _marks_from_root(tree.getroot())


def read_sidecar(image_path: str | os.PathLike[str]) -> XmpMarks | None:
    """Marks from the image's sidecar; None when it has none. XmpError when it is unreadable."""
    sidecar = find_sidecar(image_path)
    return None if sidecar is None else read_xmp_file(sidecar)


# -- writing ----------------------------------------------------------------------------------
def _new_root() -> ET.Element:
    root = ET.Element(f"{{{X}}}xmpmeta")
    rdf = ET.SubElement(root, f"{{{RDF}}}RDF")
    ET.SubElement(rdf, f"{{{RDF}}}Description", {f"{{{RDF}}}about": ""})
    return root


def _set(root: ET.Element, ns: str, name: str, value: str | None) -> None:
    """Set (or remove, for None) a simple property where it already is, else as an attribute."""
    key = f"{{{ns}}}{name}"
    descriptions = _descriptions(root)
    if not descriptions:
        rdf = root if root.tag == f"{{{RDF}}}RDF" else root.find(f"{{{RDF}}}RDF")
        if rdf is None:
            rdf = ET.SubElement(root, f"{{{RDF}}}RDF")
        descriptions = [ET.SubElement(rdf, f"{{{RDF}}}Description", {f"{{{RDF}}}about": ""})]
    placed = False
    for description in descriptions:
        if key in description.attrib:
            if value is None or placed:
                del description.attrib[key]
            else:
                description.attrib[key] = value
                placed = True
        for child in list(description.findall(key)):
            if value is None or placed:
                description.remove(child)
            else:
                child.text = value
                placed = True
    if value is not None and not placed:
        descriptions[0].set(key, value)


def _serialize(root: ET.Element, namespaces: dict[str, str]) -> bytes:
    for prefix, uri in {**namespaces, **_KNOWN_PREFIXES}.items():
        if prefix and not re.fullmatch(r"ns\d+", prefix):
            ET.register_namespace(prefix, uri)
    ET.indent(root, space=" ")
    body = ET.tostring(root, encoding="unicode")
    return (_XPACKET_BEGIN + body + _XPACKET_END).encode("utf-8")


def _atomic_write(target: Path, data: bytes) -> None:
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    handle, temp_name = tempfile.mkstemp(prefix="." + target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        if os.path.exists(temp_name):
            os.unlink(temp_name)
        raise
    try:
        directory = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def write_sidecar(
    image_path: str | os.PathLike[str],
    stars: int,
    flag: Literal["pick", "reject"] | None,
    label: str | None,
    naming: Naming = "auto",
) -> Path:
    """Merge the marks into the image's sidecar (created when missing), atomically; return its path.

    An unreadable existing sidecar raises XmpError and is not overwritten.
    """
    if not 0 <= int(stars) <= 5:
        raise ValueError(f"stars must be 0..5, got {stars}")
    if flag not in (None, "pick", "reject"):
        raise ValueError(f"flag must be 'pick', 'reject' or None, got {flag!r}")
    canonical = next((n for n in LABELS if label and n.lower() == label.lower()), None)
    if label and canonical is None:
        raise ValueError(f"unknown colour label {label!r}; expected one of {', '.join(LABELS)}")
    target = sidecar_path_for_writing(image_path, naming)
    if target.suffix.lower() != ".xmp" or target.resolve() == Path(image_path).resolve():
        raise ValueError(f"refusing to write XMP anywhere but a .xmp sidecar: {target}")
    namespaces: dict[str, str] = {}
    if target.exists():
        tree, namespaces = _parse(target.read_bytes())
        root = tree.getroot()
    else:
        root = _new_root()
    _set(root, XMP, "Rating", "-1" if flag == "reject" else str(int(stars)))
    _set(root, XMP, "Label", canonical)
    _set(root, DIGIKAM, "PickLabel", PICK_LABEL.get(flag or ""))
    _atomic_write(target, _serialize(root, namespaces))
    return target
