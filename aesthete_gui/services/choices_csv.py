"""Import the user's choices from a CSV file (a,b,winner[,dimension]), all or nothing, without doubling them.

A CSV carries no time of choice, so a row is a duplicate when a choice with the same two images
(in the same order), the same winner and the same dimension was already imported from a CSV file:
importing the same file twice adds nothing the second time. Choices made in the app or with
`aesthete prefer A B` are separate decisions and never count as duplicates. Repeated rows inside
one file are kept (each one is a choice).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from aesthete_gui.errors import AestheteError
from aesthete_gui.services.choices import ChoiceError, checked_draft
from aesthete_gui.services.csv_rows import CsvError, read_table
from aesthete_gui.store import Profile

CSV_SESSION_PREFIX = "csv:"


class ChoicesCsvError(AestheteError, ValueError):
    """A choices CSV that cannot be imported; the message names the file and line. Nothing was imported."""


@dataclass(frozen=True)
class ChoicesImport:
    """What a choices CSV import did."""

    imported: int
    duplicates: int

    def describe(self, source: str) -> str:
        """One line for the user."""
        skipped = f"; {self.duplicates} duplicates skipped" if self.duplicates else ""
        return f"imported {self.imported} choices from {source}{skipped}"


def import_choices(profile: Profile, csv_path: str | Path, keep_duplicates: bool = False) -> ChoicesImport:
    """Check every row, then record the new ones in one transaction (duplicates too when asked)."""
    source = str(csv_path)
    try:
        with open(csv_path, newline="", encoding="utf-8-sig") as handle:
            rows, _ = read_table(handle, source, ("a", "b", "winner"), pad_short_rows=True)
    except OSError as error:
        raise ChoicesCsvError(f"cannot read {source}: {error.strerror or error}") from error
    except CsvError as error:
        raise ChoicesCsvError(f"{error}; nothing was imported") from error
    planned: list[tuple[int, int, str, str]] = []
    for line, row in rows:
        winner = row.get("winner", "").lower()
        dimension = row.get("dimension", "").lower() or "overall"
        try:
            draft = checked_draft(profile, row.get("a", ""), row.get("b", ""), winner, dimension)
        except ChoiceError as error:
            raise ChoicesCsvError(f"{source}: line {line}: {error}; nothing was imported") from error
        planned.append((draft.image_a, draft.image_b, draft.winner, draft.dimension))
    fresh, duplicates = (planned, 0) if keep_duplicates else _without_earlier_imports(profile, planned)
    if fresh:
        profile.choices.add_many(fresh, session=f"{CSV_SESSION_PREFIX}{Path(csv_path).name}:{int(time.time())}")
    return ChoicesImport(len(fresh), duplicates)


def _without_earlier_imports(
    profile: Profile, planned: list[tuple[int, int, str, str]]
) -> tuple[list[tuple[int, int, str, str]], int]:
    earlier: Counter[tuple[int, int, str, str]] = Counter(
        (c.image_a, c.image_b, c.winner, c.dimension)
        for c in profile.choices.all()
        if (c.session or "").startswith(CSV_SESSION_PREFIX)
    )
    fresh = []
    for choice in planned:
        if earlier[choice] > 0:
            earlier[choice] -= 1
        else:
            fresh.append(choice)
    return fresh, len(planned) - len(fresh)
