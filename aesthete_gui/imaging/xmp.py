"""XMP sidecars: which sidecar holds an image's marks, reading them, and writing them safely.

Fields (each is what Lightroom, darktable, digiKam and Capture One read):
- stars: `xmp:Rating` 0..5; a reject is `xmp:Rating = -1` (the common convention of all four).
- pick / reject: `digiKam:PickLabel` (3 = accepted, 1 = rejected, removed when unflagged). Lightroom
  keeps its pick flag in its catalogue only, so no XMP field carries it there; a pick therefore
  leaves `xmp:Rating` at the stars and is visible in digiKam (and to exiftool) only.
- colour label: `xmp:Label` with the English names Red, Yellow, Green, Blue, Purple.

Which sidecar (the rule, docs/user-guide.md "Which sidecar holds a mark"): `NAME.EXT.xmp`
(darktable, digiKam) belongs to exactly `NAME.EXT` and is read first. `NAME.xmp` (Lightroom,
Capture One) belongs to the photo with that stem when it is the only one, and to the RAW when a RAW
and a JPEG/HEIC/TIFF share the stem (Lightroom and Capture One treat the RAW as the master); the
JPEG of such a pair reads and writes `NAME.JPG.xmp`, so a mark on one half never changes the other.
When several RAWs (or several non-RAW files and no RAW) share a stem, `NAME.xmp` belongs to none of
them, and a `NAME.xmp` whose NAME is itself a photograph's name (`A.png.xmp`) is only ever that
photograph's (never the stem sidecar of `A.png.JPG`). With `pairs_as_one` (the setting "Treat RAW+JPEG pairs as one") both halves of a pair share
`NAME.xmp` as well.

Writing changes only the bytes of our three fields inside the existing packet (imaging.xmp_packet):
everything else stays byte-for-byte. The write is a compare-and-swap (imaging.xmp_write): if
another program changed the sidecar between our read and our write, its content is read again and
our fields are put on top of it. Original image files are never opened for writing.

Reading is total: a sidecar that is not XML, larger than MAX_SIDECAR_BYTES, nested deeper than
MAX_XML_DEPTH or holding a document type raises XmpError ("sidecar unreadable: …") and is never
rewritten. A field whose value cannot be read (a rating of 99, -7, 1e400 or "abc"; a label Aesthete
does not know) is listed in `XmpMarks.unreadable`, never clamped or guessed, and a write that would
change it is refused. A sidecar owned by another user, read-only, or in a read-only folder is never
replaced either: SidecarWriteError says why, and nothing is written.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from aesthete_gui.atomic_write import FileState, Snapshot
from aesthete_gui.imaging.hashing import content_hash_bytes
from aesthete_gui.imaging.photo_units import exposures, looks_like_photo_name, one_exposure
from aesthete_gui.imaging.raw import is_raw_name
from aesthete_gui.imaging.xmp_packet import (
    DIGIKAM,
    LABELS,
    MAX_XML_DEPTH,
    RDF,
    XMP,
    Packet,
    PacketError,
    edit,
    field_meaning,
    label_meaning,
    new_packet,
    pick_meaning,
    rating_meaning,
    scan,
)
from aesthete_gui.imaging.xmp_write import FileChanged, restore_file, swap_file

__all__ = ["DIGIKAM", "LABELS", "MAX_XML_DEPTH", "RDF", "XMP"]

X = "adobe:ns:meta/"
PICK_LABEL = {"reject": "1", "pick": "3"}
Naming = Literal["auto", "full", "stem"]
MarkField = Literal["stars", "flag", "label"]
ALL_FIELDS: frozenset[str] = frozenset({"stars", "flag", "label"})
MAX_SIDECAR_BYTES = 8 * 1024 * 1024
"""Larger sidecars are not read (real ones, develop history included, stay far below)."""
_NAME_MAX_FALLBACK = 255
NEW_SIDECAR_MODE = 0o644
"""Permissions of a sidecar written where there was none (a replaced one keeps its own)."""


class XmpError(Exception):
    """A sidecar exists but cannot be read as XMP (it is then left untouched)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"sidecar unreadable: {self.path}: {reason}")


class SidecarWriteError(Exception):
    """A sidecar was not written (unreadable, protected, or the write failed); nothing was changed."""

    def __init__(self, path: str | os.PathLike[str], reason: str, lasting: bool = False) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        self.lasting = lasting
        """True when trying again cannot help until the user acts (a name too long for the file system)."""
        super().__init__(f"sidecar not written: {self.path}: {reason}")


@dataclass(frozen=True)
class XmpMarks:
    """Marks found in a sidecar; None where the sidecar says nothing. `unreadable` names each field
    whose value is there but cannot be read (with the value), e.g. a rating of 99."""

    stars: int | None = None
    flag: Literal["pick", "reject"] | None = None
    label: str | None = None
    unreadable: tuple[str, ...] = ()

    def is_unreadable(self, name: str) -> bool:
        """Whether the field `name` ("xmp:Rating", "xmp:Label", "digiKam:PickLabel") is there but unreadable."""
        return any(reason.startswith(name + " ") for reason in self.unreadable)


# -- which sidecar ---------------------------------------------------------------------------
_LISTINGS: contextvars.ContextVar[dict[Path, dict[str, list[str]]] | None] = contextvars.ContextVar(
    "aesthete_folder_listings", default=None
)


@contextlib.contextmanager
def folders_listed_once() -> Iterator[None]:
    """Within the block each folder's image files are listed once (a sync or an export over many
    images, during which the photographs themselves do not change): without it, every image's rule
    lists its folder again."""
    token = _LISTINGS.set({})
    try:
        yield
    finally:
        _LISTINGS.reset(token)


def _images_by_stem(folder: Path) -> dict[str, list[str]]:
    listings = _LISTINGS.get()
    if listings is not None and folder in listings:
        return listings[folder]
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    by_stem: dict[str, list[str]] = {}
    for name in names:
        if looks_like_photo_name(name):  # the stem without regard to case, as photo units pair files
            by_stem.setdefault(Path(name).stem.casefold(), []).append(name)
    if listings is not None:
        listings[folder] = by_stem
    return by_stem


def _same_stem_images(path: Path) -> list[str]:
    """Names of the other image files in the folder with the same stem."""
    return [name for name in _images_by_stem(path.parent).get(path.stem.casefold(), []) if name != path.name]


def owns_stem_sidecar(image_path: str | os.PathLike[str], pairs_as_one: bool = False) -> bool:
    """Whether `NAME.xmp` belongs to this image (see the module's rule)."""
    path = Path(image_path)
    if looks_like_photo_name(path.stem):
        # `A.png.xmp` is the full-name sidecar of a photo `A.png` (photo_units.stem_key pairs it so),
        # never the stem sidecar of `A.png.JPG`: an attack had the two photographs share one sidecar,
        # and a move put `A.png.JPG` beside a stranger's `A.png.xmp`, whose marks it then read
        return False
    others = _same_stem_images(path)
    group = [path.name, *others]
    raws = [name for name in group if is_raw_name(name)]
    if not raws:  # no RAW: only files of the very same stem compete (IMG_1.jpg keeps IMG_1.xmp beside img_1.jpg)
        return not [name for name in others if Path(name).stem == path.stem]
    if len(raws) != 1:
        return False  # several RAWs: NAME.xmp is nobody's
    # a JPEG shares it only as half of one exposure (photo_units' rule): beside `B.CR2`, `B.JPG` and
    # `b.jpg` are no pair, and a second attack's mark of `B.JPG` with pairs as one rewrote the RAW's
    return raws[0] == path.name or (pairs_as_one and one_exposure(group))


def pairs_among(names: Iterable[str]) -> dict[str, list[str]]:
    """For file names of one folder: each photograph that belongs to a RAW+JPEG pair (the rule of
    photo_units.exposures) -> the names of the other halves."""
    out: dict[str, list[str]] = {}
    for group in exposures([name for name in names if looks_like_photo_name(name)]):
        if len(group) > 1:
            out.update({name: [other for other in group if other != name] for name in group})
    return out


def sidecar_candidates(image_path: str | os.PathLike[str], pairs_as_one: bool = False) -> list[Path]:
    """The sidecars a mark of this image reads, in order: `NAME.EXT.xmp`, then `NAME.xmp` when it
    belongs to the image."""
    path = Path(image_path)
    names = [path.name + ".xmp", path.name + ".XMP"]
    if owns_stem_sidecar(path, pairs_as_one):
        names += [path.stem + ".xmp", path.stem + ".XMP"]
    seen: list[Path] = []
    for name in names:
        candidate = path.with_name(name)
        if candidate not in seen and candidate != path:
            seen.append(candidate)
    return seen


def find_sidecar(image_path: str | os.PathLike[str], pairs_as_one: bool = False) -> Path | None:
    """The existing sidecar that holds the image's marks, or None."""
    for candidate in sidecar_candidates(image_path, pairs_as_one):
        try:
            if candidate.is_file():
                return candidate
        except OSError:  # e.g. a name longer than the file system allows: no such sidecar
            continue
    return None


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return _NAME_MAX_FALLBACK


def sidecar_path_for_writing(
    image_path: str | os.PathLike[str], naming: Naming = "auto", pairs_as_one: bool = False
) -> Path:
    """Where a write goes: the existing sidecar, else a new name chosen by `naming`.

    `auto` gives `NAME.xmp` to the image that owns that name and `NAME.EXT.xmp` to any other;
    `stem` asks for `NAME.xmp` but never takes it from the image it belongs to. A `NAME.EXT.xmp`
    longer than the file system allows falls back to `NAME.xmp` when the image owns it;
    SidecarWriteError when neither name is possible.
    """
    path = Path(image_path)
    full, short = path.with_name(path.name + ".xmp"), path.with_name(path.stem + ".xmp")
    if naming == "auto":
        existing = find_sidecar(path, pairs_as_one)
        if existing is not None:
            return existing
    limit = _name_max(path.parent)
    owner = owns_stem_sidecar(path, pairs_as_one)
    if naming != "full" and owner:
        chosen = short
    elif len(os.fsencode(full.name)) <= limit:
        chosen = full
    elif owner:
        chosen = short
    else:
        raise SidecarWriteError(full, f"the name is longer than {limit} bytes, the limit of this file system, "
                                      "and the shorter name belongs to another image; rename the image", lasting=True)  # fmt: skip
    if len(os.fsencode(chosen.name)) > limit:
        raise SidecarWriteError(chosen, f"the name is longer than {limit} bytes, the limit of this file "
                                        "system; rename the image", lasting=True)  # fmt: skip
    return chosen


# -- reading ----------------------------------------------------------------------------------
def _marks_of(packet: Packet) -> XmpMarks:
    unreadable: list[str] = []

    def meaning(key: str, read: Callable[[str | None], object]) -> object:
        occurrence = packet.value(key)
        if occurrence is None:
            return None
        if occurrence.problem is not None:
            unreadable.append(f"{'digiKam:PickLabel' if key == 'PickLabel' else 'xmp:' + key} {occurrence.problem}")
            return None
        try:
            return read(occurrence.value)
        except ValueError as error:
            unreadable.append(str(error))
            return None

    rating = meaning("Rating", rating_meaning)
    flag: Literal["pick", "reject"] | None = "reject" if rating == -1 else None
    stars = rating if isinstance(rating, int) and rating >= 0 else None
    pick = meaning("PickLabel", pick_meaning)
    if pick == "reject":
        flag = "reject"
    elif pick == "pick" and flag is None:
        flag = "pick"
    label = meaning("Label", label_meaning)
    return XmpMarks(stars, flag, label if isinstance(label, str) else None, tuple(unreadable))


def _scanned(path: Path, data: bytes) -> Packet:
    if len(data) > MAX_SIDECAR_BYTES:
        raise XmpError(path, f"larger than {MAX_SIDECAR_BYTES // (1024 * 1024)} MiB")
    try:
        return scan(data)
    except PacketError as error:
        raise XmpError(path, str(error)) from None


def read_sidecar_bytes(sidecar: str | os.PathLike[str]) -> bytes:
    """A sidecar's bytes (at most MAX_SIDECAR_BYTES + 1); XmpError when it cannot be read."""
    try:
        with open(sidecar, "rb") as stream:
            data = stream.read(MAX_SIDECAR_BYTES + 1)
    except OSError as error:
        raise XmpError(sidecar, f"cannot be read ({error.strerror or error})") from None
    if len(data) > MAX_SIDECAR_BYTES:
        raise XmpError(sidecar, f"larger than {MAX_SIDECAR_BYTES // (1024 * 1024)} MiB")
    return data


def read_xmp_bytes(source: str | os.PathLike[str], data: bytes) -> XmpMarks:
    """Marks in an XMP packet already read from `source` (named in errors); XmpError when unreadable."""
    return _marks_of(_scanned(Path(source), data))


def read_xmp_file(sidecar: str | os.PathLike[str]) -> XmpMarks:
    """Marks stored in one sidecar file; XmpError when it is not readable XMP."""
    return read_xmp_bytes(sidecar, read_sidecar_bytes(sidecar))


def read_sidecar(image_path: str | os.PathLike[str], pairs_as_one: bool = False) -> XmpMarks | None:
    """Marks from the image's sidecar; None when it has none. XmpError when it is unreadable."""
    sidecar = find_sidecar(image_path, pairs_as_one)
    return None if sidecar is None else read_xmp_file(sidecar)


def with_exif_rating(marks: XmpMarks | None, exif_rating: int | None) -> XmpMarks | None:
    """Marks read at import: the XMP marks, with the camera's EXIF rating as the stars when XMP
    holds no rating at all (XMP wins when both exist; an unreadable XMP rating is not replaced)."""
    if exif_rating is None:
        return marks
    if marks is None:
        return XmpMarks(stars=exif_rating)
    if marks.stars is not None or marks.flag == "reject" or marks.is_unreadable("xmp:Rating"):
        return marks
    return XmpMarks(exif_rating, marks.flag, marks.label, marks.unreadable)


# -- writing ----------------------------------------------------------------------------------
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


def sidecar_fields(
    stars: int, flag: str | None, label: str | None, fields: Iterable[str] = ALL_FIELDS
) -> dict[str, str | None]:
    """The sidecar fields a change of the given mark fields sets (None removes one)."""
    fields = set(fields)
    wanted: dict[str, str | None] = {}
    if fields & {"stars", "flag"}:
        wanted["Rating"] = "-1" if flag == "reject" else str(int(stars))
    if "label" in fields:
        wanted["Label"] = label
    if "flag" in fields:
        wanted["PickLabel"] = PICK_LABEL.get(flag or "")
    return wanted


@dataclass(frozen=True)
class SidecarWrite:
    """One finished sidecar write: where, the bytes it replaced (None: it created the file), the
    file as written (None: the sidecar already held these marks), the marks found in the sidecar
    the write was merged onto (None: new), and the marks the sidecar holds now."""

    path: Path
    before: bytes | None
    written: FileState | None
    found: XmpMarks | None
    marks: XmpMarks
    data: bytes = b""  # the sidecar's bytes now


@dataclass(frozen=True)
class Agreement:
    """What the profile believes a sidecar holds: its marks (stars, flag, label) and the content hash
    of the sidecar it last reconciled with (imaging.hashing.content_hash_bytes), if any."""

    marks: tuple[int, str | None, str | None]
    content_hash: str | None = None


def _checked(stars: int, flag: str | None, label: str | None) -> str | None:
    if not 0 <= int(stars) <= 5:
        raise ValueError(f"stars must be 0..5, got {stars}")
    if flag not in (None, "pick", "reject"):
        raise ValueError(f"flag must be 'pick', 'reject' or None, got {flag!r}")
    canonical = next((n for n in LABELS if label and n.lower() == label.lower()), None)
    if label and canonical is None:
        raise ValueError(f"unknown colour label {label!r}; expected one of {', '.join(LABELS)}")
    return canonical


_PRODUCED_BY = {"Rating": {"stars", "flag"}, "PickLabel": {"flag"}, "Label": {"label"}}
"""Which mark fields set each sidecar field."""


def _believed(marks: tuple[int, str | None, str | None]) -> dict[str, object]:
    """The sidecar field meanings that profile marks correspond to."""
    stars, flag, label = marks
    return {"Rating": -1 if flag == "reject" else (stars or None), "PickLabel": flag, "Label": label}


def _comparable(key: str, meaning: object) -> object:
    return (meaning or 0) if key == "Rating" else meaning


def _meanings(packet: Packet | None) -> dict[str, object]:
    """Each sidecar field's meaning (or a marker for an unreadable one); all None for no sidecar."""
    out: dict[str, object] = {}
    for key in _PRODUCED_BY:
        try:
            out[key] = field_meaning(packet, key) if packet is not None else None
        except ValueError:
            occurrence = packet.value(key) if packet is not None else None
            out[key] = ("unreadable", occurrence.value if occurrence is not None else None)
    return out


def write_marks(
    image_path: str | os.PathLike[str],
    stars: int,
    flag: Literal["pick", "reject"] | None,
    label: str | None,
    fields: Iterable[str] = ALL_FIELDS,
    naming: Naming = "auto",
    pairs_as_one: bool = False,
    insist: Iterable[str] | None = None,
    agreed: Agreement | None = None,
) -> SidecarWrite:
    """Set the given mark `fields` (of stars / flag / label) in the image's sidecar, compare-and-swap.

    Only the bytes of those fields change; a new sidecar gets all three. When another program
    changes the sidecar while we write, its newer content is read again: a field it changed keeps
    its value unless the field is in `insist` (default: all of `fields`, the user's new marks),
    which go on top. "Changed" means: differs from the content the profile last reconciled
    (`agreed.content_hash`), or, when the sidecar is no longer that content, from `agreed.marks`;
    without `agreed`, from the sidecar as first read here. SidecarWriteError (nothing written) when the sidecar is unreadable, protected,
    changed by another program over and over, holds an unreadable value in a field we would change,
    or when no sidecar name fits.
    """
    canonical = _checked(stars, flag, label)
    fields = set(fields)
    insisted = fields if insist is None else set(insist)
    target = sidecar_path_for_writing(image_path, naming, pairs_as_one)
    if target.suffix.lower() != ".xmp" or target.resolve() == Path(image_path).resolve():
        raise ValueError(f"refusing to write XMP anywhere but a .xmp sidecar: {target}")
    wanted = sidecar_fields(stars, flag, canonical, fields)
    first: list[dict[str, object]] = []  # field meanings in the sidecar as first read
    found: list[XmpMarks | None] = [None]

    def build(current: Snapshot | None) -> bytes:
        problem = _write_problem(target)  # checked on every round: the file may have changed
        if problem is not None:
            raise SidecarWriteError(target, problem)
        try:
            packet = None if current is None else _scanned(target, current.data)
        except XmpError as error:
            raise SidecarWriteError(target, f"unreadable, left as it is ({error.reason})") from None
        meanings = _meanings(packet)
        if not first:
            settled = agreed is None or (current is not None and agreed.content_hash is not None
                                         and content_hash_bytes(current.data) == agreed.content_hash)  # fmt: skip
            first.append(meanings if settled or agreed is None else _believed(agreed.marks))
        found[0] = None if packet is None else _marks_of(packet)
        if packet is None:
            return new_packet(sidecar_fields(stars, flag, canonical))
        insisted_keys = {key for key, made_by in _PRODUCED_BY.items() if made_by & insisted}
        if "stars" not in insisted and flag != "reject" and meanings["Rating"] != -1:
            insisted_keys.discard("Rating")  # a pick or unflag leaves a rating that is no reject alone
        this_round = {key: value for key, value in wanted.items()
                      if key in insisted_keys
                      or (not isinstance(meanings[key], tuple)
                          and _comparable(key, meanings[key]) == _comparable(key, first[0][key]))}  # fmt: skip
        try:
            return edit(packet, this_round)
        except PacketError as error:
            raise SidecarWriteError(target, str(error)) from None

    problem = _write_problem(target)
    if problem is not None:
        raise SidecarWriteError(target, problem)
    try:
        result = swap_file(target, build, MAX_SIDECAR_BYTES, NEW_SIDECAR_MODE,
                           lambda: swap_tag(insisted & fields, wanted, first[0] if first else None, flag))  # fmt: skip
    except FileChanged as error:
        raise SidecarWriteError(target, str(error)) from None
    except OSError as error:
        raise SidecarWriteError(target, f"the write failed ({error.strerror or error})") from None
    final = result.after or result.before
    marks = read_xmp_bytes(target, final.data) if final is not None else XmpMarks()
    return SidecarWrite(target, result.before.data if result.before else None,
                        result.after.state if result.after else None, found[0], marks,
                        final.data if final is not None else b"")  # fmt: skip


def write_sidecar(
    image_path: str | os.PathLike[str],
    stars: int,
    flag: Literal["pick", "reject"] | None,
    label: str | None,
    naming: Naming = "auto",
    pairs_as_one: bool = False,
) -> Path:
    """Merge all three marks into the image's sidecar (created when missing); return its path.

    See write_marks, which this is with every field."""
    return write_marks(image_path, stars, flag, label, ALL_FIELDS, naming, pairs_as_one).path


FIELD_TAGS = {"stars": "s", "flag": "f", "label": "l"}
"""The letter of each mark field in a swap file's tag (atomic_write.swap_name)."""
KEY_TAGS = {"Rating": "r", "Label": "m", "PickLabel": "k"}
"""The letter of each sidecar field in a swap file's tag, before the first read's hash."""


def _meaning_hash(key: str, meaning: object) -> str:
    return hashlib.sha256(repr(_comparable(key, meaning)).encode()).hexdigest()[:3]


def swap_tag(insisted: Iterable[str], wanted: Mapping[str, object], first: Mapping[str, object] | None, flag: str | None = None) -> str:
    """What a killed write needs to be finished as it would have finished (atomic_write.swap_name): the
    mark fields it sets whatever the sidecar holds (letters of FIELD_TAGS; "n": none), then each other
    sidecar field it sets only where the other program left it as first read (a letter of KEY_TAGS
    and three hex digits of that first meaning; `flag`: the flag the write sets). An attack: with the
    insisted fields alone, a killed `export --format xmp` lost the stars the profile held."""
    insisted = set(insisted)
    out = "".join(letter for name, letter in FIELD_TAGS.items() if name in insisted) or "n"
    produced = {key for key, made_by in _PRODUCED_BY.items() if made_by & insisted}
    if "stars" not in insisted and flag != "reject":
        # as write_marks: a pick or unflag sets the rating only where it was left alone (unless the
        # file says rejected, which the merge sees for itself); an attack lost the stars when it had no hash
        produced.discard("Rating")
    for key, letter in KEY_TAGS.items():
        if key in wanted and key not in produced and first is not None and not isinstance(first.get(key), tuple):
            out += letter + _meaning_hash(key, first.get(key))
    return out


def _read_tag(tag: str) -> tuple[set[str], dict[str, str]]:
    """The insisted mark fields and the {sidecar key: first-read hash} of a swap tag."""
    insisted: set[str] = set()
    unless: dict[str, str] = {}
    keys = {letter: key for key, letter in KEY_TAGS.items()}
    at = 0
    while at < len(tag):
        if tag[at] in keys:
            unless[keys[tag[at]]] = tag[at + 1 : at + 4]
            at += 4
            continue
        insisted |= {name for name, letter in FIELD_TAGS.items() if letter == tag[at]}
        at += 1
    return insisted, unless


def our_marks_on_top(theirs: bytes, ours: bytes, tag: str | None = None) -> bytes | None:
    """`theirs` (another program's sidecar) with what a killed write of ours set, taken from `ours`
    (the sidecar it wrote) and put on top as that write would have (atomic_write.remove_leftovers
    finishes it so): the fields it insisted on, and each other field it set where `theirs` still
    holds what the write first read (see swap_tag). None when either cannot be read, or for a swap
    file of an older version without a tag (kept aside: its fields cannot be told apart)."""
    if tag is None:
        return None
    insisted, unless = _read_tag(tag)
    try:
        packet, mine = scan(theirs), scan(ours)
    except PacketError:
        return None
    marks = _marks_of(mine)
    if marks.unreadable:
        return None
    meanings = _meanings(packet)
    keys = {key for key, made_by in _PRODUCED_BY.items() if made_by & insisted}
    if "stars" not in insisted and marks.flag != "reject" and meanings["Rating"] != -1:
        keys.discard("Rating")  # as write_marks: a pick or unflag leaves a rating that is no reject alone
    keys |= {key for key, first in unless.items() if not isinstance(meanings[key], tuple) and _meaning_hash(key, meanings[key]) == first}
    values = {key: value for key, value in sidecar_fields(marks.stars or 0, marks.flag, marks.label).items() if key in keys}
    if not values:
        return theirs
    try:
        return edit(packet, values)
    except PacketError:
        return None


def restore_sidecar(path: str | os.PathLike[str], before: bytes | None, written: FileState) -> bool:
    """Undo one write: put `before` back (delete the sidecar when None) if the file is still exactly
    what that write left (`written`); False, nothing changed, when another program edited it since."""
    target = Path(path)
    if _write_problem(target) is not None:
        return False
    try:
        return restore_file(target, before, written, MAX_SIDECAR_BYTES)
    except OSError:
        return False
