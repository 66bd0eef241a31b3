"""Personal taste: record choices, train/evaluate/switch adapters, suggest the next pair, rank.

Shared by the CLI and the GUI. Agreement is measured honestly: the adapter is first trained on the
user's earlier choices only and scored on the later ones (split by time, whole Set verdicts and
bursts on one side; see services.taste_guard), next to the base scorer on the same held-out
choices, each with a bootstrap 95% interval; then the stored adapter is re-trained on every choice.
It becomes active only when it measured at least as good as the base scorer; its personal
ranking, on the base's 1–5 scale, is stored as the scores "taste:<name>" that "My ranking" reads.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.scorers import ScorerKind, scorer_id
from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.scoring import (
    LibraryArrays,
    base_ranking,
    base_scores_for,
    default_scorer,
    library_arrays,
    write_scores,
)
from aesthete_gui.services.scoring import (
    personal_scorer_id as personal_scorer_id,  # re-exported
)
from aesthete_gui.services.taste_guard import (
    MIN_HELD_OUT_CHOICES,
    choice_groups,
    comparable_image_ids,
    may_activate,
    split_by_time,
)
from aesthete_gui.store import AdapterRecord, ChoiceRecord, Profile
from aesthete_gui.training.personal_scale import onto_base_scale
from aesthete_gui.training.personalize import (
    Featurizer,
    PairChoice,
    TasteAdapter,
    TasteInputs,
    agreement,
    bootstrap_interval,
    fit_featurizer,
    train_adapter,
)

CURVE_POINTS = 6


class TasteError(AestheteError, ValueError):
    """A taste operation cannot proceed (no choices, unknown adapter, bad CSV row …); says why."""


@dataclass(frozen=True)
class Agreement:
    """Held-out agreement of one model with the user's later choices: mean and bootstrap 95% interval."""

    mean: float
    low: float
    high: float

    @classmethod
    def from_stored(cls, stored: Mapping[str, float] | None) -> Agreement | None:
        """The agreement kept in an adapter's stored metrics (None when it was not measured)."""
        return cls(float(stored["mean"]), float(stored["low"]), float(stored["high"])) if stored else None

    @staticmethod
    def rounded(value: Agreement | None) -> dict[str, float] | None:
        """{mean, low, high} to 4 places, as stored and printed; None when not measured."""
        if value is None:
            return None
        return {"mean": round(value.mean, 4), "low": round(value.low, 4), "high": round(value.high, 4)}


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
    active: bool = False

    @property
    def measured(self) -> bool:
        """True when there were enough held-out choices for agreement figures."""
        return self.base is not None and self.adapter is not None

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values (agreements None when too few choices were held out)."""
        return {
            "name": self.name,
            "base_scorer": self.base_scorer,
            "choices": self.choices,
            "train_choices": self.train_choices,
            "held_out": self.held_out,
            "min_held_out": MIN_HELD_OUT_CHOICES,
            "base_agreement": Agreement.rounded(self.base),
            "adapter_agreement": Agreement.rounded(self.adapter),
            "active": self.active,
            "seconds": round(self.seconds, 3),
        }



def _stored_metrics(report: TasteReport, encoder: str) -> dict[str, Any]:
    """The metrics kept with a trained adapter; whether it is active lives in the adapters table."""
    figures = report.as_dict()
    del figures["active"]
    return {
        **figures,
        "encoder": encoder,
        "trained_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }


@dataclass(frozen=True)
class AdapterFigures:
    """One stored adapter: its base scorer, whether active, and the held-out figures it was trained with."""

    name: str
    base_scorer: str
    active: bool
    choices: int
    held_out: int | None
    base: Agreement | None
    adapter: Agreement | None
    metrics: Mapping[str, Any]

    @property
    def measured(self) -> bool:
        """True when there were enough held-out choices for agreement figures."""
        return self.base is not None and self.adapter is not None


@dataclass(frozen=True)
class RankedImage:
    """One image of a ranking: the score the ranking sorts by and the base scorer's score."""

    image_id: int
    score: float
    base_score: float


@dataclass(frozen=True)
class Ranking:
    """The library best first by `scorer` (the base) or, when `adapter` is set, by that adapter."""

    scorer: str
    adapter: str | None
    dimension: str
    images: tuple[RankedImage, ...]


@dataclass(frozen=True)
class SuggestedPair:
    """Two images worth judging next, by id, and the expected information of the user's choice."""

    a: int
    b: int
    information: float
    dimension: str


def not_enough_held_out(held_out: int) -> str:
    """What the panel and the CLI say instead of a figure when too few choices are held out."""
    return f"not enough held-out choices to measure: {held_out} of {MIN_HELD_OUT_CHOICES}"


def record_choice(profile: Profile, a: str, b: str, winner: str, dimension: str = "overall") -> int:
    """Record one choice between two images of the profile (paths or ids); committed immediately."""
    from aesthete_gui.services.choices import ChoiceError, checked_draft

    try:
        draft = checked_draft(profile, a, b, winner, dimension)
    except ChoiceError as error:
        raise TasteError(str(error)) from error
    return profile.choices.add(draft.image_a, draft.image_b, draft.winner, draft.dimension, session="cli")


def import_choices_csv(profile: Profile, csv_path: str | Path, keep_duplicates: bool = False) -> int:
    """Import rows `a,b,winner[,dimension]` (services.choices_csv); any bad row aborts the whole
    import naming its line. Rows already imported from a CSV are skipped unless `keep_duplicates`;
    returns how many choices were recorded."""
    from aesthete_gui.services.choices_csv import ChoicesCsvError, import_choices

    try:
        return import_choices(profile, csv_path, keep_duplicates=keep_duplicates).imported
    except ChoicesCsvError as error:
        raise TasteError(str(error)) from error


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

    def base_column(self, dimension: str) -> np.ndarray:
        """The base scorer's scores for `dimension`, one per library image."""
        scores = self.inputs.base_scores
        if scores is None:  # _library always scores the library with its base scorer
            raise ValueError("this library was built without base scores")
        return scores[:, DIMENSIONS.index(dimension)]


def _library(profile: Profile, base_scorer: str, progress: ProgressCallback | None, cancel: CancelToken | None) -> _Library:
    arrays = library_arrays(profile, with_embeddings=True, progress=progress, cancel=cancel)
    if not arrays.images:
        raise TasteError("the profile has no readable images; import a folder first")
    base = base_scores_for(profile, arrays, base_scorer)
    inputs = TasteInputs(keys=[r.id for r in arrays.images], base_scores=base, properties=arrays.features, embeddings=arrays.embeddings)
    return _Library(arrays, inputs, {r.id: i for i, r in enumerate(arrays.images)})


def _usable(choices: list[ChoiceRecord], row_of: dict[int, int]) -> list[ChoiceRecord]:
    return [c for c in choices if c.image_a in row_of and c.image_b in row_of]


def _pair_choices(choices: list[ChoiceRecord], row_of: dict[int, int]) -> list[PairChoice]:
    return [PairChoice(row_of[c.image_a], row_of[c.image_b], c.winner, c.dimension) for c in _usable(choices, row_of)]


def _split(choices: list[ChoiceRecord], library: _Library) -> tuple[list[PairChoice], list[PairChoice]]:
    """(train, held out): the latest whole groups held out (services.taste_guard.split_by_time)."""
    usable = _usable(choices, library.row_of)
    groups = choice_groups(usable, {r.id: r.burst_id for r in library.arrays.images})
    split = split_by_time(groups)
    pairs = _pair_choices(usable, library.row_of)
    return [pairs[i] for i in split.train], [pairs[i] for i in split.held_out]


def _measure(adapter: TasteAdapter, library: _Library, held_out: list[PairChoice]) -> tuple[Agreement, Agreement]:
    winners = [c.winner for c in held_out]
    utilities = {d: adapter.utilities(library.inputs, d) for d in {c.dimension for c in held_out}}
    adapted, base = [], []
    for choice in held_out:
        utility = utilities[choice.dimension]
        adapted.append(utility[choice.a] - utility[choice.b])
        column = library.base_column(choice.dimension)
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
    """Train on the earlier choices, measure base and adapter on the later ones (time split).

    With fewer than MIN_HELD_OUT_CHOICES held out nothing is measured: both agreements are None.
    """
    started = time.perf_counter()
    scorer = base_scorer or default_scorer(profile)
    library = _library(profile, scorer, progress, cancel)
    records = profile.choices.all()
    choices = _pair_choices(records, library.row_of)
    if not choices:
        raise TasteError("no choices recorded yet: use `aesthete prefer A B --winner a|b|tie` first")
    train, held_out = _split(records, library)
    base_agreement = adapter_agreement = None
    if len(held_out) >= MIN_HELD_OUT_CHOICES:
        early = train_adapter(library.inputs, train, featurizer=library.featurizer)
        base_agreement, adapter_agreement = _measure(early, library, held_out)
    report = TasteReport(name, scorer, len(choices), len(train), len(held_out), base_agreement, adapter_agreement, time.perf_counter() - started)
    return report, library, choices


def train_taste(
    profile: Profile,
    name: str | None = None,
    base_scorer: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> TasteReport:
    """Measure (time split), train on every choice, store as `name` (default "default") with its
    personal ranking; activate it only when it measured at least as good as the base scorer.

    Not measured (too few held-out choices) or measured worse: the base scorer stays in charge
    (an older adapter that was active stays active, unless it is the one replaced); the user can
    still switch it on with `use_adapter`, seeing both figures.
    """
    name = name or "default"
    report, library, choices = _evaluate(profile, base_scorer, progress, cancel, name)
    started = time.perf_counter()
    adapter = train_adapter(library.inputs, choices, featurizer=library.featurizer)
    activate = may_activate(report.base.mean if report.base else None, report.adapter.mean if report.adapter else None)
    report = TasteReport(**{**report.__dict__, "seconds": report.seconds + time.perf_counter() - started, "active": activate})
    metrics = _stored_metrics(report, library.arrays.encoder_id)
    previously_active = profile.adapters.active()
    profile.adapters.save(name, report.base_scorer, adapter.to_bytes(), metrics)
    _store_ranking(profile, name, adapter, library)
    if activate:
        profile.adapters.set_active(name)
    elif previously_active is not None and previously_active.name == name:
        profile.adapters.set_active(None)  # the replaced adapter was active; the new one has not earned it
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
    train, test = _split(profile.choices.all(dimension), library)
    if len(test) < MIN_HELD_OUT_CHOICES:
        raise TasteError(f"no learning curve on {dimension}: {not_enough_held_out(len(test))}")
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
    assert base is not None  # sizes is never empty: train has at least MIN_TRAIN_CHOICES
    return points, base


def use_adapter(profile: Profile, name: str | None) -> None:
    """Switch the active adapter (None or "none": the base scorer alone)."""
    target = None if name in (None, "", "none") else name
    try:
        profile.adapters.set_active(target)
    except KeyError as error:
        known = ", ".join(a.name for a in profile.adapters.all()) or "none trained yet"
        raise TasteError(f"no adapter named {name!r} (known: {known})") from error


def adapter_figures(record: AdapterRecord) -> AdapterFigures:
    """A stored adapter with the held-out figures read back from its metrics."""
    metrics = record.metrics or {}
    return AdapterFigures(
        name=record.name,
        base_scorer=record.base_scorer,
        active=bool(record.active),
        choices=int(metrics.get("choices") or 0),
        held_out=metrics.get("held_out"),
        base=Agreement.from_stored(metrics.get("base_agreement")),
        adapter=Agreement.from_stored(metrics.get("adapter_agreement")),
        metrics=metrics,
    )


def list_adapters(profile: Profile) -> list[AdapterFigures]:
    """Every adapter with its base scorer, whether active, its held-out figures and all metrics."""
    return [adapter_figures(a) for a in profile.adapters.all()]


def _adapter_named(profile: Profile, name: str | None) -> Any:
    record = profile.adapters.get(name) if name else profile.adapters.active()
    if name and record is None:
        raise TasteError(f"no adapter named {name!r}")
    return record


def rank_images(
    profile: Profile,
    adapter_name: str | None = None,
    dimension: str = "overall",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Ranking:
    """The library ranked best first by the active (or named) adapter, else by the base scorer."""
    record = _adapter_named(profile, adapter_name)
    scorer = record.base_scorer if record else default_scorer(profile)
    library = _library(profile, scorer, progress, cancel)
    column = library.base_column(dimension)
    if record is not None:
        personal = _personal_scores(TasteAdapter.from_bytes(record.blob), library, dimension)
    else:
        personal = column
    order = np.argsort(-personal, kind="stable")
    images = library.arrays.images
    ranked = tuple(RankedImage(images[i].id, float(personal[i]), float(column[i])) for i in order.tolist())
    return Ranking(scorer, record.name if record else None, dimension, ranked)


def _personal_scores(adapter: TasteAdapter, library: _Library, dimension: str = "overall") -> np.ndarray:
    """The adapter's order on the base scorer's 1–5 spread over this library (taste_guard.onto_base_scale)."""
    column = library.base_column(dimension)
    return onto_base_scale(adapter.utilities(library.inputs, dimension), column)


def _store_ranking(profile: Profile, name: str, adapter: TasteAdapter, library: _Library) -> dict[int, dict[str, float]]:
    scores = _personal_scores(adapter, library)
    rows = {record.id: {"overall": round(float(value), 6)} for record, value in zip(library.arrays.images, scores, strict=True)}
    record = profile.adapters.get(name)
    version = f"adapter-{record.id}" if record is not None else ""
    write_scores(profile, scorer_id(ScorerKind.TASTE, name), rows.items(), scorer_version=version)
    return rows


def store_personal_ranking(
    profile: Profile,
    adapter_name: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[int, dict[str, float]]:
    """Store the named (else the active) adapter's overall personal scores as "taste:<name>", the
    ranking the GUI's "My ranking" sorts by (training, `taste use` and the scorer registry all come
    here); returns the stored scores by image id (empty: no adapter)."""
    record = _adapter_named(profile, adapter_name)
    if record is None:
        return {}
    library = _library(profile, record.base_scorer, progress, cancel)
    return _store_ranking(profile, record.name, TasteAdapter.from_bytes(record.blob), library)


def suggest_next_pairs(
    profile: Profile,
    count: int = 1,
    dimension: str = "overall",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    include_rejects: bool = False,
) -> list[SuggestedPair]:
    """Pairs to judge next: the closest calls in the active adapter's ranking, no near-duplicates or
    burst mates, only images worth comparing (taste_guard.comparable_image_ids)."""
    from aesthete_gui.training.suggest import suggest_pairs

    record = profile.adapters.active()
    scorer = record.base_scorer if record else default_scorer(profile)
    adapter = TasteAdapter.from_bytes(record.blob) if record else None
    if adapter is None:
        # Before any adapter the ranking is the base scores alone: no embeddings (minutes of CPU on
        # a fresh library) and image properties only for images the scorer has not scored yet.
        images, inputs = base_ranking(profile, scorer, progress, cancel)
    else:
        library = _library(profile, scorer, progress, cancel)
        images, inputs = library.arrays.images, library.inputs
    row_of = {r.id: i for i, r in enumerate(images)}
    judged = {frozenset((c.a, c.b)) for c in _pair_choices(profile.choices.all(dimension), row_of)}
    comparable = set(comparable_image_ids(profile, include_rejects))
    pairs = suggest_pairs(
        adapter, inputs, judged, count=count, dimension=dimension,
        hashes=[r.phash for r in images], bursts=[r.burst_id for r in images],
        allowed=[r.id in comparable for r in images],
    )  # fmt: skip
    return [SuggestedPair(images[a].id, images[b].id, float(info), dimension) for a, b, info in pairs]
