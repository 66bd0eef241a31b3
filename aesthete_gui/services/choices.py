"""Record and remove the user's pairwise choices by image id (what the GUI's views call).

Each call is one committed transaction, which the profile's choices repository announces
(ChoicesChanged), so every view that shows choices learns about it without being told by the view
that wrote them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.errors import AestheteError
from aesthete_gui.store import Profile
from aesthete_gui.store.records import WINNERS


class ChoiceError(AestheteError, ValueError):
    """A choice that cannot be recorded: unknown image, same image twice, bad winner or dimension."""


@dataclass(frozen=True)
class ChoiceDraft:
    """One choice to record: image a (shown first / left), image b, the winner and the dimension."""

    image_a: int
    image_b: int
    winner: str  # "a", "b" or "tie"
    dimension: str = "overall"


@dataclass(frozen=True)
class ChoiceBatch:
    """Choices recorded together (one Compare key, one Set verdict), with where they came from."""

    drafts: tuple[ChoiceDraft, ...]
    session: str | None = None
    app_state: Mapping[str, Any] = field(default_factory=dict)


def checked_draft(profile: Profile, a: str, b: str, winner: str, dimension: str = "overall") -> ChoiceDraft:
    """A choice between two images named by path or id, checked; ChoiceError says what is wrong.

    The one check behind `aesthete prefer` and choices CSV imports.
    """
    from aesthete_gui.services.library import resolve_image

    if winner not in WINNERS:
        raise ChoiceError(f"winner must be a, b or tie, not {winner!r}")
    if dimension not in DIMENSIONS:
        raise ChoiceError(f"unknown dimension {dimension!r}; expected one of {', '.join(DIMENSIONS)}")
    try:
        first, second = resolve_image(profile, a), resolve_image(profile, b)
    except KeyError as error:
        raise ChoiceError(str(error.args[0])) from error
    if first == second:
        raise ChoiceError("a and b are the same image: a choice needs two different images")
    return ChoiceDraft(first, second, winner, dimension)


def add_choices(profile: Profile, batch: ChoiceBatch) -> list[int]:
    """Record the batch in one transaction (all or none); returns the new choice ids in order."""
    rows = [(d.image_a, d.image_b, d.winner, d.dimension) for d in batch.drafts]
    return profile.choices.add_many(rows, batch.session, dict(batch.app_state))


def remove_choices(profile: Profile, choice_ids: Iterable[int]) -> int:
    """Delete these choices (undo); returns how many existed."""
    return profile.choices.delete_many(choice_ids)
