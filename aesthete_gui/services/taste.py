"""Personal taste (SPEC §7): record choices, train/evaluate/switch adapters, suggest the next pair, rank.

Shared by the CLI and the GUI. Agreement is measured honestly: the adapter is first trained on the
user's earlier choices only and scored on the later ones (split by time, never trained on), next
to the base scorer on the same held-out choices, each with a bootstrap 95% interval; then the stored
adapter is re-trained on every choice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.scoring import (
    LibraryArrays,
    base_scores_for,
    default_scorer,
    library_arrays,
)
from aesthete_gui.store import ChoiceRecord, Profile
from aesthete_gui.training.personalize import (
    BASE_SLOPE,
    Featurizer,
    PairChoice,
    TasteAdapter,
    TasteInputs,
    agreement,
    bootstrap_interval,
    fit_featurizer,
    train_adapter,
)

HELD_OUT_FRACTION = 0.2
MIN_CHOICES_TO_EVALUATE = 20
CURVE_POINTS = 6
WINNERS = ("a", "b", "tie")


class TasteError(ValueError):
    """A taste operation cannot proceed (no choices, unknown adapter, bad CSV row …); says why."""


@dataclass(frozen=True)
class Agreement:
    """Held-out agreement of one model with the user's later choices: mean and bootstrap 95% interval."""

    mean: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        """Rounded for storage and display."""
        return {"mean": round(self.mean, 4), "low": round(self.low, 4), "high": round(self.high, 4)}


@dataclass(frozen=True)
class TasteReport:
    """What a training (or an evaluation) found."""

    name: str
    base_scorer: str
    choices: int
    train_choices: int
    held_out: int
    base: Agreement | None
    adapter: Agreement | None
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (stored as the adapter's metrics)."""
        return {
            "name": self.name,
            "base_scorer": self.base_scorer,
            "choices": self.choices,
            "train_choices": self.train_choices,
            "held_out": self.held_out,
            "base_agreement": self.base.as_dict() if self.base else None,
            "adapter_agreement": self.adapter.as_dict() if self.adapter else None,
            "seconds": round(self.seconds, 3),
        }


def record_choice(profile: Profile, a: str, b: str, winner: str, dimension: str = "overall") -> int:
    """Record one choice between two images of the profile (paths or ids); committed immediately."""
    from aesthete_gui.services.library import resolve_image

    _check_winner_dimension(winner, dimension)
    try:
        first, second = resolve_image(profile, a), resolve_image(profile, b)
    except KeyError as error:
        raise TasteError(str(error.args[0])) from error
    if first == second:
        raise TasteError("a choice needs two different images")
    return profile.add_choice(first, second, winner, dimension, session="cli")


def import_choices_csv(profile: Profile, csv_path: str | Path, keep_duplicates: bool = False) -> int:
    """Import rows `a,b,winner[,dimension]` (services.choices_csv); any bad row aborts the whole
    import naming its line. Rows already imported from a CSV are skipped unless `keep_duplicates`;
    returns how many choices were recorded."""
    from aesthete_gui.services.choices_csv import ChoicesCsvError, import_choices

    try:
        return import_choices(profile, csv_path, keep_duplicates=keep_duplicates).imported
    except ChoicesCsvError as error:
        raise TasteError(str(error)) from error


def _check_winner_dimension(winner: str, dimension: str) -> None:
    if winner not in WINNERS:
        raise TasteError(f"winner must be a, b or tie, not {winner!r}")
    if dimension not in DIMENSIONS:
        raise TasteError(f"unknown dimension {dimension!r}; expected one of {', '.join(DIMENSIONS)}")


@dataclass
class _Library:
    arrays: LibraryArrays
    inputs: TasteInputs
    row_of: dict[int, int]

    @cached_property
    def featurizer(self) -> Featurizer:
        """The library's design, fitted on first use (an SVD of every embedding: seconds on a large
        library) and shared by every adapter trained on it; ranking and suggesting never need it."""
        return fit_featurizer(self.inputs)


def _library(profile: Profile, base_scorer: str, progress: ProgressCallback | None, cancel: CancelToken | None) -> _Library:
    arrays = library_arrays(profile, with_embeddings=True, progress=progress, cancel=cancel)
    if not arrays.images:
        raise TasteError("the profile has no readable images; import a folder first")
    base = base_scores_for(profile, arrays, base_scorer)
    inputs = TasteInputs(keys=[r.id for r in arrays.images], base_scores=base, properties=arrays.features, embeddings=arrays.embeddings)
    return _Library(arrays, inputs, {r.id: i for i, r in enumerate(arrays.images)})


def _pair_choices(choices: list[ChoiceRecord], row_of: dict[int, int]) -> list[PairChoice]:
    return [
        PairChoice(row_of[c.image_a], row_of[c.image_b], c.winner, c.dimension)
        for c in choices
        if c.image_a in row_of and c.image_b in row_of
    ]


def _measure(adapter: TasteAdapter, library: _Library, held_out: list[PairChoice]) -> tuple[Agreement, Agreement]:
    winners = [c.winner for c in held_out]
    utilities = {d: adapter.utilities(library.inputs, d) for d in {c.dimension for c in held_out}}
    adapted, base = [], []
    for choice in held_out:
        utility = utilities[choice.dimension]
        adapted.append(utility[choice.a] - utility[choice.b])
        column = library.inputs.base_scores[:, DIMENSIONS.index(choice.dimension)]  # type: ignore[index]
        base.append(column[choice.a] - column[choice.b])
    return (
        Agreement(*bootstrap_interval(agreement(np.array(base), winners))),
        Agreement(*bootstrap_interval(agreement(np.array(adapted), winners))),
    )


def evaluate_taste(
    profile: Profile,
    base_scorer: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    name: str = "",
) -> TasteReport:
    """Held-out agreement of the adapter and the base scorer (time split), nothing stored."""
    return _evaluate(profile, base_scorer, progress, cancel, name)[0]


def _evaluate(
    profile: Profile,
    base_scorer: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    name: str = "",
) -> tuple[TasteReport, _Library, list[PairChoice]]:
    """Train on the earlier choices, measure base and adapter on the later ones (time split)."""
    started = time.perf_counter()
    scorer = base_scorer or default_scorer(profile)
    library = _library(profile, scorer, progress, cancel)
    choices = _pair_choices(profile.choices(), library.row_of)
    if not choices:
        raise TasteError("no choices recorded yet: use `aesthete prefer A B --winner a|b|tie` first")
    held = round(HELD_OUT_FRACTION * len(choices)) if len(choices) >= MIN_CHOICES_TO_EVALUATE else 0
    base_agreement = adapter_agreement = None
    if held:
        early = train_adapter(library.inputs, choices[:-held], featurizer=library.featurizer)
        base_agreement, adapter_agreement = _measure(early, library, choices[-held:])
    report = TasteReport(name, scorer, len(choices), len(choices) - held, held, base_agreement, adapter_agreement, time.perf_counter() - started)
    return report, library, choices


def train_taste(
    profile: Profile,
    name: str | None = None,
    base_scorer: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> TasteReport:
    """Measure (time split), then train on every choice, store as `name` (default "default"), activate."""
    name = name or "default"
    report, library, choices = _evaluate(profile, base_scorer, progress, cancel, name)
    started = time.perf_counter()
    adapter = train_adapter(library.inputs, choices, featurizer=library.featurizer)
    report = TasteReport(**{**report.__dict__, "seconds": report.seconds + time.perf_counter() - started})
    metrics = {**report.as_dict(), "encoder": library.arrays.encoder_id, "trained_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    profile.save_adapter(name, report.base_scorer, adapter.to_bytes(), metrics)
    profile.set_active_adapter(name)
    return report


def learning_curve(
    profile: Profile,
    base_scorer: str | None = None,
    dimension: str = "overall",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[list[tuple[int, Agreement]], Agreement]:
    """Held-out agreement after training on the first n earlier choices, for growing n.

    The latest choices on `dimension` are held out (never trained on), as in `evaluate_taste`;
    returns (n, adapter agreement) per point and the base scorer's agreement on the same choices.
    """
    library = _library(profile, base_scorer or default_scorer(profile), progress, cancel)
    choices = _pair_choices(profile.choices(dimension), library.row_of)
    if len(choices) < MIN_CHOICES_TO_EVALUATE:
        raise TasteError(
            f"the learning curve needs at least {MIN_CHOICES_TO_EVALUATE} choices on {dimension}; "
            f"there are {len(choices)}"
        )
    held = max(1, round(HELD_OUT_FRACTION * len(choices)))
    train, test = choices[:-held], choices[-held:]
    sizes = np.unique(np.rint(np.geomspace(min(5, len(train)), len(train), CURVE_POINTS)).astype(int))
    points: list[tuple[int, Agreement]] = []
    base = None
    for done, size in enumerate(sizes.tolist(), start=1):
        if cancel is not None:
            cancel.raise_if_cancelled()
        adapter = train_adapter(library.inputs, train[:size], featurizer=library.featurizer)
        base, adapted = _measure(adapter, library, test)
        points.append((size, adapted))
        if progress is not None:
            progress(Progress(done, len(sizes), f"learning curve: {size} choices"))
    assert base is not None  # sizes is never empty: train has at least 16 choices
    return points, base


def use_adapter(profile: Profile, name: str | None) -> None:
    """Switch the active adapter (None or "none": the base scorer alone)."""
    target = None if name in (None, "", "none") else name
    try:
        profile.set_active_adapter(target)
    except KeyError as error:
        known = ", ".join(a.name for a in profile.adapters()) or "none trained yet"
        raise TasteError(f"no adapter named {name!r} (known: {known})") from error


def list_adapters(profile: Profile) -> list[dict[str, Any]]:
    """Every adapter with its base scorer, whether active, and its held-out metrics."""
    return [
        {"name": a.name, "base_scorer": a.base_scorer, "active": a.active, "metrics": a.metrics}
        for a in profile.adapters()
    ]


def _adapter_named(profile: Profile, name: str | None) -> Any:
    record = profile.adapter(name) if name else profile.active_adapter()
    if name and record is None:
        raise TasteError(f"no adapter named {name!r}")
    return record


def rank_images(
    profile: Profile,
    adapter_name: str | None = None,
    dimension: str = "overall",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[dict[str, Any]]:
    """The library ranked best first by the active (or named) adapter, else by the base scorer."""
    record = _adapter_named(profile, adapter_name)
    scorer = record.base_scorer if record else default_scorer(profile)
    library = _library(profile, scorer, progress, cancel)
    column = library.inputs.base_scores[:, DIMENSIONS.index(dimension)]  # type: ignore[index]
    if record is not None:
        adapter = TasteAdapter.from_bytes(record.blob)
        personal = adapter.utilities(library.inputs, dimension) / BASE_SLOPE  # as adapter.scores
    else:
        personal = column
    order = np.argsort(-personal, kind="stable")
    return [
        {
            "path": library.arrays.images[i].path,
            "score": round(float(personal[i]), 4),
            "base_score": round(float(column[i]), 4),
            "image_id": library.arrays.images[i].id,
            "scorer": scorer,
            "adapter": record.name if record else None,
        }
        for i in order
    ]


def suggest_next_pairs(
    profile: Profile,
    count: int = 1,
    dimension: str = "overall",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[dict[str, Any]]:
    """Pairs to judge next: the closest calls in the active adapter's ranking, no near-duplicates or burst mates."""
    from aesthete_gui.training.suggest import suggest_pairs

    record = profile.active_adapter()
    scorer = record.base_scorer if record else default_scorer(profile)
    library = _library(profile, scorer, progress, cancel)
    adapter = TasteAdapter.from_bytes(record.blob) if record else None
    judged = {frozenset((c.a, c.b)) for c in _pair_choices(profile.choices(dimension), library.row_of)}
    images = library.arrays.images
    pairs = suggest_pairs(
        adapter, library.inputs, judged, count=count, dimension=dimension,
        hashes=[r.phash for r in images], bursts=[r.burst_id for r in images],
    )  # fmt: skip
    return [
        {"a": images[a].path, "b": images[b].path, "information": round(info, 6), "dimension": dimension}
        for a, b, info in pairs
    ]
