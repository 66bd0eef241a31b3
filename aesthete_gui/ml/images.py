"""Open images for the model layer through the imaging package's safe decoder."""

from __future__ import annotations

import io
import os

from PIL import Image

from aesthete_gui.imaging.decode import DecodeError, open_image


class ImageUnreadable(Exception):
    """An image could not be decoded; the message is the decoder's reason."""


def load_rgb(path: str | os.PathLike[str], max_side: int | None = None) -> Image.Image:
    """The image as RGB (orientation applied, long side at most `max_side`), or ImageUnreadable."""
    try:
        return open_image(path, max_side=max_side)
    except DecodeError as error:
        raise ImageUnreadable(f"{os.fspath(path)}: {error.reason}") from error
    except OSError as error:
        raise ImageUnreadable(f"{os.fspath(path)}: {error}") from error


def jpeg_bytes(path: str | os.PathLike[str], max_side: int | None = None, quality: int = 90) -> bytes:
    """The image re-encoded as a JPEG (for sending to a server), or ImageUnreadable."""
    buffer = io.BytesIO()
    load_rgb(path, max_side).save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()
