"""Marks written into an image file's own XMP packet (in-camera ratings, other tools' embedded edits).

JPEG (APP1) and TIFF (tag 700) packets are found through Pillow without decoding pixels; when Pillow
reads such a file and finds no packet, there is none (no byte search: it would read 8 MB of every
JPEG). For any other file (RAW, DNG Pillow cannot open, HEIC) the packet is searched for in the
first and last megabytes, where cameras and writers put it. The file is only ever read.
"""

from __future__ import annotations

import os
import warnings

from PIL import Image

from aesthete_gui.imaging.xmp import MAX_SIDECAR_BYTES, XmpMarks, read_xmp_bytes

_HEAD_BYTES = 8 * 1024 * 1024
_TAIL_BYTES = 1024 * 1024
_TIFF_XMP_TAG = 700
_START, _END = b"<x:xmpmeta", b"</x:xmpmeta>"


_PILLOW_KNOWS_XMP = frozenset({"JPEG", "MPO", "WEBP"})
"""Formats whose XMP Pillow reads while parsing the header: its answer is final. Not PNG (a packet
may follow the image data, which Pillow reads only on decoding); TIFF only when the file is named as
one: TIFF-based RAW files may keep their packet outside the first directory."""
_JPEG_XMP_PREFIX = b"http://ns.adobe.com/xap/1.0/\x00"
_TIFF_NAMES = (".tif", ".tiff")


def _packet_from_pillow(path: str) -> tuple[bool, bytes | None]:
    """(whether Pillow's answer is final, the packet it found)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(path) as image:
                final = image.format in _PILLOW_KNOWS_XMP or (
                    image.format == "TIFF" and path.lower().endswith(_TIFF_NAMES)
                )
                packet = image.info.get("xmp")
                if not packet:  # Pillow before 10.4 keeps a JPEG's packet among its APP1 segments only
                    packet = next((body[len(_JPEG_XMP_PREFIX):] for marker, body in getattr(image, "applist", [])
                                   if marker == "APP1" and body.startswith(_JPEG_XMP_PREFIX)), None)  # fmt: skip
                if not packet and hasattr(image, "tag_v2"):
                    packet = image.tag_v2.get(_TIFF_XMP_TAG)
    except Exception:  # not something Pillow opens: the byte search below may still find a packet
        return False, None
    if isinstance(packet, str):
        packet = packet.encode("utf-8")
    if isinstance(packet, tuple):
        packet = bytes(packet)
    return final, packet or None


def _packet_by_search(path: str) -> bytes | None:
    with open(path, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        regions = [stream.read(_HEAD_BYTES)]
        if size > _HEAD_BYTES:
            stream.seek(max(_HEAD_BYTES, size - _TAIL_BYTES))
            regions.append(stream.read(_TAIL_BYTES))
    for data in regions:
        start = data.find(_START)
        end = data.find(_END, start + 1) if start >= 0 else -1
        if start >= 0 and end > start:
            return data[start : end + len(_END)]
    return None


def read_embedded_marks(path: str | os.PathLike[str]) -> XmpMarks | None:
    """Stars, pick/reject and label from the file's embedded XMP; None when it has no such marks.

    Raises OSError when the file cannot be read and XmpError when its packet is not readable XMP.
    """
    text = os.fspath(path)
    final, packet = _packet_from_pillow(text)
    if packet is None and not final:
        packet = _packet_by_search(text)
    if not packet:
        return None
    packet = packet[: MAX_SIDECAR_BYTES + 1].strip(b"\x00 \t\r\n")
    start = packet.find(_START)
    if start > 0:
        end = packet.rfind(_END)
        packet = packet[start : end + len(_END)] if end > start else packet[start:]
    marks = read_xmp_bytes(text, packet)
    if marks.stars is None and marks.flag is None and marks.label is None and not marks.unreadable:
        return None
    return marks
