"""Untrusted text (file names, EXIF fields, server replies) made safe to print on a terminal, to put
in a CSV cell, or to show in an error message without a credential in it."""

from __future__ import annotations

import re
from collections.abc import Iterable

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\udc80-\udcff]")
# What the CLI's output filter escapes: the same, except a line's own tab and line ending.
_LINE_CONTROL = re.compile("\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\udc80-\udcff]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
REDACTED = "[redacted]"
# `Authorization: Bearer …`, `"api_key": "…"`, `token=…` and the like, as a server may echo them.
_CREDENTIAL = re.compile(
    r"(?i)(\bbearer\s+|\bbasic\s+|\b(?:authorization|proxy-authorization|x-api-key|api[_-]?key|access[_-]?token"
    r"|token|secret|password)[\"']?\s*[:=]\s*[\"']?(?:bearer\s+|basic\s+)?)([^\s\"',;}\]]+)"
)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _escape_in_line(match: re.Match[str]) -> str:
    code = ord(match.group())
    # \u escapes for everything past C0: the same text in a JSON string printed with
    # ensure_ascii=False stays valid JSON and decodes to the character it replaced.
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def terminal_text(text: object) -> str:
    """`text` with control, escape and bidirectional-override characters shown as \\xNN / \\uNNNN.

    Every CLI line that shows a path or other untrusted text goes through this, so a file name
    cannot move the cursor, recolour or clear the terminal, or reorder what is displayed.
    """
    return _CONTROL.sub(_escape, str(text))


def terminal_lines(text: str) -> str:
    """`text` as the CLI writes it: line breaks (\\n, \\r\\n) and tabs kept, every other control,
    escape or bidirectional character escaped (C0 as \\xNN, the rest as \\uNNNN)."""
    return _LINE_CONTROL.sub(_escape_in_line, text)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` (from a server) without credentials: each of `secrets` and anything that looks like an
    Authorization header, a bearer token or an API key value is replaced by [redacted]."""
    text = _CREDENTIAL.sub(lambda m: m.group(1) + REDACTED, text)
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return text


def spreadsheet_cell(value: object) -> object:
    """A CSV cell value that a spreadsheet will not run as a formula: text starting with = + - @,
    a tab or a carriage return gets a leading apostrophe; numbers and None pass unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
