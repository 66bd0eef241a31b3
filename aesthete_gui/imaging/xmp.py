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

Reading is total: a sidecar that is not XML, larger than MAX_SIDECAR_BYTES, nested deeper than
MAX_XML_DEPTH, or whose rating is not a number from -1 to 5 raises XmpError ("sidecar unreadable:
…"), and such a sidecar is never rewritten. A sidecar owned by another user, read-only, or in a
read-only folder is never replaced either: SidecarWriteError says why, and nothing is written.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
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


MAX_SIDECAR_BYTES = 8 * 1024 * 1024
"""Larger sidecars are not read (real ones, develop history included, stay far below)."""
MAX_XML_DEPTH = 100
"""Deeper element nesting is refused (real XMP nests about ten levels)."""
_RATING_TEXT = re.compile(r"[+-]?\d{1,3}(?:\.\d{1,6})?")
_NAME_MAX_FALLBACK = 255
NEW_SIDECAR_MODE = 0o644
"""Permissions of a sidecar written where there was none (a replaced one keeps its own)."""


def _shown(value: str, limit: int = 40) -> str:
    """A short, escaped quotation of untrusted text for a message."""
    return ascii(value[:limit] + ("…" if len(value) > limit else ""))


class XmpError(Exception):
    """A sidecar exists but cannot be read as XMP (it is then left untouched)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"sidecar unreadable: {self.path}: {reason}")


class SidecarWriteError(Exception):
    """A sidecar was not written (unreadable, protected, or the write failed); nothing was changed."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"sidecar not written: {self.path}: {reason}")


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
        try:
            if candidate.is_file():
                return candidate
        except OSError:  # e.g. a name longer than the file system allows: no such sidecar
            continue
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


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return _NAME_MAX_FALLBACK


def sidecar_path_for_writing(image_path: str | os.PathLike[str], naming: Naming = "auto") -> Path:
    """Where a write goes: the existing sidecar, else a new name chosen by `naming`.

    A `<name>.<ext>.xmp` name longer than the file system allows falls back to `<stem>.xmp` when
    no other image shares the stem; SidecarWriteError when neither name is possible.
    """
    path = Path(image_path)
    full, short = path.with_name(path.name + ".xmp"), path.with_name(path.stem + ".xmp")
    if naming == "auto":
        existing = find_sidecar(path)
        if existing is not None:
            return existing
    limit = _name_max(path.parent)
    full_fits = len(os.fsencode(full.name)) <= limit
    if naming == "stem" or (naming == "auto" and not _stem_is_shared(path)):
        chosen = short
    elif full_fits:
        chosen = full
    elif not _stem_is_shared(path):
        chosen = short
    else:
        raise SidecarWriteError(full, f"the name is longer than {limit} bytes, the limit of this file system, "
                                      "and another image shares the shorter name; rename the image")  # fmt: skip
    if len(os.fsencode(chosen.name)) > limit:
        raise SidecarWriteError(chosen, f"the name is longer than {limit} bytes, the limit of this file "
                                        "system; rename the image")  # fmt: skip
    return chosen


# -- reading ----------------------------------------------------------------------------------
def _read_limited(sidecar: Path) -> bytes:
    try:
        with open(sidecar, "rb") as stream:
            data = stream.read(MAX_SIDECAR_BYTES + 1)
    except OSError as error:
        raise XmpError(sidecar, f"cannot be read ({error.strerror or error})") from None
    if len(data) > MAX_SIDECAR_BYTES:
        raise XmpError(sidecar, f"larger than {MAX_SIDECAR_BYTES // (1024 * 1024)} MiB")
    return data


def _parse(sidecar: Path, text: bytes) -> tuple[ET.Element, dict[str, str]]:
    """The XML tree and namespace prefixes of a sidecar; XmpError for anything that is not sane XML."""
    namespaces: dict[str, str] = {}
    depth = 0
    try:
        events = ET.iterparse(io.BytesIO(text), events=("start", "end", "start-ns"))
        for event, item in events:
            if event == "start":
                depth += 1
                if depth > MAX_XML_DEPTH:
                    raise XmpError(sidecar, f"elements nested more than {MAX_XML_DEPTH} deep")
            elif event == "end":
                depth -= 1
            else:
                prefix, uri = item  # type: ignore[misc]
                namespaces.setdefault(prefix, uri)
        root = events.root  # type: ignore[attr-defined]
    except ET.ParseError as error:
        raise XmpError(sidecar, f"not valid XML ({error})") from None
    except (ValueError, RecursionError, MemoryError, UnicodeError) as error:
        raise XmpError(sidecar, f"cannot be parsed ({type(error).__name__}: {error})") from None
    return root, namespaces


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


def _marks_from_root(sidecar: Path, root: ET.Element) -> XmpMarks:
    stars: int | None = None
    flag: Literal["pick", "reject"] | None = None
    rating = _get(root, XMP, "Rating")
    if rating:
        if not _RATING_TEXT.fullmatch(rating):
            raise XmpError(sidecar, f"xmp:Rating is not a number from -1 to 5: {_shown(rating)}")
        value = round(float(rating))
        if value < 0:
            flag = "reject"
        else:
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
    path = Path(sidecar)
    return read_xmp_bytes(path, _read_limited(path))


def read_sidecar_bytes(sidecar: str | os.PathLike[str]) -> bytes:
    """A sidecar's bytes (at most MAX_SIDECAR_BYTES); XmpError when it cannot be read."""
    return _read_limited(Path(sidecar))


def read_xmp_bytes(source: str | os.PathLike[str], data: bytes) -> XmpMarks:
    """Marks in an XMP packet already read from `source` (named in errors); XmpError when unreadable."""
    path = Path(source)
    if len(data) > MAX_SIDECAR_BYTES:
        raise XmpError(path, f"larger than {MAX_SIDECAR_BYTES // (1024 * 1024)} MiB")
    root, _ = _parse(path, data)
    return _marks_from_root(path, root)


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


def _write_problem(target: Path) -> str | None:
    """Why the sidecar at `target` must not be replaced, or None when we may write it."""
    try:
        link = os.lstat(target)
    except FileNotFoundError:
        link = None
    except OSError as error:
        return f"cannot be examined ({error.strerror or error})"
    if link is not None:
        if link.st_uid != os.geteuid():
            return f"owned by another user (uid {link.st_uid}); left as it is"
        try:
            info = os.stat(target)
        except OSError:
            info = None  # a dangling symbolic link: the link itself is replaced by a file
        if info is not None and not stat.S_ISREG(info.st_mode):
            return "not a regular file; left as it is"
        if not stat.S_ISLNK(link.st_mode) and (
            not link.st_mode & stat.S_IWUSR or not os.access(target, os.W_OK)
        ):
            return "read-only; left as it is"
    try:
        folder = os.stat(target.parent)
    except OSError as error:
        return f"its folder cannot be examined ({error.strerror or error})"
    if not folder.st_mode & 0o222 or not os.access(target.parent, os.W_OK | os.X_OK):
        return "its folder is read-only"
    return None


def _atomic_write(target: Path, data: bytes) -> None:
    """Write via a fsynced temporary file renamed over `target`, keeping its mode and group."""
    try:
        original = os.stat(target)
    except OSError:
        original = None
    handle, temp_name = tempfile.mkstemp(prefix=".aesthete-", suffix=".xmp.tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if original is not None:
            os.chmod(temp_name, original.st_mode & 0o7777)
            with contextlib.suppress(OSError):  # not in that group: ours, as for any new file
                os.chown(temp_name, -1, original.st_gid)
        else:  # a new sidecar is readable like the photograph beside it (the temporary file is 0600)
            os.chmod(temp_name, NEW_SIDECAR_MODE)
        problem = _write_problem(target)  # checked again: the file may have changed meanwhile
        if problem is not None:
            raise SidecarWriteError(target, problem)
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

    SidecarWriteError (nothing written) when the existing sidecar is unreadable, owned by another
    user, read-only or in a read-only folder, when no sidecar name fits, or when the write fails.
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
    problem = _write_problem(target)
    if problem is not None:
        raise SidecarWriteError(target, problem)
    namespaces: dict[str, str] = {}
    if target.exists():
        try:
            root, namespaces = _parse(target, _read_limited(target))
            _marks_from_root(target, root)
        except XmpError as error:
            raise SidecarWriteError(target, f"unreadable, left as it is ({error.reason})") from None
    else:
        root = _new_root()
    _set(root, XMP, "Rating", "-1" if flag == "reject" else str(int(stars)))
    _set(root, XMP, "Label", canonical)
    _set(root, DIGIKAM, "PickLabel", PICK_LABEL.get(flag or ""))
    try:
        _atomic_write(target, _serialize(root, namespaces))
    except OSError as error:
        raise SidecarWriteError(target, f"the write failed ({error.strerror or error})") from None
    return target
