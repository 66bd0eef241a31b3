"""Untrusted text (file names, EXIF fields) made safe to print on a terminal or to put in a CSV cell."""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\udc80-\udcff]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_text(text: object) -> str:
    """`text` with control, escape and bidirectional-override characters shown as \\xNN / \\uNNNN.

    Every CLI line that shows a path or other untrusted text goes through this, so a file name
    cannot move the cursor, recolour or clear the terminal, or reorder what is displayed.
    """
    return _CONTROL.sub(_escape, str(text))


def spreadsheet_cell(value: object) -> object:
    """A CSV cell value that a spreadsheet will not run as a formula: text starting with = + - @,
    a tab or a carriage return gets a leading apostrophe; numbers and None pass unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
