"""The five canonical aesthetic dimensions and the score scale."""

from __future__ import annotations

from typing import Final

DIMENSIONS: Final[tuple[str, ...]] = ("technique", "coloration", "composition", "mood", "overall")
SCORE_MIN: Final[float] = 1.0
SCORE_MAX: Final[float] = 5.0
SCORE_MID: Final[float] = 3.0


def check_dimension(name: str) -> str:
    """Return `name` when it is one of the five keys, else raise ValueError naming the valid keys."""
    if name not in DIMENSIONS:
        raise ValueError(f"unknown dimension {name!r}; expected one of {', '.join(DIMENSIONS)}")
    return name
