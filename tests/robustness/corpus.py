"""The hostile-input corpus: generators that write each hostile file, and the registry the tests run.

To add a case, write a function that creates the file in the folder it is given and returns its
path, and register it with `@image_case`, `@sidecar_case` or `@profile_case` (or append to the
lists). The tests in this package pick every registered case up; nothing else needs to change.

- image cases: what the import should record — `"ok"` (odd but valid: it imports) or `"error"`
  (listed with a reason containing `reason`), or `"absent"` (not a file: not listed at all).
- sidecar cases: an image `photo.jpg` with a hostile `photo.xmp` beside it; the image must import
  and any stars read from the sidecar must be a valid 0..5.
- profile cases: a hostile profile file; `aesthete images` / `mark` must answer one line with
  `reason`, exit 2, and leave the file's bytes as they were.
- argument cases: hostile arguments (odd image ids, escape codes) on a valid profile: one line,
  exit 2, nothing changed.
- profile faults: a valid profile under a real file-system fault (read-only file or folder, a full
  disk); refused commands answer one line with `reason`, and every stored row is kept.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.robustness.fs_faults import read_only_file, read_only_folder, small_disk

Maker = Callable[[Path], Path]


@dataclass(frozen=True)
class ImageCase:
    """One hostile file for the import."""

    name: str
    make: Maker
    outcome: str  # "ok" | "error" | "absent"
    reason: str = ""  # a lower-case part of the recorded reason ("error" cases)
    marks: tuple[pytest.MarkDecorator, ...] = ()


@dataclass(frozen=True)
class SidecarCase:
    """One hostile XMP sidecar beside a valid image."""

    name: str
    make: Maker  # writes the sidecar text for `photo.jpg` into the folder
    marks: tuple[pytest.MarkDecorator, ...] = ()  # for the import test
    write_marks: tuple[pytest.MarkDecorator, ...] = ()  # for the `mark --xmp` / `export --format xmp` test


@dataclass(frozen=True)
class ProfileCase:
    """One hostile profile file (or folder) given to `--profile`."""

    name: str
    make: Maker
    reason: str  # a part of the one-line message
    marks: tuple[pytest.MarkDecorator, ...] = ()


IMAGE_CASES: list[ImageCase] = []
SIDECAR_CASES: list[SidecarCase] = []
PROFILE_CASES: list[ProfileCase] = []


def image_case(outcome: str, reason: str = "", *marks: pytest.MarkDecorator) -> Callable[[Maker], Maker]:
    """Register an image generator under its function name."""

    def register(make: Maker) -> Maker:
        IMAGE_CASES.append(ImageCase(make.__name__, make, outcome, reason, marks))
        return make

    return register


def sidecar_case(
    *marks: pytest.MarkDecorator, write_marks: tuple[pytest.MarkDecorator, ...] = ()
) -> Callable[[Maker], Maker]:
    """Register a sidecar generator under its function name."""

    def register(make: Maker) -> Maker:
        SIDECAR_CASES.append(SidecarCase(make.__name__, make, marks, write_marks))
        return make

    return register


def profile_case(reason: str, *marks: pytest.MarkDecorator) -> Callable[[Maker], Maker]:
    """Register a profile generator under its function name."""

    def register(make: Maker) -> Maker:
        PROFILE_CASES.append(ProfileCase(make.__name__, make, reason, marks))
        return make

    return register


def params(cases: list, marks: str = "marks") -> list:
    """pytest parameters for a case list, each with its name as id and its marks (attribute `marks`)."""
    return [pytest.param(case, id=case.name, marks=getattr(case, marks)) for case in cases]


# -- building blocks ---------------------------------------------------------------------------
def picture(seed: int = 1, size: tuple[int, int] = (160, 120)) -> Image.Image:
    """A photo-like RGB picture (gradient, a disc, noise), different per seed."""
    rng = np.random.default_rng(seed)
    w, h = size
    y, x = np.mgrid[0:h, 0:w]
    rgb = np.stack([x / w * 255, y / h * 255, (x + y) / (w + h) * 255], axis=-1)
    rgb[(x - w // 2) ** 2 + (y - h // 2) ** 2 < (min(w, h) // 4) ** 2] = rng.integers(0, 255, 3)
    return Image.fromarray(np.clip(rgb + rng.normal(0, 5, rgb.shape), 0, 255).astype(np.uint8))


def jpeg_bytes(seed: int = 1) -> bytes:
    """A valid JPEG file's bytes."""
    from io import BytesIO

    buffer = BytesIO()
    picture(seed).save(buffer, "JPEG", quality=85)
    return buffer.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# -- images that must be listed with a reason ----------------------------------------------------
@image_case("error")
def zero_bytes(folder: Path) -> Path:
    (path := folder / "zero_bytes.jpg").write_bytes(b"")
    return path


@image_case("error")
def truncated_jpeg(folder: Path) -> Path:
    data = jpeg_bytes(2)
    (path := folder / "truncated.jpg").write_bytes(data[: len(data) // 4])
    return path


@image_case("error")
def corrupt_jpeg(folder: Path) -> Path:
    data = bytearray(jpeg_bytes(3))
    data[150:] = bytes((b * 7 + 13) % 256 for b in data[150:])
    (path := folder / "corrupt.jpg").write_bytes(bytes(data))
    return path


@image_case("error")
def random_bytes(folder: Path) -> Path:
    (path := folder / "random.jpg").write_bytes(np.random.default_rng(4).bytes(6000))
    return path


@image_case("error")
def text_named_jpg(folder: Path) -> Path:
    (path := folder / "notes.jpg").write_text("<html><body>not an image</body></html>\n" * 20)
    return path


@image_case("error", "too large")
def decompression_bomb_png(folder: Path) -> Path:
    header = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 2, 0, 0, 0)
    body = _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + _chunk(b"IEND", b"")
    (path := folder / "bomb.png").write_bytes(b"\x89PNG\r\n\x1a\n" + body)
    return path


@image_case("error")
def png_header_only(folder: Path) -> Path:
    (path := folder / "header_only.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return path


@image_case("error")
def broken_symlink(folder: Path) -> Path:
    path = folder / "broken_link.jpg"
    os.symlink(folder / "nowhere" / "gone.jpg", path)
    return path


# -- odd but valid images: they import ------------------------------------------------------------
@image_case("ok")
def cmyk_jpeg(folder: Path) -> Path:
    picture(5).convert("CMYK").save(path := folder / "cmyk.jpg", "JPEG")
    return path


@image_case("ok")
def sixteen_bit_tiff(folder: Path) -> Path:
    Image.fromarray(np.linspace(0, 65535, 64 * 48).reshape(48, 64).astype(np.uint16)).save(
        path := folder / "sixteen.tif"
    )
    return path


@image_case("ok")
def sixteen_bit_png(folder: Path) -> Path:
    Image.fromarray(np.linspace(0, 65535, 80 * 60).reshape(60, 80).astype(np.uint16)).save(
        path := folder / "sixteen.png"
    )
    return path


@image_case("ok")
def alpha_png(folder: Path) -> Path:
    rgba = picture(6).convert("RGBA")
    rgba.putalpha(Image.linear_gradient("L").resize(rgba.size))
    rgba.save(path := folder / "alpha.png")
    return path


@image_case("ok")
def palette_with_transparency(folder: Path) -> Path:
    image = picture(7).convert("P")
    image.info["transparency"] = 0
    image.save(path := folder / "palette.png", transparency=0)
    return path


@image_case("ok")
def animated_gif(folder: Path) -> Path:
    frames = [picture(s, (64, 48)).convert("P") for s in (8, 9, 10)]
    frames[0].save(path := folder / "animated.gif", save_all=True, append_images=frames[1:], duration=90)
    return path


@image_case("ok")
def png_named_jpg(folder: Path) -> Path:
    picture(11).save(path := folder / "really_png.jpg", "PNG")
    return path


@image_case("ok")
def one_pixel(folder: Path) -> Path:
    Image.new("RGB", (1, 1), (200, 10, 10)).save(path := folder / "one_pixel.png")
    return path


@image_case("ok")
def control_characters_in_name(folder: Path) -> Path:
    path = folder / "evil\x1b[31mred\x07.jpg"
    path.write_bytes(jpeg_bytes(12))
    return path


@image_case("ok")
def garbage_exif(folder: Path) -> Path:
    data = jpeg_bytes(13)
    app1 = b"Exif\x00\x00" + b"MM\x00\x2a\x00\x00\x00\x08" + b"\xff\xff" + os.urandom(64)
    segment = b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
    (path := folder / "garbage_exif.jpg").write_bytes(data[:2] + segment + data[2:])
    return path


# -- not files: never listed ----------------------------------------------------------------------
@image_case("absent")
def folder_named_jpg(folder: Path) -> Path:
    (path := folder / "album.jpg").mkdir()
    return path


# -- sidecars (beside photo.jpg) ------------------------------------------------------------------
def _sidecar(folder: Path, text: str | bytes) -> Path:
    path = folder / "photo.xmp"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _xmp(attributes: str, inner: str = "") -> str:
    return (
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        f'<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" {attributes}>{inner}'
        "</rdf:Description></rdf:RDF></x:xmpmeta>"
    )


@sidecar_case()
def sidecar_empty(folder: Path) -> Path:
    return _sidecar(folder, b"")


@sidecar_case()
def sidecar_not_xml(folder: Path) -> Path:
    return _sidecar(folder, "this is not XML <<<")


@sidecar_case()
def sidecar_binary_garbage(folder: Path) -> Path:
    return _sidecar(folder, np.random.default_rng(20).bytes(4000))


@sidecar_case()
def sidecar_entity_bomb(folder: Path) -> Path:
    entities = '<!ENTITY a0 "lol">' + "".join(
        f'<!ENTITY a{n} "{("&a" + str(n - 1) + ";") * 10}">' for n in range(1, 10)
    )
    return _sidecar(folder, f"<?xml version='1.0'?><!DOCTYPE x [{entities}]><x>&a9;</x>")


@sidecar_case()
def sidecar_external_entity(folder: Path) -> Path:
    return _sidecar(
        folder, "<?xml version='1.0'?><!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><x>&e;</x>"
    )


@sidecar_case()
def sidecar_rating_not_a_number(folder: Path) -> Path:
    return _sidecar(folder, _xmp('xmp:Rating="five"'))


@sidecar_case()
def sidecar_rating_out_of_range(folder: Path) -> Path:
    return _sidecar(folder, _xmp('xmp:Rating="99"'))


@sidecar_case()  # once an OverflowError that stopped the import
def sidecar_rating_overflow(folder: Path) -> Path:
    return _sidecar(folder, _xmp('xmp:Rating="1e400"'))


@sidecar_case()  # once a RecursionError in `mark --xmp` and `export --format xmp`
def sidecar_deep_nesting(folder: Path) -> Path:
    return _sidecar(folder, _xmp('xmp:Rating="3"', "<a>" * 1000 + "</a>" * 1000))


# -- profiles -------------------------------------------------------------------------------------
@profile_case("not an Aesthete profile")
def profile_text_file(folder: Path) -> Path:
    (path := folder / "p.db").write_text("a text file, not a profile\n" * 30)
    return path


@profile_case("not an Aesthete profile")
def profile_is_a_jpeg(folder: Path) -> Path:
    (path := folder / "p.db").write_bytes(jpeg_bytes(30))
    return path


@profile_case("damaged")  # an SQLite file cut short inside its first page
def profile_header_only(folder: Path) -> Path:
    (path := folder / "p.db").write_bytes(b"SQLite format 3\x00\x10\x00\x02\x02" + b"\x00" * 80)
    return path


@profile_case("damaged")
def profile_truncated(folder: Path) -> Path:
    path = real_profile(folder / "p.db")
    path.write_bytes(path.read_bytes()[: 3 * 4096])
    return path


@profile_case("damaged")
def profile_damaged_table_page(folder: Path) -> Path:
    path = real_profile(folder / "p.db")
    conn = sqlite3.connect(path)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'images'").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * page : root * page] = b"\x5a" * page
    path.write_bytes(bytes(data))
    return path


@profile_case("is a folder")
def profile_is_a_folder(folder: Path) -> Path:
    (path := folder / "p.db").mkdir()
    return path


@profile_case("another program")
def profile_foreign_sqlite(folder: Path) -> Path:
    conn = sqlite3.connect(path := folder / "p.db")
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.commit()
    conn.close()
    return path


@profile_case("newer than this Aesthete")
def profile_from_the_future(folder: Path) -> Path:
    path = real_profile(folder / "p.db")
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (9999, 0)")
    conn.commit()
    conn.close()
    return path


def real_profile(path: Path, images: int = 40) -> Path:
    """A valid profile with `images` rows and a mark on the first, checkpointed into one file."""
    from aesthete_gui.store import ImageUpdate, open_profile

    profile = open_profile(path)
    ids = profile.catalog.write_images([
        ImageUpdate(path=f"/photos/img_{n:04d}.jpg", folder_id=None, status="ok", size=10,
                    mtime_ns=5, content_hash=f"hash-{n}")
        for n in range(images)
    ])  # fmt: skip
    profile.marks.set(ids[0], stars=4)
    profile.close()
    return path


# -- command-line arguments ------------------------------------------------------------------------
@dataclass(frozen=True)
class ArgumentCase:
    """Hostile arguments for a command run on a valid profile (`real_profile`): one line, exit 2."""

    name: str
    argv: tuple[str, ...]
    reason: str
    marks: tuple[pytest.MarkDecorator, ...] = ()


ARGUMENT_CASES: list[ArgumentCase] = [
    ArgumentCase("mark_negative_id", ("mark", "-1", "--stars", "2"), "not in the profile"),
    ArgumentCase("mark_float_id", ("mark", "1e5", "--stars", "2"), "not in the profile"),
    ArgumentCase("mark_escape_codes", ("mark", "\x1b[2J\x07", "--stars", "2"), "\\x1b[2J"),
    ArgumentCase("mark_superscript_id", ("mark", "\u00b2", "--stars", "2"), ""),
    ArgumentCase("mark_huge_id", ("mark", str(10**23), "--stars", "2"), ""),
    ArgumentCase("prefer_superscript_id", ("prefer", "\u00b2", "1", "--winner", "a"), ""),
    ArgumentCase("prefer_huge_id", ("prefer", str(10**23), "1", "--winner", "a"), ""),
]


# -- profiles under file-system faults --------------------------------------------------------------
@dataclass(frozen=True)
class ProfileFault:
    """A valid profile (made by `real_profile`) under a real file-system fault for the block."""

    name: str
    apply: Callable[[Path], AbstractContextManager[Path]]  # folder -> context yielding the profile path
    reads: int  # exit code of `aesthete images` under the fault (0: reading still works)
    reason: str  # a part of the one-line message of a refused command


PROFILE_FAULTS: list[ProfileFault] = []


def profile_fault(reads: int, reason: str) -> Callable[[Callable], Callable]:
    """Register a fault (a context manager function taking a folder) under its function name."""

    def register(apply: Callable) -> Callable:
        PROFILE_FAULTS.append(ProfileFault(apply.__name__, apply, reads, reason))
        return apply

    return register


@profile_fault(reads=0, reason="not writable")
@contextmanager
def read_only_profile_file(folder: Path) -> Iterator[Path]:
    path = real_profile(folder / "p.db")
    with read_only_file(path):
        yield path


@profile_fault(reads=2, reason="read-only")
@contextmanager
def profile_in_read_only_folder(folder: Path) -> Iterator[Path]:
    real_profile(folder / "profiles" / "p.db")
    with read_only_folder(folder / "profiles") as view:
        yield view / "p.db"


@profile_fault(reads=2, reason="the disk holding it is full")  # opening needs room for its journal
@contextmanager
def profile_on_a_full_disk(folder: Path) -> Iterator[Path]:
    with small_disk(folder / "disk", 1024) as disk:
        path = real_profile(disk / "p.db")
        filler = disk / "filler"
        with filler.open("wb", buffering=0) as handle, suppress(OSError):  # unbuffered: nothing left to flush at close
            while True:
                handle.write(b"\x00" * 16384)
                handle.flush()
        try:
            yield path
        finally:
            filler.unlink()
