"""Read a small CSV table with a header: exact line numbers, blank lines skipped, duplicate columns refused."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence

from aesthete_gui.safe_text import terminal_text

Row = tuple[int, dict[str, str]]
"""A data row: the line it starts on (1-based, as an editor shows it) and its cells by column name."""


class CsvError(ValueError):
    """The table cannot be read; the message names the file and the line."""


def read_table(
    lines: Iterable[str], source: str, required: Sequence[str], pad_short_rows: bool = False
) -> tuple[list[Row], list[str]]:
    """Rows and the normalised (stripped, lower-case) header of a CSV text.

    Blank lines anywhere (before the header too) are skipped but still counted, so every message
    names the line an editor shows. The header must hold every `required` column, each at most once.
    A row with more fields than the header is refused; a shorter one too, unless `pad_short_rows`
    (its missing trailing cells are then empty).
    """
    reader = csv.reader(lines)
    names: list[str] | None = None
    rows: list[Row] = []
    end = 0  # the line the previous record ended on
    try:
        for values in reader:
            line, end = end + 1, reader.line_num
            if not any(value.strip() for value in values):
                continue
            if names is None:
                names = _header(values, source, line, required)
                continue
            if pad_short_rows and len(values) < len(names):
                values = values + [""] * (len(names) - len(values))
            if len(values) != len(names):
                raise CsvError(f"{source}: line {line}: expected {len(names)} fields, got {len(values)}")
            rows.append((line, {name: value.strip() for name, value in zip(names, values, strict=True)}))
    except UnicodeDecodeError as error:
        raise CsvError(f"{source}: not UTF-8 text ({error.reason})") from error
    except csv.Error as error:
        raise CsvError(f"{source}: line {reader.line_num}: {error}") from error
    if names is None:
        raise CsvError(f"{source}: empty file; expected a header with {', '.join(required)}")
    return rows, names


def _header(values: list[str], source: str, line: int, required: Sequence[str]) -> list[str]:
    names = [value.strip().lower() for value in values]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        shown = ", ".join(terminal_text(name) or "(empty)" for name in repeated)
        raise CsvError(f"{source}: line {line}: column(s) named more than once in the header: {shown}")
    missing = [name for name in required if name not in names]
    if missing:
        found = ", ".join(terminal_text(name) for name in names)
        raise CsvError(f"{source}: line {line}: missing column(s) {', '.join(missing)} (found: {found})")
    return names
