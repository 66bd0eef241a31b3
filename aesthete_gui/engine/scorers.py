"""Scorer ids and the Scorer protocols: the one place that spells and parses "kind:name" ids.

A scorer turns images into five-dimension scores on 1–5 (docs/method.md §6). Its id is stored with
every score: `builtin`, `student:<name>`, `bridge:<judge>`, `taste:<adapter>`,
`vlm-single-pass:<model>` or `server:<model>`. Everything that builds or reads such an id goes through `ScorerId`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

import numpy as np

from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import CancelToken, ProgressCallback


class ScorerKind(StrEnum):
    """What produced a set of scores; the part of a scorer id before the colon."""

    BUILTIN = "builtin"  # hand-set rules over image properties (no name, no weights)
    STUDENT = "student"  # a fast student distilled from a judge
    BRIDGE = "bridge"  # calibrated pseudo-scores of a distillation run, named by its judge
    TASTE = "taste"  # the personal ranking of a taste adapter
    VLM = "vlm-single-pass"  # a vision-language model read without generation
    SERVER = "server"  # the same reading from an OpenAI-compatible server's log-probabilities


BUILTIN = ScorerKind.BUILTIN.value
"""The id of the built-in scorer, the default everywhere a scorer is not chosen."""


class ScorerIdError(AestheteError, ValueError):
    """Text that is not a scorer id."""


@dataclass(frozen=True, order=True)
class ScorerId:
    """A parsed scorer id: its kind and, for every kind but the built-in one, a name."""

    kind: ScorerKind
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind is ScorerKind.BUILTIN and self.name:
            raise ScorerIdError("the built-in scorer has no name")
        if self.kind is not ScorerKind.BUILTIN and not self.name.strip():
            raise ScorerIdError(f"a {self.kind.value} scorer needs a name ({self.kind.value}:<name>)")

    def __str__(self) -> str:
        return self.kind.value if self.kind is ScorerKind.BUILTIN else f"{self.kind.value}:{self.name}"

    @classmethod
    def parse(cls, text: str, bare: ScorerKind | None = None) -> ScorerId:
        """Read "kind:name" (or "builtin"); a text with no known kind is a `bare` name, else an error."""
        text = str(text).strip()
        if text == BUILTIN:
            return cls(ScorerKind.BUILTIN)
        head, colon, tail = text.partition(":")
        kinds = {k.value: k for k in ScorerKind}
        if colon and head in kinds:
            return cls(kinds[head], tail)
        if bare is not None and text:
            return cls(bare, text)
        known = ", ".join(["builtin", *(f"{k.value}:<name>" for k in ScorerKind if k is not ScorerKind.BUILTIN)])
        raise ScorerIdError(f"{text!r} is not a scorer id (expected {known})")


def scorer_id(kind: ScorerKind, name: str = "") -> str:
    """The stored id of a scorer: "builtin" or "kind:name"."""
    return str(ScorerId(kind, name))


def is_builtin(text: str | None) -> bool:
    """True for the built-in scorer's id (and for no scorer chosen, which means the built-in one)."""
    return not text or str(text).strip() == BUILTIN


@runtime_checkable
class Scorer(Protocol):
    """Anything that turns image paths into five-dimension scores in one pass per image.

    Keep it this small: an id stored with every score, and one batch method returning one
    {dimension: score in 1..5} mapping per path, in order (an empty mapping for an image that could
    not be read). Implementations check `cancel` between batches and report `progress` in images done.
    """

    scorer_id: str

    def score_paths(
        self,
        paths: Sequence[str],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[dict[str, float]]:
        """Scores per image, in input order."""
        ...


@runtime_checkable
class ArrayScorer(Protocol):
    """A scorer over precomputed inputs (image properties, optional embeddings): built-in and students.

    Read-only members: a class attribute or a property both provide them."""

    @property
    def scorer_id(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def needs_embeddings(self) -> bool: ...
    @property
    def encoder_name(self) -> str | None: ...

    def score_arrays(self, embeddings: np.ndarray | None, feature_names: Sequence[str], features: np.ndarray) -> np.ndarray:
        """(n, 5) scores on 1–5 in DIMENSIONS order."""
        ...
